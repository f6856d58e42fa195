"""The hardware page's results: method 2's totals and notes, the two methods side by side, the time for a
budget or the chips for a deadline, and the utilization a measured throughput implies."""
from __future__ import annotations

import streamlit as st

from engine.consistency import consistency_check
from engine.errors import InputError
from engine.method1.training import training_flop_per_example
from engine.method2.planning import solve_time_or_chips
from engine.method2.utilization import measured_utilization
from ui import state
from ui.fragments import page_part
from ui.components.hardware_run import RunForm
from ui.thresholds import threshold_caption
from ui.views import hardware as view
from ui.widgets import metric_row, results_bar, say, show_error


def method2_results(summary, estimate, costs) -> None:
    """The sticky results line (``summary``), then the totals, formula, interval, notes and costs."""
    with summary:
        if estimate is None:
            results_bar(None, missing="fix the run's inputs above to get it")
            return
        results_bar(estimate.training_flop, estimate.interval, view.results_details(estimate))
    peak = estimate.peak
    metric_row(view.estimate_metrics(estimate))
    st.text(estimate.formula)  # plain preformatted text: wraps, and needs no syntax highlighter
    threshold_caption(estimate.training_flop)
    if peak.assumed_format:
        st.info(f"Assumed {peak.assumed_format}, the usual training format of this chip; choose a number format "
                "above to change it.")
    if estimate.interval is not None:
        metric_row(view.interval_metrics(estimate.interval))
    if peak.fallback_used:
        say("warning", "Fallback peak: " + "; ".join(peak.fallbacks))
    for note in view.peak_notes(peak):
        say("caption", note)
    if costs is not None:
        metric_row(view.cost_metrics(costs))
        for note in costs.notes:
            say("caption", note)


def both_methods(m1, estimate, entered: bool, form: RunForm) -> None:
    st.subheader("Method 1 and method 2 side by side")
    if m1.training_flop and estimate is not None and not entered:
        st.info(view.example_run_sentence(m1.training_flop, estimate, form.chips, form.duration, form.unit))
    elif m1.training_flop and estimate is not None:
        check = consistency_check(m1.training_flop, estimate.training_flop, utilization=estimate.utilization)
        metric_row(view.comparison_metrics(check))
        say("success" if check.agree else "warning", check.message)
    else:
        st.info("Build a model with a training setup on the layer builder page to compare the two methods.")


@page_part
def budget_planning(m1, estimate, form: RunForm, db) -> None:
    st.subheader("Time for a budget, chips for a deadline")
    c1, c2, c3 = st.columns(3)
    budget = c1.number_input("FLOP budget", min_value=0.0, format="%.4e",
                             key=state.bind("hw_budget", float(m1.training_flop or 1e21)),
                             help="Defaults to the method-1 training compute of the layer builder.")
    chips = c2.number_input("On this many chips → time", min_value=0.0, step=1.0, format="%g", key="hw_budget_chips",
                            value=float(form.chips or 8))
    deadline = c3.number_input("Or within this many days → chips", min_value=0.0, format="%.4g", key="hw_deadline",
                               value=30.0)
    if estimate is None or budget <= 0:
        return
    base = {**form.spec, "utilization": form.utilization, "training_flop": budget}
    try:
        by_time = solve_time_or_chips({**base, "chip_count": chips}, db) if chips > 0 else None
        by_chips = (solve_time_or_chips({**base, "deadline": deadline, "deadline_unit": "days"}, db)
                    if deadline > 0 else None)
    except InputError as exc:
        show_error(exc)
        return
    items = view.budget_metrics(by_time, chips, by_chips, deadline)
    if items:
        metric_row(items)


@page_part
def measured(m1, training, estimate, form: RunForm, db) -> None:
    with st.expander("Measured throughput → achieved utilization (MFU)"):
        c1, c2, c3, c4 = st.columns(4)
        item = c1.radio("Throughput of", ["example", "token"], horizontal=True, key="mu_item")
        per_item = c2.number_input(f"Training FLOP per {item}", min_value=0.0, format="%.4e", key="mu_flop",
                                   value=float(training_flop_per_example(m1.forward_flop or 1e9, training)),
                                   help="Default: method 1's forward FLOP per example × (1 + backward ratio, "
                                        "+ 1 with recomputation), from the layer builder's training setup.")
        rate = c3.number_input(f"{item.capitalize()}s per second (all chips)", min_value=0.0, format="%.6g",
                               key="mu_rate", value=1000.0)
        chips = c4.number_input("Chips", min_value=0.0, step=1.0, format="%g", key="mu_chips",
                                value=float(form.chips or 1))
        if estimate is None or not (per_item > 0 and rate > 0 and chips > 0):
            return
        try:
            mu = measured_utilization({**form.spec, "chip_count": chips, "training_flop_per_item": per_item,
                                       "item": item, "items_per_s": rate}, db)
        except InputError as exc:
            show_error(exc)
            return
        metric_row(view.measured_metrics(mu))
        for warning in mu.warnings:
            say("warning", warning)
