"""Unknown hardware: the peak a typical chip of a year and class had, from the database's own trend.

For one peak key k (a number format) and one class (data-centre accelerators, or workstation and
consumer cards), the chips of that class with a k peak give points (launch date t_i, log10 P_i).
Around the year asked for, y, the points launched within ``WINDOW_YEARS`` of y + 0.5 are fitted by
least squares, log10 P(t) = a + b·(t − t̄); the chips on or above that line (the faster half: the
training parts notable runs used, not the inference cards of the same year) lie above it by their
mean residual r̄, and the estimate is a + b·(y + 0.5 − t̄) + r̄ (at most the window's fastest
chip): a trend, not a plain mean of whatever launched that year. A year more than ``HOLD_YEARS`` past the
class's newest chip is read at that point (the trend is not extended further).
Where the window holds fewer than ``MIN_POINTS`` chips, the nearest ``MIN_POINTS`` by date are
used. The spread is the residual standard deviation s of all the window's chips (in orders of
magnitude): a 90% band P × 10^(±1.645·s).

Leave-one-out on the 139 rows of Epoch's notable-models file with a known chip (the chip left out
of the fit, its launch year and class given): median ratio 0.92, 95% within 2× (see
``tests/method2/test_unknown_hardware.py``).

A year before the format existed in that class (BF16 tensor in 2012) falls back to the format such
hardware trained in then, flagged, by the same chains a chip uses (``formats.PeakFormat.fallbacks``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..errors import InputError
from .formats import FORMAT_BY_KEY, PEAK_KEYS
from .hardware_db import Chip, HardwareDB, Peaks
from ..records.partial_dates import parse_partial_date
from ..results import Result

HardwareClass = Literal["data_center", "workstation_consumer"]
HARDWARE_CLASSES: tuple[str, ...] = ("data_center", "workstation_consumer")
CLASS_SEGMENTS: dict[str, tuple[str, ...]] = {"data_center": ("data_center",),
                                              "workstation_consumer": ("workstation", "consumer")}
CLASS_LABELS = {"data_center": "data-centre accelerators", "workstation_consumer": "workstation and consumer cards"}
FIRST_YEAR = 2008
WINDOW_YEARS = 4.0
MIN_POINTS = 4
HOLD_YEARS = 1.0
"""A year more than this past the class's newest chip reads the trend there (no far extrapolation)."""
Z90 = 1.6448536269514722
"""Standard normal 95th percentile: ±Z90·s holds 90% of a normal spread."""


def default_key_for_year(year: int) -> str:
    """What an unknown chip of ``year`` is assumed to have trained in: FP32 before tensor cores (to
    2016), FP16 tensor in the V100/T4/Turing years (2017–2019), BF16 tensor from the A100/TPU era (2020)."""
    return "fp32" if year < 2017 else "fp16_tensor" if year < 2020 else "bf16_tensor"


@dataclass(frozen=True, slots=True, kw_only=True)
class YearPeak(Result):
    """The trend peak of one format for one year and class, with its 90% band and the chips behind it."""

    year: int
    hardware_class: str
    peak_key: str
    requested_key: str
    peak_flop_per_s: float
    low_flop_per_s: float
    high_flop_per_s: float
    spread_oom: float
    """Residual standard deviation of all the window's chips around their line, in orders of magnitude."""
    n_chips: int
    n_faster: int
    """Chips on or above the window's line: the faster half, whose trend gives the peak."""
    window: tuple[float, float]
    slope_oom_per_year: float
    chips: list[str]
    fallback: str | None = None
    held_at: float | None = None
    """Set when the year is past the newest chip of the class by more than ``HOLD_YEARS``: the date
    the trend was read at instead."""

    def describe(self) -> str:
        label = CLASS_LABELS[self.hardware_class]
        held = (f" (held at {self.held_at:.1f}, a year past the newest such chip)" if self.held_at else "")
        return (f"unknown hardware: {self.peak_key} trend of the faster {self.n_faster} of {self.n_chips} {label} "
                f"launched {int(self.window[0])}–{int(self.window[1])}, at {self.year}{held}: "
                f"{self.peak_flop_per_s:.3g} (90% band {self.low_flop_per_s:.3g}–{self.high_flop_per_s:.3g}, "
                f"×{10 ** (Z90 * self.spread_oom):.2g})")


def _points(db: HardwareDB, key: str, hardware_class: str, exclude: frozenset[str]) -> list[tuple[float, float, str]]:
    segments = CLASS_SEGMENTS[hardware_class]
    points = []
    for chip in db.chips:
        value = chip.peaks.get(key)
        if (value is None or chip.kind == "cpu" or chip.segment not in segments or chip.id in exclude
                or chip.release_date is None):
            continue
        points.append((parse_partial_date(chip.release_date).decimal_year, math.log10(value), chip.id))
    return sorted(points)


