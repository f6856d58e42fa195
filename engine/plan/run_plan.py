"""One plan: a model on a chip in a layout → memory per chip, step time, MFU, wall-clock and thresholds;
and a sweep over layouts for a number of chips."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError, parse_input
from ..method2.hardware_db import Chip, load_hardware_db
from ..method2.precision import select_format_peak
from .frameworks import framework
from .interconnects import Interconnect, interconnect_for
from .kernel.block import ExpertSettings
from .kernel.calibration import KernelCalibration
from .kernel.chip import FORMAT_BYTES, kernel_chips
from .kernel.step import KernelStep, kernel_step_for
from .layout import (
    MAX_CHIPS,
    CapacityFactor,
    Dispatcher,
    Layout,
    MemoryOptions,
    PlanInputs,
)
from .memory import GB, Memory, divisors, memory_per_chip
from .model import PlanModel
from .step_time import (
    DEFAULT_KERNEL_EFFICIENCY,
    KERNEL_MODEL,
    StepTime,
    bubble_share,
    link_notes,
    step_flop,
    step_time,
)
from .thresholds import compare
from .uncertainty import LONG_CONTEXT as LONG_CONTEXT_ERROR
from .uncertainty import Interval, Regime, interval
from ..results import Result, to_json

MAX_TOKENS = 1e18


class PlanSettings(BaseModel):
    """Everything but the model and the layout: the chip, what runs on it, and the data."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip: str = Field("nvidia-h100-sxm", min_length=1, max_length=120)
    kernel_efficiency: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = DEFAULT_KERNEL_EFFICIENCY
    tokens: Annotated[float, Field(gt=0, le=MAX_TOKENS, allow_inf_nan=False)] | None = Field(
        None, description="Training tokens, for the wall-clock time and the total FLOP.")
    interconnect: Interconnect | None = Field(None, description="Bandwidths, when the chip has none on file "
                                                                "or to override them.")
    capacity_factor: CapacityFactor = 1.0
    dispatcher: Dispatcher = "alltoall"
    overlap_a2a: bool = False
    step_model: Literal["kernel", "constant"] = Field(
        "kernel", description="kernel: the kernel model where it applies (else the constant-efficiency model); "
                              "constant: the constant-efficiency model at kernel_efficiency")
    calibration: KernelCalibration | None = Field(
        None, description="The kernel model's efficiencies (a measured trace's, say); default: the framework's, fitted "
                          "on its published runs.")

    @property
    def experts(self) -> ExpertSettings:
        """How a mixture of experts runs: capacity factor, dispatcher, all-to-all overlap."""
        return ExpertSettings(self.capacity_factor, self.dispatcher, self.overlap_a2a)


def settings_for(saved: PlanInputs, tokens: float | None = None) -> PlanSettings:
    """The settings a saved plan (the Plan page's form, a share link's or a file's ``PlanInputs``) runs with, and
    the training tokens: the fields the two models share, through the one validation path."""
    shared = saved.model_dump(include=set(PlanSettings.model_fields) & set(PlanInputs.model_fields))
    return parse_input(PlanSettings, {**shared, "tokens": tokens})


def peak_for(chip: Chip, precision: str) -> float:
    """The chip's dense peak for the run's format (tensor cores), or an ``InputError`` naming what it has."""
    return select_format_peak(chip.peaks, precision, True, chip_label=chip.name).peak_flop_per_s


