"""The FLOP read from a trace's shapes equal FlopCounterMode's count of the same training step, exactly."""
from __future__ import annotations

import pytest

from engine.measure.measurement import measure_trace
from tests.measure.recorded import MODELS, record_step


@pytest.mark.parametrize("name", sorted(MODELS))
def test_step_flop_equals_flop_counter(torch, tmp_path, name):
    model, x, y, optimizer = MODELS[name](torch)
    path = tmp_path / f"{name}.pt.trace.json"
    expected = record_step(torch, model, x, y, optimizer, path)
    m = measure_trace(path)
    assert not m.gpu
    assert [s.name for s in m.steps] == ["ProfilerStep#1"]
    assert expected > 0
    assert m.steps[0].op_flop == expected
    assert sum((r.flop_per_call or 0) * r.calls for r in m.ops) == expected


def test_frozen_layers_run_less_backward(torch, tmp_path):
    """The frozen fine-tune's step executes fewer FLOP than the same CNN trained whole (no weight gradients for
    the frozen layers, no input gradient for the first): the trace shows what ran."""
    full = record_step(torch, *MODELS["cnn"](torch), tmp_path / "full.json")
    frozen = record_step(torch, *MODELS["frozen_finetune"](torch), tmp_path / "frozen.json")
    assert measure_trace(tmp_path / "frozen.json").steps[0].op_flop == frozen < full
