"""Reconcile an Epoch AI models CSV: recompute method 2 per row beside the reported compute.

For each row naming ``Training hardware``, ``Hardware quantity`` and ``Training time (hours)``:

    C₂ = N × t × 3600 × P × u,   ratio = C₂ / C_reported

N chips, t wall-clock hours, P the chip's dense peak in its default format (``hardware_db.json``:
BF16 tensor on A100/H100/TPU, FP16 tensor on V100, FP32 before tensor cores), u the row's
``Hardware utilization`` or, where absent, Epoch's guidance (30% for language models, 40% for
others). A ratio beyond 3× either way is flagged, with the likely cause where the row says so: the
reported compute includes a base model, or the "hours" are already chip-hours.
"""
from __future__ import annotations

import math
import os
import re
import statistics
from dataclasses import dataclass

from ..method2.hardware_db import HardwareDB, load_hardware_db
from ..method2.precision import format_of_peak_key, peak_key_label
from ..records.epoch_rows import HardwareRow, parse_flop, parse_training_flop
from ..records.partial_dates import parse_partial_date
from ..results import Result
from .epoch_csv import read_epoch_csv

FLAG_FACTOR = 3.0
"""OpenAI aimed for the two methods to agree within 2–3×; beyond 3× a row is flagged."""
UTILIZATION_LANGUAGE = 0.3
UTILIZATION_OTHER = 0.4
UTILIZATION_SOURCE = ("Sevilla et al., 'Estimating Training Compute of Deep Learning Models', Epoch AI, 2022: "
                      "30% for large language models, 40% for other models "
                      "(https://epoch.ai/blog/estimating-training-compute)")
_COUNTING_WORDS = re.compile(r"\b6\s*\*?\s*n\s*\*?\s*d\b|operation count|mult-adds|multiply-adds|flop ?/ ?token",
                             re.IGNORECASE)
