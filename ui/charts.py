"""Charts the pages share: log axes labelled at decades only, titles above the chart (never under
the chart's toolbar), values printed with the units' display rules."""
from __future__ import annotations

import math

import streamlit as st

from ui.text import plain

LOG_AXIS = {"type": "log", "exponentformat": "power", "showexponent": "all", "minor": {"showgrid": False}}
"""A log axis labelled at powers of ten only (plotly's own choice adds 2 and 5 on short ranges)."""
MAX_LABELS = 10


def decade_step(values) -> int:
    """Decades between labels: 1, or more when the data span more than ``MAX_LABELS`` decades."""
    positive = [float(v) for v in values if v is not None and v == v and float(v) > 0]
    if not positive:
        return 1
    span = math.log10(max(positive)) - math.log10(min(positive))
    return max(1, math.ceil(span / MAX_LABELS))


def decades(fig, *axes: str):
    """Make ``axes`` ('x', 'y') of ``fig`` log axes labelled at powers of ten only."""
    for axis in axes or ("y",):
        values = [v for trace in fig.data if getattr(trace, axis, None) is not None
                  for v in getattr(trace, axis) if isinstance(v, (int, float))]
        fig.update_layout({f"{axis}axis": {**LOG_AXIS, "dtick": decade_step(values)}})
    return fig


def show_chart(fig, title: str, caption: str | None = None) -> None:
    """``fig`` under a bold title of its own (the chart's toolbar sits over the figure's top edge)."""
    fig.update_layout(title=None, margin=dict(l=10, r=10, t=30, b=10))
    st.markdown(f"**{plain(title)}**")  # titles may carry a name the user typed (a custom chip's)
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    if caption:
        st.caption(plain(caption))
