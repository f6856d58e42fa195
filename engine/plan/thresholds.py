"""Training-compute thresholds in law and guidance, each with its legal source and date.

``compare(flop)`` says where a run stands against each: "3.2× below the EU AI Act threshold".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..results import Result
from ..units import format_flop


@dataclass(frozen=True, slots=True)
class Threshold(Result):
    """A training-compute threshold (FLOP, whole run) in a law or guideline, with its source."""

    key: str
    label: str
    flop: float
    meaning: str
    source: str
    url: str
    date: str
    """When the text was adopted or signed (ISO date), and what has changed since, in words."""

    @property
    def citation(self) -> str:
        """'Source: <text>; <date>, <link>' — the one way a threshold's legal source is written out."""
        return f"Source: {self.source}; {self.date}, {self.url}"


EU_SYSTEMIC_RISK = Threshold(
    "eu-ai-act-systemic-risk", "EU AI Act: systemic-risk presumption", 1e25,
    "A general-purpose AI model is presumed to have high-impact capabilities (systemic risk) when the "
    "cumulative compute used for its training is greater than 10^25 FLOP.",
    "Regulation (EU) 2024/1689 (AI Act), Article 51(2)",
    "https://eur-lex.europa.eu/eli/reg/2024/1689/oj",
    "2024-06-13 (adopted; published 12 July 2024; Article 51 applies from 2 August 2025)")
EU_GPAI_INDICATOR = Threshold(
    "eu-gpai-indicator", "EU guidelines: general-purpose AI indicator", 1e23,
    "Indicative criterion for a general-purpose AI model: training compute greater than 10^23 FLOP and able to "
    "generate language (text or audio), text-to-image or text-to-video.",
    "European Commission, Guidelines on the scope of the obligations for providers of general-purpose AI "
    "models under the AI Act (July 2025)",
    "https://digital-strategy.ec.europa.eu/en/library/guidelines-scope-obligations-providers-general-purpose-ai-models-under-ai-act",
    "2025-07-18 (published by the Commission)")
CA_FRONTIER = Threshold(
    "ca-sb53-frontier", "California SB 53: frontier model", 1e26,
    "A 'frontier model' is a foundation model trained using more than 10^26 integer or floating-point "
    "operations, counting the original training run and subsequent fine-tuning, reinforcement learning or "
    "other material modifications.",
    "California Senate Bill 53 (2025), Transparency in Frontier Artificial Intelligence Act, definition of "
    "'frontier model'",
    "https://leginfo.legislature.ca.gov/faces/billNavClient.xhtml?bill_id=202520260SB53",
    "2025-09-29 (signed; in force 1 January 2026)")
NY_RAISE = Threshold(
    "ny-raise-frontier", "New York RAISE Act: frontier model", 1e26,
    "A 'frontier model' is an AI model trained using greater than 10^26 computational operations (integer or "
    "floating-point). As signed, the Act also required a compute cost above 100 million dollars (at the "
    "market price of cloud compute), or covered a model distilled from a frontier model at more than 5 million "
    "dollars; the chapter amendment agreed at signing (A9449 / S8828, 2026) aligns the Act with California's "
    "SB 53: the cost test is dropped, more than 10^26 operations alone makes a frontier model, and the "
    "heaviest duties fall on 'large frontier developers' (annual revenue above 500 million dollars).",
    "New York Responsible AI Safety and Education (RAISE) Act, General Business Law art. 44-B § 1420 "
    "(S6953-B / A6453-B, signed 19 December 2025), as amended by chapter amendment A9449 / S8828 (2026)",
    "https://www.nysenate.gov/legislation/bills/2025/S6953/amendment/B",
    "2025-12-19 (signed with the agreed chapter amendment, passed 2026; the amended Act takes effect "
    "1 January 2027)")

THRESHOLDS: tuple[Threshold, ...] = (EU_GPAI_INDICATOR, EU_SYSTEMIC_RISK, CA_FRONTIER, NY_RAISE)
"""In increasing order of FLOP."""

MODIFICATION_FRACTION = 1 / 3
MODIFICATION_SOURCE = (
    "European Commission, guidelines for providers of general-purpose AI models (July 2025): a downstream modifier becomes the "
    "provider of the modified model when the modification uses more than one third of the original model's "
    "training compute (where that is unknown: one third of 10^25 FLOP for a model with systemic risk, "
    "one third of 10^23 FLOP otherwise).")


@dataclass(frozen=True, slots=True)
class Standing(Result):
    """Where a run's training FLOP stands against one threshold."""

    threshold: Threshold
    ratio: float
    """flop / threshold."""

    @property
    def above(self) -> bool:
        return self.ratio > 1  # the texts say "greater than"

    def sentence(self, subject: str = "This run") -> str:
        """'This run is 3.2× below the EU AI Act: systemic-risk presumption (10^25 FLOP).'"""
        exp = round(math.log10(self.threshold.flop))
        where = f"{self.threshold.label} (10^{exp} FLOP)"
        if self.ratio == 0:  # a total so small that flop / threshold underflows
            return f"{subject} is far below the {where}."
        if self.ratio == 1:
            return f"{subject} is exactly at the {where}; the text requires more than it."
        factor = self.ratio if self.above else 1 / self.ratio
        return f"{subject} is {_factor(factor)} {'above' if self.above else 'below'} the {where}."


def _factor(x: float) -> str:
    """3.2×, 318×, 1,363×; from 10,000 on three digits and a power of ten (8.85e9×): no false precision."""
    if x < 10:
        return f"{x:.2g}×"
    return f"{x:,.0f}×" if x < 1e4 else f"{format_flop(x, '')}×"


def compare(flop: float) -> list[Standing]:
    """Where ``flop`` stands against each threshold (ratios flop / threshold)."""
    return [Standing(t, flop / t.flop) for t in THRESHOLDS]


def modification_threshold(original_flop: float | None, systemic_risk: bool = False) -> float:
    """FLOP above which a modification makes its author a provider: one third of the original model's
    training compute, or of 10^25 / 10^23 FLOP when that is unknown (Commission guidelines)."""
    if original_flop is None:
        original_flop = EU_SYSTEMIC_RISK.flop if systemic_risk else EU_GPAI_INDICATOR.flop
    return original_flop * MODIFICATION_FRACTION


def every_sentence(flop: float, subject: str = "This run") -> str:
    """One sentence with the run's standing against every threshold: 'This run is 3.2× above the EU
    guidelines: … (10^23 FLOP), 32× below …, and 318× below the New York RAISE Act: … (10^26 FLOP).'"""
    if not (flop > 0 and math.isfinite(flop)):
        return f"{subject}: no finite positive compute to compare with the thresholds."
    parts = [s.sentence(subject).removeprefix(f"{subject} is ").rstrip(".") for s in compare(flop)]
    return f"{subject} is {', '.join(parts[:-1])} and {parts[-1]}."


def markdown_section(flop: float) -> list[str]:
    """The report's lines: where the training compute stands against each threshold, with the legal source."""
    lines = ["## Regulatory thresholds", ""]
    for standing in compare(flop):
        t = standing.threshold
        lines.append(f"- {standing.sentence()} {t.meaning} {t.citation}")
    lines.append(f"- Modifications: {MODIFICATION_SOURCE}")
    return lines
