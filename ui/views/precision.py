"""The precision page's figures as text: the mixed split's shares, the effective peak, a chip's peaks per
format and the same run in each format. Pure: no Streamlit (tests/ui/test_views_precision.py)."""
from __future__ import annotations

import math

from engine.method2.formats import FORMAT_BY_KEY
from engine.units import TERA, format_chip_hours, format_duration, format_flop, format_number

Metric = tuple[str, str, str | None]


def mixed_split(percents: dict[str, float], last: str | None, labels: dict[str, str]) -> tuple[dict[str, float], str | None]:
    """The shares in percent, the ``last`` format taking the rest (100 − the others), and the error that
    stops the estimate: none chosen, or shares before the last above 100%."""
    if last is None:
        return {}, "choose at least one format"
    rest = 100.0 - math.fsum(percents.values())
    split = {**percents, last: rest}
    if rest < 0:
        return split, f"the shares before {labels[last]} add up to {100 - rest:.4g}%: lower one of them"
    return split, None


def mixed_precision_fields(split: dict[str, float], basis: str) -> dict:
    """The hardware run's fields for a split in percent: fractions of the positive shares, and their basis."""
    return {"mixed_precision": {k: v / 100.0 for k, v in split.items() if v > 0}, "split_basis": basis}


def peak_metrics(estimate, labels: dict[str, str]) -> list[Metric]:
    peak = estimate.peak
    return [
        ("Effective peak per chip", format_flop(peak.peak_flop_per_s / TERA, "T" + peak.unit),
         "; ".join(peak.notes) or None),
        ("Method 2 training compute", format_flop(estimate.training_flop),
         f"{format_chip_hours(estimate.chip_hours)} at utilization {estimate.utilization:g}"),
        ("Format", labels.get(peak.precision, peak.precision), peak.describe()),
    ]


def peak_bars(peaks: dict[str, float]) -> dict[str, list]:
    """Chart columns: a chip's dense peak per format (TFLOP/s), its units, and the bar's label."""
    return {"format": [FORMAT_BY_KEY[k].label for k in peaks],
            "TFLOP/s (dense)": [v / TERA for v in peaks.values()],
            "units": [FORMAT_BY_KEY[k].units for k in peaks],
            "label": [format_number(v / TERA) for v in peaks.values()]}


def format_rows(rows, labels: dict[str, str]) -> list[dict]:
    return [{"format": labels.get(r.peak_key, r.peak_key),
             "peak (dense)": f"{format_number(r.peak_flop_per_s / TERA)} T{r.unit}",
             "method 2 training compute": format_flop(r.training_flop),
             "time for the method-1 budget": format_duration(r.hours_for_budget)} for r in rows]


def budget_caption(budget: float | None) -> str:
    return ("Chips × time × utilization from the hardware page; method-1 budget "
            f"{format_flop(budget) if budget else '— (no training setup on the layer builder)'}.")
