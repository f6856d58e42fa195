"""Published measured training runs (``published_runs.json``) compared with what the planner gives for them.

Each run is data: its model (a config in the file's ``models``), chip, layout, options and settings, the figure
its source published, the source, and which of its fields are assumptions (``assumed``: not printed by the
source). The comparison goes through the planner's public functions (``plan_model`` of the config, ``plan_run``
with the run's layout, options and ``PlanSettings`` — what ``engine.api.plan_layout`` does for a user's config),
as a user's plan would: this module sits beside the planner, which never imports it.

Published figures (``published.metric``), turned into a step time where they are throughputs:
- ``step_s``: measured seconds per step (iteration);
- ``tokens_per_s_per_gpu``: step = B·s / (tokens per second per GPU × GPUs);
- ``megatron_share_of_peak``: Megatron-LM's "% of peak" (Narayanan et al. 2021, Table 1), counted
  96·B·s·l·h²·(1 + s/6h + V/16lh) per iteration with full recomputation: step = that / (GPUs × peak × share);
- ``nemo_llama2_model_tflops_per_gpu``: NeMo's model TFLOP/s per GPU through its Llama 2 FLOP formula
  L·h²·(12 + 12·G/H + 18·F/h + 12·s/h + 6·V/(L·h)) per token (nemo/utils/flops_formulas.py): step = B·s·F_token
  / (TFLOP/s × GPUs);
- ``mfu_step``: a published MFU turned into a step: 3 × forward FLOP × B ÷ (MFU × the dense peak × GPUs), the model
  FLOP as FLOPscope counts them (an assumption the run lists);
- ``mfu``, ``hfu``: a utilization, compared as a utilization (the constant-efficiency model's check).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError, parse_input
from ..llm.config import read_hf_config
from ..method2.hardware_db import load_hardware_db
from .layout import Layout, MemoryOptions
from .model import PlanModel, plan_model
from .run_plan import Plan, PlanSettings, plan_run
from .uncertainty import (
    LONG_CONTEXT,
    Interval,
    Regime,
    interval,
    model_errors,
)
from ..results import Result
from ..shipped import read_shipped_json, shipped_data_error

PATH = Path(__file__).with_name("published_runs.json")
Metric = Literal["step_s", "tokens_per_s_per_gpu", "megatron_share_of_peak", "nemo_llama2_model_tflops_per_gpu",
                 "mfu_step", "mfu", "hfu"]
UTILIZATION_METRICS = frozenset({"mfu", "hfu"})
Role = Literal["calibration", "validation", "check"]
Text = Annotated[str, Field(min_length=1, max_length=1200)]


class PublishedModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    config: dict[str, Any]
    source: Text


class PublishedFigure(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    metric: Metric
    value: Annotated[float, Field(gt=0, allow_inf_nan=False)]


class PublishedRun(BaseModel):
    """One published run: what ran, what was measured, where it is printed, and what is assumed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=100)
    label: Text
    set: str = Field(min_length=1, max_length=60)
    """The table the run comes from (one source, one release)."""
    role: Role
    """calibration: the model's one fitted number was chosen on it; validation: kept apart; check: reported, used
    by no figure."""
    framework: str = Field(min_length=1, max_length=60)
    date: str = Field(pattern=r"^(19|20)\d\d-(0[1-9]|1[0-2])$")
    chip: str
    model: str
    seq_len: Annotated[int, Field(ge=1, le=10**7, strict=True)]
    config_overrides: dict[str, Any] = Field(default_factory=dict)
    layout: Layout
    options: MemoryOptions
    settings: dict[str, Any] = Field(default_factory=dict)
    published: PublishedFigure
    source: Text
    assumed: list[str] = Field(default_factory=list)
    """The run's fields its source does not print (``layout.micro_batch``, ``options.recompute``…)."""
    assumptions: str = Field("", max_length=1200)

    @model_validator(mode="after")
    def _assumed_are_fields(self):
        for path in self.assumed:
            head, _, field = path.partition(".")
            known = {"layout": Layout.model_fields, "options": MemoryOptions.model_fields}.get(head)
            if (head == "settings" and field) or path in ("chip", "model", "seq_len"):
                continue
            if known is None or field not in known:
                raise ValueError(f"assumed field {path!r} is not a field of the run")
        return self

    @property
    def gpus(self) -> int:
        return self.layout.chips