@dataclass(frozen=True, slots=True)
class Plan(Result):
    """One plan: memory per chip always, the step time when the layout has a global batch. Its JSON view is
    flat: the memory's and the step's figures at the top, the layout and options by value."""

    chip: Chip
    link: Interconnect
    layout: Layout
    options: MemoryOptions
    memory: Memory
    step: StepTime | None
    tokens: float | None
    kernel: KernelStep | None = None
    """The kernel model's step (``engine.plan.kernel``) where it applies."""
    interval: Interval | None = None
    """The step's 90% range from the model's error on published runs of its regime (``engine.plan.uncertainty``)."""

    @property
    def training_flop(self) -> float | None:
        """Model FLOP of the whole run: per-token model FLOP × tokens."""
        if self.step is None or self.tokens is None:
            return None
        return self.step.model_flop_per_step / self.step.tokens_per_step * self.tokens

    def as_dict(self) -> dict:
        out = {"chip": self.chip.id, "chips": self.layout.chips, "layout": to_json(self.layout),
               "options": to_json(self.options), "interconnect": to_json(self.link)}
        out.update(self.memory.as_dict())
        if self.step is not None:
            out["step"] = self.step.as_dict(self.tokens)
            out.update(step_s=self.step.step_s, mfu=self.step.mfu, hfu=self.step.hfu, step_model=self.step.model)
        if self.kernel is not None:
            k = self.kernel
            out["kernel_model"] = {"step_s": k.step_s, "mfu": k.mfu, "gemm_s": k.gemm_s,
                                   "memory_bound_s": k.memory_bound_s, "tp_comm_s": k.tp_comm_s,
                                   "bubble_s": k.bubble_s, "pp_comm_s": k.pp_comm_s, "dp_comm_s": k.dp_comm_s,
                                   "optimizer_s": k.optimizer_s, "ep_comm_s": k.ep_comm_s,
                                   "cp_comm_s": k.cp_comm_s, "overhead_s": k.overhead_s}
            if self.tokens is not None and self.step is not None:
                out["kernel_model"]["wall_clock_days"] = (self.tokens / self.step.tokens_per_step * k.step_s
                                                          / 86_400)
        if self.step is not None and self.tokens is not None:
            out.update(wall_clock_days=self.step.wall_clock_s(self.tokens) / 86_400,
                       training_flop=self.training_flop,
                       thresholds=[{"key": s.threshold.key, "ratio": s.ratio, "above": s.above,
                                    "sentence": s.sentence(), "source": s.threshold.source}
                                   for s in compare(self.training_flop)])
        if self.interval is not None and self.step is not None:
            iv, step_s = self.interval, self.step.step_s
            out["interval"] = {"level": iv.level, "step_s": [iv.low_s, iv.high_s], "runs": iv.runs,
                               "basis": iv.basis,
                               "mfu": list(iv.inverse(self.step.mfu, step_s)) if self.step.mfu is not None else None}
            if self.tokens is not None:
                out["interval"]["wall_clock_days"] = list(iv.scaled(out["wall_clock_days"], step_s))
        return out


def kernel_note(model: PlanModel | None = None, settings: PlanSettings | None = None,
                precision: str = "bf16") -> str:
    """What the kernel model counted for this plan, and how far its published checks found it: the casts into
    a format below 16 bits (``precision``), a mixture of experts' dispatch, overlap and routing (``settings``),
    a long context."""
    settings = settings or PlanSettings()
    capacity_factor, dispatcher, overlap_a2a = settings.capacity_factor, settings.dispatcher, settings.overlap_a2a
    note = ("Step time from the kernel model: each matrix product by its shape, memory-bound operations, the "
            "collectives, the pipeline schedule and the optimizer step, as the plan's framework runs them (checked "
            "against published runs of Megatron-LM, NeMo, torchtitan, llm-foundry and DeepSpeed)")
    if precision in FORMAT_BYTES:
        note += (f"; {precision.upper()}: the linear layers run in the format, their inputs and gradients cast into "
                 "it as memory traffic (Transformer Engine's cast-transpose, delayed scaling)")
    if model is not None and model.experts > 1:
        routing = ("routing balanced" if capacity_factor == 1 else
                   f"the busiest rank routed {capacity_factor:g}× the mean tokens")
        dispatch = ("DeepEP/HybridEP dispatch and combine (a token crosses to each node once)" if dispatcher == "flex"
                    else "the dispatch and combine all-to-all")
        hidden = ("hidden behind another micro-batch's compute where shorter (Megatron's moe_a2a_overlap; "
                  "measured on Qwen3 30B-A3B it hid about a third)" if overlap_a2a else "not overlapped")
        note += (f"; experts: each local expert's matrix products by their shape, {dispatch} {hidden}, "
                 f"{routing} — on NVIDIA's published H100 runs (Megatron Bridge, 2025–26 "
                 "releases) this model is 26–37% fast for GPT-OSS 120B, 36–64% fast for Qwen3 30B-A3B "
                 "(by layout and release) and within 8% for Qwen3 235B-A22B: budget small-expert models with margin")
    if model is not None and model.seq_len >= LONG_CONTEXT:
        note += ("; long context: on NVIDIA's published Llama 2 7B runs on H100 (fused attention, context "
                 "parallelism) it underestimates the step by 15% at 16K positions to 30% at 1M — expect a longer step")
    return note


