"""The optimizer table: FLOP per parameter per step and bytes of state, from the update rules and the papers."""
from __future__ import annotations

import pytest

from engine.method1.training import TrainingSetup, training_compute
from engine.optimizers import OPTIMIZERS
from engine.plan.layout import MemoryOptions
from engine.plan.memory import state_bytes_per_param


@pytest.mark.parametrize(("name", "flop"), [
    ("sgd", 1 + 1),  # w ← w − η·g
    ("sgd-momentum", (1 + 1) + (1 + 1)),  # v ← μ·v + g; w ← w − η·v
    ("adam", 18),  # Epoch AI's figure (m, v, bias corrections, √v, division, step)
    ("adam-8bit", 18),  # Adam's arithmetic on de-quantized states
])
def test_flop_per_parameter_per_step(name, flop):
    assert OPTIMIZERS[name].flop_per_param == flop


@pytest.mark.parametrize(("name", "mixed", "fp32"), [
    ("adam", 2 + 2 + 12, 4 + 4 + 8),  # ZeRO §3: 2Ψ + 2Ψ + 12Ψ
    ("adam-8bit", 2 + 2 + 4 + 1 + 1, 4 + 4 + 1 + 1),  # 8-bit m and v (+ the FP32 master copy when mixed)
    ("sgd-momentum", 2 + 2 + 4 + 4, 4 + 4 + 4),
    ("sgd", 2 + 2 + 4, 4 + 4),
])
def test_bytes_per_parameter_in_the_planner(name, mixed, fp32):
    assert sum(state_bytes_per_param(MemoryOptions(optimizer=name, precision="bf16"))) == mixed
    assert sum(state_bytes_per_param(MemoryOptions(optimizer=name, precision="fp32"))) == fp32


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_method1_counts_the_same_table(name):
    # 1,000 parameters, 10 steps of 32 examples, forward 100 FLOP: 3·100·320 + u·1,000·10
    setup = TrainingSetup(batches_per_epoch=10, batch_size=32, optimizer=name)
    result = training_compute(100.0, setup, 1_000)
    u = {"sgd": 2, "sgd-momentum": 4, "adam": 18, "adam-8bit": 18}[name]
    assert result.training_flop == 3 * 100 * 320 + u * 1_000 * 10
