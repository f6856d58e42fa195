"""The Python API's multimodal calls (``estimate_multimodal``, ``estimate_pipeline``, ``estimate_vlm_training``):
the same counts as diffusers' / transformers' models built from the same Hub files on the meta device, from JSON
text as from dicts, and one line naming the field for bad input."""
from __future__ import annotations

import json

import pytest

from tests.multimodal.configs_lib import config

pytest.importorskip("torch")


def test_estimate_multimodal_vae_against_diffusers():
    pytest.importorskip("diffusers")
    from engine import estimate_multimodal
    from tests.multimodal.diffusers_reference import vae

    data = config("sd-1.5.vae")
    ours = estimate_multimodal(json.dumps(data), image_size=(256, 384))
    assert (ours.params, ours.forward_flop) == vae(data, (256, 384))
    assert ours.as_dict()["flop_by_component"] == ours.flop_by_component


def test_estimate_multimodal_vlm_against_transformers():
    from engine import estimate_multimodal
    from tests.multimodal.transformers_reference import llava

    data = config("llava-1.5-7b")
    ours = estimate_multimodal(data, text_tokens=40)
    # CLIP ViT-L/14 at 336 px: (336 / 14)² = 576 image tokens
    assert ours.image_tokens == 576
    assert (ours.params, ours.forward_flop) == llava(data, 1, 576, 40)


def test_estimate_pipeline_is_steps_times_the_denoiser():
    from engine import estimate_multimodal, estimate_pipeline

    unet, clip, vae = config("sd-1.5.unet"), config("sd-1.5.text_encoder"), config("sd-1.5.vae")
    out = estimate_pipeline(unet, [clip], vae, steps=20, guidance=False, outputs=3)
    d = estimate_multimodal(unet, image_size=(512, 512), text_tokens=77).forward_flop
    c = estimate_multimodal(clip, text_tokens=77).forward_flop
    decode = estimate_multimodal(vae, image_size=(512, 512)).flop_by_component["vae_decoder"]
    assert out.sampling_flop == 3 * (20 * d + c + decode)


def test_estimate_vlm_training_frozen_vision_has_no_vision_backward():
    from engine import estimate_multimodal, estimate_vlm_training

    data = config("llava-1.5-7b")
    step = estimate_vlm_training(data, recipe="frozen_vision", text_tokens=40)
    forward = estimate_multimodal(data, text_tokens=40)
    assert step.forward_flop == forward.forward_flop
    assert step.backward_by_component["vision"] == 0
    assert step.trainable_params == forward.params - forward.params_by_component["vision"]


@pytest.mark.parametrize(("call", "kwargs", "field"), [
    ("estimate_multimodal", {"image_size": (0, 336)}, "image_size"),
    ("estimate_multimodal", {"image_size": (10**6, 10**6)}, "image_size"),
    ("estimate_vlm_training", {"recipe": "everything"}, "recipe"),
    ("estimate_vlm_training", {"recipe": "lora"}, "lora_rank"),
    ("estimate_vlm_training", {"recipe": "lora", "lora_rank": 8, "lora_targets": 5}, "lora_targets"),
    ("estimate_vlm_training", {"recipe": "lora", "lora_rank": 8, "lora_targets": {}}, "lora_targets"),
    # no projection at all: a multi-line pydantic ValidationError from the adapters' own model
    ("estimate_vlm_training", {"recipe": "lora", "lora_rank": 8, "lora_targets": []}, "targets"),
    ("estimate_vlm_training", {"recipe": "lora", "lora_rank": 8, "lora_targets": ""}, "targets"),
    ("estimate_vlm_training", {"convention": "<script>"}, "convention"),
    ("estimate_multimodal", {"convention": float("nan")}, "convention"),
    ("estimate_multimodal", {"convention": None}, "convention"),
])
def test_bad_input_is_one_line_naming_the_field(call, kwargs, field):
    import engine

    with pytest.raises(engine.InputError) as err:
        getattr(engine, call)(config("llava-1.5-7b"), **kwargs)
    assert "\n" not in str(err.value) and field in str(err.value)


def test_malformed_json_text_names_the_config():
    import engine

    with pytest.raises(engine.InputError) as err:
        engine.estimate_multimodal("{not json")
    assert str(err.value).startswith("config")


def test_a_part_that_is_not_a_config_is_named():
    """A VAE of 5 (not a config) was blamed on image_size: each part is named."""
    import engine

    with pytest.raises(engine.InputError, match=r"^vae: expected a config\.json \(a dict, or its JSON text\), got a "
                                                r"number$"):
        engine.estimate_pipeline(config("sd-1.5.unet"), vae=5)
    with pytest.raises(engine.InputError, match=r"^text_encoders\[1\]: expected a config\.json"):
        engine.estimate_pipeline(config("sd-1.5.unet"), [config("sd-1.5.text_encoder"), None])


@pytest.mark.parametrize("encoders", [None, 5, "abc", {"model_type": "clip_text_model"}])
def test_text_encoders_that_are_not_a_list_are_named(encoders):
    """None or 5 raised a TypeError from deep inside; 'abc' was read letter by letter, a dict key by key."""
    import engine

    with pytest.raises(engine.InputError, match=r"^text_encoders: expected a list of config\.json dicts"):
        engine.estimate_pipeline(config("sd-1.5.unet"), encoders)


def test_lora_targets_as_text_are_the_clis_comma_list():
    """'q,v' is the CLI's spelling: the same step as ['q', 'v'] (it was split into the letters q, ',' and v)."""
    import engine

    as_text = engine.estimate_vlm_training(config("llava-1.5-7b"), recipe="lora", lora_rank=8, lora_targets="q,v")
    as_list = engine.estimate_vlm_training(config("llava-1.5-7b"), recipe="lora", lora_rank=8,
                                           lora_targets=["q", "v"])
    assert as_text.as_dict() == as_list.as_dict()
