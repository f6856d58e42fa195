"""The choices of where a run drew its power: grid places and data-centre providers, as the page lists them."""
from __future__ import annotations

from engine.method2.places import grid_places, provider_pues

CUSTOM = "custom"


def place_options() -> list[str]:
    """'world' first, then countries, then cloud regions (the CSV's order), then 'custom' (a typed figure)."""
    return list(grid_places()) + [CUSTOM]


def place_label(place_id: str) -> str:
    """'France — 57 g CO₂/kWh (2022)'; 'a figure of my own' for custom."""
    if place_id == CUSTOM:
        return "a figure of my own"
    p = grid_places()[place_id]
    return f"{p.label} — {1000 * p.kg_co2_per_kwh:.0f} g CO₂/kWh ({p.year})"


def provider_options() -> list[str]:
    return [CUSTOM] + list(provider_pues())


def provider_label(provider_id: str) -> str:
    if provider_id == CUSTOM:
        return "a PUE of my own"
    p = provider_pues()[provider_id]
    return f"{p.label} — PUE {p.pue:g} ({p.year})"


def place_choice(run: dict) -> str:
    """The place a saved run shows: its place, 'custom' when it holds a typed grid figure, else 'world'."""
    if run.get("place") in grid_places():
        return run["place"]
    return CUSTOM if run.get("grid_kg_co2_per_kwh") is not None else "world"


def provider_choice(run: dict) -> str:
    return run["provider"] if run.get("provider") in provider_pues() else CUSTOM


def energy_fields(place: str, grid: float | None, provider: str, pue: float | None) -> dict:
    """The run's fields for the choices: a place or provider by id, or the typed figure."""
    return {"place": None if place == CUSTOM else place,
            "grid_kg_co2_per_kwh": grid if place == CUSTOM else None,
            "provider": None if provider == CUSTOM else provider,
            "pue": pue if provider == CUSTOM else None}
