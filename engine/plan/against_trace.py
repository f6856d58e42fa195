"""A plan set beside a measured run (``plan --trace FILE``, the Plan page's "Plan against a measured run"): the
measured step (one rank's profiler trace, ``engine.measure``) and the planned one, part by part, the gap named,
and the plan re-run with the run's own efficiencies (``engine.plan.kernel.measured``).

The trace is assumed to be one rank of the plan's run: the same model, layout, micro-batch and global batch, on
the plan's chip (a trace of another chip is refused: plan on the trace's chip instead). What is compared, per
step (the trace's profiled steps averaged):

| part | planned | measured |
|---|---|---|
| computation | the step's compute (products, memory-bound work, optimizer) | the computation kernels' union |
| of which products and attention | the kernel model's GEMM time | computation × the products' share |
| exposed communication | every collective not overlapped (TP, PP, DP, EP, CP) | communication not under compute |
| exposed memory copies | 0 (not planned) | copies not under computation or communication |
| pipeline bubble + idle | the bubble and the time outside kernels | idle: one rank's trace cannot tell them apart |

The FLOP check: the trace's executed FLOP per step ÷ the plan's hardware FLOP per chip per step; outside
±``FLOP_TOLERANCE`` the trace is said not to match the plan (with the usual causes).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..results import Result

FLOP_TOLERANCE = 0.10
"""The trace's FLOP per step may differ from the plan's per chip by this share before it is said not to match."""


class ChipMismatch(InputError):
    """The trace was recorded on another chip than the plan's: ``trace_chip`` is the database id to plan on."""

    def __init__(self, trace_chip: str, trace_name: str, plan_name: str):
        self.trace_chip = trace_chip
        super().__init__("trace", f"recorded on {trace_name}, the plan is for {plan_name}: plan on the trace's chip "
                                  f"({trace_chip}) or give a trace recorded on {plan_name}")


@dataclass(frozen=True, slots=True)
class PartRow(Result):
    """One part of the step: planned and measured seconds (None: not planned apart, or not measurable)."""

    part: str
    planned_s: float | None
    measured_s: float | None
    note: str = ""

    @property
    def gap_s(self) -> float | None:
        return None if self.planned_s is None or self.measured_s is None else self.measured_s - self.planned_s

    json_fields = ("part", "planned_s", "measured_s", "gap_s", "note")


@dataclass(frozen=True, slots=True)
class PlanVsTrace(Result):
    """The planned and the measured step (seconds) by part, the gap in words, what was assumed, and the FLOP check
    (``flop_ratio``: the trace's executed FLOP per step ÷ the plan's hardware FLOP per chip per step)."""

    file: str
    device: str | None
    chip: str
    steps: int
    planned_step_s: float
    measured_step_s: float
    parts: list[PartRow]
    gap: str
    assumed: list[str]
    flop_ratio: float | None

    json_fields = ("file", "device", "chip", "steps", "planned_step_s", "measured_step_s", "gap_s", "parts", "gap",
                   "assumed", "flop_ratio")

    @property
    def gap_s(self) -> float:
        return self.measured_step_s - self.planned_step_s


def check_chip(measurement, chip) -> list[str]:
    """What is assumed of the trace's chip; a ``ChipMismatch`` when the trace names another chip than ``chip``."""
    if measurement.chip is None:
        device = measurement.device or "no device name"
        return [f"the trace's device ({device}) is not in the chip database: assumed to be the plan's {chip.name}"]
    if measurement.chip != chip.id:
        raise ChipMismatch(measurement.chip, measurement.chip_name or measurement.chip, chip.name)
    return []


def duration(seconds: float) -> str:
    """'34.9 ms', '2.74 s': three significant figures in the unit that reads."""
    return f"{seconds * 1e3:.3g} ms" if abs(seconds) < 1 else f"{seconds:,.3g} s"


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _flop_sentence(ratio: float) -> str:
    if 0.2 <= ratio <= 0.4:
        why = "a third or a little less: a forward-only trace (inference or evaluation)?"
    elif ratio < 1:
        why = "a smaller model, batch or sequence, frozen layers, or operators without recorded shapes?"
    else:
        why = "recomputation, a larger model, batch or sequence?"
    return (f"the trace executed {ratio:.2g}× the plan's FLOP per chip per step — {why} The comparison holds only as "
            "far as the trace is this plan's run")


