"""Ranges instead of points: a 90% interval on training compute from uncertain inputs.

Each uncertain input is given as a range [low, high], read as its 90% interval on a log-normal
(median √(low·high), σ = ln(high/low) / (2 · 1.645)). Method 2 is a product,
C = N × t × P × u, so its interval is exact in closed form: ln C is normal with the sum of the
σ² of the factors, and C's 90% interval is median × e^(±1.645·σ). With one uncertain factor this is
that factor's own range (interval arithmetic). Method 1, C = F × (1 + r + recompute) × E × epochs
+ optimizer FLOP, is not a product in r, so its interval comes from a Monte Carlo run with a fixed
seed (the same inputs always give the same interval).

The interval is mapped to Epoch AI's confidence labels by how far its ends reach from the point:
within 3× either way 'Confident', within 10× 'Likely', beyond that 'Speculative'.

Everything is computed on logarithms (ln low + ln high, never low × high) and checked against the largest
float's logarithm before any ``exp``: a range up to 1e308 gives an interval or one ``InputError`` naming
the widest range, never an overflow. A point of 0 (a model without compute) has the interval [0, 0].
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import NamedTuple

from .errors import InputError
from .results import Result

Z90 = 1.6448536269514722
"""Standard normal 95th percentile: the 90% interval is ±Z90 σ."""
MONTE_CARLO_SAMPLES = 20_000
MONTE_CARLO_SEED = 20220215
"""Fixed, so an estimate is reproducible (the date Epoch published its compute-estimation guide)."""
CONFIDENCE_FACTORS: tuple[tuple[str, float], ...] = (("Confident", 3.0), ("Likely", 10.0))
CONFIDENCE_SOURCE = ("Epoch AI, 'Notable AI Models' documentation, estimation and confidence "
                     "(https://epoch.ai/data/ai-models-documentation/estimation): Confident = within a factor of "
                     "3, Likely = within a factor of 10 (one order of magnitude), Speculative = beyond")


LOG_MAX = math.log(sys.float_info.max)
"""ln of the largest float (≈ 709.78): an interval end beyond e^LOG_MAX is not a number."""


class Factor(NamedTuple):
    """One uncertain input: its name, the point value used, and its range; ``field`` is the input the user
    gave the range in (without its ``_low``/``_high``), when it differs from ``name``."""

    name: str
    point: float
    low: float
    high: float
    field: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Interval(Result):
    """A 90% interval around a point estimate, how it was computed, and its Epoch confidence label."""

    point: float
    low: float
    high: float
    level: float = 0.9
    method: str
    factors: list[str]
    confidence: str
    confidence_rule: str = CONFIDENCE_SOURCE


def check_range(field: str, point: float | None, low: float | None, high: float | None,
                upper: float = math.inf) -> None:
    """``InputError`` naming ``field`` unless low ≤ (point) ≤ high, all positive, finite and ≤ ``upper``."""
    for name, value in (("low", low), ("high", high)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value <= 0 or value > upper:
            bound = f" and at most {upper:g}" if math.isfinite(upper) else ""
            raise InputError(f"{field}_{name}", f"must be a positive finite number{bound}, got {value!r}")
    if low is not None and high is not None and low > high:
        raise InputError(f"{field}_low", f"{low:g} is above {field}_high {high:g}")
    if point is not None and low is not None and low > point:
        raise InputError(f"{field}_low", f"{low:g} is above {field} {point:g}")
    if point is not None and high is not None and high < point:
        raise InputError(f"{field}_high", f"{high:g} is below {field} {point:g}")


def confidence_label(point: float, low: float, high: float) -> str:
    """'Confident' / 'Likely' / 'Speculative' by the interval's reach from the point (Epoch's factors)."""
    if point <= 0 or low <= 0:
        return "Confident" if point == low == high else "Speculative"
    reach = max(high / point, point / low)
    return next((label for label, factor in CONFIDENCE_FACTORS if reach <= factor * (1 + 1e-12)), "Speculative")


def _sigma(factor: Factor) -> float:
    """σ = (ln high − ln low) / (2 · 1.645), from the logarithms (high / low may overflow)."""
    return (math.log(factor.high) - math.log(factor.low)) / (2 * Z90)


def _log_mu(factor: Factor) -> float:
    """ln of the range's median √(low·high), from the logarithms (low · high may overflow)."""
    return 0.5 * (math.log(factor.low) + math.log(factor.high))


