"""The PUE and grid inputs of the hardware and Plan pages: a provider and a place from the sourced lists, or typed
figures."""
from __future__ import annotations

import logging

import streamlit as st

from engine.method2.places import grid_places, provider_pues
from engine.shipped import ShippedDataError
from ui import state
from ui.boundary import shipped_data_message
from ui.text import plain
from ui.views.places import (
    CUSTOM,
    energy_fields,
    place_choice,
    place_label,
    place_options,
    provider_choice,
    provider_label,
    provider_options,
)

LOG = logging.getLogger("flopscope")


def energy_place_inputs(run: dict, defaults, pue_col, grid_col, prefix: str = "hw") -> dict:
    """Provider (PUE) in ``pue_col``, place (grid CO₂ per kWh) in ``grid_col``, the widgets keyed ``prefix``_…;
    returns the run's four fields. Without the lists (``pue.csv`` or ``grid_intensity.csv`` broken): one line, and the
    run's typed figures
    (else the database's defaults) in place of a provider or a place."""
    try:
        return _energy_place_inputs(run, defaults, pue_col, grid_col, prefix)
    except ShippedDataError as exc:
        LOG.error("shipped data file unusable for the energy inputs: %s", exc)
        st.warning(plain(shipped_data_message(exc, "The list of data centres and grids")) + " The database's "
                   "default PUE and grid intensity are used instead.", icon=":material/warning:")
        return energy_fields(CUSTOM, run.get("grid_kg_co2_per_kwh"), CUSTOM, run.get("pue"))


def _energy_place_inputs(run: dict, defaults, pue_col, grid_col, prefix: str) -> dict:
    provider = pue_col.selectbox("Data centre (PUE)", provider_options(), format_func=provider_label,
                                 key=state.bind(f"{prefix}_provider", provider_choice(run)))
    pue = None
    if provider == CUSTOM:
        pue = pue_col.number_input("PUE", min_value=1.0, max_value=5.0, step=0.05, help=defaults.pue_source,
                                   key=state.bind(f"{prefix}_pue", float(run.get("pue") or defaults.pue)))
    else:
        pue_col.caption(f"Source: {provider_pues()[provider].source}")
    place = grid_col.selectbox("Where the chips ran (grid)", place_options(), format_func=place_label,
                               key=state.bind(f"{prefix}_place", place_choice(run)))
    grid = None
    if place == CUSTOM:
        grid = grid_col.number_input("Grid, kg CO₂ per kWh", min_value=0.0, max_value=5.0, step=0.01,
                                     help=defaults.grid_source,
                                     key=state.bind(f"{prefix}_grid", float(run.get("grid_kg_co2_per_kwh")
                                                                     or defaults.grid_kg_co2_per_kwh)))
    else:
        grid_col.caption(f"{grid_places()[place].note}. Source: {grid_places()[place].source}")
    return energy_fields(place, grid, provider, pue)
