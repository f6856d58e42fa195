"""What a trace can calibrate a plan with (the planner reads these; ``docs/measure.md`` says what they can and
cannot stand for): the measured efficiency of each matrix-product shape (achieved FLOP/s ÷ the chip's dense
peak for its number format), the memory-bound operators' time and bytes (and the bandwidth they reached), the
exposed communication, and the idle time per step (a pipeline's bubble shows here: a single rank's trace cannot
tell a bubble from other idle time).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .chip_match import ChipMatch
from ..results import Result


@dataclass(frozen=True, slots=True)
class GemmEfficiency(Result):
    """One matrix-product shape: batch × (M×K @ K×N) in ``fmt``, its calls and kernel time, the FLOP/s reached and
    the fraction of the dense peak (``efficiency``)."""

    op: str
    batch: int
    m: int
    n: int
    k: int
    fmt: str | None
    calls: int
    kernel_time_us: float
    achieved_flop_per_s: float
    peak_flop_per_s: float | None
    efficiency: float | None


@dataclass(frozen=True, slots=True)
class Calibration(Result):
    """Per step (µs, bytes) unless said: ``gemms`` by shape; ``matrix_efficiency`` the matrix products' FLOP over
    their kernel time ÷ peak, all shapes together; ``memory_bound_*`` the operators below the roofline's ridge
    (their kernel time and bytes per step, and bytes ÷ time ÷ the chip's bandwidth); ``exposed_comm_us``,
    ``idle_us`` and ``step_time_us`` averaged over the steps."""

    gemms: list[GemmEfficiency] = field(default_factory=list)
    matrix_efficiency: float | None = None
    memory_bound_time_us: float = 0.0
    memory_bound_bytes: float = 0.0
    memory_bandwidth_efficiency: float | None = None
    exposed_comm_us: float | None = None
    idle_us: float | None = None
    step_time_us: float | None = None
    bandwidth_bytes_per_s: float | None = None
    """The chip's memory bandwidth (the roofline's slope)."""


def calibration(steps, rows, chip: ChipMatch, util) -> Calibration:
    """The figures above from the measured steps and operator rows."""
    gemms = []
    matrix_flop = matrix_time = 0.0
    matrix_peak_time = 0.0
    for r in rows:
        if r.gemm is None or not r.kernel_time_us or not r.flop_per_call:
            continue
        achieved = r.flop_per_call * r.calls / (r.kernel_time_us / 1e6)
        peak = chip.peak(_precision(r.peak_key), True) if r.peak_key else None
        p = peak.peak_flop_per_s if peak else None
        b, m, n, k = r.gemm
        gemms.append(GemmEfficiency(r.name, b, m, n, k, r.dtype, r.calls, r.kernel_time_us, achieved, p,
                                    achieved / p if p else None))
        matrix_flop += r.flop_per_call * r.calls
        matrix_time += r.kernel_time_us / 1e6
        if p:
            matrix_peak_time += r.flop_per_call * r.calls / p
    gemms.sort(key=lambda g: -g.kernel_time_us)
    timed = [s for s in steps if s.total_ms is not None and s.busy_ms is not None]
    n_steps = max(1, len(timed))
    mem_time = sum(r.kernel_time_us for r in rows if r.bound == "memory")
    mem_bytes = sum(r.bytes * r.calls for r in rows if r.bound == "memory")
    bw = chip.bandwidth_bytes_per_s
    return Calibration(
        gemms=gemms[:200],
        matrix_efficiency=matrix_peak_time / matrix_time if matrix_time and matrix_peak_time else None,
        memory_bound_time_us=mem_time / n_steps, memory_bound_bytes=mem_bytes / n_steps,
        memory_bandwidth_efficiency=(mem_bytes / (mem_time / 1e6)) / bw if mem_time and bw else None,
        exposed_comm_us=sum(s.exposed_comm_ms for s in timed) * 1000 / n_steps if timed else None,
        idle_us=sum(s.idle_ms for s in timed) * 1000 / n_steps if timed else None,
        step_time_us=sum(s.total_ms for s in timed) * 1000 / n_steps if timed else None,
        bandwidth_bytes_per_s=bw)


def _precision(peak_key: str) -> str:
    from ..method2.formats import FORMAT_BY_KEY
    return FORMAT_BY_KEY[peak_key].precision
