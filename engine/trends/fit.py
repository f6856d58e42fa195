"""Least-squares trends of log10(training FLOP) against date, with doubling times and 95% CIs.

    slope b [OOM/year] from log10(FLOP) = a + b·t (t in decimal years)
    growth per year = 10^b;  doubling time = 12·log10(2)/b months

The 95% interval of b is b ± t(0.975, n−2)·SE(b) (Student's t, ``engine.trends.student_t``); the
doubling-time interval maps it through 12·log10(2)/b, so its ends swap (the faster slope gives
the shorter doubling). Where the interval of b reaches 0 or below, the doubling time is unbounded
on that side and the end is ``None``.

Selection order: domain filter, then the frontier (record-setters are judged against all earlier
runs of that domain, also those before the window), then the window.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pandas as pd

from ..errors import InputError, quoted
from ..results import Result
from .runs_dataset import FRAME_COLUMNS, RunPoint, TrainingRun, runs_frame
from .student_t import t_quantile
from .windows import NAMED_WINDOWS, Frontier, TrendQuery  # noqa: F401 (re-exported)

LOG10_2_MONTHS = 12 * math.log10(2)
"""Doubling time in months = this / slope in orders of magnitude per year."""

Runs = pd.DataFrame | Iterable[RunPoint | TrainingRun]


@dataclass(frozen=True, slots=True, kw_only=True)
class LogLinearFit(Result):
    """Least-squares line of log10(value) on decimal years: n, slope, growth, doubling and 95% intervals."""

    n: int
    first_year: float
    last_year: float
    slope_oom_per_year: float
    ci_slope_oom_per_year: tuple[float, float] | None = None
    """95%; None when n < 3."""
    growth_per_year: float
    ci_growth_per_year: tuple[float, float] | None = None
    doubling_months: float | None = None
    """None when the slope is not positive."""
    ci_doubling_months: tuple[float | None, float | None] | None = None
    """95% (low, high); an end is None where the interval is unbounded; None when n < 3."""
    r_squared: float | None
    residual_std_oom: float | None = None
    """Spread of the points around the line, in OOM."""
    mean_year: float
    mean_log10_value: float

    def predicted(self, decimal_year: float) -> float:
        """The fitted line at a date (it passes through the means)."""
        return 10 ** (self.mean_log10_value + self.slope_oom_per_year * (decimal_year - self.mean_year))


@dataclass(frozen=True, slots=True, kw_only=True)
class TrendFit(LogLinearFit):
    """A fitted trend of training FLOP, with the query that chose its runs."""

    query: TrendQuery

    def predicted_training_flop(self, decimal_year: float) -> float:
        return self.predicted(decimal_year)


def _doubling_months(slope: float) -> float | None:
    return LOG10_2_MONTHS / slope if slope > 0 else None


def log_linear_fit_fields(decimal_years, values) -> dict:
    """The ``LogLinearFit`` fields for points (year, value > 0); ``ValueError`` under 2 distinct years."""
    x = np.asarray(decimal_years, dtype=float)
    y = np.log10(np.asarray(values, dtype=float))
    n = len(x)
    if n < 2 or np.ptp(x) == 0:
        raise ValueError(f"{n} point(s) at {len(set(x.tolist()))} distinct date(s): "
                         "a trend needs at least 2 points at different dates")
    x_mean, y_mean = float(x.mean()), float(y.mean())
    dx, dy = x - x_mean, y - y_mean  # centred: no cancellation from years ~2000 squared
    sxx = float(dx @ dx)
    slope = float(dx @ dy) / sxx
    sse = float(((dy - slope * dx) ** 2).sum())
    syy = float(dy @ dy)
    fields = dict(n=n, first_year=float(x.min()), last_year=float(x.max()), slope_oom_per_year=slope,
                  growth_per_year=10 ** slope, doubling_months=_doubling_months(slope),
                  r_squared=1.0 - sse / syy if syy > 0 else None, mean_year=x_mean, mean_log10_value=y_mean)
    if n >= 3:
        residual_std = math.sqrt(sse / (n - 2))
        half = t_quantile(0.975, n - 2) * residual_std / math.sqrt(sxx)
        low, high = slope - half, slope + half
        # the faster slope gives the shorter doubling time; a slope interval reaching 0 is unbounded
        fields.update(residual_std_oom=residual_std, ci_slope_oom_per_year=(low, high),
                      ci_growth_per_year=(10 ** low, 10 ** high),
                      ci_doubling_months=(_doubling_months(high), _doubling_months(low)))
    return fields


def as_frame(runs: Runs) -> pd.DataFrame:
    """Runs as the ``runs_frame`` table (a DataFrame with ``FRAME_COLUMNS`` passes through)."""
    if isinstance(runs, pd.DataFrame):
        missing = [c for c in ("decimal_year", "training_flop") if c not in runs.columns]
        if missing:
            raise InputError("runs", f"table lacks column(s) {', '.join(missing)}")
        return runs
    return runs_frame(runs)


def _domain_mask(domains: pd.Series, wanted: str) -> pd.Series:
    key = wanted.strip().lower()
    # bool dtype even when empty: an empty object Series would select columns, not rows
    return domains.fillna("").map(lambda text: key in {d.strip().lower() for d in str(text).split(",")}).astype(bool)


def domains_of(runs: Runs) -> list[str]:
    """Every domain named by the runs (a run may name several, comma-separated), sorted."""
    frame = as_frame(runs)
    return sorted({d.strip() for value in frame["domain"].fillna("") for d in str(value).split(",") if d.strip()})


def record_setters(frame: pd.DataFrame) -> pd.Series:
    """Mask of runs larger than every run published before their date (same-date runs don't block each other)."""
    if frame.empty:
        return pd.Series([], dtype=bool, index=frame.index)
    by_date = frame.groupby("decimal_year")["training_flop"].max().sort_index()
    previous_max = by_date.cummax().shift(1, fill_value=0.0)
    return frame["training_flop"] > frame["decimal_year"].map(previous_max)


def top_k_per_year(frame: pd.DataFrame, k: int) -> pd.Series:
    """Mask of the ``k`` largest runs of each calendar year."""
    if frame.empty:
        return pd.Series([], dtype=bool, index=frame.index)
    year = np.floor(frame["decimal_year"]).astype(int)
    rank = frame.groupby(year)["training_flop"].rank(method="first", ascending=False)
    return rank <= k


def select_runs(runs: Runs, query: TrendQuery = TrendQuery()) -> pd.DataFrame:
    """The runs a fit with ``query`` uses (domain, then frontier over all history, then window)."""
    frame = as_frame(runs)
    if query.domain:
        if "domain" not in frame.columns:
            raise InputError("domain", "these runs have no domain column to filter on")
        frame = frame[_domain_mask(frame["domain"], query.domain)]
    if query.frontier == "records":
        frame = frame[record_setters(frame)]
    elif query.frontier == "top_k":
        frame = frame[top_k_per_year(frame, query.top_k)]
    if query.start_year is not None:
        frame = frame[frame["decimal_year"] >= query.start_year]
    if query.end_year is not None:
        frame = frame[frame["decimal_year"] < query.end_year]
    return frame


def _year(value: float | None) -> str:
    return "…" if value is None else f"{value:g}"


def _describe(query: TrendQuery) -> str:
    parts = [query.label] if query.label else []
    if query.start_year is not None or query.end_year is not None:
        parts.append(f"from {_year(query.start_year)} to {_year(query.end_year)} (exclusive)")
    if query.domain:
        parts.append(f"domain {query.domain!r}")
    if query.frontier != "all":
        parts.append("record-setting runs" if query.frontier == "records" else f"top {query.top_k} per year")
    return ", ".join(parts) or "all runs"


def fit_trend(runs: Runs, query: TrendQuery = TrendQuery()) -> TrendFit:
    """Least-squares fit of log10(FLOP) on decimal years over the runs ``query`` selects."""
    frame = select_runs(runs, query)
    try:
        fields = log_linear_fit_fields(frame["decimal_year"], frame["training_flop"])
    except ValueError as exc:
        raise InputError("window", f"{_describe(query)}: {exc}") from None
    return TrendFit(query=query, **fields)


def fit_named_window(runs: Runs, name: str, domain: str | None = None) -> TrendFit:
    """``fit_trend`` over one of ``NAMED_WINDOWS`` (optionally restricted to a domain)."""
    if name not in NAMED_WINDOWS:
        raise InputError("window", f"unknown window {quoted(name)}; known: {', '.join(NAMED_WINDOWS)}")
    query = NAMED_WINDOWS[name]
    if domain:
        query = query.model_copy(update={"domain": domain})
    return fit_trend(runs, query)


__all__ = ["FRAME_COLUMNS", "Frontier", "LOG10_2_MONTHS", "LogLinearFit", "NAMED_WINDOWS", "TrendFit", "TrendQuery",
           "as_frame", "fit_named_window", "fit_trend", "log_linear_fit_fields", "record_setters", "select_runs",
           "top_k_per_year"]


MOORE_DOUBLING_MONTHS = 24.0
"""Moore's law as OpenAI's 2019 addendum draws it: a two-year doubling."""


def reference_line(anchor_year: float, anchor_value: float, doubling_months: float,
                   start_year: float, end_year: float, points: int = 50) -> tuple[list[float], list[float]]:
    """A line doubling every ``doubling_months`` through (anchor_year, anchor_value): value × 2^(12·Δy/d)."""
    if not (doubling_months > 0 and anchor_value > 0 and end_year > start_year):
        raise InputError("doubling_months", "needs a positive doubling time, value and window")
    step = (end_year - start_year) / (points - 1)
    years = [start_year + i * step for i in range(points)]
    return years, [anchor_value * 2 ** (12 * (y - anchor_year) / doubling_months) for y in years]
