"""The published-run tables of docs/plan.md and the planner's errors by regime (engine/plan/model_error.json),
written from the data and the planner: ``python -m tools.plan_tables [--write]`` prints the tables (or rewrites
each table in docs/plan.md in place, found by its first case, and model_error.json). tests/plan check that
docs/plan.md holds every line and that model_error.json is a fresh comparison's."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.plan.published import markdown_table, model_error_data, summary_table
from engine.plan.uncertainty import PATH as MODEL_ERROR

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plan.md"
TABLES = (("narayanan-2021",), ("korthikanti-2022",), ("nemo-24.07", "bridge-moe"), ("bridge-moe-releases",),
          ("nemo-long-context",), ("bridge-chips",), ("mt-nlg-2022", "bloom-2022"),
          ("torchtitan-2024-04-18", "torchtitan-2024-04-24", "torchtitan-2024-08-23", "torchtitan-2025-01-30"),
          ("llm-foundry-2023-05-03", "llm-foundry-2023-10-19", "llm-foundry-2024-01-06"), ("llama3-2024",))
"""The run tables of docs/plan.md, each of one or more sets (the constant-model set is a table of utilizations, on the
Plan page); the summary by framework and role comes first."""


def tables() -> dict[str, list[str]]:
    out = {"summary": summary_table()}
    out.update({" + ".join(sets): markdown_table(*sets) for sets in TABLES})
    return out


def rewrite(text: str) -> str:
    """``text`` with each table replaced: the one holding its first row (its first two cells), header to last row."""
    lines = text.split("\n")
    for name, table in tables().items():
        first = "|".join(table[2].split("|")[:3]) + "|"
        at = next((i for i, line in enumerate(lines) if line.startswith(first)), None)
        if at is None:
            raise SystemExit(f"docs/plan.md has no table for {name} (no line starting {first!r})")
        start = at
        while start > 0 and lines[start - 1].startswith("|"):
            start -= 1
        end = at
        while end + 1 < len(lines) and lines[end + 1].startswith("|"):
            end += 1
        lines[start:end + 1] = table
    return "\n".join(lines)


if __name__ == "__main__":
    if "--write" in sys.argv:
        MODEL_ERROR.write_text(json.dumps(model_error_data(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        DOCS.write_text(rewrite(DOCS.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        for name, table in tables().items():
            print(f"\n{name}\n" + "\n".join(table))
