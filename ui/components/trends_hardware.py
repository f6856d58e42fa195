"""The trends page's hardware part: dense peak FLOP/s per chip over time, per number format, with fitted
doubling times."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.method2.formats import PEAK_KEYS
from engine.method2.hardware_db import load_hardware_db
from ui.boundary import shipped_data
from ui.charts import figure, show_chart
from ui.kept import by_identity
from ui.hardware_inputs import PEAK_LABELS
from ui.views.trends import hardware_traces


def hardware_trends():
    """The formats picker, the chart and the doubling table; → the hardware database (the reconciliation's)."""
    st.subheader("Hardware: peak FLOP/s over time")
    db = shipped_data(load_hardware_db)
    chosen = st.multiselect("Number formats", list(PEAK_KEYS), default=["fp32", "fp16_tensor", "bf16_tensor"],
                            key="trends_hw", format_func=lambda k: PEAK_LABELS.get(k, k))
    traces, rows = _chart(db, tuple(chosen))
    show_chart(figure(traces, {"height": 400, "yaxis": {"title": "dense peak (FLOP/s)"}}, log_axes=("y",)),
               "Dense peak per chip over time (log scale)")
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption("Peaks from hardware_db.json (dense, per chip; each with its datasheet source).")
    return db


@by_identity(64)
def _chart(db, keys: tuple[str, ...]) -> tuple[list[dict], list[dict]]:
    """(the chart's traces, the doubling rows): the fits made once per database and choice of formats."""
    return hardware_traces(keys, db, PEAK_LABELS)
