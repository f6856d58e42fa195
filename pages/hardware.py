"""Page 2 — Hardware & time (method 2): chips × time × peak FLOP/s × utilization."""
from __future__ import annotations

from engine.method2.hardware_db import load_hardware_db
from ui import state
from ui.boundary import shipped_data
from ui.components.hardware_results import both_methods, budget_planning, measured, method2_results
from ui.components.hardware_run import apply_run, run_form
from ui.exports import exports_panel
from ui.widgets import page_header, results_slot

page_header("Hardware & time — method 2",
            "Training compute from the hardware: number of chips × training time × peak FLOP/s of the number "
            "format used (dense, tensor cores when used) × utilization.")

db = shipped_data(load_hardware_db)
summary = results_slot()[1]  # sticky: the total stays in view while editing
state.carried_notice()
form = run_form(state.hardware_run(), db)
estimate, costs, entered = apply_run(state.get(), form, db)
scenario = state.get()
method2_results(summary, estimate, costs)
m1 = scenario.method1(strict=False)
both_methods(m1, estimate, entered, form)
budget_planning(m1, estimate, form, db)
measured(m1, scenario.training, estimate, form, db)
exports_panel(scenario, m1)
state.sync_link()
