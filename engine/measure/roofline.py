"""The roofline (Williams, Waterman & Patterson 2009): an operator with I = FLOP ÷ bytes moved is bound by the
chip's memory when I is below the ridge point, peak ÷ bandwidth (the FLOP per byte at which both take the same
time), and by its arithmetic above it. Peak: the chip's dense peak for the operator's number format
(``chip_match.ChipMatch.peak``); bandwidth: its memory bandwidth (``hardware_db.json``). Attainable FLOP/s at
intensity I = min(peak, I × bandwidth).
"""
from __future__ import annotations

from .chip_match import ChipMatch
from ..method2.precision import FormatPeak


def ridge_flop_per_byte(peak: FormatPeak | None, chip: ChipMatch) -> float | None:
    """peak ÷ bandwidth (FLOP per byte), None without both."""
    bandwidth = chip.bandwidth_bytes_per_s
    if peak is None or not bandwidth:
        return None
    return peak.peak_flop_per_s / bandwidth


def attainable_flop_per_s(intensity: float, peak: FormatPeak, chip: ChipMatch) -> float | None:
    bandwidth = chip.bandwidth_bytes_per_s
    return None if not bandwidth else min(peak.peak_flop_per_s, intensity * bandwidth)


def bound(flop: int, traffic: float, peak: FormatPeak | None, chip: ChipMatch) -> str | None:
    """'compute' when FLOP ÷ bytes ≥ the ridge point, 'memory' below it; None without the chip's figures."""
    if chip.chip is None or not chip.bandwidth_bytes_per_s:
        return None
    if flop <= 0:
        return "memory" if traffic > 0 else None
    ridge = ridge_flop_per_byte(peak, chip)
    if ridge is None or traffic <= 0:
        return None
    return "compute" if flop / traffic >= ridge else "memory"
