"""A multimodal model among Epoch AI's multimodal rows (issue item: the trends page places a multimodal estimate):
LLaVA-1.5-7B read from its Hub config.json, loaded into the layer builder as the upload's button does, trained on
a number of examples, and placed on the trends page with the domain "Multimodal". The rank is checked against the
shipped dataset's multimodal rows read here with the csv module: 1 + the rows with more training FLOP."""
from __future__ import annotations

import csv
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.multimodal.configs_lib import config

EXAMPLES = 1.2e6  # LLaVA-1.5's 558K pretraining + 665K instruction samples, rounded (Liu et al. 2023)
MANY = 1e10  # the same model over ten billion samples: a run among the larger multimodal ones, not the smallest


def _scenario(examples: float = EXAMPLES):
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import MediaInputs
    from engine.multimodal.training import scenario_data
    from engine.scenario import parse_scenario

    model = read_any(config("llava-1.5-7b"), MediaInputs())
    return parse_scenario(scenario_data(model, None, examples), "LLaVA-1.5-7B")


def _multimodal_flop() -> list[float]:
    with open(ROOT / "training_runs.csv", newline="", encoding="utf-8") as f:
        return [float(r["training_flop"]) for r in csv.DictReader(f)
                if r["domain"] == "Multimodal" and r["training_flop"]]


@pytest.mark.parametrize("examples", [EXAMPLES, MANY])
def test_a_vlm_is_placed_among_the_multimodal_runs(examples):
    from engine.trends.placement import place_estimate
    from engine.trends.runs_dataset import load_training_runs

    flop = _scenario(examples).method1().training_flop
    rows = _multimodal_flop()
    assert len(rows) >= 10
    placed = place_estimate(load_training_runs(), flop, "2023-10-05", domain="Multimodal")
    assert (placed.n_runs, placed.rank) == (len(rows), 1 + sum(f > flop for f in rows))


def test_the_trends_page_places_the_loaded_vlm_in_its_domain():
    scenario = _scenario(MANY)
    flop = scenario.method1().training_flop
    rows = _multimodal_flop()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.session_state["scenario"] = scenario
    at.switch_page(str(ROOT / "pages" / "trends.py")).run()
    at.selectbox(key="trends_domain").set_value("Multimodal").run()
    assert not at.exception, [e.value for e in at.exception]
    line = next(m.value for m in at.markdown if "Your estimate (method 1)" in m.value)
    rank, of = (int(x.replace(",", "")) for x in re.search(r"rank ([\d,]+) of ([\d,]+)", line).groups())
    assert (rank, of) == (1 + sum(f > flop for f in rows), len(rows) + 1)
    assert 1 < rank < len(rows) + 1  # among them, neither above nor below every one
