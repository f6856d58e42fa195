"""Training compute from forward FLOP: method 1, and its quick forms.

C = F × (1 + r + recompute) × E × epochs + u × P × steps

F forward FLOP per example, r the backward/forward ratio (2 by default: ×3), E examples per epoch
(given, or batches per epoch × batch size), u optimizer FLOP per parameter per step (``engine.optimizers``: SGD 2, Adam 18),
P trainable parameters; with activation recomputation the forward runs once more.

``backward: "exact"`` replaces F × r by B, the backward pass counted layer by layer
(``engine.method1.backward``), and the recomputed forward by R, the forward FLOP of the layers the
backward pass goes through: C = (F + B [+ R]) × E × epochs + u × P × steps. It is used, and said,
whenever a layer is frozen or adapted (LoRA), where one r cannot be right.
"""

import math
import sys
from dataclasses import dataclass
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from ..optimizers import OptimizerTerm, optimizer_flop_per_param, optimizer_term_label
from ..ranges import Factor, Interval, check_range, monte_carlo_interval
from ..results import Result
from ..units import FLOP_PER_MAC, flop_to_pfs_days


OPTIMIZER_LABELS: dict[str, str] = {term: optimizer_term_label(term) for term in get_args(OptimizerTerm)}
"""The optimizer term as the training form names it (``engine.optimizers``: one table for FLOP and bytes)."""

DEFAULT_BACKWARD_RATIO = 2.0
"""Backward ≈ 2 × forward (Epoch measured 1:1 to 3:1)."""


