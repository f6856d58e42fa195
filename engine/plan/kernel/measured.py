"""A measured run's efficiencies as the kernel model's ``KernelCalibration`` ("plan with this run's efficiency"):
what a profiler trace's ``Calibration`` (``engine.measure.calibration``) can stand for on the same chip.

- Matrix-product shapes: each measured shape i (B × M×K @ K×N, c_i calls, kernel time T_i, in a format of dense
  peak P_i) keeps its measured rate c_i·F_i / T_i, F_i = 2·B·M·N·K (``MeasuredGemm``): a plan's GEMM of that shape
  on the same chip and format takes F ÷ that rate.
- η_max for the shapes not measured: the value with which the model's own GEMM time (``gemm.gemm_s``: F/(P·η·w),
  w = rate × tiles/(waves × SMs), the wave quantization on the plan's chip) sums to the measured time over the
  measured shapes in the linear layers' format that the model calls compute-bound even at η = 1:
  η_max = Σ c_i·F_i/(P·w_i) ÷ Σ T_i, at most 1.
- η_mem: the memory-bound operators' bytes ÷ their kernel time ÷ the chip's bandwidth (the trace's roofline), at
  most 1.
- Not taken: collectives (a trace shows them at its own scale only), the bubble and idle time (one rank's trace
  cannot tell them apart), attention kernels' rates, the other efficiencies: FLOPscope's defaults stay.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .calibration import (
    DEFAULT_CALIBRATION,
    KernelCalibration,
    MeasuredGemm,
)
from .chip import KernelChip
from .gemm import BYTES, TILE_M, TILE_N
from ...results import Result


@dataclass(frozen=True, slots=True)
class TraceCalibration(Result):
    """The calibration a trace gives a plan, and what it took: the shapes kept, the shapes η_max was fitted on
    (``fitted``), and the defaults it left (``kept_default``: reasons, one line each)."""

    calibration: KernelCalibration
    shapes: int
    fitted: int
    gemm_efficiency: float | None
    memory_bandwidth_fraction: float | None
    kept_default: tuple[str, ...] = ()


def wave_factor(chip: KernelChip, m: int, n: int, batch: int) -> float:
    """w = rate × tiles/(waves × SMs): the share of η_max a shape reaches on ``chip`` (``gemm.gemm_s``)."""
    tiles = math.ceil(m / TILE_M) * math.ceil(n / TILE_N) * batch
    waves = math.ceil(tiles / chip.sms)
    return chip.rate * tiles / (waves * chip.sms)


def _same_peak(a: float | None, b: float) -> bool:
    return a is not None and abs(a - b) <= 1e-9 * b


def trace_calibration(measured, linear: KernelChip, core: KernelChip, file: str = "a trace",
                      base: KernelCalibration = DEFAULT_CALIBRATION) -> TraceCalibration:
    """``base`` with the efficiencies ``measured`` (a trace's ``Calibration``) stands for on the plan's chip:
    ``linear`` the linear layers' format's figures, ``core`` the 16-bit ones (see the module's formulas)."""
    shapes: list[MeasuredGemm] = []
    model_s = measured_s = 0.0
    fitted = 0
    for g in measured.gemms:
        if not (g.kernel_time_us > 0 and g.calls > 0 and g.peak_flop_per_s and g.achieved_flop_per_s > 0):
            continue
        if not (_same_peak(g.peak_flop_per_s, linear.peak) or _same_peak(g.peak_flop_per_s, core.peak)):
            continue  # a format the plan does not run its products in
        shapes.append(MeasuredGemm(batch=g.batch, m=g.m, n=g.n, k=g.k, flop_per_s=g.achieved_flop_per_s,
                                   peak_flop_per_s=g.peak_flop_per_s))
        if not _same_peak(g.peak_flop_per_s, linear.peak):
            continue
        flop = 2 * g.batch * g.m * g.n * g.k
        at_peak = flop / (linear.peak * wave_factor(linear, g.m, g.n, g.batch))
        bytes_s = BYTES * (g.m * g.k + g.k * g.n + g.m * g.n) * g.batch / linear.memory_bandwidth
        if at_peak <= bytes_s:
            continue  # memory-bound in the model even at η = 1: it says nothing of η_max
        model_s += g.calls * at_peak
        measured_s += g.kernel_time_us / 1e6
        fitted += 1
    kept: list[str] = []
    update: dict = {}
    eta = min(1.0, model_s / measured_s) if measured_s > 0 else None
    if eta is not None:
        update["gemm_efficiency"] = eta
        update["gemm_efficiency_by_class"] = {}
    else:
        kept.append("matrix products: no compute-bound product in the plan's format was measured — η_max stays "
                    f"{base.gemm_efficiency:g}")
    eta_mem = measured.memory_bandwidth_efficiency
    if eta_mem is not None and eta_mem > 0 and math.isfinite(eta_mem):
        update["memory_bandwidth_fraction"] = min(1.0, eta_mem)
    else:
        eta_mem = None
        kept.append("memory-bound work: no memory-bound operator with bytes and kernel time — "
                    f"{base.memory_bandwidth_fraction:g} of the bandwidth stays")
    kept.append("collectives, the pipeline bubble and idle time: measured at the trace's scale only — "
                "FLOPscope's defaults stay")
    parts = [f"measured on {file}"]
    if eta is not None:
        parts.append(f"η_max {eta:.3f} fitted on {fitted} product shape{'s' if fitted != 1 else ''}")
    parts.append(f"{len(shapes)} shape{'s' if len(shapes) != 1 else ''} at their measured rate")
    if eta_mem is not None:
        parts.append(f"memory-bound work at {min(1.0, eta_mem):.3f} of the bandwidth")
    source = ("; ".join(parts) + "; the rest FLOPscope's defaults")[:600]
    cal = KernelCalibration.model_validate({**base.model_dump(), **update, "gemm_shapes": shapes[:2000],
                                             "source": source})
    return TraceCalibration(cal, len(shapes), fitted, eta, min(1.0, eta_mem) if eta_mem is not None else None,
                            tuple(kept))
