"""Utilization priors from data: reported utilizations by chip generation and run scale.

Two sources: ``utilization_reports.csv`` (published MFU figures, shipped, each with its paper) and
an uploaded Epoch AI CSV's ``Hardware utilization`` column. Each report is placed by its chip's
launch year (generation) and the run's chip count (scale); a group gives n, the median and the
spread (25th–75th percentile, min–max). A group of at least ``MIN_REPORTS`` becomes a utilization
preset: its median, with the runs it comes from as the source.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..shipped import read_shipped_rows, shipped_data_error, shipped_file
from ..errors import from_validation_error
from .hardware_db import HardwareDB, UtilizationPreset, load_hardware_db
from ..records.epoch_rows import HardwareRow, parse_flop
from ..results import Result

REPORTS_PATH = shipped_file("utilization_reports.csv")
MIN_REPORTS = 3
GENERATIONS: tuple[tuple[int, str, str], ...] = (
    (2017, "pre-2017", "chips launched before 2017 (no tensor cores)"),
    (2020, "2017-2019", "chips launched 2017–2019 (V100, TPU v2/v3)"),
    (2022, "2020-2021", "chips launched 2020–2021 (A100, TPU v4)"),
    (10_000, "2022-on", "chips launched from 2022 (H100, TPU v5, Trainium)"),
)
SCALES: tuple[tuple[float, str, str], ...] = ((256, "under-256", "under 256 chips"),
                                              (2048, "256-2047", "256–2,047 chips"),
                                              (float("inf"), "2048-plus", "2,048 chips or more"))
_SLUGS = {label: slug for _, slug, label in GENERATIONS + SCALES} | {"chip count not published": "count-unknown"}


class UtilizationReport(BaseModel):
    """One reported utilization: the run, its chip and count, the figure and where it is printed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1, max_length=200)
    chip: str = Field(min_length=1, max_length=120)
    chip_count: float | None = Field(None, gt=0, le=1e8, allow_inf_nan=False)
    utilization: float = Field(gt=0, le=1, allow_inf_nan=False)
    metric: str = Field("reported", max_length=40)
    source: str = Field(min_length=1, max_length=400)
    note: str = Field("", max_length=1000)
    kind: Literal["language", "vision", "speech", "multimodal", "other"] = "language"
    """What the model is: the default utilization groups by it."""
    held_out: bool = False
    """A run of the validation set (``engine.method2.default_utilization``): kept out of the default."""

    @field_validator("held_out", mode="before")
    @classmethod
    def _yes(cls, value):
        return {"yes": True, "": False, None: False}.get(value, value) if not isinstance(value, bool) else value


@dataclass(frozen=True, slots=True, kw_only=True)
class UtilizationPrior(Result):
    """A group of reports (one generation × one scale) summarised."""

    generation: str
    scale: str
    n: int
    median: float
    p25: float
    p75: float
    minimum: float
    maximum: float
    runs: list[str]
    sources: list[str]

    def preset(self, origin: str) -> UtilizationPreset:
        """The group's median as a utilization preset, with its runs as the source."""
        return UtilizationPreset(
            id=f"{origin.lower()}-{_SLUGS[self.generation]}-{_SLUGS[self.scale]}",
            label=f"{origin}: {self.generation}, {self.scale}: median {100 * self.median:.0f}% (n={self.n})",
            utilization=self.median, applies_to=f"runs on {self.generation}, {self.scale}",
            source=(f"median of {self.n} reported utilizations ({', '.join(self.runs[:8])}"
                    f"{', …' if self.n > 8 else ''}); spread {100 * self.p25:.0f}–{100 * self.p75:.0f}% "
                    f"(25th–75th percentile), {100 * self.minimum:.0f}–{100 * self.maximum:.0f}% overall"),
            url=self.sources[0] if self.sources else "https://epoch.ai/data/notable-ai-models")


def generation_of(release_year: int) -> str:
    return next(label for bound, _, label in GENERATIONS if release_year < bound)


def scale_of(chip_count: float | None) -> str:
    if chip_count is None:
        return "chip count not published"
    return next(label for bound, _, label in SCALES if chip_count < bound)


def _quantile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def summarise(reports: list[UtilizationReport], db: HardwareDB | None = None) -> list[UtilizationPrior]:
    """Group reports by generation (the chip's launch year) and scale (chip count); unknown chips skipped."""
    db = db or load_hardware_db()
    groups: dict[tuple[str, str], list[UtilizationReport]] = {}
    order = {label: i for i, (_, _, label) in enumerate(GENERATIONS)}
    for report in reports:
        chip = db.find(report.chip)
        if chip is None or chip.release_year is None:
            continue
        groups.setdefault((generation_of(chip.release_year), scale_of(report.chip_count)), []).append(report)
    priors = []
    for (generation, scale), members in groups.items():
        values = sorted(r.utilization for r in members)
        priors.append(UtilizationPrior(
            generation=generation, scale=scale, n=len(values), median=statistics.median(values),
            p25=_quantile(values, 0.25), p75=_quantile(values, 0.75), minimum=values[0], maximum=values[-1],
            runs=[r.name for r in members], sources=list(dict.fromkeys(r.source for r in members))))
    return sorted(priors, key=lambda p: (order[p.generation], p.scale))


@lru_cache(maxsize=2)
def _load(path_text: str) -> tuple[UtilizationReport, ...]:
    path = Path(path_text)
    required = tuple(c for c, f in UtilizationReport.model_fields.items() if f.is_required())
    reports = []
    for line, row in read_shipped_rows(path, required):
        try:
            reports.append(UtilizationReport.model_validate(
                {**row, "chip_count": row.get("chip_count") or None, "kind": row.get("kind") or "language"}))
        except ValidationError as exc:
            raise shipped_data_error(path, from_validation_error(exc, prefix=f"line {line}")) from None
    return tuple(reports)


def load_utilization_reports(path: str | Path | None = None) -> list[UtilizationReport]:
    """The shipped reports (``utilization_reports.csv``), validated."""
    return list(_load(str(Path(path or REPORTS_PATH).resolve())))


def reports_from_epoch(rows: list[HardwareRow], db: HardwareDB | None = None) -> list[UtilizationReport]:
    """The ``Hardware utilization`` of an Epoch CSV's rows whose chip is known (one chip type)."""
    db = db or load_hardware_db()
    reports = []
    for row in rows:
        chip = db.find(row.hardware) if "," not in row.hardware else None
        if chip is None or not row.utilization:
            continue
        try:
            utilization = parse_flop(row.utilization)
            count = parse_flop(row.quantity) if row.quantity else None
        except ValueError:
            continue
        if utilization > 1 or (count is not None and count > 1e8):
            continue
        reports.append(UtilizationReport(name=row.name[:200], chip=chip.id, chip_count=count,
                                         utilization=utilization, metric="Epoch 'Hardware utilization'",
                                         source="https://epoch.ai/data/notable-ai-models"))
    return reports


def prior_presets(db: HardwareDB | None = None, reports: list[UtilizationReport] | None = None,
                  origin: str = "Reported") -> list[UtilizationPreset]:
    """Presets from groups of at least ``MIN_REPORTS`` reports (the shipped ones by default)."""
    reports = load_utilization_reports() if reports is None else reports
    return [p.preset(origin) for p in summarise(reports, db) if p.n >= MIN_REPORTS]
