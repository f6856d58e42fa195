"""The trends page's reconciliation: each uploaded row naming its hardware recomputed by method 2 and set
beside the compute it reports; the reported utilizations by chip generation and scale."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.method2.utilization_priors import reports_from_epoch, summarise
from engine.trends.reconcile import reconcile_rows
from ui.views.trends import (NO_IMPORT, PRIORS_CAPTION, RECONCILE_CAPTION, prior_rows, reconcile_metrics,
                             reconcile_table, reconcile_traces)

SCI = st.column_config.NumberColumn(format="%.3e")


def reconciliation(imported, db) -> None:
    st.subheader("Reported compute vs method 2, row by row")
    if imported is None or not imported.hardware_rows:
        st.info(NO_IMPORT)
        return
    result = reconcile_rows(imported.hardware_rows, imported.rows_read, db)
    for column, (label, value, _) in zip(st.columns(5), reconcile_metrics(result.summary)):
        column.metric(label, value)
    st.dataframe(pd.DataFrame(reconcile_table(result.rows)), hide_index=True, width="stretch",
                 column_config={"method 2 (FLOP)": SCI, "reported (FLOP)": SCI,
                                "ratio": st.column_config.NumberColumn(format="%.3g")})
    traces = reconcile_traces(result.rows)
    if traces:
        rec = go.Figure()
        for trace in traces:
            rec.add_trace(go.Scatter(**trace))
        rec.update_layout(height=460, xaxis_type="log", yaxis_type="log", xaxis_exponentformat="power",
                          yaxis_exponentformat="power", xaxis_title="reported training compute (FLOP)",
                          yaxis_title="method 2 (FLOP)", margin=dict(l=10, r=10, t=30, b=10))
        st.plotly_chart(rec, width="stretch")
    priors = summarise(reports_from_epoch(imported.hardware_rows, db), db)
    if priors:
        st.markdown("**Reported utilization in this file, by chip generation and scale**")
        st.dataframe(pd.DataFrame(prior_rows(priors)), hide_index=True, width="stretch",
                     column_config={"median": st.column_config.NumberColumn(format="percent")})
        st.caption(PRIORS_CAPTION)
    st.caption(RECONCILE_CAPTION)
