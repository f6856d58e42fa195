"""FLOPscope: the Streamlit entrypoint. Builds the navigation over ``pages/``.

Each page also calls ``state.init()`` and ``state.sync_link()`` itself: Streamlit runs a page of
``pages/`` directly (without this file) when a fresh server's first request is a page's URL.
"""
import streamlit as st

from ui import state
from ui.boundary import run_page

st.set_page_config(page_title="FLOPscope — training compute", page_icon=":material/speed:", layout="wide")
state.init()

pages = [
    st.Page("pages/layer_builder.py", title="Layer builder (method 1)", icon=":material/layers:", default=True),
    st.Page("pages/hardware.py", title="Hardware & time (method 2)", icon=":material/memory:"),
    st.Page("pages/precision.py", title="Precision & tensor cores", icon=":material/tune:"),
    st.Page("pages/trends.py", title="Historical trends", icon=":material/trending_up:"),
    st.Page("pages/plan.py", title="Plan a run", icon=":material/calendar_month:"),
    st.Page("pages/measure.py", title="Measure a run", icon=":material/monitoring:"),
    st.Page("pages/serve.py", title="Serve a model", icon=":material/bolt:"),
]
run_page(st.navigation(pages))  # a last-resort boundary: one sentence instead of a traceback
