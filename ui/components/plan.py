"""The Plan page's parts: the layout form with memory and step time, the compute-optimal size, lifetime
compute, the thresholds and the published-run check. Figures come as text from ``ui.views.plan``."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import InputError, parse_input
from engine.method1.training import TrainingSetup
from engine.method2.costs import costs_for_chip_hours
from engine.optimizers import OPTIMIZERS
from engine.plan.first_layout import first_plan
from engine.plan.frameworks import CONVENTIONS
from engine.plan.interconnects import interconnects
from engine.plan.layout import (
    ATTENTION,
    DEFAULT_KERNEL_EFFICIENCY,
    DISPATCHERS,
    PIPELINE_SPLITS,
    PRECISIONS,
    PlanInputs,
)
from engine.plan.lifetime import lifetime_compute
from engine.plan.memory import GB, fewest_chips
from engine.plan.optimal import (
    FITS,
    RULES,
    compute_optimal,
    inference_aware,
    iso_flop_lines,
)
from engine.plan.run_plan import no_layout_reason, plan_run, settings_for, sweep_layouts
from engine.units import format_count, format_flop, plural
from ui import state
from ui.boundary import shipped_part
from ui.charts import MARGIN, figure
from ui.components.energy_place import energy_place_inputs
from ui.components.fine_tune import modification_check
from ui.fragments import page_part
from ui.text import plain
from ui.views import plan as view
from ui.views.step_models import (
    framework_rows,
    kernel_basis,
    long_context_rows,
    published_rows,
    runs_of,
)
from ui.widgets import metric_row, show_error


def _details(lay, opt, experts: bool) -> tuple[dict, dict]:
    """The framework's details (attention, compilation, overlap, pipeline split, end stages, experts' tensor
    parallelism) in an expander: (layout fields, option fields)."""
    with st.expander("Framework details: attention, compilation, overlap, pipeline split"):
        c1, c2, c3 = st.columns(3)
        attention = c1.selectbox("Attention", list(ATTENTION), format_func=ATTENTION.get,
                                 key=state.bind("plan_attention", opt.attention),
                                 help="Fused (FlashAttention, cuDNN, SDPA) keeps no s × s scores and runs at the "
                                      "kernel's published rate; storing the scores is Megatron-LM 2021–22's way.")
        compiled = c2.checkbox("torch.compile", key=state.bind("plan_compiled", opt.compiled),
                               help="PyTorch frameworks: the element-wise work fused per block (else eager kernels)")
        tp_overlap = c3.checkbox("Overlap tensor-parallel collectives", key=state.bind("plan_tp_overlap",
                                                                                      opt.tp_overlap),
                                 help="AsyncTP (torchtitan), tp_comm_overlap (NeMo)")
        c1, c2, c3 = st.columns(3)
        split = c1.selectbox("Pipeline split", list(PIPELINE_SPLITS), format_func=PIPELINE_SPLITS.get,
                             key=state.bind("plan_split", lay.pipeline_split))
        ends = c2.checkbox("Set the end stages' blocks (Megatron)", key=state.bind(
            "plan_ends", lay.first_stage_blocks is not None or lay.last_stage_blocks is not None),
            help="--decoder-first/last-pipeline-num-layers: 0 puts the embedding, or the head, on a stage of "
                 "its own")
        first = last = None
        if ends:
            first = c2.number_input("Blocks on the first stage", 0, 10**6,
                                    key=state.bind("plan_first", lay.first_stage_blocks or 0))
            last = c3.number_input("Blocks on the last stage", 0, 10**6,
                                   key=state.bind("plan_last", lay.last_stage_blocks or 0))
        expert_tp = None
        if experts:
            expert_tp = c3.number_input("Expert tensor parallel", 1, 10**9,
                                        key=state.bind("plan_expert_tp", lay.expert_tp or lay.tp))
    layout = {"pipeline_split": split, "first_stage_blocks": None if first is None else int(first),
              "last_stage_blocks": None if last is None else int(last),
              "expert_tp": None if expert_tp is None else int(expert_tp)}
    return layout, {"attention": attention, "compiled": bool(compiled), "tp_overlap": bool(tp_overlap)}


def _layout_form(saved: PlanInputs, db, training, experts: bool = False) -> tuple[dict, int]:
    """The chip, framework, memory options and parallel layout as entered (16 inputs, the framework's details
    folded); the global batch is the training setup's; with ``experts`` (a mixture of experts) the routing's."""
    lay, opt = saved.layout, saved.options
    linked = [i for i in interconnects() if db.find(i) is not None]
    batch_from_training = training is not None and training.batches_per_epoch is not None
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        chip = c1.selectbox("Chip", linked, key=state.bind("plan_chip", saved.chip if saved.chip in linked
                                                            else "nvidia-h100-sxm"), format_func=lambda i: db.chip(i).name)
        convention = c2.selectbox("Framework", list(CONVENTIONS), format_func=CONVENTIONS.get,
                                  key=state.bind("plan_convention", opt.convention))
        precision = c3.selectbox("Number format", list(PRECISIONS), key=state.bind("plan_precision", opt.precision))
        zero = c4.selectbox("ZeRO stage (3 = FSDP)", [0, 1, 2, 3], key=state.bind("plan_zero", opt.zero))
        c1, c2, c3, c4 = st.columns(4)
        recompute = c1.selectbox("Activation recomputation", list(view.RECOMPUTE), format_func=view.RECOMPUTE.get,
                                 key=state.bind("plan_recompute", opt.recompute))
        optimizer = c2.selectbox("Optimizer", list(OPTIMIZERS), key=state.bind("plan_optimizer", opt.optimizer),
                                 format_func=view.optimizer_label)
        seq_parallel = c3.checkbox("Sequence parallelism", key=state.bind("plan_sp", lay.sequence_parallel),
                                   help="Korthikanti et al. 2022")
        efficiency = c4.number_input("Kernel efficiency", 0.05, 1.0, step=0.05,
                                     key=state.bind("plan_efficiency", float(saved.kernel_efficiency)),
                                     help="Share of peak the kernels reach outside communication and the pipeline "
                                          "bubble, for models the kernel model does not cover (an assumption; "
                                          "see the published-run check below).")
        c1, c2, c3, c4 = st.columns(4)
        dp = c1.number_input("Data parallel d", 1, 10**9, key=state.bind("plan_dp", lay.dp))
        tp = c2.number_input("Tensor parallel t", 1, 10**9, key=state.bind("plan_tp", lay.tp))
        pp = c3.number_input("Pipeline stages p", 1, 10**9, key=state.bind("plan_pp", lay.pp))
        ep = c4.number_input("Expert parallel e", 1, 10**9, key=state.bind("plan_ep", lay.ep))
        c1, c2, c3, c4 = st.columns(4)
        micro = c1.number_input("Micro-batch b", 1, 10**9, key=state.bind("plan_micro", lay.micro_batch))
        batch = c2.number_input("Global batch B (examples per step)", 1, 10**9,
                                key=state.bind("plan_batch", view.global_batch(training, lay)),
                                disabled=batch_from_training,
                                help="The training setup's batch size (one batch size per run)"
                                     + ("; set on the layer builder with the batches per epoch"
                                        if batch_from_training else ""))
        virtual = c3.number_input("Interleaved stages v", 1, 1000, key=state.bind("plan_virtual", lay.virtual_stages))
        cp = c4.number_input("Context parallel c", 1, 10**9, key=state.bind("plan_cp", lay.cp),
                             help="Ranks that each hold 1/c of every sequence (long contexts); chips = d × t × p × c")
        capacity, dispatcher, overlap_a2a = saved.capacity_factor, saved.dispatcher, saved.overlap_a2a
        if experts:
            c1, c2, c3 = st.columns(4)[:3]
            overlap_a2a = c3.checkbox(
                "Overlap the all-to-all", key=state.bind("plan_overlap_a2a", overlap_a2a),
                help="Hide the dispatch and combine behind another micro-batch's compute (Megatron's "
                     "moe_a2a_overlap), where that compute is longer. Measured on Qwen3 30B-A3B on 16 H100s it hid "
                     "about a third of the communication, so this is the best case.")
            dispatcher = c2.selectbox(
                "Token dispatcher", list(DISPATCHERS), format_func=DISPATCHERS.get,
                key=state.bind("plan_dispatcher", dispatcher),
                help="How tokens reach their experts on other nodes: NCCL's all-to-all sends one copy per remote "
                     "expert; DeepEP or HybridEP (Megatron-Core's flex dispatcher) sends a token to each node "
                     "once and fans it out there over NVLink.")
            capacity = c1.number_input(
                "Expert capacity factor", 1.0, 64.0, step=0.05, key=state.bind("plan_capacity", capacity),
                help="The busiest expert-parallel rank's routed tokens ÷ the mean: 1 = balanced routing (benchmark "
                     "runs force it); Switch Transformers trained at 1.0–2.0. Its expert work and all-to-all "
                     "take that many times the mean.")
        details_layout, details_options = _details(lay, opt, experts)
    data = {"chip": chip, "kernel_efficiency": efficiency,
            "layout": {"dp": int(dp), "tp": int(tp), "pp": int(pp), "ep": int(ep), "cp": int(cp), "micro_batch": int(micro),
                       "global_batch": int(batch), "virtual_stages": int(virtual), "sequence_parallel": seq_parallel,
                       **details_layout},
            "options": {"optimizer": optimizer, "precision": precision, "zero": zero, "recompute": recompute,
                        "convention": convention, **details_options},
            "capacity_factor": float(capacity), "dispatcher": dispatcher, "overlap_a2a": bool(overlap_a2a)}
    return data, int(batch)


def choose_chip(chip_id: str) -> None:
    """The layout form's chip, set before the form is drawn again (a callback of another part of the page)."""
    st.session_state["plan_chip"] = chip_id


