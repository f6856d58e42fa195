"""The report's "Plan" section: the saved layout's memory per chip, step time and MFU."""
from __future__ import annotations

from engine.errors import InputError
from engine.plan.memory import GB
from engine.plan.model import scenario_model, scenario_tokens
from engine.plan.run_plan import PlanSettings, plan_run
from engine.plan.step_time import NO_COMPUTE


def plan_section(scenario) -> list[str]:
    """Lines of Markdown for ``scenario.plan`` (none when the scenario has no plan)."""
    saved = scenario.plan
    if saved is None:
        return []
    lay, opt = saved.layout, saved.options
    lines = ["## Plan — memory and time", "",
             f"- Layout: d {lay.dp} × t {lay.tp} × p {lay.pp} = {lay.chips:,} chips of `{saved.chip}`"
             f" (e {lay.ep}, micro-batch {lay.micro_batch}, global batch {lay.global_batch}, v {lay.virtual_stages}"
             f"{', sequence parallel' if lay.sequence_parallel else ''})",
             f"- Optimizer {opt.optimizer}, {opt.precision}, ZeRO {opt.zero}, recomputation {opt.recompute}; "
             f"kernel efficiency {saved.kernel_efficiency:g}"]
    try:
        model = scenario_model(scenario)
        plan = plan_run(model, lay, opt, PlanSettings(chip=saved.chip, kernel_efficiency=saved.kernel_efficiency,
                                                      tokens=scenario_tokens(scenario)))
    except InputError as exc:
        return lines + [f"- **Error:** {exc}"]
    mem, step = plan.memory, plan.step
    lines.append(f"- Memory per chip: model states {mem.model_states / GB:.4g} GB + activations "
                 f"{mem.activations / GB:.4g} GB = **{mem.total / GB:.4g} GB** of {plan.chip.memory_gb:g} GB — "
                 f"{'fits' if mem.fits else 'does not fit'}")
    if step is not None:
        lines.append(f"- Step: {step.step_s:.4g} s (compute {step.compute_s:.4g}, bubble {step.bubble_s:.4g}, "
                     f"TP {step.tp_comm_s:.4g}, PP {step.pp_comm_s:.4g}, DP {step.dp_comm_s:.4g}); "
                     + (f"**predicted MFU {100 * step.mfu:.1f}%**" if step.mfu is not None else NO_COMPUTE))
        if plan.tokens:
            lines.append(f"- Wall-clock for {plan.tokens:.4g} tokens: {step.wall_clock_s(plan.tokens) / 86_400:.4g} days")
    lines.append("- Formulas: Korthikanti et al. 2022 (activations), Rajbhandari et al. 2020 (ZeRO), Narayanan et al. "
                 "2021 (pipeline bubble); link bandwidths: " + plan.link.source)
    return lines
