"""The package's public API: every name resolves, and importing ``engine`` stays light."""
from __future__ import annotations

import subprocess
import sys

import engine
from tests.conftest import ROOT
from tests.reference import EPOCH_EXAMPLE, EPOCH_EXAMPLE_TRAINING


def test_every_public_name_resolves():
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name


def test_the_worked_example_through_the_public_api():
    scenario = engine.parse_scenario(EPOCH_EXAMPLE)
    assert engine.estimate_method1(scenario.architecture(), scenario.training).training_flop == EPOCH_EXAMPLE_TRAINING
    assert engine.estimate_scenario(scenario).training_flop == EPOCH_EXAMPLE_TRAINING


def test_importing_engine_loads_neither_pandas_nor_streamlit():
    code = "import sys, engine; print(sorted(m for m in ('pandas', 'streamlit', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
