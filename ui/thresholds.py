"""Regulatory thresholds on charts and beside totals (the figures and sources live in the engine)."""
from __future__ import annotations

import math

import streamlit as st

from engine.plan.thresholds import THRESHOLDS, nearest_sentence


def add_threshold_lines(fig, x_domain: bool = True) -> None:
    """Dashed horizontal lines at each threshold on a log-FLOP chart, labelled with the law."""
    for t in THRESHOLDS:
        fig.add_hline(y=t.flop, line=dict(color="#9a6700", dash="dash", width=1),
                      annotation_text=f"{t.label} (10^{round(math.log10(t.flop))})",
                      annotation_position="top left", annotation_font=dict(size=10, color="#9a6700"))


def threshold_caption(flop: float | None, subject: str = "This run") -> None:
    """'This run is 3.2× below the EU AI Act: systemic-risk presumption (10^25 FLOP).' under a total."""
    if flop and math.isfinite(flop) and flop > 0:
        st.caption(nearest_sentence(flop, subject) + " See “Plan a run” for every threshold and its legal source.")
