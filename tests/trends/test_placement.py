"""Placing an estimate among known runs: rank, record date, percentile in its year."""
from __future__ import annotations

from datetime import date

import pytest

from engine.errors import InputError
from engine.trends.placement import place_estimate
from engine.trends.runs_dataset import RunPoint, load_training_runs
from engine.records.partial_dates import parse_partial_date


def run(name, when, flop, domain="Language"):
    return RunPoint(name=name, publication_date=when, decimal_year=parse_partial_date(when).decimal_year,
                    domain=domain, training_flop=flop)


RUNS = [run("A", "2018-01-10", 1e20), run("B", "2019-03", 1e21), run("C", "2019-06-01", 1e22, "Vision"),
        run("D", "2019-09-01", 1e21), run("E", "2020", 1e23)]


def test_rank_and_the_date_it_stops_being_the_largest():
    p = place_estimate(RUNS, 5e21)
    assert (p.n_runs, p.rank, p.largest_known) == (5, 3, False)  # C and E are larger
    assert (p.larger_than_every_run_before, p.first_larger_run) == ("2019-06-01", "C")


def test_largest_known():
    p = place_estimate(RUNS, 1e24)
    assert p.rank == 1 and p.largest_known and p.larger_than_every_run_before is None


def test_percentile_in_year_counts_ties_half():
    # 2019 holds B (1e21), C (1e22), D (1e21): 1e21 is below C, ties B and D → (0 + 2/2) / 3
    p = place_estimate(RUNS, 1e21, "2019-12-01")
    assert p.year == 2019 and p.n_runs_in_year == 3
    assert p.percentile_in_year == pytest.approx(100 / 3)
    assert place_estimate(RUNS, 1e25, date(2019, 1, 1)).percentile_in_year == 100.0
    assert place_estimate(RUNS, 1e25, "2005").percentile_in_year is None


def test_rank_at_its_own_date():
    # at 2019-07 only C (2019-06-01) is larger than 5e21; E (2020) comes later
    assert place_estimate(RUNS, 5e21, "2019-07").rank_at_date == 2


def test_domain_filter():
    p = place_estimate(RUNS, 5e21, domain="Language")
    assert p.n_runs == 4 and p.rank == 2 and p.first_larger_run == "E"


@pytest.mark.parametrize("flop", [0, -1.0, float("inf"), float("nan")])
def test_bad_flop(flop):
    with pytest.raises(InputError, match="training_flop"):
        place_estimate(RUNS, flop)


def test_bad_date():
    with pytest.raises(InputError, match="publication_date"):
        place_estimate(RUNS, 1e20, "2019-13")


def test_gpt3_sized_run_on_the_shipped_dataset():
    # 3.14e23 FLOP (GPT-3) would have been the largest known run until AlphaGo Zero (2017-10-18, ~3.3e23)
    p = place_estimate(load_training_runs(), 3.14e23, "2020-05-28")
    assert p.first_larger_run == "AlphaGo Zero" and p.larger_than_every_run_before == "2017-10-18"
    assert p.as_dict()["rank"] == p.rank
