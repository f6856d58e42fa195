"""The hardware page's text, from method 2's results: figures checked against formulas written here."""
from __future__ import annotations

from types import SimpleNamespace

from ui.views import hardware as view


def test_example_run_says_how_long_method_1_takes_on_these_chips():
    # 312 TFLOP/s × 0.4 × 8 chips = 998.4 TFLOP/s; 8.6e19 FLOP / 998.4e12 = 86,138 s = 23.9 h
    estimate = SimpleNamespace(peak=SimpleNamespace(peak_flop_per_s=312e12), utilization=0.4)
    sentence = view.example_run_sentence(8.6e19, estimate, 8, 1.0, "days")
    assert "(8 chips, 1 day)" in sentence
    assert sentence.endswith("method 1's compute takes 23.9 h of wall-clock time.")


def test_comparison_ratio_reads_as_a_factor():
    check = SimpleNamespace(method1_training_flop=1e21, method1_pfs_days=1e21 / 8.64e19, method2_training_flop=2e21,
                            method2_pfs_days=2e21 / 8.64e19, ratio_method2_to_method1=2.0, utilization_to_agree=0.2)
    metrics = view.comparison_metrics(check)
    assert metrics[2] == ("Ratio method 2 ÷ method 1", "2 ×", None)
    assert metrics[0][2] == f"{1e21 / 8.64e19:.4g} PF-days"  # 11.57


def test_budget_metrics_name_the_chips_and_days():
    by_time = SimpleNamespace(wall_clock_hours=72.0, chip_hours=72.0 * 16, utilization=0.4)
    by_chips = SimpleNamespace(chip_count=3.0, chip_count_exact=2.4)
    items = view.budget_metrics(by_time, 16, by_chips, 30)
    assert items[0][0] == "Wall-clock on 16 chips" and items[0][1] == "3 days"  # 72 h
    assert items[1] == ("Chips for 30 days", "3 chips", "exactly 2.4")
    assert view.budget_metrics(None, 16, None, 30) == []


def test_peak_notes_leave_out_the_assumed_format_note():
    peak = SimpleNamespace(assumed_format="BF16", notes=["assumed BF16 (the chip's usual format)", "sparse excluded"])
    assert view.peak_notes(peak) == ["sparse excluded"]
