"""The Markdown report: every input, formula, result and source of a scenario."""
from __future__ import annotations

from .consistency import consistency_check
from .method2.costs import estimate_costs
from .errors import InputError
from .method2.hardware_db import load_hardware_db
from .method1.estimate import Method1Estimate
from .method2.run import estimate_method2
from .safe_text import code_fence, report_text
from .plan.memory import GB
from .plan.run_plan import plan_run, settings_for
from .plan.step_time import NO_COMPUTE
from .plan.thresholds import markdown_section as thresholds_section
from .scenario import Scenario
from .share_link import scenario_json
from .units import (PFS_DAY_FLOP, format_chip_hours, format_co2_kg, format_energy_kwh, format_flop,
                          format_pf_days, format_time_amount, plural)

SOURCES = {
    "Method 1 and 2, per-layer formulas": "Sevilla et al. (2022), Estimating Training Compute of Deep Learning "
                                          "Models, Epoch AI — https://epoch.ai/blog/estimating-training-compute",
    "Trend, appendix calculations": "Amodei & Hernandez (2018), AI and Compute, OpenAI — "
                                    "https://openai.com/index/ai-and-compute/",
    "matmul convention": "PyTorch torch.utils.flop_counter.FlopCounterMode — "
                         "https://github.com/pytorch/pytorch/blob/main/torch/utils/flop_counter.py",
}


_cell = report_text
"""User text in the report (table cells, title, notes, messages that quote an input)."""


