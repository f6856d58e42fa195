"""Joint-attention diffusion transformers, where the text tokens travel with the image tokens through every block:
Stable Diffusion 3 / 3.5 (MMDiT, Esser et al. 2024; ``SD3Transformer2DModel``) and FLUX.1 (``FluxTransformer2DModel``,
schnell and dev), read from their ``transformer/config.json``.

Symbols: d = H·Q the width, N image tokens (latent patches), M text tokens (the conditioning length), P the pooled
text vector's width.

SD3: a patch embedding (p×p convolution, C_in → d) over the latent (the image / 8); the timestep's MLP (256 → d → d)
plus the pooled text's (P → d → d); the text tokens projected 4096 → d (``context_embedder``) join the image tokens.
Each block: adaLN linears d → 6d for each stream (the last block's text stream d → 2d; SD3.5's dual-attention
blocks d → 9d), joint attention (q, k, v and out with weights per stream, all N + M tokens attending to each
other; SD3.5: per-head RMS norms of q and k), SD3.5's second self-attention over the image tokens alone, and a
feed-forward d → 4d → d per stream (tanh GELU). The last block keeps only the image tokens after its attention.
Output: adaLN d → 2d, a projection to p²·C_out per patch.

FLUX.1: the packed latent (2×2 latent patches, 64 channels per token: the image / 16 per side) projected → d; the
timestep's MLP, dev's guidance MLP (256 → d → d) and the pooled CLIP text's; the T5 tokens projected 4096 → d join.
Double-stream blocks as SD3's (per-head RMS norms, biased projections), then single-stream blocks over the joint
sequence: adaLN d → 3d, q, k, v (d → 3d) and an MLP (d → 4d) side by side from the same normed input, their
outputs concatenated and projected 5d → d. Output as SD3's.
"""
from __future__ import annotations

from engine.errors import InputError
from engine.method1.blocks import Branches, Residual
from engine.method1.layers import Activation, Conv2d, Dense, LayerNorm
from engine.method1.media import (
    AttentionCore,
    ConditioningDense,
    ContextTokens,
    SequenceSlice,
    StreamDense,
)
from engine.method1.vision import ToTokens
from engine.multimodal.config_reader import ConfigReader
from engine.multimodal.diffusers_parts import self_attention, time_embedding
from engine.multimodal.inputs import MediaInputs, divisible
from engine.multimodal.model import ReadModel, StageBuilder
from engine.multimodal.registry import reader

VAE_FACTOR = 8
SD3_TEXT_TOKENS = 77 + 256
"""SD3's conditioning: CLIP-L and CLIP-G's 77 tokens (side by side in the channels, padded to 4096) followed by
T5's 256 (its pipeline's max_sequence_length)."""
FLUX_TEXT_TOKENS = {True: 512, False: 256}
"""FLUX.1's T5 tokens: dev (guidance embeddings) 512, schnell 256 (the pipelines' max_sequence_length)."""


def joint_attention(d: int, heads: int, head: int, streams: list[int], qk_norm: str, last: bool) -> Residual:
    """Joint attention over the image and text streams: q, k, v and out per stream; ``last``: only the image tokens
    leave it (SD3's final block drops the text stream after its attention)."""
    n = streams[0]
    core = AttentionCore(heads=heads, head_size=head, qk_norm=qk_norm, norm_sets=2, name="joint attention")
    body = [LayerNorm(affine=False), StreamDense(units=3 * heads * head, streams=streams, name="attn q, k, v"), core]
    if last:
        body += [SequenceSlice(length=n, name="image tokens"), Dense(units=d, name="attn to_out")]
        return Residual(body=body, shortcut=[SequenceSlice(length=n, name="image tokens")], name="joint attention")
    body.append(StreamDense(units=d, streams=streams, name="attn to_out, to_add_out"))
    return Residual(body=body, name="joint attention")


def stream_feed_forward(d: int, streams: list[int] | None) -> Residual:
    """A feed-forward d → 4d → d (tanh GELU) per stream (one stream: ``streams`` None)."""
    if streams is None:
        body = [LayerNorm(affine=False), Dense(units=4 * d, name="ff up"), Activation(function="gelu"),
                Dense(units=d, name="ff down")]
    else:
        body = [LayerNorm(affine=False), StreamDense(units=4 * d, streams=streams, name="ff, ff_context up"),
                Activation(function="gelu"), StreamDense(units=d, streams=streams, name="ff, ff_context down")]
    return Residual(body=body, name="feed-forward")


