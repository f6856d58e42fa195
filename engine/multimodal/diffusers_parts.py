"""The pieces diffusers' models are made of, as method-1 layers: attention (self and cross), feed-forward networks,
the ResNet block, the patch embedding, adaLN's modulation. Each returns layers in the order diffusers runs them;
the family readers (``unet.py``, ``dit.py``, ``mmdit.py``…) put them together.

Symbols: d the width of the flow, H heads of size Q (inner width H·Q), C and M the context's width and positions,
F the feed-forward's inner width, T the width of the conditioning vector (the time embedding).
"""
from __future__ import annotations

from ..method1.blocks import Branches, Residual
from ..method1.layers import Activation, Conv2d, Conv3d, Dense, LayerNorm
from ..method1.media import AttentionCore, ConditioningDense, GatedUnit, GroupNorm
from ..method1.transformer import RMSNorm

ACTIVATIONS = {"silu": "silu", "swish": "silu", "gelu": "gelu", "gelu-approximate": "gelu", "geglu": "gelu",
               "geglu-approximate": "gelu", "gelu_tanh": "gelu", "relu": "relu", "mish": "silu",
               "linear-silu": "silu", "swiglu": "silu"}
"""diffusers' activation names → the Activation kind's (tanh approximations count as GELU; Mish as SiLU: the same
matmul count, a close full one)."""


def self_attention(d: int, heads: int, head_size: int, *, qkv_bias: bool = False, out_bias: bool = True,
                   out: int | None = None, qk_norm: str = "none", qk_norm_width: str = "head",
                   qk_norm_bias: bool = True, segments=None, kv_heads: int | None = None, name: str = "attn",
                   output: bool = True) -> list:
    """q, k, v (d → H·Q each, one fused row), the attention product, the output projection H·Q → ``out`` (d)."""
    layers = [Dense(units=(heads + 2 * (kv_heads or heads)) * head_size, bias=qkv_bias, name=f"{name} q, k, v"),
              AttentionCore(heads=heads, head_size=head_size, kv_heads=kv_heads, segments=segments, qk_norm=qk_norm,
                            qk_norm_width=qk_norm_width, qk_norm_bias=qk_norm_bias, name=name)]
    if output:
        layers.append(Dense(units=out or d, bias=out_bias, name=f"{name} out"))
    return layers


def cross_attention(d: int, heads: int, head_size: int, context_width: int, context_length: int, *,
                    qkv_bias: bool = False, out_bias: bool = True, qk_norm: str = "none",
                    qk_norm_width: str = "head", context_grad: bool = True, context_trains: bool = False,
                    name: str = "cross-attn") -> list:
    """q (d → H·Q), k and v from the M context positions (C → H·Q each, one row), the product, the output.
    ``context_trains``: the context is made by a layer of the model that trains (Kolors' ``encoder_hid_proj``), so
    in training k and v also compute their input gradient into it."""
    inner = heads * head_size
    return [Dense(units=inner, bias=qkv_bias, name=f"{name} q"),
            ConditioningDense(in_features=context_width, units=2 * inner, bias=qkv_bias, positions=context_length,
                              joins_flow=False, input_grad=context_trains, name=f"{name} k, v (context)"),
            AttentionCore(heads=heads, head_size=head_size, context_length=context_length, context_grad=context_grad,
                          qk_norm=qk_norm, qk_norm_width=qk_norm_width, name=name),
            Dense(units=d, bias=out_bias, name=f"{name} out")]


GATED = frozenset({"geglu", "swiglu"})
"""diffusers' ``FeedForward`` activations that project d → 2F and gate (GEGLU, SwiGLU; "geglu-approximate" is
diffusers' ApproximateGELU, a plain d → F)."""


def feed_forward(d: int, inner: int, activation: str, *, gated: bool, bias: bool = True, out: int | None = None,
                 name: str = "ff") -> list:
    """Up d → F (gated: d → 2F, then act(gate)·up), the activation, down F → d."""
    act = ACTIVATIONS[activation]
    if gated:
        return [Dense(units=2 * inner, bias=bias, name=f"{name} proj"), GatedUnit(activation=act, name=name),
                Dense(units=out or d, bias=bias, name=f"{name} out")]
    return [Dense(units=inner, bias=bias, name=f"{name} up"), Activation(function=act),
            Dense(units=out or d, bias=bias, name=f"{name} down")]