class TrainingSetup(BaseModel):
    """How much data went through the model: epochs × examples (or batches per epoch × batch size)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    epochs: Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)] = 1.0
    examples: Annotated[float, Field(gt=0, le=1e18, allow_inf_nan=False)] | None = Field(
        None, description="Examples (sequences, images, tokens…) per epoch.")
    batches_per_epoch: Annotated[int, Field(ge=1, le=10**15)] | None = None
    batch_size: Annotated[int, Field(ge=1, le=10**12)] | None = None
    backward_ratio: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] = DEFAULT_BACKWARD_RATIO
    backward: Literal["ratio", "exact"] = Field(
        "ratio", description="ratio: backward = r × forward; exact: counted layer by layer (used whenever a "
                             "layer is frozen or adapted).")
    optimizer: OptimizerTerm = "none"
    recomputation: bool = False
    backward_ratio_low: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = Field(
        None, description="range of r (90% interval); Epoch measured 1 to 3")
    backward_ratio_high: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    examples_low: Annotated[float, Field(gt=0, le=1e18, allow_inf_nan=False)] | None = Field(
        None, description="range of examples (tokens…) per epoch (90% interval)")
    examples_high: Annotated[float, Field(gt=0, le=1e18, allow_inf_nan=False)] | None = None

    @model_validator(mode="after")
    def _examples_known(self):
        if self.examples is None and (self.batches_per_epoch is None or self.batch_size is None):
            raise ValueError("give examples per epoch, or batches_per_epoch and batch_size")
        if self.optimizer != "none" and self.batch_size is None:
            raise ValueError("batch_size is needed to count optimizer steps")
        low, high = self.backward_ratio_low, self.backward_ratio_high
        if low is not None and high is not None and low > high:
            raise InputError("backward_ratio_low", f"{low:g} is above backward_ratio_high {high:g}")
        if (low is not None and low > self.backward_ratio) or (high is not None and high < self.backward_ratio):
            raise InputError("backward_ratio", f"{self.backward_ratio:g} is outside its range "
                             f"{low if low is not None else '…'}–{high if high is not None else '…'}")
        check_range("examples", self.examples_per_epoch, self.examples_low, self.examples_high)
        return self

    def factors(self) -> list[Factor]:
        """The uncertain inputs: passes 1 + r (+1) over r's range, examples per epoch over theirs."""
        found = []
        if self.backward_ratio_low is not None or self.backward_ratio_high is not None:
            rest = self.passes - self.backward_ratio
            low = self.backward_ratio if self.backward_ratio_low is None else self.backward_ratio_low
            high = self.backward_ratio if self.backward_ratio_high is None else self.backward_ratio_high
            found.append(Factor("passes", self.passes, rest + low, rest + high, "backward_ratio"))
        if self.examples_low is not None or self.examples_high is not None:
            point = self.examples_per_epoch
            found.append(Factor("examples", point, self.examples_low or point, self.examples_high or point))
        return found

    @property
    def examples_per_epoch(self) -> float:
        if self.examples is not None:
            return self.examples
        return float(self.batches_per_epoch * self.batch_size)

    @property
    def steps(self) -> float:
        """Optimizer update steps over the whole run."""
        if self.batch_size is None:
            return 0.0
        per_epoch = self.batches_per_epoch or math.ceil(self.examples_per_epoch / self.batch_size)
        return per_epoch * self.epochs

    @property
    def passes(self) -> float:
        """Forward-equivalents per example: 1 + r, +1 with recomputation."""
        return 1.0 + self.backward_ratio + (1.0 if self.recomputation else 0.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingResult(Result):
    """Training compute of the whole run: C = F × passes × total_examples + optimizer FLOP."""

    forward_flop_per_example: float
    passes: float
    total_examples: float
    """Examples over the whole run (per epoch × epochs); ``TrainingSetup.examples`` is per epoch."""
    steps: float
    optimizer_flop: float
    training_flop: float
    pfs_days: float
    interval: Interval | None = None
    """90% interval when r or the examples are ranges (Monte Carlo, fixed seed)."""
    backward: str = "ratio"
    """How the backward pass was counted: ``ratio`` (F × r) or ``exact`` (layer by layer)."""
    backward_flop_per_example: float | None = None
    trainable_params: int | None = None
    """The parameters the optimizer updates (None: all of them)."""
    note: str = ""
    """Why the count is exact when it was not asked for."""


def training_flop_per_example(forward_flop: float, setup: TrainingSetup | None = None) -> float:
    """One example's training FLOP: F × (1 + r [+ 1 with recomputation]); r = 2 without a setup."""
    return forward_flop * (setup.passes if setup is not None else 1.0 + DEFAULT_BACKWARD_RATIO)


def training_compute(forward_flop: float, setup: TrainingSetup, params: int = 0, *,
                     backward_flop: float | None = None, recompute_flop: float | None = None,
                     trainable_params: int | None = None, note: str = "") -> TrainingResult:
    """C = F × passes × E × epochs + u × P × steps; passes = 1 + r (+ 1), or (F + B [+ R]) / F with the exact
    backward ``backward_flop`` B (and the recomputed forward R). P: the trainable parameters when given."""
    examples = setup.examples_per_epoch * setup.epochs
    exact = backward_flop is not None
    updated = params if trainable_params is None else trainable_params
    optimizer_flop = optimizer_flop_per_param(setup.optimizer) * updated * setup.steps
    if exact:
        recompute = (forward_flop if recompute_flop is None else recompute_flop) if setup.recomputation else 0.0
        passes = (forward_flop + backward_flop + recompute) / forward_flop if forward_flop else 1.0
        per_example = forward_flop + backward_flop + recompute
    else:
        passes = setup.passes
        per_example = forward_flop * passes
    total = per_example * examples + optimizer_flop
    if not math.isfinite(total):
        raise InputError("training", f"F × passes × examples is beyond {sys.float_info.max:.2g} FLOP "
                                     "(forward FLOP per example or examples too large)")
    interval = None
    factors = setup.factors()
    if exact:  # r is counted, not assumed: only the examples stay uncertain
        factors = [f for f in factors if f.name != "passes"]
    if factors:
        # steps scale with the examples (a product below the smallest float is 0 examples: no update per example)
        optimizer_per_example = optimizer_flop / examples if examples > 0 else 0.0

        def total_of(passes=passes, examples=setup.examples_per_epoch):
            return (forward_flop * passes + optimizer_per_example) * examples * setup.epochs

        interval = monte_carlo_interval(total, factors, total_of)
    return TrainingResult(forward_flop_per_example=float(forward_flop), passes=passes, total_examples=examples,
                          steps=setup.steps, optimizer_flop=optimizer_flop, training_flop=total,
                          pfs_days=flop_to_pfs_days(total), interval=interval,
                          backward="exact" if exact else "ratio",
                          backward_flop_per_example=float(backward_flop) if exact else forward_flop * setup.backward_ratio,
                          trainable_params=trainable_params, note=note)


class QuickForm(BaseModel):
    """The seed's other method-1 inputs: a total number of connections (weights), or a published
    "operations per forward pass" in MACs ("add-multiplies") or FLOP."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["connections", "ops_per_forward"]
    value: Annotated[float, Field(gt=0, le=1e30, allow_inf_nan=False)]
    unit: Literal["macs", "flop"] = "macs"

    @property
    def forward_flop(self) -> float:
        """Forward FLOP per example: 2 × connections, or the published ops (× 2 when they are MACs)."""
        if self.kind == "connections" or self.unit == "macs":
            return FLOP_PER_MAC * self.value
        return self.value
