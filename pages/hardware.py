"""Page 2 — Hardware & time (method 2): chips × time × peak FLOP/s × utilization."""
from __future__ import annotations

import streamlit as st

from engine.consistency import consistency_check
from engine.method2.costs import estimate_costs
from engine.errors import InputError
from engine.method2.hardware_db import load_hardware_db
from engine.method1.training import training_flop_per_example
from engine.method2.run import DURATION_UNITS, estimate_method2
from engine.method2.default_utilization import PRESET_ID as EVIDENCE_ID, default_for_run
from engine.method2.utilization_priors import prior_presets, reports_from_epoch
from engine.method2.planning import solve_time_or_chips
from engine.scenario import parse_scenario
from engine.units import (TERA, format_chip_hours, format_co2_kg, format_duration, format_energy_kwh, format_flop,
                          format_number, format_pf_days, format_time_amount, plural)
from engine.method2.utilization import measured_utilization
from ui import state
from ui.boundary import optional_shipped_data, shipped_data
from ui.exports import exports_panel
from ui.components.energy_place import energy_place_inputs
from ui.hardware_inputs import hardware_error, hardware_spec_inputs
from ui.thresholds import threshold_caption
from ui.widgets import metric_row, page_header, results_bar, results_slot, show_error, say

EPOCH_IMPORT_KEY = "trends_epoch_import"
# Where the trends page keeps an uploaded Epoch CSV (its utilization column gives more presets).

page_header("Hardware & time — method 2",
            "Training compute from the hardware: number of chips × training time × peak FLOP/s of the number "
            "format used (dense, tensor cores when used) × utilization.")

db = shipped_data(load_hardware_db)
scenario = state.get()
run = state.hardware_run()

summary = results_slot()[1]  # sticky: the total stays in view while editing

# ------------------------------------------------------------------ inputs
with st.container(border=True):
    spec = hardware_spec_inputs(run, db)
    c1, c2, c3 = st.columns(3)
    unit = c3.selectbox("Time given as", DURATION_UNITS, key=state.bind("hw_unit", run.get("duration_unit", "days")),
                        format_func={"days": "wall-clock days", "hours": "wall-clock hours",
                                     "chip_hours": "chip-hours (GPU-hours)", "gpu_days": "GPU-days (chip-days)"}.get)
    duration = c2.number_input("Training time", min_value=0.0, format="%.6g",
                               key=state.bind("hw_duration", float(run.get("duration", 1.0))))
    count = c1.number_input("Number of chips", min_value=0.0, step=1.0, format="%g",
                            key=state.bind("hw_count", float(run.get("chip_count") or 1.0)),
                            help="Chips (GPUs, TPU chips, CPUs) running at once; with chip-hours or GPU-days "
                                 "it only sets the wall-clock time shown.")

    # the median of reported runs like this one first, then the published presets and the reported groups
    evidence, priors = optional_shipped_data(
        lambda: (default_for_run(spec.get("chip"), count or None, db), prior_presets(db)), (None, []),
        "The utilization presets from reported runs")
    presets = ([evidence.preset()] if evidence else []) + list(db.utilization_presets) + priors
    uploaded = st.session_state.get(EPOCH_IMPORT_KEY)  # an Epoch CSV uploaded on the trends page
    if uploaded is not None:
        presets += prior_presets(db, reports_from_epoch(uploaded.hardware_rows, db), origin="Epoch")
    preset_ids = [p.id for p in presets] + ["custom"]
    current_u = float(run.get("utilization", 0.4))
    default_preset = next((p.id for p in presets if abs(p.utilization - current_u) < 1e-12), "custom")
    c1, c2, c3 = st.columns([2, 1, 1])
    preset = c1.selectbox("Utilization", preset_ids, key=state.bind("hw_u_preset", default_preset),
                          format_func=lambda i: next((p.label for p in presets if p.id == i), "custom value"))
    chosen = next((p for p in presets if p.id == preset), None)
    if chosen is not None:
        utilization = chosen.utilization
        c1.caption(f"{chosen.applies_to}. Source: [{chosen.source}]({chosen.url})")
    else:
        # a number field, not a slider: a scenario may hold any utilization in (0, 1], e.g. 0.005
        utilization = c1.number_input("Utilization (fraction of peak, in (0, 1])", min_value=0.0, max_value=1.0,
                                      step=0.01, format="%.4g", key=state.bind("hw_u_custom", current_u))
    low = c2.number_input("Range: low (0 = none)", 0.0, 1.0, step=0.05,
                          key=state.bind("hw_u_low", float(run.get("utilization_low") or 0.0)))
    high = c3.number_input("Range: high (0 = none)", 0.0, 1.0, step=0.05,
                           key=state.bind("hw_u_high", float(run.get("utilization_high") or 0.0)))

    with st.expander("Ranges: chips and time (each a 90% interval; 0 = none)"):
        r1, r2, r3, r4 = st.columns(4)
        count_low = r1.number_input("Chips, low", min_value=0.0, format="%g",
                                    key=state.bind("hw_count_low", float(run.get("chip_count_low") or 0.0)))
        count_high = r2.number_input("Chips, high", min_value=0.0, format="%g",
                                     key=state.bind("hw_count_high", float(run.get("chip_count_high") or 0.0)))
        time_low = r3.number_input("Time, low (same unit)", min_value=0.0, format="%.6g",
                                   key=state.bind("hw_time_low", float(run.get("duration_low") or 0.0)))
        time_high = r4.number_input("Time, high (same unit)", min_value=0.0, format="%.6g",
                                    key=state.bind("hw_time_high", float(run.get("duration_high") or 0.0)))

    with st.expander("Cost, energy and CO₂ assumptions"):
        d = db.defaults
        c1, c2, c3, c4 = st.columns(4)
        price = c1.number_input("Price, USD per chip-hour (0 = the chip's indicative price, if it has one)", min_value=0.0, format="%.3f",
                                key=state.bind("hw_price", float(run.get("price_usd_per_chip_hour") or 0.0)))
        tdp = c2.number_input("Power per chip, W (0 = chip's TDP)", min_value=0.0, format="%.0f",
                              key=state.bind("hw_tdp", float(run.get("tdp_w") or 0.0)))
        energy = energy_place_inputs(run, d, c3, c4)

