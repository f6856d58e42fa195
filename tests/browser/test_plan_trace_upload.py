"""The Plan page's "Plan against a measured run" in a real browser (Debian's Chromium, Playwright): a Llama 2 7B
plan opened from a link, a real H100 trace (TraceLens's Qwen1.5-0.5B, ../shared) uploaded — the measured step is
TraceLens's own gpu_timeline.csv total, the planned step the plan's, the FLOP mismatch said — then "plan with this
run's efficiency"; no exception element at any point."""
from __future__ import annotations

import csv

from engine.presets import presets
from engine.share_link import encode
from tests.browser.harness import metric_value, wait_for_app

QWEN = "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005"


def healthy(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Something unexpected went wrong").count() == 0


def test_upload_a_trace_beside_the_plan(server, browser, shared_dir):
    traces = shared_dir / "data" / "traces"
    with open(traces / f"{QWEN}_perf_report_csvs" / "gpu_timeline.csv", newline="") as f:
        total_ms = next(float(r["time ms"]) for r in csv.DictReader(f) if r["type"] == "total_time")
    context = browser.new_context(viewport={"width": 1400, "height": 2600})
    page = context.new_page()
    page.goto(f"{server}/plan?s={encode(presets()['llama2-7b'].scenario)}")
    wait_for_app(page)
    healthy(page)
    page.get_by_text("Plan against a measured run").wait_for(timeout=60_000)
    assert page.get_by_text("python -m engine plan … --trace TRACE.json.gz").count() == 1  # the bound, visible
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(traces / f"{QWEN}.json.gz"))
    want = f"{total_ms:,.3f} ms"
    page.wait_for_function("(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')]"
                           ".some(e => e.innerText === want)", arg=want, timeout=90_000)
    wait_for_app(page)
    healthy(page)
    assert metric_value(page, "Measured step") == want
    assert metric_value(page, "Planned step").endswith((" ms", " s"))
    assert page.get_by_text("FLOP per chip per step").count() >= 1  # a 0.5B model's trace against a 7B plan: said
    page.get_by_text("Plan with this run's efficiency").click()
    page.get_by_text("Calibrated step").wait_for(timeout=60_000)
    wait_for_app(page)
    healthy(page)
    assert metric_value(page, "Calibrated step").endswith((" ms", " s"))
    context.close()