LONG_CONTEXT = 16384
"""Sequence length from which a kernel-model plan's note quotes the long-context check (docs/plan.md)."""


def constant_note(kernel_efficiency: float) -> str:
    """What the constant-efficiency model assumed, and where the kernel model would apply instead."""
    chips = [load_hardware_db().chip(c) for c in kernel_chips()]
    names = ", ".join(dict.fromkeys((c.aliases or [c.name])[0] for c in chips))
    return (f"Step time from the constant-efficiency model (kernels at {kernel_efficiency:g} of peak): the kernel "
            "model covers stacks of identical transformer blocks (dense or mixture of experts, no latent attention) in "
            f"16-bit, FP8, FP6 or FP4 formats on the chips with kernel figures ({names}); ZeRO 2–3 for dense blocks")


def plan_step(model: PlanModel, layout: Layout, options: MemoryOptions, chip: Chip, link: Interconnect,
              settings: PlanSettings) -> tuple[StepTime, KernelStep | None]:
    """The step from ONE model: the kernel model where it applies and is asked for (``kernel_step_for``, with the
    settings' experts and calibration), else the constant-efficiency model at the settings' kernel efficiency.
    Either carries a note naming the model that produced it."""
    layout.check_model(model)
    peak = peak_for(chip, options.precision)
    kernel = (kernel_step_for(model, layout, options, chip.id, link, settings.experts, settings.calibration)
              if settings.step_model == "kernel" else None)
    if kernel is None:
        step = step_time(model, layout, options, peak, link, settings.kernel_efficiency)
        return replace(step, notes=step.notes + (constant_note(settings.kernel_efficiency),)), None
    model_flop, hardware_flop = step_flop(model, layout, options)
    notes = link_notes(link, layout) + (kernel_note(model, settings, options.precision),)
    return StepTime(compute_s=kernel.gemm_s + kernel.memory_bound_s + kernel.optimizer_s, bubble_s=kernel.bubble_s,
                    tp_comm_s=kernel.tp_comm_s, pp_comm_s=kernel.pp_comm_s, dp_comm_s=kernel.dp_comm_s,
                    model_flop_per_step=model_flop, hardware_flop_per_step=hardware_flop, chips=layout.chips,
                    peak_flop_per_s=peak, tokens_per_step=float(layout.global_batch * model.tokens_per_example),
                    notes=notes, model=KERNEL_MODEL, ep_comm_s=kernel.ep_comm_s, cp_comm_s=kernel.cp_comm_s,
                    overhead_s=kernel.overhead_s, bubble_fraction=bubble_share(layout)), kernel


def resolve_chip(settings: PlanSettings) -> tuple[Chip, Interconnect]:
    chip = load_hardware_db().chip(settings.chip)
    if chip.memory_gb is None:
        raise InputError("chip", f"{chip.name} has no memory size on file")
    return chip, settings.interconnect or interconnect_for(chip.id)


def step_interval(model: PlanModel, options: MemoryOptions, chip: Chip, step: StepTime,
                  settings: PlanSettings) -> Interval | None:
    """The step's 90% range: the calibration's own where it carries one (a measured trace's), else the published
    runs' of the plan's regime (``engine.plan.uncertainty``)."""
    cal = settings.calibration
    if cal is not None and cal.error_range is not None and step.model == KERNEL_MODEL:
        low, high = cal.error_range
        return Interval(step.step_s * (1 + low), step.step_s * (1 + high), 0, cal.source)
    regime = Regime(step.model, options.convention, chip.kernel.architecture if chip.kernel else "none",
                    model.experts > 1, model.seq_len >= LONG_CONTEXT_ERROR)
    return interval(regime, step.step_s)


