"""Units and the conventions that tie them together (see BRIEF: conventions)."""
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


def format_flop(value: float, unit: str = "FLOP", digits: int = 3) -> str:
    """``1.13e+16`` style with the unit: '1.13e16 FLOP'."""
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
