"""The causal video VAEs, read from their ``vae/config.json``: diffusers' ``AutoencoderKLCogVideoX`` (CogVideoX
1.0 and 1.5) and ``AutoencoderKLWan`` (Wan 2.1), encode (F frames of H × W → the latent's mean and log-variance) and
decode (the latent → frames), as ``encode`` and ``decode`` run them with tiling and slicing off (the default).

Both compress 2^(levels − 1) = 8× on each side and 4× in time, the first frame alone: F = 4k + 1 frames → F′ = k + 1
latent frames.
Their 3 × 3 × 3 convolutions are causal (the padding, or the frames cached from the previous chunk, go before each
chunk): every one computes one output frame per frame of the chunk, so the video costs the sum of its chunks and is
counted as one video [F, H, W, C].

CogVideoX (levels ℓ of ``block_out_channels`` C_ℓ, ``layers_per_block`` n): encoder conv_in, per level n ResNet
blocks (GroupNorm, SiLU, causal conv, twice; a 1 × 1 × 1 shortcut when the width changes) and, but the last level,
the frames averaged in pairs (the first two levels: log₂ of the temporal ratio) and a stride-2 3 × 3 convolution of
each frame; the middle (two ResNets, no attention); GroupNorm, SiLU, conv_out → 2z. ``encode`` runs the encoder on
batches of 8 frames (the first 8 + F mod 8) with the convolutions' cache: the frames per level are the whole
video's, ⌈F/2⌉ after each averaging. Decoder: conv_in, the middle and per level n + 1 ResNets whose norms are
spatial norms (GroupNorm, then × conv_y(z) + conv_b(z): two 1 × 1 × 1 convolutions of the latent, z → C, at every
position), the frames repeated (the first alone when their count is odd) and each frame upsampled 2× and convolved;
a spatial norm, SiLU, conv_out. ``decode`` runs batches of 2 latent frames (the first 2 + F′ mod 2): F′ latent
frames make 4F′ − 3 frames when F′ is odd, 4F′ when even.

Wan (base width b, ``dim_mult`` m, ``num_res_blocks`` n): encoder conv_in, per level n ResNet blocks (RMS norm over
the channels with a gain, SiLU, causal conv, twice; a 1 × 1 × 1 shortcut), then, but the last level, a stride-2
3 × 3 convolution of each frame and, where ``temperal_downsample``, a causal 3 × 1 × 1 stride-2 convolution across
the frames after the first; the middle (ResNet, one-head attention within each frame — RMS norm, 1 × 1 q, k, v and
out —, ResNet); RMS norm, SiLU, conv_out → 2z; quant_conv (1 × 1 × 1). ``encode`` runs chunks of 1, 4, 4… frames:
the first chunk's frame skips the time convolution. Decoder: post_quant_conv, conv_in, the middle, per level n + 1
ResNets and, but the last, where the time is upsampled a 3 × 1 × 1 convolution C → 2C on the frames after the first
(each output two frames), then each frame upsampled 2× and convolved to C/2; RMS norm, SiLU, conv_out. ``decode``
runs one latent frame at a time: F′ latent frames make 4F′ − 3 frames.
"""
from __future__ import annotations

import math

from ..method1.blocks import Residual
from ..method1.frames import FrameConv, FrameResample
from ..method1.layers import Activation, Conv3d, Dense
from ..method1.media import AttentionCore, ConditioningDense, GroupNorm, Segment, TokensToGrid
from ..method1.transformer import RMSNorm
from ..method1.vision import ToTokens, Upsample
from .config_reader import ConfigReader
from .diffusers_parts import ACTIVATIONS
from .inputs import MediaInputs, divisible
from .model import ReadModel, StageBuilder
from .registry import reader
from .video import TEMPORAL, latent_frames

WAN_STANDARD = ((480, 832), 81)
"""Wan 2.1's standard video (its pipelines' default height, width and frames)."""
COGVIDEOX_FRAMES = 49
VIDEO_VAES = ("AutoencoderKLCogVideoX", "AutoencoderKLWan")
"""The classes read here: a pipeline passes them its frames (``pipeline.read_parts``)."""


