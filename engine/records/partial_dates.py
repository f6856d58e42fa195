"""Publication dates that may be partial (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``) and decimal years.

Epoch AI's CSVs and the shipped ``training_runs.csv`` both write ISO dates, sometimes only to the
month or year. A partial date stands for the middle of its period when placed on a time axis, so
a run known only as "1992" sits at 1992.5, not on 1 January.
"""
from __future__ import annotations

import calendar
import functools
import re
from datetime import date
from typing import Literal, NamedTuple

Precision = Literal["year", "month", "day"]

MIN_YEAR, MAX_YEAR = 1940, 2100
"""Dates outside this range are treated as typos (a run from 0202 or 20230)."""

# ISO date, possibly partial, '/' also accepted; an optional time part (Epoch's "Last modified"
# style '2025-03-11 19:27:29+00:00') is ignored.
_DATE_RE = re.compile(
    r"(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?"
    r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)


class PartialDate(NamedTuple):
    """A date known to ``precision``; ``start`` is the first day of that period."""

    start: date
    precision: Precision

    @property
    def decimal_year(self) -> float:
        """Middle of the period in years: 1992 → 1992.5; 2012-09 → 2012.71; 2012-09-30 → 2012.75."""
        year = self.start.year
        days_in_year = 366 if calendar.isleap(year) else 365
        if self.precision == "year":
            return year + 0.5
        if self.precision == "month":
            days_in_month = calendar.monthrange(year, self.start.month)[1]
            middle = self.start.timetuple().tm_yday - 1 + days_in_month / 2
            return year + middle / days_in_year
        return year + (self.start.timetuple().tm_yday - 0.5) / days_in_year

    def isoformat(self) -> str:
        """The date as written, to its precision: '1992', '2012-09', '2012-09-30'."""
        text = self.start.isoformat()
        return {"year": text[:4], "month": text[:7], "day": text}[self.precision]


@functools.lru_cache(maxsize=4096)
def parse_partial_date(text: str) -> PartialDate:
    """``'2012'``, ``'2012-09'``, ``'2012-09-30'`` (or with ``/``) → ``PartialDate``; ``ValueError`` if not."""
    match = _DATE_RE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"'{text}' is not a date (expected YYYY, YYYY-MM or YYYY-MM-DD)")
    year, month, day = (int(g) if g else None for g in match.groups())
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise ValueError(f"year {year} is outside {MIN_YEAR}–{MAX_YEAR}")
    try:
        start = date(year, month or 1, day or 1)
    except ValueError as exc:
        raise ValueError(f"'{text}' is not a calendar date ({exc})") from None
    precision: Precision = "day" if day else "month" if month else "year"
    return PartialDate(start, precision)


def decimal_year_of(value: date) -> float:
    """A full date as a decimal year (the middle of that day)."""
    return PartialDate(value, "day").decimal_year
