"""Page 6 — Serve a model: KV cache, prefill and decode, time to first token, time per token, tokens/s, cost."""
from __future__ import annotations

import streamlit as st

from engine.method2.hardware_db import load_hardware_db
from engine.serve.inputs import ServePlan
from ui import state
from ui.boundary import shipped_data
from ui.components.serve import keep, plan_inputs, results
from ui.views import serve as view
from ui.widgets import page_header

page_header("Serve a model",
            "Serving a language model: the KV cache per token and per sequence, prefill and decode FLOP, time to "
            "first token, time per output token, tokens per second and the batch that fits, on a chip — a roofline "
            "with efficiencies measured on published serving benchmarks.")

db = shipped_data(load_hardware_db)
models = shipped_data(view.model_options)
scenario = state.get()
results_area = st.container()
st.subheader("Inputs")
plan = keep(scenario, plan_inputs(scenario.serve or ServePlan(prompt_tokens=1000, output_tokens=200), db, models))
results(results_area, plan)
state.sync_link()