def _beyond(ranged: list[Factor], log_end: float) -> InputError:
    """The message when an interval end, e^log_end, is not a positive float: names the widest range."""
    widest = max(ranged, key=_sigma)
    end, where = ("high", f"beyond the largest number this tool computes with ({sys.float_info.max:.2g})") \
        if log_end > 0 else ("low", "below the smallest number this tool computes with")
    return InputError(f"{widest.field or widest.name}_{end}",
                      f"the 90% interval reaches about 10^{log_end / math.log(10):.0f}, {where}; narrow the range")


def _trivial(point: float, ranged: list[Factor]) -> Interval | None:
    """The interval without uncertainty: no ranged input, or a point of 0 (nothing to scale)."""
    if not ranged:
        return Interval(point=point, low=point, high=point, method="no uncertain input", factors=[],
                        confidence="Confident")
    if point == 0:
        return Interval(point=0.0, low=0.0, high=0.0, method="no compute: the interval is [0, 0]",
                        factors=[f.name for f in ranged], confidence="Confident")
    return None


def product_interval(point: float, factors: list[Factor]) -> Interval:
    """The exact 90% interval of ``point`` × Π (factor / its point), each factor log-normal on its range."""
    ranged = [f for f in factors if f.high > f.low]
    trivial = _trivial(point, ranged)
    if trivial is not None:
        return trivial
    log_median = math.log(point) + sum(_log_mu(f) - math.log(f.point) for f in ranged)
    sigma = math.sqrt(sum(_sigma(f) ** 2 for f in ranged))
    log_low, log_high = log_median - Z90 * sigma, log_median + Z90 * sigma
    if log_high > LOG_MAX:
        raise _beyond(ranged, log_high)
    low, high = math.exp(log_low), math.exp(log_high)
    if low <= 0:  # below the smallest float: the interval reaches 0, which no log-normal does
        raise _beyond(ranged, log_low)
    return Interval(point=point, low=low, high=high,
                    method="exact: product of log-normal factors (90% interval of each range)",
                    factors=[f.name for f in ranged], confidence=confidence_label(point, low, high))


def monte_carlo_interval(point: float, factors: list[Factor], function, samples: int = MONTE_CARLO_SAMPLES,
                         seed: int = MONTE_CARLO_SEED) -> Interval:
    """5th and 95th percentiles of ``function(**draws)``, each factor drawn log-normal on its range.

    ``function`` takes one keyword per factor name (arrays of draws) and returns an array of totals.
    """
    import numpy as np

    ranged = [f for f in factors if f.high > f.low]
    trivial = _trivial(point, ranged)
    if trivial is not None:
        return trivial
    rng = np.random.default_rng(seed)
    logs = {f.name: rng.normal(_log_mu(f), _sigma(f), samples) for f in ranged}
    for f in ranged:
        if float(logs[f.name].max()) > LOG_MAX:
            raise _beyond(ranged, float(logs[f.name].max()))
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        draws = {name: np.exp(values) for name, values in logs.items()}
        totals = np.asarray(function(**draws), dtype=float)
    if not np.all(np.isfinite(totals)):
        raise _beyond(ranged, math.log(sys.float_info.max) + 1)
    low, high = (float(v) for v in np.percentile(totals, [5, 95]))
    if low <= 0 < point:  # the draws fell below the smallest float
        raise _beyond(ranged, math.log(sys.float_info.min))
    return Interval(point=point, low=low, high=high,
                    method=f"Monte Carlo, {samples:,} draws, fixed seed {seed}; each range a 90% log-normal interval",
                    factors=[f.name for f in ranged], confidence=confidence_label(point, min(low, point),
                                                                                  max(high, point)))
