"""Vision towers (CLIP, SigLIP) and the vision-language models built on them — LLaVA-1.5, LLaVA-NeXT (any-resolution
tiles), Gemma 3 (SigLIP pooled to 256 tokens), PaliGemma — from their config.json: parameters and one forward pass's
FLOP (the vision tower on every image or tile, the projector, the language model over the image and text tokens)
equal transformers' model built from the same file on the meta device (FlopCounterMode), at three inputs each."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.mark.external_check("attention_pool")
@pytest.mark.parametrize("images", (1, 2, 3))
@pytest.mark.parametrize("tower", ("clip", "siglip"))
def test_vision_towers_match_transformers(tower, images):
    from tests.multimodal.transformers_reference import vision_tower

    if tower == "clip":
        data = config("clip-vit-large-patch14-336.vision")
    else:  # PaliGemma's SigLIP So400m tower, with the attention-pooling head SiglipVisionModel runs
        data = dict(config("paligemma-3b-pt-224")["vision_config"], model_type="siglip_vision_model",
                    vision_use_head=True)
        data.pop("projection_dim", None)
    ours = engine_count(data, images=images)
    assert (ours.params, ours.forward_flop) == vision_tower(data, images)


@pytest.mark.external_check("text_tokens")
@pytest.mark.parametrize("images, text", ((1, 0), (2, 40), (3, 7)))
def test_llava_matches_transformers(images, text):
    from tests.multimodal.transformers_reference import llava

    ours = engine_count(config("llava-1.5-7b"), images=images, text_tokens=text)
    assert ours.image_tokens == 576 * images
    assert (ours.params, ours.forward_flop) == llava(config("llava-1.5-7b"), images, ours.image_tokens, text)


@pytest.mark.parametrize("size", ((336, 336), (500, 800), (1000, 300)))
def test_llava_next_matches_transformers(size):
    from tests.multimodal.transformers_reference import llava

    ours = engine_count(config("llava-v1.6-mistral-7b-hf"), image_size=size, text_tokens=5)
    assert (ours.params, ours.forward_flop) == llava(config("llava-v1.6-mistral-7b-hf"), 1, ours.image_tokens, 5, size)


def test_llava_next_image_tokens_by_hand():
    # 500x800 (H×W) against the pinpoints 336x672, 672x336, 672x672, 1008x336, 336x1008: scaled to fit, 672x672
    # keeps most of it (672x420 = 282,240 pixels), so 2x2 tiles, a 48x48 grid of tile tokens; the image is wider
    # than the grid (800/500 > 1), so rows are cut: round(500·48/800) = 30 kept, padding (48 − 30)//2 = 9 each side:
    # 30 rows of 48 and a newline each, plus the base image's 576
    ours = engine_count(config("llava-v1.6-mistral-7b-hf"), image_size=(500, 800))
    assert ours.image_tokens == 576 + 30 * 49
    assert ours.inputs["tiles"] == "2x2 of 336x336 + the base image"


@pytest.mark.parametrize("name, images, text", (("gemma-3-4b-it", 1, 0), ("gemma-3-4b-it", 2, 9),
                                                 ("paligemma-3b-pt-224", 1, 7), ("paligemma-3b-pt-224", 2, 0),
                                                 ("paligemma-3b-pt-224", 3, 20)))
def test_gemma_family_matches_transformers(name, images, text):
    from tests.multimodal.transformers_reference import images_model

    ours = engine_count(config(name), images=images, text_tokens=text)
    assert ours.image_tokens == 256 * images
    assert (ours.params, ours.forward_flop) == images_model(config(name), images, ours.image_tokens, text)


def test_published_sizes():
    # the model cards: LLaVA-1.5 7B (7.06B params as the Hub lists llava-hf/llava-1.5-7b-hf), Gemma 3 4B (4.3B with
    # its 417M SigLIP), PaliGemma 3B (2.92B as the Hub lists google/paligemma-3b-pt-224)
    assert round(engine_count(config("llava-1.5-7b")).params / 1e9, 2) == 7.06
    gemma = engine_count(config("gemma-3-4b-it"))
    assert round(gemma.params / 1e9, 1) == 4.3 and round(gemma.params_by_component["vision"] / 1e6) == 417
    assert round(engine_count(config("paligemma-3b-pt-224")).params / 1e9, 2) == 2.92
    # LLaVA-NeXT on Mistral 7B: 7.57B params as the Hub lists llava-hf/llava-v1.6-mistral-7b-hf
    assert round(engine_count(config("llava-v1.6-mistral-7b-hf")).params / 1e9, 2) == 7.57


SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 3,
          "num_attention_heads": 4, "image_size": 56, "patch_size": 14}
"""A small SigLIP tower without ``vision_use_head``: SigLIP's default (true) builds its pooling head."""
SMALL_LM = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 300, "max_position_embeddings": 256}


@pytest.mark.parametrize("strategy", ["full", "default"])
@pytest.mark.parametrize("head", [None, False])
def test_llava_with_a_siglip_tower_matches_transformers(strategy, head):
    """LLaVA reads the feature layer's patch tokens: SigLIP's pooling head, where built, runs but its output is
    unused (its parameters and forward FLOP counted, said in a note); "default" drops the first token whatever the
    tower (16 patches → 15). Before: the pooled token went to the projector (3.0e6 FLOP for transformers' 5.8e6), and
    "default" kept all 16; then the head's FLOP were left out."""
    from tests.multimodal.transformers_reference import llava

    vision = SIGLIP if head is None else {**SIGLIP, "vision_use_head": head}
    data = {"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"], "image_token_index": 299,
            "vision_feature_layer": -2, "vision_feature_select_strategy": strategy, "projector_hidden_act": "gelu",
            "vision_config": vision, "text_config": SMALL_LM}
    ours = engine_count(data, images=1, text_tokens=5)
    assert ours.image_tokens == 16 - (strategy == "default")
    notes = [n for n in ours.notes if "pooling head" in n]
    assert (ours.params, ours.forward_flop) == llava(data, 1, ours.image_tokens, 5)
    assert bool(notes) == (head is None)
