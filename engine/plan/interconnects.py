"""Chip-to-chip bandwidths (``interconnects.json``), per chip and per direction, each with its source."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InputError, from_validation_error, quoted
from ..shipped import read_shipped_json, shipped_data_error

PATH = Path(__file__).with_name("interconnects.json")
GB = 1e9


class Interconnect(BaseModel):
    """``chips_per_node`` chips share the fast ``intra`` links; beyond a node, ``inter`` per chip."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip: str = "custom"
    system: str = "custom"
    chips_per_node: Annotated[int, Field(ge=1, le=1_000_000)]
    intra_gb_s: Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)]
    inter_gb_s: Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)] | None = None
    source: str = Field("", max_length=1000)

    def bandwidth(self, span: int) -> tuple[float, bool]:
        """Bytes/s for a group spanning ``span`` consecutive chips, and whether it was a stand-in (no
        inter-node figure: the intra-node one is used)."""
        if span <= self.chips_per_node:
            return self.intra_gb_s * GB, False
        if self.inter_gb_s is None:
            return self.intra_gb_s * GB, True
        return self.inter_gb_s * GB, False


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    description: str
    systems: list[Interconnect]


@lru_cache(maxsize=1)
def interconnects() -> dict[str, Interconnect]:
    try:
        data = _File.model_validate(read_shipped_json(PATH, {"systems": list}))
    except ValidationError as exc:
        raise shipped_data_error(PATH, from_validation_error(exc)) from None
    return {s.chip: s for s in data.systems}


def interconnect_for(chip_id: str) -> Interconnect:
    found = interconnects().get(chip_id)
    if found is None:
        raise InputError("interconnect", f"no interconnect figures for {quoted(chip_id)}; known: "
                                         f"{', '.join(interconnects())} (or give the bandwidths)")
    return found