new_run = {**spec, "chip_count": count or None, "duration": duration, "duration_unit": unit,
           "utilization": utilization,
           # the reported-runs default brings its 90% range unless one is entered
           "utilization_low": low or (evidence.low if evidence and preset == EVIDENCE_ID and not high else None),
           "utilization_high": high or (evidence.high if evidence and preset == EVIDENCE_ID and not low else None),
           "chip_count_low": count_low or None, "chip_count_high": count_high or None,
           "duration_low": time_low or None, "duration_high": time_high or None,
           "price_usd_per_chip_hour": price or None, "tdp_w": tdp or None, **energy}
estimate = costs = None
entered = False
try:
    edited = parse_scenario({**scenario.model_dump(mode="json"), "hardware": new_run})
except InputError as exc:
    show_error(exc)
else:
    entered = state.hardware_entered("hardware", new_run)
    if entered:
        state.set_edited(edited)  # kept even when the chip lacks the format: the message says what to change
    try:
        estimate = estimate_method2(edited.hardware, db)
        costs = estimate_costs(edited.hardware, db)
    except InputError as exc:
        hardware_error(exc)
scenario = state.get()

# ------------------------------------------------------------------ results
with summary:
    if estimate is not None:
        results_bar(estimate.training_flop, estimate.interval,
                    (format_pf_days(estimate.pfs_days), format_chip_hours(estimate.chip_hours),
                     f"{format_duration(estimate.wall_clock_hours)} wall-clock"))
    else:
        results_bar(None, missing="fix the run's inputs above to get it")
if estimate is not None:
    peak = estimate.peak
    metric_row([
        ("Training compute", format_flop(estimate.training_flop), "C = chips × time × peak × utilization"),
        ("PF-days", format_flop(estimate.pfs_days, ""), "petaFLOP/s-days: training FLOP ÷ 8.64e19"),
        ("Peak used, per chip", format_flop(peak.peak_flop_per_s / TERA, "T" + peak.unit),
         f"{peak.describe()} — dense"),
        ("Chip time", format_chip_hours(estimate.chip_hours), None),
        ("Wall-clock", format_duration(estimate.wall_clock_hours), None),
    ])
    st.text(estimate.formula)  # plain preformatted text: wraps, and needs no syntax highlighter
    threshold_caption(estimate.training_flop)
    if peak.assumed_format:
        st.info(f"Assumed {peak.assumed_format}, the usual training format of this chip; choose a number format "
                "above to change it.")
    if estimate.interval is not None:
        band = estimate.interval
        metric_row([("90% interval", f"{format_flop(band.low)} – {format_flop(band.high)}",
                     f"from the ranges of: {', '.join(band.factors)}. {band.method}"),
                    ("Confidence (Epoch's labels)", band.confidence, band.confidence_rule)])
    if estimate.peak.fallback_used:
        say("warning", "Fallback peak: " + "; ".join(peak.fallbacks))
    for note in peak.notes:
        if not (peak.assumed_format and note.startswith("assumed ")):  # that one is the notice above
            say("caption", note)
    if costs is not None:
        metric_row([
            ("Cost", costs.cost_text, costs.price_basis or "no price on file for this chip: enter one above"),
            ("Energy", format_energy_kwh(costs.energy_kwh),
             f"chip-hours × {costs.tdp_w or '?'} W × PUE {costs.pue:g}"),
            ("CO₂", format_co2_kg(costs.co2_kg), costs.grid_basis),
        ])
        for note in costs.notes:
            say("caption", note)

