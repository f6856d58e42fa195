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


def test_display_rules_scale_counts_energy_and_co2():
    from engine.units import (PF_DAYS, format_chip_hours, format_co2_kg, format_count, format_energy_kwh,
                              format_number, plural)

    assert format_chip_hours(1024 * 30 * 24) == "737k chip-hours"      # 737,280
    assert format_chip_hours(2048 * 24 * 60) == "2.95M chip-hours"     # 2,949,120
    assert format_chip_hours(1) == "1 chip-hour"
    assert format_count(999.4) == "999" and format_count(999_600) == "1M"
    assert format_energy_kwh(820) == "820 kWh"
    assert format_energy_kwh(737_280 * 0.7 * 1.1) == "568 MWh"       # 567,706 kWh
    assert format_energy_kwh(1.2e6) == "1.2 GWh"
    assert format_co2_kg(41.2) == "41.2 kg CO₂" and format_co2_kg(2.7e5) == "270 t CO₂"
    # a small run (a plan of seconds on one chip): 0.00453 chip-hours × 700 W × PUE 1.1 = 3.49 Wh, × 480 g/kWh
    assert format_energy_kwh(0.00453 * 0.7 * 1.1) == "3.49 Wh" and format_energy_kwh(0.5) == "500 Wh"
    assert format_co2_kg(0.00453 * 0.7 * 1.1 * 0.48) == "1.67 g CO₂" and format_co2_kg(1) == "1 kg CO₂"
    assert format_number(9.7) == "9.7" and format_number(78.0) == "78" and format_number(1979) == "1,979"
    assert plural(1, "chip") == "1 chip" and plural(8, "chip") == "8 chips" and plural(2.5, "chip") == "2.5 chips"
    assert PF_DAYS == "PF-days"


def test_time_amounts_take_the_noun_in_its_number():
    from engine.units import format_time_amount

    assert format_time_amount(1, "days") == "1 day" and format_time_amount(30, "days") == "30 days"
    assert format_time_amount(480, "chip_hours") == "480 chip-hours" and format_time_amount(1, "hours") == "1 hour"
    assert format_time_amount(20, "gpu_days") == "20 GPU-days"


def test_format_int_never_goes_through_a_float():
    """Counts past a float's range (~1.8e308) were ``OverflowError`` in ``f"{n:.3g}"``; the reference here is the
    decimal module at 400 digits of precision, rounding half to even as Python formats a float."""
    import decimal

    from engine.units import format_count, format_int

    def reference(n: int, digits: int = 3) -> str:
        with decimal.localcontext() as ctx:
            ctx.prec, ctx.rounding = digits, decimal.ROUND_HALF_EVEN
            sign, lead, exponent = (+decimal.Decimal(n)).as_tuple()
        text = "".join(map(str, lead))
        exp = exponent + len(text) - 1
        mantissa = (text[0] + "." + text[1:]).rstrip("0").rstrip(".")
        return f"{mantissa}e{exp}"

    for n in (10**360, 2**(62 * 17), 3 * 10**400 + 5 * 10**397, 99_950 * 10**300, 12_350 * 10**12, 10**12):
        assert format_int(n) == reference(n), n
    assert format_int(2**(62 * 17)) == "1.93e317" and format_int(10**360) == "1e360"
    assert format_int(123_456_789) == "123,456,789" and format_int(-(10**400)) == "-1e400"
    assert format_flop(10**400) == "1.00e400 FLOP" and format_count(10**400, "values") == "1e400 values"
    for n in (12_345, 12_350, 12_250, 99_950, 10**15 + 5 * 10**12, 2**53 - 1):  # the float path's text, unchanged
        assert format_flop(n) == format_flop(float(n)) and format_flop(n, digits=4) == format_flop(float(n), digits=4)
