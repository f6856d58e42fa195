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
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from engine.errors import InputError
from engine.results import Result

Z90 = 1.6448536269514722
"""Standard normal 95th percentile: the 90% interval is ±Z90 σ."""
MONTE_CARLO_SAMPLES = 20_000
MONTE_CARLO_SEED = 20220215
"""Fixed, so an estimate is reproducible (the date Epoch published its compute-estimation guide)."""
CONFIDENCE_FACTORS: tuple[tuple[str, float], ...] = (("Confident", 3.0), ("Likely", 10.0))
CONFIDENCE_SOURCE = ("Epoch AI, 'Notable AI Models' documentation, estimation and confidence "
                     "(https://epoch.ai/data/ai-models-documentation/estimation): Confident = within a factor of "
                     "3, Likely = within a factor of 10 (one order of magnitude), Speculative = beyond")


class Factor(NamedTuple):
    """One uncertain input: its name, the point value used, and its range."""

    name: str
    point: float
    low: float
    high: float


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
    reach = max(high / point, point / low)
    return next((label for label, factor in CONFIDENCE_FACTORS if reach <= factor * (1 + 1e-12)), "Speculative")


def _sigma(factor: Factor) -> float:
    return math.log(factor.high / factor.low) / (2 * Z90)


def product_interval(point: float, factors: list[Factor]) -> Interval:
    """The exact 90% interval of ``point`` × Π (factor / its point), each factor log-normal on its range."""
    ranged = [f for f in factors if f.high > f.low]
    if not ranged:
        return Interval(point=point, low=point, high=point, method="no uncertain input", factors=[],
                        confidence="Confident")
    log_median = math.log(point) + sum(0.5 * math.log(f.low * f.high) - math.log(f.point) for f in ranged)
    sigma = math.sqrt(sum(_sigma(f) ** 2 for f in ranged))
    low, high = math.exp(log_median - Z90 * sigma), math.exp(log_median + Z90 * sigma)
    if not (math.isfinite(low) and math.isfinite(high) and low > 0):
        raise InputError("ranges", "the interval is beyond the range of floating-point numbers")
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
    if not ranged:
        return Interval(point=point, low=point, high=point, method="no uncertain input", factors=[],
                        confidence="Confident")
    rng = np.random.default_rng(seed)
    draws = {f.name: np.exp(rng.normal(0.5 * math.log(f.low * f.high), _sigma(f), samples)) for f in ranged}
    with np.errstate(over="ignore", invalid="ignore"):
        totals = np.asarray(function(**draws), dtype=float)
    if not np.all(np.isfinite(totals)):
        raise InputError("ranges", "the interval is beyond the range of floating-point numbers")
    low, high = (float(v) for v in np.percentile(totals, [5, 95]))
    return Interval(point=point, low=low, high=high,
                    method=f"Monte Carlo, {samples:,} draws, fixed seed {seed}; each range a 90% log-normal interval",
                    factors=[f.name for f in ranged], confidence=confidence_label(point, min(low, point),
                                                                                  max(high, point)))