def _gap_sentence(planned: float, measured: float, parts: list[PartRow]) -> str:
    if planned <= 0:
        return "the plan has no step time"
    share = measured / planned - 1
    direction = "longer" if share > 0 else "shorter"
    rows = [r for r in parts if r.gap_s is not None and not r.part.startswith("  ")]
    if not rows:
        return f"the measured step is {abs(share):.0%} {direction} than planned"
    worst = max(rows, key=lambda r: abs(r.gap_s))
    sign = "+" if worst.gap_s >= 0 else "−"
    return (f"the measured step is {abs(share):.0%} {direction} than planned ({duration(measured)} vs "
            f"{duration(planned)}); the largest difference is {worst.part} ({sign}{duration(abs(worst.gap_s))})")


def plan_vs_trace(plan, measurement) -> PlanVsTrace:
    """The plan (``engine.plan.run_plan.Plan`` with a step) beside the trace's measured steps (see the module's
    table). ``InputError`` when the trace has no timed GPU step; ``ChipMismatch`` for another chip."""
    step = plan.step
    if step is None:
        raise InputError("global_batch", "comparing with a trace needs the plan's step time (a global batch)")
    timed = [s for s in measurement.steps if s.total_ms is not None and s.computation_ms is not None]
    if not timed:
        raise InputError("trace", f"{measurement.file} has no GPU step to compare with (a CPU-only trace, or no GPU "
                                  "events inside its steps)")
    assumed = check_chip(measurement, plan.chip)
    lay = plan.layout
    assumed.insert(0, f"the trace is one rank of this plan's run: the same model, layout ({lay.dp}×{lay.tp}×{lay.pp}"
                      f"{f'×{lay.cp}' if lay.cp > 1 else ''} = {lay.chips:,} chip{'s' if lay.chips != 1 else ''}), "
                      f"micro-batch {lay.micro_batch} and "
                      f"global batch {lay.global_batch}; its {len(timed)} profiled step"
                      f"{'s' if len(timed) != 1 else ''} averaged")
    ms = 1e-3
    total = _mean([s.total_ms for s in timed]) * ms
    computation = _mean([s.computation_ms for s in timed]) * ms
    products = _mean([sum(v for k, v in s.computation_by_family_ms.items() if k in ("matrix products", "attention"))
                      for s in timed]) * ms
    comm = _mean([s.exposed_comm_ms or 0.0 for s in timed]) * ms
    memcpy = _mean([s.exposed_memcpy_ms or 0.0 for s in timed]) * ms
    idle = _mean([s.idle_ms or 0.0 for s in timed]) * ms
    planned_comm = step.tp_comm_s + step.pp_comm_s + step.dp_comm_s + step.ep_comm_s + step.cp_comm_s
    kernel = plan.kernel
    parts = [PartRow("computation", step.compute_s, computation)]
    if kernel is not None:
        parts.append(PartRow("  of which matrix products and attention", kernel.gemm_s, products,
                             "measured: the computation's share in those kernels"))
    parts += [PartRow("exposed communication", planned_comm, comm),
              PartRow("exposed memory copies", 0.0, memcpy, "not planned"),
              PartRow("pipeline bubble", step.bubble_s, None, "measured within idle"),
              PartRow("pipeline bubble + idle", step.bubble_s + step.overhead_s, idle,
                      "one rank's trace cannot tell the bubble from other idle time"),
              PartRow("step", step.step_s, total)]
    flops = [s.op_flop for s in timed]
    per_chip = step.hardware_flop_per_step / step.chips if step.chips else 0.0
    ratio = _mean(flops) / per_chip if per_chip > 0 and any(flops) else None
    if ratio is None:
        assumed.append("the trace's FLOP cannot be checked against the plan's (no operator with recorded shapes)")
    elif abs(ratio - 1) > FLOP_TOLERANCE:
        assumed.append(_flop_sentence(ratio))
    else:
        assumed.append(f"the trace executed {ratio:.2f}× the plan's FLOP per chip per step: the same work")
    return PlanVsTrace(measurement.file, measurement.device, plan.chip.id, len(timed), step.step_s, total, parts,
                       _gap_sentence(step.step_s, total, parts[:-1]), assumed, ratio)


