"""Inverse planning: method 2 solved for time or for chips, for a FLOP budget (e.g. from method 1).

wall-clock time = C / (chips × peak × utilization); chips = C / (deadline × peak × utilization).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from .costs import CostEstimate, costs_for_chip_hours, run_chip
from ..errors import InputError
from .hardware_db import HardwareDB, load_hardware_db
from .run import (
    EnergyInputs, HardwareSpec, PeakUsed, PositiveFinite, UtilizationInputs, parse_input, resolve_peak,
)
from ..results import Result
from ..units import SECONDS_PER_DAY, SECONDS_PER_HOUR, flop_to_pfs_days


class PlanRequest(EnergyInputs, UtilizationInputs, HardwareSpec):
    """A FLOP budget, the hardware and utilization, and either a chip count or a deadline."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    training_flop: PositiveFinite = Field(description="the FLOP budget (e.g. method 1's training FLOP)")
    chip_count: PositiveFinite | None = Field(None, description="solve for the wall-clock time")
    deadline: PositiveFinite | None = Field(None, description="solve for the chips needed")
    deadline_unit: Literal["days", "hours"] = "days"

    @model_validator(mode="after")
    def _one_unknown(self):
        if (self.chip_count is None) == (self.deadline is None):
            raise InputError("chip_count", "give either chip_count (to get the time) or deadline (to get "
                             "the chips needed), not both or neither")
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class RunPlan(Result):
    """The wall-clock time on N chips, or the chips needed for a deadline, with its cost."""

    solved_for: Literal["wall_clock", "chip_count"]
    training_flop: float
    pfs_days: float
    peak_flop_per_s: float
    utilization: float
    chip_hours: float
    chip_count: float
    chip_count_exact: float | None
    wall_clock_hours: float
    wall_clock_days: float
    wall_clock_hours_low_utilization: float | None
    wall_clock_hours_high_utilization: float | None
    deadline_hours: float | None
    peak: PeakUsed
    costs: CostEstimate


def wall_clock_hours(training_flop: float, peak_flop_per_s: float, utilization: float, chips: float) -> float:
    """t = C / (chips × P × u), in hours: how long a FLOP budget takes."""
    return training_flop / (peak_flop_per_s * utilization) / chips / SECONDS_PER_HOUR


def solve_time_or_chips(request: PlanRequest | Mapping, db: HardwareDB | None = None) -> RunPlan:
    """Time for ``training_flop`` on ``chip_count`` chips, or chips for ``deadline`` (rounded up)."""
    request = parse_input(PlanRequest, request)
    db = db or load_hardware_db()
    peak = resolve_peak(request, db)
    chip_seconds = request.training_flop / (peak.peak_flop_per_s * request.utilization)
    if request.chip_count is not None:
        solved_for, chips, exact, deadline_hours = "wall_clock", request.chip_count, None, None
    else:
        solved_for = "chip_count"
        deadline_s = request.deadline * (SECONDS_PER_DAY if request.deadline_unit == "days" else SECONDS_PER_HOUR)
        exact = chip_seconds / deadline_s
        # whole chips; the tolerance keeps 8.0000000001 (float noise) from becoming 9
        chips = float(max(1, math.ceil(exact * (1 - 1e-12))))
        deadline_hours = deadline_s / SECONDS_PER_HOUR
    wall_hours = wall_clock_hours(request.training_flop, peak.peak_flop_per_s, request.utilization, chips)

    def hours_at(utilization: float | None) -> float | None:
        if utilization is None:
            return None
        return wall_clock_hours(request.training_flop, peak.peak_flop_per_s, utilization, chips)

    if not math.isfinite(wall_hours):
        raise InputError("training_flop", "the plan overflows: check the budget and the peak")
    # The same chip-hours whichever way it is solved: the chips stop when the budget is spent.
    costs = costs_for_chip_hours(chip_seconds / SECONDS_PER_HOUR, run_chip(request, db), request, db)
    return RunPlan(
        solved_for=solved_for, training_flop=request.training_flop,
        pfs_days=flop_to_pfs_days(request.training_flop), peak_flop_per_s=peak.peak_flop_per_s,
        utilization=request.utilization, chip_hours=chip_seconds / SECONDS_PER_HOUR, chip_count=chips,
        chip_count_exact=exact, wall_clock_hours=wall_hours, wall_clock_days=wall_hours / 24,
        # a lower utilization takes longer: the low end of utilization is the high end of time
        wall_clock_hours_low_utilization=hours_at(request.utilization_low),
        wall_clock_hours_high_utilization=hours_at(request.utilization_high),
        deadline_hours=deadline_hours, peak=peak, costs=costs)
