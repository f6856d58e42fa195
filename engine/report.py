"""The Markdown report: every input, formula, result and source of a scenario."""
from __future__ import annotations

from engine.method1 import Method1Estimate
from engine.scenario import Scenario
from engine.share_link import scenario_json
from engine.units import PFS_DAY_FLOP, format_flop

SOURCES = {
    "Method 1 and 2, per-layer formulas": "Sevilla et al. (2022), Estimating Training Compute of Deep Learning "
                                          "Models, Epoch AI — https://epoch.ai/blog/estimating-training-compute",
    "Trend, appendix calculations": "Amodei & Hernandez (2018), AI and Compute, OpenAI — "
                                    "https://openai.com/index/ai-and-compute/",
    "matmul convention": "PyTorch torch.utils.flop_counter.FlopCounterMode — "
                         "https://github.com/pytorch/pytorch/blob/main/torch/utils/flop_counter.py",
}


def _cell(text: str) -> str:
    """Markdown table cells: user text is escaped, never interpreted."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


def method1_section(scenario: Scenario, est: Method1Estimate) -> list[str]:
    lines = ["## Method 1 — from the architecture", ""]
    if scenario.mode == "quick":
        q = scenario.quick
        lines += [f"- Quick form: {q.kind} = {q.value:.6g}" + (f" ({q.unit})" if q.kind == "ops_per_forward" else ""),
                  "- Formula: F = 2 × connections, or published ops × 2 when they are MACs (1 MAC = 2 FLOP)"]
    else:
        lines += [f"- Input: shape {scenario.input.shape}"
                  + (f", sequence length T = {scenario.input.sequence_length}" if scenario.input.sequence_length else ""),
                  f"- Convention: `{est.convention}`", "",
                  "| # | layer | name | output | params | forward FLOP | MACs | share |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in est.architecture.rows:
            lines.append(f"| {r.index} | {r.type}{' · ' + r.part if r.part else ''} | {_cell(r.name)} | {r.output} | "
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
                  f"- **Training compute: {format_flop(t.training_flop)} = {t.pfs_days:.4g} PF-days** "
                  f"(1 PF-day = {PFS_DAY_FLOP:.3g} FLOP)"]
    return lines


def markdown_report(scenario: Scenario, est: Method1Estimate, extra_sections: list[list[str]] = ()) -> str:
    title = _cell(scenario.name) or "Untitled scenario"
    lines = [f"# FLOPscope report — {title}", ""] + method1_section(scenario, est)
    for section in extra_sections:
        lines += [""] + section
    lines += ["", "## Sources", ""] + [f"- {k}: {v}" for k, v in SOURCES.items()]
    lines += ["", "## Scenario (JSON, to restore it)", "", "```json", scenario_json(scenario, indent=2), "```", ""]
    return "\n".join(lines)
