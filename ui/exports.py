"""Downloads (scenario JSON, layer table CSV, Markdown report), the upload that restores a
scenario, and the share link."""
from __future__ import annotations

import io

import streamlit as st

from engine.errors import InputError, one_line
from engine.safe_text import spreadsheet_inert
from engine.method1.estimate import Method1Estimate
from engine.report import markdown_report
from engine.scenario import MAX_PAGE_LAYERS, Scenario, load_scenario_text
from engine.share_link import QUERY_KEY, encode, scenario_json
from ui import state
from ui.components.upload_limit import limited_uploader
from ui.views import uploads
from ui.widgets import show_error

UPLOAD_SEEN = "upload_seen"


def layer_table_csv(est: Method1Estimate) -> str:
    """The layer table as CSV; a name is one line with its control, invisible and bidirectional-control characters
    written as escapes (``one_line``: a terminal's ``cat`` runs no escape sequence, a viewer reorders nothing), and a
    name a spreadsheet would run as a formula is neutralised (leading ')."""
    if est.architecture is None:
        return "index,type,part,name,output,params,macs,forward_flop\n"
    import pandas as pd  # imported once a table is written, not with the page
    frame = pd.DataFrame([{"index": r.index, "type": r.type, "part": r.part,
                           "name": one_line(spreadsheet_inert(r.name)), "output": r.output,
                           "params": r.params, "macs": r.macs, "forward_flop": r.forward_flop,
                           "convention": est.convention} for r in est.architecture.rows])
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue()


def restore_upload(key: str = "scenario_upload") -> None:
    """A scenario JSON upload, size-limited and validated; a bad file gets a message, nothing is lost."""
    upload = limited_uploader("Restore a scenario (JSON)", uploads.SCENARIO, type=["json"], key=key,
                              help="A file downloaded from FLOPscope.")
    if upload is None or st.session_state.get(UPLOAD_SEEN) == upload.file_id:
        return
    st.session_state[UPLOAD_SEEN] = upload.file_id
    try:
        uploads.SCENARIO.check(upload.size)
        scenario = load_scenario_text(upload.getvalue(), source="upload", max_layers=MAX_PAGE_LAYERS)
    except InputError as exc:
        show_error(exc, "the file was not loaded; your current scenario is unchanged.")
        return
    state.replace(scenario)
    st.rerun()


def share_link_box() -> None:
    url = getattr(st.context, "url", None) or ""
    token = encode(state.get())
    # a read-only field, not st.code: the code block's syntax highlighter is 1.5 MB of JavaScript
    st.text_area("Share link", f"{url.split('?')[0]}?{QUERY_KEY}={token}", height=68,
                 help="Select and copy it; the address bar always holds it too. Opening it restores every page.")


def exports_panel(scenario: Scenario, est: Method1Estimate | None = None) -> None:
    st.subheader("Share, save, export")
    share_link_box()
    c1, c2, c3 = st.columns(3)
    c1.download_button("⬇ Scenario (JSON)", scenario_json(scenario, indent=2), file_name="flopscope-scenario.json",
                       mime="application/json", width="stretch")
    c2.download_button("⬇ Layer table (CSV)", layer_table_csv(est), file_name="flopscope-layers.csv",
                       mime="text/csv", width="stretch", disabled=est.architecture is None)
    est = est or scenario.method1(strict=False)
    c3.download_button("⬇ Report (Markdown)", markdown_report(scenario, est),
                       file_name="flopscope-report.md", mime="text/markdown", width="stretch")
    restore_upload()
