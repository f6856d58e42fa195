"""One run, every number format its chip has: the method-2 FLOP and the time a budget takes."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .hardware_db import HardwareDB, load_hardware_db
from .run import HardwareRun, estimate_method2
from .planning import wall_clock_hours
from .precision import PRECISIONS
from ..results import Result


@dataclass(frozen=True, slots=True, kw_only=True)
class FormatRow(Result):
    """One format × tensor-core setting of the run's chip: its peak, method 2 in it, and the budget's time."""

    precision: str
    tensor_cores: bool
    peak_key: str
    peak_flop_per_s: float
    unit: str
    training_flop: float
    """Method 2 for the run's chips × time × utilization in this format."""
    hours_for_budget: float | None
    """Wall-clock hours the budget takes on the run's chips at its utilization (None without both)."""


def compare_formats(run: HardwareRun, budget_flop: float | None = None,
                    db: HardwareDB | None = None) -> list[FormatRow]:
    """Each format × tensor-core setting the chip has a peak for (no fallbacks): C = chips × t × P × u,
    and t = budget / (chips × P × u)."""
    db = db or load_hardware_db()
    rows: list[FormatRow] = []
    seen: set[str] = set()
    base = run.model_dump(exclude={"mixed_precision", "precision", "tensor_cores", "allow_fallback"})
    for precision in PRECISIONS:
        for tensor in (True, False):
            try:
                est = estimate_method2({**base, "precision": precision, "tensor_cores": tensor}, db)
            except InputError:
                continue  # the chip lacks this format: it is simply not listed
            key = est.peak.parts[0].peak_key
            if key in seen:
                continue
            seen.add(key)
            hours = None
            if budget_flop and run.chip_count:
                hours = wall_clock_hours(budget_flop, est.peak.peak_flop_per_s, run.utilization, run.chip_count)
            rows.append(FormatRow(precision=precision, tensor_cores=est.peak.tensor_cores, peak_key=key,
                                  peak_flop_per_s=est.peak.peak_flop_per_s, unit=est.peak.unit,
                                  training_flop=est.training_flop, hours_for_budget=hours))
    return rows
