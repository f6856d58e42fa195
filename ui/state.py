"""The session's scenario, its share link, and widget binding.

One ``Scenario`` (validated) lives in ``st.session_state`` per browser session; every page reads
and edits it. ``rev`` counts wholesale replacements (a preset, an upload, a link) so that widgets
bound with ``bind`` take the new values. The URL's ``?s=`` always carries the current scenario.
"""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.presets import presets
from engine.scenario import DEFAULT_HARDWARE_RUN, Scenario
from engine.share_link import QUERY_KEY, decode, encode
from ui.text import plain

SCENARIO = "scenario"
REV = "scenario_rev"
BINDS = "_bound_at_rev"
NOTICE = "scenario_notice"
DEFAULT_PRESET = "seed-cnn-lstm"
PRESET = "scenario_preset"
"""The preset the scenario was loaded from, or None (scratch, a config, an upload, a link)."""


def default_scenario() -> Scenario:
    return presets()[DEFAULT_PRESET].scenario


def init() -> None:
    """Once per session: the scenario from the link (``?s=``), or the default with a message."""
    if SCENARIO in st.session_state:
        return
    scenario = default_scenario()
    token = st.query_params.get(QUERY_KEY)
    if token:
        try:
            scenario = decode(token)
        except InputError as exc:
            st.session_state[NOTICE] = (f"The share link could not be opened ({plain(str(exc))}). "
                                        "Showing the default example.")
    st.session_state[SCENARIO] = scenario
    st.session_state[PRESET] = DEFAULT_PRESET if scenario is default_scenario() else None
    st.session_state[REV] = 0


def loaded_preset() -> str | None:
    return st.session_state.get(PRESET)


def get() -> Scenario:
    return st.session_state[SCENARIO]


def rev() -> int:
    return st.session_state[REV]


def replace(scenario: Scenario, preset: str | None = None) -> None:
    """A new scenario from outside the widgets: widgets rebind to it. ``preset``: the preset it comes
    from (None: scratch, a config build, an upload), which the preset picker then shows."""
    st.session_state[SCENARIO] = scenario
    st.session_state[PRESET] = preset
    st.session_state[REV] += 1


PAGE = "_current_page"


def enter_page(name: str) -> None:
    """On arriving at a page from another, its widgets rebind to the scenario: an edit made on one page
    (the hardware run on the precision page, say) is what the next page shows and keeps."""
    if st.session_state.get(PAGE) != name:
        st.session_state[PAGE] = name
        st.session_state[REV] += 1


def set_edited(scenario: Scenario) -> None:
    """A scenario edited through the widgets (they already show it)."""
    st.session_state[SCENARIO] = scenario


def bind(key: str, value) -> str:
    """Give widget ``key`` the scenario's ``value`` when it is new, or the scenario was replaced since."""
    bound = st.session_state.setdefault(BINDS, {})
    if key not in st.session_state or bound.get(key) != st.session_state[REV]:
        st.session_state[key] = value
        bound[key] = st.session_state[REV]
    return key


def sync_link() -> None:
    """Write the current scenario into the URL (only when it changed, to keep history quiet)."""
    token = encode(get())
    if st.query_params.get(QUERY_KEY) != token:
        st.query_params[QUERY_KEY] = token


def show_notice() -> None:
    message = st.session_state.pop(NOTICE, None)
    if message:
        st.warning(message)


FIRST_RUN = "_hardware_run_first_shown"


def hardware_entered(page: str, run: dict) -> bool:
    """Whether ``run`` (what a page's controls hold) is the user's: the scenario already has a run, or the
    controls changed since the page first showed the example run. Until then the example is not written
    into the scenario, and method 2 is not compared with method 1."""
    if get().hardware is not None:
        return True
    first = st.session_state.setdefault(FIRST_RUN, {}).setdefault(page, run)
    return run != first


def hardware_run() -> dict:
    """The scenario's hardware run as a dict, or the default run the hardware pages start from."""
    hardware = get().hardware
    return hardware.model_dump(mode="json") if hardware else dict(DEFAULT_HARDWARE_RUN)