def _fit(points: list[tuple[float, float, str]], at: float) -> tuple[float, float, float]:
    """(log10 value at ``at``, slope, residual std) of a least-squares line; a flat line for one date."""
    n = len(points)
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x_mean, y_mean = sum(xs) / n, sum(ys) / n
    sxx = sum((x - x_mean) ** 2 for x in xs)
    slope = sum((x - x_mean) * (y - y_mean) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    slope = max(slope, 0.0)  # peaks do not fall with time: a negative local slope is noise
    residuals = [y - (y_mean + slope * (x - x_mean)) for x, y in zip(xs, ys)]
    dof = max(n - 2, 1)
    spread = math.sqrt(sum(r * r for r in residuals) / dof) if n > 2 else 0.3
    return y_mean + slope * (at - x_mean), slope, spread


def year_peak(db: HardwareDB, year: int, peak_key: str, hardware_class: str = "data_center",
              exclude: frozenset[str] | set[str] = frozenset()) -> YearPeak:
    """The ``peak_key`` peak of a typical ``hardware_class`` chip of ``year`` (trend, 90% band).

    ``exclude``: chip ids left out of the fit (leave-one-out checks). A format the class did not
    have by then falls back along the format's fallbacks (flagged); ``InputError`` when nothing is left.
    """
    if not isinstance(year, int) or isinstance(year, bool) or not FIRST_YEAR <= year <= 2100:
        raise InputError("year", f"give a year from {FIRST_YEAR} on (got {year!r})")
    if hardware_class not in CLASS_SEGMENTS:
        raise InputError("hardware_class", f"choose one of {', '.join(HARDWARE_CLASSES)}")
    if peak_key not in PEAK_KEYS:
        raise InputError("precision", f"unknown peak key '{peak_key}'")
    exclude = frozenset(exclude)
    at = year + 0.5
    fallback = None
    chain = (peak_key, *FORMAT_BY_KEY[peak_key].fallbacks)
    found = {key: _points(db, key, hardware_class, exclude) for key in chain}
    existing = [key for key in chain if len(found[key]) >= 2 and found[key][0][0] <= year + 1]
    usable = [key for key in chain if len(found[key]) >= 2]
    if not usable:
        raise InputError("precision", f"no {CLASS_LABELS[hardware_class]} in the database have a {peak_key} peak")
    key = existing[0] if existing else usable[-1]
    points = found[key]
    if key != peak_key:
        fallback = (f"no {CLASS_LABELS[hardware_class]} had a {peak_key} peak by {year}: used the {key} trend "
                    "(fallback)")
    elif not existing:
        fallback = None  # the format is the class's oldest: the trend is extended back to the year
    newest = points[-1][0]
    held = at > newest + HOLD_YEARS
    at = min(at, newest + HOLD_YEARS)  # no trend is extended far past the newest chip
    window = [p for p in points if abs(p[0] - at) <= WINDOW_YEARS]
    if len(window) < MIN_POINTS:
        window = sorted(points, key=lambda p: abs(p[0] - at))[:MIN_POINTS]
    log_all, slope, spread = _fit(window, at)
    x_mean = sum(p[0] for p in window) / len(window)
    y_mean = sum(p[1] for p in window) / len(window)
    residuals = [p[1] - (y_mean + slope * (p[0] - x_mean)) for p in window]
    faster = [p for p, r in zip(window, residuals) if r >= 0]
    # the faster half sits above the window's line by its mean residual: same slope, shifted
    offset = sum(r for r in residuals if r >= 0) / len(faster) if faster else 0.0
    # a typical chip is no faster than the fastest of the window (the trend's edge overshoots)
    value = 10 ** min(log_all + offset, max(p[1] for p in window))
    note_held = held
    factor = 10 ** (Z90 * spread)
    return YearPeak(year=year, hardware_class=hardware_class, peak_key=key, requested_key=peak_key,
                    peak_flop_per_s=value, low_flop_per_s=value / factor, high_flop_per_s=value * factor,
                    spread_oom=spread, n_chips=len(window), n_faster=len(faster) if len(faster) >= 2 else len(window),
                    window=(min(p[0] for p in window), max(p[0] for p in window)),
                    slope_oom_per_year=slope, chips=[p[2] for p in sorted(window)], fallback=fallback,
                    held_at=at if note_held else None)


def year_chip(db: HardwareDB, year: int, hardware_class: str = "data_center",
              exclude: frozenset[str] | set[str] = frozenset()) -> tuple[Chip, dict[str, YearPeak]]:
    """A stand-in chip whose peak per format is the trend at ``year`` for ``hardware_class``.

    Only formats the class had by then are given (no fallback inside the stand-in: the caller's
    own fallback rules apply). Built without validation; never stored.
    """
    trends: dict[str, YearPeak] = {}
    for key in PEAK_KEYS:
        try:
            found = year_peak(db, year, key, hardware_class, exclude)
        except InputError as exc:
            if exc.field == "precision":
                continue
            raise
        if found.fallback is None:
            trends[key] = found
    peaks = Peaks.model_construct(**{k: t.peak_flop_per_s for k, t in trends.items()})
    default = default_key_for_year(year)
    if default not in trends:
        default = next((k for k in FORMAT_BY_KEY[default].fallbacks if k in trends), "fp32")
    chip = Chip.model_construct(
        id="custom", name=f"typical {CLASS_LABELS[hardware_class][:-1]} of {year}", aliases=[], vendor="various",
        kind="accelerator", segment="data_center" if hardware_class == "data_center" else "consumer",
        release_date=str(year), memory_gb=None, memory_bandwidth_gb_s=None, tdp_w=None, peaks=peaks,
        default_format=default, price_usd_per_hour=None, price_basis=None, source=[], notes="")
    return chip, trends
