"""Partial ISO dates and where they sit on a time axis."""
from __future__ import annotations

from datetime import date

import pytest

from engine.records.partial_dates import decimal_year_of, parse_partial_date


@pytest.mark.parametrize("text,start,precision,iso", [
    ("2012-09-30", date(2012, 9, 30), "day", "2012-09-30"),
    ("2012-09", date(2012, 9, 1), "month", "2012-09"),
    ("1992", date(1992, 1, 1), "year", "1992"),
    (" 2012/9/3 ", date(2012, 9, 3), "day", "2012-09-03"),
    ("2025-03-11 19:27:29+00:00", date(2025, 3, 11), "day", "2025-03-11"),
    ("2024-02-29T00:00:00Z", date(2024, 2, 29), "day", "2024-02-29"),
])
def test_parse(text, start, precision, iso):
    parsed = parse_partial_date(text)
    assert (parsed.start, parsed.precision, parsed.isoformat()) == (start, precision, iso)


@pytest.mark.parametrize("text", ["", "20XX", "2023-13-01", "2023-02-30", "0202", "20230", "1850-01",
                                  "1/2/2020", "2020-01-01garbage", "nan"])
def test_not_a_date(text):
    with pytest.raises(ValueError):
        parse_partial_date(text)


def test_partial_dates_sit_mid_period():
    assert parse_partial_date("1992").decimal_year == 1992.5
    # September 2012: days 245–274 of a 366-day year → middle at 244 + 15 days
    assert parse_partial_date("2012-09").decimal_year == pytest.approx(2012 + (244 + 15) / 366)
    assert parse_partial_date("2023-01-01").decimal_year == pytest.approx(2023 + 0.5 / 365)
    assert decimal_year_of(date(2023, 12, 31)) == pytest.approx(2024 - 0.5 / 365)
