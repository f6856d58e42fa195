"""The Plan page's "Plan against a measured run" as text: metrics and table rows from a ``TraceComparison``
(``engine.plan.against_trace``). Pure: no Streamlit, tested in tests/ui/test_views_plan_trace.py."""
from __future__ import annotations

Metric = tuple[str, str, str | None]


def ms(seconds: float | None) -> str:
    """Milliseconds to the µs under a second (a trace's precision), seconds to the ms above."""
    if seconds is None:
        return "—"
    return f"{seconds * 1e3:,.3f} ms" if abs(seconds) < 1 else f"{seconds:,.3f} s"


def signed_ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return ("+" if seconds >= 0 else "−") + ms(abs(seconds))


def versus_metrics(comparison) -> list[Metric]:
    """Planned and measured step, and the gap (ms and share of the plan)."""
    v = comparison.versus
    share = f"{v.gap_s / v.planned_step_s:+.0%} of the planned step" if v.planned_step_s > 0 else None
    return [("Planned step", ms(v.planned_step_s), "this plan's step time, above"),
            ("Measured step", ms(v.measured_step_s), (f"the trace's GPU-side step, {v.steps} profiled step"
                                                       f"{'s' if v.steps != 1 else ''} averaged")),
            ("Measured − planned", signed_ms(v.gap_s), share)]


def part_rows(comparison) -> list[dict]:
    """One row per part: planned, measured, the gap, and what a cell cannot hold."""
    return [{"part": r.part, "planned": ms(r.planned_s), "measured": ms(r.measured_s), "measured − planned":
             signed_ms(r.gap_s), "note": r.note} for r in comparison.versus.parts]


def calibrated_metrics(comparison) -> list[Metric]:
    """The plan with the run's efficiencies: its step and MFU beside the plan's, and what it took."""
    plan, again, cal = comparison.plan.step, comparison.calibrated.step, comparison.calibration
    mfu = f"{again.mfu:.1%}" if again.mfu is not None else "—"
    span = comparison.calibrated.interval
    within = "" if span is None else f" (90%: {ms(span.low_s)} – {ms(span.high_s)}, from this run's own steps)"
    items = [("Calibrated step", ms(again.step_s), (f"this plan with this run's efficiency{within}; with "
                                                   f"FLOPscope's defaults: {ms(plan.step_s)}")),
             ("Calibrated MFU", mfu,
              f"with FLOPscope's defaults: {plan.mfu:.1%}" if plan.mfu is not None else None)]
    if cal.gemm_efficiency is not None:
        items.append(("Matrix products' η_max", f"{cal.gemm_efficiency:.3f}",
                      (f"fitted on {cal.fitted} measured shape{'s' if cal.fitted != 1 else ''}; the model's "
                      "rate before wave quantization")))
    if cal.memory_bandwidth_fraction is not None:
        items.append(("Bandwidth reached", f"{cal.memory_bandwidth_fraction:.0%}",
                      "the memory-bound operators' bytes ÷ their kernel time ÷ the chip's bandwidth (default 85%)"))
    return items
