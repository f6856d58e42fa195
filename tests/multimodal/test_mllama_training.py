"""Llama 3.2 Vision's (``mllama``) training step under each recipe: forward, backward and trainable parameters equal
FlopCounterMode over one forward pass and ``logits.sum().backward()`` of a small ``MllamaForConditionalGeneration``
on the CPU (eager attention), with the recipe's ``requires_grad`` set and peft's own LoRA
(``tests/multimodal/vlm_backward_reference.mllama_step``), at two input sizes; the projector recipe's gradient path
through the frozen language model's cross-attention layers written out by hand; the CLI (``vlm``), the API
(``estimate_vlm_training``) and the layer builder's scenario give the same figures."""
from __future__ import annotations

import json

import pytest

from tests.multimodal.test_mllama import small

RECIPES = ("full", "frozen_vision", "projector", "lora")
SIZES = ((1, 7), (2, 12))  # (images, prompt tokens): 1 image = 4 tiles of 56 px, 68 image positions


def _step(recipe: str, images: int, text: int, data: dict | None = None, targets=("q", "v")):
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe, vlm_training_step

    model = read_any(data or small(), media_inputs({"images": images, "text_tokens": text}))
    lora = {"lora_rank": 4, "lora_targets": targets} if recipe == "lora" else {}  # targets with the lora recipe only
    spec = VlmRecipe(recipe=recipe, **lora)
    return vlm_training_step(model, spec)


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize(("images", "text"), SIZES)
def test_each_recipe_against_pytorch(recipe, images, text, torch):
    pytest.importorskip("transformers")
    if recipe == "lora":
        pytest.importorskip("peft")
    from tests.multimodal.vlm_backward_reference import mllama_step

    ours = _step(recipe, images, text)
    reference = mllama_step(torch, small(), images, text, recipe, rank=4)
    assert (ours.forward_flop, ours.backward_flop, ours.trainable_params) == reference


def test_lora_on_every_projection_against_peft(torch):
    """Adapters on q, k, v, o, gate, up and down: peft puts them on the cross-attention layers' projections too (k
    and v on the image positions, their input gradients into the trained projector's output)."""
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    from tests.multimodal.vlm_backward_reference import mllama_step

    targets = ("q", "k", "v", "o", "gate", "up", "down")
    ours = _step("lora", 2, 5, targets=targets)
    reference = mllama_step(torch, small(), 2, 5, "lora", rank=4, targets=targets)
    assert (ours.forward_flop, ours.backward_flop, ours.trainable_params) == reference


def test_the_projector_recipe_passes_gradients_through_the_frozen_language_model():
    """Only the projector trains: its weight gradient, and the frozen language model's input gradients from its first
    cross-attention layer (layer 1 of 6; layer 0 before it computes nothing) to the head, written out in MACs.
    small(): D = 64, H = 4 heads of Q = 16, 2 key/value heads (k, v: 32 wide), F = 96, V = 500, the tower's output
    6 × 64 = 384 wide; 1 image: M = 4 tiles × (16 + 1) = 68 image positions; L = 7 + 1 text tokens."""
    d, ff, vocab, out, kv = 64, 96, 500, 384, 32
    m, length = 68, 8
    mlp = length * 3 * d * ff
    self_layer = length * d * d + 2 * length * d * kv + 4 * length * length * d + length * d * d + mlp
    # the first cross-attention layer: the text before it needs no gradient, so no dQ (nor q_proj's); dA, dK, dV
    first = 2 * m * d * kv + 3 * length * m * d + length * d * d + mlp
    second = 2 * m * d * kv + 4 * length * m * d + 2 * length * d * d + mlp  # dQ and q_proj's input gradient too
    macs = m * out * d + first + 2 * self_layer + second + self_layer + length * d * vocab
    step = _step("projector", 1, 7)
    assert step.backward_flop == 2 * macs == 7_815_168
    assert step.backward_by_component["vision"] == 0
    assert step.backward_by_component["projector"] == 2 * m * out * d  # no input gradient into the frozen tower
    assert step.trainable_params == out * d + d  # the projector's weight and bias


def test_frozen_vision_and_full_differ_by_the_tower_and_the_projector_input_gradient():
    frozen, full = _step("frozen_vision", 1, 7), _step("full", 1, 7)
    assert frozen.backward_by_component["vision"] == 0 < full.backward_by_component["vision"]
    m, out, d = 68, 384, 64
    assert full.backward_by_component["projector"] - frozen.backward_by_component["projector"] == 2 * m * out * d
    assert frozen.backward_by_component["language_model"] == full.backward_by_component["language_model"]


def test_a_fused_qkv_target_is_refused_in_one_line():
    from engine.errors import InputError

    with pytest.raises(InputError, match="cross-attention") as info:
        _step("lora", 1, 7, targets=("qkv",))
    assert info.value.field == "targets" and "\n" not in str(info.value)


def test_the_cli_and_the_api_give_the_recipes(tmp_path):
    from engine import estimate_vlm_training
    from tests.cli import cli

    path = tmp_path / "config.json"
    path.write_text(json.dumps(small()))
    for recipe in RECIPES:
        flags = ["--lora-rank", "4"] if recipe == "lora" else []
        out = cli("vlm", "--config", str(path), "--recipe", recipe, *flags, "--images", "2", "--text-tokens", "12",
                  "--examples", "1000", "--format", "json")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        ours = _step(recipe, 2, 12)
        api = estimate_vlm_training(small(), recipe=recipe, lora_rank=4 if recipe == "lora" else None, images=2,
                                    text_tokens=12)
        for step in (result, api.as_dict()):
            assert (step["forward_flop"], step["backward_flop"], step["trainable_params"]) == \
                (ours.forward_flop, ours.backward_flop, ours.trainable_params)
        assert result["total_training_flop"] == 1000 * ours.training_flop
        assert set(result["backward_by_component"]) == {"vision", "projector", "language_model"}