# ------------------------------------------------------------------ consistency with method 1
st.subheader("Method 1 and method 2 side by side")
m1 = scenario.method1(strict=False)
if m1.training_flop and estimate is not None and not entered:
    st.info(f"The run above is an example ({plural(count, 'chip')}, {format_time_amount(duration, unit)}); enter "
            f"your run's chips, time and utilization to compare it with method 1's {format_flop(m1.training_flop)}. "
            f"On these chips at this utilization, method 1's compute takes "
            f"{format_duration(m1.training_flop / (estimate.training_flop / estimate.chip_hours) / (count or 1))} "
            "of wall-clock time.")
elif m1.training_flop and estimate is not None:
    check = consistency_check(m1.training_flop, estimate.training_flop, utilization=estimate.utilization)
    metric_row([
        ("Method 1 (architecture)", format_flop(check.method1_training_flop), f"{check.method1_pfs_days:.4g} PF-days"),
        ("Method 2 (hardware)", format_flop(check.method2_training_flop), f"{check.method2_pfs_days:.4g} PF-days"),
        ("Ratio method 2 ÷ method 1", format_number(check.ratio_method2_to_method1, 3) + " ×"
         if 1e-3 <= check.ratio_method2_to_method1 < 1e9 else format_flop(check.ratio_method2_to_method1, "×"), None),
        ("Utilization that would agree", format_flop(check.utilization_to_agree, "") if check.utilization_to_agree
         else "—", "u × C1 / C2"),
    ])
    say("success" if check.agree else "warning", check.message)
else:
    st.info("Build a model with a training setup on the layer builder page to compare the two methods.")

# ------------------------------------------------------------------ planning
st.subheader("Time for a budget, chips for a deadline")
c1, c2, c3 = st.columns(3)
budget = c1.number_input("FLOP budget", min_value=0.0, format="%.4e",
                         key=state.bind("plan_budget", float(m1.training_flop or 1e21)),
                         help="Defaults to the method-1 training compute of the layer builder.")
chips = c2.number_input("On this many chips → time", min_value=0.0, step=1.0, format="%g", key="plan_chips",
                        value=float(count or 8))
deadline = c3.number_input("Or within this many days → chips", min_value=0.0, format="%.4g", key="plan_deadline",
                           value=30.0)
if estimate is not None and budget > 0:
    base = {**spec, "utilization": utilization, "training_flop": budget}
    try:
        by_time = solve_time_or_chips({**base, "chip_count": chips}, db) if chips > 0 else None
        by_chips = solve_time_or_chips({**base, "deadline": deadline, "deadline_unit": "days"}, db) if deadline > 0 else None
    except InputError as exc:
        show_error(exc)
    else:
        items = []
        if by_time:
            items.append((f"Wall-clock on {plural(chips, 'chip')}", format_duration(by_time.wall_clock_hours),
                          f"{format_chip_hours(by_time.chip_hours)} at utilization {by_time.utilization:g}"))
        if by_chips:
            items.append((f"Chips for {plural(deadline, 'day')}", plural(by_chips.chip_count, "chip"),
                          f"exactly {by_chips.chip_count_exact:,.4g}"))
        if items:
            metric_row(items)

# ------------------------------------------------------------------ measured utilization
with st.expander("Measured throughput → achieved utilization (MFU)"):
    c1, c2, c3, c4 = st.columns(4)
    item = c1.radio("Throughput of", ["example", "token"], horizontal=True, key="mu_item")
    per_item = c2.number_input(f"Training FLOP per {item}", min_value=0.0, format="%.4e", key="mu_flop",
                               value=float(training_flop_per_example(m1.forward_flop or 1e9, scenario.training)),
                               help="Default: method 1's forward FLOP per example × (1 + backward ratio, "
                                    "+ 1 with recomputation), from the layer builder's training setup.")
    rate = c3.number_input(f"{item.capitalize()}s per second (all chips)", min_value=0.0, format="%.6g",
                           key="mu_rate", value=1000.0)
    mu_chips = c4.number_input("Chips", min_value=0.0, step=1.0, format="%g", key="mu_chips", value=float(count or 1))
    if estimate is not None and per_item > 0 and rate > 0 and mu_chips > 0:
        try:
            mu = measured_utilization({**spec, "chip_count": mu_chips, "training_flop_per_item": per_item,
                                       "item": item, "items_per_s": rate}, db)
        except InputError as exc:
            show_error(exc)
        else:
            metric_row([("Achieved", format_flop(mu.achieved_flop_per_s, "FLOP/s"), None),
                        ("Per chip", format_flop(mu.achieved_flop_per_s_per_chip, "FLOP/s"), None),
                        ("Model FLOPs utilization", f"{100 * mu.mfu:.1f}%", "achieved ÷ (chips × peak)")])
            for warning in mu.warnings:
                say("warning", warning)

exports_panel(scenario, m1)
state.sync_link()
