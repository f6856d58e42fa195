"""Trend fits: exact lines, intervals worked out by hand, frontier selections, and the reference fits."""
from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from engine.trends.epoch_csv import read_epoch_csv
from engine.errors import InputError
from engine.records.partial_dates import parse_partial_date
from engine.trends.runs_dataset import RunPoint
from engine.trends.fit import (NAMED_WINDOWS, TrendQuery, fit_named_window, fit_trend, record_setters, select_runs,
                              top_k_per_year)


def point(name: str, year: float, flop: float, domain: str = "Language") -> RunPoint:
    return RunPoint(name=name, publication_date=str(int(year)), decimal_year=year, domain=domain, training_flop=flop)


def line(doubling_months: float, years, start_flop: float = 1e18) -> list[RunPoint]:
    # FLOP = start · 2^(12·(t − t0)/doubling)
    t0 = years[0]
    return [point(f"r{i}", t, start_flop * 2 ** (12 * (t - t0) / doubling_months)) for i, t in enumerate(years)]


def test_exact_exponential_gives_its_doubling_time():
    fit = fit_trend(line(6.0, [2010.0, 2011.5, 2013.0, 2016.25, 2020.0]))
    assert fit.doubling_months == pytest.approx(6.0)
    assert fit.growth_per_year == pytest.approx(4.0)  # two doublings a year
    assert fit.slope_oom_per_year == pytest.approx(2 * math.log10(2))
    assert fit.r_squared == pytest.approx(1.0)
    low, high = fit.ci_doubling_months
    assert low == pytest.approx(6.0) and high == pytest.approx(6.0)
    assert fit.predicted_training_flop(2011.0) == pytest.approx(1e18 * 4)


def test_interval_worked_out_by_hand():
    # x = 0..9 (years from 2000), y = log10 FLOP = 20 + 0.5x + e, e alternating ±0.1
    x = np.arange(10.0)
    e = np.array([0.1, -0.1] * 5)
    runs = [point(f"r{i}", 2000 + xi, 10 ** (20 + 0.5 * xi + ei)) for i, (xi, ei) in enumerate(zip(x, e))]
    fit = fit_trend(runs)
    # by hand: Sxx = 82.5; slope = 0.5 + Σ(x−x̄)e/Sxx = 0.5 − 0.5/82.5; SE = sqrt(SSE/8 / Sxx); t(0.975, 8) = 2.306
    dx = x - x.mean()
    slope = 0.5 + float(dx @ e) / 82.5
    residuals = 0.5 * x + e - (0.5 * x + e).mean() - slope * dx
    se = math.sqrt(float(residuals @ residuals) / 8 / 82.5)
    assert fit.n == 10 and fit.slope_oom_per_year == pytest.approx(slope)
    low, high = fit.ci_slope_oom_per_year
    assert low == pytest.approx(slope - 2.306 * se, abs=2e-4) and high == pytest.approx(slope + 2.306 * se, abs=2e-4)
    d_low, d_high = fit.ci_doubling_months
    assert d_low == pytest.approx(12 * math.log10(2) / high) and d_high == pytest.approx(12 * math.log10(2) / low)
    assert d_low < fit.doubling_months < d_high


def test_two_runs_have_no_interval_and_flat_or_falling_trends_no_doubling():
    fit = fit_trend(line(12.0, [2000.0, 2001.0]))
    assert fit.doubling_months == pytest.approx(12.0) and fit.ci_doubling_months is None
    falling = fit_trend([point("a", 2000, 1e20), point("b", 2001, 1e19), point("c", 2002, 1e18)])
    assert falling.doubling_months is None and falling.growth_per_year == pytest.approx(0.1)
    # a slope interval that reaches below 0 leaves the doubling time unbounded above
    noisy = fit_trend([point("a", 2000, 1e20), point("b", 2001, 1e18), point("c", 2002, 1e21)])
    assert noisy.doubling_months is not None and noisy.ci_doubling_months[1] is None


def test_too_few_runs_is_an_input_error():
    with pytest.raises(InputError, match="at least 2"):
        fit_trend([point("a", 2000, 1e20)])
    with pytest.raises(InputError, match="at least 2"):
        fit_trend([point("a", 2000, 1e20), point("b", 2000, 1e21)])  # same date: no slope
    with pytest.raises(InputError, match="window"):
        fit_trend(line(6, [2000.0, 2001.0, 2002.0]), TrendQuery(start_year=2030))


def test_window_bounds_and_calendar_years():
    runs = [point(str(y), y, 1e20 * 10 ** (y - 2010)) for y in (2011.0, 2012.0, 2018.99, 2019.0)]
    query = TrendQuery.calendar_years(2012, 2018)
    assert (query.start_year, query.end_year) == (2012.0, 2019.0)
    assert list(select_runs(runs, query)["name"]) == ["2012.0", "2018.99"]
    with pytest.raises(ValidationError):
        TrendQuery(start_year=2019, end_year=2012)
    with pytest.raises(ValidationError):
        TrendQuery(start_year=float("nan"))


def test_domain_filter_matches_any_listed_domain():
    runs = [point("a", 2000, 1e18, "Language"), point("b", 2001, 1e19, "Multimodal,Language,Vision"),
            point("c", 2002, 1e20, "Vision"), point("d", 2003, 1e21, "")]
    assert list(select_runs(runs, TrendQuery(domain="language"))["name"]) == ["a", "b"]
    assert list(select_runs(runs, TrendQuery(domain=" VISION "))["name"]) == ["b", "c"]


