"""Energy and CO₂ by place: the grid and PUE lists, checked against BLOOM's, Llama 2's and Llama 3.1's
published energy and emissions (none of these figures is in the lists)."""
from __future__ import annotations

import json

import pytest

from engine.errors import InputError
from engine.method2.costs import estimate_costs
from engine.method2.places import grid_place, grid_places, provider_pue, provider_pues


def test_every_row_has_a_year_and_a_source_and_the_world_fallback_is_the_database_default():
    from engine.method2.hardware_db import load_hardware_db
    assert grid_places()["world"].kg_co2_per_kwh == load_hardware_db().defaults.grid_kg_co2_per_kwh
    assert {p.kind for p in grid_places().values()} == {"world", "country", "cloud region"}
    assert sum(p.kind == "cloud region" for p in grid_places().values()) >= 10
    for place in grid_places().values():
        assert place.source.startswith("https://") and 2020 <= place.year <= 2025
        if place.kind == "cloud region":  # a region carries its country's figure unless it has its own
            country = next(p for p in grid_places().values() if p.kind == "country" and p.country == place.country)
            assert place.kg_co2_per_kwh == country.kg_co2_per_kwh, place.id
    assert set(provider_pues()) == {"google", "meta", "aws", "microsoft", "average"}


def run(chip, hours, **energy):
    return {"chip": chip, "chip_count": 1, "duration": hours, "duration_unit": "chip_hours", "utilization": 0.3,
            **energy}


def test_bloom_on_the_french_grid():
    # Luccioni et al. 2022 (https://arxiv.org/abs/2211.02001): 1,082,990 A100-hours, 433 MWh of dynamic power,
    # 24.69 t CO2eq at the French grid's 57 g/kWh; world average instead: 9× too high
    france = estimate_costs(run("nvidia-a100-sxm4-80gb", 1_082_990, place="fr", pue=1.0))
    assert france.energy_kwh / 1000 == pytest.approx(433, rel=0.12)  # TDP 400 W the whole run: 433 MWh
    assert france.co2_kg / 1000 == pytest.approx(24.69, rel=0.12)
    world = estimate_costs(run("nvidia-a100-sxm4-80gb", 1_082_990, pue=1.0))
    assert world.co2_kg / france.co2_kg == pytest.approx(0.48 / 0.057, rel=1e-9)


@pytest.mark.parametrize("name,chip,hours,published_t", [
    # Touvron et al. 2023, Table 2: Llama 2 70B, 1,720,320 A100-80GB hours at 400 W, 291.42 t CO2eq
    ("Llama 2 70B", "nvidia-a100-sxm4-80gb", 1_720_320, 291.42),
    # Llama 3.1 model card: 405B, 30.84M H100-80GB hours at 700 W, 8,930 t CO2eq location-based
    ("Llama 3.1 405B", "nvidia-h100-sxm", 30.84e6, 8_930),
])
def test_meta_runs_on_the_us_grid_in_meta_data_centres(name, chip, hours, published_t):
    ours = estimate_costs(run(chip, hours, place="us", provider="meta"))
    assert ours.co2_kg / 1000 == pytest.approx(published_t, rel=0.10), name
    world = estimate_costs(run(chip, hours))  # one world factor and PUE 1.1: 25–30% off
    assert abs(world.co2_kg / 1000 / published_t - 1) > 0.2


def test_a_given_figure_wins_and_unknown_places_are_named():
    given = estimate_costs(run("nvidia-h100-sxm", 1000, place="fr", grid_kg_co2_per_kwh=0.2, provider="google"))
    assert given.grid_kg_co2_per_kwh == 0.2 and given.grid_basis == "given" and given.pue == 1.10
    assert "Google" in given.pue_basis and "https://" in given.pue_basis
    with pytest.raises(InputError, match="^place: unknown place 'mars'"):
        estimate_costs(run("nvidia-h100-sxm", 1000, place="mars"))
    with pytest.raises(InputError, match="^provider: "):
        estimate_costs(run("nvidia-h100-sxm", 1000, provider="x" * 500))
    assert grid_place("AWS-EU-WEST-3").country == "FR" and provider_pue("Meta").pue == 1.09


def test_cli_place_and_provider():
    from tests.cli import cli
    args = ("hardware", "--chip", "nvidia-a100-sxm4-80gb", "--chip-hours", "1082990", "--utilization", "0.3",
            "--place", "fr", "--pue", "1")
    data = json.loads(cli(*args).stdout)
    assert data["co2_kg"] == pytest.approx(1_082_990 * 0.4 * 0.057, rel=1e-9)
    assert "France" in data["costs"]["grid_basis"] and "2022" in data["costs"]["grid_basis"]
    bad = cli(*args[:-2], "--provider", "acme")
    assert bad.returncode != 0 and "provider: unknown provider 'acme'" in bad.stderr


def test_views_choices():
    from ui.views.places import CUSTOM, energy_fields, place_choice, place_label, provider_choice
    assert place_label("fr") == "France — 57 g CO₂/kWh (2022)"
    assert place_choice({}) == "world" and place_choice({"grid_kg_co2_per_kwh": 0.3}) == CUSTOM
    assert place_choice({"place": "se"}) == "se" and provider_choice({"pue": 1.2}) == CUSTOM
    assert energy_fields("fr", None, CUSTOM, 1.3) == {"place": "fr", "grid_kg_co2_per_kwh": None,
                                                      "provider": None, "pue": 1.3}