@dataclass(frozen=True, slots=True)
class TraceComparison(Result):
    """The plan, set beside the trace (``versus``), the trace's calibration of the kernel model (None where the
    kernel model does not cover the plan: ``why_not``), and the plan re-run with it (``calibrated``). Its JSON view
    is the comparison's (the plan's own is the caller's)."""

    plan: object
    versus: PlanVsTrace
    calibration: object | None
    calibrated: object | None
    why_not: str | None = None

    def as_dict(self) -> dict:
        out = {**self.versus.as_dict(), "calibration": None, "calibrated": None}
        if self.calibration is not None:
            cal = self.calibration
            out["calibration"] = {"gemm_efficiency": cal.gemm_efficiency,
                                  "memory_bandwidth_fraction": cal.memory_bandwidth_fraction,
                                  "shapes": cal.shapes, "fitted_shapes": cal.fitted,
                                  "kept_default": list(cal.kept_default),
                                  "source": cal.calibration.source}
        if self.calibrated is not None:
            step = self.calibrated.step
            span = self.calibrated.interval
            out["calibrated"] = {"step_s": step.step_s, "mfu": step.mfu, "compute_s": step.compute_s,
                                 "step_model": step.model,
                                 "step_s_90": None if span is None else [span.low_s, span.high_s]}
        if self.why_not:
            out["why_not"] = self.why_not
        return out


def plan_with_trace(model, layout, options, settings, measurement) -> TraceComparison:
    """The plan of ``model`` in ``layout`` with ``settings``, set beside ``measurement`` (a ``TraceMeasurement``),
    and the same plan with the trace's efficiencies ("plan with this run's efficiency")."""
    from .kernel.chip import kernel_hardware
    from .kernel.frameworks import framework_calibration
    from .kernel.measured import trace_calibration
    from .run_plan import plan_run

    plan = plan_run(model, layout, options, settings)
    versus = plan_vs_trace(plan, measurement)
    hw = kernel_hardware(plan.chip.id, options.precision, plan.link)
    if hw is None or plan.kernel is None:
        return TraceComparison(plan, versus, None, None, "the kernel model does not cover this plan (see the step's "
                                                         "note), so the trace's efficiencies cannot be applied")
    base = settings.calibration or framework_calibration(options.convention)  # the plan's own, which the trace edits
    cal = trace_calibration(measurement.calibration, hw.linear, hw.core, measurement.file, base)
    calibrated = plan_run(model, layout, options, settings.model_copy(update={"calibration": cal.calibration}))
    narrowed = cal.calibration.model_copy(update={"error_range": trace_error_range(
        calibrated.step.step_s, [s.total_ms / 1e3 for s in measurement.steps if s.total_ms is not None])})
    calibrated = plan_run(model, layout, options, settings.model_copy(update={"calibration": narrowed}))
    return TraceComparison(plan, versus, cal, calibrated)


def trace_error_range(calibrated_s: float, measured_s: list[float]) -> tuple[float, float]:
    """The calibrated plan's 90% range from the run itself, as shares of its step: the gap r = m̄ ÷ t − 1 between
    the mean measured step m̄ and the calibrated one t, widened by the profiled steps' spread (max − min) ÷ m̄ on
    each side — the evidence of this run, in place of the published runs' error (``engine.plan.uncertainty``)."""
    mean = sum(measured_s) / len(measured_s)
    gap = mean / calibrated_s - 1
    spread = (max(measured_s) - min(measured_s)) / mean
    return max(-0.99, min(0.0, gap) - spread), min(100.0, max(0.0, gap) + spread)
