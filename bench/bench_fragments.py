"""Parts that rerun alone (``ui/fragments.py``), side by side with whole-page reruns, in the browser.

Each case edits one field and times, from the key press, until the figure it changes reads its new value:
- hardware page, "On this many chips → time" → the "Wall-clock on N chips" metric (a page part);
- plan page, "Tokens served over the model's life" → the "Inference" metric (a page part);
- layer builder, Epochs → the training compute (the whole page reruns either way: the edit → total figure).
Two servers, one with ``FLOPSCOPE_WHOLE_PAGE_RERUNS=1``; medians of ``REPEAT`` edits each, and their ratio.

    .venv/bin/python -m bench.bench_fragments
"""
from __future__ import annotations

import os
import statistics
import time

from playwright.sync_api import sync_playwright

from bench.common import epochs_edit_seconds, flop_text
from tests.browser.harness import CHROMIUM_ARGS, streamlit_server, wait_for_app
from tests.reference import EPOCH_EXAMPLE_TRAINING

REPEAT = 7
METRIC_READS = """([label, want]) => [...document.querySelectorAll('[data-testid=stMetric]')]
    .some(m => m.innerText.includes(label) && (want === null ||
               m.querySelector('[data-testid=stMetricValue]').innerText.trim() !== want))"""


def _edit(page, label: str, value, metric: str, before: str | None) -> float:
    field = page.get_by_label(label, exact=True).first
    field.fill(str(value))
    start = time.perf_counter()
    field.press("Enter")
    page.wait_for_function(METRIC_READS, arg=[metric, before], timeout=60_000, polling=20)
    return time.perf_counter() - start


def _value(page, metric: str) -> str:
    return page.locator("[data-testid='stMetric']", has_text=metric).locator(
        "[data-testid='stMetricValue']").first.inner_text().strip()


def measure(url: str, browser) -> dict:
    page = browser.new_context(viewport={"width": 1440, "height": 1200}).new_page()
    out = {}
    page.goto(f"{url}/hardware")
    wait_for_app(page)
    samples = []
    for i in range(REPEAT):
        chips = 16 + i
        samples.append(_edit(page, "On this many chips → time", chips, f"Wall-clock on {chips} chips", None))
        wait_for_app(page)
    out["hardware: chips for a budget → wall-clock"] = statistics.median(samples)
    page.goto(f"{url}/plan")
    wait_for_app(page)
    samples = []
    for i in range(REPEAT):
        before = _value(page, "Inference")
        samples.append(_edit(page, "Tokens served over the model's life", f"{2 + i}e12", "Inference", before))
        wait_for_app(page)
    out["plan: tokens served → inference compute"] = statistics.median(samples)
    page.goto(url)
    wait_for_app(page)
    samples = []
    for i in range(REPEAT):
        epochs = 11 + i
        samples.append(epochs_edit_seconds(page, epochs, flop_text(EPOCH_EXAMPLE_TRAINING * epochs / 10)))
        wait_for_app(page)
    out["layer builder: epochs → training compute"] = statistics.median(samples)
    page.context.close()
    return out


def main() -> None:
    results = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for mode, flag in (("parts", "0"), ("whole page", "1")):
            os.environ["FLOPSCOPE_WHOLE_PAGE_RERUNS"] = flag
            with streamlit_server() as url:
                results[mode] = measure(url, browser)
        browser.close()
    for case in results["parts"]:
        parts, whole = results["parts"][case], results["whole page"][case]
        print(f"{case:48s} parts {1000 * parts:7.0f} ms   whole page {1000 * whole:7.0f} ms   "
              f"ratio {whole / parts:5.2f}×")


if __name__ == "__main__":
    main()
