"""Video diffusion transformers over a latent video (the VAE compresses F frames to F' = (F − 1)/4 + 1 latent frames
and each side 8×): CogVideoX (``CogVideoXTransformer3DModel``) and Wan 2.1 (``WanTransformer3DModel``), read from their
``transformer/config.json``.

Symbols: d = H·Q, N video tokens (latent frames × patches), M text tokens, T the time embedding's width.

CogVideoX: each latent frame patched (p×p convolution, or for CogVideoX 1.5 p_t frames at once by a linear), the
T5 tokens projected 4096 → d join them; the timestep's MLP d → T → T; each block: CogVideoXLayerNormZero (T → 6d,
a LayerNorm with γ, β) around the attention over all N + M tokens with one set of weights (q, k, v, out; per-head
LayerNorms of q and k) and around the feed-forward d → 4d → d (tanh GELU) on all tokens; then a final LayerNorm,
adaLN (T → 2d) and a projection to p²(·p_t)·C_out.

Wan 2.1: a p_t×p×p 3-D convolution patch embedding (1×2×2); the timestep's MLP 256 → d → d and its projection
d → 6d, the umT5 tokens projected 4096 → d → d; each block: a learned 6d modulation table, self-attention (biased
q, k, v, out; RMS norms of q and k across the heads), cross-attention to the M text tokens (a LayerNorm with γ, β
before it; q from the video, k and v from the text, RMS norms across the heads), and a feed-forward d → F → d
(tanh GELU); then a 2d table and a projection to p_t·p²·C_out.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Each, Residual
from ..method1.layers import Conv2d, Conv3d, Dense, LayerNorm
from ..method1.media import (
    ConditioningDense,
    ContextTokens,
    LearnedValues,
    SequenceSlice,
)
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

SPATIAL, TEMPORAL = 8, 4
"""The video VAEs' compression: 8 pixels per latent position on each side, 4 frames per latent frame (after the
first)."""
WAN_TEXT_TOKENS = 512


COGVIDEOX15_SIZE = (768, 1360)
"""CogVideoX 1.5's standard video size (THUDM/CogVideoX1.5-5B's model card: 1360 × 768)."""


def latent_frames(frames: int) -> int:
    """F' = (F − 1)/4 + 1; F must be 1 more than a multiple of 4 (the pipelines' rule)."""
    if (frames - 1) % TEMPORAL:
        raise InputError("frames", f"{frames:,} frames: these video models take 4k + 1 frames (their VAE keeps the "
                                   "first frame and compresses every 4 after it), e.g. 49 or 81")
    return (frames - 1) // TEMPORAL + 1


def _size(inputs: MediaInputs, standard: tuple[int, int], by: int, what: str) -> tuple[int, int]:
    size = inputs.image_size or standard
    divisible(size, by, what)
    return size


@reader("CogVideoXTransformer3DModel", family="CogVideoX (video diffusion transformer)")
def read_cogvideox(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "CogVideoXTransformer3DModel", source)
    heads, head = c.size("num_attention_heads"), c.size("attention_head_dim")
    d = heads * head
    layers, c_in = c.size("num_layers"), c.size("in_channels")
    c_out = c.size("out_channels", allow_none=True) or c_in
    time, text = c.size("time_embed_dim"), c.size("text_embed_dim")
    p, p_t = c.size("patch_size"), c.size("patch_size_t", allow_none=True)
    rotary = c.flag("use_rotary_positional_embeddings")
    c.require("use_learned_positional_embeddings", lambda v: not v, "learned position tables (the image-to-video "
                                                                   "model) are not counted")
    c.require("ofs_embed_dim", lambda v: v is None, "the image-to-video model's ofs embedding is not counted")
    act = c.choice("activation_fn", tuple(ACTIVATIONS))
    c.choice("timestep_activation_fn", tuple(ACTIVATIONS))
    bias, patch_bias = c.flag("attention_bias"), c.flag("patch_bias")
    affine = c.flag("norm_elementwise_affine")
    max_text = c.size("max_text_seq_length")
    standard = (c.size("sample_height") * SPATIAL, c.size("sample_width") * SPATIAL)
    if p_t:  # CogVideoX 1.5's sample size (300 × 8 = 2,400 px square) is not a size it is used at:
        standard = COGVIDEOX15_SIZE  # the model card's 768 × 1360
    frames_default = c.size("sample_frames")
    c.require("temporal_compression_ratio", lambda v: v == TEMPORAL, f"the video VAE compresses time {TEMPORAL}×")
    unused = c.finish()
    size = _size(inputs, standard, SPATIAL * p, f"the VAE's factor {SPATIAL} × the patch {p}")
    frames = inputs.frames or frames_default
    f_latent = latent_frames(frames)
    padded = ""
    if p_t and f_latent % p_t:  # CogVideoXPipeline pads the latent frames to a multiple of the temporal patch
        padded = f" ({f_latent} padded to {f_latent + p_t - f_latent % p_t}, as CogVideoXPipeline pads them)"
        f_latent += p_t - f_latent % p_t
    m = max_text if inputs.text_tokens is None else inputs.text_tokens
    if m < 1 or (not rotary and m != max_text):
        raise InputError("text_tokens", f"{m}: this CogVideoX adds a position table of {max_text} text positions, so "
                                        f"its text is always {max_text} tokens" if not rotary else
                         "the attention needs at least one text token")
    h, w = size[0] // SPATIAL, size[1] // SPATIAL
    per_frame = (h // p) * (w // p)
    n = per_frame * (f_latent // (p_t or 1))
    out: list = [ConditioningDense(in_features=d, units=time, joins_flow=False, name="time_embedding linear_1"),
                 ConditioningDense(in_features=time, units=time, input_grad=True, joins_flow=False,
                                   name="time_embedding linear_2")]
    if p_t:  # CogVideoX 1.5: p_t × p × p latent values per token, by a linear (biased whatever patch_bias says)
        out += [Dense(units=d, name="patch embedding")]
        shape, seq = [p_t * p * p * c_in], n
    else:
        out.append(Each(count=f_latent, name="each latent frame",  # one convolution per frame, its patches joined
                        layers=[Conv2d(filters=d, kernel_size=p, stride=p, bias=patch_bias, name="patch embedding"),
                                ToTokens()]))
        shape, seq = [h, w, c_in], None
    out.append(ContextTokens(tokens=m, in_features=text, name="text_proj"))
    qk = "layer_norm"
    for _ in range(layers):
        out += [ConditioningDense(in_features=time, units=6 * d, input_grad=True, name="norm1 linear"),
                Residual(body=[LayerNorm(affine=affine),
                               *self_attention(d, heads, head, qkv_bias=bias, qk_norm=qk)], name="attn1"),
                ConditioningDense(in_features=time, units=6 * d, input_grad=True, name="norm2 linear"),
                Residual(body=[LayerNorm(affine=affine), *feed_forward(d, 4 * d, act, gated=act in GATED)], name="ff")]
    out += [SequenceSlice(length=n, name="video tokens (the text tokens are left)"),
            LayerNorm(affine=affine, name="norm_final"),
            ConditioningDense(in_features=time, units=2 * d, input_grad=True, name="norm_out linear"),
            LayerNorm(affine=affine, name="norm_out"),
            Dense(units=p * p * (p_t or 1) * c_out, name="proj_out")]
    stage = StageBuilder("denoiser")
    stage.add("denoiser", out)
    return ReadModel("cogvideox", "CogVideoXTransformer3DModel", (stage.build(shape, seq),),
                     {"image_size": f"{size[0]}x{size[1]}", "frames": frames, "latent": [f_latent, h, w],
                      "video_tokens": n, "text_tokens": m}, None,
                     (f"one denoiser pass over {n} video tokens ({f_latent} latent frames{padded} of {per_frame} "
                      "patches) and "
                      f"{m} text tokens",), tuple(unused))


@reader("WanTransformer3DModel", family="Wan 2.1 (video diffusion transformer)")
def read_wan(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "WanTransformer3DModel", source)
    heads, head = c.size("num_attention_heads"), c.size("attention_head_dim")
    d = heads * head
    layers, c_in, c_out = c.size("num_layers"), c.size("in_channels"), c.size("out_channels")
    patch = c.raw("patch_size")
    if not isinstance(patch, list) or len(patch) != 3:
        raise c.error("patch_size", "expected [p_t, p_h, p_w]")
    p_t, p_h, p_w = (c.size(f"patch_size[{i}]", v) for i, v in enumerate(patch))
    ffn, freq, text = c.size("ffn_dim"), c.size("freq_dim"), c.size("text_dim")
    c.choice("qk_norm", ("rms_norm_across_heads",))
    cross_norm = c.flag("cross_attn_norm")
    c.require("added_kv_proj_dim", lambda v: v is None, "the image-to-video model's image tokens are not counted")
    c.require("image_dim", lambda v: v is None, "the image-to-video model's image embedding is not counted")
    c.neutral("pos_embed_seq_len")
    unused = c.finish()
    size = _size(inputs, (480, 832), SPATIAL * max(p_h, p_w), f"the VAE's factor {SPATIAL} × the patch")
    frames = inputs.frames or 81
    f_latent = latent_frames(frames)
    if f_latent % p_t:
        raise InputError("frames", f"{frames} frames make {f_latent} latent frames, not a multiple of the patch {p_t}")
    m = WAN_TEXT_TOKENS if inputs.text_tokens is None else inputs.text_tokens
    if m < 1:
        raise InputError("text_tokens", "the cross-attention needs at least one text token")
    h, w = size[0] // SPATIAL, size[1] // SPATIAL
    n = (f_latent // p_t) * (h // p_h) * (w // p_w)
    out: list = [*time_embedding(freq, d, name="time_embedder"),
                 ConditioningDense(in_features=d, units=6 * d, input_grad=True, joins_flow=False,
                                   name="time_proj"),  # read inside each block: no gradient into the latent
                 ConditioningDense(in_features=text, units=d, positions=m, joins_flow=False,
                                   name="text_embedder linear_1"),
                 ConditioningDense(in_features=d, units=d, positions=m, input_grad=True,
                                   joins_flow=False, name="text_embedder linear_2"),
                 Conv3d(filters=d, kernel_size=[p_t, p_h, p_w], stride=[p_t, p_h, p_w], name="patch_embedding"),
                 ToTokens()]
    norm = "rms_norm"
    for _ in range(layers):
        cross = cross_attention(d, heads, head, d, m, qkv_bias=True, qk_norm=norm, qk_norm_width="all",
                                context_trains=True)  # the text_embedder's output
        out += [LearnedValues(count=6 * d, name="scale_shift_table"),
                Residual(body=[LayerNorm(affine=False),
                               *self_attention(d, heads, head, qkv_bias=True, qk_norm=norm, qk_norm_width="all")],
                         name="attn1"),
                Residual(body=[LayerNorm(), *cross] if cross_norm else cross, name="attn2"),
                Residual(body=[LayerNorm(affine=False), *feed_forward(d, ffn, "gelu-approximate", gated=False)],
                         name="ffn")]
    out += [LearnedValues(count=2 * d, name="scale_shift_table"), LayerNorm(affine=False, name="norm_out"),
            Dense(units=c_out * p_t * p_h * p_w, name="proj_out")]
    stage = StageBuilder("denoiser")
    stage.add("denoiser", out)
    return ReadModel("wan", "WanTransformer3DModel", (stage.build([f_latent, h, w, c_in]),),
                     {"image_size": f"{size[0]}x{size[1]}", "frames": frames, "latent": [f_latent, h, w],
                      "video_tokens": n, "text_tokens": m}, None,
                     (f"one denoiser pass over {n} video tokens and {m} text tokens",), tuple(unused))