def image_only(n: int, m: int, layers: list) -> Branches:
    """``layers`` on the first n (image) tokens of the joint sequence, the m text tokens passing."""
    return Branches(branches=[[SequenceSlice(length=n, name="image tokens"), *layers],
                              [SequenceSlice(start=n, length=m, name="text tokens")]], merge="concat", axis="sequence")


def _tokens(inputs: MediaInputs, default: int) -> int:
    tokens = default if inputs.text_tokens is None else inputs.text_tokens
    if tokens < 1:
        raise InputError("text_tokens", "the joint attention needs at least one text token")
    return tokens


@reader("SD3Transformer2DModel", family="Stable Diffusion 3 / 3.5 (MMDiT)")
def read_sd3(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "SD3Transformer2DModel", source)
    heads, head, layers = c.size("num_attention_heads"), c.size("attention_head_dim"), c.size("num_layers")
    d = heads * head
    patch, c_in = c.size("patch_size"), c.size("in_channels")
    c_out = c.size("out_channels", allow_none=True) or c_in
    caption = c.size("caption_projection_dim")
    if caption != d:
        raise c.error("caption_projection_dim", f"{caption} is not the width H·Q = {d} (the joint attention reads "
                                                "the text tokens at the image's width)")
    qk_norm = c.choice("qk_norm", (None, "rms_norm"))
    dual = c.raw("dual_attention_layers") or []
    if not isinstance(dual, list) or not all(isinstance(i, int) and 0 <= i < layers for i in dual):
        raise c.error("dual_attention_layers", f"expected a list of layer numbers below {layers}")
    joint, pooled = c.size("joint_attention_dim"), c.size("pooled_projection_dim")
    max_patches = c.size("pos_embed_max_size", allow_none=True)
    sample = c.size("sample_size")
    unused = c.finish()
    size = inputs.image_size or (sample * VAE_FACTOR,) * 2
    divisible(size, VAE_FACTOR * patch, f"the VAE's factor {VAE_FACTOR} × the patch {patch}")
    grid = (size[0] // VAE_FACTOR // patch, size[1] // VAE_FACTOR // patch)
    if max_patches and max(grid) > max_patches:
        raise InputError("image_size", f"{size[0]}x{size[1]} pixels is {grid[0]}x{grid[1]} patches, more than this "
                                       f"model's position table of {max_patches}x{max_patches}")
    if inputs.frames not in (None, 1):
        raise InputError("frames", "an image transformer takes one frame")
    m = _tokens(inputs, SD3_TEXT_TOKENS)
    n = grid[0] * grid[1]
    norm = "rms_norm" if qk_norm else "none"
    out: list = [*time_embedding(256, d, name="timestep_embedder"),
                 ConditioningDense(in_features=pooled, units=d, joins_flow=False, name="text_embedder linear_1"),
                 ConditioningDense(in_features=d, units=d, input_grad=True, joins_flow=False,
                                   name="text_embedder linear_2"),
                 Conv2d(filters=d, kernel_size=patch, stride=patch, name="patch embedding"), ToTokens(),
                 ContextTokens(tokens=m, in_features=joint, name="context_embedder")]
    for i in range(layers):
        last = i == layers - 1
        out += [ConditioningDense(in_features=d, units=(9 if i in dual else 6) * d, input_grad=True, name="norm1"),
                ConditioningDense(in_features=d, units=(2 if last else 6) * d, input_grad=True, name="norm1_context"),
                joint_attention(d, heads, head, [n, m], norm, last)]
        if i in dual:  # SD3.5: a second attention over the image tokens alone
            attn2 = Residual(body=[LayerNorm(affine=False), *self_attention(d, heads, head, qkv_bias=True,
                                                                            qk_norm=norm, name="attn2")], name="attn2")
            out.append(attn2 if last else image_only(n, m, [attn2]))
        out.append(stream_feed_forward(d, None if last else [n, m]))
    out += [ConditioningDense(in_features=d, units=2 * d, input_grad=True, name="norm_out linear"),
            LayerNorm(affine=False, name="norm_out"), Dense(units=patch * patch * c_out, name="proj_out")]
    stage = StageBuilder("denoiser")
    stage.add("denoiser", out)
    latent = (size[0] // VAE_FACTOR, size[1] // VAE_FACTOR)
    return ReadModel("sd3", "SD3Transformer2DModel", (stage.build([latent[0], latent[1], c_in]),),
                     {"image_size": f"{size[0]}x{size[1]}", "latent": list(latent), "patches": n, "text_tokens": m},
                     None, (f"one denoiser pass over {n} image and {m} text tokens",), tuple(unused))


@reader("FluxTransformer2DModel", family="FLUX.1 (double- and single-stream transformer)")
def read_flux(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "FluxTransformer2DModel", source)
    heads, head = c.size("num_attention_heads"), c.size("attention_head_dim")
    d = heads * head
    double, single = c.size("num_layers", zero=True), c.size("num_single_layers", zero=True)
    c_in = c.size("in_channels")
    c_out = c.size("out_channels", allow_none=True) or c_in
    patch = c.size("patch_size")
    guidance = c.flag("guidance_embeds")
    joint, pooled = c.size("joint_attention_dim"), c.size("pooled_projection_dim")
    unused = c.finish()
    pack = 2  # the pipeline packs 2×2 latent patches into one token
    size = inputs.image_size or (1024, 1024)
    divisible(size, VAE_FACTOR * pack * patch, f"the VAE's factor {VAE_FACTOR} × the 2×2 packing"
                                               + (f" × the patch {patch}" if patch > 1 else ""))
    if inputs.frames not in (None, 1):
        raise InputError("frames", "an image transformer takes one frame")
    m = _tokens(inputs, FLUX_TEXT_TOKENS[guidance])
    grid = (size[0] // (VAE_FACTOR * pack * patch), size[1] // (VAE_FACTOR * pack * patch))
    n = grid[0] * grid[1]
    out: list = time_embedding(256, d, name="timestep_embedder")
    if guidance:
        out += time_embedding(256, d, name="guidance_embedder")
    out += [ConditioningDense(in_features=pooled, units=d, joins_flow=False, name="text_embedder linear_1"),
            ConditioningDense(in_features=d, units=d, input_grad=True, joins_flow=False, name="text_embedder linear_2"),
            Dense(units=d, name="x_embedder"), ContextTokens(tokens=m, in_features=joint, name="context_embedder")]
    for _ in range(double):
        out += [ConditioningDense(in_features=d, units=6 * d, input_grad=True, name="norm1"),
                ConditioningDense(in_features=d, units=6 * d, input_grad=True, name="norm1_context"),
                joint_attention(d, heads, head, [n, m], "rms_norm", False), stream_feed_forward(d, [n, m])]
    for _ in range(single):
        out += [ConditioningDense(in_features=d, units=3 * d, input_grad=True, name="norm (adaLN single)"),
                Residual(body=[LayerNorm(affine=False),
                               Branches(branches=[[Dense(units=3 * d, name="attn q, k, v"),
                                                   AttentionCore(heads=heads, head_size=head, qk_norm="rms_norm",
                                                                 name="attention")],
                                                  [Dense(units=4 * d, name="proj_mlp"), Activation(function="gelu")]],
                                        merge="concat"),
                               Dense(units=d, name="proj_out")], name="single-stream block")]
    out += [SequenceSlice(length=n, name="image tokens"),  # the flow holds the image tokens first
            ConditioningDense(in_features=d, units=2 * d, input_grad=True, name="norm_out linear"),
            LayerNorm(affine=False, name="norm_out"), Dense(units=patch * patch * c_out, name="proj_out")]
    stage = StageBuilder("denoiser")
    stage.add("denoiser", out)
    return ReadModel("flux", "FluxTransformer2DModel", (stage.build([c_in], n),),
                     {"image_size": f"{size[0]}x{size[1]}", "image_tokens": n, "text_tokens": m}, None,
                     (f"one denoiser pass over {n} packed latent tokens ({grid[0]}x{grid[1]}) and {m} text tokens",),
                     tuple(unused))