def norm(kind: str, *, affine: bool = True, bias: bool = True, name: str = ""):
    """A LayerNorm (γ, β; or none) or an RMSNorm over the width."""
    if kind == "rms_norm":
        return RMSNorm(affine=affine, name=name)
    return LayerNorm(affine=affine, bias=bias, name=name)


def conv(filters: int, kernel: int, *, stride: int = 1, padding: int = 0, frames: int | None = None, name: str = ""):
    """A K×K convolution of an image [H, W, C], or of each frame of a video [F, H, W, C] (``frames``: a 1×K×K 3-D
    convolution, the same products)."""
    if frames is None:
        return Conv2d(filters=filters, kernel_size=kernel, stride=stride, padding=padding, name=name)
    return Conv3d(filters=filters, kernel_size=[1, kernel, kernel], stride=[1, stride, stride],
                  padding=[0, padding, padding], name=name)


def resnet(c_in: int, c_out: int, time_width: int | None, groups: int, activation: str = "silu", *,
           scale_shift: bool = False, groups_out: int | None = None, frames: int | None = None,
           name: str = "resnet") -> Residual:
    """diffusers' ``ResnetBlock2D``: GroupNorm, act, conv 3×3 (C_in → C_out), + the time embedding's projection
    (T → C_out, or 2·C_out for scale and shift), GroupNorm, act, conv 3×3; a 1×1 convolution on the shortcut when
    C_in ≠ C_out. ``frames``: on each frame of a video (the time embedding repeated per frame, projected F times)."""
    act = ACTIVATIONS[activation]
    body = [GroupNorm(groups=groups), Activation(function=act),
            conv(c_out, 3, padding=1, frames=frames, name="conv1")]
    if time_width:
        body.append(ConditioningDense(in_features=time_width, units=2 * c_out if scale_shift else c_out,
                                      positions=frames or 1, input_grad=True, name="time_emb_proj"))
    body += [GroupNorm(groups=groups_out or groups), Activation(function=act),
             conv(c_out, 3, padding=1, frames=frames, name="conv2")]
    shortcut = [conv(c_out, 1, frames=frames, name="conv_shortcut")] if c_in != c_out else []
    return Residual(body=body, shortcut=shortcut, name=name)


def time_embedding(in_width: int, width: int, *, out: int | None = None, positions: int = 1,
                   name: str = "time_embedding") -> list:
    """``TimestepEmbedding``: linear_1 (sinusoid of ``in_width`` → T), act, linear_2 (T → T, or ``out``), on
    ``positions`` sinusoids (PixArt's resolution embedder: 2); the sinusoid has no parameters."""
    return [ConditioningDense(in_features=in_width, units=width, positions=positions, joins_flow=False,
                              name=f"{name} linear_1"),
            ConditioningDense(in_features=width, units=out or width, positions=positions, input_grad=True,
                              joins_flow=False, name=f"{name} linear_2")]


def modulation(width: int, units: int, *, bias: bool = True, input_grad: bool = True, name: str = "adaLN") -> list:
    """adaLN's scale, shift (and gate) from the conditioning vector: act, linear T → k·d."""
    return [ConditioningDense(in_features=width, units=units, bias=bias, input_grad=input_grad, name=name)]


PUSH, POP = "push", "pop"
"""Markers in a flat list of layers: keep the flow here as a skip; concatenate the last kept skip (U-Nets,
HunyuanDiT)."""


def nest(ops: list) -> list:
    """A flat list of layers with PUSH (keep a skip here) and POP (concatenate the last kept skip) → layers with
    each skip as ``branches``: [everything between] ‖ [identity], joined along the channels."""
    out, i = [], 0
    while i < len(ops):
        if ops[i] is PUSH:
            depth, j = 0, i + 1
            while ops[j] is not POP or depth:  # the matching POP
                depth += 1 if ops[j] is PUSH else -1 if ops[j] is POP else 0
                j += 1
            out.append(Branches(branches=[nest(ops[i + 1:j]), []], merge="concat", name="skip"))
            i = j + 1
        else:
            out.append(ops[i])
            i += 1
    return out
