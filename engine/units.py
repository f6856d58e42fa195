"""Units and the conventions that tie them together (see BRIEF: conventions), and the one set of
display rules every page, the report and the CLI's text output use:

- FLOP in scientific notation with three significant digits: ``1.13e16 FLOP``;
- training compute in ``PF-days`` (petaFLOP/s-days; the only name shown);
- counts with k/M/B suffixes: ``737k chip-hours``; energy in kWh/MWh/GWh; CO₂ in kg/t/kt;
- a count with its noun in the right number: ``1 chip``, ``8 chips``;
- peaks as plain numbers without padding zeros: ``9.7``, ``78``, ``989.4``.
"""
from __future__ import annotations

import math

FLOP_PER_MAC = 2
"""1 multiply-accumulate ("add-multiply") = 2 FLOP, as hardware peaks count an FMA."""

PFS_DAY_FLOP = 1e15 * 86_400
"""1 petaFLOP/s-day = 1e15 FLOP/s × 86,400 s = 8.64e19 FLOP."""

SECONDS_PER_HOUR = 3_600.0
SECONDS_PER_DAY = 86_400.0


def flop_to_pfs_days(flop: float) -> float:
    """FLOP → petaFLOP/s-days."""
    return flop / PFS_DAY_FLOP


def format_int(n: int, digits: int = 3, exact_below: int = 10**12, *, keep_zeros: bool = False) -> str:
    """A count or size of any magnitude as text, in integer arithmetic only (a float overflows past ~1.8e308:
    ``f"{10**400:.3g}"`` raises): exact with thousands separators below ``exact_below`` ('1,234,567'), else
    ``digits`` significant digits (half to even, as Python formats a float), as FLOP are shown ('1.13e16', '1e360';
    '1.00e11' with ``keep_zeros``)."""
    n = int(n)
    if n < 0:
        return "-" + format_int(-n, digits, exact_below, keep_zeros=keep_zeros)
    if n < exact_below:
        return f"{n:,}"
    bits = n.bit_length()
    if bits > 4_000_000:  # past 10^1,200,000 the exact exponent is not worth its cost
        return f"about 1e{int((bits - 1) * LOG10_2):,}"
    e = max(int((bits - 1) * LOG10_2) - 1, 0)  # at most the true exponent
    while 10 ** (e + 1) <= n:
        e += 1
    scale = 10 ** max(e - digits + 1, 0)
    lead, rest = divmod(n, scale)
    if 2 * rest > scale or (2 * rest == scale and lead % 2):  # half to even, as float formatting rounds
        lead += 1
    if lead >= 10 ** digits:  # 9.995e16 → 1.00e17
        lead, e = lead // 10, e + 1
    text = str(lead)
    mantissa = text[0] + "." + text[1:] if len(text) > 1 else text
    return f"{mantissa if keep_zeros else mantissa.rstrip('0').rstrip('.')}e{e}"


LOG10_2 = math.log10(2)


