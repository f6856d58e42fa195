"""Video diffusion transformers — CogVideoX (2B, 5B, 1.5-5B) and Wan 2.1 (1.3B, 14B) — from their
transformer/config.json: parameters and one denoiser pass's FLOP equal diffusers' model built from the same file on
the meta device (FlopCounterMode), at three sizes, frame counts and text lengths."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")

COGVIDEOX = ("cogvideox-2b.transformer", "cogvideox-5b.transformer", "cogvideox1.5-5b.transformer")
WAN = ("wan2.1-t2v-1.3b.transformer", "wan2.1-t2v-14b.transformer")


def _check(name, size, frames, tokens):
    from tests.multimodal.diffusers_reference import video

    ours = engine_count(config(name), image_size=size, frames=frames, text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == video(config(name), size, frames, tokens)


@pytest.mark.parametrize("name", COGVIDEOX)
@pytest.mark.parametrize("size, frames, tokens", (((480, 720), 49, 226), ((256, 384), 17, 226), ((128, 128), 9, 226)))
@pytest.mark.external_check("each")
def test_cogvideox_matches_diffusers(name, size, frames, tokens):
    if name == "cogvideox1.5-5b.transformer":  # 1.5 patches two latent frames together: an even count of them
        frames = {49: 53, 17: 29, 9: 5}[frames]
    _check(name, size, frames, tokens)


def test_cogvideox15_pads_latent_frames_as_its_pipeline():
    """81 frames (CogVideoX 1.5's standard) are (81 − 1)/4 + 1 = 21 latent frames; CogVideoXPipeline pads them to 22,
    a multiple of the temporal patch 2: the transformer's run on 22 latent frames (85 frames' worth)."""
    from tests.multimodal.diffusers_reference import video

    ours = engine_count(config("cogvideox1.5-5b.transformer"), image_size=(128, 128), frames=81, text_tokens=226)
    assert (ours.params, ours.forward_flop) == video(config("cogvideox1.5-5b.transformer"), (128, 128), 85, 226)
    assert ours.inputs["latent"][0] == 22


@pytest.mark.parametrize("name", ("cogvideox-5b.transformer",))
def test_cogvideox_rotary_takes_any_text_length(name):
    _check(name, (128, 128), 9, 40)


@pytest.mark.parametrize("name", WAN)
@pytest.mark.parametrize("size, frames, tokens", (((480, 832), 81, 512), ((256, 256), 17, 100), ((128, 192), 1, 1)))
def test_wan_matches_diffusers(name, size, frames, tokens):
    _check(name, size, frames, tokens)


def test_published_sizes_and_standard_input():
    # the model cards: Wan2.1-T2V-14B "14B", 1.3B "1.3B"; CogVideoX-5B "5B"
    wan = engine_count(config("wan2.1-t2v-14b.transformer"))
    assert round(wan.params / 1e9) == 14
    assert round(engine_count(config("wan2.1-t2v-1.3b.transformer")).params / 1e8) == 14
    assert wan.inputs == {"image_size": "480x832", "frames": 81, "latent": [21, 60, 104], "video_tokens": 32760,
                          "text_tokens": 512}
    assert round(engine_count(config("cogvideox-5b.transformer")).params / 1e9) == 6  # 5.57B


def test_video_frames_are_checked():
    from engine.errors import InputError

    with pytest.raises(InputError, match="frames: 50 frames: these video models take 4k \\+ 1 frames"):
        engine_count(config("wan2.1-t2v-1.3b.transformer"), frames=50)
    with pytest.raises(InputError, match="text_tokens: 100: this CogVideoX adds a position table of 226 text"):
        engine_count(config("cogvideox-2b.transformer"), text_tokens=100)
    padded = engine_count(config("cogvideox1.5-5b.transformer"), image_size=(128, 128), frames=17)
    assert padded.inputs["latent"][0] == 6  # (17 − 1)/4 + 1 = 5 latent frames, padded to the temporal patch 2
    assert padded.forward_flop == engine_count(config("cogvideox1.5-5b.transformer"), image_size=(128, 128),
                                               frames=21).forward_flop  # 21 frames: 6 latent frames unpadded
