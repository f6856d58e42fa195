"""diffusers' ``AutoencoderKL`` (the VAE of Stable Diffusion, SDXL, SD3, FLUX), read from its ``vae/config.json``:
the encoder (image → the latent's mean and log-variance) and the decoder (latent → image), as ``forward`` runs them
(encode, the posterior's mode, decode).

Encoder: conv_in (3 → C₀), per level ``layers_per_block`` ResNet blocks (no time projection) and a strided 3×3
convolution (all but the last level), the middle block (ResNet, one-head self-attention over the H·W positions
with a GroupNorm and biased q, k, v, out, ResNet), GroupNorm, conv_out (→ 2·z), quant_conv (1×1, 2·z → 2·z).
Decoder: post_quant_conv (1×1, z → z), conv_in (z → C_last), the middle block, per level ``layers_per_block`` + 1
ResNet blocks and an upsampling (nearest × 2, 3×3 convolution; all but the last level), GroupNorm, conv_out.
The image is f = 2^(levels − 1) times the latent on each side.
"""
from __future__ import annotations

from engine.errors import InputError
from engine.method1.blocks import Residual
from engine.method1.layers import Activation, Conv2d, Dense
from engine.method1.media import AttentionCore, GroupNorm, TokensToGrid
from engine.method1.vision import ToTokens, Upsample
from engine.multimodal.config_reader import ConfigReader
from engine.multimodal.diffusers_parts import ACTIVATIONS, resnet
from engine.multimodal.inputs import MediaInputs, divisible
from engine.multimodal.model import ReadModel, StageBuilder
from engine.multimodal.registry import reader

STANDARD_SIZE = 512


def mid_block(c: int, groups: int, act: str, grid: tuple[int, int], attention: bool) -> list:
    """``UNetMidBlock2D``: ResNet, one head of C over the grid's positions (GroupNorm, q, k, v, out, + x), ResNet."""
    layers = [resnet(c, c, None, groups, act, name="mid resnet")]
    if attention:
        layers.append(Residual(body=[GroupNorm(groups=groups), ToTokens(), Dense(units=3 * c, name="attn q, k, v"),
                                     AttentionCore(heads=1, head_size=c, name="attn"),
                                     Dense(units=c, name="attn out"), TokensToGrid(grid=list(grid))],
                               name="mid attention"))
    layers.append(resnet(c, c, None, groups, act, name="mid resnet"))
    return layers


def read_sizes(c: ConfigReader) -> dict:
    levels = len(c.names("down_block_types", ("DownEncoderBlock2D",)))
    if len(c.names("up_block_types", ("UpDecoderBlock2D",))) != levels:
        raise c.error("up_block_types", f"expected {levels} up blocks, one per down block")
    return {"levels": levels, "channels": c.sizes("block_out_channels", levels), "layers": c.size("layers_per_block"),
            "act": c.choice("act_fn", tuple(ACTIVATIONS)), "z": c.size("latent_channels"),
            "groups": c.size("norm_num_groups"), "in": c.size("in_channels"), "out": c.size("out_channels"),
            "quant": c.flag("use_quant_conv"), "post_quant": c.flag("use_post_quant_conv"),
            "attention": c.flag("mid_block_add_attention")}


def encoder_layers(v: dict, size: tuple[int, int]) -> list:
    h, w = size
    groups, act, ch = v["groups"], v["act"], v["channels"]
    layers: list = [Conv2d(filters=ch[0], kernel_size=3, padding=1, name="conv_in")]
    c = ch[0]
    for i, out in enumerate(ch):
        for _ in range(v["layers"]):
            layers.append(resnet(c, out, None, groups, act))
            c = out
        if i < v["levels"] - 1:  # Downsample2D pads (0, 1, 0, 1) and convolves with stride 2: the same as padding 1
            layers.append(Conv2d(filters=c, kernel_size=3, stride=2, padding=1, name="downsample"))  # on even sides
            h, w = h // 2, w // 2
    layers += mid_block(c, groups, act, (h, w), v["attention"])
    layers += [GroupNorm(groups=groups), Activation(function=ACTIVATIONS[act]),
               Conv2d(filters=2 * v["z"], kernel_size=3, padding=1, name="conv_out")]
    if v["quant"]:
        layers.append(Conv2d(filters=2 * v["z"], kernel_size=1, name="quant_conv"))
    return layers


def decoder_layers(v: dict, latent: tuple[int, int]) -> list:
    h, w = latent
    groups, act, ch = v["groups"], v["act"], list(reversed(v["channels"]))
    layers: list = [Conv2d(filters=v["z"], kernel_size=1, name="post_quant_conv")] if v["post_quant"] else []
    layers.append(Conv2d(filters=ch[0], kernel_size=3, padding=1, name="conv_in"))
    c = ch[0]
    layers += mid_block(c, groups, act, (h, w), v["attention"])
    for i, out in enumerate(ch):
        for _ in range(v["layers"] + 1):
            layers.append(resnet(c, out, None, groups, act))
            c = out
        if i < v["levels"] - 1:
            layers += [Upsample(scale=2), Conv2d(filters=c, kernel_size=3, padding=1, name="upsample")]
    layers += [GroupNorm(groups=groups), Activation(function=ACTIVATIONS[act]),
               Conv2d(filters=v["out"], kernel_size=3, padding=1, name="conv_out")]
    return layers


def factor(v: dict) -> int:
    """Pixels per latent position on each side: 2^(levels − 1)."""
    return 2 ** (v["levels"] - 1)


def standard_size(c: ConfigReader) -> tuple[int, int]:
    """The config's ``sample_size`` (the resolution it was trained at), else 512."""
    size = c.raw("sample_size")
    if isinstance(size, int) and not isinstance(size, bool) and size > 0:
        return size, size
    return STANDARD_SIZE, STANDARD_SIZE


@reader("AutoencoderKL", family="VAE (AutoencoderKL)")
def read_vae(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "AutoencoderKL", source)
    v = read_sizes(c)
    size = inputs.image_size or standard_size(c)
    unused = c.finish()
    f = factor(v)
    divisible(size, f, f"the VAE's {v['levels'] - 1} downsamplings")
    if inputs.frames not in (None, 1):
        raise InputError("frames", "an image VAE takes one frame")
    latent = (size[0] // f, size[1] // f)
    enc, dec = StageBuilder("vae_encoder"), StageBuilder("vae_decoder")
    enc.add("vae_encoder", encoder_layers(v, size))
    dec.add("vae_decoder", decoder_layers(v, latent))
    notes = (f"encode a {size[0]}x{size[1]} image to a {latent[0]}x{latent[1]}x{v['z']} latent, then decode it "
             "(AutoencoderKL.forward)",)
    return ReadModel("vae", "AutoencoderKL", (enc.build([size[0], size[1], v["in"]]),
                                               dec.build([latent[0], latent[1], v["z"]])),
                     {"image_size": f"{size[0]}x{size[1]}", "latent": list(latent)}, None, notes, tuple(unused))
