"""Cost, energy and CO2: chip-hours × price; chip-hours × TDP × PUE; energy × grid intensity."""
from __future__ import annotations

import pytest

from engine.method2.costs import costs_for_chip_hours, estimate_costs
from engine.errors import InputError
from engine.method2.hardware_db import Chip

H100_RUN = {"chip": "H100", "precision": "bf16", "chip_count": 8, "duration": 10, "utilization": 0.4}


def test_defaults_are_stated_with_their_basis():
    costs = estimate_costs(H100_RUN)
    assert costs.chip_hours == 8 * 10 * 24  # 1,920
    # H100 SXM TDP 700 W (datasheet), default PUE 1.1 (Google fleet), grid 0.48 kg/kWh (Ember 2023)
    assert costs.tdp_w == 700 and costs.pue == 1.1 and costs.grid_kg_co2_per_kwh == 0.48
    assert costs.energy_kwh == pytest.approx(1920 * 700 / 1000 * 1.1)        # 1,478.4 kWh
    assert costs.co2_kg == pytest.approx(1920 * 700 / 1000 * 1.1 * 0.48)     # 709.6 kg
    assert "google.com" in costs.pue_basis and "Ember" in costs.grid_basis
    assert costs.price_basis.startswith("indicative")
    assert costs.cost_usd == pytest.approx(1920 * costs.price_usd_per_chip_hour)
    # the note gives the price's basis in the user's words, not a field name
    assert any(note.startswith("the price is indicative — ") and costs.price_basis.removeprefix("indicative: ") in note
               and "price_basis" not in note for note in costs.notes)


def test_every_input_is_editable():
    costs = estimate_costs({**H100_RUN, "price_usd_per_chip_hour": 2.5, "tdp_w": 500, "pue": 1.58,
                            "grid_kg_co2_per_kwh": 0.02})
    assert costs.cost_usd == pytest.approx(1920 * 2.5)                       # 4,800 USD
    assert costs.energy_kwh == pytest.approx(1920 * 0.5 * 1.58)              # 1,516.8 kWh
    assert costs.co2_kg == pytest.approx(1920 * 0.5 * 1.58 * 0.02)
    assert costs.price_basis == costs.tdp_basis == costs.pue_basis == costs.grid_basis == "given"


def test_unknown_price_or_tdp_gives_none_and_says_why():
    # TPU v5e: Google publishes no TDP; a custom peak has neither price nor TDP.
    tpu = estimate_costs({"chip": "TPU v5e", "precision": "bf16", "chip_count": 4, "duration": 1,
                          "utilization": 0.3})
    assert tpu.energy_kwh is None and tpu.co2_kg is None and tpu.cost_usd is not None
    custom = estimate_costs({"peak_flop_per_s": 1e14, "chip_count": 4, "duration": 1, "utilization": 0.3})
    assert custom.cost_usd is None and custom.energy_kwh is None
    assert "no price for this hardware: enter a price per chip-hour for a cost" in custom.notes
    assert "no TDP for this hardware: enter the power per chip (W) for energy and CO₂" in custom.notes


def test_a_user_defined_chip_brings_its_price_and_tdp():
    chip = Chip(name="rented NPU", peaks={"bf16_tensor": 3e14}, tdp_w=400, price_usd_per_hour=1.5)
    costs = costs_for_chip_hours(100, chip)
    assert costs.cost_usd == pytest.approx(150) and costs.energy_kwh == pytest.approx(100 * 0.4 * 1.1)


@pytest.mark.parametrize("change, field", [
    ({"pue": 0.9}, "pue"), ({"grid_kg_co2_per_kwh": -0.1}, "grid_kg_co2_per_kwh"),
    ({"tdp_w": 0}, "tdp_w"), ({"price_usd_per_chip_hour": float("nan")}, "price_usd_per_chip_hour"),
])
def test_bad_cost_inputs_name_the_field(change, field):
    with pytest.raises(InputError) as info:
        estimate_costs({**H100_RUN, **change})
    assert info.value.field == field


def test_a_chip_without_a_price_says_no_price_never_zero():
    # H800: no rental price on file. 8 chips × 24 h = 192 chip-hours; the H100 SXM's indicative 3.0 USD per
    # chip-hour gives 576 USD
    from tests.cli import cli
    run = {"chip": "H800", "chip_count": 8, "duration": 24, "duration_unit": "hours", "utilization": 0.3}
    h800 = estimate_costs(run)
    assert h800.cost_usd is None and h800.cost_text == "no price" and h800.as_dict()["cost_text"] == "no price"
    assert estimate_costs({**run, "chip": "H100 SXM"}).cost_text == f"{192 * 3.0:,.0f} USD"
    args = ("hardware", "--chip", "H800", "--count", "8", "--hours", "24", "--utilization", "0.3")
    out = cli(*args)  # JSON when not on a terminal
    import json
    data = json.loads(out.stdout)
    assert data["cost_usd"] is None and data["cost"] == "no price"
    text = cli(*args, "--format", "text").stdout
    assert "no price" in text and "0 USD" not in text
