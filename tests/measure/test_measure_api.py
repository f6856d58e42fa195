"""The Python API: ``engine.measure_trace`` on a path, on bytes, with a model; the Markdown report is inert."""
from __future__ import annotations

import pytest

import engine
from engine.measure.example import EXAMPLE_TRACE
from tools.synthetic_trace import TraceBuilder


def test_api_path_bytes_and_model():
    by_path = engine.measure_trace(str(EXAMPLE_TRACE), model_flop=4e11)
    by_bytes = engine.measure_trace(EXAMPLE_TRACE.read_bytes(), model_flop=4e11)
    assert by_path.hfu == by_bytes.hfu and by_path.mfu == by_bytes.mfu
    step_s = sum(s.total_ms for s in by_path.steps) / len(by_path.steps) / 1e3
    assert by_path.mfu == pytest.approx(4e11 / (step_s * 989.4e12))  # H100 SXM dense BF16 (datasheet)
    assert by_path.as_dict()["ops"]
    with pytest.raises(engine.InputError, match="--batch"):
        engine.measure_trace(str(EXAMPLE_TRACE), preset="resnet50")


def test_api_preset_model_flop(tmp_path):
    m = engine.measure_trace(str(EXAMPLE_TRACE), preset="resnet50", batch=32)
    from engine.presets import presets
    m1 = presets()["resnet50"].scenario.method1()
    assert m.utilization.model_flop_per_step == pytest.approx((m1.forward_flop + m1.backward_flop) * 32)


def test_report_makes_names_inert(tmp_path):
    b = TraceBuilder(device="Evil <b>GPU</b> [x](http://a)")
    b.op("aten::mm", 10, ((64, 32), (32, 16)), ("float", "float"))
    b.launch("gemm <script>", 5.0)
    path = b.write(tmp_path / "evil[1](x).json")
    report = engine.measurement_markdown(engine.measure_trace(str(path)))
    assert "<b>" not in report and "](http" not in report and "<script>" not in report
