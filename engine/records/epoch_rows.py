"""The cells of one Epoch AI row as the readers share them: a row's method-2 cells kept as written, and a
training-compute figure in any float notation (``3.14e+23``, ``314,000,000``)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..results import Result

# decimal or scientific notation; thousands separators handled before this
_FLOAT_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_THOUSANDS_RE = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?")


@dataclass(frozen=True, slots=True, kw_only=True)
class HardwareRow(Result):
    """A row's method-2 cells as written (text), for the reconciliation; ``flop`` may be empty.

    The importer's output, not an input model: every cell is text kept as written (the reconciliation
    parses the numbers and reports a bad one per row), so there is nothing to validate here."""

    row: int
    name: str
    date: str
    domain: str = ""
    flop: str = ""
    hardware: str
    quantity: str
    hours: str
    utilization: str = ""
    base_model: str = ""
    time_notes: str = ""
    compute_notes: str = ""
    confidence: str = ""


def parse_flop(text: str) -> float:
    """'3.14e+23', '3.14E23', '314,000,000' … → float; ``ValueError`` unless positive and finite."""
    value = text.strip()
    if _THOUSANDS_RE.fullmatch(value):
        value = value.replace(",", "")
    if not _FLOAT_RE.fullmatch(value):
        raise ValueError(f"'{text[:40]}' is not a number")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"'{text[:40]}' is not a positive finite number")
    return number


TRAINING_FLOP_RANGE = (1.0, 1e40)
"""A training run's compute a table may report: from 1 FLOP (the Perceptron of 1957 took ~7e5) to 10⁴⁰ (the
bound every FLOP input of FLOPscope keeps; today's largest runs are ~5e26)."""


def parse_training_flop(text: str) -> float:
    """``parse_flop`` within ``TRAINING_FLOP_RANGE`` (``ValueError`` outside: 1e-300 or 1e308 is no run's
    compute, and its log would overflow a fit)."""
    number = parse_flop(text)
    low, high = TRAINING_FLOP_RANGE
    if not low <= number <= high:
        raise ValueError(f"'{text[:40]}' is outside 1 – 10⁴⁰ FLOP")
    return number
