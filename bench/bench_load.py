"""Load and isolation in the browser (issue 19): one Streamlit server, N concurrent headless Chromium
sessions (one browser, a context — its own cookies, websocket and Streamlit session — per user).

Each session loads the layer builder, makes ``EDITS`` edits of the training's epochs (each a rerun of the
layer builder; a value no other session uses) and times Enter → its own new total on screen ("edit →
total"), then opens the hardware page from the sidebar and sets a chip count of its own, then goes back to
the layer builder. Isolation: after every step the session must see ITS values — the total for its epochs
(Epoch AI's worked example × epochs / 10) and, on the hardware page, its chips × 1 day × 312 TFLOP/s ×
the median reported utilization of A100-generation runs (A100 BF16 dense) — never another session's; and no exception element anywhere.

Reports per N the median and p95 of edit → total, failures, and the server's resident memory (VmRSS from
/proc) before, after each N, and after ``RERUNS`` reruns of one session. ``--upload`` adds Epoch's
10^6-row CSV uploaded on the trends page: time to the result, and server RSS after it and after the
session is closed.

    /work/main/.venv/bin/python -m bench.bench_load [--sessions 5 10 20] [--edits 20] [--reruns 500] [--upload]
        [--ramp SECONDS]   (users' first page loads spread out; all edit at once afterwards)

Prints one JSON object. Figures are one run (not medians of runs): the machine's load matters; note it.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import time
from pathlib import Path

from bench.bench_epoch_upload_rss import big_csv
from tests.browser.harness import CHROMIUM_ARGS, SETTLED, cpu_seconds, rss_bytes, streamlit_server
from tests.browser.sessions import EDITS, EXCEPTION, TIMEOUT_MS, layer_total, settled, shows, user

SESSIONS = (5, 10, 20)
RERUNS = 500


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def reruns(browser, url: str, n: int) -> float:
    """``n`` reruns of one session (epochs 11, 12, 11, … each waited for); seconds in all."""
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    await page.goto(url)
    await settled(page)
    field = page.get_by_label("Epochs", exact=True)
    start = time.perf_counter()
    for i in range(n):
        epochs = 11 + i % 2
        await field.fill(str(epochs))
        await field.press("Enter")
        await shows(page, layer_total(epochs))
        await page.wait_for_function(SETTLED, arg=0, timeout=TIMEOUT_MS, polling=20)
    elapsed = time.perf_counter() - start
    await context.close()
    return elapsed


async def upload(browser, url: str, pid: int, path: Path) -> dict:
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    await page.goto(f"{url}/trends")
    await settled(page)
    before = rss_bytes(pid)
    await page.get_by_text("Add Epoch AI's data").click()
    start = time.perf_counter()
    await page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(path))
    await page.wait_for_timeout(500)
    await settled(page)
    elapsed = time.perf_counter() - start
    out = {"upload_to_page_s": round(elapsed, 1), "rss_before_mb": round(before / 2**20),
           "rss_after_mb": round(rss_bytes(pid) / 2**20),
           "exceptions": await page.locator(EXCEPTION).count(),
           "messages": [t[:160] for t in await page.locator("[data-testid='stAlert']").all_inner_texts()][:3]}
    await context.close()
    await asyncio.sleep(5)
    out["rss_after_session_closed_mb"] = round(rss_bytes(pid) / 2**20)
    return out


async def measure(sessions: tuple[int, ...], edits: int, rerun_count: int, with_upload: bool,
                  ramp_s: float = 0.0) -> dict:
    from playwright.async_api import async_playwright

    result: dict = {"cpus": os.cpu_count(), "load_average_at_start": os.getloadavg()[0], "edits": edits}
    with streamlit_server(with_process=True) as (url, proc):
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                              args=CHROMIUM_ARGS)
            warm = await browser.new_context()
            page = await warm.new_page()
            await page.goto(url)
            await settled(page)  # the server's first run: imports, caches (not counted)
            await warm.close()
            result["rss_before_mb"] = round(rss_bytes(proc.pid) / 2**20)
            for n in sessions:  # users 0…n-1: values unique among the sessions running at once
                start, cpu = time.perf_counter(), cpu_seconds(proc.pid)
                runs = await asyncio.gather(*(user(browser, url, k, edits, k * ramp_s) for k in range(n)))
                times = [t for r in runs for t in r["edit_s"]]
                result[f"n{n}"] = {
                    "wall_s": round(time.perf_counter() - start, 1), "ramp_s_per_user": ramp_s,
                    "server_cpu_s": round(cpu_seconds(proc.pid) - cpu, 1),
                    "edit_to_total_ms_median": round(1e3 * statistics.median(times)) if times else None,
                    "edit_to_total_ms_p95": round(1e3 * percentile(times, 0.95)) if times else None,
                    "edits_done": len(times), "sessions_with_problems": sum(bool(r["problems"]) for r in runs),
                    "problem_kinds": dict(collections.Counter(p.split(":")[0].split(" ")[0] + " " + p.split(": ")[1][:40]
                                                              for r in runs for p in r["problems"])),
                    "problems": [p for r in runs for p in r["problems"]][:10],
                    "rss_after_mb": round(rss_bytes(proc.pid) / 2**20)}
                print(json.dumps({f"n{n}": result[f"n{n}"]}), flush=True)
            if rerun_count:
                elapsed = await reruns(browser, url, rerun_count)
                result["reruns"] = {"count": rerun_count, "wall_s": round(elapsed, 1),
                                    "ms_each": round(1e3 * elapsed / rerun_count),
                                    "rss_after_mb": round(rss_bytes(proc.pid) / 2**20)}
                await asyncio.sleep(5)
                result["reruns"]["rss_5s_later_mb"] = round(rss_bytes(proc.pid) / 2**20)
                print(json.dumps({"reruns": result["reruns"]}), flush=True)
            if with_upload:
                path = Path("/tmp") / f"flopscope-epoch-{os.getpid()}.csv"
                path.write_bytes(big_csv(1_000_000))
                try:
                    result["epoch_upload_1e6_rows"] = {"file_mb": round(path.stat().st_size / 2**20, 1),
                                                       **await upload(browser, url, proc.pid, path)}
                finally:
                    path.unlink()
            await browser.close()
    result["load_average_at_end"] = os.getloadavg()[0]
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, nargs="+", default=list(SESSIONS))
    parser.add_argument("--edits", type=int, default=EDITS)
    parser.add_argument("--reruns", type=int, default=RERUNS)
    parser.add_argument("--upload", action="store_true")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="seconds between users' first page loads (all are open together afterwards)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(tuple(args.sessions), args.edits, args.reruns, args.upload, args.ramp)),
                     indent=2))
