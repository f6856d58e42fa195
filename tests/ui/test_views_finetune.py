"""The fine-tune views: a layer's trainability choice, the fine-tune choices on a layer list, the backward
metrics beside the totals, the one-third rule, the language-model run's fields."""
from __future__ import annotations

import pytest

from engine.scenario import parse_scenario
from ui.views.finetune import (
    base_compute_problem,
    backward_metrics,
    backward_note,
    fine_tune,
    language_model_run,
    one_third_rule,
    trainable_choice,
    with_trainability,
)
from tests.method1 import flat_block

MLP = [{"type": "dense", "units": 20}, {"type": "activation"}, {"type": "dense", "units": 5}]


def test_trainability_choice_round_trip():
    assert trainable_choice({"type": "dense"}) == "inherit"
    frozen = with_trainability({"type": "dense", "units": 4}, "frozen")
    assert frozen == {"type": "dense", "units": 4, "trainable": False} and trainable_choice(frozen) == "frozen"
    assert "trainable" not in with_trainability(frozen, "inherit")
    # a LoRA adapter only where a kind takes one; a block's targets default to q, v
    assert with_trainability({"type": "dense", "units": 4}, "inherit", 8)["lora"] == {"rank": 8}
    assert with_trainability({"type": "conv2d"}, "inherit", 8).get("lora") is None
    block = with_trainability(flat_block({"type": "transformer_block", "heads": 2}), "inherit", 4, ())
    assert block["lora"] == {"rank": 4, "targets": ["q", "v"]}
    assert "lora" not in with_trainability(block, "inherit", 0)


def test_fine_tune_replaces_earlier_choices():
    layers = [dict(MLP[0], trainable=False), MLP[1], dict(MLP[2], lora={"rank": 2})]
    assert fine_tune(layers, "full") == MLP
    lora = fine_tune(layers, "lora", rank=3)
    assert [layer.get("lora") for layer in lora] == [{"rank": 3}, None, {"rank": 3}]
    assert all(layer["trainable"] is False for layer in lora)
    stack = [{"type": "embedding", "vocab_size": 10, "dim": 8}] \
        + [flat_block({"type": "transformer_block", "heads": 2})] * 3 \
        + [{"type": "lm_head", "vocab_size": 10}]
    last = fine_tune(stack, "last", blocks=1)
    assert [layer.get("trainable") for layer in last] == [False, False, False, None, None]


def test_backward_metrics_are_the_engines_figures():
    # 10 → 20 (frozen) → relu → 5: backward = the last layer's weight gradient, 2·20·5 = 200
    scenario = parse_scenario({"input": {"shape": [10]}, "layers": fine_tune(MLP, "full")[:0] + [
        dict(MLP[0], trainable=False), MLP[1], MLP[2]], "training": {"examples": 10}})
    metrics = backward_metrics(scenario.method1())
    forward = 2 * 10 * 20 + 2 * 20 * 5
    assert metrics[0][0] == "Backward per example" and metrics[0][1].startswith("200")
    assert metrics[1][1] == f"{200 / forward:.3f}"
    assert metrics[2][1] == f"{20 * 5 + 5:,}"
    assert "frozen or adapted" in backward_note(scenario.method1())
    ratio = parse_scenario({"input": {"shape": [10]}, "layers": MLP, "training": {"examples": 10}})
    assert backward_note(ratio.method1()) is None


def test_a_target_given_twice_is_one_line_not_an_exception():
    """qkv (the fused projection's one adapter) with q: refused by the engine's rule, as an InputError naming the
    targets (the panel's FineTune was built directly, and pydantic's ValidationError reached the page); the
    transformer estimate's run alike."""
    from engine.errors import InputError
    from engine.llm.estimate import TransformerRun

    layers = [flat_block({"type": "transformer_block", "heads": 2})]
    with pytest.raises(InputError, match=r"^targets: qkv is one adapter on the fused q/k/v projection"):
        fine_tune(layers, "lora", rank=4, targets=("qkv", "q"))
    with pytest.raises(InputError, match=r"^targets: qkv is one adapter on the fused q/k/v projection"):
        TransformerRun(tokens=1e9, lora_rank=4, lora_targets=("qkv", "q")).fine_tune  # noqa: B018


def test_one_third_rule():
    share, sentence = one_third_rule(4e22, 1e23)
    assert share == pytest.approx(0.4) and "above one third" in sentence
    share, sentence = one_third_rule(3e22, 1e23)
    assert share == pytest.approx(0.3) and "below one third" in sentence


def test_a_base_compute_below_one_flop_is_refused_not_divided_by():
    """1e-300 FLOP made the share infinite ("inf × the base model's"): no model's training took under 1 FLOP."""
    assert base_compute_problem(1e-300).startswith("The base model's training compute: 1e-300 FLOP is no model's")
    assert base_compute_problem(0.5) is not None
    assert base_compute_problem(0) is None and base_compute_problem(1.0) is None and base_compute_problem(3e24) is None


def test_language_model_run_fields():
    assert language_model_run(("full", 2, 8, ("q",))) == {}
    assert language_model_run(("last", 2, 8, ("q",))) == {"trainable_last": 2}
    assert language_model_run(("lora", 2, 8, ())) == {"lora_rank": 8, "lora_targets": ["q", "v"]}
