"""Small display helpers shared by the pages."""
from __future__ import annotations

import streamlit as st


def metric_row(items: list[tuple[str, str, str | None]]) -> None:
    """One row of metrics: (label, value with its unit, tooltip)."""
    for column, (label, value, help_text) in zip(st.columns(len(items)), items):
        column.metric(label, value, help=help_text)
