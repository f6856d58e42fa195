"""Page 3 — Precision & tensor cores: a chip's dense peaks per number format, and mixed precision.

It edits the same hardware run as the hardware page, with the same controls (chip, format or mixed
split, tensor cores, fallback); chips × time × utilization stay on the hardware page.
"""
from __future__ import annotations

import math

import pandas as pd
import plotly.express as px
import streamlit as st

from engine.errors import InputError, parse_input
from engine.method2.format_comparison import compare_formats
from engine.method2.formats import FORMAT_BY_KEY
from engine.method2.hardware_db import load_hardware_db
from engine.method2.run import HardwareRun, estimate_method2
from engine.scenario import parse_scenario
from engine.units import TERA, format_chip_hours, format_duration, format_flop, format_number
from ui import state
from ui.boundary import shipped_data
from ui.charts import decades, show_chart
from ui.hardware_inputs import FORMAT_LABELS, PEAK_LABELS, SOURCES, chip_picker, format_inputs, hardware_error
from ui.widgets import metric_row, page_header, show_error, say

MIX_FORMATS = ("bf16", "fp16", "tf32", "fp32", "fp8", "fp6", "fp4")

page_header("Precision & tensor cores",
            "The peak that method 2 multiplies is the dense peak of the number format the run trained in, "
            "on the units that ran it (tensor cores or not).")

db = shipped_data(load_hardware_db)
scenario = state.get()
run = state.hardware_run()

# ------------------------------------------------------------------ the run's hardware
with st.container(border=True):
    source = next((k for k in ("chip", "custom_chip", "peak_flop_per_s", "year") if run.get(k) is not None), "chip")
    if source == "chip":
        chip_id = chip_picker(run.get("chip"), db)
        chip = db.chip(chip_id)
        run = {k: v for k, v in run.items() if k not in ("custom_chip", "peak_flop_per_s", "year")} | {"chip": chip_id}
    else:
        st.info(f"The run uses {SOURCES[source]} (set on the hardware page); the formats below apply to it.")
        chip = parse_input(HardwareRun, run).custom_chip if source == "custom_chip" else None

    # ------------------------------------------------------------------ format or mixed split
    mixed_now = run.get("mixed_precision") or {}
    use_mixed = st.toggle("Mixed precision: split the run across formats", key=state.bind("pr_use_mixed", bool(mixed_now)),
                          disabled=source == "peak_flop_per_s",
                          help="A single custom peak has one format; give a chip for a split.")
    if use_mixed:
        st.caption("Epoch AI's article (Sevilla et al. 2022): time in format A × peak A + time in format B × peak B. "
                   "Give each format's share; the last one takes the rest, so the shares always add up to 100%.")
        chosen = st.multiselect("Formats in the split (the last takes the rest)", MIX_FORMATS,
                                key=state.bind("pr_mix_formats", list(mixed_now) or ["bf16", "fp32"]),
                                format_func=FORMAT_LABELS.get)
        cols = st.columns(max(len(chosen), 1) + 1)
        split: dict[str, float] = {}
        for col, fmt in zip(cols, chosen[:-1]):
            default = 100.0 * mixed_now.get(fmt, 0.9 if fmt == chosen[0] and not mixed_now else 0.0)
            pct = col.number_input(f"{FORMAT_LABELS[fmt]} %", min_value=0.0, max_value=100.0, step=5.0,
                                   key=state.bind(f"pr_mix_{fmt}", default))
            split[fmt] = pct
        if chosen:
            last = chosen[-1]
            rest = 100.0 - math.fsum(split.values())
            st.session_state[f"pr_mix_rest_{last}"] = max(rest, 0.0)
            cols[len(chosen) - 1].number_input(f"{FORMAT_LABELS[last]} % (the rest)", min_value=0.0, max_value=100.0,
                                               key=f"pr_mix_rest_{last}", disabled=True)
            split[last] = rest
        basis = cols[-1].radio("Shares of", ["work", "time"], key=state.bind("pr_basis", run.get("split_basis", "work")),
                               format_func={"work": "the FLOP", "time": "the time"}.get)
        run = ({k: v for k, v in run.items() if k != "precision"}
               | {"mixed_precision": {k: v / 100.0 for k, v in split.items() if v > 0}, "split_basis": basis})
        mix_error = (f"the shares before {FORMAT_LABELS[chosen[-1]]} add up to {100 - rest:.4g}%: lower one of them"
                     if chosen and rest < 0 else None if chosen else "choose at least one format")
        run.update(format_inputs(run, mixed_here=True))
    else:
        mix_error = None
        run = {k: v for k, v in run.items() if k not in ("mixed_precision", "split_basis")}
        run.update(format_inputs(run))

