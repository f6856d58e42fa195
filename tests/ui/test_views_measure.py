"""The measure page's pure views: the stacked bar adds up to each step, the roofline's roof is min(peak, I × BW)."""
from __future__ import annotations

import pytest

from engine.measure.example import EXAMPLE_TRACE
from engine.measure.measurement import measure_trace
from engine.method2.hardware_db import load_hardware_db
from ui.views.measure import headline_metrics, op_table, roofline, step_bar


@pytest.fixture(scope="module")
def result():
    return measure_trace(EXAMPLE_TRACE).as_dict()


def test_stacked_bar_sums_to_each_step(result):
    traces = step_bar(result)
    for i, step in enumerate(result["steps"]):
        assert sum(t["x"][i] for t in traces) == pytest.approx(step["total_ms"], rel=1e-9)


def test_roofline_roof(result):
    traces, left_out = roofline(result)
    chip = load_hardware_db().chip("nvidia-h100-sxm")
    bw = chip.memory_bandwidth_gb_s * 1e9
    roof = traces[0]
    for x, y in zip(roof["x"], roof["y"]):
        assert y == pytest.approx(min(chip.peaks.bf16_tensor, x * bw))
    placed = sum(len(t["x"]) for t in traces[1:])
    assert placed + left_out == len(result["ops"])


def test_hostile_names_are_escaped_in_hover_text(result):
    hostile = dict(result, ops=[dict(result["ops"][0], name="<img src=x onerror=alert(1)>")])
    traces, _ = roofline(hostile)
    assert all("<img" not in str(t.get("customdata")) for t in traces)
    assert op_table(hostile)[0]["operator"] == "<img src=x onerror=alert(1)>"  # a table cell: text, not HTML
    assert [m[0] for m in headline_metrics(result)] == ["Step time", "FLOP per step", "HFU", "MFU"]
