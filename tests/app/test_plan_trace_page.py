"""The Plan page's "Plan against a measured run" through AppTest, on the bundled example trace (synthetic, H100):
the measured step is worked out here from the trace's events (the GPU-side step windows' spans, averaged); the
planned step is the plan the form shows; another chip is refused in one line with a button that plans on the
trace's chip; "plan with this run's efficiency" re-times the plan."""
from __future__ import annotations

import gzip
import json

from streamlit.testing.v1 import AppTest

from engine.measure.example import EXAMPLE_TRACE
from tests.conftest import ROOT


def plan_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def seconds(text: str) -> float:
    """'34.892 ms' or '2.740 s' (or '2.740 s (−99%)') in seconds."""
    number, unit = text.split()[:2]
    return float(number.replace(",", "").lstrip("+−")) * (1e-3 if unit == "ms" else 1.0)


def _example_step_ms() -> float:
    """The mean over the example's steps of the span of the GPU work starting inside each GPU-side window."""
    events = json.loads(gzip.decompress(EXAMPLE_TRACE.read_bytes()))["traceEvents"]
    spans = []
    for w in (e for e in events if e["cat"] == "gpu_user_annotation" and e["name"].startswith("ProfilerStep#")):
        gpu = [e for e in events if e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset")
               and w["ts"] <= e["ts"] < w["ts"] + w["dur"]]
        spans.append(max(e["ts"] + e["dur"] for e in gpu) - min(e["ts"] for e in gpu))
    return sum(spans) / len(spans) / 1000


def test_planned_beside_the_example_trace():
    at = plan_page()
    assert not any(m.label == "Measured step" for m in at.metric)  # nothing until a trace is given
    at.checkbox(key="plan_trace_example").check().run()
    assert not at.exception, [e.value for e in at.exception]
    assert metric(at, "Measured step") == f"{_example_step_ms():,.3f} ms"
    planned = metric(at, "Planned step")
    step_s = seconds(metric(at, "Step time"))  # the plan above (rounded there)
    assert abs(seconds(planned) / step_s - 1) < 5e-3
    gap = metric(at, "Measured − planned")
    assert gap.startswith("−")  # a small decoder's step against Llama 2 7B's: far shorter
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "Gap:" in text and "this plan's run" in text and "FLOP per chip per step" in text
    # plan with this run's efficiency
    at.toggle(key="plan_trace_calibrate").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    again = metric(at, "Calibrated step")
    assert seconds(again) > 0 and again != planned
    assert metric(at, "Bandwidth reached").endswith("%")


def test_another_chip_is_one_line_and_a_button():
    at = plan_page()
    at.selectbox(key="plan_chip").set_value("nvidia-a100-sxm4-80gb").run()
    at.checkbox(key="plan_trace_example").check().run()
    errors = [e.value for e in at.error]
    assert any("recorded on NVIDIA H100" in e and "A100" in e for e in errors), errors
    next(b for b in at.button if b.key == "plan_trace_use_chip").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="plan_chip").value == "nvidia-h100-sxm"
    assert metric(at, "Measured step") == f"{_example_step_ms():,.3f} ms"
