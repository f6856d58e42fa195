"""The layer builder's ONNX upload: an exported graph counted node by node becomes the scenario's layers."""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from ui import state
from ui.components.upload_limit import limited_uploader
from ui.text import plain
from ui.views import uploads
from ui.views.onnx_import import default_size, dimension_label, import_scenario, summary_lines, upload_dims
from ui.widgets import show_error

READ = "onnx_read"
SUMMARY = "onnx_summary"
HELP = ("Export with torch.onnx.export (or any exporter) and upload the .onnx file; it is read, never run. "
        "A model whose weights live in an external data file (model.onnx.data) counts from the .onnx graph "
        "alone: upload only that small file, every weight's shape is in it (the external file is never read).")


def _dims(upload):
    """The graph's dynamic dimensions, read once per uploaded file."""
    known = st.session_state.get(READ)
    if known is None or known[0] != upload.file_id:
        known = st.session_state[READ] = (upload.file_id, upload_dims(upload.getbuffer()))
    return known[1]


def onnx_upload() -> None:
    """Upload, the sizes of the dynamic dimensions, and "Count and load"; the rows replace the scenario."""
    with st.expander("Import an exported model (ONNX graph)"):
        st.caption(HELP)
        upload = limited_uploader("ONNX graph (.onnx)", uploads.ONNX, type=["onnx"], key="onnx_upload")
        for line in st.session_state.get(SUMMARY, ()):
            st.caption(plain(line))
        if upload is None:
            return
        try:
            uploads.ONNX.check(upload.size)
            dims = _dims(upload)
        except InputError as exc:
            show_error(exc, "the file was not used")
            return
        sizes = {}
        if dims:
            st.caption("Sizes of the graph's dynamic dimensions (one run of the graph is counted; the layer "
                       "table holds one example's figures: the run's ÷ the batch)")
            cols = st.columns(min(len(dims), 4))
            for i, dim in enumerate(dims):
                sizes[dim.name] = cols[i % 4].number_input(
                    plain(dimension_label(dim)), min_value=1, max_value=10**9, step=1,
                    value=default_size(dim.name), key=f"onnx_dim_{upload.file_id}_{i}")
        missing = [name for name, value in sizes.items() if value is None]
        if missing:
            st.caption(plain("Give a size for: " + ", ".join(missing)))
        if st.button("Count the graph and load its rows", disabled=bool(missing), key="onnx_count"):
            try:
                with st.spinner("Counting every node of the graph…"):
                    scenario, counted, before = import_scenario(upload.getbuffer(), upload.name,
                                                                {k: int(v) for k, v in sizes.items()})
            except InputError as exc:
                show_error(exc, "the file was not used")
                return
            st.session_state[SUMMARY] = summary_lines(counted, before, len(scenario.layers))
            state.replace(scenario)
            st.rerun()