class PublishedRuns(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    description: str
    models: dict[str, PublishedModel]
    runs: list[PublishedRun]

    @model_validator(mode="after")
    def _known_and_unique(self):
        ids = [r.id for r in self.runs]
        if len(ids) != len(set(ids)):
            raise ValueError(f"run ids must be unique: {sorted({i for i in ids if ids.count(i) > 1})}")
        for run in self.runs:
            if run.model not in self.models:
                raise ValueError(f"{run.id}: unknown model {run.model!r}")
        return self


@lru_cache(maxsize=1)
def published_runs() -> PublishedRuns:
    """The file, validated."""
    try:
        return parse_input(PublishedRuns, read_shipped_json(PATH, {"models": dict, "runs": list}),
                           source="published_runs")
    except InputError as exc:
        raise shipped_data_error(PATH, exc) from None


def run_config(run: PublishedRun) -> dict:
    """The run's model config (with its overrides)."""
    return {**published_runs().models[run.model].config, **run.config_overrides}


def _nemo_llama2_flop_per_token(config: dict, s: int) -> float:
    """NeMo's Llama 2 model FLOP per token (the module's formula; attention without the causal half)."""
    layers, h, heads = config["num_hidden_layers"], config["hidden_size"], config["num_attention_heads"]
    groups = config.get("num_key_value_heads", heads)
    f, vocab = config["intermediate_size"], config["vocab_size"]
    return layers * h * h * (12 + 12 * groups / heads + 18 * f / h + 12 * s / h + 6 * vocab / (layers * h))


def published_step_s(run: PublishedRun) -> float | None:
    """The published figure as seconds per step (None for a utilization)."""
    metric, value = run.published.metric, run.published.value
    b, s, gpus = run.layout.global_batch, run.seq_len, run.gpus
    if metric == "step_s":
        return value
    if metric == "tokens_per_s_per_gpu":
        return b * s / (value * gpus)
    peak = load_hardware_db().chip(run.chip).peaks.get("fp16_tensor" if run.options.precision == "fp16"
                                                     else "bf16_tensor")
    if metric == "megatron_share_of_peak":
        m = run_model(run.id)
        layers, h, vocab = m.blocks, m.d_model, m.vocab
        flop = 96 * b * s * layers * h * h * (1 + s / (6 * h) + vocab / (16 * layers * h))
        return flop / (gpus * peak * value)
    if metric == "mfu_step":
        return 3 * run_model(run.id).forward_flop * b / (value * peak * gpus)
    if metric == "nemo_llama2_model_tflops_per_gpu":
        return b * s * _nemo_llama2_flop_per_token(run_config(run), s) / (value * 1e12 * gpus)
    return None


@lru_cache(maxsize=128)
def run_model(run_id: str) -> PlanModel:
    """The planner's view of a run's model: its config at the run's sequence length."""
    run = next(r for r in published_runs().runs if r.id == run_id)
    config = read_hf_config(run_config(run))
    return plan_model(config.architecture(config.sequence_length(run.seq_len)))


def plan_for(run: PublishedRun, **settings) -> Plan:
    """The plan FLOPscope makes for the run (``settings`` over the run's), as a user's plan is made."""
    chosen = parse_input(PlanSettings, {**run.settings, **settings, "chip": run.chip}, source="settings")
    return plan_run(run_model(run.id), run.layout, run.options, chosen)


@dataclass(frozen=True, slots=True)
class Comparison(Result):
    """A published run beside the planner's figure for it: seconds per step (or a utilization), and the
    constant-efficiency model's (k = 0.7) where the run is timed by the kernel model."""

    run: PublishedRun
    published: float
    predicted: float
    step_model: str
    previous: float | None
    """The constant-efficiency model's figure (k = 0.7 of the format's peak), beside the kernel model's."""
    held_out: Interval | None = None
    """The 90% range a plan of the run would get from every OTHER validation run (its own error left out)."""

    @property
    def covered(self) -> bool | None:
        """Whether the held-out range holds the published step (None without one)."""
        if self.held_out is None:
            return None
        return self.held_out.low_s <= self.published <= self.held_out.high_s

    @property
    def case(self) -> str:
        return self.run.label

    @property
    def error(self) -> float:
        """Predicted ÷ published − 1 (a utilization: the difference in points ÷ 100)."""
        if self.run.published.metric in UTILIZATION_METRICS:
            return self.predicted - self.published
        return self.predicted / self.published - 1

    @property
    def previous_error(self) -> float | None:
        return None if self.previous is None else self.previous / self.published - 1

    def as_dict(self) -> dict:
        return {"id": self.run.id, "case": self.case, "set": self.run.set, "role": self.run.role,
                "framework": self.run.framework, "published": self.published, "predicted": self.predicted,
                "error": self.error, "step_model": self.step_model, "previous": self.previous,
                "previous_error": self.previous_error, "source": self.run.source, "assumed": list(self.run.assumed)}


def compare(run: PublishedRun) -> Comparison:
    """The run's published figure beside the plan's."""
    plan = plan_for(run)
    step = plan.step
    if run.published.metric in UTILIZATION_METRICS:
        predicted = step.mfu if run.published.metric == "mfu" else step.hfu
        return Comparison(run, run.published.value, predicted, step.model, None)
    previous = None
    if step.model != "constant-efficiency model":
        previous = plan_for(run, step_model="constant", kernel_efficiency=0.7).step.step_s
    others = tuple(r for r in model_errors() if r.id != run.id)
    held_out = interval(Regime(**regime(run, step.model)), step.step_s, others)
    return Comparison(run, published_step_s(run), step.step_s, step.model, previous, held_out)


@lru_cache(maxsize=32)
def comparisons(set_name: str | None = None, role: str | None = None) -> tuple[Comparison, ...]:
    """Every run of a set (or of a role), compared, in the file's order."""
    return tuple(compare(r) for r in published_runs().runs
                 if (set_name is None or r.set == set_name) and (role is None or r.role == role))


def summary(rows: tuple[Comparison, ...]) -> dict:
    """Runs, median and worst absolute error (the worst signed), and the constant-efficiency model's."""
    errors = [r.error for r in rows]
    previous = [r.previous_error for r in rows if r.previous_error is not None]
    out = {"runs": len(rows), "median": statistics.median(abs(e) for e in errors), "worst": max(errors, key=abs)}
    if previous:
        out.update(previous_runs=len(previous), previous_median=statistics.median(abs(e) for e in previous),
                   previous_worst=max(previous, key=abs))
    return out


def comparison_tables() -> dict:
    """Each set: case → (published, predicted, the constant-efficiency model's), full precision."""
    sets = dict.fromkeys(r.set for r in published_runs().runs)
    return {name: {c.case: [c.published, c.predicted, c.previous] for c in comparisons(name)} for name in sets}


def markdown_table(*set_names: str) -> list[str]:
    """The sets' runs as docs/plan.md prints them, one line per run."""
    lines = [("| Case | Framework | Source | Role | Published step (s) | FLOPscope (s) | Model | Error | 90% range, "
              "held out (s) | Constant-efficiency model (s) | Its error |"),
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in (c for name in set_names for c in comparisons(name)):
        before = "— | —" if c.previous is None else f"{c.previous:.2f} | {100 * c.previous_error:+.1f}%"
        span = "—" if c.held_out is None else (f"{c.held_out.low_s:.2f}–{c.held_out.high_s:.2f}"
                                                + ("" if c.covered else " ✗"))
        lines.append(f"| {c.case} | {c.run.framework} | {c.run.source.split(' — ')[0]} | {c.run.role} | "
                     f"{c.published:.2f} | {c.predicted:.2f} | {c.step_model} | {100 * c.error:+.1f}% | {span} | "
                     f"{before} |")
    return lines


def framework_summary() -> dict[tuple[str, str], dict]:
    """(framework, role) → ``summary`` of its timed runs and how many held-out ranges hold the published step; the
    roles' totals under framework "all"."""
    rows = [c for c in comparisons() if c.run.role != "check" and c.run.published.metric not in UTILIZATION_METRICS]
    out = {}
    for fw in [*dict.fromkeys(c.run.framework for c in rows), "all"]:
        for role in ("calibration", "validation"):
            chosen = tuple(c for c in rows if c.run.role == role and fw in ("all", c.run.framework))
            if chosen:
                out[fw, role] = {**summary(chosen), "within_20": sum(abs(c.error) <= 0.2 for c in chosen),
                                 "covered": sum(bool(c.covered) for c in chosen)}
    return out


def summary_table() -> list[str]:
    """``framework_summary`` as docs/plan.md prints it."""
    lines = [("| Framework | Role | Runs | Median error | Worst | Within 20% | 90% range holds it (held out) | "
              "Constant-efficiency model: median, worst |"), "|---|---|---|---|---|---|---|---|"]
    for (fw, role), s in framework_summary().items():
        before = (f"{100 * s['previous_median']:.1f}%, {100 * s['previous_worst']:+.1f}%"
                  if "previous_median" in s else "—")
        lines.append(f"| {fw} | {role} | {s['runs']} | {100 * s['median']:.1f}% | {100 * s['worst']:+.1f}% | "
                     f"{s['within_20']} | {s['covered']} | {before} |")
    return lines


def regime(run: PublishedRun, step_model: str) -> dict:
    """A run's regime (``engine.plan.uncertainty``): its framework, chip architecture, experts, long context."""
    chip = load_hardware_db().chip(run.chip)
    model = run_model(run.id)
    return {"step_model": step_model, "framework": run.options.convention,
            "architecture": chip.kernel.architecture if chip.kernel else "none", "experts": model.experts > 1,
            "long_context": run.seq_len >= LONG_CONTEXT}


def model_error_data() -> dict:
    """``model_error.json``: each validation run's regime and error, r = ln(published ÷ predicted), for the model
    that timed it and for the constant-efficiency model beside it."""
    runs = []
    for c in comparisons(role="validation"):
        if c.run.published.metric in UTILIZATION_METRICS:
            continue
        runs.append({"id": c.run.id, **regime(c.run, c.step_model), "log_error": math.log(c.published / c.predicted)})
        if c.previous is not None:
            runs.append({"id": c.run.id, **regime(c.run, "constant-efficiency model"),
                         "log_error": math.log(c.published / c.previous)})
    return {"description": ("The planner's error on each VALIDATION run of published_runs.json, r = ln(published "
                            "step ÷ predicted step), with the run's regime; written by python -m tools.plan_tables "
                            "--write, read by engine/plan/uncertainty.py."), "runs": runs}
