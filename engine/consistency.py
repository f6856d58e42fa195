"""Method 1 and method 2 side by side: their ratio, the utilization that would make them agree, and a
flag when they differ by more than a factor (3 by default: OpenAI aimed for agreement within 2–3×).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, Field

from .errors import PositiveFinite, parse_input
from .results import Result
from .units import flop_to_pfs_days

DEFAULT_TOLERANCE_FACTOR = 3.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsistencyCheck(Result):
    """How far apart the two estimates are, and what utilization would reconcile them."""

    method1_training_flop: float
    method2_training_flop: float
    method1_pfs_days: float
    method2_pfs_days: float
    ratio_method2_to_method1: float
    disagreement_factor: float
    """max/min of the two: 1 means equal, 3 means one is three times the other."""
    tolerance_factor: float
    agree: bool
    """True when they differ by at most ``tolerance_factor`` (otherwise the page flags it)."""
    utilization_assumed: float | None
    utilization_to_agree: float | None
    """The utilization at which method 2 would equal method 1 (u × C1 / C2)."""
    utilization_to_agree_plausible: bool | None
    """False when it is above 1: no utilization reconciles them; an input is off."""
    message: str


RATIO_BOUNDS = (math.exp(-700), math.exp(700))
"""The ratio C2/C1 is held within e^±700 (≈ 10^±304), so that it, its inverse and u / ratio stay finite."""


class ConsistencyInputs(BaseModel):
    """The two training FLOP figures, method 2's utilization u, and the tolerance factor (≥ 1)."""

    method1_training_flop: PositiveFinite
    method2_training_flop: PositiveFinite
    utilization: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] | None = None
    tolerance_factor: Annotated[float, Field(ge=1, allow_inf_nan=False)] = DEFAULT_TOLERANCE_FACTOR


def consistency_check(method1_training_flop: float, method2_training_flop: float,
                      utilization: float | None = None,
                      tolerance_factor: float = DEFAULT_TOLERANCE_FACTOR) -> ConsistencyCheck:
    """Compare C1 (operations) with C2 (hardware × time × u): ratio C2/C1, and u' = u × C1/C2."""
    inputs = parse_input(ConsistencyInputs, {"method1_training_flop": method1_training_flop,
                                             "method2_training_flop": method2_training_flop,
                                             "utilization": utilization, "tolerance_factor": tolerance_factor})
    # the validated values: numbers as floats (an int budget is reported as 1e+24, not 10**24)
    method1_training_flop, method2_training_flop = inputs.method1_training_flop, inputs.method2_training_flop
    utilization, tolerance_factor = inputs.utilization, inputs.tolerance_factor
    # held within e^±700: 1e308 against 5e-324 divided by zero (or gave a ratio of inf)
    ratio = min(max(method2_training_flop / method1_training_flop, RATIO_BOUNDS[0]), RATIO_BOUNDS[1])
    factor = max(ratio, 1 / ratio)
    agree = factor <= tolerance_factor
    to_agree = None if utilization is None else utilization / ratio
    plausible = None if to_agree is None else to_agree <= 1
    higher = "method 2" if ratio > 1 else "method 1"
    message = ("the two methods agree exactly" if ratio == 1 else
               f"{higher} is {factor:.3g}× the other: "
               + (f"within the {tolerance_factor:g}× OpenAI aimed for" if agree
                  else f"more than {tolerance_factor:g}× apart; check both sets of inputs"))
    if to_agree is not None:
        message += (f"; a utilization of {to_agree:.3g} would make them agree" if plausible
                    else f"; no utilization reconciles them (it would take {to_agree:.3g} > 1)")
    return ConsistencyCheck(
        method1_training_flop=method1_training_flop, method2_training_flop=method2_training_flop,
        method1_pfs_days=flop_to_pfs_days(method1_training_flop),
        method2_pfs_days=flop_to_pfs_days(method2_training_flop),
        ratio_method2_to_method1=ratio, disagreement_factor=factor, tolerance_factor=tolerance_factor,
        agree=agree, utilization_assumed=utilization, utilization_to_agree=to_agree,
        utilization_to_agree_plausible=plausible, message=message)
