"""The trends page's main chart: where the user's estimate falls among the runs (with its date), the runs,
the fitted lines, Moore's law and the thresholds, and the table of fits."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.records.partial_dates import decimal_year_of
from engine.trends.placement import place_estimate
from ui import state
from ui.charts import figure, show_chart
from ui.kept import by_identity
from ui.thresholds import threshold_layout
from ui.views.trends import (FIT_CAPTION, estimate_trace, fit_rows, fit_traces, moore_trace, placement_line,
                             run_traces, your_estimates)
from ui.widgets import say


def your_estimate(runs, domain):
    """The run's date and, per method, where its training compute falls; → (estimates, bands, date)."""
    estimates, bands = your_estimates(state.get())
    c1, c2 = st.columns([1, 2])
    when = c1.date_input("Date of your run", value=dt.date(2026, 1, 1), key="trends_date",
                         min_value=dt.date(1950, 1, 1), max_value=dt.date(2100, 12, 31))
    for label, flop in estimates.items():
        try:
            placed = place_estimate(runs, flop, when.isoformat(), domain=domain)
        except InputError as exc:
            say("caption", f"{label}: not placed ({exc.reason})", c2)
            continue
        c2.markdown(placement_line(label, flop, placed, bands.get(label)))
    return estimates, bands, when


_run_traces = by_identity(4)(run_traces)


def runs_chart(choice, estimates, bands, when) -> None:
    """The runs over time (log scale) with the fits, Moore's law, the estimates and the thresholds; the fits'
    table and how they are made."""
    traces = _run_traces(choice.shown) + fit_traces(choice.fits)
    moore = moore_trace(choice.fits, choice.last)
    if moore is not None:
        traces.append(moore)
    year = decimal_year_of(when)
    traces += [estimate_trace(label, flop, bands.get(label), year) for label, flop in estimates.items()]
    layout = {**threshold_layout(), "height": 520, "yaxis": {"title": "training compute (FLOP)"},
              "xaxis": {"title": "publication date"}, "legend": {"orientation": "h", "y": -0.15}}
    show_chart(figure(traces, layout, log_axes=("y",)), "Training compute of notable runs (log scale)")
    if choice.fits:
        st.dataframe(pd.DataFrame(fit_rows(choice.fits)), hide_index=True, width="stretch")
    st.caption(FIT_CAPTION)
