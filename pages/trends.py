"""Page 4 — Historical trends: training compute of notable runs over time, fits, and your estimate."""
from __future__ import annotations

from ui import state
from ui.components.trends_chart import runs_chart, your_estimate
from ui.components.trends_data import epoch_upload, fit_controls, run_picker, shipped_runs
from ui.components.trends_hardware import hardware_trends
from ui.components.trends_reconcile import reconciliation
from ui.widgets import page_header

page_header("Historical trends",
            "Training compute of notable runs against their publication date (log scale), fitted trends with "
            "doubling times, and where your estimate falls.")

shipped = shipped_runs()
imported = epoch_upload()
runs = run_picker(shipped, imported)
choice = fit_controls(runs)
estimates, bands, when = your_estimate(runs, choice.domain)
runs_chart(choice, estimates, bands, when)
db = hardware_trends()
reconciliation(imported, db)
state.sync_link()