def plan_run(model: PlanModel, layout: Layout, options: MemoryOptions, settings: PlanSettings) -> Plan:
    """Memory per chip always; the step time, with its 90% range, when the layout has a global batch."""
    chip, link = resolve_chip(settings)
    memory = memory_per_chip(model, layout, options, chip.memory_gb * GB)
    step = kernel = span = None
    if layout.global_batch is not None:
        step, kernel = plan_step(model, layout, options, chip, link, settings)
        span = step_interval(model, options, chip, step, settings)
    return Plan(chip, link, layout, options, memory, step, settings.tokens, kernel, span)


@dataclass(frozen=True, slots=True)
class SweepRow(Result):
    """One layout of a sweep, with its memory and step time; its JSON view is one flat row."""

    layout: Layout
    memory: Memory
    step: StepTime

    def as_dict(self) -> dict:
        lay = self.layout
        return {"dp": lay.dp, "tp": lay.tp, "pp": lay.pp, "micro_batch": lay.micro_batch,
                "virtual_stages": lay.virtual_stages, "fits": self.memory.fits,
                "memory_gb": self.memory.total / GB, "step_s": self.step.step_s, "mfu": self.step.mfu,
                "step_model": self.step.model}


def no_layout_reason(chips: int, global_batch: int) -> str:
    """Why a sweep found no layout of ``chips`` chips (``sweep_layouts`` returned none)."""
    return (f"no layout of {chips:,} chips splits a global batch of {global_batch:,} sequences: the data-parallel "
            "ranks d = chips ÷ (t·p), each with whole micro-batches, must divide it (t within a node dividing the "
            "heads, p dividing the blocks) — give more sequences or fewer chips")


def sweep_layouts(model: PlanModel, chips: int, global_batch: int, options: MemoryOptions,
                  settings: PlanSettings, micro_batches: tuple[int, ...] = (1, 2, 4, 8, 16),
                  virtual_stages: tuple[int, ...] = (1, 2, 4), max_tp: int | None = None,
                  sequence_parallel: bool = False) -> list[SweepRow]:
    """Every layout of ``chips`` chips (t dividing the heads and the key/value heads or a multiple of them, within
    a node unless ``max_tp``; p dividing the blocks where the framework has a pipeline; d = chips/(t·p); b dividing
    B/d; v interleaving), with its memory and step time; the ones that fit first, by MFU."""
    if isinstance(chips, bool) or not isinstance(chips, int) or not 1 <= chips <= MAX_CHIPS:
        raise InputError("chips", f"must be a whole number from 1 to {MAX_CHIPS:,}")
    chip, link = resolve_chip(settings)
    peak_for(chip, options.precision)  # one line naming the format the chip lacks, before the layouts
    capacity = chip.memory_gb * GB
    max_tp = max_tp or link.chips_per_node
    kv = model.kv_heads or model.heads
    tps = [t for t in divisors(model.heads) if t <= max_tp and (kv % t == 0 or t % kv == 0)] if model.heads else [1]
    units = model.pipeline_units or 1
    fw = framework(options.convention)
    stages = divisors(units) if fw.pipelines(options.zero) else [1]
    rows: list[SweepRow] = []
    for t in tps:
        for p in stages:
            if chips % (t * p):
                continue
            d = chips // (t * p)
            for b in micro_batches:
                if global_batch % (d * b):
                    continue
                for v in virtual_stages:
                    if (v > 1 and (p == 1 or not fw.interleaves)) or units % (p * v):
                        continue
                    layout = Layout(dp=d, tp=t, pp=p, micro_batch=b, global_batch=global_batch,
                                    virtual_stages=v, sequence_parallel=sequence_parallel and t > 1)
                    memory = memory_per_chip(model, layout, options, capacity)
                    step, _ = plan_step(model, layout, options, chip, link, settings)
                    rows.append(SweepRow(layout, memory, step))
    rows.sort(key=lambda r: (not r.memory.fits, -r.step.mfu if r.step.mfu is not None and math.isfinite(r.step.mfu)
                              else 0))
    return rows
