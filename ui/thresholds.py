"""Regulatory thresholds on charts and beside totals (the figures and sources live in the engine)."""
from __future__ import annotations

import math

import streamlit as st

from engine.plan.thresholds import THRESHOLDS, every_sentence

COLOR = "#9a6700"


def threshold_layout(log_y: bool = True) -> dict:
    """Dashed horizontal lines at each threshold on a FLOP chart, labelled with the law (on a log axis plotly places
    annotations at log10 of the value): the layout's ``shapes`` (those ``fig.add_hline`` makes, across the x axis'
    domain at y) and ``annotations``. Set in one layout: add_hline's own path cost a trends page run a third of its
    CPU."""
    lines = [{"type": "line", "xref": "x domain", "yref": "y", "x0": 0, "x1": 1, "y0": t.flop, "y1": t.flop,
              "line": {"color": COLOR, "dash": "dash", "width": 1}} for t in THRESHOLDS]
    labels = [{"x": 0.005, "xref": "paper", "y": math.log10(t.flop) if log_y else t.flop, "yref": "y",
               "text": f"{t.label} (10^{round(math.log10(t.flop))})", "showarrow": False, "xanchor": "left",
               "yanchor": "top" if i % 2 else "bottom", "font": {"size": 10, "color": COLOR}}
              for i, t in enumerate(THRESHOLDS)]  # labels alternate below and above their line, not to overlap
    return {"shapes": lines, "annotations": labels}


def threshold_caption(flop: float | None, subject: str = "This run") -> None:
    """'This run is 3.2× above the EU guidelines … (10^23 FLOP), 32× below … (10^25 FLOP), …' under a total."""
    if flop and math.isfinite(flop) and flop > 0:
        st.caption(every_sentence(flop, subject) + " See “Plan a run” for each threshold's legal source and date.")
