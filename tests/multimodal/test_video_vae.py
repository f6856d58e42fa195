"""The video VAEs — CogVideoX's (``AutoencoderKLCogVideoX``: 2B, 5B, 1.5-5B) and Wan 2.1's (``AutoencoderKLWan``) —
from their vae/config.json: parameters equal Σ numel and the FLOP of ``encode`` (a video of F frames at H × W) and
of ``decode`` (its latent) equal FlopCounterMode's over diffusers' model built from the same file on the meta device
(tiling and slicing off, the default), at three frame counts and sizes each."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

COGVIDEOX = ("cogvideox-2b.vae", "cogvideox-5b.vae", "cogvideox1.5-5b.vae")
WAN = "wan2.1-t2v-1.3b.vae"


def _check(name, frames, size):
    pytest.importorskip("torch")
    pytest.importorskip("diffusers")
    from tests.multimodal.diffusers_reference import video_vae

    data = config(name) if isinstance(name, str) else name
    ours = engine_count(data, image_size=size, frames=frames)
    params, encode, decode = video_vae(data, frames, size)
    assert ours.params == params
    assert ours.flop_by_component == {"vae_encoder": encode, "vae_decoder": decode}
    assert ours.forward_flop == encode + decode
    return ours


@pytest.mark.parametrize("frames, size", ((49, (480, 720)), (17, (256, 384)), (13, (128, 128))))
@pytest.mark.external_check("frame_resample")
def test_cogvideox_vae_matches_diffusers(frames, size):
    ours = _check("cogvideox-2b.vae", frames, size)
    latent = (frames - 1) // 4 + 1
    assert ours.inputs["latent"] == [latent, size[0] // 8, size[1] // 8]
    # decode runs batches of 2 latent frames: an odd count makes 4F′ − 3 frames, an even one 4F′ (13 → 4 → 16)
    assert ours.inputs["decoded_frames"] == (4 * latent - 3 if latent % 2 else 4 * latent)


@pytest.mark.parametrize("name", COGVIDEOX[1:])
def test_cogvideox_5b_and_15_vaes_match_diffusers(name):
    """The 5B and 1.5 files differ from the 2B's in the latents' scaling only: the same blocks."""
    ours = _check(name, 9, (64, 96))
    assert ours.params == engine_count(config("cogvideox-2b.vae"), image_size=(64, 96), frames=9).params


@pytest.mark.parametrize("frames, size", ((81, (480, 832)), (17, (256, 256)), (1, (64, 64))))
@pytest.mark.external_check("frame_conv")
def test_wan_vae_matches_diffusers(frames, size):
    ours = _check(WAN, frames, size)
    assert ours.inputs["decoded_frames"] == frames  # one latent frame at a time: 4F′ − 3


VARIANTS = {
    "cogvideox: 3 levels, 1 layer per block, 4 latent channels, 16 groups, 1 → 2 channels": {
        "_class_name": "AutoencoderKLCogVideoX", "block_out_channels": [32, 64, 64], "layers_per_block": 1,
        "latent_channels": 4, "norm_num_groups": 16, "in_channels": 1, "out_channels": 2,
        "down_block_types": ["CogVideoXDownBlock3D"] * 3, "up_block_types": ["CogVideoXUpBlock3D"] * 3},
    "wan: 3 levels, a decoder width of its own, time halved at both downsamplings, 1 → 2 channels": {
        "_class_name": "AutoencoderKLWan", "base_dim": 16, "decoder_base_dim": 24, "dim_mult": [1, 2, 2],
        "num_res_blocks": 1, "temperal_downsample": [True, True], "z_dim": 4, "in_channels": 1, "out_channels": 2},
}
"""Small configs switching each option the readers know (the class's defaults fill the rest, as diffusers does)."""


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variants_match_diffusers(name):
    _check(VARIANTS[name], 9, (32, 48))


def test_missing_keys_are_the_class_defaults():
    """A file that leaves keys out gets diffusers' defaults: the class's own configuration is CogVideoX's and Wan
    2.1's VAE."""
    assert engine_count({"_class_name": "AutoencoderKLWan"}).params == 126_892_531
    assert engine_count({"_class_name": "AutoencoderKLCogVideoX"}).params == 215_583_907


def test_published_sizes_and_standard_inputs():
    # Wan 2.1's report (Wan Team 2025, arXiv 2503.20314): "Wan-VAE … 127M parameters"
    wan = engine_count(config(WAN))
    assert round(wan.params / 1e6) == 127
    assert wan.inputs == {"image_size": "480x832", "frames": 81, "latent": [21, 60, 104], "decoded_frames": 81}
    cog = engine_count(config("cogvideox-2b.vae"))
    assert cog.inputs == {"image_size": "480x720", "frames": 49, "latent": [13, 60, 90], "decoded_frames": 49}
    # the figures FlopCounterMode gives at these sizes (test_*_matches_diffusers): encode + decode
    assert (cog.params, cog.forward_flop) == (215_583_907, 148_964_681_318_400 + 315_027_947_520_000)
    assert (wan.params, wan.forward_flop) == (126_892_531, 163_749_702_205_440 + 275_352_205_639_680)


def _refused(data, field, match, **inputs):
    from engine.errors import InputError

    with pytest.raises(InputError) as error:
        engine_count(data, **inputs)
    assert error.value.field == field and match in error.value.reason, (error.value.field, error.value.reason)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("name", (WAN, "cogvideox-2b.vae"))
def test_bad_inputs_name_the_field(name):
    data = config(name)
    _refused(data, "frames", "these video models take 4k + 1 frames", frames=10)
    _refused(data, "image_size", "250 is not a multiple of 8", image_size=(256, 250))
    _refused(data, "inputs.frames", "at least 1", frames=0)
    _refused(data, "inputs.frames", "at most 10000", frames=10**6)


def test_contradictory_or_unsupported_keys_are_named():
    wan, cog = config(WAN), config("cogvideox-2b.vae")
    _refused({**wan, "scale_factor_spatial": 16}, "config.scale_factor_spatial", "contradicts the blocks (8")
    _refused({**wan, "temperal_downsample": [True, True, True]}, "config.temperal_downsample",
             "3 temporal downsamplings")
    _refused({**wan, "temperal_downsample": [False, True]}, "config.temperal_downsample", "expected 3 true/false")
    _refused({**wan, "is_residual": True}, "config.is_residual", "Wan 2.2's residual VAE")
    _refused({**wan, "attn_scales": [1.0]}, "config.attn_scales", "not supported")
    _refused({**wan, "dim_mult": "4"}, "config.dim_mult", "expected a list")
    _refused({**cog, "up_block_types": ["CogVideoXUpBlock3D"] * 3}, "config.up_block_types", "expected 4 up blocks")
    _refused({**cog, "temporal_compression_ratio": 8}, "config.temporal_compression_ratio", "compress time 4×")
    _refused({**cog, "use_quant_conv": True}, "config.use_quant_conv", "not supported")
    _refused({**cog, "block_out_channels": [128, 256, 512]}, "config.block_out_channels", "expected 4 values")
    _refused({**cog, "latent_channels": 0}, "config.latent_channels", "outside 1 to")
    _refused({**cog, "norm_num_groups": 7}, "config.norm_num_groups", "7 groups must divide every width")


def test_frame_kinds_formulas():
    """The two frame kinds by their formulas: F′ and the products of a causal 3 × 1 × 1 convolution."""
    from tests.method1 import evaluated

    down = evaluated([9, 4, 6, 8], [{"type": "frame_resample"}])
    assert down.rows[0].output_shape == [5, 4, 6, 8] and down.forward_flop == 0
    up = evaluated([5, 4, 6, 8], [{"type": "frame_resample", "direction": "up"}])
    assert up.rows[0].output_shape == [9, 4, 6, 8]  # 2·5 − 1: the first frame alone
    conv = evaluated([9, 4, 6, 8], [{"type": "frame_conv"}])  # 8 later frames → 4 computed, + the first
    assert conv.rows[0].output_shape == [5, 4, 6, 8]
    assert (conv.params, conv.forward_flop) == (3 * 8 * 8 + 8, 2 * 4 * 4 * 6 * 8 * 3 * 8)
    conv_up = evaluated([3, 4, 6, 8], [{"type": "frame_conv", "direction": "up"}])  # 2 later frames → 4
    assert conv_up.rows[0].output_shape == [5, 4, 6, 8]
    assert (conv_up.params, conv_up.forward_flop) == (3 * 8 * 16 + 16, 2 * 2 * 4 * 6 * 16 * 3 * 8)
