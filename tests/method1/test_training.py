"""Training compute: C = F × (1 + r [+ 1]) × examples × epochs (+ u × P × steps), and the quick forms."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.method1.training import QuickForm, TrainingSetup, training_compute


def test_default_ratio_is_three_passes():
    # 1e9 FLOP forward × 3 × (100 batches × 128) × 10 epochs
    r = training_compute(1e9, TrainingSetup(epochs=10, batches_per_epoch=100, batch_size=128))
    assert r.training_flop == 1e9 * 3 * 12_800 * 10 == 3.84e14
    assert r.pfs_days == pytest.approx(3.84e14 / 8.64e19)


def test_backward_ratio_and_recomputation():
    setup = TrainingSetup(examples=1000, backward_ratio=1.0, recomputation=True)
    assert training_compute(5.0, setup).training_flop == 5.0 * (1 + 1 + 1) * 1000


@pytest.mark.parametrize("optimizer,per_param", [("sgd", 2), ("adam", 18)])
def test_optimizer_update_per_step(optimizer, per_param):
    # 1,000 examples, batch 64 → ⌈1000/64⌉ = 16 steps per epoch, 2 epochs; 500 parameters
    setup = TrainingSetup(examples=1000, batch_size=64, epochs=2, optimizer=optimizer)
    r = training_compute(10.0, setup, params=500)
    assert r.steps == 32
    assert r.training_flop == 10.0 * 3 * 2000 + per_param * 500 * 32


def test_quick_forms():
    # the seed: 2 × connections × 3 × examples × epochs
    q = QuickForm(kind="connections", value=60e6)
    assert training_compute(q.forward_flop, TrainingSetup(examples=1.2e6, epochs=90)).training_flop == \
        pytest.approx(2 * 60e6 * 3 * 1.2e6 * 90)
    assert QuickForm(kind="ops_per_forward", value=0.75e9, unit="macs").forward_flop == 1.5e9
    assert QuickForm(kind="ops_per_forward", value=0.75e9, unit="flop").forward_flop == 0.75e9


@pytest.mark.parametrize("kwargs,field", [
    ({"epochs": 0, "examples": 10}, "epochs"),
    ({"epochs": -1, "examples": 10}, "epochs"),
    ({"epochs": float("nan"), "examples": 10}, "epochs"),
    ({"examples": float("inf")}, "examples"),
    ({"batches_per_epoch": 10}, "batch"),
    ({"examples": 10, "optimizer": "adam"}, "batch_size"),
])
def test_bad_training_setup(kwargs, field):
    with pytest.raises(ValidationError) as info:
        TrainingSetup(**kwargs)
    assert field in str(info.value)


def test_training_flop_per_example_is_forward_times_passes():
    from engine.method1.training import TrainingSetup, training_flop_per_example

    assert training_flop_per_example(10.0) == 30.0  # 1 + r with Epoch's default r = 2
    setup = TrainingSetup(examples=1, backward_ratio=1.5, recomputation=True)
    assert training_flop_per_example(10.0, setup) == 10.0 * (1 + 1.5 + 1)


@pytest.mark.parametrize("examples,epochs", [(1e-200, 1e-200), (0.4, 5e-324)])
def test_examples_times_epochs_below_the_smallest_float_is_no_compute(examples, epochs):
    """E × epochs underflows to 0 (each factor is allowed: > 0): 0 FLOP and a [0, 0] interval, not a
    ZeroDivisionError from the optimizer's share per example (a fuzzed link found it)."""
    setup = TrainingSetup(examples=examples, epochs=epochs, backward_ratio_low=0.001)
    result = training_compute(1e9, setup, params=10)
    assert examples * epochs == 0.0
    assert result.training_flop == 0.0 and result.interval.high == 0.0
