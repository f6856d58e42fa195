"""Method 1: training compute from the architecture (or from a quick form)."""
from __future__ import annotations

from dataclasses import dataclass

from engine.method1.architecture import ArchitectureResult, evaluate
from engine.errors import InputError
from engine.results import Result, to_json
from engine.scenario import Scenario
from engine.method1.training import TrainingResult, training_compute


@dataclass(frozen=True, slots=True)
class Method1Estimate(Result):
    """Forward FLOP per example, and training FLOP when the training setup is given.

    Its JSON view (``as_dict``) is flat for scripts: the training figures at the top, the rows as ``layers``."""

    convention: str
    params: int
    macs: float
    forward_flop: float
    architecture: ArchitectureResult | None
    training: TrainingResult | None
    error: InputError | None = None

    @property
    def training_flop(self) -> float | None:
        return self.training.training_flop if self.training else None

    def as_dict(self) -> dict:
        out = {"convention": self.convention, "params": self.params, "macs": self.macs,
               "forward_flop": self.forward_flop}
        if self.training:
            out["training_flop"] = self.training.training_flop
            interval = self.training.interval
            out["low"] = interval.low if interval else None
            out["high"] = interval.high if interval else None
            out["confidence"] = interval.confidence if interval else None
            out["pfs_days"] = self.training.pfs_days
            out["training"] = self.training.as_dict()
        if self.architecture is not None:
            out["layers"] = to_json(self.architecture.rows)
        return out


def estimate_method1(scenario: Scenario, *, strict: bool = True) -> Method1Estimate:
    """Per-layer evaluation (or the quick form), then C = F × (1 + r) × examples × epochs (+ optimizer)."""
    if scenario.mode == "quick":
        quick = scenario.quick
        forward = quick.forward_flop
        arch, params, macs, error = None, 0, forward / 2, None
    else:
        if scenario.input is None:
            error = InputError("input", "no input shape given")
            if strict:
                raise error
            empty = ArchitectureResult(convention=scenario.convention, input="—", error=error)
            return Method1Estimate(scenario.convention, 0, 0, 0, empty, None, error)
        arch = evaluate(scenario.architecture(), scenario.convention, strict=strict)
        forward, params, macs, error = arch.forward_flop, arch.params, arch.macs, arch.error
    training = None
    if scenario.training is not None and error is None:
        try:
            training = training_compute(forward, scenario.training, params)
        except InputError as exc:
            if strict:
                raise
            error = exc
    return Method1Estimate(scenario.convention, params, macs, forward, arch, training, error)
