"""The trends page's data: FLOPscope's runs, the Epoch AI upload (kept across pages; a refused file leaves the
earlier import), which runs are shown, the domain and the fitted windows."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from engine.errors import InputError
from engine.trends.epoch_csv import MAX_ROWS, EpochImport, read_epoch_csv
from engine.trends.fit import NAMED_WINDOWS, TrendQuery, domains_of, select_runs
from engine.trends.runs_dataset import load_training_runs, runs_table
from ui import state
from ui.components.upload_limit import limited_uploader
from ui.kept import by_identity
from ui.views import uploads
from ui.boundary import shipped_data
from ui.views.trends import (DEFAULT_WINDOWS, FRONTIERS, both_caption, compact, default_window, fit_all, fit_queries,
                             import_sentence, pooled_runs, refusal_then, source_labels, year_span)
from ui.widgets import say, show_error

SEEN = "trends_epoch_seen"
"""The file id of the last upload read (a rerun does not read it again)."""
REFUSED = "trends_epoch_refused"
"""(file id, InputError) of a refused upload, shown while that file stays in the uploader."""


def shipped_runs():
    """FLOPscope's dataset as a table (the page stops with one line if its file is unusable)."""
    return _table(shipped_data(load_training_runs))


_table = by_identity(4)(runs_table)


@by_identity(4)
def _shipped_pool(shipped, choice: str):
    return pooled_runs(shipped, None, choice)


@by_identity(4)
def _shown(runs, domain: str | None):
    return select_runs(runs, TrendQuery(domain=domain))  # the fits' own domain match


@by_identity(8)
def _fits(runs, named: tuple[str, ...], window: tuple[int, int], frontier: str, domain: str | None):
    return fit_all(runs, fit_queries(named, window, frontier, domain))


def _read(upload) -> None:
    st.session_state[SEEN] = upload.file_id
    st.session_state.pop(REFUSED, None)
    progress = st.progress(0.0, text="Reading the file…")
    try:
        uploads.EPOCH_CSV.check(upload.size, "csv")
        progress.progress(0.3, text="Parsing and validating rows…")
        imported = read_epoch_csv(upload.getvalue()).require_runs()
        progress.progress(1.0, text="Done")
        state.set_epoch_import(compact(imported, upload.name))  # a compact table, not one object per row
    except InputError as exc:  # the earlier import, if any, stays
        st.session_state[REFUSED] = (upload.file_id, exc)
    progress.empty()


def epoch_upload():
    """The upload expander; → the session's import (compact), or None."""
    with st.expander("Add Epoch AI's data (upload their CSV download)"):
        st.caption("“Notable AI Models”, “All AI Models” or “Large-scale AI Models” from epoch.ai/data (CC BY 4.0). "
                   "Rows without a usable date or training compute are skipped and counted.")
        upload = limited_uploader("Epoch AI CSV", uploads.EPOCH_CSV, type=["csv"], key="trends_upload",
                                  help=f"At most {MAX_ROWS:,} rows.")
        if upload is not None and st.session_state.get(SEEN) != upload.file_id:
            _read(upload)
        refused = st.session_state.get(REFUSED)
        imported = state.epoch_import()
        if isinstance(imported, EpochImport):  # put there whole (by a test, or an older session): compact it
            imported = compact(imported, "the uploaded file")
            state.set_epoch_import(imported)
        if refused is not None and upload is not None and refused[0] == upload.file_id:
            show_error(refused[1], refusal_then(imported))
        if imported is not None:
            say("success", import_sentence(imported))
    return imported


def run_picker(shipped, imported):
    """'Runs': FLOPscope's, the upload's or both (each run once); → the runs shown and fitted."""
    choice = st.radio("Runs", ["shipped", "epoch", "both"], horizontal=True, key="trends_source",
                      disabled=imported is None, format_func=source_labels(len(shipped)).get)
    runs = _shipped_pool(shipped, choice) if imported is None else pooled_runs(shipped, imported, choice)
    if choice == "both" and imported is not None:
        st.caption(both_caption(runs))
    return runs


@dataclass
class FitChoice:
    """The chosen domain (None: all), the runs in it, the fits by label, and the custom window's last year."""

    domain: str | None
    shown: object
    fits: dict
    last: int


def fit_controls(runs) -> FitChoice:
    """Domain, custom window, named windows and which runs the custom window fits; the fits."""
    c1, c2 = st.columns([1, 2])
    domain = c1.selectbox("Domain", ["All"] + domains_of(runs), key="trends_domain")
    first, last = year_span(runs)
    window = c2.slider("Custom fit window (years)", first, last, default_window(first, last), key="trends_window")
    domain_filter = None if domain == "All" else domain
    shown = _shown(runs, domain_filter)
    named = st.multiselect("Fitted windows", list(NAMED_WINDOWS), key="trends_named", default=DEFAULT_WINDOWS,
                           format_func=lambda k: NAMED_WINDOWS[k].label)
    frontier = st.radio("Custom window fits", list(FRONTIERS), horizontal=True, key="trends_frontier",
                        format_func=FRONTIERS.get)
    fits, notes = _fits(runs, tuple(named), tuple(window), frontier, domain_filter)
    for note in notes:
        st.caption(note)
    return FitChoice(domain_filter, shown, fits, last)
