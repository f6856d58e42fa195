"""The last-resort boundary around a page: if anything unexpected escapes a page's code, the user gets
one clear sentence (no traceback, no server path), the sidebar and the session's scenario stay, and the
details go to the server log. Streamlit's own reruns and stops pass through (they are BaseException)."""
from __future__ import annotations

import logging

import streamlit as st

LOG = logging.getLogger("flopscope")
MESSAGE = ("Something unexpected went wrong on this page, so it could not finish. Your scenario is kept: "
           "the other pages and the share link still hold it. Changing the last input or reloading usually "
           "helps; if it happens again, please report what you did.")


def run_page(page) -> None:
    """``page.run()`` inside the boundary."""
    try:
        page.run()
    except Exception:  # noqa: BLE001 — the point of a last resort
        LOG.exception("unexpected error on page %r", getattr(page, "title", page))
        st.error(MESSAGE, icon=":material/error:")
