"""Parts of a page that rerun alone (``st.fragment``): a widget inside one reruns that part, not the page.

Only parts whose widgets change nothing outside them (no scenario edit, no figure shown elsewhere) are parts.
``FLOPSCOPE_WHOLE_PAGE_RERUNS=1`` turns them back into plain functions, for the side-by-side benchmark
(``bench/bench_fragments.py``)."""
from __future__ import annotations

import os

import streamlit as st


def page_part(function):
    """``function`` as an ``st.fragment`` (or as it is, with ``FLOPSCOPE_WHOLE_PAGE_RERUNS=1``)."""
    if os.environ.get("FLOPSCOPE_WHOLE_PAGE_RERUNS") == "1":
        return function
    return st.fragment(function)
