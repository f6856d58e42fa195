"""Method 2's default utilization, from the reported utilizations the project ships (``utilization_reports.csv``).

u_default = median of the reports in the narrowest group that holds at least ``MIN_GROUP`` of them: the run's
chip generation × scale × model kind, else generation × kind, else kind, else every report. Its interval is
the group's 5th–95th percentile (method 2's ranges are 90% intervals). A figure reported as hardware FLOPs
utilization counts activation recomputation (a fourth pass for the model's three), so it enters as × 3/4.

Reports marked ``held_out`` (BLOOM-176B, Llama 3 405B) are the validation set: kept out of the default so
that the check against published chip-hours (BLOOM-176B, Llama 2 70B, Llama 3.1 405B, DeepSeek-V3;
``tests/method2/test_default_utilization.py``) is not fitted to them.

Reported figures are steady-state throughput of tuned runs; whole-run utilization (restarts, evaluation,
stragglers) is lower — the published chip-hours of the four validation runs imply 0.32–0.43.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from .hardware_db import Chip, HardwareDB, UtilizationPreset, load_hardware_db
from .utilization_priors import (
    UtilizationReport,
    generation_of,
    load_utilization_reports,
    scale_of,
)
from ..results import Result

MIN_GROUP = 5
HFU_TO_MFU = 3 / 4
"""Model FLOP / hardware FLOP with full recomputation: 3 passes (forward, backward ×2) of 4."""
PRESET_ID = "reported"


@dataclass(frozen=True, slots=True, kw_only=True)
class DefaultUtilization(Result):
    """The default utilization for a run, its 90% interval and the reports it comes from."""

    utilization: float
    low: float
    high: float
    n: int
    group: str
    """Which reports, in words: 'language models on chips launched 2020–2021 (A100, TPU v4)'."""
    runs: list[str]
    sources: list[str]

    def sentence(self) -> str:
        return (f"median of {self.n} reported utilizations of {self.group}: {100 * self.utilization:.0f}% "
                f"(90% range {100 * self.low:.0f}–{100 * self.high:.0f}%; {', '.join(self.runs[:6])}"
                f"{', …' if self.n > 6 else ''})")

    def preset(self) -> UtilizationPreset:
        return UtilizationPreset(id=PRESET_ID, label=f"Reported runs like this one: {100 * self.utilization:.0f}%",
                                 utilization=self.utilization, applies_to=self.group, source=self.sentence(),
                                 url=self.sources[0] if self.sources else "https://arxiv.org/abs/2204.02311")


def model_flop_utilization(report: UtilizationReport) -> float:
    """The report as model FLOPs utilization (× 3/4 for a hardware-FLOPs figure)."""
    return report.utilization * (HFU_TO_MFU if report.metric.lower().startswith("hardware") else 1.0)


def _percentile(values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    values = sorted(values)
    position = q * (len(values) - 1)
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def default_utilization(chip: Chip | None = None, chip_count: float | None = None, kind: str = "language",
                        reports: list[UtilizationReport] | None = None,
                        db: HardwareDB | None = None) -> DefaultUtilization:
    """The evidence-based default for a run on ``chip_count`` ``chip`` s training a ``kind`` model."""
    db = db or load_hardware_db()
    pool = [r for r in (load_utilization_reports() if reports is None else reports) if not r.held_out]
    placed = []
    for report in pool:
        found = db.find(report.chip)
        year = found.release_year if found is not None else None
        placed.append((report, generation_of(year) if year else None, scale_of(report.chip_count)))
    generation = generation_of(chip.release_year) if chip is not None and chip.release_year else None
    scale = scale_of(chip_count) if chip_count else None
    kind_words = {"language": "language models", "vision": "vision models"}.get(kind, f"{kind} models")
    tiers = [
        (lambda g, s, r: g == generation and s == scale and r.kind == kind,
         f"{kind_words} on {generation}, {scale}", generation is not None and scale is not None),
        (lambda g, s, r: g == generation and r.kind == kind, f"{kind_words} on {generation}", generation is not None),
        (lambda g, s, r: r.kind == kind, kind_words, True),
        (lambda g, s, r: True, "all reported runs", True),
    ]
    for keep, words, usable in tiers:
        members = [r for r, g, s in placed if usable and keep(g, s, r)]
        if len(members) >= MIN_GROUP or words == "all reported runs":
            break
    values = [model_flop_utilization(r) for r in members]
    return DefaultUtilization(
        utilization=statistics.median(values), low=_percentile(values, 0.05), high=_percentile(values, 0.95),
        n=len(values), group=words, runs=[r.name for r in members],
        sources=list(dict.fromkeys(r.source for r in members)))


def default_for_run(chip_text: object, chip_count: object, db: HardwareDB | None = None) -> DefaultUtilization:
    """The default for a run as a user typed it (a chip id or alias, a count): unknown values count as absent."""
    db = db or load_hardware_db()
    chip = db.find(chip_text) if isinstance(chip_text, str) else None
    try:
        count = float(chip_count) if chip_count is not None and not isinstance(chip_count, bool) else None
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer of 400 digits (the field says why)
        count = None
    if count is not None and not (0 < count < 1e9):
        count = None
    return default_utilization(chip, count, db=db)
