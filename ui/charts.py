"""Charts the pages share: log axes labelled at decades only, titles above the chart (never under
the chart's toolbar), values printed with the units' display rules."""
from __future__ import annotations

import streamlit as st

LOG_AXIS = {"type": "log", "dtick": 1, "exponentformat": "power", "showexponent": "all", "minor": {"showgrid": False}}
"""A log axis with a tick (and a label) at every power of ten only: no 2 and 5 between them."""


def decades(fig, *axes: str):
    """Make ``axes`` ('x', 'y') of ``fig`` log axes labelled at decades only."""
    for axis in axes or ("y",):
        fig.update_layout({f"{axis}axis": LOG_AXIS})
    return fig


def show_chart(fig, title: str, caption: str | None = None) -> None:
    """``fig`` under a bold title of its own (the chart's toolbar sits over the figure's top edge)."""
    fig.update_layout(title=None, margin=dict(l=10, r=10, t=30, b=10))
    st.markdown(f"**{title}**")
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    if caption:
        st.caption(caption)
