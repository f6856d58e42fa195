"""diffusers' ``UNet2DConditionModel`` (Stable Diffusion 1.x and 2.x, SDXL base and refiner, Kolors), read from its
``unet/config.json`` as diffusers builds it.

The U-Net: the time embedding (sinusoid of C₀, linear C₀ → T, linear T → T; SDXL adds the micro-conditioning's
sinusoids and the pooled text, 2816 → T → T), conv_in, down blocks (ResNet blocks, spatial transformers, a strided
convolution), the middle block, up blocks that concatenate each skip before their ResNet blocks (and upsample:
nearest × 2, then a 3×3 convolution), GroupNorm, conv_out. A spatial transformer (``Transformer2DModel``):
GroupNorm, proj_in (1×1 convolution or linear), ``transformer_layers_per_block`` blocks of self-attention,
cross-attention over the M text tokens (C wide), GEGLU feed-forward (4·d), each after a LayerNorm, proj_out.

The skips are nested ``branches`` (each skip is concatenated after everything between its making and its use), so
the layer list is the U-Net's series-parallel shape.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Residual
from ..method1.layers import Activation, Conv2d, Dense, LayerNorm
from ..method1.media import ConditioningDense, GroupNorm, TokensToGrid
from ..method1.vision import ToTokens, Upsample
from .config_reader import ConfigReader
from .diffusers_parts import (
    ACTIVATIONS,
    POP,
    PUSH,
    cross_attention,
    feed_forward,
    nest,
    resnet,
    self_attention,
    time_embedding,
)
from .inputs import MediaInputs, divisible
from .model import ReadModel, StageBuilder
from .registry import reader

DOWN = ("CrossAttnDownBlock2D", "DownBlock2D")
UP = ("CrossAttnUpBlock2D", "UpBlock2D")
MID = ("UNetMidBlock2DCrossAttn", None)
STANDARD_SIZE = 512
STANDARD_TEXT_TOKENS = 77
PROJECTED_TEXT_TOKENS = 256
"""A U-Net whose text is projected first (``encoder_hid_dim``: Kolors' ChatGLM3 hidden states, 4096 wide): its
pipeline pads the prompt to 256 tokens (KolorsPipeline's max_sequence_length)."""
VAE_FACTOR = 8
"""Pixels per latent position of the VAEs these U-Nets are trained with (Stable Diffusion's, SDXL's, Kolors')."""

def spatial_transformer(c: int, heads: int, depth: int, context_width: int, context_length: int, grid: tuple,
                        groups: int, linear: bool, context_trains: bool = False) -> Residual:
    """``Transformer2DModel`` inside a U-Net block: d = H·⌊C/H⌋ wide, ``depth`` BasicTransformerBlocks;
    ``context_trains``: the text is projected by the U-Net's own ``encoder_hid_proj`` (its k and v pass a gradient
    back to it in training)."""
    head = c // heads
    d = heads * head
    body = [GroupNorm(groups=groups)]
    body += [ToTokens(), Dense(units=d, name="proj_in")] if linear else \
        [Conv2d(filters=d, kernel_size=1, name="proj_in"), ToTokens()]
    for _ in range(depth):
        body += [Residual(body=[LayerNorm(), *self_attention(d, heads, head)], name="attn1"),
                 Residual(body=[LayerNorm(), *cross_attention(d, heads, head, context_width, context_length,
                                                                context_trains=context_trains)],
                          name="attn2"),
                 Residual(body=[LayerNorm(), *feed_forward(d, 4 * d, "geglu", gated=True)], name="ff")]
    body += [Dense(units=c, name="proj_out"), TokensToGrid(grid=list(grid))] if linear else \
        [TokensToGrid(grid=list(grid)), Conv2d(filters=c, kernel_size=1, name="proj_out")]
    return Residual(body=body, name="transformer")


def _read_unet(c: ConfigReader) -> dict:
    """The U-Net's sizes, every key accounted for."""
    down = c.names("down_block_types", DOWN)
    up = c.names("up_block_types", UP)
    n = len(down)
    if len(up) != n:
        raise c.error("up_block_types", f"{len(up)} up blocks for {n} down blocks (diffusers needs as many)")
    mid = c.choice("mid_block_type", MID)
    channels = c.sizes("block_out_channels", n)
    if c.raw("num_attention_heads") is not None:
        raise c.error("num_attention_heads", "diffusers' UNet2DConditionModel refuses it (attention_head_dim holds "
                                             "the heads)")
    heads = c.sizes("attention_head_dim", n)  # diffusers' naming: these are the heads (its issue 2011)
    layers = c.sizes("layers_per_block", n)
    depth = c.raw("transformer_layers_per_block")
    if isinstance(depth, list) and any(isinstance(v, list) for v in depth):
        raise c.error("transformer_layers_per_block", "per-layer depths (lists of lists) are not counted")
    depth = c.sizes("transformer_layers_per_block", n)
    c.require("reverse_transformer_layers_per_block", lambda v: v is None, "an asymmetric U-Net is not counted")
    context = c.sizes("cross_attention_dim", n)
    for key in ("only_cross_attention", "dual_cross_attention", "class_embeddings_concat"):
        c.require(key, lambda v: not v, "not counted")
    c.require("mid_block_only_cross_attention", lambda v: not v, "not counted")
    c.require("class_embed_type", lambda v: v is None, "class embeddings are not counted")
    c.require("num_class_embeds", lambda v: v is None, "class embeddings are not counted")
    c.require("cross_attention_norm", lambda v: v is None, "a norm of the text tokens is not counted")
    c.require("time_embedding_type", lambda v: v == "positional", "Fourier time features are not counted")
    c.require("time_cond_proj_dim", lambda v: v is None, "a guidance-condition projection (LCM) is not counted")
    c.require("resnet_time_scale_shift", lambda v: v == "default", "scale-shift time projections are not counted")
    c.require("attention_type", lambda v: v == "default", "gated (GLIGEN) attention is not counted")
    groups = c.size("norm_num_groups")
    act = c.choice("act_fn", tuple(ACTIVATIONS))
    c.neutral("resnet_skip_time_act", "time_embedding_act_fn", "timestep_post_act", "addition_embed_type_num_heads")
    addition = c.choice("addition_embed_type", (None, "text_time"))
    c.neutral("addition_time_embed_dim", "projection_class_embeddings_input_dim")  # read only with text_time
    hid_type = c.choice("encoder_hid_dim_type", (None, "text_proj"))
    hid = c.size("encoder_hid_dim", allow_none=True)
    if hid is not None and hid_type is None:  # diffusers then takes it as text_proj
        hid_type = "text_proj"
    return {"down": down, "up": up, "mid": mid, "channels": channels, "heads": heads, "layers": layers,
            "depth": depth, "context": context, "groups": groups, "act": act, "addition": addition,
            "extra_time": c.size("addition_time_embed_dim") if addition else None,
            "extra_in": c.size("projection_class_embeddings_input_dim") if addition else None,
            "hid": hid if hid_type else None, "linear": c.flag("use_linear_projection"),
            "in": c.size("in_channels"), "out": c.size("out_channels"),
            "time": c.size("time_embedding_dim", allow_none=True) or 4 * channels[0],
            "conv_in": c.size("conv_in_kernel"), "conv_out": c.size("conv_out_kernel")}


def unet_layers(u: dict, latent: tuple[int, int], text_tokens: int) -> list:
    """The U-Net's layers for a latent of H × W and M text tokens."""
    n = len(u["down"])
    time = u["time"]
    ops: list = time_embedding(u["channels"][0], time)
    if u["addition"]:  # SDXL: the pooled text and the six size/crop sinusoids (256 each) → T
        ops += time_embedding(u["extra_in"], time, name="add_embedding")
    if u["hid"]:  # Kolors: the text encoder's tokens projected to the cross-attention width
        ops.append(ConditioningDense(in_features=u["hid"], units=u["context"][0], positions=text_tokens,
                                     joins_flow=False, name="encoder_hid_proj"))
    ops.append(Conv2d(filters=u["channels"][0], kernel_size=u["conv_in"], padding=(u["conv_in"] - 1) // 2,
                      name="conv_in"))
    h, w = latent
    c = u["channels"][0]
    ops.append(PUSH)
    for i, kind in enumerate(u["down"]):
        out = u["channels"][i]
        for _ in range(u["layers"][i]):
            ops.append(resnet(c, out, time, u["groups"], u["act"]))
            c = out
            if kind.startswith("CrossAttn"):
                ops.append(spatial_transformer(c, u["heads"][i], u["depth"][i], u["context"][i], text_tokens, (h, w),
                                               u["groups"], u["linear"], bool(u["hid"])))
            ops.append(PUSH)
        if i < n - 1:
            ops.append(Conv2d(filters=c, kernel_size=3, stride=2, padding=1, name="downsample"))
            h, w = (h + 1) // 2, (w + 1) // 2
            ops.append(PUSH)
    if u["mid"]:
        ops.append(resnet(c, c, time, u["groups"], u["act"], name="mid resnet"))
        ops.append(spatial_transformer(c, u["heads"][-1], u["depth"][-1], u["context"][-1], text_tokens, (h, w),
                                       u["groups"], u["linear"], bool(u["hid"])))
        ops.append(resnet(c, c, time, u["groups"], u["act"], name="mid resnet"))
    skips = [u["channels"][0]] + [u["channels"][i] for i in range(n) for _ in range(u["layers"][i] + (i < n - 1))]
    for i, kind in enumerate(u["up"]):
        out = u["channels"][n - 1 - i]
        level = n - 1 - i
        for _ in range(u["layers"][level] + 1):
            ops.append(POP)
            c += skips.pop()
            ops.append(resnet(c, out, time, u["groups"], u["act"]))
            c = out
            if kind.startswith("CrossAttn"):
                ops.append(spatial_transformer(c, u["heads"][level], u["depth"][level], u["context"][level],
                                               text_tokens, (h, w), u["groups"], u["linear"], bool(u["hid"])))
        if i < n - 1:
            h, w = 2 * h, 2 * w
            ops += [Upsample(scale=2), Conv2d(filters=c, kernel_size=3, padding=1, name="upsample")]
    ops += [GroupNorm(groups=u["groups"]), Activation(function=ACTIVATIONS[u["act"]]),
            Conv2d(filters=u["out"], kernel_size=u["conv_out"], padding=(u["conv_out"] - 1) // 2, name="conv_out")]
    return nest(ops)


@reader("UNet2DConditionModel", family="Stable Diffusion U-Net (UNet2DConditionModel)")
def read_unet(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "UNet2DConditionModel", source)
    u = _read_unet(c)
    unused = c.finish()
    sample = c.raw("sample_size")  # latent positions it was trained at; the standard image is 8× that
    size = inputs.image_size or ((sample * VAE_FACTOR,) * 2 if isinstance(sample, int) and not isinstance(sample, bool)
                                 and 0 < sample <= 8192 else (STANDARD_SIZE, STANDARD_SIZE))
    n = len(u["down"])
    divisible(size, VAE_FACTOR * 2 ** (n - 1), f"the VAE's factor {VAE_FACTOR} × the U-Net's {2 ** (n - 1)} "
                                               "downsamplings")
    if inputs.frames not in (None, 1):
        raise InputError("frames", "an image U-Net takes one frame")
    standard = PROJECTED_TEXT_TOKENS if u["hid"] else STANDARD_TEXT_TOKENS
    text = standard if inputs.text_tokens is None else inputs.text_tokens
    if text < 1:
        raise InputError("text_tokens", "the U-Net's cross-attention needs at least one text token")
    latent = (size[0] // VAE_FACTOR, size[1] // VAE_FACTOR)
    stage = StageBuilder("denoiser")
    stage.add("denoiser", unet_layers(u, latent, text))
    notes = (f"one denoiser pass over a {latent[0]}x{latent[1]} latent ({size[0]}x{size[1]} pixels / "
             f"{VAE_FACTOR}) with {text} text tokens of width {u['context'][0]}",)
    return ReadModel("unet2d", "UNet2DConditionModel", (stage.build([latent[0], latent[1], u["in"]]),),
                     {"image_size": f"{size[0]}x{size[1]}", "text_tokens": text, "latent": list(latent)},
                     None, notes, tuple(unused))
