"""The layer builder's first box: start from a preset (with its notes and source) or from scratch."""
from __future__ import annotations

import streamlit as st

from engine.presets import presets, unavailable_presets
from engine.scenario import parse_scenario
from ui import state
from ui.boundary import shipped_data_message
from ui.text import plain

SCRATCH = {"name": "My model", "input": {"shape": [784]}, "layers": []}
"""From scratch: an input and nothing else (the training setup is asked for below)."""


def preset_picker() -> None:
    """Preset selectbox, "Load preset" and "Start from scratch"; loading replaces the session's scenario."""
    with st.container(border=True):
        if left_out := unavailable_presets():  # their scenario is read with a broken data file
            exc = next(iter(left_out.values()))
            what = f"Loading {len(left_out)} of the presets ({', '.join(left_out)})"
            st.warning(plain(shipped_data_message(exc, what)),
                       icon=":material/warning:")
        cols = st.columns([4, 1, 1], vertical_alignment="bottom")
        chosen = cols[0].selectbox("Start from a preset", list(presets()), format_func=lambda i: presets()[i].title,
                                   key=state.bind("preset_choice", state.loaded_preset()),
                                   placeholder="Your own scenario — pick a preset to start from it")
        if cols[1].button("Load preset", width="stretch", disabled=chosen is None):
            state.replace(presets()[chosen].scenario, preset=chosen)
            st.rerun()
        if cols[2].button("Start from scratch", width="stretch", help="An input of 784 values and no layers: "
                                                                     "add them from the list below."):
            state.replace(parse_scenario(SCRATCH))
            st.rerun()
        if chosen is not None:
            loaded = "" if chosen == state.loaded_preset() else " (not loaded)"
            with st.expander(f"About “{presets()[chosen].title}”{loaded}"):
                st.text(presets()[chosen].notes)
                st.caption(f"Source: {presets()[chosen].source}")
