"""The optimizers: one table for what each costs per parameter — FLOP per update step (method 1's optimizer
term u·P·steps) and bytes of model state (the planner's memory per chip).

FLOP per parameter per step, u: SGD w ← w − η·g: 2 (a multiply, a subtract); SGD with momentum
v ← μ·v + g, w ← w − η·v: 4; Adam: about 18 (m and v updates, bias corrections, √v, the division and the
step: Epoch AI, "Estimating Training Compute", and the project's brief); 8-bit Adam does Adam's arithmetic on
de-quantized states (counted as Adam's; the block-wise (de)quantization is not counted).

Bytes per parameter (w weights, g gradients, o optimizer states), 16-bit mixed precision / FP32:
Adam 2 + 2 + 12 (FP32 master copy, m, v; Rajbhandari et al. 2020, ZeRO §3: "2Ψ + 2Ψ + KΨ, K = 12") /
4 + 4 + 8; 8-bit Adam (Dettmers et al. 2022) 2 + 2 + (4 master + 2) / 4 + 4 + 2; SGD with momentum
2 + 2 + (4 + 4) / 4 + 4 + 4; SGD 2 + 2 + 4 (the master copy) / 4 + 4 + 0.

Bytes the update moves per parameter (``Optimizer.update_bytes``, the planner's optimizer-step time), 16-bit
mixed precision: Adam 34, 8-bit Adam 22, SGD with momentum 26, SGD 18.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

OptimizerId = Literal["adam", "adam-8bit", "sgd-momentum", "sgd"]
"""The optimizers a run can use (the planner's memory needs one)."""
OptimizerTerm = Literal["none", "adam", "adam-8bit", "sgd-momentum", "sgd"]
"""Method 1's optimizer term: ``none`` leaves the optimizer's FLOP out of the training compute."""


@dataclass(frozen=True, slots=True)
class Optimizer:
    name: str
    flop_per_param: int
    """u: FLOP per parameter per update step."""
    mixed_bytes: tuple[float, float, float]
    """(w, g, o) bytes per parameter with 16-bit mixed precision."""
    fp32_bytes: tuple[float, float, float]
    """(w, g, o) bytes per parameter in FP32."""

    def state_bytes(self, mixed: bool) -> tuple[float, float, float]:
        return self.mixed_bytes if mixed else self.fp32_bytes

    def update_bytes(self, mixed: bool = True) -> float:
        """Bytes the update step reads and writes per parameter (the planner's optimizer time): every optimizer
        state read and written, 2·o (in mixed precision o holds the FP32 master copy); the gradient read as FP32
        twice, for its norm and for the update, 2 × 4; the weights written, w (in FP32 the master is the weights,
        read and written: 2·w). Adam in 16-bit mixed precision: 2·12 + 8 + 2 = 34."""
        w, _, o = self.state_bytes(mixed)
        return 2 * o + 2 * 4 + (w if mixed else 2 * w)

    def label(self, mixed: bool = True) -> str:
        """'Adam (18 FLOP/param/step, 16 B/param)'."""
        return f"{self.name} ({self.flop_per_param} FLOP/param/step, {sum(self.state_bytes(mixed)):g} B/param)"


OPTIMIZERS: dict[str, Optimizer] = {
    "adam": Optimizer("Adam", 18, (2, 2, 12), (4, 4, 8)),
    "adam-8bit": Optimizer("8-bit Adam", 18, (2, 2, 6), (4, 4, 2)),
    "sgd-momentum": Optimizer("SGD with momentum", 4, (2, 2, 8), (4, 4, 4)),
    "sgd": Optimizer("SGD", 2, (2, 2, 4), (4, 4, 0)),
}
assert tuple(OPTIMIZERS) == get_args(OptimizerId)


def optimizer_flop_per_param(term: str) -> int:
    """u of method 1's optimizer term (0 for ``none``)."""
    return 0 if term == "none" else OPTIMIZERS[term].flop_per_param


def optimizer_term_label(term: str) -> str:
    """How the training form names a term: 'not counted', 'SGD (2 FLOP/param/step)'…"""
    if term == "none":
        return "not counted"
    opt = OPTIMIZERS[term]
    return f"{opt.name} ({opt.flop_per_param} FLOP/param/step)"
