"""The session's scenario, its share link, and widget binding.

One ``Scenario`` (validated) lives in ``st.session_state`` per browser session; every page reads
and edits it. ``rev`` counts wholesale replacements (a preset, an upload, a link) so that widgets
bound with ``bind`` take the new values. The URL's ``?s=`` always carries the current scenario.
"""
from __future__ import annotations

import logging

import streamlit as st

from engine.errors import InputError
from engine.presets import preset
from engine.scenario import Scenario, default_hardware_run
from engine.share_link import QUERY_KEY, decode, encode
from ui.text import plain

SCENARIO = "scenario"
REV = "scenario_rev"
BINDS = "_bound_at_rev"
LINK_FAILED = "link_failed"
"""{'reason': …, 'token': …}: the link this session was opened with could not be read. Kept (notice,
the token, the untouched address bar) until the user acts: dismisses it, edits, or loads something."""
REPLACED = "replaced_values"
"""widget key → (value shown, sentence): a value from the scenario the widget could not show as it was."""
DEFAULT_PRESET = "epoch-cnn-lstm"
SHOWN_TOKEN_CHARS = 20_000
PRESET = "scenario_preset"
"""The preset the scenario was loaded from, or None (scratch, a config, an upload, a link)."""
EPOCH_IMPORT = "trends_epoch_import"
"""An Epoch AI CSV uploaded on the trends page (its rows); the hardware page takes utilization presets from it."""


def default_scenario() -> Scenario:
    """The default preset's scenario, built alone: the others are built when the preset list is drawn."""
    return preset(DEFAULT_PRESET).scenario


def init() -> None:
    """Once per session: the scenario from the link (``?s=``), or the default with a lasting notice."""
    if SCENARIO in st.session_state:
        return
    scenario = default_scenario()
    token = st.query_params.get(QUERY_KEY)
    if token:
        try:
            scenario = decode(token)
        except InputError as exc:
            st.session_state[LINK_FAILED] = {"reason": str(exc), "token": str(token)}
        except Exception:  # noqa: BLE001 — a link must never brick the session (details to the server log)
            logging.getLogger("flopscope").exception("share link could not be decoded")
            st.session_state[LINK_FAILED] = {"reason": "link: it could not be read", "token": str(token)}
    st.session_state[SCENARIO] = scenario
    st.session_state[PRESET] = DEFAULT_PRESET if scenario is default_scenario() else None
    st.session_state[REV] = 0


def epoch_import():
    """The Epoch CSV this session uploaded on the trends page (``engine.trends.epoch_csv``), or None."""
    return st.session_state.get(EPOCH_IMPORT)


def set_epoch_import(value) -> None:
    """Keep (or, with None, drop) the session's uploaded Epoch CSV."""
    if value is None:
        st.session_state.pop(EPOCH_IMPORT, None)
    else:
        st.session_state[EPOCH_IMPORT] = value


def loaded_preset() -> str | None:
    return st.session_state.get(PRESET)


def get() -> Scenario:
    return st.session_state[SCENARIO]


def rev() -> int:
    return st.session_state[REV]


def replace(scenario: Scenario, preset: str | None = None) -> None:
    """A new scenario from outside the widgets: widgets rebind to it. ``preset``: the preset it comes
    from (None: scratch, a config build, an upload), which the preset picker then shows. The user acted:
    a failed link's notice goes."""
    st.session_state[SCENARIO] = scenario
    st.session_state[PRESET] = preset
    st.session_state[REV] += 1
    st.session_state.pop(LINK_FAILED, None)


PAGE = "_current_page"


def enter_page(name: str) -> None:
    """On arriving at a page from another, its widgets rebind to the scenario: an edit made on one page
    (the hardware run on the precision page, say) is what the next page shows and keeps."""
    if st.session_state.get(PAGE) != name:
        st.session_state[PAGE] = name
        st.session_state[REV] += 1


def set_edited(scenario: Scenario) -> None:
    """A scenario edited through the widgets (they already show it); an equal one keeps the object held,
    so a page can tell by identity that nothing changed."""
    if scenario != st.session_state.get(SCENARIO):
        st.session_state[SCENARIO] = scenario


def bind(key: str, value, *, replaced: str | None = None) -> str:
    """Give widget ``key`` the scenario's ``value`` when it is new, or the scenario was replaced since.

    ``replaced``: the scenario held something the widget cannot show, and ``value`` stands in for it;
    the sentence says what and why (``replaced_notice`` shows it while the widget still holds ``value``).
    """
    bound = st.session_state.setdefault(BINDS, {})
    if key not in st.session_state or bound.get(key) != st.session_state[REV]:
        st.session_state[key] = value
        bound[key] = st.session_state[REV]
        notes = st.session_state.setdefault(REPLACED, {})
        if replaced:
            notes[key] = (value, replaced)
        else:
            notes.pop(key, None)
    return key


def replaced_notice(key: str, where=st) -> None:
    """'The link's X was replaced by Y because …', under the widget, until the user changes it."""
    note = st.session_state.get(REPLACED, {}).get(key)
    if note is not None and st.session_state.get(key) == note[0]:
        where.warning(plain(note[1]))


def sync_link() -> None:
    """Write the current scenario into the URL (only when it changed, to keep history quiet). While a
    failed link's notice stands and nothing was edited, the address bar keeps the link the user pasted."""
    if LINK_FAILED in st.session_state:
        if get() == default_scenario():
            return
        st.session_state.pop(LINK_FAILED, None)  # the user edited: their new scenario is the link now
    token = encode(get())
    if st.query_params.get(QUERY_KEY) != token:
        st.query_params[QUERY_KEY] = token


def show_notice() -> None:
    """The failed link's notice, with the link itself (nothing pasted is lost) and a way to dismiss it."""
    failed = st.session_state.get(LINK_FAILED)
    if not failed:
        return
    st.warning(plain(f"The share link could not be opened — {failed['reason']}. Showing the default example "
                     "instead; the address bar keeps your link until you change something."))
    token = failed["token"]
    with st.expander("Show the link that failed"):
        st.code(token[:SHOWN_TOKEN_CHARS] + ("…" if len(token) > SHOWN_TOKEN_CHARS else ""), language=None,
                wrap_lines=True)
        st.caption(f"{len(token):,} characters after ?{QUERY_KEY}=")
    if st.button("Dismiss this notice", key="link_notice_dismiss"):
        st.session_state.pop(LINK_FAILED, None)
        st.rerun()


CARRIED = "hardware_carried_from_plan"
"""{'sentence': …, 'run': …}: the hardware run the Plan page carried over; the hardware page says so while its
run is still that one."""


def carry_to_hardware(run: dict, sentence: str) -> None:
    """The Plan page's layout as the scenario's hardware run (chip, count, days, format, utilization, place):
    the hardware page's widgets rebind to it."""
    from engine.scenario import parse_scenario

    scenario = parse_scenario({**get().model_dump(mode="json"), "hardware": run})
    replace(scenario, loaded_preset())
    st.session_state[CARRIED] = {"sentence": sentence, "run": scenario.hardware.model_dump(mode="json")}


def carried_notice(where=st) -> None:
    """The carried run's sentence, while the hardware run is the one carried."""
    carried = st.session_state.get(CARRIED)
    hardware = get().hardware
    if carried and hardware is not None and hardware.model_dump(mode="json") == carried["run"]:
        where.info(plain(carried["sentence"]))


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
    return hardware.model_dump(mode="json") if hardware else default_hardware_run()
