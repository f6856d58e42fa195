"""diffusers' ``UNet3DConditionModel`` (ModelScope text-to-video), read from its ``unet/config.json``: Stable
Diffusion's
U-Net run on every frame of a latent video [F, H, W, C], with layers across the frames after each of its own.

Per frame, as the image U-Net (``engine.multimodal.unet``): ResNet blocks (the time embedding's projection run once
per frame: diffusers repeats the embedding F times), spatial transformers (self-attention within each frame,
cross-attention of each frame to the text — its k, v projections run once per frame on the repeated text),
strided convolutions, nearest upsampling and convolutions. Across frames: after conv_in a temporal transformer
(8 heads of ``attention_head_dim``); after every ResNet a temporal convolution layer (four GroupNorm, SiLU, 3×1×1
convolutions, added to its input); after every spatial transformer a temporal transformer (each position's F
frames attend to each other: self-attention twice, then GEGLU, each after a LayerNorm; GroupNorm, proj_in and
proj_out around them). Heads: with ``attention_head_dim`` A, the blocks' transformers have ⌊C/A⌋ heads of A
channels (the blocks pass C/A as the heads and A as the head size), ``transformer_in`` 8 heads of A.
"""
from __future__ import annotations

from engine.errors import InputError
from engine.method1.blocks import Residual
from engine.method1.layers import Activation, Conv3d, Dense, LayerNorm
from engine.method1.media import GroupNorm, Segment, TokensToGrid
from engine.method1.vision import ToTokens, Upsample
from engine.multimodal.config_reader import ConfigReader
from engine.multimodal.diffusers_parts import (
    ACTIVATIONS,
    POP,
    PUSH,
    conv,
    cross_attention,
    feed_forward,
    nest,
    resnet,
    self_attention,
    time_embedding,
)
from engine.multimodal.inputs import MediaInputs, divisible
from engine.multimodal.model import ReadModel, StageBuilder
from engine.multimodal.registry import reader

DOWN = ("CrossAttnDownBlock3D", "DownBlock3D")
UP = ("CrossAttnUpBlock3D", "UpBlock3D")
VAE_FACTOR = 8
STANDARD_FRAMES = 16
STANDARD_TEXT_TOKENS = 77


def temporal_conv(c: int, groups: int) -> Residual:
    """``TemporalConvLayer``: four (GroupNorm, SiLU, 3×1×1 convolution across the frames), added to its input."""
    body = []
    for i in range(4):
        body += [GroupNorm(groups=groups), Activation(function="silu"),
                 Conv3d(filters=c, kernel_size=[3, 1, 1], padding=[1, 0, 0], name=f"temporal conv{i + 1}")]
    return Residual(body=body, name="temporal convolution")


def temporal_transformer(c: int, heads: int, head: int, grid: tuple[int, int, int], groups: int) -> Residual:
    """``TransformerTemporalModel``: GroupNorm, proj_in C → H·Q, one block (self-attention over each position's F
    frames, twice; GEGLU 4·H·Q), proj_out H·Q → C, added to its input."""
    f, h, w = grid
    d = heads * head
    frames = [Segment(length=f, count=h * w)]
    body = [GroupNorm(groups=groups), ToTokens(), Dense(units=d, name="temporal proj_in"),
            Residual(body=[LayerNorm(), *self_attention(d, heads, head, segments=frames, name="temporal attn1")]),
            Residual(body=[LayerNorm(), *self_attention(d, heads, head, segments=frames, name="temporal attn2")]),
            Residual(body=[LayerNorm(), *feed_forward(d, 4 * d, "geglu", gated=True)]),
            Dense(units=c, name="temporal proj_out"), TokensToGrid(grid=[f, h, w])]
    return Residual(body=body, name="temporal transformer")


def spatial_transformer(c: int, heads: int, head: int, grid: tuple[int, int, int], groups: int, context: int,
                        text: int) -> Residual:
    """``Transformer2DModel`` on each frame: self-attention within the frame, cross-attention to the text (k, v
    projected once per frame), GEGLU; 1×1 convolutions in and out."""
    f, h, w = grid
    d = heads * head
    per_frame = [Segment(length=h * w, count=f)]
    body = [GroupNorm(groups=groups), conv(d, 1, frames=f, name="proj_in"), ToTokens()]
    cross = cross_attention(d, heads, head, context, text)
    cross[1] = cross[1].model_copy(update={"positions": f * text})  # the text repeated once per frame
    body += [Residual(body=[LayerNorm(), *self_attention(d, heads, head, segments=per_frame)], name="attn1"),
             Residual(body=[LayerNorm(), *cross], name="attn2"),
             Residual(body=[LayerNorm(), *feed_forward(d, 4 * d, "geglu", gated=True)], name="ff")]
    body += [TokensToGrid(grid=[f, h, w]), conv(c, 1, frames=f, name="proj_out")]
    return Residual(body=body, name="transformer")


