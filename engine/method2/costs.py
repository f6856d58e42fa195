"""Cost, energy and CO2 of a run: chip-hours × price; chip-hours × TDP × PUE; energy × grid intensity.

Every input is editable and every default is stated with its basis: the price is the chip's
INDICATIVE price from ``hardware_db.json``; PUE is the provider's published figure (``pue.csv``) or the
database default; grid intensity is the place's (``grid_intensity.csv``: countries and cloud regions, with
year and source) or the database's world average.
TDP × time is an upper-end estimate of the chips' draw (they rarely sit at TDP the whole run) and
leaves out host CPUs, memory and network, which add perhaps 30–50% in a GPU server; PUE adds the
facility's cooling and power losses.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .hardware_db import Chip, HardwareDB, load_hardware_db
from .places import grid_place, provider_pue
from ..errors import parse_input
from .run import EnergyInputs, HardwareRun
from ..results import Result
from ..units import SECONDS_PER_HOUR

WATT_HOURS_PER_KWH = 1_000.0
NO_PRICE = "no price"


def cost_text(cost_usd: float | None) -> str:
    """'12,345 USD', or 'no price' for a chip without a known price (an unknown price is not 0 USD)."""
    return NO_PRICE if cost_usd is None else f"{cost_usd:,.0f} USD"


@dataclass(frozen=True, slots=True, kw_only=True)
class CostEstimate(Result):
    """Cost (USD), energy (kWh) and CO2 (kg) of ``chip_hours``, with the basis of every input.

    A figure is None when its input is unknown (no price / no TDP for the chip and none given).
    """

    chip_hours: float
    price_usd_per_chip_hour: float | None
    price_basis: str | None
    cost_usd: float | None
    tdp_w: float | None
    tdp_basis: str | None
    pue: float
    pue_basis: str
    energy_kwh: float | None
    grid_kg_co2_per_kwh: float
    grid_basis: str
    co2_kg: float | None
    notes: list[str]
    cost_text: str = NO_PRICE
    """The cost as shown everywhere: '12,345 USD', or 'no price' when no price is known (never 0 USD)."""


def costs_for_chip_hours(chip_hours: float, chip: Chip | None, inputs: EnergyInputs | Mapping | None = None,
                         db: HardwareDB | None = None) -> CostEstimate:
    """Cost = chip-hours × price; energy = chip-hours × TDP × PUE; CO2 = energy × grid intensity.

    ``inputs`` overrides the chip's price and TDP and the database's PUE and grid intensity.
    """
    inputs = parse_input(EnergyInputs, inputs or {})
    defaults = (db or load_hardware_db()).defaults
    notes: list[str] = []

    if inputs.price_usd_per_chip_hour is not None:
        price, price_basis = inputs.price_usd_per_chip_hour, "given"
    elif chip is not None and chip.price_usd_per_hour is not None:
        price = chip.price_usd_per_hour
        price_basis = chip.price_basis or "indicative price of the chip"
        notes.append(f"the price is indicative — {price_basis.removeprefix('indicative: ')}; prices vary 2–5× "
                     "between providers, commitments and years: enter yours for your provider and contract")
    else:
        price, price_basis = None, None
        notes.append("no price for this hardware: enter a price per chip-hour for a cost")

    if inputs.tdp_w is not None:
        tdp, tdp_basis = inputs.tdp_w, "given"
    elif chip is not None and chip.tdp_w is not None:
        tdp, tdp_basis = chip.tdp_w, f"TDP of {chip.name}"
    else:
        tdp, tdp_basis = None, None
        notes.append("no TDP for this hardware: enter the power per chip (W) for energy and CO₂")

    if inputs.pue is not None:
        pue, pue_basis = inputs.pue, "given"
    elif inputs.provider is not None:
        row = provider_pue(inputs.provider)
        pue, pue_basis = row.pue, row.basis()
    else:
        pue, pue_basis = defaults.pue, defaults.pue_source
    if inputs.grid_kg_co2_per_kwh is not None:
        grid, grid_basis = inputs.grid_kg_co2_per_kwh, "given"
    elif inputs.place is not None:
        place = grid_place(inputs.place)
        grid, grid_basis = place.kg_co2_per_kwh, place.basis()
    else:
        grid, grid_basis = defaults.grid_kg_co2_per_kwh, defaults.grid_source
    energy = None if tdp is None else chip_hours * tdp / WATT_HOURS_PER_KWH * pue
    if energy is not None:
        notes.append("energy counts the chips at TDP the whole run (upper end) and leaves out host "
                     "CPUs, memory and network")
    cost = None if price is None else chip_hours * price
    return CostEstimate(
        chip_hours=chip_hours, price_usd_per_chip_hour=price, price_basis=price_basis, cost_text=cost_text(cost),
        cost_usd=cost, tdp_w=tdp, tdp_basis=tdp_basis,
        pue=pue, pue_basis=pue_basis, energy_kwh=energy, grid_kg_co2_per_kwh=grid, grid_basis=grid_basis,
        co2_kg=None if energy is None else energy * grid, notes=notes)


def run_chip(run, db: HardwareDB) -> Chip | None:
    """The chip behind a run or plan (database or user-defined); None for a custom peak or a year mean."""
    if run.chip is not None:
        return db.chip(run.chip)
    return run.custom_chip


def estimate_costs(run: HardwareRun | Mapping, db: HardwareDB | None = None) -> CostEstimate:
    """Cost, energy and CO2 of a method-2 run (its chip-hours, its chip's price and TDP)."""
    run = parse_input(HardwareRun, run)
    db = db or load_hardware_db()
    return costs_for_chip_hours(run.chip_seconds / SECONDS_PER_HOUR, run_chip(run, db), run, db)
