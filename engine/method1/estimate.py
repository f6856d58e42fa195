"""Method 1: training compute from the architecture (or from a quick form)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from .architecture import Architecture, ArchitectureResult, evaluate
from .conventions import Convention
from ..results import Result

if TYPE_CHECKING:  # imported where used: a model without a training setup or a quick form never needs them
    from .training import QuickForm, TrainingResult, TrainingSetup


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

    @property
    def pfs_days(self) -> float | None:
        """The training FLOP in petaflop/s-days (1 PF/s-day = 10¹⁵ × 86,400 FLOP)."""
        return self.training.pfs_days if self.training else None

    @property
    def backward_flop(self) -> float | None:
        """The backward pass per example as the training figure counts it (F × r, or layer by layer);
        without a training setup, the layer-by-layer count."""
        if self.training is not None:
            return self.training.backward_flop_per_example
        if self.architecture is not None and self.architecture.rows:
            return self.architecture.backward_flop
        return None

    def as_dict(self) -> dict:
        out = {"convention": self.convention, "params": self.params, "macs": self.macs,
               "forward_flop": self.forward_flop, "backward_flop": self.backward_flop}
        if self.architecture is not None:
            out["trainable_params"] = self.architecture.trainable_params
            out["exact_backward_flop"] = self.architecture.backward_flop
            out["exact_backward_ratio"] = self.architecture.backward_ratio
        if self.training:
            out["training_flop"] = self.training.training_flop
            interval = self.training.interval
            out["low"] = interval.low if interval else None
            out["high"] = interval.high if interval else None
            out["confidence"] = interval.confidence if interval else None
            out["pfs_days"] = self.training.pfs_days
            out["training"] = self.training.as_dict()
        if self.architecture is not None:
            out["layers"] = [row.as_dict() for row in self.architecture.rows]  # to_json's, without its checks
        return out


def estimate_method1(model: Architecture | QuickForm | None, training: TrainingSetup | None,
                     convention: Convention = "matmul", *, strict: bool = True) -> Method1Estimate:
    """Per-layer evaluation of ``model`` (or its quick form), then C = F × (1 + r) × examples × epochs
    (+ optimizer) when ``training`` is given. ``None``: no input shape yet."""
    quick = model is not None and not isinstance(model, Architecture)
    if quick:
        from .training import QuickForm

        quick = isinstance(model, QuickForm)
    if quick:
        forward = model.forward_flop
        arch, params, macs, error = None, 0, forward / 2, None
    else:
        if model is None or model.input is None:
            error = InputError("input", "no input shape given")
            if strict:
                raise error
            empty = ArchitectureResult(convention=convention, input="—", error=error)
            return Method1Estimate(convention, 0, 0, 0, empty, None, error)
        arch = evaluate(model, convention, strict=strict)
        forward, params, macs, error = arch.forward_flop, arch.params, arch.macs, arch.error
    result = None
    if training is not None and error is None:
        try:
            result = _training(training, forward, params, arch)
        except InputError as exc:
            if strict:
                raise
            error = exc
    return Method1Estimate(convention, params, macs, forward, arch, result, error)


EXACT_NOTE = "some layers are frozen or adapted (LoRA): the backward pass is counted layer by layer"


def _training(setup, forward: float, params: int, arch: ArchitectureResult | None):
    """The run's compute: F × (1 + r), or the exact backward when asked for or when anything is frozen."""
    from .training import training_compute

    if arch is None:
        if setup.backward == "exact":
            raise InputError("training.backward", "'exact' needs the layers (the quick form has none); use 'ratio'")
        return training_compute(forward, setup, params)
    if setup.backward == "exact" or arch.frozen:
        note = "" if setup.backward == "exact" else EXACT_NOTE
        return training_compute(forward, setup, params, backward_flop=arch.backward_flop,
                                recompute_flop=arch.recompute_flop, trainable_params=arch.trainable_params, note=note)
    return training_compute(forward, setup, params)
