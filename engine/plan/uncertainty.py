"""How far a planned step time can be trusted: a 90% range from the model's error on published measured runs kept
apart from anything used to set the model (the VALIDATION runs of ``published_runs.json``), by regime.

The error of a run is r = ln(published step ÷ predicted step), so the published step is the prediction × eʳ. For a
plan, the runs of its regime — the step model (kernel or constant-efficiency), the framework, the chip's
architecture, a mixture of experts or not, a long context (≥ 16,384 positions) or not — give the 5th and 95th
percentiles of r; where fewer than ``MIN_RUNS`` share the regime, it widens one key at a time (framework, then
context, then experts, then architecture) down to every validation run of the step model. ``MIN_RUNS`` = 19: the
fewest runs whose conformal ranks (below) fall inside 1..n, so that no range is only the extremes of a handful of
runs (with 8, the first choice, the ranges held 74 of 87 runs left out one at a time; with 19, 79). The range is the
prediction × [e^q05, e^q95]; MFU's is its inverse, the wall-clock's the step's. The percentiles are split
conformal prediction's (``percentiles``): with few runs the range reaches the extremes.

The runs' errors are data (``model_error.json``), written from the published runs by ``python -m tools.plan_tables
--write`` and checked against a fresh comparison by the tests, so a plan does not compare a hundred runs to be made.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import InputError, parse_input
from ..results import Result
from ..shipped import read_shipped_json, shipped_data_error

PATH = Path(__file__).with_name("model_error.json")
LEVEL = 0.9
MIN_RUNS = 19
LONG_CONTEXT = 16384
KEYS = ("framework", "long_context", "experts", "architecture")
"""The regime's keys, in the order they are let go when too few runs share them."""


class RunError(BaseModel):
    """One validation run's regime and the model's error on it, r = ln(published ÷ predicted)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    step_model: str
    framework: str
    architecture: str
    experts: bool
    long_context: bool
    log_error: float


class ModelError(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    description: str
    runs: list[RunError]


@lru_cache(maxsize=1)
def model_errors() -> tuple[RunError, ...]:
    """The validation runs' errors (``model_error.json``)."""
    try:
        return tuple(parse_input(ModelError, read_shipped_json(PATH, {"runs": list}), source="model_error").runs)
    except InputError as exc:
        raise shipped_data_error(PATH, exc) from None


@dataclass(frozen=True, slots=True)
class Regime(Result):
    """What a plan's error depends on (the module's keys)."""

    step_model: str
    framework: str
    architecture: str
    experts: bool
    long_context: bool

    def matches(self, run: RunError, keys: tuple[str, ...]) -> bool:
        return run.step_model == self.step_model and all(getattr(run, k) == getattr(self, k) for k in keys)

    def describe(self, keys: tuple[str, ...]) -> str:
        words = {"framework": self.framework, "architecture": self.architecture,
                 "experts": "mixtures of experts" if self.experts else "dense models",
                 "long_context": "long context" if self.long_context else "contexts under 16K"}
        return ", ".join(words[k] for k in KEYS if k in keys) or "all"


@dataclass(frozen=True, slots=True)
class Interval(Result):
    """A 90% range of the step (seconds), from ``runs`` validation runs of the regime named in ``basis``."""

    low_s: float
    high_s: float
    runs: int
    basis: str
    level: float = LEVEL

    def scaled(self, value: float, step_s: float) -> tuple[float, float]:
        """The range of a figure proportional to the step (the wall-clock)."""
        return value * self.low_s / step_s, value * self.high_s / step_s

    def inverse(self, value: float, step_s: float) -> tuple[float, float]:
        """The range of a figure inversely proportional to the step (MFU)."""
        return value * step_s / self.high_s, value * step_s / self.low_s


def percentiles(errors: list[float]) -> tuple[float, float]:
    """The 5th and 95th percentiles as split-conformal prediction takes them (Vovk et al. 2005; Lei et al. 2018):
    of n errors, the ⌊0.05·(n + 1)⌋-th and ⌈0.95·(n + 1)⌉-th smallest, the extremes where those ranks fall outside
    1..n — a range that holds a new run's error with probability ≥ 90% when runs are exchangeable."""
    ordered = sorted(errors)
    n = len(ordered)
    low, high = math.floor(0.05 * (n + 1)), math.ceil(0.95 * (n + 1))
    return ordered[max(low, 1) - 1], ordered[min(high, n) - 1]


def regime_runs(regime: Regime, runs: tuple[RunError, ...] | None = None) -> tuple[list[RunError], tuple[str, ...]]:
    """The runs the regime's range comes from, and the keys they share with it."""
    runs = model_errors() if runs is None else runs
    for drop in range(len(KEYS) + 1):
        keys = KEYS[drop:]
        chosen = [r for r in runs if regime.matches(r, keys)]
        if len(chosen) >= MIN_RUNS or not keys:
            return chosen, keys
    raise AssertionError("unreachable")


def interval(regime: Regime, step_s: float, runs: tuple[RunError, ...] | None = None) -> Interval | None:
    """The 90% range of a planned step of ``step_s`` seconds (None where no validation run exists)."""
    chosen, keys = regime_runs(regime, runs)
    if not chosen or not (step_s > 0 and math.isfinite(step_s)):
        return None
    low, high = percentiles([r.log_error for r in chosen])
    basis = f"{len(chosen)} published runs ({regime.step_model}; {regime.describe(keys)})"
    return Interval(step_s * math.exp(low), step_s * math.exp(high), len(chosen), basis)


def leave_one_out_coverage(step_model: str) -> tuple[int, int]:
    """(covered, runs): for each validation run of ``step_model``, whether the range made from the OTHER runs (its
    regime's, as a plan would get it) holds its published step — an out-of-sample check of the ranges."""
    runs = model_errors()
    covered = total = 0
    for i, run in enumerate(runs):
        if run.step_model != step_model:
            continue
        others = runs[:i] + runs[i + 1:]
        regime = Regime(run.step_model, run.framework, run.architecture, run.experts, run.long_context)
        chosen, _ = regime_runs(regime, others)
        low, high = percentiles([r.log_error for r in chosen])
        total += 1
        covered += low <= run.log_error <= high
    return covered, total
