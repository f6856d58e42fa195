"""Page 5 — Plan a run: memory per chip, the parallel layout's step time and MFU, the compute-optimal size,
lifetime compute and regulatory thresholds, for the session's model."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.errors import InputError, parse_input
from engine.method2.hardware_db import load_hardware_db
from engine.plan.interconnects import interconnects
from engine.plan.layout import CONVENTIONS, DEFAULT_KERNEL_EFFICIENCY, PRECISIONS as PLAN_PRECISIONS, PlanInputs
from engine.plan.lifetime import lifetime_compute
from engine.plan.memory import GB, fewest_chips
from engine.plan.optimal import (
    FITS,
    RULES,
    compute_optimal,
    inference_aware,
    iso_flop_lines,
)
from engine.plan.published_runs import comparison
from engine.plan.run_plan import PlanSettings, plan_run, sweep_layouts
from engine.plan.step_time import NO_COMPUTE
from engine.plan.thresholds import MODIFICATION_SOURCE, compare, modification_threshold
from ui.components.fine_tune import modification_check
from engine.units import format_duration, format_flop
from ui import state
from ui.boundary import shipped_data
from ui.text import plain
from ui.widgets import metric_row, page_header, show_error

RULE_LABELS = {"tokens-per-param": "20 tokens per parameter (Hoffmann et al. 2022)",
               "hoffmann-approach3": "Hoffmann et al. 2022, approach-3 fit",
               "besiroglu-2024": "Besiroglu et al. 2024 (Epoch AI refit)"}
OPTIMIZERS = {"adam": "Adam (mixed precision: 16 B/param)", "adam-8bit": "8-bit Adam (10 B/param)",
              "sgd-momentum": "SGD with momentum (12 B/param)", "sgd": "SGD (8 B/param)"}
RECOMPUTE = {"none": "none", "selective": "selective (attention core)", "full": "full (each block's input kept)"}


@st.cache_data(show_spinner=False)
def _published() -> pd.DataFrame:
    return pd.DataFrame([{"run": r["run"], "reported": r["metric"], "published": f"{100 * r['published']:.1f}%",
                          "predicted": f"{100 * r['predicted']:.1f}%", "error (points)": f"{r['error_points']:+.1f}",
                          "source": r["source"]} for r in comparison()])


def _gb(value: float) -> str:
    return f"{value / GB:,.3g} GB"


page_header("Plan a run",
            "Does the model fit, on how many chips, how long does a step take, at what utilization, and was this "
            "the right size? Memory per chip, a parallel layout's time and MFU, the compute-optimal size, "
            "lifetime compute and the legal thresholds, for the model of the layer builder.")

db = shipped_data(load_hardware_db)
scenario = state.get()
m1 = scenario.method1(strict=False)
training_flop = m1.training_flop
model = None
try:
    model = scenario.plan_model()
except InputError as exc:
    st.info(f"Memory and layout need the model's layers ({plain(exc.reason)}). Load a preset such as "
            "Llama 2 7B or GPT-3 175B on the layer builder; the compute-optimal size and thresholds below "
            "work from the FLOP alone.")
tokens = scenario.tokens()

# ------------------------------------------------------------------ memory and layout
if model is not None:
    st.subheader("Memory per chip and step time")
    st.caption(f"{plain(scenario.name or 'This model')}: {model.params:,} parameters"
               + (f" ({model.trainable_params:,} trainable: gradients and optimizer states for these only)"
                  if model.trainable_params is not None else "")
               + (f", {model.blocks} transformer blocks of width {model.d_model} with {model.heads} heads, "
                  f"sequences of {model.seq_len:,}" if model.blocks else f", {model.other_layers} layers"))
    saved = scenario.plan or PlanInputs()
    lay, opt = saved.layout, saved.options
    linked = [i for i in interconnects() if db.find(i) is not None]
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        chip_id = c1.selectbox("Chip", linked, key=state.bind("plan_chip", saved.chip if saved.chip in linked
                                                               else "nvidia-h100-sxm"),
                               format_func=lambda i: db.chip(i).name)
        optimizer = c2.selectbox("Optimizer", list(OPTIMIZERS), key=state.bind("plan_optimizer", opt.optimizer),
                                 format_func=OPTIMIZERS.get)
        precision = c3.selectbox("Number format", list(PLAN_PRECISIONS),
                                 key=state.bind("plan_precision", opt.precision))
        zero = c4.selectbox("ZeRO stage (3 = FSDP)", [0, 1, 2, 3], key=state.bind("plan_zero", opt.zero))
        c1, c2, c3, c4 = st.columns(4)
        recompute = c1.selectbox("Activation recomputation", list(RECOMPUTE), format_func=RECOMPUTE.get,
                                 key=state.bind("plan_recompute", opt.recompute))
        efficiency = c2.number_input("Kernel efficiency", 0.05, 1.0, step=0.05,
                                     key=state.bind("plan_efficiency", float(saved.kernel_efficiency)),
                                     help="Share of peak the kernels reach outside communication and the pipeline "
                                          "bubble (an assumption; see the published-run check below).")
        seq_parallel = c3.checkbox("Sequence parallelism", key=state.bind("plan_sp", lay.sequence_parallel),
                                   help="Korthikanti et al. 2022")
        convention = c4.selectbox("Framework (model states)", list(CONVENTIONS), format_func=CONVENTIONS.get,
                                  key=state.bind("plan_convention", opt.convention))
        c1, c2, c3, c4 = st.columns(4)
        dp = c1.number_input("Data parallel d", 1, 10**9, key=state.bind("plan_dp", lay.dp))
        tp = c2.number_input("Tensor parallel t", 1, 10**9, key=state.bind("plan_tp", lay.tp))
        pp = c3.number_input("Pipeline stages p", 1, 10**9, key=state.bind("plan_pp", lay.pp))
        ep = c4.number_input("Expert parallel e", 1, 10**9, key=state.bind("plan_ep", lay.ep))
        c1, c2, c3, c4 = st.columns(4)
        micro = c1.number_input("Micro-batch b", 1, 10**9, key=state.bind("plan_micro", lay.micro_batch))
        batch = c2.number_input("Global batch B (examples per step)", 1, 10**9,
                                key=state.bind("plan_batch", lay.global_batch or 64))
        virtual = c3.number_input("Interleaved stages v", 1, 1000, key=state.bind("plan_virtual", lay.virtual_stages))
    plan = None
    try:
        inputs = parse_input(PlanInputs, {
            "chip": chip_id, "kernel_efficiency": efficiency,
            "layout": {"dp": int(dp), "tp": int(tp), "pp": int(pp), "ep": int(ep), "micro_batch": int(micro),
                       "global_batch": int(batch), "virtual_stages": int(virtual), "sequence_parallel": seq_parallel},
            "options": {"optimizer": optimizer, "precision": precision, "zero": zero, "recompute": recompute,
                        "convention": convention}})
        layout, options = inputs.layout, inputs.options
        settings = parse_input(PlanSettings, {"chip": chip_id, "kernel_efficiency": efficiency, "tokens": tokens})
        plan = plan_run(model, layout, options, settings)
        if inputs != saved:  # a visit alone leaves the scenario (and its link) as it was
            state.set_edited(scenario.model_copy(update={"plan": inputs}))
    except InputError as exc:
        show_error(exc, "fix the layout to see memory and time.")
    if plan is not None:
        mem, step, chip = plan.memory, plan.step, plan.chip
        best = fewest_chips(model, options, chip.memory_gb * GB, layout.micro_batch,
                            sequence_parallel=seq_parallel)
        metric_row([
            (f"Memory per chip (of {chip.memory_gb:g} GB)", _gb(mem.total),
             f"model states {_gb(mem.model_states)} + activations {_gb(mem.activations)}"),
            ("Fits", "yes" if mem.fits else "no", f"{chip.name}: {chip.memory_gb:g} GB"),
            ("Largest micro-batch that fits", f"{mem.largest_micro_batch:,}", "with the other settings unchanged"),
            ("Fewest chips", f"{best.chips:,}" if best else "none fits",
             f"d {best.layout.dp} × t {best.layout.tp} × p {best.layout.pp} at micro-batch {layout.micro_batch}"
             if best else "no layout with t ≤ 8 holds the model"),
        ])
        (st.success if mem.fits else st.error)(
            f"{'Fits' if mem.fits else 'Does not fit'}: {_gb(mem.total)} per chip on {layout.chips:,} chips "
            f"({chip.memory_gb:g} GB each). Weights {_gb(mem.weights)}, gradients {_gb(mem.gradients)}, optimizer "
            f"states {_gb(mem.optimizer_states)}, activations {_gb(mem.activations)}.")
        metric_row([
            ("Step time", format_duration(step.step_s / 3600), f"{step.tokens_per_step:,.0f} tokens per step"),
            ("Predicted MFU", f"{100 * step.mfu:.1f}%", f"HFU (with recomputation) {100 * step.hfu:.1f}%")
            if step.mfu is not None else ("Predicted MFU", "undefined", NO_COMPUTE),
            ("Pipeline bubble", f"{100 * step.bubble_fraction:.1f}%", "(p−1)/(v·m + p−1)"),
            ("Wall-clock", format_duration(step.wall_clock_s(tokens) / 3600) if tokens else "—",
             f"{tokens:,.4g} tokens of the training setup" if tokens else "no training setup"),
        ])
        parts = pd.DataFrame({"part": ["compute", "pipeline bubble", "tensor-parallel all-reduces",
                                       "pipeline transfers", "data-parallel gradients"],
                              "seconds": [step.compute_s, step.bubble_s, step.tp_comm_s, step.pp_comm_s,
                                          step.dp_comm_s]})
        parts["share"] = [f"{100 * share:.1f}%" if share is not None else "—" for share in map(step.share, parts["seconds"])]
        st.dataframe(parts, hide_index=True)
        for note in step.notes:
            st.caption(note)
        st.caption(f"Links: {plan.link.system}, {plan.link.intra_gb_s:g} GB/s within a node of "
                   f"{plan.link.chips_per_node}, {plan.link.inter_gb_s or '—'} GB/s between nodes. "
                   f"Source: {plan.link.source}")
        with st.expander(f"Best layouts of {layout.chips:,} chips"):
            rows = sweep_layouts(model, layout.chips, layout.global_batch, options, settings,
                                 sequence_parallel=seq_parallel)
            if rows:
                table = pd.DataFrame([r.as_dict() for r in rows[:12]])
                table["mfu"] = table["mfu"].map(lambda x: f"{100 * x:.1f}%" if x is not None and x == x else "—")
                st.dataframe(table, hide_index=True)
            st.caption(f"{len(rows):,} layouts: t dividing the heads within a node, p dividing the blocks, "
                       "b dividing B/d, v ∈ {1, 2, 4}; the ones that fit first, by predicted MFU.")

# ------------------------------------------------------------------ compute-optimal size
st.subheader("Compute-optimal size")
c1, c2 = st.columns([1, 2])
budget = c1.number_input("FLOP budget C", min_value=0.0, value=float(training_flop or 5.76e23), format="%.4e",
                         key="plan_budget", help="Defaults to the training compute of the layer builder.")
fit_key = c2.selectbox("Loss fit for the chart and the inference-aware size", list(FITS), key="plan_fit",
                       index=list(FITS).index("besiroglu-2024"), format_func=RULE_LABELS.get)
try:
    optima = [compute_optimal(budget, rule) for rule in RULES]
except InputError as exc:
    show_error(exc)
    optima = []
if optima:
    st.dataframe(pd.DataFrame([{"rule": RULE_LABELS[o.rule], "parameters": f"{o.params:.3g}",
                                "tokens": f"{o.tokens:.3g}", "tokens per parameter": f"{o.tokens / o.params:.3g}",
                                "loss": f"{o.loss:.3f}" if o.loss is not None else "—"} for o in optima]),
                 hide_index=True)
    fit = FITS[fit_key]
    chart = go.Figure()
    for line in iso_flop_lines(fit, budget):
        chart.add_trace(go.Scatter(x=line["params"], y=line["loss"], mode="lines",
                                   name=f"C = {format_flop(line['flop'])}"))
        chart.add_trace(go.Scatter(x=[line["optimal_params"]], y=[line["optimal_loss"]], mode="markers",
                                   marker=dict(color="black", size=7), showlegend=False,
                                   hovertemplate="optimum: N = %{x:.3g}<extra></extra>"))
    if model is not None and tokens and model.params > 0:  # no parameters: no point on a log axis
        chart.add_trace(go.Scatter(x=[model.params], y=[fit.loss(model.params, tokens)], mode="markers",
                                   name="your model", marker=dict(symbol="star", size=16, color="#cf222e",
                                                                  line=dict(width=1, color="black"))))
    chart.update_layout(height=380, xaxis_type="log", xaxis_title="parameters N", yaxis_title="predicted loss",
                        margin=dict(l=10, r=10, t=30, b=10))
    st.plotly_chart(chart, width="stretch")
    st.caption(f"L(N, D) = E + A/N^α + B/D^β along C = 6·N·D; {fit.source}. The fits are for dense language "
               "models trained on text; for other models read the chart as an illustration.")
    with st.expander("Inference-aware size (Sardana et al. 2023)"):
        served = st.number_input("Tokens expected to be served", min_value=0.0, value=1e13, format="%.3e",
                                 key="plan_served")
        try:
            ia = inference_aware(budget, served, fit)
        except InputError as exc:
            show_error(exc)
        else:
            metric_row([("Parameters", f"{ia.params:.3g}", f"compute-optimal: {ia.chinchilla_params:.3g}"),
                        ("Training tokens", f"{ia.tokens:.3g}", f"compute-optimal: {ia.chinchilla_tokens:.3g}"),
                        ("Training + inference", format_flop(ia.total_flop),
                         f"compute-optimal model: {format_flop(ia.chinchilla_total_flop)}")])
            st.caption("The model reaching the compute-optimal model's loss at the least 6·N·D + 2·N·D_inf "
                       "(https://arxiv.org/abs/2401.00448).")

# ------------------------------------------------------------------ lifetime compute
st.subheader("Lifetime compute")
c1, c2 = st.columns(2)
life_served = c1.number_input("Tokens served over the model's life", min_value=0.0, value=1e12, format="%.3e",
                              key="plan_life_served")
context = c2.number_input("Average context when serving (tokens)", min_value=0.0, value=2048.0, key="plan_context")
if training_flop and model is not None:
    try:
        life = lifetime_compute(training_flop, life_served, model.active_params, model.blocks, context,
                                model.attention_width)
    except InputError as exc:
        show_error(exc)
    else:
        metric_row([("Training", format_flop(life.training_flop), None),
                    ("Inference", format_flop(life.inference_flop),
                     f"{format_flop(life.inference_flop_per_token)} per token: 2·N_active + 2·layers·context·d_attn"),
                    ("Lifetime total", format_flop(life.total_flop), f"inference {100 * life.inference_share:.1f}%")])
        st.caption(f"Serving costs as much as training after {life.break_even_tokens:.3g} tokens.")
else:
    st.caption("Needs a model with layers and a training setup.")

# ------------------------------------------------------------------ thresholds
st.subheader("Regulatory thresholds")
if training_flop:
    for standing in compare(training_flop):
        t = standing.threshold
        (st.warning if standing.above else st.write)(
            f"{standing.sentence(f'This run ({format_flop(training_flop)})')} {t.meaning} Source: {t.source} ({t.date}), {t.url}")
    st.caption(f"Modifying a model: above {format_flop(modification_threshold(training_flop))} (one third of this "
               f"run) the modifier becomes a provider. {MODIFICATION_SOURCE}")
    modification_check(training_flop, bool(m1.architecture is not None and m1.architecture.frozen))
else:
    st.caption("Needs the training compute of the layer builder.")

# ------------------------------------------------------------------ published runs
with st.expander("How good is the step-time model? Published runs"):
    st.dataframe(_published(), hide_index=True)
    st.caption("MFU counts the model's FLOP only; HFU adds recomputation (Megatron-LM's \"% of peak\"). The "
               f"kernel efficiency ({DEFAULT_KERNEL_EFFICIENCY}) is the model's one free assumption.")

state.sync_link()
