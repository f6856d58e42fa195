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