def format_flop(value: float, unit: str = "FLOP", digits: int = 3) -> str:
    """``1.13e+16`` style with the unit: '1.13e16 FLOP' (an integer of any size through ``format_int``)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**4:
        return f"{format_int(value, digits, exact_below=10**4, keep_zeros=True)} {unit}".strip()
    if value is None or not math.isfinite(value):
        return f"— {unit}".strip()
    if value == 0:
        return f"0 {unit}".strip()
    if 1e-3 <= abs(value) < 1e4:
        rounded = float(f"{value:.{digits}g}")
        text = f"{int(rounded):,}" if rounded.is_integer() else f"{rounded:g}"
        return f"{text} {unit}".strip()
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)} {unit}".strip()


def latex_number(value: float, digits: int = 4) -> str:
    """A number for ``st.latex``: ``2.942 \\times 10^{10}``."""
    if value is None or not math.isfinite(value):
        return r"\text{—}"
    if value == 0 or 1e-3 <= abs(value) < 1e4:
        return f"{value:.{digits}g}"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"

TERA = 1e12
"""TFLOP/s → FLOP/s: peaks are entered in TFLOP/s, stored in FLOP/s."""


def format_duration(hours: float | None) -> str:
    """A duration in the unit that reads best: seconds, minutes, hours, days or years."""
    if hours is None or not math.isfinite(hours) or hours < 0:
        return "—"
    seconds = hours * SECONDS_PER_HOUR
    for limit, divisor, unit in ((60, 1, "s"), (3_600, 60, "min"), (48 * 3_600, 3_600, "h"),
                                 (730 * SECONDS_PER_DAY, SECONDS_PER_DAY, "days")):
        if seconds < limit:
            return f"{seconds / divisor:,.3g} {unit}"
    return f"{seconds / (365.25 * SECONDS_PER_DAY):,.3g} years"


PF_DAYS = "PF-days"
"""The one name of petaFLOP/s-days in the interface (1 PF-day = 8.64e19 FLOP)."""


def format_pf_days(value: float | None, digits: int = 3) -> str:
    """'1.31e4 PF-days', '0.131 PF-days'."""
    return format_flop(value, PF_DAYS, digits)


def format_number(value: float | None, digits: int = 4) -> str:
    """A plain number with at most ``digits`` significant digits and no padding zeros: 9.7, 78, 1,979."""
    if value is None or not math.isfinite(value):
        return "—"
    rounded = float(f"{value:.{digits}g}")
    if rounded.is_integer() and abs(rounded) < 1e15:
        return f"{int(rounded):,}"
    return f"{rounded:,.{digits}g}" if abs(rounded) >= 1e-3 else f"{rounded:.{digits}g}"


_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def format_count(value: float | None, unit: str = "", digits: int = 3) -> str:
    """A large count with a k/M/B/T suffix: 737,300 → '737k', 1.05e6 → '1.05M' (+ the unit)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:  # past a float's range too
        return f"{format_int(value, digits, exact_below=0)} {unit}".strip()
    if value is None or not math.isfinite(value):
        return f"— {unit}".strip()
    for scale, suffix in _SUFFIXES:
        if abs(value) >= scale * 0.9995:
            if abs(value) >= 1e3 * _SUFFIXES[0][0]:
                return f"{format_flop(value, '', digits)} {unit}".strip()
            return f"{float(f'{value / scale:.{digits}g}'):g}{suffix} {unit}".strip()
    return f"{format_number(value, digits)} {unit}".strip()


def _scaled(value: float | None, steps: tuple[tuple[float, str], ...], digits: int) -> str:
    """``value`` in the largest unit of ``steps`` (ascending (scale, unit)) it reaches."""
    if value is None or not math.isfinite(value):
        return f"— {steps[0][1]}"
    scale, unit = steps[0]
    for step_scale, step_unit in steps:
        if abs(value) >= step_scale * 0.9995:
            scale, unit = step_scale, step_unit
    return f"{format_number(value / scale, digits)} {unit}"


def format_energy_kwh(kwh: float | None, digits: int = 3) -> str:
    """Energy from kWh: '3.49 Wh', '820 kWh', '568 MWh', '1.2 GWh', '3.4 TWh'."""
    return _scaled(kwh, ((1e-3, "Wh"), (1.0, "kWh"), (1e3, "MWh"), (1e6, "GWh"), (1e9, "TWh")), digits)


def format_co2_kg(kg: float | None, digits: int = 3) -> str:
    """CO₂ from kg: '1.67 g CO₂', '41 kg CO₂', '273 t CO₂', '1.5 kt CO₂' (t = tonne)."""
    return _scaled(kg, ((1e-3, "g CO₂"), (1.0, "kg CO₂"), (1e3, "t CO₂"), (1e6, "kt CO₂"), (1e9, "Mt CO₂")), digits)


def format_chip_hours(hours: float | None, digits: int = 3) -> str:
    """'737k chip-hours', '1 chip-hour'."""
    if hours is not None and math.isfinite(hours) and float(f"{hours:.{digits}g}") == 1:
        return "1 chip-hour"
    return format_count(hours, "chip-hours", digits)


def plural(count: float, noun: str, nouns: str | None = None) -> str:
    """'1 chip', '8 chips', '2.5 chips', '1,024 chips' (the count as given, the noun in its number)."""
    text = f"{count:,.0f}" if float(count).is_integer() else f"{count:,.4g}"
    return f"{text} {noun if count == 1 else (nouns or noun + 's')}"


DURATION_NOUNS = {"days": ("day", "days"), "hours": ("hour", "hours"), "chip_hours": ("chip-hour", "chip-hours"),
                  "gpu_days": ("GPU-day", "GPU-days")}


def format_time_amount(duration: float, unit: str) -> str:
    """A run's time as given: '1 day', '30 days', '480 chip-hours', '20 GPU-days'."""
    one, many = DURATION_NOUNS.get(unit, (unit, unit))
    return f"{duration:g} {one if duration == 1 else many}"
