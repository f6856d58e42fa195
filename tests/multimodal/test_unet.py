"""Stable Diffusion's U-Net (``UNet2DConditionModel``) from the Hub's unet/config.json files: parameters and one
denoiser pass's FLOP equal diffusers' model built from the same file on the meta device (FlopCounterMode), at three
image sizes and text lengths each."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")

UNETS = ("sd-1.5.unet", "sd-2.1-base.unet", "sdxl-base-1.0.unet", "sdxl-refiner-1.0.unet", "sdxl-turbo.unet")
SIZES = ((512, 512, 77), (768, 512, 154), (1024, 1024, 1))


@pytest.mark.parametrize("name", UNETS)
@pytest.mark.parametrize("h, w, tokens", SIZES)
@pytest.mark.external_check("group_norm", "conditioning_dense", "attention_core", "tokens_to_grid", "gated_unit")
def test_unet_matches_diffusers(name, h, w, tokens):
    from tests.multimodal.diffusers_reference import unet2d

    data = config(name)
    ours = engine_count(data, image_size=(h, w), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == unet2d(data, (h, w), tokens)
    assert ours.params_by_component == {"denoiser": ours.params}


def test_sd15_published_size():
    # Rombach et al. 2022 / the model card: an 860M-parameter U-Net; 512x512 is 64x64 latents
    ours = engine_count(config("sd-1.5.unet"))
    assert round(ours.params / 1e6) == 860
    assert ours.inputs["latent"] == [64, 64] and ours.inputs["text_tokens"] == 77
