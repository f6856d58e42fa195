"""Units and their display: PF-days, FLOP in scientific notation, durations."""
from engine.units import PFS_DAY_FLOP, flop_to_pfs_days, format_duration, format_flop, latex_number


def test_pfs_day():
    assert PFS_DAY_FLOP == 1e15 * 24 * 3600 == 8.64e19
    assert flop_to_pfs_days(3.14e23) == 3.14e23 / 8.64e19


def test_format_flop():
    assert format_flop(1.1299e16) == "1.13e16 FLOP"
    assert format_flop(3740, "PF-days") == "3,740 PF-days"
    assert format_flop(0.0054, "PF-days") == "0.0054 PF-days"
    assert format_flop(2.5e-5, "") == "2.50e-5"
    assert format_flop(float("nan")) == "— FLOP"


def test_format_duration():
    assert format_duration(1 / 3600) == "1 s"
    assert format_duration(0.5) == "30 min"
    assert format_duration(36) == "36 h"
    assert format_duration(24 * 10) == "10 days"
    assert format_duration(24 * 365.25 * 3) == "3 years"


def test_latex_number():
    assert latex_number(2.942e10) == r"2.942 \times 10^{10}"
    assert latex_number(3) == "3"