@reader("UNet3DConditionModel", family="Video U-Net (UNet3DConditionModel)")
def read_unet3d(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "UNet3DConditionModel", source)
    down, up = c.names("down_block_types", DOWN), c.names("up_block_types", UP)
    n = len(down)
    if len(up) != n:
        raise c.error("up_block_types", f"{len(up)} up blocks for {n} down blocks (diffusers needs as many)")
    channels = c.sizes("block_out_channels", n)
    if c.raw("num_attention_heads") is not None:
        raise c.error("num_attention_heads", "diffusers' UNet3DConditionModel refuses it (attention_head_dim holds "
                                             "the heads)")
    heads = c.sizes("attention_head_dim", n)
    temporal_head = heads[0] if isinstance(c.raw("attention_head_dim"), int) else None
    if temporal_head is None:
        raise c.error("attention_head_dim", "a list is not counted here (transformer_in reads it as one head size)")
    layers, groups = c.size("layers_per_block"), c.size("norm_num_groups")
    act = c.choice("act_fn", tuple(ACTIVATIONS))
    context, c_in, c_out = c.size("cross_attention_dim"), c.size("in_channels"), c.size("out_channels")
    c.require("time_cond_proj_dim", lambda v: v is None, "a guidance-condition projection is not counted")
    unused = c.finish()
    size = inputs.image_size or ((c.size("sample_size", allow_none=True) or 32) * VAE_FACTOR,) * 2
    divisible(size, VAE_FACTOR * 2 ** (n - 1), f"the VAE's factor {VAE_FACTOR} × the U-Net's {2 ** (n - 1)} "
                                               "downsamplings")
    frames = inputs.frames or STANDARD_FRAMES
    text = STANDARD_TEXT_TOKENS if inputs.text_tokens is None else inputs.text_tokens
    if text < 1:
        raise InputError("text_tokens", "the U-Net's cross-attention needs at least one text token")
    h, w = size[0] // VAE_FACTOR, size[1] // VAE_FACTOR
    time = 4 * channels[0]
    ops: list = [*time_embedding(channels[0], time),
                 conv(channels[0], 3, padding=1, frames=frames, name="conv_in"),
                 temporal_transformer(channels[0], 8, temporal_head, (frames, h, w), groups), PUSH]
    ch = channels[0]
    for i, kind in enumerate(down):
        for _ in range(layers):
            ops += [resnet(ch, channels[i], time, groups, act, frames=frames), temporal_conv(channels[i], groups)]
            ch = channels[i]
            if kind.startswith("CrossAttn"):
                ops += [spatial_transformer(ch, ch // heads[i], heads[i], (frames, h, w), groups, context, text),
                        temporal_transformer(ch, ch // heads[i], heads[i], (frames, h, w), groups)]
            ops.append(PUSH)
        if i < n - 1:
            ops += [conv(ch, 3, stride=2, padding=1, frames=frames, name="downsample"), PUSH]
            h, w = (h + 1) // 2, (w + 1) // 2
    ops += [resnet(ch, ch, time, groups, act, frames=frames, name="mid resnet"), temporal_conv(ch, groups),
            spatial_transformer(ch, ch // heads[-1], heads[-1], (frames, h, w), groups, context, text),
            temporal_transformer(ch, ch // heads[-1], heads[-1], (frames, h, w), groups),
            resnet(ch, ch, time, groups, act, frames=frames, name="mid resnet"), temporal_conv(ch, groups)]
    skips = [channels[0]] + [channels[i] for i in range(n) for _ in range(layers + (i < n - 1))]
    for i, kind in enumerate(up):
        level = n - 1 - i
        out = channels[level]
        for _ in range(layers + 1):
            ops.append(POP)
            ch += skips.pop()
            ops += [resnet(ch, out, time, groups, act, frames=frames), temporal_conv(out, groups)]
            ch = out
            if kind.startswith("CrossAttn"):
                ops += [spatial_transformer(ch, ch // heads[level], heads[level], (frames, h, w), groups, context,
                                            text),
                        temporal_transformer(ch, ch // heads[level], heads[level], (frames, h, w), groups)]
        if i < n - 1:
            h, w = 2 * h, 2 * w
            ops += [Upsample(scale=2), conv(ch, 3, padding=1, frames=frames, name="upsample")]
    ops += [GroupNorm(groups=groups), Activation(function=ACTIVATIONS[act]),
            conv(c_out, 3, padding=1, frames=frames, name="conv_out")]
    stage = StageBuilder("denoiser")
    stage.add("denoiser", nest(ops))
    latent = [frames, size[0] // VAE_FACTOR, size[1] // VAE_FACTOR]
    return ReadModel("unet3d", "UNet3DConditionModel", (stage.build([*latent, c_in]),),
                     {"image_size": f"{size[0]}x{size[1]}", "frames": frames, "latent": latent, "text_tokens": text},
                     None, (f"one denoiser pass over {frames} latent frames of {latent[1]}x{latent[2]} with {text} "
                            "text tokens",), tuple(unused))
