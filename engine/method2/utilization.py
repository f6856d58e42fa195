"""Utilization: the published presets, and utilization measured from a run's throughput (MFU).

Measured: achieved FLOP/s = items per second × training FLOP per item (an item is an example or
a token); model FLOPs utilization (PaLM, App. B) = achieved FLOP/s per chip ÷ peak FLOP/s per chip.
A reported MFU is a steady-state figure; over a whole run (restarts, evaluation, stragglers) the
utilization to use in method 2 is lower.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from ..errors import InputError
from .hardware_db import HardwareDB, UtilizationPreset, load_hardware_db
from ..errors import PositiveFinite, parse_input
from .run import HardwareSpec, PeakUsed, resolve_peak
from ..results import Result


def utilization_presets(db: HardwareDB | None = None) -> list[UtilizationPreset]:
    """OpenAI 0.33 (GPU) / 0.17 (CPU), Epoch 0.30 (LLM) / 0.40 (other), PaLM's MFU: with sources."""
    return list((db or load_hardware_db()).utilization_presets)


class MeasuredThroughput(HardwareSpec):
    """A measured training throughput on ``chip_count`` chips, and the training FLOP per item.

    Throughput: ``items_per_s`` (samples/s or tokens/s), or ``step_time_s`` with ``batch_size``
    (items per step: examples, or tokens = sequences × sequence length).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip_count: PositiveFinite
    training_flop_per_item: PositiveFinite = Field(
        description="training FLOP (forward + backward) per example or token, e.g. 6N per token")
    item: Literal["example", "token"] = "example"
    items_per_s: PositiveFinite | None = None
    step_time_s: PositiveFinite | None = None
    batch_size: PositiveFinite | None = None

    @model_validator(mode="after")
    def _one_throughput(self):
        by_step = self.step_time_s is not None or self.batch_size is not None
        if self.items_per_s is not None and by_step:
            raise InputError("items_per_s", "give items_per_s, or step_time_s with batch_size, not both")
        if self.items_per_s is None:
            if self.step_time_s is None:
                raise InputError("step_time_s", "give items_per_s, or step_time_s with batch_size")
            if self.batch_size is None:
                raise InputError("batch_size", "needed with step_time_s (items per step)")
        return self

    @property
    def throughput_items_per_s(self) -> float:
        return self.items_per_s if self.items_per_s is not None else self.batch_size / self.step_time_s


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasuredUtilization(Result):
    """Achieved FLOP/s and model FLOPs utilization (MFU) against the stated peak."""

    items_per_s: float
    item: str
    achieved_flop_per_s: float
    achieved_flop_per_s_per_chip: float
    peak_flop_per_s: float
    mfu: float
    peak: PeakUsed
    warnings: list[str]


def measured_utilization(measured: MeasuredThroughput | Mapping,
                         db: HardwareDB | None = None) -> MeasuredUtilization:
    """MFU = items/s × FLOP per item ÷ (chips × peak)."""
    measured = parse_input(MeasuredThroughput, measured)
    peak = resolve_peak(measured, db)
    items_per_s = measured.throughput_items_per_s
    achieved = items_per_s * measured.training_flop_per_item
    per_chip = achieved / measured.chip_count
    mfu = per_chip / peak.peak_flop_per_s
    warnings: list[str] = []
    if mfu > 1:
        warnings.append(f"MFU {mfu:.0%} is above 100%: check the FLOP per {measured.item} (the ×2 for "
                        "MAC → FLOP applied twice?), the format (a BF16 run against the FP32 peak?) and "
                        "the chip count")
    elif mfu > 0.75:
        warnings.append(f"MFU {mfu:.0%} is higher than reported large runs (PaLM 46%, typical 25–62%): "
                        "check the inputs")
    if not (0 < mfu < float("inf")):
        raise InputError("training_flop_per_item", "the utilization is not a finite positive number")
    return MeasuredUtilization(items_per_s=items_per_s, item=measured.item, achieved_flop_per_s=achieved,
                               achieved_flop_per_s_per_chip=per_chip, peak_flop_per_s=peak.peak_flop_per_s,
                               mfu=mfu, peak=peak, warnings=warnings)
