"""Where an estimate (training FLOP, and optionally a date) sits among known runs.

- rank: 1 + the number of known runs with more FLOP (1 = larger than all of them);
- "larger than every known run before <date>": the publication date of the first known run that
  exceeds it — until then it would have been the largest known run;
- percentile among the runs of its year: the share of that year's runs below it, ties counting
  half (the mid-rank convention, so an estimate equal to every run of its year is at 50%).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import numpy as np
from pydantic import BaseModel

from ..errors import InputError, PositiveFinite, parse_input
from ..records.partial_dates import decimal_year_of, parse_partial_date
from ..results import Result
from .fit import Runs, TrendQuery, as_frame, select_runs


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement(Result):
    """An estimate among known runs (see the module docstring for each figure)."""

    training_flop: float
    n_runs: int
    rank: int
    """1 = more FLOP than every known run."""
    largest_known: bool
    """More FLOP than every known run."""
    larger_than_every_run_before: str | None = None
    """ISO date of the first known run with more FLOP; None when largest_known."""
    first_larger_run: str | None = None
    """Name of that run."""
    year: int | None = None
    rank_at_date: int | None = None
    """Rank among runs published up to the estimate's date."""
    n_runs_in_year: int = 0
    percentile_in_year: float | None = None
    """0–100; None when no known run is from that year."""


class _Estimate(BaseModel):
    training_flop: PositiveFinite


def place_estimate(runs: Runs, training_flop: float, publication_date: str | date | None = None,
                   domain: str | None = None) -> Placement:
    """Rank, record date and percentile-in-year of ``training_flop`` among ``runs`` (of ``domain``)."""
    training_flop = parse_input(_Estimate, {"training_flop": training_flop}).training_flop
    decimal_year = None
    if publication_date is not None:
        try:
            decimal_year = (decimal_year_of(publication_date) if isinstance(publication_date, date)
                            else parse_partial_date(str(publication_date)).decimal_year)
        except ValueError as exc:
            raise InputError("publication_date", str(exc)) from None
    frame = select_runs(as_frame(runs), TrendQuery(domain=domain)) if domain else as_frame(runs)
    flop = frame["training_flop"].to_numpy(dtype=float)
    years = frame["decimal_year"].to_numpy(dtype=float)
    larger = flop > training_flop
    fields: dict = {"training_flop": float(training_flop), "n_runs": len(frame), "rank": int(larger.sum()) + 1,
                    "largest_known": not larger.any()}
    if larger.any():
        first = frame.iloc[int(np.argmin(np.where(larger, years, np.inf)))]
        fields["larger_than_every_run_before"] = str(first["publication_date"])
        fields["first_larger_run"] = str(first["name"])
    if decimal_year is not None:
        year = math.floor(decimal_year)
        in_year = np.floor(years) == year
        fields.update(year=year, rank_at_date=int((larger & (years <= decimal_year)).sum()) + 1,
                      n_runs_in_year=int(in_year.sum()))
        if in_year.any():
            below = float((flop[in_year] < training_flop).sum())
            ties = float((flop[in_year] == training_flop).sum())
            fields["percentile_in_year"] = 100.0 * (below + ties / 2) / float(in_year.sum())
    return Placement(**fields)
