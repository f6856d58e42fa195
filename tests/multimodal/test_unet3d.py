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


@pytest.mark.parametrize("size, frames", (((256, 256), 16), ((128, 192), 4)))
def test_pipeline_decodes_every_frame(size, frames):
    """Sampling over ModelScope's folder: its image VAE (SD's AutoencoderKL) decodes each of the F latent frames, as
    ``TextToVideoSDPipeline.decode_latents`` does (the frames as a batch of images): the decode equals diffusers'
    ``vae.decode`` of F latents on meta, and the training step's encode ``vae.encode`` of F frames."""
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.pipeline import read_parts
    from engine.multimodal.training import pipeline_compute
    from tests.multimodal.diffusers_reference import build, measure, meta

    parts = read_parts(config("modelscope-t2v-1.7b.unet"), [config("modelscope-t2v-1.7b.text_encoder")],
                       config("modelscope-t2v-1.7b.vae"), media_inputs({"image_size": size, "frames": frames}))
    out = pipeline_compute(*parts, {"steps": 50, "guidance": True})
    vae = build(config("modelscope-t2v-1.7b.vae"))
    latents = meta(frames, vae.config.latent_channels, size[0] // 8, size[1] // 8)
    _, decode = measure(vae, lambda m: m.decode(latents))
    _, encode = measure(vae, lambda m: m.encode(meta(frames, 3, *size)))
    assert (out.vae_decoder_flop, out.vae_encoder_flop) == (decode, encode)
    unet = engine_count(config("modelscope-t2v-1.7b.unet"), image_size=size, frames=frames).forward_flop
    clip = engine_count(config("modelscope-t2v-1.7b.text_encoder"), text_tokens=77).forward_flop
    assert out.sampling_flop_per_output == 50 * 2 * unet + 2 * clip + decode
    assert f"{frames} frames, each through the image VAE" in out.notes[0]
