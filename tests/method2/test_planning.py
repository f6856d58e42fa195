"""Inverse planning: the time for a FLOP budget on N chips, or the chips for a deadline."""
from __future__ import annotations

import math

import pytest

from engine.errors import InputError
from engine.method2.planning import solve_time_or_chips

# GPT-3 175B's published budget, 3.14e23 FLOP, on A100s in BF16 (312 TFLOP/s dense) at 30%.
BUDGET = {"chip": "A100", "precision": "bf16", "training_flop": 3.14e23, "utilization": 0.3}


def test_wall_clock_on_n_chips():
    plan = solve_time_or_chips({**BUDGET, "chip_count": 1024})
    seconds = 3.14e23 / (1024 * 312e12 * 0.3)   # 3.276e6 s
    assert plan.solved_for == "wall_clock"
    assert plan.wall_clock_hours == pytest.approx(seconds / 3600)
    assert plan.wall_clock_days == pytest.approx(seconds / 86_400)   # ≈ 37.9 days
    assert plan.chip_hours == pytest.approx(1024 * seconds / 3600)
    assert plan.pfs_days == pytest.approx(3.14e23 / 8.64e19)


def test_chips_for_a_deadline_rounded_up():
    plan = solve_time_or_chips({**BUDGET, "deadline": 30})
    exact = 3.14e23 / (312e12 * 0.3 * 30 * 86_400)   # 1,294.25 chips
    assert plan.solved_for == "chip_count"
    assert plan.chip_count_exact == pytest.approx(exact)
    assert plan.chip_count == math.ceil(exact) == 1295
    assert plan.wall_clock_days <= 30
    assert plan.deadline_hours == 720


def test_exact_fit_is_not_rounded_up_by_float_noise():
    # 8 chips × 1 hour × 1e14 FLOP/s × 0.5 = 1.44e18 FLOP exactly
    plan = solve_time_or_chips({"peak_flop_per_s": 1e14, "training_flop": 8 * 3600 * 1e14 * 0.5, "utilization": 0.5,
                     "deadline": 1, "deadline_unit": "hours"})
    assert plan.chip_count == 8


def test_utilization_range_gives_a_time_range_and_costs_follow_chip_hours():
    plan = solve_time_or_chips({**BUDGET, "chip_count": 1024, "utilization_low": 0.2, "utilization_high": 0.5,
                     "price_usd_per_chip_hour": 2})
    assert plan.wall_clock_hours_low_utilization == pytest.approx(3.14e23 / (1024 * 312e12 * 0.2) / 3600)
    assert plan.wall_clock_hours_high_utilization == pytest.approx(3.14e23 / (1024 * 312e12 * 0.5) / 3600)
    assert plan.costs.cost_usd == pytest.approx(plan.chip_hours * 2)
    assert plan.costs.energy_kwh == pytest.approx(plan.chip_hours * 0.4 * 1.1)  # A100 SXM 400 W


@pytest.mark.parametrize("change, field", [
    ({}, "chip_count"),                                   # neither chips nor deadline
    ({"chip_count": 8, "deadline": 3}, "chip_count"),     # both
    ({"chip_count": 8, "training_flop": 0}, "training_flop"),
    ({"chip_count": 8, "training_flop": float("inf")}, "training_flop"),
    ({"deadline": -1}, "deadline"),
    ({"chip_count": 8, "precision": "fp8"}, "precision"),  # A100 has no FP8
])
def test_bad_plans_name_the_field(change, field):
    with pytest.raises(InputError) as info:
        solve_time_or_chips({**BUDGET, **change})
    assert info.value.field == field


def test_a_user_defined_chip_plans_like_a_database_chip():
    chip = {"name": "My NPU", "peaks": {"bf16_tensor": 4e14}, "tdp_w": 300, "price_usd_per_hour": 1.0}
    plan = solve_time_or_chips({"custom_chip": chip, "precision": "bf16", "training_flop": 1e21, "utilization": 0.4,
                     "chip_count": 64})
    seconds = 1e21 / (64 * 4e14 * 0.4)
    assert plan.wall_clock_hours == pytest.approx(seconds / 3600)
    assert plan.costs.cost_usd == pytest.approx(64 * seconds / 3600 * 1.0)
