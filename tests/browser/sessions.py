"""Concurrent users in the browser (Playwright's async API, one Chromium, a context per user): each
user's flow over the layer builder and the hardware page, checking that it sees its own values only.
Used by tests/browser/test_isolation.py and bench/bench_load.py."""
from __future__ import annotations

import asyncio
import time

from bench.common import flop_text
from tests.browser.harness import SETTLED
from tests.reference import EPOCH_EXAMPLE_TRAINING, REPORTED_A100

EDITS = 20
DAY_S = 86_400
A100_BF16 = 312e12  # NVIDIA A100 datasheet: BF16 tensor 312 TFLOP/s dense
TIMEOUT_MS = 180_000
METRIC = "[data-testid='stMetricValue']"
EXCEPTION = "[data-testid='stException']"


def epochs_for(user: int, edit: int) -> int:
    """Epochs no other (user, edit) uses, 1.2% apart at least, so that the 3-digit totals differ too."""
    return round(100 * 1.012 ** (user * (EDITS + 1) + edit))


def layer_total(epochs: int) -> str:
    return flop_text(EPOCH_EXAMPLE_TRAINING * epochs / 10)


def hardware_total(chips: int) -> str:
    return flop_text(chips * DAY_S * A100_BF16 * REPORTED_A100)  # the reported-runs median, any A100 count


async def settled(page) -> None:
    await page.wait_for_timeout(250)
    await page.evaluate("window.__flopscopeSettled = null")
    await page.wait_for_function(SETTLED, arg=150, timeout=TIMEOUT_MS, polling=50)


async def shows(page, want: str, timeout_ms: int | None = None) -> None:
    """Until a metric reads ``want`` (within ``TIMEOUT_MS`` unless told)."""
    await page.wait_for_function(
        "(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')].some(e => e.innerText === want)",
        arg=want, timeout=timeout_ms or TIMEOUT_MS)


async def metric_texts(page) -> list[str]:
    return await page.locator(METRIC).all_inner_texts()


async def user(browser, url: str, uid: int, edits: int = EDITS, delay_s: float = 0.0) -> dict:
    """One user's session (opened after ``delay_s``); returns its edit times and what went wrong
    (exceptions, foreign values)."""
    out = {"edit_s": [], "problems": [], "load_s": None}
    await asyncio.sleep(delay_s)
    step = "first page load"
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)  # 20 pages loading at once on 2 cores take longer than 30 s
    page = await context.new_page()
    try:
        start = time.perf_counter()
        await page.goto(url)
        await settled(page)
        out["load_s"] = time.perf_counter() - start  # the first page load, until the page is drawn and settled
        field = page.get_by_label("Epochs", exact=True)
        for i in range(edits):
            step = f"edit {i}: waiting for its own total"
            epochs = epochs_for(uid, i)
            await field.fill(str(epochs))
            start = time.perf_counter()
            await field.press("Enter")
            await shows(page, layer_total(epochs))
            out["edit_s"].append(time.perf_counter() - start)
            await settled(page)
            if await page.locator(EXCEPTION).count():
                out["problems"].append(f"exception after edit {i}")
            if layer_total(epochs) not in await metric_texts(page):
                out["problems"].append(f"edit {i}: own total gone")
        last = layer_total(epochs_for(uid, edits - 1))
        step = "hardware run"
        await page.get_by_role("link", name="Hardware & time (method 2)").click()
        await settled(page)
        chips = 8 + uid + 1
        count = page.get_by_label("Number of chips", exact=True)
        await count.fill(str(chips))
        await count.press("Enter")
        await shows(page, hardware_total(chips))
        await settled(page)
        if await page.locator(EXCEPTION).count():
            out["problems"].append("exception on the hardware page")
        step = "back on the layer builder"
        await page.get_by_role("link", name="Layer builder (method 1)").click()
        await page.get_by_label("Epochs", exact=True).wait_for(timeout=TIMEOUT_MS)
        await settled(page)
        try:
            await shows(page, last, timeout_ms=30_000)
        except Exception:  # noqa: BLE001 — reported below with what the page shows instead
            out["problems"].append(f"back on the layer builder: {await metric_texts(page)} lacks its own {last}")
        held = await page.get_by_label("Epochs", exact=True).input_value()
        if float(held) != float(f"{epochs_for(uid, edits - 1):.4g}"):  # the field shows 4 digits ("%.4g")
            out["problems"].append(f"back on the layer builder: the epochs field holds {held!r}, not "
                                   f"{epochs_for(uid, edits - 1)}")
    except Exception as exc:  # a timeout waiting for its own value is a failure of isolation or of load
        out["problems"].append(f"{step}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    finally:
        await context.close()
    return out
