"""The precision page's results: the effective peak, the chip's peaks per format, the run in each format."""
from __future__ import annotations

import functools
import json

import pandas as pd
import plotly.express as px
import streamlit as st

from engine.errors import InputError, parse_input
from engine.method2.format_comparison import compare_formats
from engine.method2.run import HardwareRun
from ui.charts import decades, figure, show_chart
from ui.hardware_inputs import FORMAT_LABELS, PEAK_LABELS
from ui.views import precision as view
from ui.widgets import metric_row, say


def effective_peak(estimate) -> None:
    if estimate is None:
        return
    metric_row(view.peak_metrics(estimate, FORMAT_LABELS))
    if estimate.peak.fallback_used:
        say("warning", "Fallback peak: " + "; ".join(estimate.peak.fallbacks))


@functools.lru_cache(maxsize=64)
def _peaks_figure(bars_json: str) -> dict:
    """The bar chart of one chip's peaks (``view.peak_bars``, as JSON) as plotly express draws it, as a dict: made
    once per set of peaks (plotly express spent ~50 ms of each page run on it; a figure from the dict, ~9)."""
    frame = pd.DataFrame(json.loads(bars_json))
    fig = px.bar(frame, x="format", y="TFLOP/s (dense)", color="units", height=320, text="label",
                 category_orders={"format": list(frame["format"])})
    fig.update_layout(xaxis_title=None, legend_title=None, legend=dict(orientation="h", y=-0.2))
    return decades(fig).to_dict()


def peaks_chart(chip) -> None:
    if chip is not None:
        peaks = _peaks_figure(json.dumps(view.peak_bars(chip.peaks.available())))
        layout = peaks["layout"]  # (a dict keeps no empty title: set as plotly express's figure had them)
        fig = figure(peaks["data"], {**layout, "xaxis": {**layout["xaxis"], "title": {}},
                                     "legend": {**layout["legend"], "title": {}}})
        show_chart(fig, f"{chip.name}: dense peak per number format (TFLOP/s, log scale)")
        say("caption", f"Source: {', '.join(chip.source) or 'your figures'}. INT8 in OP/s. {chip.notes or ''}")
    st.markdown("**Dense or sparse?** NVIDIA's datasheets print tensor-core figures “with sparsity”: 2:4 structured "
                "sparsity skips half of the multiplications, which doubles the printed number but not the work a "
                "dense training run gets done. FLOPscope stores and uses dense peaks only — half of those figures.")


def by_format(scenario, run: dict, mix_error: str | None, db) -> None:
    st.subheader("The same run in each format")
    budget = scenario.method1(strict=False).training_flop
    shown_run = scenario.hardware
    if shown_run is None or not mix_error:
        try:
            shown_run = parse_input(HardwareRun, run)
        except InputError:
            pass
    if shown_run is None:
        return
    table = pd.DataFrame(view.format_rows(compare_formats(shown_run, budget, db), PEAK_LABELS))
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(view.budget_caption(budget))
