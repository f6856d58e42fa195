"""The "Measure a run" page in a real browser (Debian's Chromium, Playwright): a real H100 trace (TraceLens's
bert-small, ../shared) is uploaded; the step's breakdown and HFU show, with the figures TraceLens's own report
gives (gpu_timeline.csv's total; GEMM.csv's and SDPA_fwd.csv's products, 2·M·N·K per call and the attention's
two products); before it, the bundled example; no exception element at any point."""
from __future__ import annotations

import csv

from tests.browser.harness import WAIT_MS, metric_value, wait_for_app

H100_BF16 = 989.4e12  # NVIDIA H100 SXM datasheet: BF16 1,979 TFLOP/s with sparsity → 989.4 dense
BERT = "tracelens/h100/gaunernst_bert-small-uncased__1016001"


def healthy(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Something unexpected went wrong").count() == 0


def _tracelens_figures(reports):
    total_ms = next(float(r["time ms"]) for r in csv.DictReader(open(reports / "gpu_timeline.csv"))
                    if r["type"] == "total_time")
    flop = sum(2 * int(r["param: M"]) * int(r["param: N"]) * int(r["param: K"]) * int(r["name_count"])
               for r in csv.DictReader(open(reports / "GEMM.csv")))
    for r in csv.DictReader(open(reports / "SDPA_fwd.csv", encoding="utf-8")):
        b, nq, h, nk, d = (int(r[f"param: {k}"]) for k in ("B", "N_Q", "H_Q", "N_KV", "d_h_qk"))
        flop += 4 * b * h * nq * nk * d * int(r["name_count"])
    return total_ms, flop


def test_upload_a_trace_see_the_breakdown_and_hfu(server, browser, shared_dir):
    traces = shared_dir / "data" / "traces"
    total_ms, flop = _tracelens_figures(traces / f"{BERT}_perf_report_csvs")
    context = browser.new_context(viewport={"width": 1400, "height": 2400})
    page = context.new_page()
    page.goto(f"{server}/measure")
    wait_for_app(page)
    healthy(page)
    assert page.get_by_text("python -m engine trace TRACE.json.gz").count() == 1  # the bound's line, visible
    page.get_by_text("Where each step's time went").wait_for(timeout=WAIT_MS)  # the bundled example first
    assert page.get_by_text("the page shows the bundled example").count() == 1
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(traces / f"{BERT}.json.gz"))
    want = f"{total_ms:,.3f} ms"
    page.wait_for_function("(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')]"
                           ".some(e => e.innerText === want)", arg=want, timeout=WAIT_MS)
    wait_for_app(page)
    healthy(page)
    assert metric_value(page, "Step time") == want
    assert metric_value(page, "HFU") == f"{100 * flop / (total_ms / 1e3 * H100_BF16):.1f}%"
    assert page.get_by_text("Roofline: each operator").count() == 1
    context.close()


def test_an_mfu_above_100_percent_is_said_and_the_page_keeps_working(server, browser):
    """The whole run's FLOP typed as one step's (10¹⁸ on the bundled example's 2.2 ms step): MFU far above 100%, said
    in a note; the share link, whose summary carries up to 10,000%, is replaced by one line; the downloads stay.
    It raised an exception element."""
    context = browser.new_context(viewport={"width": 1400, "height": 2400})
    page = context.new_page()
    page.goto(f"{server}/measure")
    wait_for_app(page)
    page.get_by_text("Chip and model (for HFU, MFU and the roofline)").click()
    wait_for_app(page)
    page.get_by_test_id("stRadioGroup").get_by_text("FLOP per step", exact=True).click()
    wait_for_app(page)
    box = page.get_by_label("The model's FLOP per training step")
    box.fill("1e18")
    box.press("Enter")
    page.get_by_text("No share link for this measurement: its MFU is outside what a link carries").wait_for(
        timeout=WAIT_MS)
    wait_for_app(page)
    healthy(page)
    assert page.get_by_text("is above 100%: the model's FLOP per step are more than the chip can compute").count() == 1
    assert page.get_by_text("Share link (the summary, not the trace)").count() == 0
    assert page.get_by_role("button", name="Report (Markdown)").count() == 1
    context.close()
