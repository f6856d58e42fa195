"""FLOPscope: the Streamlit entrypoint. Builds the navigation over ``pages/``."""
import streamlit as st

st.set_page_config(page_title="FLOPscope — training compute", page_icon="🔭", layout="wide")

pages = [
    st.Page("pages/layer_builder.py", title="Layer builder (method 1)", icon="🧱", default=True),
]
st.navigation(pages).run()
