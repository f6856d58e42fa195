"""Small display helpers shared by the pages."""
from __future__ import annotations

import streamlit as st

from engine.units import format_flop, format_pf_days
from ui import state, style
from ui.text import plain


def show_error(exc, then: str = "") -> None:
    """An ``InputError`` as 'field: reason' (inert), and what happens next; a broken shipped data file is said
    to be the installation's fault, not the input's (``ui.boundary.shipped_data_message``)."""
    from engine.shipped import ShippedDataError
    from ui.boundary import shipped_data_message

    if isinstance(exc, ShippedDataError):
        st.error(plain(shipped_data_message(exc, "This step")))
        return
    st.error(plain(f"{exc.field}: {exc.reason}") + (f" — {then}" if then else ""))


def say(kind: str, text: str, where=st) -> None:
    """A message whose text comes from the engine or the user (names, notes, fallbacks, warnings) in a
    Markdown element — ``warning``, ``info``, ``success``, ``error``, ``caption``, ``markdown`` — made
    inert first: the UI's one way of showing such text."""
    getattr(where, kind)(plain(text))


PER_ROW = 4  # wider rows cut the values off


def metric_row(items: list[tuple]) -> None:
    """Rows of metrics, at most ``PER_ROW`` each: (label, value with its unit, tooltip[, a line shown under the
    value, such as its 90% range]). Labels are the page's own words; tooltips may quote the engine (chip names,
    price bases) and are made inert."""
    for start in range(0, len(items), PER_ROW):
        chunk = items[start:start + PER_ROW]
        for column, (label, value, help_text, *under) in zip(
                st.columns(PER_ROW if len(items) > PER_ROW else len(chunk)), chunk):
            line = under[0] if under else None
            column.metric(label, value, help=None if help_text is None else plain(help_text),
                          delta=None if line is None else plain(line), delta_color="off", delta_arrow="off")


def page_header(title: str, caption: str) -> None:
    """Title and what the page computes; the session's scenario (from the link on a first visit)."""
    st.title(title)
    st.caption(caption)
    style.apply()
    state.init()
    state.enter_page(title)
    state.show_notice()


def shown_estimate(estimate, last_valid=None):
    """(the estimate whose totals are shown, whether they are stale): this one's when it has a training
    total, else the last valid one's while an error is fixed, else none."""
    if estimate.training is not None:
        return estimate, False
    if estimate.error is not None and last_valid is not None and last_valid.training is not None:
        return last_valid, True
    return None, False


def results_slot():
    """The page's results line, kept in view by ``ui/style.py`` (the ``flop_summary`` key): its container
    (for a spinner while counting) and the one-element slot the line is written into, and rewritten."""
    area = st.container(key="flop_summary")
    return area, area.empty()


def results_bar(total: float | None, interval=None, details: tuple[str, ...] = (), missing: str = "",
                stale: str = "") -> None:
    """One line with a training compute (and its 90% range) and a few details, kept in view by the page's
    sticky ``flop_summary`` container; ``missing`` says what to do when there is no total, ``stale`` why the
    total shown is an old one."""
    if total is None:
        st.markdown(f"**Training compute: —** · {missing}")
        return
    span = f" (90% range {format_flop(interval.low)} – {format_flop(interval.high)})" if interval else ""
    st.markdown(" · ".join([f"**Training compute: {format_flop(total)}**{span}", *details])
                + (f" · :orange[stale: {stale}]" if stale else ""))


def summary_bar(estimate, stale: bool = False) -> None:
    """Method 1's results line: training compute (and its range), PF-days, forward FLOP per example;
    marked stale while an error is being fixed."""
    if estimate is None or estimate.training is None:
        results_bar(None, missing="give the training setup (or fix the error) to get it")
        return
    tr = estimate.training
    results_bar(tr.training_flop, getattr(tr, "interval", None),
                (format_pf_days(tr.pfs_days), f"forward {format_flop(estimate.forward_flop)} per example"),
                stale="the last valid layer list" if stale else "")
