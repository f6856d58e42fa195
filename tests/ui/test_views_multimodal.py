"""The layer builder's multimodal upload, without Streamlit: files sorted into their roles by what they are (the same
file name for each part), a bad file named without losing the others, the pipeline's sampling figure steps × passes ×
the denoiser + encoders + decode, and the scenario a VLM loads (its image tokens in the language model's sequence)."""
from __future__ import annotations

import json

import pytest

from tests.multimodal.configs_lib import CONFIGS, config


def _files(*names):
    return [("config.json", (CONFIGS / f"{n}.json").read_bytes()) for n in names]


def test_a_pipelines_parts_are_sorted_by_what_they_are():
    from engine.multimodal.inputs import media_inputs
    from ui.views.multimodal import pipeline_of, read_parts_of

    inputs = media_inputs({})
    parts, errors = read_parts_of(_files("sd-1.5.vae", "sd-1.5.unet", "sd-1.5.text_encoder") +
                                  [("model_index.json", b'{"_class_name": "StableDiffusionPipeline"}')], inputs)
    assert errors == [] and [p.role for p in parts] == ["vae", "denoiser", "text_encoder"]
    p = pipeline_of(parts, inputs, {"steps": 50, "guidance": True})
    unet, clip, vae = parts[1].count, parts[2].count, parts[0].count
    assert p.sampling_flop_per_output == 50 * 2 * unet.forward_flop + 2 * clip.forward_flop + \
        vae.flop_by_component["vae_decoder"]


def test_a_video_pipelines_vae_decodes_the_video():
    """Wan 2.1's transformer and video VAE at 17 frames of 256²: the VAE is sorted as the VAE and decodes the
    video's 5 latent frames (FlopCounterMode's figure on diffusers' model, tests/multimodal/test_video_vae.py)."""
    from engine.multimodal.inputs import media_inputs
    from ui.views.multimodal import pipeline_of, read_parts_of

    inputs = media_inputs({"image_size": (256, 256), "frames": 17})
    parts, errors = read_parts_of(_files("wan2.1-t2v-1.3b.vae", "wan2.1-t2v-1.3b.transformer"), inputs)
    assert errors == [] and [p.role for p in parts] == ["vae", "denoiser"]
    p = pipeline_of(parts, inputs, {"steps": 40, "guidance": True})
    assert p.vae_decoder_flop == 9_567_545_589_760
    assert p.sampling_flop_per_output == 40 * 2 * parts[1].count.forward_flop + 9_567_545_589_760


def test_a_bad_file_is_named_and_the_others_kept():
    from engine.multimodal.inputs import media_inputs
    from ui.views.multimodal import read_parts_of

    parts, errors = read_parts_of([("broken.json", b"{not json"), ("w.json", b"\xff\xfe{}"),
                                   ("odd.json", json.dumps({"model_type": "no_such_vlm"}).encode())]
                                  + _files("llava-1.5-7b"), media_inputs({}))
    assert [p.role for p in parts] == ["model"]
    assert [e.field.split(".")[0] for e in errors] == ["broken", "w", "odd"]
    assert all("\n" not in str(e) for e in errors)


def test_two_denoisers_are_refused():
    from engine.errors import InputError
    from engine.multimodal.inputs import media_inputs
    from ui.views.multimodal import pipeline_of, read_parts_of

    inputs = media_inputs({})
    parts, _ = read_parts_of(_files("sd-1.5.unet", "sd-2.1-base.unet"), inputs)
    with pytest.raises(InputError, match="^upload: 2 denoisers"):
        pipeline_of(parts, inputs, {})


def test_a_vlm_loads_with_its_image_tokens_in_the_sequence():
    from engine.method1.architecture import evaluate
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe
    from engine.plan.model import plan_model
    from ui.views.multimodal import is_vlm, load_scenario, read_parts_of

    parts, _ = read_parts_of(_files("llava-1.5-7b"), media_inputs({"text_tokens": 100}))
    assert is_vlm(parts[0]) and parts[0].count.image_tokens == 576  # (336 / 14)²
    scenario = load_scenario(parts[0], VlmRecipe(recipe="frozen_vision"), 1000)
    result = evaluate(scenario.architecture(), "matmul")
    assert (result.params, result.forward_flop) == (parts[0].count.params, parts[0].count.forward_flop)
    assert result.trainable_params == parts[0].count.params - parts[0].count.params_by_component["vision"]
    planned = plan_model(scenario.architecture())
    assert planned.seq_len == 576 + 100 and planned.blocks == config("llava-1.5-7b")["text_config"].get(
        "num_hidden_layers", 32)


def test_llama_3_2_vision_loads_with_its_recipe():
    """Its image reaches the language model through cross-attention layers, not as tokens in the sequence: the page
    offers its training recipes, and the scenario it loads plans 32 self-attention blocks (40 layers less the 8
    cross-attention ones) over the prompt and one <|image|> token, with the recipe's trainable weights."""
    from engine.method1.architecture import evaluate
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe, vlm_training_step
    from engine.plan.model import plan_model
    from ui.views.multimodal import count_rows, is_vlm, load_scenario, read_parts_of

    parts, errors = read_parts_of(_files("llama-3.2-11b-vision.constructed"), media_inputs({"text_tokens": 100}))
    assert not errors and is_vlm(parts[0]) and parts[0].count.params == 10_670_220_835
    assert {r["component"] for r in count_rows(parts)} >= {"vision", "projector", "language_model"}
    recipe = VlmRecipe(recipe="projector")
    scenario = load_scenario(parts[0], recipe, 1000)
    result = evaluate(scenario.architecture(), "matmul")
    step = vlm_training_step(parts[0].model, recipe)
    assert (result.params, result.forward_flop) == (parts[0].count.params, parts[0].count.forward_flop)
    assert (result.backward_flop, result.trainable_params) == (step.backward_flop, 7680 * 4096 + 4096)
    planned = plan_model(scenario.architecture())
    assert (planned.seq_len, planned.blocks, planned.d_model) == (100 + 1, 40 - 8, 4096)
