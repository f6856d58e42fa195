"""Stable Diffusion 3 / 3.5 (MMDiT) and FLUX.1 from their transformer/config.json: parameters and one denoiser
pass's FLOP equal diffusers' model built from the same file on the meta device (FlopCounterMode), at three image
sizes and text lengths."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")

SIZES = ((1024, 1024, 333), (512, 768, 77), (256, 256, 1))


@pytest.mark.parametrize("name", ("sd-3-medium.transformer", "sd-3.5-medium.transformer", "sd-3.5-large.transformer"))
@pytest.mark.parametrize("h, w, tokens", SIZES)
@pytest.mark.external_check("stream_dense", "sequence_slice", "context_tokens")
def test_sd3_matches_diffusers(name, h, w, tokens):
    from tests.multimodal.diffusers_reference import sd3

    ours = engine_count(config(name), image_size=(h, w), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == sd3(config(name), (h, w), tokens)


@pytest.mark.parametrize("name", ("flux.1-dev.transformer", "flux.1-schnell.transformer"))
@pytest.mark.parametrize("h, w, tokens", ((1024, 1024, 512), (512, 768, 256), (256, 256, 1)))
def test_flux_matches_diffusers(name, h, w, tokens):
    from tests.multimodal.diffusers_reference import flux

    ours = engine_count(config(name), image_size=(h, w), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == flux(config(name), (h, w), tokens)


def test_published_sizes():
    # FLUX.1 [dev]: "a 12 billion parameter rectified flow transformer" (the model card); SD3 Medium: 2B,
    # SD3.5 Large: 8.1B (Stability AI's model cards)
    assert round(engine_count(config("flux.1-dev.transformer")).params / 1e9) == 12
    assert round(engine_count(config("sd-3-medium.transformer")).params / 1e9) == 2
    assert round(engine_count(config("sd-3.5-large.transformer")).params / 1e9, 1) == 8.1


def test_flux_standard_input():
    dev, schnell = engine_count(config("flux.1-dev.transformer")), engine_count(config("flux.1-schnell.transformer"))
    assert dev.inputs == {"image_size": "1024x1024", "image_tokens": 4096, "text_tokens": 512}
    assert schnell.inputs["text_tokens"] == 256
    assert dev.params - schnell.params == 256 * 3072 + 3072 + 3072 * 3072 + 3072  # dev's guidance MLP


def test_sd3_position_table_bounds_the_image():
    from engine.errors import InputError

    with pytest.raises(InputError, match="image_size: 4096x4096 pixels is 256x256 patches, more than this model's "
                                         "position table of 192x192"):
        engine_count(config("sd-3-medium.transformer"), image_size=(4096, 4096))
