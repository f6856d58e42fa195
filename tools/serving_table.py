"""Write the by-row error table of docs/serving.md (between its markers) from engine/serve/validation.
Run: python -m tools.serving_table"""
from __future__ import annotations

import re
from pathlib import Path

from engine.serve import validation

DOC = Path(__file__).resolve().parents[1] / "docs" / "serving.md"
START, END = "<!-- serving-table -->", "<!-- /serving-table -->"


def _value(metric: str, value: float) -> str:
    return f"{value:.3f} s" if metric == "latency_s" else f"{value:,.1f} tok/s"


def table() -> str:
    errors = validation.row_errors()
    lines = []
    for role in ("validation", "calibration"):
        rows = [e for e in errors if e.role == role]
        s = validation.summary(rows)
        lines.append(f"{role.capitalize()} ({s['rows']} rows): median {100 * s['median_abs_error']:.1f}%, "
                     f"worst {100 * s['worst_abs_error']:.1f}%  ")
        for engine in s["engines"]:
            e = validation.summary([r for r in rows if r.engine == engine])
            lines.append(f"- {engine}: {e['rows']} rows, median {100 * e['median_abs_error']:.1f}%, worst "
                         f"{100 * e['worst_abs_error']:.1f}%")
        lines.append("")
    lines += ["| row | role | engine | model | chips | P / O | measured | predicted | error |",
              "|---|---|---|---|---|---|---|---|---|"]
    for e in errors:
        lines.append(f"| {e.id} | {e.role} | {e.engine} | {e.model} | {e.chips} × {e.chip} | {e.prompt} / {e.output} "
                     f"| {_value(e.metric, e.measured)} | {_value(e.metric, e.predicted)} | {100 * e.error:+.1f}% |")
    return "\n".join(lines)


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    new = re.sub(f"{START}.*?{END}", lambda _: f"{START}\n{table()}\n{END}", text, flags=re.DOTALL)
    DOC.write_text(new, encoding="utf-8")
