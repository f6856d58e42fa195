"""The hardware page's run: chips, time, utilization (preset or custom, with its range), ranges, cost and energy
inputs → a hardware run in the scenario, and method 2's estimate and costs of it."""
from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from engine.errors import InputError
from engine.method2.costs import estimate_costs
from engine.method2.default_utilization import PRESET_ID as EVIDENCE_ID, default_for_run
from engine.method2.run import DURATION_UNITS, estimate_method2
from engine.method2.utilization_priors import prior_presets, reports_from_epoch
from engine.scenario import FALLBACK_UTILIZATION, parse_scenario
from ui import state
from ui.boundary import optional_shipped_data
from ui.components.energy_place import energy_place_inputs
from ui.hardware_inputs import hardware_error, hardware_spec_inputs
from ui.views.hardware import DURATION_LABELS
from ui.widgets import show_error


class RunForm(NamedTuple):
    run: dict
    """The hardware run as entered (the scenario's ``hardware``)."""
    spec: dict
    """Chip (or custom peak) and number format."""
    chips: float
    duration: float
    unit: str
    utilization: float


def _utilization_presets(spec: dict, chips: float, db):
    """The median of reported runs like this one first, then the published presets, the reported groups and
    those of an Epoch CSV uploaded on the trends page."""
    evidence, priors = optional_shipped_data(
        lambda: (default_for_run(spec.get("chip"), chips or None, db), prior_presets(db)), (None, []),
        "The list of utilization presets from reported runs")
    presets = ([evidence.preset()] if evidence else []) + list(db.utilization_presets) + priors
    uploaded = state.epoch_import()
    if uploaded is not None:
        presets += prior_presets(db, reports_from_epoch(uploaded.hardware_rows, db), origin="Epoch")
    return evidence, presets


def run_form(run: dict, db) -> RunForm:
    with st.container(border=True):
        spec = hardware_spec_inputs(run, db)
        c1, c2, c3 = st.columns(3)
        unit = c3.selectbox("Time given as", DURATION_UNITS, format_func=DURATION_LABELS.get,
                            key=state.bind("hw_unit", run.get("duration_unit", "days")))
        duration = c2.number_input("Training time", min_value=0.0, format="%.6g",
                                   key=state.bind("hw_duration", float(run.get("duration", 1.0))))
        count = c1.number_input("Number of chips", min_value=0.0, step=1.0, format="%g",
                                key=state.bind("hw_count", float(run.get("chip_count") or 1.0)),
                                help="Chips (GPUs, TPU chips, CPUs) running at once; with chip-hours or GPU-days "
                                     "it only sets the wall-clock time shown.")
        evidence, presets = _utilization_presets(spec, count, db)
        current_u = float(run.get("utilization", FALLBACK_UTILIZATION))
        default_preset = next((p.id for p in presets if abs(p.utilization - current_u) < 1e-12), "custom")
        c1, c2, c3 = st.columns([2, 1, 1])
        preset = c1.selectbox("Utilization", [p.id for p in presets] + ["custom"],
                              key=state.bind("hw_u_preset", default_preset),
                              format_func=lambda i: next((p.label for p in presets if p.id == i), "custom value"))
        chosen = next((p for p in presets if p.id == preset), None)
        if chosen is not None:
            utilization = chosen.utilization
            c1.caption(f"{chosen.applies_to}. Source: [{chosen.source}]({chosen.url})")
        else:  # a number field, not a slider: a scenario may hold any utilization in (0, 1], e.g. 0.005
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
            c1, c2, c3, c4 = st.columns(4)
            price = c1.number_input("Price, USD per chip-hour (0 = the chip's indicative price, if it has one)",
                                    min_value=0.0, format="%.3f",
                                    key=state.bind("hw_price", float(run.get("price_usd_per_chip_hour") or 0.0)))
            tdp = c2.number_input("Power per chip, W (0 = chip's TDP)", min_value=0.0, format="%.0f",
                                  key=state.bind("hw_tdp", float(run.get("tdp_w") or 0.0)))
            energy = energy_place_inputs(run, db.defaults, c3, c4)
    evidence_range = evidence is not None and preset == EVIDENCE_ID  # it brings its 90% range unless one is entered
    new_run = {**spec, "chip_count": count or None, "duration": duration, "duration_unit": unit,
               "utilization": utilization,
               "utilization_low": low or (evidence.low if evidence_range and not high else None),
               "utilization_high": high or (evidence.high if evidence_range and not low else None),
               "chip_count_low": count_low or None, "chip_count_high": count_high or None,
               "duration_low": time_low or None, "duration_high": time_high or None,
               "price_usd_per_chip_hour": price or None, "tdp_w": tdp or None, **energy}
    return RunForm(new_run, spec, count, duration, unit, utilization)


def apply_run(scenario, form: RunForm, db):
    """(estimate, costs, entered): the run into the scenario once the user has entered one (not on a visit
    alone), and method 2 on it; a bad value is one line beside the inputs."""
    try:
        edited = parse_scenario({**scenario.model_dump(mode="json"), "hardware": form.run})
    except InputError as exc:
        show_error(exc)
        return None, None, False
    entered = state.hardware_entered("hardware", form.run)
    if entered:
        state.set_edited(edited)  # kept even when the chip lacks the format: the message says what to change
    try:
        return estimate_method2(edited.hardware, db), estimate_costs(edited.hardware, db), entered
    except InputError as exc:
        hardware_error(exc)
        return None, None, entered
