"""The Plan page's "Plan against a measured run": a profiler trace of one rank of the run (an upload, or the bundled
example) set beside the plan the form above describes, part by part, the gap named, and the plan re-run with the
run's own efficiencies. Figures as text from ``ui.views.plan_trace``; the rules in ``engine.plan.against_trace``."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.plan.against_trace import ChipMismatch, plan_with_trace
from engine.plan.layout import PlanInputs
from engine.plan.run_plan import settings_for
from ui.components.plan import choose_chip, shown_plan
from ui.components.measure import UNZIPPED_BYTES, UPLOAD_MB, upload_limit_line
from ui.fragments import page_part
from ui.text import plain
from ui.views.plan_trace import calibrated_metrics, part_rows, versus_metrics
from ui.widgets import metric_row, say, show_error

MEASURED, MEASURED_KEY = "plan_trace_measured", "plan_trace_measured_key"


def plan_inputs(scenario, model) -> PlanInputs:
    """The plan the form above shows: the scenario's saved plan, else the first layout offered for the model."""
    from engine.method2.hardware_db import load_hardware_db

    return shown_plan(scenario, model, load_hardware_db())[0]


def _source():
    """(name, data, id) of the trace: the upload, else the bundled example when asked for, else None."""
    from engine.measure.example import EXAMPLE_TRACE

    upload_limit_line("a PyTorch profiler trace of one rank of this run (.json or .json.gz)", UPLOAD_MB,
                      "python -m engine plan … --trace TRACE.json.gz")
    upload = st.file_uploader("Profiler trace of this run (.json, .json.gz)", type=["json", "gz"],
                              key="plan_trace_upload", max_upload_size=UPLOAD_MB,
                              help="torch.profiler with record_shapes=True on one rank; export_chrome_trace or "
                                   "tensorboard_trace_handler writes it")
    if upload is not None:
        return upload.name, upload, f"upload:{upload.file_id}"
    if st.checkbox("Compare with the bundled example trace", key="plan_trace_example",
                   help="Synthetic (tools/synthetic_trace.py: a small decoder's training step on one H100 of 8 from "
                        "a stated timing model), not a real run: it shows how the comparison reads"):
        return EXAMPLE_TRACE.name, EXAMPLE_TRACE, "example"
    return None


def _measurement(source):
    """The trace measured once per upload (None, the error said, when it cannot be read)."""
    from engine.measure.measurement import measure_trace

    name, data, ident = source
    if st.session_state.get(MEASURED_KEY) == ident:
        return st.session_state.get(MEASURED)
    try:
        with st.spinner(f"Reading {name}…"):
            result = measure_trace(data, max_bytes=UNZIPPED_BYTES)
    except InputError as exc:
        show_error(exc, "nothing was compared")
        result = None
    st.session_state[MEASURED_KEY], st.session_state[MEASURED] = ident, result
    return result


def _plan_on(chip: str) -> None:
    """The button's callback: the form's chip becomes the trace's (before the form is drawn again), and the whole
    page runs again (a callback inside a page part reruns only the part)."""
    choose_chip(chip)
    st.session_state[RERUN] = True


RERUN = "plan_trace_rerun"


@page_part
def against_trace(scenario, model, tokens: float | None) -> None:
    """The section (see the module docstring); nothing without a model with layers."""
    if model is None:
        return
    if st.session_state.pop(RERUN, False):
        st.rerun()
    st.subheader("Plan against a measured run")
    st.caption("A profiler trace of one rank of this run, set beside the plan above part by part; then the same "
               "plan with the run's own matrix-product and memory efficiencies, at whatever scale the form sets.")
    source = _source()
    if source is None:
        return
    measurement = _measurement(source)
    if measurement is None:
        return
    inputs = plan_inputs(scenario, model)
    try:
        comparison = plan_with_trace(model, inputs.layout, inputs.options, settings_for(inputs, tokens), measurement)
    except ChipMismatch as exc:
        show_error(exc)
        from engine.method2.hardware_db import load_hardware_db
        from engine.plan.interconnects import interconnects

        if exc.trace_chip in interconnects():
            st.button(f"Plan on {load_hardware_db().chip(exc.trace_chip).name}", key="plan_trace_use_chip",
                      on_click=_plan_on, args=(exc.trace_chip,))
        return
    except InputError as exc:
        show_error(exc, "fix the plan above to compare it with the trace.")
        return
    v = comparison.versus
    metric_row(versus_metrics(comparison))
    st.markdown(f"**Gap:** {plain(v.gap)}.")
    st.dataframe(pd.DataFrame(part_rows(comparison)), hide_index=True)
    for line in v.assumed:
        say("caption", f"Assumed: {line}")
    if st.toggle("Plan with this run's efficiency", key="plan_trace_calibrate",
                 help="The trace's measured matrix-product rates (by shape) and memory-bound bandwidth replace "
                      "FLOPscope's defaults in the kernel model; collectives, bubble and idle keep the defaults"):
        if comparison.calibrated is None:
            say("info", comparison.why_not or "the trace's efficiencies cannot be applied to this plan")
            return
        metric_row(calibrated_metrics(comparison))
        say("caption", f"Calibration: {comparison.calibration.calibration.source}.")
        for line in comparison.calibration.kept_default:
            say("caption", f"Kept: {line}.")
        st.caption("Change the chips or the layout above: this plan follows them with the run's efficiencies "
                   "(a measured shape keeps its rate only where the new layout has the same shape).")