def causal_conv(filters: int, kernel: int = 3, name: str = "conv") -> Conv3d:
    """A K × K × K convolution of the video, one output frame per frame (the causal padding keeps F)."""
    return Conv3d(filters=filters, kernel_size=kernel, padding=kernel // 2, name=name)


def frame_conv(filters: int, stride: int = 1, name: str = "") -> Conv3d:
    """A 3 × 3 convolution of each frame (1 × 3 × 3 in 3-D: the same products)."""
    return Conv3d(filters=filters, kernel_size=[1, 3, 3], stride=[1, stride, stride], padding=[0, 1, 1], name=name)


def resnet(c_in: int, c_out: int, norm, act: str, name: str = "resnet") -> Residual:
    """A ResNet block of the video: norm, act, causal conv, norm, act, causal conv; a 1 × 1 × 1 convolution on the
    shortcut when C_in ≠ C_out. ``norm(c)``: the layers of a norm over c channels."""
    body = [*norm(c_in), Activation(function=act), causal_conv(c_out, name="conv1"),
            *norm(c_out), Activation(function=act), causal_conv(c_out, name="conv2")]
    shortcut = [causal_conv(c_out, 1, name="conv_shortcut")] if c_in != c_out else []
    return Residual(body=body, shortcut=shortcut, name=name)


def frame_attention(c: int, grid: tuple[int, int, int]) -> Residual:
    """Wan's one-head attention within each frame: RMS norm, q, k, v (1 × 1, C → 3C), the product over each frame's
    H·W positions, out (C → C), + x."""
    f, h, w = grid
    return Residual(body=[RMSNorm(), ToTokens(), Dense(units=3 * c, name="attn to_qkv"),
                          AttentionCore(heads=1, head_size=c, segments=[Segment(length=h * w, count=f)], name="attn"),
                          Dense(units=c, name="attn proj"), TokensToGrid(grid=list(grid))], name="mid attention")


def _frames(inputs: MediaInputs, standard: int) -> int:
    """The frames (4k + 1: the first alone, then chunks of 4), the family's standard where none were given."""
    frames = inputs.frames or standard
    latent_frames(frames)
    return frames


def _size(inputs: MediaInputs, standard: tuple[int, int], by: int) -> tuple[int, int]:
    size = inputs.image_size or standard
    divisible(size, by, f"the VAE's {int(math.log2(by))} spatial downsamplings")
    return size


def _model(cls: str, enc: StageBuilder, dec: StageBuilder, shapes: tuple[list, list], inputs: dict,
           unused: list[str]) -> ReadModel:
    f, (h, w), lat = inputs["frames"], inputs["size"], inputs["latent"]
    shown = {"image_size": f"{h}x{w}", "frames": f, "latent": lat, "decoded_frames": inputs["decoded"]}
    notes = (f"encode {f} frames of {h}x{w} to a {lat[0]}x{lat[1]}x{lat[2]} latent of {shapes[1][-1]} channels, "
             f"then decode it to {inputs['decoded']} frames ({cls}.encode, the posterior's mode, decode; tiling "
             "off)",)
    return ReadModel("video_vae", cls, (enc.build(shapes[0]), dec.build(shapes[1])), shown, None, notes,
                     tuple(unused))


@reader("AutoencoderKLCogVideoX", family="CogVideoX video VAE (AutoencoderKLCogVideoX)")
def read_cogvideox_vae(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "AutoencoderKLCogVideoX", source)
    levels = len(c.names("down_block_types", ("CogVideoXDownBlock3D",)))
    if len(c.names("up_block_types", ("CogVideoXUpBlock3D",))) != levels:
        raise c.error("up_block_types", f"expected {levels} up blocks, one per down block")
    ch = c.sizes("block_out_channels", levels)
    n, z, groups = c.size("layers_per_block"), c.size("latent_channels"), c.size("norm_num_groups")
    c_in, c_out = c.size("in_channels"), c.size("out_channels")
    act = ACTIVATIONS[c.choice("act_fn", tuple(ACTIVATIONS))]
    ratio = c.raw("temporal_compression_ratio")
    if ratio != TEMPORAL:
        raise c.error("temporal_compression_ratio", f"{ratio!r}: these pipelines compress time {TEMPORAL}× (4k + 1 "
                                                    "frames to k + 1), the ratio counted here")
    for key in ("use_quant_conv", "use_post_quant_conv"):
        c.require(key, lambda v: not v, "diffusers sizes it by out_channels, not the latent's channels: no "
                                        "CogVideoX VAE has it")
    if levels < 3:
        raise c.error("block_out_channels", f"{levels} levels: the VAE compresses time 4× over its first two "
                                            "downsamplings, so it needs at least 3 levels")
    if any(width % groups for width in ch):
        raise c.error("norm_num_groups", f"{groups} groups must divide every width of block_out_channels {ch}")
    standard = (c.size("sample_height"), c.size("sample_width"))
    unused = c.finish()
    size = _size(inputs, standard, 2 ** (levels - 1))
    frames = _frames(inputs, COGVIDEOX_FRAMES)

    def group_norm(ch_: int) -> list:
        return [GroupNorm(groups=groups)]

    enc = StageBuilder("vae_encoder")
    t, h, w = frames, size[0], size[1]
    layers: list = [causal_conv(ch[0], name="conv_in")]
    width = ch[0]
    for i, out in enumerate(ch):
        for _ in range(n):
            layers.append(resnet(width, out, group_norm, act))
            width = out
        if i < levels - 1:
            if i < 2:  # log2(4) levels average the frames in pairs, per batch of 8 frames (the first alone)
                layers.append(FrameResample(direction="down", name="time average"))
                t = -(-t // 2)
            layers.append(frame_conv(out, 2, name="downsample"))
            h, w = h // 2, w // 2
    layers += [resnet(width, width, group_norm, act, name="mid resnet") for _ in range(2)]
    layers += [GroupNorm(groups=groups), Activation(function="silu"), causal_conv(2 * z, name="conv_out")]
    enc.add("vae_encoder", layers)
    latent = [t, h, w]

    grid = list(latent)

    def spatial_norm(ch_: int) -> list:
        """CogVideoXSpatialNorm3D: GroupNorm, then × conv_y(z) + conv_b(z) at the flow's positions."""
        return [GroupNorm(groups=groups), ConditioningDense(in_features=z, units=2 * ch_, positions=math.prod(grid),
                                                            name="spatial norm conv_y, conv_b")]

    dec = StageBuilder("vae_decoder")
    rev = list(reversed(ch))
    layers = [causal_conv(rev[0], name="conv_in")]
    width = rev[0]
    layers += [resnet(width, width, spatial_norm, act, name="mid resnet") for _ in range(2)]
    for i, out in enumerate(rev):
        for _ in range(n + 1):
            layers.append(resnet(width, out, spatial_norm, act))
            width = out
        if i < levels - 1:
            if i < 2:  # per batch of 2 latent frames: the first alone when their count is odd
                layers.append(FrameResample(direction="up", name="time repeat"))
                grid[0] = 1 if grid[0] == 1 else 2 * grid[0] - 1 if grid[0] % 2 else 2 * grid[0]
            layers += [Upsample(scale=2), frame_conv(out, name="upsample")]
            grid[1], grid[2] = 2 * grid[1], 2 * grid[2]
    layers += [*spatial_norm(width), Activation(function="silu"), causal_conv(c_out, name="conv_out")]
    dec.add("vae_decoder", layers)
    shown = {"frames": frames, "size": size, "latent": latent, "decoded": grid[0]}
    return _model("AutoencoderKLCogVideoX", enc, dec, ([frames, *size, c_in], [*latent, z]), shown, unused)


@reader("AutoencoderKLWan", family="Wan 2.1 video VAE (AutoencoderKLWan)")
def read_wan_vae(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "AutoencoderKLWan", source)
    mult = c.raw("dim_mult")
    if not isinstance(mult, list) or not 2 <= len(mult) <= 8:
        raise c.error("dim_mult", "expected a list of 2 to 8 width multipliers, one per level")
    mult = [c.size(f"dim_mult[{i}]", v) for i, v in enumerate(mult)]
    levels = len(mult)
    base, z, n = c.size("base_dim"), c.size("z_dim"), c.size("num_res_blocks")
    dec_base = c.size("decoder_base_dim", allow_none=True) or base
    c_in, c_out = c.size("in_channels"), c.size("out_channels")
    down = c.raw("temperal_downsample")
    if not isinstance(down, list) or len(down) != levels - 1 or not all(isinstance(v, bool) for v in down):
        raise c.error("temperal_downsample", f"expected {levels - 1} true/false values, one per downsampling")
    if sum(down) != 2:
        raise c.error("temperal_downsample", f"{sum(down)} temporal downsamplings: Wan's VAE encodes chunks of "
                                             f"{TEMPORAL} frames, halved twice")
    c.require("attn_scales", lambda v: v == [], "attention inside the levels is not counted")
    c.require("is_residual", lambda v: not v, "Wan 2.2's residual VAE is not counted")
    c.require("patch_size", lambda v: v is None, "Wan 2.2's patchified VAE is not counted")
    spatial = 2 ** (levels - 1)
    for key, value in (("scale_factor_spatial", spatial), ("scale_factor_temporal", TEMPORAL)):
        given = c.raw(key) if key in data else None  # the class's default (8, 4) only sizes a pipeline's latent
        if given is not None and given != value:
            raise c.error(key, f"{given!r} contradicts the blocks ({value}: the pipeline sizes its latent by it)")
    unused = c.finish()
    size = _size(inputs, WAN_STANDARD[0], spatial)
    frames = _frames(inputs, WAN_STANDARD[1])

    def rms(ch_: int) -> list:
        return [RMSNorm()]

    enc = StageBuilder("vae_encoder")
    dims = [base * u for u in [1, *mult]]
    t, h, w = frames, size[0], size[1]
    layers: list = [causal_conv(dims[0], name="conv_in")]
    width = dims[0]
    for i, out in enumerate(dims[1:]):
        for _ in range(n):
            layers.append(resnet(width, out, rms, "silu"))
            width = out
        if i < levels - 1:
            layers.append(frame_conv(out, 2, name="downsample"))
            h, w = h // 2, w // 2
            if down[i]:  # chunks after the first: their frames and the one before, 3 × 1 × 1 at stride 2
                layers.append(FrameConv(direction="down", name="time_conv"))
                t = 1 + (t - 1) // 2
    layers += [resnet(width, width, rms, "silu", name="mid resnet"), frame_attention(width, (t, h, w)),
               resnet(width, width, rms, "silu", name="mid resnet"),
               RMSNorm(), Activation(function="silu"), causal_conv(2 * z, name="conv_out"),
               causal_conv(2 * z, 1, name="quant_conv")]
    enc.add("vae_encoder", layers)
    latent = [t, h, w]

    dec = StageBuilder("vae_decoder")
    dims = [dec_base * u for u in [mult[-1], *reversed(mult)]]
    up = list(reversed(down))
    layers = [causal_conv(z, 1, name="post_quant_conv"), causal_conv(dims[0], name="conv_in")]
    width = dims[0]
    layers += [resnet(width, width, rms, "silu", name="mid resnet"), frame_attention(width, (t, h, w)),
               resnet(width, width, rms, "silu", name="mid resnet")]
    for i, out in enumerate(dims[1:]):
        for _ in range(n + 1):
            layers.append(resnet(width, out, rms, "silu"))
            width = out
        if i < levels - 1:
            if up[i]:  # latent frames after the first: each one's output read as two frames
                layers.append(FrameConv(direction="up", name="time_conv"))
                t = 1 + 2 * (t - 1)
            layers += [Upsample(scale=2), frame_conv(out // 2, name="upsample")]
            width = out // 2
    layers += [RMSNorm(), Activation(function="silu"), causal_conv(c_out, name="conv_out")]
    dec.add("vae_decoder", layers)
    shown = {"frames": frames, "size": size, "latent": latent, "decoded": t}
    return _model("AutoencoderKLWan", enc, dec, ([frames, *size, c_in], [*latent, z]), shown, unused)