def test_record_setters_are_judged_against_all_earlier_runs():
    runs = [point("a", 2000, 1e18), point("b", 2001, 1e17), point("c", 2002, 1e19), point("d", 2002, 5e18),
            point("e", 2003, 1e19), point("f", 2004, 2e19)]
    frame = select_runs(runs)
    assert list(frame[record_setters(frame)]["name"]) == ["a", "c", "d", "f"]  # d ties c's date, beats a
    # records before the window still count: inside 2003–2005 only f beats everything earlier
    assert list(select_runs(runs, TrendQuery(start_year=2003, frontier="records"))["name"]) == ["f"]


def test_top_k_per_calendar_year():
    runs = [point(n, y, f) for n, y, f in [("a", 2000.1, 1), ("b", 2000.5, 3), ("c", 2000.9, 2), ("d", 2001.2, 5)]]
    frame = select_runs(runs)
    assert list(frame[top_k_per_year(frame, 2)]["name"]) == ["b", "c", "d"]
    assert list(select_runs(runs, TrendQuery(frontier="top_k", top_k=1))["name"]) == ["b", "d"]


def test_a_dataframe_passes_through_and_must_have_the_columns():
    frame = pd.DataFrame({"name": ["a", "b", "c"], "decimal_year": [2000.0, 2001.0, 2002.0],
                          "training_flop": [1e18, 1e19, 1e20], "domain": ["", "", ""]})
    assert fit_trend(frame).growth_per_year == pytest.approx(10.0)
    with pytest.raises(InputError, match="training_flop"):
        fit_trend(frame.drop(columns="training_flop"))
    with pytest.raises(InputError, match="domain"):
        fit_trend(frame.drop(columns="domain"), TrendQuery(domain="Vision"))


def test_named_windows_and_unknown_name():
    assert set(NAMED_WINDOWS) == {"openai-2012-2018", "pre-deep-learning", "deep-learning", "large-scale"}
    with pytest.raises(InputError, match="known"):
        fit_named_window([], "no-such-window")


def test_fit_is_json():
    fit = fit_trend(line(6.0, [2010.0, 2011.0, 2012.0]))
    data = fit.as_dict()
    assert data["n"] == 3 and data["query"]["frontier"] == "all"


# ---- reference fits, from the data the published figures came from ----

def test_openai_main_chart_points_give_about_3_4_months(shared_dir):
    # Amodei & Hernandez 2018, "AI and Compute": "a 3.4-month doubling time" over 2012–2018, from the
    # 15 main-chart systems; a system with two calculations counts once (their geometric mean)
    with (shared_dir / "data" / "openai_ai_and_compute.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["series"] == "modern (main chart)"]
    flops: dict[str, list[float]] = {}
    dates: dict[str, str] = {}
    for row in rows:
        flops.setdefault(row["system"], []).append(float(row["flop"]))
        dates[row["system"]] = row["pub_date"]
    runs = [RunPoint(name=s, publication_date=dates[s], decimal_year=parse_partial_date(dates[s]).decimal_year,
                     training_flop=10 ** np.mean(np.log10(f))) for s, f in flops.items()]
    assert len(runs) == 15
    fit = fit_trend(runs, TrendQuery.calendar_years(2012, 2018))
    assert 3.0 <= fit.doubling_months <= 4.0
    assert 5 <= fit.growth_per_year <= 20  # "roughly 10× per year"


@pytest.fixture(scope="module")
def epoch_notable(shared_dir):
    return read_epoch_csv(shared_dir / "data" / "epoch" / "epoch_notable_ai_models.csv").runs


def test_epoch_pre_deep_learning_era_about_20_months(epoch_notable):
    # Sevilla et al. 2022, "Compute Trends Across Three Eras of ML": pre-DL era doubling ~20 months (21.3)
    fit = fit_named_window(epoch_notable, "pre-deep-learning")
    assert 17.0 <= fit.doubling_months <= 24.0
    low, high = fit.ci_doubling_months
    assert low < fit.doubling_months < high


def test_epoch_deep_learning_era_5_to_6_months(epoch_notable):
    # same paper: deep-learning era (2010 on) ~6 months (5.7); Epoch 2024: 4–5× per year since 2010
    fit = fit_named_window(epoch_notable, "deep-learning")
    assert 5.0 <= fit.doubling_months <= 6.0
    assert 4.0 <= fit.growth_per_year <= 5.2


def test_epoch_large_scale_era_is_slower_than_openai(epoch_notable):
    # same paper: large-scale era from late 2015 ~10 months (9.9) on its own selection of large runs;
    # record-setters give a figure between OpenAI's 3.4 and that
    fit = fit_named_window(epoch_notable, "large-scale")
    assert 4.0 <= fit.doubling_months <= 12.0


def test_domains_of_splits_comma_separated_domains():
    from engine.trends.fit import domains_of
    from engine.trends.runs_dataset import runs_frame  # noqa: F401 (the table the pages pass)
    import pandas as pd

    frame = pd.DataFrame({"decimal_year": [2020.0, 2021.0, 2022.0], "training_flop": [1e20, 1e21, 1e22],
                          "domain": ["Language,Vision", " Games", None]})
    assert domains_of(frame) == ["Games", "Language", "Vision"]
