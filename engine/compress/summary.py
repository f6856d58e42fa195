"""A saved compression (``Scenario.compression``) in words: the report's section."""
from __future__ import annotations

from .compression import Compression, compress
from ..errors import InputError
from ..safe_text import report_text
from ..units import format_flop


def compression_section(data: dict, spec: Compression) -> list[str]:
    lines = ["## Compression", ""]
    try:
        r = compress(data, spec)
    except InputError as exc:
        return lines + [f"- Not computed: {report_text(exc)}"]
    lines += ["| | before | after |", "|---|---|---|",
              f"| parameters | {r.before.params:,.0f} | {r.after.params:,.0f} |",
              f"| forward FLOP / example | {format_flop(r.before.forward_flop)} | "
              f"{format_flop(r.after.forward_flop)} |"]
    if r.before.training_flop is not None:
        lines.append(f"| training FLOP | {format_flop(r.before.training_flop)} | "
                     f"{format_flop(r.after.training_flop) if r.after.training_flop is not None else '—'} |")
    lines.append("")
    if r.extra_flop:
        lines.append(f"- Extra compute of the technique: {format_flop(r.extra_flop)}")
    if r.schedule_flop is not None:
        lines.append(f"- Whole schedule: {format_flop(r.schedule_flop)}")
    if r.ideal_speedup:
        lines.append(f"- Ideal speed-up (FLOP or peak): {r.ideal_speedup:.3g}×")
    if r.measured_speedup:
        lines.append(f"- Measured speed-up: {r.measured_speedup:.3g}× — {r.speedup_source}")
    lines += [f"- {note}" for note in r.notes]
    return lines
