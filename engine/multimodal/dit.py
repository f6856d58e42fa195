"""Diffusion transformers over a grid of latent patches, diffusers' ``BasicTransformerBlock`` with adaptive norms:
DiT (Peebles & Xie 2023; class-conditional, ``ada_norm_zero``) and PixArt-α/Σ (text-conditional,
``ada_norm_single``), read from their ``transformer/config.json`` (``PixArtTransformer2DModel``,
``DiTTransformer2DModel``, or the older ``Transformer2DModel`` with a patch size).

Both: a patch embedding (a p×p convolution of stride p, C_in → d = H·Q) over the latent (the image / 8), N blocks
of self-attention (biased q, k, v, out) and a feed-forward d → 4d → d (tanh GELU), each after a LayerNorm without
parameters, modulated by scale, shift and gate from the conditioning vector; then a norm and a projection to
p²·C_out per patch.
- PixArt: the timestep's MLP (256 → d → d; at 1024 px also the resolution's and aspect ratio's, 256 → d/3 → d/3)
  and one adaLN linear d → 6d shared by the blocks, each block adding its own table of 6d values; the T5 caption's
  M tokens projected C → d → d, read by a cross-attention in every block; the output's 2d table.
- DiT: every block has its own AdaLayerNormZero as diffusers builds it (its own timestep MLP, class table of
  1001 rows and linear d → 6d); the output's modulation recomputes the first block's embedding and projects it
  d → 2d.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Residual
from ..method1.layers import Conv2d, Dense, LayerNorm
from ..method1.media import ConditioningDense, LearnedValues
from ..method1.vision import ToTokens
from .config_reader import ConfigReader
from .diffusers_parts import (
    ACTIVATIONS,
    GATED,
    cross_attention,
    feed_forward,
    self_attention,
    time_embedding,
)
from .inputs import MediaInputs, divisible
from .model import ReadModel, StageBuilder
from .registry import reader

REMAPPED = {"ada_norm_zero": "DiTTransformer2DModel", "ada_norm_single": "PixArtTransformer2DModel"}
"""A ``Transformer2DModel`` file of these norms, as diffusers loads it (``_CLASS_REMAPPING_DICT``,
``diffusers/models/model_loading_utils.py``): the newer class, whose defaults fill the keys the file leaves out."""
VAE_FACTOR = 8
PIXART_TEXT_TOKENS = 120
"""PixArt-α's caption length (its pipeline's max_sequence_length)."""


def _sizes(c: ConfigReader) -> dict:
    for key in ("use_linear_projection", "only_cross_attention", "double_self_attention"):
        if key in c.defaults:
            c.require(key, lambda v: not v, "not used by a patched transformer")
    if "num_vector_embeds" in c.defaults:
        c.require("num_vector_embeds", lambda v: v is None, "a discrete (VQ) transformer is not counted")
    if "attention_type" in c.defaults:
        c.require("attention_type", lambda v: v in (None, "default"), "gated attention is not counted")
    c.neutral("norm_num_groups")
    heads, head = c.size("num_attention_heads"), c.size("attention_head_dim")
    act = c.choice("activation_fn", tuple(ACTIVATIONS))
    return {"heads": heads, "head": head, "d": heads * head, "layers": c.size("num_layers"),
            "in": c.size("in_channels"), "out": c.size("out_channels", allow_none=True),
            "patch": c.size("patch_size"), "bias": c.flag("attention_bias"), "act": act,
            "affine": c.flag("norm_elementwise_affine"), "sample": c.size("sample_size")}


def _patch_embed(s: dict) -> list:
    return [Conv2d(filters=s["d"], kernel_size=s["patch"], stride=s["patch"], name="patch embedding"), ToTokens()]


def pixart_layers(c: ConfigReader, s: dict, tokens: int) -> tuple[list, int]:
    """PixArt's layers over the patches with ``tokens`` caption tokens; (layers, caption width)."""
    d = s["d"]
    extra = c.raw("use_additional_conditions")
    if extra is None:
        extra = s["sample"] == 128  # diffusers' rule: the 1024-px models use the size conditions
    caption = c.size("caption_channels", allow_none=True)
    context = c.size("cross_attention_dim", allow_none=True)
    c.require("num_embeds_ada_norm", lambda v: v is not None, "diffusers needs it for ada_norm_single")
    layers: list = time_embedding(256, d, name="timestep_embedder")
    if extra:
        for name, positions in (("resolution_embedder", 2), ("aspect_ratio_embedder", 1)):  # TimestepEmbeddings
            layers += time_embedding(256, d // 3, positions=positions, name=name)
    # the modulation is made here and read inside each block: the latent before the patch embedding needs no gradient
    layers.append(ConditioningDense(in_features=d, units=6 * d, input_grad=True, joins_flow=False,
                                    name="adaln_single linear"))
    width = context
    if caption is not None:
        layers += [ConditioningDense(in_features=caption, units=d, positions=tokens, joins_flow=False,
                                     name="caption_projection 1"),
                   ConditioningDense(in_features=d, units=d, positions=tokens, input_grad=True,
                                     joins_flow=False, name="caption_projection 2")]
        width = d
    layers += _patch_embed(s)
    for _ in range(s["layers"]):
        layers += [LearnedValues(count=6 * d, name="scale_shift_table"),
                   Residual(body=[LayerNorm(affine=s["affine"]),
                                  *self_attention(d, s["heads"], s["head"], qkv_bias=s["bias"])], name="attn1")]
        if context is not None:  # no norm before it (ada_norm_single); its output adds into the stream
            layers.append(Residual(body=cross_attention(d, s["heads"], s["head"], width, tokens, qkv_bias=s["bias"],
                                                        context_trains=caption is not None), name="attn2"))
        layers.append(Residual(body=[LayerNorm(affine=s["affine"]),
                                     *feed_forward(d, 4 * d, s["act"], gated=s["act"] in GATED)], name="ff"))
    layers += [LearnedValues(count=2 * d, name="scale_shift_table"), LayerNorm(affine=False, name="norm_out"),
               Dense(units=s["patch"] ** 2 * (s["out"] or s["in"]), name="proj_out")]
    return layers, width


def dit_layers(c: ConfigReader, s: dict) -> list:
    """DiT's layers over the patches (class-conditional)."""
    d = s["d"]
    classes = c.size("num_embeds_ada_norm")
    if "cross_attention_dim" in c.defaults:
        c.require("cross_attention_dim", lambda v: v is None, "a DiT block with cross-attention is not counted")
    c.neutral("caption_channels", "use_additional_conditions", "interpolation_scale")
    emb = [*time_embedding(256, d, name="norm1 timestep_embedder"),
           LearnedValues(count=(classes + 1) * d, name="norm1 class_embedder (+1 for guidance)")]
    layers: list = _patch_embed(s)
    for _ in range(s["layers"]):
        layers += [*emb, ConditioningDense(in_features=d, units=6 * d, input_grad=True, name="norm1 linear"),
                   Residual(body=[LayerNorm(affine=False),
                                  *self_attention(d, s["heads"], s["head"], qkv_bias=s["bias"])], name="attn1"),
                   Residual(body=[LayerNorm(affine=s["affine"]),
                                  *feed_forward(d, 4 * d, s["act"], gated=s["act"] in GATED)], name="ff")]
    layers += [ConditioningDense(in_features=256, units=d, reused=True, joins_flow=False,
                                 name="block 0's timestep_embedder again"),
               ConditioningDense(in_features=d, units=d, reused=True, input_grad=True,
                                 joins_flow=False, name="block 0's timestep_embedder again"),
               ConditioningDense(in_features=d, units=2 * d, input_grad=True, name="proj_out_1"),
               LayerNorm(affine=False, name="norm_out"),
               Dense(units=s["patch"] ** 2 * (s["out"] or s["in"]), name="proj_out_2")]
    return layers


@reader("PixArtTransformer2DModel", "DiTTransformer2DModel", "Transformer2DModel",
        family="DiT / PixArt (diffusion transformer)")
def read_dit(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    cls = data["_class_name"]
    if cls == "Transformer2DModel":  # diffusers builds the class its norm names, with that class's defaults
        cls = REMAPPED.get(data.get("norm_type"), cls)
    c = ConfigReader(data, cls, source)
    if cls == "Transformer2DModel" and c.raw("patch_size") is None:
        raise c.error("patch_size", "a Transformer2DModel without a patch size (a U-Net's spatial transformer) is "
                                    "counted inside its U-Net, not alone")
    s = _sizes(c)
    norm = c.choice("norm_type", ("ada_norm_single", "ada_norm_zero"))
    c.neutral("norm_eps", "interpolation_scale", "upcast_attention", "dropout")
    size = inputs.image_size or (s["sample"] * VAE_FACTOR,) * 2
    divisible(size, VAE_FACTOR * s["patch"], f"the VAE's factor {VAE_FACTOR} × the patch {s['patch']}")
    if inputs.frames not in (None, 1):
        raise InputError("frames", "an image transformer takes one frame")
    pixart = norm == "ada_norm_single"
    tokens = (PIXART_TEXT_TOKENS if inputs.text_tokens is None else inputs.text_tokens) if pixart else 0
    if pixart and tokens < 1:
        raise InputError("text_tokens", "PixArt's cross-attention needs at least one caption token")
    if not pixart and inputs.text_tokens:
        raise InputError("text_tokens", "DiT is class-conditional: it reads no text")
    if not pixart and size[0] != size[1]:
        raise InputError("image_size", f"{size[0]}x{size[1]}: DiT takes a square image (diffusers' DiT unpatchifies "
                                       "its output as a square grid)")
    layers = pixart_layers(c, s, tokens)[0] if pixart else dit_layers(c, s)
    unused = c.finish()
    latent = (size[0] // VAE_FACTOR, size[1] // VAE_FACTOR)
    stage = StageBuilder("denoiser")
    stage.add("denoiser", layers)
    patches = latent[0] // s["patch"] * (latent[1] // s["patch"])
    inputs_used = {"image_size": f"{size[0]}x{size[1]}", "latent": list(latent), "patches": patches}
    if pixart:
        inputs_used["text_tokens"] = tokens
    notes = (f"one denoiser pass over {patches} patches of a {latent[0]}x{latent[1]} latent",)
    return ReadModel("pixart" if pixart else "dit", cls, (stage.build([latent[0], latent[1], s["in"]]),), inputs_used,
                     None, notes, tuple(unused))
