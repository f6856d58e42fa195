"""Page 1 — Layer builder (method 1): training compute from the architecture."""
from __future__ import annotations

import streamlit as st

from ui import state
from ui.components.layer_editor import input_fields, layer_editor
from ui.components.method1_results import apply_edits, kind_formulas, layer_table, results_line, totals
from ui.components.multimodal_upload import multimodal_upload
from ui.components.onnx_upload import onnx_upload
from ui.components.preset_picker import preset_picker
from ui.components.training_form import quick_form, training_form
from ui.exports import exports_panel
from ui.transformer_panel import transformer_panel
from ui.widgets import page_header

page_header("Layer builder — method 1",
            "Training compute from the architecture: each layer's forward FLOP, summed, "
            "× (1 + backward/forward ratio) × examples × epochs. Recurrent layers run once per time step.")

scenario = state.get()
data = scenario.model_dump(mode="json")
picker_area = st.container()  # drawn above the estimate, filled after it: listing the presets builds them all
line = results_line(scenario)
with picker_area:
    preset_picker()
refused = transformer_panel()
totals_area = st.container()

mode = st.radio("Method 1 from", ["layers", "quick"], horizontal=True, key=state.bind("m1_mode", data["mode"]),
                format_func={"layers": "the layer list", "quick": "a quick form (connections or published ops)"}.get)
data["mode"] = mode
data["name"] = st.text_input("Scenario name", key=state.bind("m1_name", data["name"]), max_chars=200)
edits = None
if mode == "layers":
    input_fields(data)
    table_area = st.container()
    edits = layer_editor(data)
    data["layers"] = edits.layers
else:
    quick_form(data)
training_form(data)

scenario, estimate, stale = apply_edits(data, edits, line, scenario)
totals(totals_area, line, scenario, estimate, stale, withheld=refused)
if mode == "layers":
    layer_table(table_area, scenario, estimate, stale)
    kind_formulas()
exports_panel(scenario, estimate)
onnx_upload()
multimodal_upload()
state.sync_link()
