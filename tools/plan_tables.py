"""The published-run tables of docs/plan.md, written from the data and the planner:
``python -m tools.plan_tables [--write]`` prints them (or rewrites each table in docs/plan.md in place, found by
its first case). tests/plan check that docs/plan.md holds every line."""
from __future__ import annotations

import sys
from pathlib import Path

from engine.plan.published import comparisons, markdown_table

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plan.md"
TABLES = (("narayanan-2021",), ("korthikanti-2022",), ("nemo-24.07", "bridge-moe"), ("bridge-moe-releases",),
          ("nemo-long-context",), ("bridge-chips",))
"""The tables of docs/plan.md, each of one or more sets (the constant-model set is a table of utilizations, on the
Plan page)."""


def tables() -> dict[tuple[str, ...], list[str]]:
    return {sets: markdown_table(*sets) for sets in TABLES}


def rewrite(text: str) -> str:
    """``text`` with each table replaced: the one holding its first case, header to last row."""
    lines = text.split("\n")
    for sets, table in tables().items():
        name = sets[0]
        first = f"| {comparisons(name)[0].case} |"
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
        DOCS.write_text(rewrite(DOCS.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        for sets, table in tables().items():
            print(f"\n{' + '.join(sets)}\n" + "\n".join(table))
