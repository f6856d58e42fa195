"""Page 3 — Precision & tensor cores: a chip's dense peaks per number format, and mixed precision."""
from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from engine.method2.formats import FORMAT_BY_KEY
from engine.errors import InputError
from engine.method2.format_comparison import compare_formats
from engine.method2.hardware_db import load_hardware_db
from engine.method1.estimate import estimate_method1
from engine.method2.run import estimate_method2
from engine.scenario import parse_scenario
from engine.units import TERA, format_duration, format_flop
from ui import state
from ui.hardware_inputs import known_chip, FORMAT_LABELS, PEAK_LABELS
from ui.widgets import metric_row, page_header, show_error, say

page_header("Precision & tensor cores",
            "The peak that method 2 multiplies is the dense peak of the number format the run trained in, "
            "on the units that ran it (tensor cores or not).")

db = load_hardware_db()
scenario = state.get()
run = state.hardware_run()
if run.get("chip") is None:
    st.info("The hardware page uses a custom peak or a year average; pick a chip here to see its formats.")
ids = [c.id for c in db.chips]
current, replaced = known_chip(run.get("chip"), db, "nvidia-h100-sxm")
chip_id = st.selectbox("Chip (type to search)", ids, key=state.bind("pr_chip", current, replaced=replaced),
                       format_func=lambda i: f"{db.chip(i).name} — {db.chip(i).vendor}, {db.chip(i).release_date[:4]}")
state.replaced_notice("pr_chip")
chip = db.chip(chip_id)
run = {k: v for k, v in run.items() if k not in ("custom_chip", "peak_flop_per_s", "year")} | {"chip": chip_id}

# ------------------------------------------------------------------ peaks chart
peaks = chip.peaks.available()
frame = pd.DataFrame({"format": [FORMAT_BY_KEY[k].label for k in peaks],
                      "TFLOP/s (dense)": [v / TERA for v in peaks.values()],
                      "units": [FORMAT_BY_KEY[k].units for k in peaks]})
fig = px.bar(frame, x="format", y="TFLOP/s (dense)", color="units", log_y=True, height=320,
             title=f"{chip.name}: dense peak per number format", text_auto=".4g",
             category_orders={"format": list(frame["format"])})
fig.update_layout(margin=dict(l=10, r=10, t=40, b=10), xaxis_title=None, legend_title=None, yaxis_exponentformat="power")
st.plotly_chart(fig, width="stretch")
say("caption", f"Source: {', '.join(chip.source)}. INT8 in OP/s. {chip.notes or ''}")
st.markdown("**Dense or sparse?** NVIDIA's datasheets print tensor-core figures “with sparsity”: 2:4 structured "
            "sparsity skips half of the multiplications, which doubles the printed number but not the work a "
            "dense training run gets done. FLOPscope stores and uses dense peaks only — half of those figures.")

# ------------------------------------------------------------------ mixed precision
st.subheader("Mixed precision")
st.caption("The seed: time in format A × peak A + time in format B × peak B. Give the fraction of the work "
           "(FLOP) done in each format; the effective peak is 1 / Σ (fraction ÷ peak) — the time-weighted form.")
mixed_now = run.get("mixed_precision") or {}
use_mixed = st.toggle("Use a mixed-precision split", key=state.bind("pr_use_mixed", bool(mixed_now)))
basis = run.get("split_basis", "work")
if use_mixed:
    formats = ["bf16", "fp16", "tf32", "fp32", "fp8"]
    cols = st.columns(len(formats) + 1)
    split = {}
    for col, fmt in zip(cols, formats):
        default = 100.0 * mixed_now.get(fmt, {"bf16": 0.9, "fp32": 0.1}.get(fmt, 0.0) if not mixed_now else 0.0)
        pct = col.number_input(f"{FORMAT_LABELS[fmt]} %", min_value=0.0, max_value=100.0, step=5.0,
                               key=state.bind(f"pr_mix_{fmt}", default))
        if pct > 0:
            split[fmt] = pct / 100.0
    basis = cols[-1].radio("Fractions of", ["work", "time"], key=state.bind("pr_basis", basis),
                           format_func={"work": "the FLOP", "time": "the time"}.get)
    run = {k: v for k, v in run.items() if k != "precision"} | {"mixed_precision": split, "split_basis": basis}
else:
    run = {k: v for k, v in run.items() if k != "mixed_precision"}
    run["precision"] = run.get("precision") or "bf16"

try:
    edited = parse_scenario({**scenario.model_dump(mode="json"), "hardware": run})
    estimate = estimate_method2(edited.hardware, db)
except InputError as exc:
    show_error(exc)
    estimate = None
else:
    state.set_edited(edited)
    scenario = edited
if estimate is not None:
    metric_row([
        ("Effective peak per chip", format_flop(estimate.peak_flop_per_s / TERA, "T" + estimate.peak.unit),
         "; ".join(estimate.peak.notes) or None),
        ("Method 2 training compute", format_flop(estimate.training_flop),
         f"{estimate.chip_hours:,.4g} chip-hours at utilization {estimate.utilization:g}"),
        ("Format", FORMAT_LABELS.get(estimate.precision, estimate.precision),
         "tensor cores" if estimate.tensor_cores else "no tensor cores"),
    ])
    if estimate.fallback_used:
        say("warning", "Fallback peak: " + "; ".join(estimate.peak.fallbacks))

# ------------------------------------------------------------------ by format
st.subheader("The same run in each format")
budget = estimate_method1(scenario, strict=False).training_flop
if scenario.hardware is not None:
    rows = compare_formats(scenario.hardware, budget, db)
    table = pd.DataFrame([{
        "format": PEAK_LABELS.get(r.peak_key, r.peak_key), "peak (dense)": format_flop(r.peak_flop_per_s, r.unit),
        "method 2 training compute": format_flop(r.training_flop),
        "time for the method-1 budget": format_duration(r.hours_for_budget),
    } for r in rows])
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(f"Chips × time × utilization from the hardware page; method-1 budget "
               f"{format_flop(budget) if budget else '— (no training setup on the layer builder)'}.")

state.sync_link()
