"""Page 3 — Precision & tensor cores: a chip's dense peaks per number format, and mixed precision.

It edits the same hardware run as the hardware page, with the same controls (chip, format or mixed
split, tensor cores, fallback); chips × time × utilization stay on the hardware page.
"""
from __future__ import annotations

from engine.method2.hardware_db import load_hardware_db
from ui import state
from ui.boundary import shipped_data
from ui.components.precision_results import by_format, effective_peak, peaks_chart
from ui.components.precision_run import apply_precision, precision_form
from ui.widgets import page_header

page_header("Precision & tensor cores",
            "The peak that method 2 multiplies is the dense peak of the number format the run trained in, "
            "on the units that ran it (tensor cores or not).")

db = shipped_data(load_hardware_db)
run, chip, mix_error = precision_form(state.hardware_run(), db)
scenario, estimate = apply_precision(state.get(), run, mix_error, db)
effective_peak(estimate)
peaks_chart(chip)
by_format(scenario, run, mix_error, db)
state.sync_link()