def shown_plan(scenario, model, db) -> tuple[PlanInputs, str | None]:
    """What a visit shows: the scenario's plan, else the first layout offered for the model (with why)."""
    if scenario.plan is not None:
        return scenario.plan, None
    training = scenario.training
    chip = db.chip(PlanInputs().chip)
    offered = first_plan(model, chip.id, chip.memory_gb,
                         training_batch=training.batch_size if training is not None else None)
    if offered.inputs is None:
        first = PlanInputs()
        return first.model_copy(update={"layout": first.layout.model_copy(
            update={"global_batch": view.global_batch(training, first.layout)})}), offered.reason
    return offered.inputs, offered.reason


def _save(scenario, inputs: PlanInputs, batch: int, visit: PlanInputs) -> None:
    """The plan (and the run's one batch size) into the scenario; a visit alone leaves it as it was."""
    training = scenario.training
    update = {"plan": inputs} if inputs != visit else {}
    if training is not None and training.batches_per_epoch is None and training.batch_size != batch:
        update["training"] = parse_input(TrainingSetup, {**training.model_dump(), "batch_size": batch},
                                         source="training")
    if update:
        state.set_edited(scenario.model_copy(update=update))


def _bill(plan, tokens: float | None, db) -> dict | None:
    """Chip-hours, cost, energy and CO₂ of the plan's wall-clock, by the place chosen; returns the place's fields
    (for the hardware page), or None without a wall-clock."""
    st.markdown("**Chip-hours, cost, energy and CO₂**")
    if not tokens or plan.step is None:
        st.caption("Needs a training setup (its tokens) for the wall-clock.")
        return None
    c1, c2 = st.columns(2)
    energy = energy_place_inputs(state.hardware_run(), db.defaults, c1, c2, prefix="plan")
    days = plan.step.wall_clock_s(tokens) / 86_400
    try:
        costs = costs_for_chip_hours(plan.layout.chips * days * 24, plan.chip, energy, db)
    except InputError as exc:
        show_error(exc)
        return None
    metric_row(view.bill_metrics(costs, days, plan.interval, plan.step.step_s))
    st.caption(plain(view.bill_caption(costs)))
    return energy


