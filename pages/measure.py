"""Page 6 — Measure a run: a PyTorch profiler trace in; where the step's time went, the FLOP it executed, HFU and
MFU, a roofline per operator, and the bottlenecks with what to try."""
from __future__ import annotations

from engine.method2.hardware_db import load_hardware_db
from ui import state
from ui.boundary import shipped_data
from ui.components.measure import (
    measured,
    options,
    results,
    shared_summary,
    trace_source,
)
from ui.widgets import page_header

page_header("Measure a run",
            "A PyTorch profiler trace (torch.profiler with record_shapes=True) in: each step's time split into "
            "computation, exposed communication and copies, and idle; every operator's FLOP from its recorded shapes "
            "joined to its kernels; HFU and MFU against the chip's dense peak; a roofline; the bottlenecks.")

db = shipped_data(load_hardware_db)
summary = shared_summary()
source = trace_source(shared=summary is not None)
chip, model = options(db)
if source is not None:
    result = measured(source, chip, model)
    if result is not None:
        results(result)
elif summary is not None:
    results(summary, shared=True)
state.sync_link()
