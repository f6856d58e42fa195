"""Page 5 — Plan a run: memory per chip, the parallel layout's step time and MFU, the compute-optimal size,
lifetime compute and regulatory thresholds, for the session's model."""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.method2.hardware_db import load_hardware_db
from ui import state
from ui.boundary import shipped_data
from ui.components.plan import lifetime, memory_and_time, optimal_size, published_runs, thresholds
from ui.components.plan_trace import against_trace
from ui.text import plain
from ui.widgets import page_header

page_header("Plan a run",
            "Does the model fit, on how many chips, how long does a step take, at what utilization, and was this "
            "the right size? Memory per chip, a parallel layout's time and MFU, the compute-optimal size, "
            "lifetime compute and the legal thresholds, for the model of the layer builder.")

db = shipped_data(load_hardware_db)
scenario = state.get()
m1 = scenario.method1(strict=False)
training_flop = m1.training_flop
tokens = scenario.tokens()
model = None
try:
    model = scenario.plan_model()
except InputError as exc:
    st.info(f"Memory and layout need the model's layers ({plain(exc.reason)}). Load a preset such as "
            "Llama 2 7B or GPT-3 175B on the layer builder; the compute-optimal size and thresholds below "
            "work from the FLOP alone.")
if model is not None:
    memory_and_time(scenario, model, db, tokens)
    against_trace(state.get(), model, tokens)
optimal_size(training_flop, model, tokens)
lifetime(training_flop, model)
thresholds(training_flop, frozen=bool(m1.architecture is not None and m1.architecture.frozen))
published_runs()
state.sync_link()