def memory_and_time(scenario, model, db, tokens: float | None) -> None:
    """The layout form, then memory per chip, step time and MFU with their 90% ranges, the bill, where the step
    goes, the best layouts — the results first on a phone (``ui/style.py``)."""
    st.subheader("Memory per chip and step time")
    with shipped_part("Memory and step time"):  # interconnects.json
        _memory_and_time(scenario, model, db, tokens)


def _memory_and_time(scenario, model, db, tokens: float | None) -> None:
    st.caption(view.model_caption(plain(scenario.name), model))
    saved, reason = shown_plan(scenario, model, db)
    io = st.container(key="plan_io")
    with io.container(key="plan_inputs"):
        data, batch = _layout_form(saved, db, scenario.training, experts=model.experts > 1)
    results = io.container(key="plan_results")
    with results:
        if reason:
            st.info(plain(reason))
        try:
            inputs = parse_input(PlanInputs, data)
        except InputError as exc:  # a layout the scenario cannot hold: the link keeps the last one that was valid
            show_error(exc, "fix the layout to see memory and time; until then the share link keeps the last "
                            "valid layout, not this one.")
            return
        # the layout as entered goes into the link, even one this model cannot run
        _save(scenario, inputs, batch, saved)
        try:
            settings = settings_for(inputs, tokens)
            plan = plan_run(model, inputs.layout, inputs.options, settings)
        except InputError as exc:
            show_error(exc, "fix the layout to see memory and time (the share link keeps this layout).")
            return
        layout, options = inputs.layout, inputs.options
        mem, step, chip = plan.memory, plan.step, plan.chip
        best = fewest_chips(model, options, chip.memory_gb * GB, layout.micro_batch,
                            sequence_parallel=layout.sequence_parallel)
        metric_row(view.memory_metrics(mem, chip, best, layout))
        (st.success if mem.fits else st.error)(view.fit_sentence(mem, layout, chip))
        metric_row(view.step_metrics(step, tokens, plan.interval))
        if plan.interval is not None:
            st.caption(plain(view.range_caption(plan.interval)))
        if plan.kernel is not None:
            st.caption(kernel_basis())
        energy = _bill(plan, tokens, db)
        if energy is not None and step.mfu and st.button(
                "Use this layout on the hardware page", key="plan_carry",
                help="Chips, count, days, format, the predicted MFU as utilization and the place, carried to the "
                     "Hardware & time page"):
            days = step.wall_clock_s(tokens) / 86_400
            state.carry_to_hardware(view.carry_run(plan, tokens, energy), view.carry_sentence(plan, days))
            st.switch_page("pages/hardware.py")
    st.dataframe(pd.DataFrame(view.step_parts(step)), hide_index=True)
    for note in step.notes:
        st.caption(note)
    st.caption(view.link_caption(plan.link))
    with st.expander(f"Best layouts of {plural(layout.chips, 'chip')}"):
        rows = sweep_layouts(model, layout.chips, layout.global_batch, options, settings,
                             sequence_parallel=layout.sequence_parallel)
        if rows:
            st.dataframe(pd.DataFrame(view.sweep_rows(rows)), hide_index=True)
        else:
            reason = no_layout_reason(layout.chips, layout.global_batch)
            st.info(reason[0].upper() + reason[1:] + ".")  # str.capitalize would lower every other letter
        st.caption(f"{len(rows):,} layouts: t dividing the heads within a node, p dividing the blocks, "
                   "b dividing B/d, v ∈ {1, 2, 4}; the ones that fit first, by predicted MFU.")


