"""FLOPscope: the Streamlit entrypoint. Builds the navigation over ``pages/``.

Each page also calls ``state.init()`` and ``state.sync_link()`` itself: Streamlit runs a page of
``pages/`` directly (without this file) when a fresh server's first request is a page's URL.
"""
import streamlit as st

from ui import state
from ui.boundary import run_page
from ui.navigation import PAGES

st.set_page_config(page_title="FLOPscope — training compute", page_icon=":material/speed:", layout="wide")
state.init()

pages = [st.Page(p.file, title=p.title, icon=p.icon, default=p.default) for p in PAGES]
run_page(st.navigation(pages))  # a last-resort boundary: one sentence instead of a traceback
