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
    assert engine.estimate_scenario(scenario).pfs_days == EPOCH_EXAMPLE_TRAINING / (1e15 * 86_400)  # docs/api.md


def test_estimate_hardware_gives_cost_energy_and_co2_as_docs_api_promises():
    """8 H100 SXM for a day at 40%: C = 8 × 86,400 s × 989.4e12 (dense BF16, NVIDIA's datasheet) × 0.4; energy =
    chip-hours × TDP 700 W × PUE 1.1 (the defaults, hardware_db.json); cost at its 3 USD per chip-hour; CO₂ at the
    default grid's 0.48 kg/kWh."""
    h = engine.estimate_hardware({"chip": "nvidia-h100-sxm", "chip_count": 8, "duration": 1, "duration_unit": "days",
                                  "utilization": 0.4})
    assert h.training_flop == 8 * 86_400 * 989.4e12 * 0.4
    assert abs(h.costs.energy_kwh - 8 * 24 * 700 * 1.1 / 1000) < 1e-9
    assert h.costs.cost_usd == 8 * 24 * 3.0
    assert abs(h.costs.co2_kg - 8 * 24 * 0.7 * 1.1 * 0.48) < 1e-9
    assert h.as_dict()["costs"]["cost_usd"] == 576.0


def test_importing_engine_loads_neither_pandas_nor_streamlit():
    code = "import sys, engine; print(sorted(m for m in ('pandas', 'streamlit', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bad_arguments_are_one_input_error_naming_them():
    """docs/api.md promises an InputError: a sequence length of -1, 2.5, 'x', 0 or True (a multi-line pydantic
    error, a TypeError, silently the context length) and a chip count of 10⁴⁰⁰ (an OverflowError) each name their
    argument; a model id not in the library names the nearest ones, not all 260."""
    import pytest

    from engine.errors import InputError
    from engine.llm.library import library_model

    config = dict(library_model("llama-2-7b").config)
    layout = {"dp": 1, "micro_batch": 1, "global_batch": 1}
    for seq_len in (-1, 2.5, "x", 0, True, 10**400):
        with pytest.raises(InputError, match=r"^seq_len: .* is not a whole number from 1 to 10,000,000$"):
            engine.plan_layout(config, layout, chip="h100", seq_len=seq_len)
    assert engine.plan_layout(config, layout, chip="h100", seq_len=4096).step.compute_s > 0
    with pytest.raises(InputError, match=r"^chip_count: "):
        engine.estimate_hardware({"chip": "a100", "chip_count": 10**400, "duration": 1, "duration_unit": "days"})
    with pytest.raises(InputError) as exc:
        library_model("llama2-7b")
    assert str(exc.value).startswith("model: 'llama2-7b' is not in the model library of ") and \
        "nearest: llama-2-7b" in str(exc.value) and len(str(exc.value)) < 300