@page_part
def optimal_size(training_flop: float | None, model, tokens: float | None) -> None:
    st.subheader("Compute-optimal size")
    c1, c2 = st.columns([1, 2])
    budget = c1.number_input("FLOP budget C", min_value=0.0, value=float(training_flop or 5.76e23), format="%.4e",
                             key="plan_optimal_budget", help="Defaults to the training compute of the layer builder.")
    fit_key = c2.selectbox("Loss fit for the chart and the inference-aware size", list(FITS), key="plan_fit",
                           index=list(FITS).index("besiroglu-2024"), format_func=view.RULE_LABELS.get)
    try:
        optima = [compute_optimal(budget, rule) for rule in RULES]
    except InputError as exc:
        show_error(exc)
        return
    st.dataframe(pd.DataFrame(view.optimal_rows(optima)), hide_index=True)
    fit = FITS[fit_key]
    traces = []
    for line in iso_flop_lines(fit, budget):
        traces += [{"x": line["params"], "y": line["loss"], "mode": "lines", "name": f"C = {format_flop(line['flop'])}"},
                   {"x": [line["optimal_params"]], "y": [line["optimal_loss"]], "mode": "markers",
                    "marker": {"color": "black", "size": 7}, "showlegend": False,
                    "hovertemplate": "optimum: N = %{x:.3g}<extra></extra>"}]
    if model is not None and tokens and model.params > 0:  # no parameters: no point on a log axis
        traces.append({"x": [model.params], "y": [fit.loss(model.params, tokens)], "mode": "markers",
                       "name": "your model", "marker": {"symbol": "star", "size": 16, "color": "#cf222e",
                                                        "line": {"width": 1, "color": "black"}}})
    chart = figure(traces, {"height": 380, "xaxis": {"type": "log", "title": "parameters N"},
                            "yaxis": {"title": "predicted loss"}, "margin": MARGIN}, titled_by_page=False)
    st.plotly_chart(chart, width="stretch")
    st.caption(f"L(N, D) = E + A/N^α + B/D^β along C = 6·N·D; {fit.source}. The fits are for dense language "
               "models trained on text; for other models read the chart as an illustration.")
    with st.expander("Inference-aware size (Sardana et al. 2023)"):
        served = st.number_input("Tokens expected to be served", min_value=0.0, value=1e13, format="%.3e",
                                 key="plan_served")
        try:
            metric_row(view.inference_metrics(inference_aware(budget, served, fit)))
        except InputError as exc:
            show_error(exc)
        st.caption("The model reaching the compute-optimal model's loss at the least 6·N·D + 2·N·D_inf "
                   "(https://arxiv.org/abs/2401.00448).")


