"""Where a run draws its power: grid carbon intensity by country and cloud region (``grid_intensity.csv``)
and data-centre PUE by provider (``pue.csv``), each row with its year and source.

CO₂ = energy × g (kg CO₂ per kWh of the place's grid, annual average, location-based); energy = chip-hours ×
power × PUE. A cloud region without a published figure of its own carries its country's (its note says so).
The world average stays the fallback when no place is chosen.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InputError, from_validation_error, quoted
from ..shipped import read_shipped_rows, shipped_data_error

GRID_PATH = Path(__file__).with_name("grid_intensity.csv")
PUE_PATH = Path(__file__).with_name("pue.csv")
_ID = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class GridPlace(BaseModel):
    """One place's grid: kg CO₂ per kWh in ``year``, with its source."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=_ID, max_length=60)
    label: str = Field(min_length=1, max_length=120)
    kind: Literal["world", "country", "cloud region"]
    country: str = Field("", max_length=2)
    kg_co2_per_kwh: Annotated[float, Field(ge=0, le=2, allow_inf_nan=False)]
    year: Annotated[int, Field(ge=2000, le=2100)]
    source: str = Field(pattern=r"^https://", max_length=300)
    note: str = Field("", max_length=400)

    def basis(self) -> str:
        return f"{self.label}: {1000 * self.kg_co2_per_kwh:.0f} g CO₂/kWh ({self.year}; {self.note}) — {self.source}"


class ProviderPue(BaseModel):
    """One provider's published power usage effectiveness."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=_ID, max_length=40)
    label: str = Field(min_length=1, max_length=120)
    pue: Annotated[float, Field(ge=1, le=5, allow_inf_nan=False)]
    year: Annotated[int, Field(ge=2000, le=2100)]
    source: str = Field(pattern=r"^https://", max_length=300)
    note: str = Field("", max_length=400)

    def basis(self) -> str:
        return f"{self.label}: PUE {self.pue:g} ({self.year}; {self.note}) — {self.source}"


def _rows(path: Path, model):
    """The shipped table's rows by id, each validated (``engine.shipped``: a broken file names itself)."""
    out = {}
    for line, row in read_shipped_rows(path, tuple(n for n, f in model.model_fields.items() if f.is_required())):
        try:
            item = model.model_validate(row)
        except ValidationError as exc:
            raise shipped_data_error(path, from_validation_error(exc, prefix=f"line {line}")) from None
        out[item.id] = item
    return out


@lru_cache(maxsize=1)
def grid_places() -> dict[str, GridPlace]:
    """Every place of ``grid_intensity.csv`` by id ('world', 'fr', 'aws-eu-west-3', …)."""
    return _rows(GRID_PATH, GridPlace)


@lru_cache(maxsize=1)
def provider_pues() -> dict[str, ProviderPue]:
    """Every provider of ``pue.csv`` by id ('google', 'meta', 'aws', 'microsoft', 'average')."""
    return _rows(PUE_PATH, ProviderPue)


def grid_place(place: str) -> GridPlace:
    """The place called ``place`` (its id, case ignored), or an ``InputError`` listing a few."""
    found = grid_places().get(place.strip().lower())
    if found is None:
        raise InputError("place", f"unknown place {quoted(place[:60])}; known: {', '.join(list(grid_places())[:12])}, "
                                  "… (the `places` list)")
    return found


def provider_pue(provider: str) -> ProviderPue:
    found = provider_pues().get(provider.strip().lower())
    if found is None:
        raise InputError("provider", f"unknown provider {quoted(provider[:60])}; known: "
                                     f"{', '.join(provider_pues())}")
    return found
