"""Ranges → a 90% interval: exact for method 2's product, Monte Carlo (fixed seed) for method 1.

Expected values are computed here: the log-normal algebra written out, and an independent
numpy simulation with its own seed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.cli import main
from engine.errors import InputError
from engine.method1.training import TrainingSetup, training_compute
from engine.method2.run import estimate_method2
from engine.ranges import Factor, confidence_label, monte_carlo_interval, product_interval

Z = 1.6448536269514722  # N(0,1) 95th percentile
A100_BF16 = 312e12      # A100 datasheet, dense
DAY = 86_400


def _lognormal_90(point: float, ranges: list[tuple[float, float, float]]) -> tuple[float, float]:
    """point × Π X_i / p_i, X_i log-normal with 90% interval [lo, hi]: the interval, by hand."""
    mu = math.log(point) + sum(math.log(math.sqrt(lo * hi) / p) for p, lo, hi in ranges)
    sigma = math.sqrt(sum((math.log(hi / lo) / (2 * Z)) ** 2 for _, lo, hi in ranges))
    return math.exp(mu - Z * sigma), math.exp(mu + Z * sigma)


def test_one_range_gives_that_range_exactly():
    interval = product_interval(100.0, [Factor("u", 0.4, 0.3, 0.5)])
    assert interval.low == pytest.approx(100 * 0.3 / 0.4) and interval.high == pytest.approx(100 * 0.5 / 0.4)


def test_method2_interval_is_the_lognormal_product_and_matches_a_simulation():
    run = {"chip": "A100", "chip_count": 64, "chip_count_low": 48, "chip_count_high": 80, "duration": 10,
           "duration_low": 8, "duration_high": 14, "duration_unit": "days", "utilization": 0.4,
           "utilization_low": 0.3, "utilization_high": 0.5}
    est = estimate_method2(run)
    point = 64 * 10 * DAY * A100_BF16 * 0.4
    low, high = _lognormal_90(point, [(64, 48, 80), (10, 8, 14), (0.4, 0.3, 0.5)])
    assert est.training_flop == pytest.approx(point)
    assert est.training_flop_low == pytest.approx(low) and est.training_flop_high == pytest.approx(high)
    # an independent simulation (numpy, its own seed) of the same model
    rng = np.random.default_rng(7)
    total = np.full(400_000, DAY * A100_BF16)
    for lo, hi in ((48, 80), (8, 14), (0.3, 0.5)):
        total *= np.exp(rng.normal(math.log(math.sqrt(lo * hi)), math.log(hi / lo) / (2 * Z), total.size))
    sim_low, sim_high = np.percentile(total, [5, 95])
    assert est.training_flop_low == pytest.approx(sim_low, rel=0.01)
    assert est.training_flop_high == pytest.approx(sim_high, rel=0.01)
    assert est.interval.confidence == "Confident" and "within a factor of 3" in est.interval.confidence_rule


def test_unknown_hardware_band_widens_the_interval():
    est = estimate_method2({"year": 2014, "chip_count": 8, "duration": 5, "duration_unit": "days",
                            "utilization": 0.33})
    peak = est.peak
    low, high = _lognormal_90(est.training_flop, [(peak.peak_flop_per_s, peak.peak_low_flop_per_s,
                                                   peak.peak_high_flop_per_s)])
    assert est.training_flop_low == pytest.approx(low) and est.training_flop_high == pytest.approx(high)


def test_method1_monte_carlo_matches_the_exact_answer_where_there_is_one():
    # no optimizer term: C = F × (1 + r) × E × epochs is a product, so the exact interval is known
    setup = TrainingSetup(examples=1e6, epochs=3, backward_ratio=2, backward_ratio_low=1, backward_ratio_high=3,
                          examples_low=5e5, examples_high=2e6)
    forward = 1e9
    result = training_compute(forward, setup)
    point = forward * 3 * 1e6 * 3
    low, high = _lognormal_90(point, [(3, 2, 4), (1e6, 5e5, 2e6)])
    assert result.training_flop == pytest.approx(point)
    assert result.interval.low == pytest.approx(low, rel=0.03) and result.interval.high == pytest.approx(high, rel=0.03)
    assert "Monte Carlo" in result.interval.method and "seed" in result.interval.method
    again = training_compute(forward, setup)
    assert again.interval == result.interval  # fixed seed: reproducible


@pytest.mark.parametrize("low, high, label", [(0.5, 2, "Confident"), (1 / 3, 3, "Confident"), (0.2, 5, "Likely"),
                                              (0.1, 10, "Likely"), (0.05, 2, "Speculative"), (0.5, 31, "Speculative")])
def test_confidence_labels_follow_epochs_factors(low, high, label):
    assert confidence_label(1.0, low, high) == label


@pytest.mark.parametrize("run, field", [
    ({"utilization_low": 0.5, "utilization_high": 0.3}, "utilization_low"),
    ({"chip_count_low": 80, "chip_count_high": 70}, "chip_count_low"),
    ({"chip_count_low": 0}, "chip_count_low"),
    ({"duration_high": float("nan")}, "duration_high"),
    ({"duration_low": 1e308}, "duration_low"),
    ({"utilization_high": 1e308}, "utilization_high"),
])
def test_bad_method2_ranges_are_one_line_naming_the_field(run, field):
    base = {"chip": "A100", "chip_count": 64, "duration": 10, "duration_unit": "days", "utilization": 0.4}
    with pytest.raises(InputError) as info:
        estimate_method2({**base, **run})
    assert info.value.field == field and "\n" not in str(info.value)


def test_a_range_that_overflows_is_one_line():
    """One ranged factor: the interval is that factor's own range, so its high end is C × 1e308 / 64 — past
    the largest float; computed on logarithms, it is a message naming the range (it was an OverflowError)."""
    with pytest.raises(InputError) as info:
        estimate_method2({"chip": "A100", "chip_count": 64, "chip_count_high": 1e308, "duration": 10,
                          "duration_unit": "days", "utilization": 0.4})
    point = 64 * 10 * 86_400 * 312e12 * 0.4  # A100 BF16 dense peak, datasheet
    exponent = round(math.log10(point) + 308 - math.log10(64))
    assert info.value.field == "chip_count_high"
    assert f"reaches about 10^{exponent}," in info.value.reason


@pytest.mark.parametrize("low, high", [(1e-300, 1e308), (8, 1e308), (1e-320, 8), (5e-324, 1e308)])
@pytest.mark.parametrize("point", [1e20, 1e300, 1e-300])
def test_extreme_ranges_give_an_interval_or_a_message_never_an_overflow(low, high, point):
    factor = Factor("chip_count", 8.0 if low <= 8 <= high else low, low, high)
    for compute in (lambda: product_interval(point, [factor]),
                    lambda: monte_carlo_interval(point, [factor], lambda chip_count: chip_count * point / 8)):
        try:
            interval = compute()
        except InputError as exc:
            assert exc.field.startswith("chip_count_") and "narrow the range" in exc.reason
            continue
        assert 0 < interval.low <= interval.high < math.inf


def test_no_compute_has_the_interval_zero_to_zero():
    factor = Factor("examples", 10.0, 1.0, 100.0)
    for interval in (product_interval(0.0, [factor]), monte_carlo_interval(0.0, [factor], lambda examples: 0 * examples)):
        assert (interval.low, interval.high) == (0.0, 0.0)


@pytest.mark.parametrize("setup, field", [
    ({"backward_ratio_low": 3, "backward_ratio_high": 1}, "backward_ratio_low"),
    ({"backward_ratio_low": 2.5}, "backward_ratio"),
    ({"examples_low": 0}, "examples_low"),
    ({"examples_high": float("nan")}, "examples_high"),
    ({"examples_low": 2e6}, "examples_low"),
])
def test_bad_method1_ranges_name_the_field(setup, field):
    with pytest.raises(ValueError) as info:
        TrainingSetup(examples=1e6, **setup)
    assert field in str(info.value)


def test_cli_prints_low_and_high_beside_the_point(capsys):
    assert main(["hardware", "--chip", "A100", "--count", "64", "--days", "10", "--utilization", "0.4",
                 "--utilization-low", "0.3", "--utilization-high", "0.5", "--count-low", "48", "--count-high",
                 "80"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    point = 64 * 10 * DAY * A100_BF16 * 0.4
    low, high = _lognormal_90(point, [(64, 48, 80), (0.4, 0.3, 0.5)])
    assert out["low"] == pytest.approx(low) and out["high"] == pytest.approx(high)
    assert out["confidence"] == "Confident"


@pytest.mark.parametrize("args", [["--count-low", "80", "--count-high", "70"], ["--time-low", "nan"],
                                  ["--time-low", "0"], ["--count-high", "1e308"]])
def test_cli_bad_ranges_exit_2_with_one_line(args, capsys):
    assert main(["hardware", "--chip", "A100", "--count", "64", "--days", "10", "--utilization", "0.4", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("run", [
    {"chip_count": 1, "chip_count_high": 1e308},  # low × high = 1e308 is finite: e^(ln C + 709.2) overflowed exp
    {"chip_count": 1, "chip_count_low": 1, "chip_count_high": 1e308},
    {"chip_count": 8, "duration_low": 1e-300, "duration_high": 1e300},
])
def test_the_issues_1e308_range_is_a_message_not_an_overflow_error(run):
    """The issue's crash: chip_count_high 1e308 raised OverflowError in math.exp (before the finiteness check)
    on the hardware, precision and trends pages and in the report. The interval's high end is C × 1e308 (one
    factor: its own range), past the largest float: one message naming the range."""
    with pytest.raises(InputError) as info:
        estimate_method2({"chip": "A100", "duration": 10, "duration_unit": "days", "utilization": 0.4, **run})
    assert info.value.field in ("chip_count_high", "duration_high")
    assert "narrow the range" in info.value.reason


def test_the_report_with_a_1e308_range_names_it():
    from engine.report import markdown_report
    from engine.scenario import parse_scenario

    scenario = parse_scenario({"input": {"shape": [4]}, "layers": [{"type": "dense", "units": 4}],
                               "training": {"epochs": 1, "examples": 10},
                               "hardware": {"chip": "nvidia-a100-sxm4-80gb", "chip_count": 1, "chip_count_high": 1e308,
                                            "duration": 1, "duration_unit": "days", "utilization": 0.4}})
    point = 86_400 * 312e12 * 0.4  # 1 chip-day of the A100's BF16 dense peak at 40%
    exponent = round(math.log10(point) + 308)  # one ranged factor: the high end is C × 1e308
    assert f"chip\\_count\\_high\\: the 90% interval reaches about 10^{exponent}," in markdown_report(scenario)
