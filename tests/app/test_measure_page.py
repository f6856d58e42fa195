"""The "Measure a run" page through AppTest: the bundled example's breakdown and HFU (worked out here from the
trace's events), the chip choice, MFU from a given FLOP per step, and a shared summary link."""
from __future__ import annotations

import gzip
import json

import pytest
from streamlit.testing.v1 import AppTest

from engine.measure.example import EXAMPLE_TRACE
from tests.conftest import ROOT
from tests.reference import metric

H100_BF16 = 989.4e12  # NVIDIA H100 SXM datasheet: BF16 1,979 TFLOP/s with sparsity → 989.4 dense


def page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(str(ROOT / "pages" / "measure.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _example_step():
    """Step 1 of the example, from its events: the GPU window's span, and 2·M·N·K over its products plus the
    attention's 4·B·H·S²·D (forward) and 10·B·H·S²·D (backward, five products)."""
    doc = json.loads(gzip.decompress(EXAMPLE_TRACE.read_bytes()))
    window = next(e for e in doc["traceEvents"] if e["cat"] == "gpu_user_annotation" and e["name"] == "ProfilerStep#1")
    lo, hi = window["ts"], window["ts"] + window["dur"]
    gpu = [e for e in doc["traceEvents"] if e["cat"] in ("kernel", "gpu_memcpy") and lo <= e["ts"] < hi]
    span = max(e["ts"] + e["dur"] for e in gpu) - min(e["ts"] for e in gpu)
    host = next(e for e in doc["traceEvents"] if e["cat"] == "user_annotation" and e["name"] == "ProfilerStep#1")
    flop = 0
    for e in doc["traceEvents"]:
        if e["cat"] != "cpu_op" or not host["ts"] <= e["ts"] < host["ts"] + host["dur"]:
            continue
        d = e["args"].get("Input Dims")
        if e["name"] == "aten::mm":
            flop += 2 * d[0][0] * d[0][1] * d[1][1]
        elif e["name"] == "aten::addmm":
            flop += 2 * d[1][0] * d[1][1] * d[2][1]
        elif e["name"] == "aten::_scaled_dot_product_flash_attention":
            b, h, s, hd = d[0]
            flop += 4 * b * h * s * s * hd
        elif e["name"] == "aten::_scaled_dot_product_flash_attention_backward":
            b, h, s, hd = d[1]
            flop += 10 * b * h * s * s * hd
    return span / 1000, flop


def test_example_breakdown_and_hfu():
    at = page()  # the bundled example, until a trace is uploaded
    step_ms, flop = _example_step()
    assert metric(at, "Step time") == f"{step_ms:,.3f} ms"
    assert metric(at, "HFU") == f"{100 * flop / (step_ms / 1e3 * H100_BF16):.1f}%"
    assert metric(at, "MFU") == "—"
    text = " ".join(m.value for m in at.markdown)
    assert "idle while the CPU launches" in text and "communication not hidden" in text
    at.radio(key="measure_model").set_value("FLOP per step").run()
    at.number_input(key="measure_flop").set_value(4e11).run()
    assert metric(at, "MFU") == f"{100 * 4e11 / (step_ms / 1e3 * H100_BF16):.1f}%"


def test_an_mfu_above_100_percent_is_said_and_the_page_keeps_working():
    """The whole run's FLOP given as one step's (an easy slip): MFU far above 100% — said in a note, the share link
    (whose summary holds figures up to 100 × 100%) replaced by one line, the downloads kept; no exception."""
    at = page()
    step_ms, _ = _example_step()
    at.radio(key="measure_model").set_value("FLOP per step").run()
    at.number_input(key="measure_flop").set_value(1e18).run()
    assert not at.exception, [e.value for e in at.exception]
    mfu = 1e18 / (step_ms / 1e3 * H100_BF16)
    assert metric(at, "MFU") == f"{100 * mfu:.1f}%"
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any(c.startswith(f"Note: MFU {100 * mfu:,.4g}% is above 100%") for c in captions), captions
    assert any(c.startswith("No share link for this measurement: its MFU is outside what a link carries (HFU and MFU "
                         "up to 10,000%") for c in captions), captions
    assert not [t for t in at.text_area if t.key == "measure_share"]
    assert len(at.get("download_button")) == 2


def test_a_chip_chosen_replaces_the_device_name():
    at = page()
    at.selectbox(key="measure_chip").set_value("nvidia-a100-sxm4-80gb").run()
    step_ms, flop = _example_step()
    assert metric(at, "HFU") == f"{100 * flop / (step_ms / 1e3 * 312e12):.1f}%"  # A100 BF16 dense, datasheet


def test_shared_summary_link_shows_the_figures_without_the_trace():
    from engine.measure.measurement import measure_trace
    from engine.measure.summary_link import encode_summary, summary_of

    result = measure_trace(EXAMPLE_TRACE).as_dict()
    token = encode_summary(summary_of(result))
    at = AppTest.from_file(str(ROOT / "pages" / "measure.py"), default_timeout=60)
    at.query_params["m"] = token
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert metric(at, "HFU") == f"{100 * result['hfu']:.1f}%"
    assert any("the link carries its figures, not the trace" in i.value for i in at.info)


@pytest.mark.parametrize("token", ["m1.garbage", "x" * 20_000, "m1." + "A" * 40, "s1.abc"])
def test_a_bad_summary_link_is_one_line(token):
    at = AppTest.from_file(str(ROOT / "pages" / "measure.py"), default_timeout=60)
    at.query_params["m"] = token
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.replace("\\", "").startswith("link:")


def _results_of(path: str) -> None:
    from engine.measure.measurement import measure_trace
    from ui.components.measure import results

    results(measure_trace(path).as_dict())


def test_a_lone_surrogate_and_line_breaks_in_the_traces_names_keep_the_page_working(tmp_path):
    """A device named with ``"\\ud800"`` (before: an UnicodeEncodeError exception element on the page) and a kernel
    named across lines: U+FFFD, and the kernel's caption one line."""
    from tools.synthetic_trace import TraceBuilder

    b = TraceBuilder("NVIDIA H100 \ud800 80GB HBM3")
    b.op("aten::mm", 10, ((64, 32), (32, 16)), ("float", "float"))
    b.launch("gemm_kernel", 5.0)
    b.launch("kern\nline\u2028two", 5.0)
    b.step_marks(1, b.cpu - 20, b.cpu + 5, b.gpu - 11, b.gpu + 1)
    at = AppTest.from_function(_results_of, args=(str(b.write(tmp_path / "t.json")),), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert any("NVIDIA H100 \ufffd 80GB HBM3" in c.replace("\\", "") for c in captions), captions
    kernel = [c for c in captions if "kern" in c]
    assert kernel and "\n" not in kernel[0] and "\u2028" not in kernel[0], kernel
