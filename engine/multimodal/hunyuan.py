"""HunyuanDiT (``HunyuanDiT2DModel``), read from its ``transformer/config.json``: a diffusion transformer with long
skips between its first and second halves, cross-attending to two text encoders' tokens.

Symbols: d = H·Q, M = M_c + M_t text tokens (the bilingual CLIP's 77 and mT5's 256, each padded to its length by
the pipeline), C the cross-attention width (1024), C_t mT5's width (2048).

Conditioning: mT5's tokens projected C_t → 4C_t → C (over its M_t tokens), a learned padding table of M × C; the
timestep's MLP 256 → d → d; an attention pool over mT5's tokens (their mean and the M_t tokens with a learned position
table: one query C_t → C_t, keys and values C_t → C_t over M_t + 1 tokens, 8 heads, out C_t → 1024); with the
style and size conditions a style table (d) and the six size sinusoids; all projected (1024 [+ 1536 + d]) → 4d → d.
Patches: a p×p convolution C_in → d. Blocks: adaLN shift (d → d) and a LayerNorm with γ, β; self-attention
(biased q, k, v, out; per-head LayerNorms of q and k); a LayerNorm, cross-attention to the M text tokens (k, v
from C); a LayerNorm and a feed-forward d → F → d (tanh GELU); the blocks after the middle first join the output of
their mirror block from the first half (concatenated 2d, a LayerNorm, a linear 2d → d). Output: adaLN d → 2d, a
projection to p²·C_out.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Residual
from ..method1.layers import Conv2d, Dense, LayerNorm
from ..method1.media import (
    AttentionCore,
    ConditioningDense,
    LearnedValues,
    SequenceSlice,
)
from ..method1.vision import ToTokens
from .config_reader import ConfigReader
from .diffusers_parts import (
    ACTIVATIONS,
    GATED,
    POP,
    PUSH,
    cross_attention,
    feed_forward,
    nest,
    self_attention,
    time_embedding,
)
from .inputs import MediaInputs, divisible
from .model import ReadModel, StageBuilder
from .registry import reader

VAE_FACTOR = 8
POOL_HEADS = 8


@reader("HunyuanDiT2DModel", family="HunyuanDiT (diffusion transformer with long skips)")
def read_hunyuan_dit(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "HunyuanDiT2DModel", source)
    heads, head = c.size("num_attention_heads"), c.size("attention_head_dim")
    d = heads * head
    hidden = c.size("hidden_size")
    if hidden != d:
        raise c.error("hidden_size", f"{hidden} is not num_attention_heads × attention_head_dim = {d} (the patch "
                                     "embedding's width must be the blocks')")
    layers, c_in, patch = c.size("num_layers"), c.size("in_channels"), c.size("patch_size")
    if layers % 2 or layers < 4:
        raise c.error("num_layers", f"{layers}: the long skips pair each block after the middle with one before it, "
                                    "which needs an even number of blocks, at least 4 (diffusers fails otherwise)")
    ratio = c.raw("mlp_ratio")
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1000:
        raise c.error("mlp_ratio", "expected a positive number")
    ffn = int(d * ratio)
    c_out = 2 * c_in if c.flag("learn_sigma") else c_in
    act = c.choice("activation_fn", tuple(ACTIVATIONS))
    c.choice("norm_type", ("layer_norm",))
    cross, cross_t5, pooled = c.size("cross_attention_dim"), c.size("cross_attention_dim_t5"), \
        c.size("pooled_projection_dim")
    text_len, text_len_t5 = c.size("text_len"), c.size("text_len_t5")
    extra = c.flag("use_style_cond_and_image_meta_size")
    sample = c.size("sample_size")
    unused = c.finish()
    size = inputs.image_size or (sample * VAE_FACTOR,) * 2
    divisible(size, VAE_FACTOR * patch, f"the VAE's factor {VAE_FACTOR} × the patch {patch}")
    if inputs.frames not in (None, 1):
        raise InputError("frames", "an image transformer takes one frame")
    m = text_len + text_len_t5
    if inputs.text_tokens not in (None, m):
        raise InputError("text_tokens", f"{inputs.text_tokens}: HunyuanDiT's text is always {text_len} + "
                                        f"{text_len_t5} = {m} tokens (the pipeline pads each encoder's tokens to "
                                        "the lengths its padding table and attention pool hold)")
    pool = StageBuilder("text_pool")  # the attention pool over mT5's tokens: a stage of its own (its own input)
    pool.add("denoiser", [LearnedValues(count=(text_len_t5 + 1) * cross_t5, name="pooler positional_embedding"),
                          ConditioningDense(in_features=cross_t5, units=2 * cross_t5, positions=text_len_t5 + 1,
                                            input_grad=True,  # its input adds the trained positional embedding
                                            joins_flow=False, name="pooler k_proj, v_proj"),
                          SequenceSlice(length=1, name="the mean token"),
                          Dense(units=cross_t5, name="pooler q_proj"),
                          AttentionCore(heads=POOL_HEADS, head_size=cross_t5 // POOL_HEADS,
                                        context_length=text_len_t5 + 1, context_grad=True, name="pooler"),
                          Dense(units=pooled, name="pooler c_proj")])
    extra_in = pooled + (6 * 256 + d if extra else 0)
    ops: list = [ConditioningDense(in_features=cross_t5, units=4 * cross_t5, positions=text_len_t5,
                                   joins_flow=False, name="text_embedder linear_1"),
                 ConditioningDense(in_features=4 * cross_t5, units=cross, positions=text_len_t5, input_grad=True,
                                   joins_flow=False, name="text_embedder linear_2"),
                 LearnedValues(count=m * cross, joins_flow=False, name="text_embedding_padding"),
                 *time_embedding(256, d, name="timestep_embedder")]
    if extra:
        ops.append(LearnedValues(count=d, joins_flow=False, name="style_embedder"))
    ops += [ConditioningDense(in_features=extra_in, units=4 * d, input_grad=True, joins_flow=False,
                              name="extra_embedder linear_1"),
            ConditioningDense(in_features=4 * d, units=d, input_grad=True, joins_flow=False,
                              name="extra_embedder linear_2"),
            Conv2d(filters=d, kernel_size=patch, stride=patch, name="patch embedding"), ToTokens()]
    for layer in range(layers):
        if layer > layers // 2:  # the mirror block's output joins: [x, skip] → LayerNorm(2d) → 2d → d
            ops += [POP, LayerNorm(name="skip_norm"), Dense(units=d, name="skip_linear")]
        ops += [ConditioningDense(in_features=d, units=d, input_grad=True, name="norm1 (adaLN shift) linear"),
                Residual(body=[LayerNorm(), *self_attention(d, heads, head, qkv_bias=True, qk_norm="layer_norm")],
                         name="attn1"),
                Residual(body=[LayerNorm(), *cross_attention(d, heads, head, cross, m, qkv_bias=True,
                                                             qk_norm="layer_norm", context_trains=True)],
                         name="attn2"),  # the context holds the text_embedder's output and the trained padding
                Residual(body=[LayerNorm(), *feed_forward(d, ffn, act, gated=act in GATED)], name="ff")]
        if layer < layers // 2 - 1:
            ops.append(PUSH)
    ops += [ConditioningDense(in_features=d, units=2 * d, input_grad=True, name="norm_out linear"),
            LayerNorm(affine=False, name="norm_out"), Dense(units=patch * patch * c_out, name="proj_out")]
    stage = StageBuilder("denoiser")
    stage.add("denoiser", nest(ops))
    latent = (size[0] // VAE_FACTOR, size[1] // VAE_FACTOR)
    n = (latent[0] // patch) * (latent[1] // patch)
    return ReadModel("hunyuan_dit", "HunyuanDiT2DModel",
                     (pool.build([cross_t5], text_len_t5 + 1), stage.build([latent[0], latent[1], c_in])),
                     {"image_size": f"{size[0]}x{size[1]}", "latent": list(latent), "patches": n, "text_tokens": m},
                     None, (f"one denoiser pass over {n} patches with {text_len} CLIP and {text_len_t5} mT5 tokens",),
                     tuple(unused))
