"""Browser benchmark (issue 14): time to the first number after a page load on a WARM server, and
from an edit of the epochs to the updated total. Medians of ``REPEAT`` fresh browser contexts.

    /work/main/.venv/bin/python -m bench.bench_browser [--repeat N]

Target: first render ≤ 1.5 s (warm server). "First render" = navigation start → the training compute
(the default scenario's, checked against the worked example) is on screen, in the results bar at the
top; "page complete" = navigation start → the metric row below is drawn too (every widget's code has
loaded by then); "edit → total" = Enter in the epochs field → the new total is on screen.
The first load after the server starts (imports, caches) is run once and not counted.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from bench.common import epochs_edit_seconds, flop_text
from tests.browser.harness import CHROMIUM_ARGS, streamlit_server, wait_for_app
from tests.reference import EPOCH_EXAMPLE_TRAINING

REPEAT = 7
FIRST_NUMBER = ".st-key-flop_summary strong"
ALL_METRICS = "[data-testid='stMetricValue']"


def total_text(epochs: int) -> str:
    return flop_text(EPOCH_EXAMPLE_TRAINING * epochs / 10)


def measure(repeat: int = REPEAT, cache: str = "warm") -> dict:
    """``cache`` 'warm': one browser profile, a new tab (and Streamlit session) per load, as a returning
    user; 'cold': a fresh profile per load (the JS bundle fetched and compiled again)."""
    from playwright.sync_api import sync_playwright

    first, complete, edits = [], [], []
    want = "Training compute: " + total_text(10)
    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        shared = browser.new_context(viewport={"width": 1440, "height": 900})
        page = shared.new_page()
        page.goto(url)
        wait_for_app(page)  # the server's first run: imports, caches (not counted)
        page.close()
        for i in range(repeat):
            context = shared if cache == "warm" else browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            start = time.perf_counter()
            page.goto(url)
            page.locator(FIRST_NUMBER, has_text=want).wait_for(timeout=60_000)
            first.append(time.perf_counter() - start)
            page.wait_for_selector(ALL_METRICS, timeout=60_000)
            complete.append(time.perf_counter() - start)
            wait_for_app(page)
            edits.append(epochs_edit_seconds(page, 11 + i, total_text(11 + i)))
            page.close()
            if context is not shared:
                context.close()
        browser.close()
    return {"cache": cache, "first_render_ms_median": round(1e3 * statistics.median(first)),
            "first_render_ms_all": [round(1e3 * x) for x in first],
            "page_complete_ms_median": round(1e3 * statistics.median(complete)),
            "edit_to_total_ms_median": round(1e3 * statistics.median(edits)),
            "edit_to_total_ms_all": [round(1e3 * x) for x in edits]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=REPEAT)
    parser.add_argument("--cache", choices=("warm", "cold"), default="warm")
    args = parser.parse_args()
    print(json.dumps(measure(args.repeat, args.cache)))
