"""The precision page's form: the run's chip (or the custom hardware of the hardware page), and its number
format or a mixed split across formats; then the run into the scenario and method 2 on it."""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError, parse_input
from engine.method2.run import HardwareRun, estimate_method2
from engine.scenario import parse_scenario
from ui import state
from ui.hardware_inputs import FORMAT_LABELS, SOURCES, chip_picker, format_inputs, hardware_error
from ui.views.precision import mixed_precision_fields, mixed_split
from ui.widgets import show_error

MIX_FORMATS = ("bf16", "fp16", "tf32", "fp32", "fp8", "fp6", "fp4")


def _split_inputs(run: dict) -> tuple[dict, str | None]:
    """Each format's share (the last one shows the rest, read-only) and the basis: the run's mixed fields."""
    mixed_now = run.get("mixed_precision") or {}
    st.caption("Epoch AI's article (Sevilla et al. 2022): time in format A × peak A + time in format B × peak B. "
               "Give each format's share; the last one takes the rest, so the shares always add up to 100%.")
    chosen = st.multiselect("Formats in the split (the last takes the rest)", MIX_FORMATS,
                            key=state.bind("pr_mix_formats", list(mixed_now) or ["bf16", "fp32"]),
                            format_func=FORMAT_LABELS.get)
    cols = st.columns(max(len(chosen), 1) + 1)
    percents = {}
    for col, fmt in zip(cols, chosen[:-1]):
        default = 100.0 * mixed_now.get(fmt, 0.9 if fmt == chosen[0] and not mixed_now else 0.0)
        percents[fmt] = col.number_input(f"{FORMAT_LABELS[fmt]} %", min_value=0.0, max_value=100.0, step=5.0,
                                         key=state.bind(f"pr_mix_{fmt}", default))
    last = chosen[-1] if chosen else None
    split, error = mixed_split(percents, last, FORMAT_LABELS)
    if last is not None:
        rest_key = f"pr_mix_rest_{last}"
        st.session_state[rest_key] = max(split[last], 0.0)  # this component's own read-only field
        cols[len(chosen) - 1].number_input(f"{FORMAT_LABELS[last]} % (the rest)", min_value=0.0, max_value=100.0,
                                           key=rest_key, disabled=True)
    basis = cols[-1].radio("Shares of", ["work", "time"], key=state.bind("pr_basis", run.get("split_basis", "work")),
                           format_func={"work": "the FLOP", "time": "the time"}.get)
    return mixed_precision_fields(split, basis), error


def precision_form(run: dict, db):
    """(run as edited, the chip whose peaks to chart or None, the mixed split's error or None)."""
    with st.container(border=True):
        source = next((k for k in ("chip", "custom_chip", "peak_flop_per_s", "year") if run.get(k) is not None),
                      "chip")
        if source == "chip":
            chip_id = chip_picker(run.get("chip"), db)
            chip = db.chip(chip_id)
            run = {k: v for k, v in run.items() if k not in ("custom_chip", "peak_flop_per_s", "year")} | {"chip": chip_id}
        else:
            st.info(f"The run uses {SOURCES[source]} (set on the hardware page); the formats below apply to it.")
            chip = parse_input(HardwareRun, run).custom_chip if source == "custom_chip" else None
        use_mixed = st.toggle("Mixed precision: split the run across formats",
                              key=state.bind("pr_use_mixed", bool(run.get("mixed_precision"))),
                              disabled=source == "peak_flop_per_s",
                              help="A single custom peak has one format; give a chip for a split.")
        if use_mixed:
            fields, error = _split_inputs(run)
            run = {k: v for k, v in run.items() if k != "precision"} | fields
            run.update(format_inputs(run, mixed_here=True))
        else:
            error = None
            run = {k: v for k, v in run.items() if k not in ("mixed_precision", "split_basis")}
            run.update(format_inputs(run))
    return run, chip, error


def apply_precision(scenario, run: dict, mix_error: str | None, db):
    """(scenario, estimate): the run into the scenario once entered here, and method 2 on it."""
    if mix_error:
        st.error(f"mixed_precision: {mix_error}")
        return scenario, None
    try:
        edited = parse_scenario({**scenario.model_dump(mode="json"), "hardware": run})
    except InputError as exc:
        show_error(exc)
        return scenario, None
    if state.hardware_entered("precision", run):
        state.set_edited(edited)
        scenario = edited
    try:
        return scenario, estimate_method2(edited.hardware, db)
    except InputError as exc:
        hardware_error(exc)
        return scenario, None
