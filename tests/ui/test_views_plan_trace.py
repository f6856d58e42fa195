"""ui.views.plan_trace: the comparison's figures as text (units, signs, rows) — on hand-made results."""
from __future__ import annotations

from types import SimpleNamespace

from engine.plan.against_trace import PartRow
from ui.views.plan_trace import ms, part_rows, signed_ms, versus_metrics


def test_milliseconds_under_a_second_seconds_above():
    assert ms(0.0348924) == "34.892 ms" and ms(2.7400531) == "2.740 s" and ms(None) == "—"
    assert signed_ms(-0.5) == "−500.000 ms" and signed_ms(1.5) == "+1.500 s" and signed_ms(None) == "—"


def test_rows_and_metrics():
    parts = [PartRow("computation", 0.010, 0.012), PartRow("pipeline bubble", 0.002, None, "measured within idle")]
    versus = SimpleNamespace(parts=parts, planned_step_s=0.020, measured_step_s=0.025, gap_s=0.005, steps=2)
    comparison = SimpleNamespace(versus=versus)
    rows = part_rows(comparison)
    assert rows[0] == {"part": "computation", "planned": "10.000 ms", "measured": "12.000 ms",
                       "measured − planned": "+2.000 ms", "note": ""}
    assert rows[1]["measured"] == "—" and rows[1]["measured − planned"] == "—"
    labels = {label: (value, tip) for label, value, tip in versus_metrics(comparison)}
    assert labels["Measured − planned"] == ("+5.000 ms", "+25% of the planned step")  # 0.005 / 0.020
