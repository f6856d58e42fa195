"""Method 1 and method 2 side by side: ratio, the utilization that makes them agree, the 3× flag."""
from __future__ import annotations

import pytest

from engine.consistency import consistency_check
from engine.errors import InputError


def test_alexnet_both_methods_agree():
    # OpenAI's AlexNet: method 1 = 4.67e17 FLOP (470 PF), method 2 = 5.01e17 (500 PF) at 33%.
    check = consistency_check(4.67e17, 5.01e17, utilization=0.33)
    assert check.ratio_method2_to_method1 == pytest.approx(5.01 / 4.67)
    assert check.agree is True
    assert check.utilization_to_agree == pytest.approx(0.33 * 4.67 / 5.01)   # 0.3076
    assert check.utilization_to_agree_plausible is True


def test_more_than_3x_apart_is_flagged_both_ways():
    high = consistency_check(1e18, 4e18, utilization=0.33)
    assert high.agree is False and high.disagreement_factor == pytest.approx(4)
    assert high.utilization_to_agree == pytest.approx(0.33 / 4)
    low = consistency_check(4e18, 1e18, utilization=0.5)
    assert low.agree is False and low.disagreement_factor == pytest.approx(4)
    assert low.utilization_to_agree == pytest.approx(2.0) and low.utilization_to_agree_plausible is False
    assert "no utilization reconciles" in low.message


def test_exactly_3x_is_within_tolerance_and_tolerance_is_editable():
    assert consistency_check(1e18, 3e18).agree is True
    assert consistency_check(1e18, 3e18, tolerance_factor=2).agree is False


@pytest.mark.parametrize("args, field", [
    ((0, 1e18), "method1_training_flop"),
    ((1e18, float("nan")), "method2_training_flop"),
    ((1e18, 1e18, 1.5), "utilization"),
    ((1e18, 1e18, 0.3, 0.5), "tolerance_factor"),
])
def test_bad_inputs_name_the_field(args, field):
    with pytest.raises(InputError) as info:
        consistency_check(*args)
    assert info.value.field == field



@pytest.mark.parametrize("c1, c2", [(1e308, 5e-324), (5e-324, 1e308)])
def test_figures_at_the_ends_of_the_floats_give_finite_figures(c1, c2):
    """1e308 against 5e-324 divided by zero; the other way round gave a ratio and a factor of inf. The ratio is
    held within e^±700."""
    import math

    check = consistency_check(c1, c2, 1)
    assert math.isfinite(check.ratio_method2_to_method1) and math.isfinite(check.disagreement_factor)
    assert check.disagreement_factor == pytest.approx(math.exp(700)) and not check.agree
    assert math.isfinite(check.utilization_to_agree)
