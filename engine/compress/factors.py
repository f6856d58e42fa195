"""Measured speed-ups, cited: where FLOP and time part ways (``factors.json``).

Each row is one published measurement: the technique, the setting, what was timed (end to end, the sparsified
layers, decode tokens/s), the chip, the two values the source printed (baseline and treated) or the figure it
printed, and the source. ``figure`` > 1 is faster. ``flop_ratio`` is how many times fewer FLOP (or the peak's ratio)
the ideal would promise: the gap between the two is the lesson — 2:4 sparsity halves the sparse layers' products and
gives 1.06× end to end; FP8 doubles the peak and gives 1.25–1.50×; INT4 weight-only changes no FLOP and gives 1.9× at
batch 1, dynamic INT8 11× slower.

Defaults (``DEFAULTS``) name the row used where the engine needs a time factor; every caller takes an override.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError, parse_input, quoted
from ..shipped import ShippedDataError, read_shipped_json, shipped_data_error

PATH = Path(__file__).with_name("factors.json")


class MeasuredFactor(BaseModel):
    """One published speed-up: ``figure`` = baseline/treated (times) or treated/baseline (throughputs), or the
    figure the source printed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    technique: str
    setting: str
    measure: str
    chip: str
    baseline: float | None
    treated: float | None
    unit: str
    lower_is_better: bool
    figure: float = Field(gt=0)
    flop_ratio: float | None
    source: str = Field(min_length=10)
    note: str = ""

    @property
    def url(self) -> str:
        return self.source[self.source.rfind("https://"):]


@lru_cache(maxsize=1)
def factors() -> dict[str, MeasuredFactor]:
    data = read_shipped_json(PATH, {"factors": list})
    out: dict[str, MeasuredFactor] = {}
    for i, row in enumerate(data["factors"]):
        try:
            factor = parse_input(MeasuredFactor, row, source=f"factors.json factors[{i}]")
        except InputError as exc:
            raise shipped_data_error(PATH, exc) from None
        if factor.id in out:
            raise ShippedDataError(PATH.name, f"factor {factor.id!r} is listed twice")
        out[factor.id] = factor
    return out


def factor(factor_id: str) -> MeasuredFactor:
    table = factors()
    if factor_id not in table:
        raise InputError("factor", f"{quoted(factor_id)} is not a measured factor; known: {', '.join(table)}")
    return table[factor_id]


DEFAULTS = {
    "sparse24_training_e2e": "sparse24-training-vit-l-e2e",
    "sparse24_training_layers": "sparse24-training-vit-l-mlp",
    "fp8_training": "fp8-training-rowwise-2k-h200-low",
    "mxfp8_training": "mxfp8-training-llama3-70b-b200-low",
    "nvfp4_training": "nvfp4-training-vs-bf16",
    "int4_weight_only_decode": "int4-weight-only-decode-b1-llama2-7b",
    "int8_weight_only_decode": "int8-weight-only-decode-b1-llama2-7b",
    "int8_dynamic_decode": "int8-dynamic-decode-b1-llama2-7b",
    "structured_pruning_unsaturated": "structured-pruning-unsaturated-gpu",
}
"""Where the engine uses a measured factor, the row it takes by default."""


def default(use: str) -> MeasuredFactor:
    return factor(DEFAULTS[use])


def chosen(use: str, override: float | None) -> tuple[float, str]:
    """(the factor, where it comes from): the user's figure, or the default row's with its source."""
    if override is not None:
        return override, "given"
    row = default(use)
    return row.figure, f"{row.setting} ({row.chip}): {row.source}"