# ------------------------------------------------------------------ results
estimate = None
if mix_error:
    st.error(f"mixed_precision: {mix_error}")
else:
    try:
        edited = parse_scenario({**scenario.model_dump(mode="json"), "hardware": run})
    except InputError as exc:
        show_error(exc)
    else:
        if state.hardware_entered("precision", run):
            state.set_edited(edited)
            scenario = edited
        try:
            estimate = estimate_method2(edited.hardware, db)
        except InputError as exc:
            hardware_error(exc)
if estimate is not None:
    metric_row([
        ("Effective peak per chip", format_flop(estimate.peak.peak_flop_per_s / TERA, "T" + estimate.peak.unit),
         "; ".join(estimate.peak.notes) or None),
        ("Method 2 training compute", format_flop(estimate.training_flop),
         f"{format_chip_hours(estimate.chip_hours)} at utilization {estimate.utilization:g}"),
        ("Format", FORMAT_LABELS.get(estimate.peak.precision, estimate.peak.precision), estimate.peak.describe()),
    ])
    if estimate.peak.fallback_used:
        say("warning", "Fallback peak: " + "; ".join(estimate.peak.fallbacks))

# ------------------------------------------------------------------ peaks chart
if chip is not None:
    peaks = chip.peaks.available()
    frame = pd.DataFrame({"format": [FORMAT_BY_KEY[k].label for k in peaks],
                          "TFLOP/s (dense)": [v / TERA for v in peaks.values()],
                          "units": [FORMAT_BY_KEY[k].units for k in peaks]})
    frame["label"] = [format_number(v) for v in frame["TFLOP/s (dense)"]]
    fig = px.bar(frame, x="format", y="TFLOP/s (dense)", color="units", height=320, text="label",
                 category_orders={"format": list(frame["format"])})
    fig.update_layout(xaxis_title=None, legend_title=None, legend=dict(orientation="h", y=-0.2))
    show_chart(decades(fig), f"{chip.name}: dense peak per number format (TFLOP/s, log scale)")
    say("caption", f"Source: {', '.join(chip.source) or 'your figures'}. INT8 in OP/s. {chip.notes or ''}")
st.markdown("**Dense or sparse?** NVIDIA's datasheets print tensor-core figures “with sparsity”: 2:4 structured "
            "sparsity skips half of the multiplications, which doubles the printed number but not the work a "
            "dense training run gets done. FLOPscope stores and uses dense peaks only — half of those figures.")

# ------------------------------------------------------------------ by format
st.subheader("The same run in each format")
budget = scenario.method1(strict=False).training_flop
shown_run = scenario.hardware
if shown_run is None or not mix_error:
    try:
        shown_run = parse_input(HardwareRun, run)
    except InputError:
        pass
if shown_run is not None:
    rows = compare_formats(shown_run, budget, db)
    table = pd.DataFrame([{
        "format": PEAK_LABELS.get(r.peak_key, r.peak_key), "peak (dense)": f"{format_number(r.peak_flop_per_s / TERA)} T{r.unit}",
        "method 2 training compute": format_flop(r.training_flop),
        "time for the method-1 budget": format_duration(r.hours_for_budget),
    } for r in rows])
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(f"Chips × time × utilization from the hardware page; method-1 budget "
               f"{format_flop(budget) if budget else '— (no training setup on the layer builder)'}.")

state.sync_link()
