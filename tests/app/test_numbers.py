"""Numbers and names on the pages: chip-hours in k/M, MWh, t CO₂, '1 chip', peaks without padding
zeros, log axes labelled at decades only. Figures worked out here."""
from __future__ import annotations

import json
import math

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.reference import metric


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if name != "layer_builder":
        at.switch_page(str(ROOT / "pages" / f"{name}.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_hardware_page_scales_chip_hours_energy_and_co2():
    at = page("hardware")
    at.number_input(key="hw_count").set_value(1024.0).run()
    at.number_input(key="hw_duration").set_value(30.0).run()
    at.number_input(key="hw_tdp").set_value(700.0).run()
    at.selectbox(key="hw_provider").set_value("custom").run()  # your own PUE and grid figures
    at.selectbox(key="hw_place").set_value("custom").run()
    at.number_input(key="hw_pue").set_value(1.1).run()
    at.number_input(key="hw_grid").set_value(0.48).run()
    chip_hours = 1024 * 30 * 24                       # 737,280
    kwh = chip_hours * 0.7 * 1.1                     # 567,706 kWh
    assert metric(at, "Chip time") == f"{round(chip_hours / 1e3)}k chip-hours"
    assert metric(at, "Energy") == f"{round(kwh / 1e3)} MWh"
    assert metric(at, "CO₂") == f"{round(kwh * 0.48 / 1e3)} t CO₂"
    # the method-1 budget (1.13e16 FLOP) needs one A100 for far less than 30 days
    assert metric(at, "Chips for 30 days") == "1 chip"


def test_precision_chart_prints_peaks_without_padding_zeros():
    at = page("precision")
    texts = [t for trace in figures(at)[0]["data"] for t in trace.get("text", [])]
    # A100 datasheet: FP64 9.7, FP32 19.5, BF16 tensor 312 TFLOP/s
    assert {"9.7", "19.5", "312"} <= set(texts)
    assert not any(t.endswith("0") and "." in t for t in texts)


def test_every_log_axis_is_labelled_at_decades_only():
    for name in ("layer_builder", "precision", "trends"):
        at = page(name)
        if name == "layer_builder":
            at.toggle(key="m1_chart").set_value(True).run()
        specs = figures(at)
        assert specs, name
        for spec in specs:
            y = spec["layout"]["yaxis"]
            assert y["type"] == "log" and isinstance(y["dtick"], int) and y["dtick"] >= 1, (name, y)  # not 'D1'/'D2'
            values = [v for trace in spec["data"] for v in (trace.get("y") or []) if isinstance(v, (int, float)) and v > 0]
            if values:  # at most about ten labels: one per dtick decades
                assert (math.log10(max(values)) - math.log10(min(values))) / y["dtick"] <= 10, (name, y)
            assert not spec["layout"].get("title", {}).get("text"), "titles sit above the chart, clear of its toolbar"
