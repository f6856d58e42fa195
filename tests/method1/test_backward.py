"""The backward pass by formula: recomputation in exact mode, the full convention's stated rule, the training
figures with frozen layers, and bad trainability input named by field."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.scenario import parse_scenario
from tests.method1 import evaluated, flat_block

# 10 → 20 → relu → 30 → 5
MLP = [{"type": "dense", "units": 20}, {"type": "activation"}, {"type": "dense", "units": 30},
       {"type": "dense", "units": 5}]
F = 2 * (10 * 20 + 20 * 30 + 30 * 5)


def _scenario(layers, **training):
    return parse_scenario({"input": {"shape": [10]}, "layers": layers,
                           "training": {"examples": 100, **training}}).method1()


def test_recomputation_runs_again_only_what_the_backward_goes_through():
    frozen_first = [dict(MLP[0], trainable=False)] + MLP[1:]
    # backward: layer 1 reads the frozen prefix (no input gradient): weight 2·20·30; layer 2: weight and input
    backward = 2 * 20 * 30 + 2 * 2 * 30 * 5
    recompute = 2 * (20 * 30 + 30 * 5)  # the layers whose output needs a gradient (the frozen first does not)
    est = _scenario(frozen_first, recomputation=True)
    assert est.architecture.backward_flop == backward
    assert est.architecture.recompute_flop == recompute
    assert est.training.training_flop == pytest.approx((F + backward + recompute) * 100)
    assert est.training.passes == pytest.approx((F + backward + recompute) / F)
    # ratio mode keeps 1 + r + 1 (nothing frozen)
    assert _scenario(MLP, recomputation=True).training.passes == 4


def test_exact_on_request_and_optimizer_counts_trainable_only():
    full = _scenario(MLP, backward="exact", batch_size=10, optimizer="sgd")
    backward = 2 * 10 * 20 + 2 * 2 * (20 * 30 + 30 * 5)  # the first layer: no input gradient
    params = 10 * 20 + 20 + 20 * 30 + 30 + 30 * 5 + 5
    assert full.architecture.backward_flop == backward and full.training.backward == "exact"
    assert full.training.note == ""  # asked for, not forced
    assert full.training.optimizer_flop == 2 * params * 10
    frozen = _scenario([dict(MLP[0], trainable=False)] + MLP[1:], batch_size=10, optimizer="sgd")
    assert frozen.training.backward == "exact" and "frozen" in frozen.training.note
    assert frozen.training.optimizer_flop == 2 * (params - 10 * 20 - 20) * 10


def test_full_convention_counts_the_non_matmul_work_twice_where_a_gradient_passes():
    # dense 10 → 20 with bias (20 bias adds), relu (20 max), dense 20 → 5 (5 bias adds): all trainable
    layers = [{"type": "dense", "units": 20}, {"type": "activation"}, {"type": "dense", "units": 5}]
    result = evaluated([10], layers, convention="full")
    matmul = 2 * 10 * 20 + 2 * 2 * 20 * 5  # the first layer's input needs no gradient
    assert result.backward_flop == matmul + 2 * (20 + 20 + 5)
    frozen = evaluated([10], [dict(layers[0], trainable=False)] + layers[1:], convention="full")
    # the frozen first layer and the relu after it pass no gradient: only the last layer's
    assert frozen.backward_flop == 2 * 20 * 5 + 2 * 5


def test_a_block_frozen_with_a_layer_inside_it_trained():
    block = {"type": "residual", "trainable": False,
             "body": [{"type": "dense", "units": 10}, {"type": "dense", "units": 10, "trainable": True}]}
    result = evaluated([10], [block])
    # inner 1 frozen (reads the data: nothing); inner 2 trained: its weight gradient only
    assert result.backward_flop == 2 * 10 * 10 and result.trainable_params == 10 * 10 + 10


@pytest.mark.parametrize("layer,field", [
    ({"type": "dense", "units": 4, "lora": {"rank": 0}}, "rank"),
    ({"type": "dense", "units": 4, "lora": {"rank": 2, "extra": 1}}, "extra"),
    (flat_block({"type": "transformer_block", "heads": 2, "lora": {"rank": 2, "targets": ["x"]}}), "targets"),
    (flat_block({"type": "transformer_block", "heads": 2, "lora": {"rank": 2, "targets": ["experts"]}}),
     "lora.targets"),
    (flat_block({"type": "transformer_block", "heads": 2, "lora": {"rank": 2, "targets": ["gate"]}}), "lora.targets"),
    ({"type": "dense", "units": 4, "trainable": "maybe"}, "trainable"),
])
def test_bad_trainability_is_named(layer, field):
    with pytest.raises(InputError) as err:
        parse_scenario({"input": {"shape": [8], "sequence_length": 4}, "layers": [layer]})
    assert field in str(err.value)


def test_exact_needs_the_layers():
    with pytest.raises(InputError, match="training.backward"):
        parse_scenario({"mode": "quick", "quick": {"kind": "connections", "value": 1e6},
                        "training": {"examples": 10, "backward": "exact"}}).method1()


def test_trainability_travels_by_link():
    from engine.share_link import decode, encode

    scenario = parse_scenario({"input": {"shape": [8], "sequence_length": 4}, "layers": [
        {"type": "dense", "units": 8, "trainable": False},
        {"type": "residual", "trainable": False, "body": [{"type": "dense", "units": 8, "lora": {"rank": 2}}]},
        flat_block({"type": "transformer_block", "heads": 2, "lora": {"rank": 4, "targets": ["k", "down"]}})],
        "training": {"examples": 10, "backward": "exact"}})
    back = decode(encode(scenario))
    assert back == scenario
    assert back.method1().architecture.backward_flop == scenario.method1().architecture.backward_flop > 0
