"""The last-resort boundary around a page: if anything unexpected escapes a page's code, the user gets
one clear sentence (no traceback, no server path), the sidebar and the session's scenario stay, and the
details go to the server log. Streamlit's own reruns and stops pass through (they are BaseException)."""
from __future__ import annotations

import logging
from contextlib import contextmanager

import streamlit as st

from engine.shipped import ShippedDataError
from ui.text import plain

LOG = logging.getLogger("flopscope")
MESSAGE = ("Something unexpected went wrong on this page, so it could not finish. Your scenario is kept: "
           "the other pages and the share link still hold it. Changing the last input or reloading usually "
           "helps; if it happens again, please report what you did.")


def shipped_data_message(exc: ShippedDataError, needed_for: str = "This page") -> str:
    """One line for a missing or corrupt shipped data file: which file, what is wrong, what still works
    (``needed_for``: what needs it, as the singular subject of 'needs')."""
    return (f"{needed_for} needs the data file {exc.name}, which ships with FLOPscope, and it cannot be used: "
            f"{exc.problem}. The pages that do not use it still work; whoever runs this server should restore "
            "the file from the repository.")


def shipped_data(load, *args):
    """``load(*args)`` (a loader of a shipped data file); if the file is missing or corrupt, one page-level
    message naming it, and the page stops there (what it drew before stays)."""
    try:
        return load(*args)
    except ShippedDataError as exc:
        LOG.error("shipped data file unusable: %s", exc)
        st.error(plain(shipped_data_message(exc)), icon=":material/error:")
        st.stop()


def optional_shipped_data(load, fallback, needed_for: str):
    """``load()``, or ``fallback`` with a warning naming the file when it is missing or corrupt: for data
    that only adds to a page (``needed_for`` says what is left out)."""
    try:
        return load()
    except ShippedDataError as exc:
        LOG.error("shipped data file unusable: %s", exc)
        st.warning(plain(shipped_data_message(exc, needed_for)), icon=":material/warning:")
        return fallback


@contextmanager
def shipped_part(needed_for: str):
    """A part of a page that needs a shipped data file (``with shipped_part("The transformer panel"):``): if the
    file is unusable, one line in its place naming the file, and the rest of the page goes on."""
    try:
        yield
    except ShippedDataError as exc:
        LOG.error("shipped data file unusable in %s: %s", needed_for, exc)
        st.error(plain(shipped_data_message(exc, needed_for)), icon=":material/error:")


def run_page(page) -> None:
    """``page.run()`` inside the boundary."""
    try:
        page.run()
    except ShippedDataError as exc:  # a data file a deeper call needed
        LOG.error("shipped data file unusable on page %r: %s", getattr(page, "title", page), exc)
        st.error(plain(shipped_data_message(exc)), icon=":material/error:")
    except Exception:  # noqa: BLE001 — the point of a last resort
        LOG.exception("unexpected error on page %r", getattr(page, "title", page))
        st.error(MESSAGE, icon=":material/error:")
