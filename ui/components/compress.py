"""The layer builder's Compress panel, beside Fine-tune: a technique, its settings, before and after as two columns
and a chart, the measured speed-up with its source, and (pruning) the pruned layers to apply. The logic is
``engine.compress``'s; the rows ``ui.views.compress``'s."""
from __future__ import annotations

import streamlit as st

from engine.compress.compression import Compression, compress
from engine.errors import InputError, parse_input
from ui import state
from ui.charts import figure, show_chart
from ui.views import compress as view
from ui.widgets import say, show_error


def _settings(technique: str, saved: dict) -> dict:
    c1, c2, c3 = st.columns(3)
    values: dict = {}
    pruning = saved.get("pruning") or {}
    if technique in ("prune", "unstructured"):
        fraction = pruning.get("fraction") or saved.get("sparsity") or 0.5
        values["fraction"] = c1.number_input("Fraction removed" if technique == "prune" else "Weights zeroed",
                                             min_value=0.0, max_value=1.0, step=0.05,
                                             key=state.bind("cp_fraction", float(fraction)),
                                             help="Between 0 and 1 (both excluded).")
    if technique == "prune":
        values["target"] = c2.selectbox("Prune", list(view.TARGETS), format_func=view.TARGETS.get,
                                        key=state.bind("cp_target", pruning.get("target", "channels")))
        values["round_to"] = pruning.get("round_to", 1)  # a scenario's own; the panel sets none
        if pruning.get("per_layer"):  # a scenario's (a file, a link): kept unless one fraction is chosen
            say("caption", view.per_layer_line(pruning["per_layer"]))
            if not st.checkbox("Use the fraction above for every layer instead", key="cp_global"):
                values["per_layer"] = pruning["per_layer"]
        values["scoring"] = c3.number_input("Examples scored (importance)", min_value=0.0, value=0.0, step=1000.0,
                                            key="cp_scoring", format="%.0f")
        values["fine_tune"] = st.number_input("Fine-tuning examples (the pruned net)", min_value=0.0, value=0.0,
                                              step=1000.0, key="cp_fine_tune", format="%.0f")
    if technique in ("two_four", "low_precision"):
        chips = ["nvidia-a100-sxm4-80gb", "nvidia-h100-sxm", "nvidia-b200", "nvidia-tesla-v100-sxm2",
                 "amd-instinct-mi300x"]
        values["chip"] = c2.selectbox("Chip", chips, key=state.bind("cp_chip", saved.get("chip") if saved.get("chip")
                                                                   in chips else chips[0]))
    if technique == "low_precision":
        values["format"] = c1.selectbox("Format", list(view.FORMATS), format_func=view.FORMATS.get, key="cp_format")
    if technique == "qat":
        values["batch"] = c1.number_input("Batch size", min_value=1, value=256, step=1, key="cp_batch")
    if technique == "ptq":
        values["calibration"] = c1.number_input("Calibration examples", min_value=1.0, value=512.0, step=64.0,
                                                key="cp_calibration", format="%.0f")
        values["gptq"] = c2.checkbox("GPTQ (Hessians and the column sweep)", key="cp_gptq")
    return values


def layer_builder_compress(data: dict, scenario_data: dict):
    """The expander: → a structural edit (the pruned layers applied), or None. The choice is kept in
    ``scenario_data["compression"]`` (the link and the report carry it) while comparing is on."""
    saved = scenario_data.get("compression") or {}
    with st.expander("Compress: prune, sparsify, quantize or train in a smaller format — before and after"):
        on = st.toggle("Compare before and after", key=state.bind("cp_on", bool(saved)))
        if not on:
            scenario_data["compression"] = None
            return None
        technique = st.radio("Technique", list(view.TECHNIQUES), format_func=view.TECHNIQUES.get, horizontal=True,
                             key=state.bind("cp_technique", saved.get("technique", "prune")))
        values = _settings(technique, saved)
        try:
            spec = parse_input(Compression, view.spec_data(technique, values), source="compression")
            result = compress(data, spec)
        except InputError as exc:
            show_error(exc)
            return None
        scenario_data["compression"] = spec.model_dump(mode="json", exclude_defaults=True)
        import pandas as pd  # here, once comparing is on: the layer builder's first numbers do not wait for it

        left, right = st.columns([3, 2])
        left.dataframe(pd.DataFrame(view.comparison_rows(result)), hide_index=True)
        with right:
            if result.ideal_speedup:
                st.metric("Ideal speed-up (FLOP or peak)", f"{result.ideal_speedup:.3g}×")
            if result.measured_speedup:
                st.metric("Measured speed-up", f"{result.measured_speedup:.3g}×")
        bars = view.chart_bars(result)
        fig = figure([{"type": "bar", "name": "before", "x": bars["names"], "y": bars["before"]},
                      {"type": "bar", "name": "after", "x": bars["names"], "y": bars["after"]}],
                     {"barmode": "group", "height": 260, "yaxis": {"title": "× before"}})
        show_chart(fig, "Before and after")
        if result.extra_flop:
            st.caption(f"Extra compute of the technique: {result.extra_flop:.3g} FLOP"
                       + (f"; the whole schedule {result.schedule_flop:.3g} FLOP" if result.schedule_flop else ""))
        for note in result.notes:
            say("caption", note)
        say("caption", f"Speed-up source: {result.speedup_source}")
        if technique == "prune" and st.button("Apply the pruned layers", key="cp_apply"):
            pruned = result.layers["pruned"]
            return lambda ls, pruned=pruned: (pruned, "layers[0]")
    return None