@page_part
def lifetime(training_flop: float | None, model) -> None:
    st.subheader("Lifetime compute")
    c1, c2 = st.columns(2)
    served = c1.number_input("Tokens served over the model's life", min_value=0.0, value=1e12, format="%.3e",
                             key="plan_life_served")
    context = c2.number_input("Average context when serving (tokens)", min_value=0.0, value=2048.0,
                              key="plan_context")
    if not (training_flop and model is not None):
        st.caption("Needs a model with layers and a training setup.")
        return
    try:
        life = lifetime_compute(training_flop, served, model.active_params, model.blocks, context,
                                model.attention_width)
    except InputError as exc:
        show_error(exc)
        return
    metric_row(view.lifetime_metrics(life))
    st.caption(f"Serving costs as much as training after {format_count(life.break_even_tokens, 'tokens')}.")


def thresholds(training_flop: float | None, frozen: bool = False) -> None:
    """Each threshold against this run; a fine-tune (``frozen``: some layers frozen or adapted) against the
    one-third rule."""
    st.subheader("Regulatory thresholds")
    if not training_flop:
        st.caption("Needs the training compute of the layer builder.")
        return
    for above, line in view.threshold_lines(training_flop):
        (st.warning if above else st.write)(line)
    st.caption(view.modification_line(training_flop))
    modification_check(training_flop, frozen)


@st.cache_data(show_spinner=False)
def _published() -> pd.DataFrame:
    return pd.DataFrame(published_rows())


def published_runs() -> None:
    with st.expander("How good is the step-time model? Published runs"), \
            shipped_part("The comparison with published runs"):  # config_keys.json, interconnects.json
        st.markdown("**By framework** (published runs kept apart from calibration by a rule written before any "
                    "fit: each framework's earliest source calibrates, later ones validate; docs/plan.md)")
        st.dataframe(pd.DataFrame(framework_rows()), hide_index=True)
        frameworks = list(dict.fromkeys(r["framework"] for r in framework_rows() if r["framework"] != "all"))
        chosen = st.selectbox("Runs of", frameworks, key="plan_published_framework")
        st.dataframe(pd.DataFrame(runs_of(chosen)), hide_index=True)
        st.markdown("**Long context, a check** (NVIDIA NeMo's Llama 2 7B runs on H100, 4K to 1M positions; step "
                    "from NeMo's FLOP formula): the model underestimates the step by 15–30%")
        st.dataframe(pd.DataFrame(long_context_rows()), hide_index=True)
        st.markdown("**The constant-efficiency model** (models the kernel model does not cover) against published "
                    "utilizations")
        st.dataframe(_published(), hide_index=True)
        st.caption("MFU counts the model's FLOP only; HFU adds recomputation (Megatron-LM's \"% of peak\"). The "
                   f"kernel efficiency ({DEFAULT_KERNEL_EFFICIENCY}) is that model's one free assumption.")