def method1_section(scenario: Scenario, est: Method1Estimate) -> list[str]:
    lines = ["## Method 1 — from the architecture", ""]
    if scenario.mode == "quick":
        q = scenario.quick
        lines += [f"- Quick form: {q.kind} = {q.value:.6g}" + (f" ({q.unit})" if q.kind == "ops_per_forward" else ""),
                  "- Formula: F = 2 × connections, or published ops × 2 when they are MACs (1 MAC = 2 FLOP)"]
    elif scenario.input is None:
        lines += ["- No input shape and no layers yet"]
    else:
        lines += [f"- Input: shape {scenario.input.shape}"
                  + (f", sequence length T = {scenario.input.sequence_length}" if scenario.input.sequence_length else ""),
                  f"- Convention: `{est.convention}`", "",
                  "| # | layer | name | output | params | forward FLOP | MACs | share |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in est.architecture.rows:
            copies = f" ×{r.copies:,}" if r.copies > 1 else ""
            lines.append(f"| {r.path if r.depth else r.index} | {r.type}{' · ' + r.part if r.part else ''}{copies} | "
                         f"{_cell(r.name)} | {r.output} | "
                         f"{r.params:,} | {r.forward_flop:.4e} | {r.macs:.4e} | {100 * r.share:.1f}% |")
        if est.error:
            lines.append(f"\n**Error:** {_cell(str(est.error))}")
    lines += ["", f"- Forward per example: {format_flop(est.forward_flop)} ({format_flop(est.macs, 'MACs')})",
              f"- Parameters: {est.params:,}"]
    if est.training:
        t, s = est.training, scenario.training
        lines += [f"- Training setup: epochs {s.epochs:g}, examples per epoch {s.examples_per_epoch:.6g}, "
                  f"backward/forward ratio {s.backward_ratio:g}, optimizer {s.optimizer}, "
                  f"recomputation {'on' if s.recomputation else 'off'}",
                  "- Formula: C = F × (1 + r [+ 1 recomputation]) × examples × epochs [+ u × P × steps]",
                  f"- **Training compute: {format_flop(t.training_flop)} = {format_pf_days(t.pfs_days)}** "
                  f"(1 PF-day = {PFS_DAY_FLOP:.3g} FLOP)"]
        lines += _interval_lines(t.interval)
    return lines


def _interval_lines(interval) -> list[str]:
    """The 90% interval, how it was computed and its Epoch confidence label (nothing without ranges)."""
    if interval is None:
        return []
    return [f"- 90% interval: {format_flop(interval.low)} – {format_flop(interval.high)} "
            f"(ranges: {', '.join(interval.factors)}; {interval.method})",
            f"- Confidence: {interval.confidence} ({interval.confidence_rule})"]


def method2_section(scenario: Scenario, m1_training_flop: float | None) -> list[str]:
    run = scenario.hardware
    lines = ["## Method 2 — from the hardware", ""]
    try:
        est = estimate_method2(run)
        costs = estimate_costs(run)
    except InputError as exc:
        return lines + [f"**Error:** {_cell(str(exc))}"]
    peak = est.peak
    hardware = _cell(peak.hardware_name) + (f" (`{peak.chip_id}`)" if peak.chip_id else "")  # ids: database slugs
    lines += [f"- Hardware: {hardware}; format {peak.describe()}; "
              f"{'effective ' if peak.split_basis else ''}dense peak per chip "
              f"{format_flop(peak.peak_flop_per_s, peak.unit)}",
              f"- Time: {format_time_amount(run.duration, run.duration_unit)}"
              + (f" on {plural(run.chip_count, 'chip')}" if run.chip_count else "") + f"; utilization {est.utilization:g}",
              "- Formula: C = chips × time × peak FLOP/s × utilization",
              f"- Calculation: {est.formula}",
              f"- **Training compute: {format_flop(est.training_flop)} = {format_pf_days(est.pfs_days)}**"]
    lines += _interval_lines(est.interval)
    if peak.chip_id:
        lines.append(f"- Peak source: {', '.join(load_hardware_db().chip(peak.chip_id).source)}")
    lines += [f"- Note: {_cell(n)}" for n in peak.notes + peak.fallbacks]
    if costs.cost_usd is None:
        lines.append(f"- Cost: {costs.cost_text} (give a price per chip-hour for a cost)")
    else:
        lines.append(f"- Cost: {costs.cost_text} ({format_chip_hours(costs.chip_hours)} × "
                     f"{costs.price_usd_per_chip_hour:g} USD; {_cell(costs.price_basis or '')})")
    if costs.energy_kwh is not None:
        lines.append(f"- Energy: {format_energy_kwh(costs.energy_kwh)} (TDP {costs.tdp_w:g} W × PUE {costs.pue:g}); "
                     f"CO₂ {format_co2_kg(costs.co2_kg)} at {costs.grid_kg_co2_per_kwh:g} kg/kWh "
                     f"({_cell(costs.grid_basis)})")
    if m1_training_flop:
        check = consistency_check(m1_training_flop, est.training_flop, utilization=est.utilization)
        lines += ["", "## Consistency of the two methods", "", f"- {check.message}",
                  f"- Ratio method 2 ÷ method 1: {check.ratio_method2_to_method1:.4g}"]
    return lines


def plan_section(scenario: Scenario) -> list[str]:
    """Lines of Markdown for ``scenario.plan`` (none when the scenario has no plan)."""
    saved = scenario.plan
    if saved is None:
        return []
    lay, opt = saved.layout, saved.options
    lines = ["## Plan — memory and time", "",
             f"- Layout: d {lay.dp} × t {lay.tp} × p {lay.pp}{f' × c {lay.cp}' if lay.cp > 1 else ''} = "
             f"{plural(lay.chips, 'chip')} of `{saved.chip}`"
             f" (e {lay.ep}{', context parallel ' + str(lay.cp) if lay.cp > 1 else ''}, micro-batch {lay.micro_batch}, global batch {lay.global_batch}, v {lay.virtual_stages}"
             f"{', sequence parallel' if lay.sequence_parallel else ''}, pipeline split {lay.pipeline_split})",
             f"- Framework `{opt.convention}`; attention {opt.attention}"
             + ("; torch.compile" if opt.compiled else "") + ("; tensor-parallel overlap" if opt.tp_overlap else "")
             + f"; optimizer {opt.optimizer}, {opt.precision}, ZeRO {opt.zero}, recomputation {opt.recompute}; "
             f"kernel efficiency {saved.kernel_efficiency:g}"
             + (f"; expert capacity factor {saved.capacity_factor:g}" if saved.capacity_factor != 1 else "")
             + ("; DeepEP/HybridEP dispatcher" if saved.dispatcher == "flex" else "")
             + ("; all-to-all overlapped" if saved.overlap_a2a else "")]
    try:
        model = scenario.plan_model()
        plan = plan_run(model, lay, opt, settings_for(saved, scenario.tokens()))
    except InputError as exc:
        return lines + [f"- **Error:** {_cell(exc)}"]
    mem, step = plan.memory, plan.step
    lines.append(f"- Memory per chip: model states {mem.model_states / GB:.4g} GB + activations "
                 f"{mem.activations / GB:.4g} GB = **{mem.total / GB:.4g} GB** of {plan.chip.memory_gb:g} GB — "
                 f"{'fits' if mem.fits else 'does not fit'}")
    if step is not None:
        lines.append(f"- Step: {step.step_s:.4g} s (compute {step.compute_s:.4g}, bubble {step.bubble_s:.4g}, "
                     f"TP {step.tp_comm_s:.4g}, PP {step.pp_comm_s:.4g}, DP {step.dp_comm_s:.4g}"
                     + (f", expert all-to-all {step.ep_comm_s:.4g}" if step.ep_comm_s else "")
                     + (f", context-parallel ring {step.cp_comm_s:.4g}" if step.cp_comm_s else "") + "); "
                     + (f"**predicted MFU {100 * step.mfu:.1f}%**" if step.mfu is not None else NO_COMPUTE)
                     + f" — {step.model}")
        lines += [f"- {note}" for note in step.notes]
        iv = plan.interval
        if iv is not None:
            mfu = (f"; MFU {100 * step.mfu * step.step_s / iv.high_s:.1f}% – {100 * step.mfu * step.step_s / iv.low_s:.1f}%"
                   if step.mfu is not None else "")
            lines.append(f"- 90% range: step {iv.low_s:.4g} – {iv.high_s:.4g} s{mfu} (from {iv.basis})")
        if plan.tokens:
            days = step.wall_clock_s(plan.tokens) / 86_400
            span = f" (90%: {days * iv.low_s / step.step_s:.4g} – {days * iv.high_s / step.step_s:.4g})" if iv else ""
            lines.append(f"- Wall-clock for {plan.tokens:.4g} tokens: {days:.4g} days{span}")
    lines.append("- Formulas: Korthikanti et al. 2022 (activations), Rajbhandari et al. 2020 (ZeRO), Narayanan et al. "
                 "2021 (pipeline bubble); link bandwidths: " + plan.link.source)
    return lines


def markdown_report(scenario: Scenario, est: Method1Estimate | None = None) -> str:
    """Every input, formula, result and source of ``scenario``, as Markdown."""
    est = est or scenario.method1(strict=False)
    title = _cell(scenario.name) or "Untitled scenario"
    lines = [f"# FLOPscope report — {title}", ""] + method1_section(scenario, est)
    if scenario.hardware is not None:
        lines += [""] + method2_section(scenario, est.training_flop)
    if scenario.plan is not None:
        lines += [""] + plan_section(scenario)
    if scenario.compression is not None:
        from .compress.summary import compression_section

        lines += [""] + compression_section(scenario.model_dump(mode="json"), scenario.compression)
    if scenario.serve is not None:
        from .serve.summary import serve_section

        lines += [""] + serve_section(scenario.serve)
    if est.training_flop:
        lines += [""] + thresholds_section(est.training_flop)
    lines += ["", "## Sources", ""] + [f"- {k}: {v}" for k, v in SOURCES.items()]
    lines += ["", "## Scenario (JSON, to restore it)", "", code_fence(scenario_json(scenario, indent=2), "json"), ""]
    return "\n".join(lines)
