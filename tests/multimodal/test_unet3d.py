"""ModelScope's text-to-video U-Net (``UNet3DConditionModel``) from the Hub's unet/config.json: parameters and one
denoiser pass's FLOP equal diffusers' model built from the same file on the meta device (FlopCounterMode), at three
sizes, frame counts and text lengths."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")


@pytest.mark.parametrize("size, frames, tokens", (((256, 256), 16, 77), ((128, 192), 4, 10), ((512, 512), 1, 1)))
def test_unet3d_matches_diffusers(size, frames, tokens):
    from tests.multimodal.diffusers_reference import unet3d

    data = config("modelscope-t2v-1.7b.unet")
    ours = engine_count(data, image_size=size, frames=frames, text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == unet3d(data, size, frames, tokens)


def test_standard_input():
    ours = engine_count(config("modelscope-t2v-1.7b.unet"))
    assert ours.inputs == {"image_size": "256x256", "frames": 16, "latent": [16, 32, 32], "text_tokens": 77}