_CHIP_HOURS_WORDS = re.compile(r"(gpu|tpu|chip|core|accelerator|device)[- ]?(hours|hrs|days)", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReconciledRow(Result):
    """One row: its inputs as understood, method 2's figure, the reported one, and the verdict."""

    row: int
    name: str
    publication_date: str
    hardware: str
    status: str
    """'compared', 'no reported compute', 'combined hardware', 'unknown chip' or 'bad input'."""
    message: str | None = None
    chip_id: str | None = None
    chip_name: str | None = None
    chip_count: float | None = None
    training_hours: float | None = None
    utilization: float | None = None
    utilization_assumed: bool = False
    format: str | None = None
    peak_flop_per_s: float | None = None
    method2_flop: float | None = None
    reported_flop: float | None = None
    ratio: float | None = None
    """method 2 ÷ reported."""
    flagged: bool = False
    likely_cause: str | None = None
    confidence: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReconcileSummary(Result):
    """Counts over the rows, the spread of the ratios, and the utilization guidance used."""

    rows_read: int
    rows_with_hardware: int
    """Rows naming hardware, a chip count and a training time."""
    rows_resolved: int
    """... whose hardware is one chip of the database."""
    rows_compared: int
    """... that also report a training compute figure."""
    median_ratio: float | None
    share_within_2x: float | None
    share_within_3x: float | None
    flagged: int
    by_status: dict[str, int]
    utilization_source: str = UTILIZATION_SOURCE


@dataclass(frozen=True, slots=True, kw_only=True)
class Reconciliation(Result):
    """The summary and every row, in the file's order."""

    summary: ReconcileSummary
    rows: list[ReconciledRow]


def _positive(text: str, field: str, upper: float = math.inf) -> float:
    """A positive finite number at most ``upper``; ``ValueError('field: reason')`` otherwise."""
    try:
        value = parse_flop(text)  # positive finite, any float notation
    except ValueError as exc:
        raise ValueError(f"{field}: {exc}") from None
    if value > upper:
        raise ValueError(f"{field}: {text[:40]!r} is above {upper:g}")
    return value


def _likely_cause(row: HardwareRow, ratio: float, count: float) -> str | None:
    """The row's own explanation of a ratio beyond 3×, if it gives one."""
    if ratio < 1 / FLAG_FACTOR and row.base_model:
        return (f"the reported compute includes the base model ({row.base_model[:80]}); the hardware and time "
                "are the fine-tune's")
    if ratio > FLAG_FACTOR:
        per_chip = ratio / count
        if _CHIP_HOURS_WORDS.search(row.time_notes) and count > 1:
            return (f"the time notes speak of chip-hours: read as chip-hours, the ratio is {per_chip:.3g}")
        if count >= FLAG_FACTOR and 1 / FLAG_FACTOR <= per_chip <= FLAG_FACTOR:
            return (f"'hours' may already be chip-hours: divided by the {count:g} chips, the ratio is "
                    f"{per_chip:.3g}")
    notes = row.compute_notes.lower()
    if ratio < 1 / FLAG_FACTOR and "fine" in notes:
        return "the compute notes mention fine-tuning: the reported figure may include earlier training"
    if "geometric mean" in notes:
        return "the reported figure is a geometric mean of several estimates (the compute notes say so)"
    if _COUNTING_WORDS.search(notes):
        return "the reported figure counts operations (the compute notes say so), not hardware time"
    return None


def reconcile_row(row: HardwareRow, db: HardwareDB) -> ReconciledRow:
    """Method 2 for one row (see the module docstring), or the reason it cannot be computed."""
    try:
        when = parse_partial_date(row.date).isoformat() if row.date else ""
    except ValueError:
        when = row.date[:40]
    base = dict(row=row.row, name=row.name[:200], publication_date=when, hardware=row.hardware[:200],
                confidence=row.confidence[:40])
    parts = [p.strip() for p in row.hardware.split(",") if p.strip()]
    if len(parts) > 1:
        named = "; ".join(p[:60] for p in parts[:6])
        return ReconciledRow(**base, status="combined hardware",
                             message=f"several chip types ({named}): method 2 needs one type and its count; "
                                     "not recomputed")
    chip = db.find(row.hardware)
    if chip is None:
        year = int(when[:4]) if when[:4].isdigit() else None
        return ReconciledRow(**base, status="unknown chip", message=db.unknown_chip_message(row.hardware, year))
    base.update(chip_id=chip.id, chip_name=chip.name)
    try:
        count = _positive(row.quantity, "Hardware quantity", 1e8)
        hours = _positive(row.hours, "Training time (hours)", 1e7)
    except ValueError as exc:
        return ReconciledRow(**base, status="bad input", message=str(exc))
    utilization, assumed = None, False
    if row.utilization:
        try:
            utilization = _positive(row.utilization, "Hardware utilization", 1.0)
        except ValueError:
            utilization = None
    if utilization is None:
        assumed = True
        utilization = UTILIZATION_LANGUAGE if "language" in row.domain.lower() else UTILIZATION_OTHER
    key = chip.usual_format
    precision, _ = format_of_peak_key(key)
    peak = chip.peaks.get(key)
    method2 = count * hours * 3600.0 * peak * utilization
    base.update(chip_count=count, training_hours=hours, utilization=utilization, utilization_assumed=assumed,
                format=peak_key_label(key), peak_flop_per_s=peak, method2_flop=method2)
    if not row.flop:
        return ReconciledRow(**base, status="no reported compute")
    try:
        reported = parse_training_flop(row.flop)
    except ValueError as exc:
        return ReconciledRow(**base, status="bad input", message=f"Training compute (FLOP): {exc}")
    ratio = method2 / reported
    flagged = not (1 / FLAG_FACTOR <= ratio <= FLAG_FACTOR)
    return ReconciledRow(**base, status="compared", reported_flop=reported, ratio=ratio, flagged=flagged,
                         likely_cause=_likely_cause(row, ratio, count) if flagged else None)


def reconcile_rows(rows: list[HardwareRow], rows_read: int, db: HardwareDB | None = None) -> Reconciliation:
    db = db or load_hardware_db()
    results = [reconcile_row(row, db) for row in rows]
    compared = [r for r in results if r.status == "compared"]
    ratios = [r.ratio for r in compared]

    def share(factor: float) -> float | None:
        return sum(1 / factor <= x <= factor for x in ratios) / len(ratios) if ratios else None

    by_status: dict[str, int] = {}
    for r in results:
        by_status[r.status] = by_status.get(r.status, 0) + 1
    summary = ReconcileSummary(
        rows_read=rows_read, rows_with_hardware=len(results),
        rows_resolved=sum(r.chip_id is not None for r in results), rows_compared=len(compared),
        median_ratio=statistics.median(ratios) if ratios else None, share_within_2x=share(2.0),
        share_within_3x=share(3.0), flagged=sum(r.flagged for r in compared), by_status=by_status)
    return Reconciliation(summary=summary, rows=results)


def reconcile_epoch_csv(source: str | os.PathLike | bytes, db: HardwareDB | None = None) -> Reconciliation:
    """Read an Epoch AI models CSV (path or bytes) and reconcile every row with hardware and time."""
    imported = read_epoch_csv(source)
    return reconcile_rows(imported.hardware_rows, imported.rows_read, db)
