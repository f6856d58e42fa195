"""Llama 3.2 Vision (``mllama``): parameters and forward FLOP equal ``MllamaForConditionalGeneration`` built from
the same file on the meta device (FlopCounterMode) at one, two and three images with three text lengths, less the
vision mask's outer product (mask set-up: tests/multimodal/transformers_reference.mllama); every image runs its
``max_num_tiles`` tiles, as the processor pads them (docs/multimodal.md)."""
from __future__ import annotations

import copy

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")

DEFAULTS = "mllama.defaults"
ELEVEN_B = "llama-3.2-11b-vision.constructed"


def small() -> dict:
    data = copy.deepcopy(config(DEFAULTS))
    data["vision_config"].update(hidden_size=64, attention_heads=4, intermediate_size=128, num_hidden_layers=8,
                                 num_global_layers=2, image_size=56, vision_output_dim=6 * 64,
                                 intermediate_layers_indices=[1, 2, 3, 5, 6])
    data["text_config"].update(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=96,
                               num_hidden_layers=6, cross_attention_layers=[1, 4], vocab_size=500, pad_token_id=0,
                               bos_token_id=1, eos_token_id=2)
    data["image_token_index"] = 500
    return data


@pytest.mark.parametrize(("name", "images", "text"), [
    (DEFAULTS, 1, 0), (DEFAULTS, 2, 12), (DEFAULTS, 3, 40), (ELEVEN_B, 1, 16)])
def test_mllama_matches_transformers(name, images, text):
    from tests.multimodal.transformers_reference import mllama

    data = config(name)
    ours = engine_count(data, images=images, text_tokens=text)
    side = data["vision_config"]["image_size"] // 14
    assert ours.image_tokens == images * 4 * (side * side + 1)  # the image positions the cross-attention reads
    assert (ours.params, ours.forward_flop) == mllama(data, images, text + images)  # one <|image|> per image


@pytest.mark.parametrize(("images", "text"), [(1, 7), (2, 12)])
def test_a_small_mllama_matches_transformers(images, text):
    from tests.multimodal.transformers_reference import mllama

    ours = engine_count(small(), images=images, text_tokens=text)
    assert (ours.params, ours.forward_flop) == mllama(small(), images, text + images)


def test_the_image_size_does_not_change_the_count():
    # every image runs all its tiles (the processor pads to max_num_tiles)
    one = engine_count(config(ELEVEN_B), image_size=(560, 560))
    wide = engine_count(config(ELEVEN_B), image_size=(560, 2240))
    assert (one.params, one.forward_flop) == (wide.params, wide.forward_flop)


def test_llama_3_2_11b_vision_size():
    # 10,670,220,835: the Hub's safetensors of meta-llama/Llama-3.2-11B-Vision list 10.7B parameters (Meta: "11B")
    assert round(engine_count(config(ELEVEN_B)).params / 1e8) == 107


@pytest.mark.parametrize(("change", "field"), [
    (("text_config", "cross_attention_layers", [3, 40]), "text_config.cross_attention_layers"),
    (("vision_config", "vision_output_dim", 5120), "vision_config.vision_output_dim"),
    (("vision_config", "image_size", 450), "vision_config.image_size"),
    (("text_config", "tie_word_embeddings", True), "text_config.tie_word_embeddings"),
])
def test_bad_configs_name_the_key(change, field):
    from engine.errors import InputError

    data = copy.deepcopy(config(DEFAULTS))
    data[change[0]][change[1]] = change[2]
    with pytest.raises(InputError) as info:
        engine_count(data)
    assert info.value.field.endswith(field) and "\n" not in str(info.value)
    with pytest.raises(InputError, match="frames"):
        engine_count(config(DEFAULTS), frames=8)


def test_the_cli_counts_it_per_component(tmp_path):
    import json

    from tests.cli import cli

    path = tmp_path / "config.json"
    path.write_text(json.dumps(config(ELEVEN_B)))
    out = cli("flops", "--config", str(path), "--images", "2", "--text-tokens", "30", "--format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    ours = engine_count(config(ELEVEN_B), images=2, text_tokens=30)
    assert (result["params"], result["forward_flop"]) == (ours.params, ours.forward_flop)
    assert set(result["flop_by_component"]) == {"vision", "projector", "language_model"}
    assert result["image_tokens"] == 2 * 4 * 1601  # 560 px: 40 × 40 patches + the class token, 4 tiles an image

