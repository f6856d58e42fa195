"""Peak FLOP/s per number format against release date, from ``hardware_db.json``, with the same fit.

Each chip of the database that has the format contributes one point (its dense peak, at its
launch date); CPUs are left out unless asked for, since their peaks sit orders of magnitude
below accelerators of the same year and would dominate the slope. The fit is
``engine.trends.fit``'s: doubling time in months with a 95% Student-t interval.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError, quoted
from ..method2.formats import PEAK_KEYS, peak_unit
from ..method2.hardware_db import HardwareDB, load_hardware_db
from ..records.partial_dates import parse_partial_date
from ..results import Result
from .fit import LogLinearFit, log_linear_fit_fields


@dataclass(frozen=True, slots=True, kw_only=True)
class HardwarePoint(Result):
    """One chip's peak in one number format, at its release date."""

    chip_id: str
    name: str
    vendor: str
    release_date: str
    decimal_year: float
    peak_flop_per_s: float
    """Dense peak; OP/s for int8."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HardwareTrend(LogLinearFit):
    """The trend of peak throughput in one number format (``mean_log10_value`` is log10 FLOP/s)."""

    peak_key: str
    unit: str
    include_cpus: bool
    chips: list[str]
    """Ids of the chips in the fit, by release date."""


def hardware_points(peak_key: str, db: HardwareDB | None = None, include_cpus: bool = False,
                    start_year: float | None = None, end_year: float | None = None) -> list[HardwarePoint]:
    """Chips with a ``peak_key`` peak (released in [start_year, end_year)), by release date."""
    if peak_key not in PEAK_KEYS:
        raise InputError("peak_key", f"unknown number format {quoted(peak_key)}; known: {', '.join(PEAK_KEYS)}")
    db = db or load_hardware_db()
    points = []
    for chip in db.chips:
        peak = chip.peaks.get(peak_key)
        if peak is None or chip.release_date is None or (chip.kind == "cpu" and not include_cpus):
            continue
        year = parse_partial_date(chip.release_date).decimal_year
        if (start_year is not None and year < start_year) or (end_year is not None and year >= end_year):
            continue
        points.append(HardwarePoint(chip_id=chip.id, name=chip.name, vendor=chip.vendor,
                                    release_date=chip.release_date, decimal_year=year, peak_flop_per_s=peak))
    return sorted(points, key=lambda p: p.decimal_year)


def fit_hardware_trend(peak_key: str = "fp32", db: HardwareDB | None = None, include_cpus: bool = False,
                       start_year: float | None = None, end_year: float | None = None) -> HardwareTrend:
    """Least-squares trend of log10(peak) on release date for one number format."""
    points = hardware_points(peak_key, db, include_cpus, start_year, end_year)
    try:
        fields = log_linear_fit_fields([p.decimal_year for p in points], [p.peak_flop_per_s for p in points])
    except ValueError as exc:
        raise InputError("peak_key", f"{peak_key}: {exc}") from None
    return HardwareTrend(peak_key=peak_key, unit=peak_unit(peak_key), include_cpus=include_cpus,
                         chips=[p.chip_id for p in points], **fields)
