"""Mamba's selective state-space mixer (Gu & Dao 2023) as the rows of a block (``TransformerBlock`` with
``mixer="mamba"``), counted as transformers' ``MambaMixer`` computes it without the CUDA kernels; Mamba-2's
(Dao & Gu 2024, ``mixer="mamba2"``) below, as ``Mamba2Mixer``'s torch path computes it.

Symbols: d model width, L positions, I inner width (expand·d), N state size, K convolution width, R rank of
the time-step projection Δ.

Matmul convention (what ``FlopCounterMode`` sees): in projection d→2I (x and the gate z), the causal
depthwise convolution of width K over I channels, zero-padded by K − 1 on both sides as ``nn.Conv1d``
computes it (I·K·(L + K − 1) multiply-accumulates: the K − 1 extra outputs are computed and dropped),
x projection I→R+2N (Δ, B, C), Δ projection R→I, the read-out y = C·h of the scan (an N-long dot product
per position and channel: I·N multiply-accumulates per position, a matmul), out projection I→d.

The scan's element-wise recurrence is not a matmul, so ``FlopCounterMode`` counts nothing of it; the
``full`` convention counts it: per position and channel, Ā = exp(Δ·A) (2 per state), Δ·B·u (2 per
state), h ← Ā·h + B̄u (2 per state), y + D·u (2), y·SiLU(z) (SiLU + 1): 6·I·N + 2·I + 6·I per position,
plus 2·I·N once for A = −exp(log A); the convolution's bias and SiLU, Δ's bias and softplus (3).
Parameters: A (I×N, stored as its log) and D (I) besides the projections and the convolution; Jamba's mixer
(``ssm_norms``) adds RMS norms with gains on Δ (R), B and C (N each) after the x projection: R + 2N parameters,
no products (full: the norms' 4 FLOP per element).
"""
from __future__ import annotations

from engine.method1.conventions import ACTIVATION_FLOP
from engine.method1.layers import Part
from engine.method1.ops import rms_norm_cost
from engine.method1.transformer_parts import _linear

SOFTPLUS_FLOP = 3
"""softplus(x) = log(1 + exp(x)): exp, add, log."""


def scan_full_flop(length: int, inner: int, state: int) -> int:
    """The selective scan's element-wise FLOP (``full`` convention only): 6·I·N + 2·I + (SiLU + 1)·I per
    position, + 2·I·N once (A = −exp(log A))."""
    silu = ACTIVATION_FLOP["silu"]
    return length * (6 * inner * state + 2 * inner + (silu + 1) * inner) + 2 * inner * state


def mamba(block, d: int, length: int, read: str = "h") -> list[Part]:
    """The mixer's rows, wired as a data flow: ``read`` (the norm's output) → … → added into ``x``."""
    i, n, k, r = block.ssm_inner_size, block.ssm_state_size, block.ssm_conv_kernel, block.ssm_dt_rank
    conv_params = i * k + (i if block.ssm_conv_bias else 0)
    conv_extra = length * i * ((1 if block.ssm_conv_bias else 0) + ACTIVATION_FLOP["silu"])
    norms = []
    if block.ssm_norms:  # Jamba: RMSNorm(R) of Δ, RMSNorm(N) of B and of C, each with a gain
        norms = [Part("mamba Δ, B, C RMS norms", r + 2 * n, 0, sum(rms_norm_cost(length * w, w, True).extra_flop
                                                                   for w in (r, n, n)), None, "none", ("v",), ("v",))]
    return [
        _linear("mamba in projection", d, 2 * i, block.ssm_bias, length, src=(read,), dst=("q",), role="in"),
        Part("mamba causal convolution", conv_params, i * k * (length + k - 1), conv_extra, None, "linear",
             ("q",), ("k",)),
        _linear("mamba x projection (Δ, B, C)", i, r + 2 * n, False, length, src=("k",), dst=("v",), role="x"),
        *norms,
        _linear("mamba Δ projection", r, i, True, length, extra_flop=length * i * SOFTPLUS_FLOP, src=("v",),
                dst=("s",), role="dt"),
        Part("mamba selective scan", i * n + i, length * i * n, scan_full_flop(length, i, n), None, "product",
             ("k", "s", "v"), ("a",)),
        _linear("mamba out projection", i, d, block.ssm_bias, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add
    ]


# ---------------------------------------------------------------- Mamba-2: grouped heads and the chunked SSD scan

def chunks(length: int, chunk: int) -> tuple[int, int]:
    """(L_p, c): the length padded to whole chunks of Q positions, as transformers' chunked scan pads it, and
    the number of chunks."""
    padded = -(-length // chunk) * chunk
    return padded, padded // chunk


def ssd_macs(length: int, heads: int, head_dim: int, state: int, chunk: int) -> tuple[int, int, int, int, int]:
    """The multiply-accumulates of the chunked scan's five products (transformers' ``mamba2_chunk_scan``, which
    repeats B and C from their G groups to the H heads), over the padded length L_p = c·Q:
    C·Bᵀ within each chunk L_p·Q·H·N; those scores × x (the diagonal blocks) L_p·Q·H·P; each chunk's state
    B·x L_p·H·P·N; the states passed from chunk to chunk (c+1)²·H·P·N; the read-out of the passed states
    C·s L_p·H·P·N."""
    padded, count = chunks(length, chunk)
    return (padded * chunk * heads * state, padded * chunk * heads * head_dim, padded * heads * head_dim * state,
            (count + 1) ** 2 * heads * head_dim * state, padded * heads * head_dim * state)


def ssd_full_flop(length: int, heads: int, head_dim: int, state: int, chunk: int) -> int:
    """The chunked scan's element-wise FLOP (``full`` convention only; FlopCounterMode counts none of them), with
    I = H·P: per position, Δ + bias and softplus (4·H), x·Δ (I), A·Δ (H); per padded position, D·x (I), the
    cumulative sum of A·Δ (H), the chunk's segment sums, their exp and the mask product (3·H·Q), the decay to
    the chunk's end (exp of a difference: 2·H), B × that decay (H·N), the decay from the chunk's start (H), the
    read-out × it (I), the two outputs' sum (I), + D·x (I); the inter-chunk segment sums and exp 2·H·(c+1)²;
    A = −exp(log A) once (2·H)."""
    inner = heads * head_dim
    padded, count = chunks(length, chunk)
    return (length * ((1 + SOFTPLUS_FLOP) * heads + inner + heads)
            + padded * (4 * inner + 4 * heads + 3 * heads * chunk + heads * state)
            + 2 * heads * (count + 1) ** 2 + 2 * heads)


def mamba2(block, d: int, length: int, read: str = "h") -> list[Part]:
    """Mamba-2's mixer (transformers' ``Mamba2Mixer`` without the CUDA kernels) as rows: in projection
    d→2I+2GN+H (z, x, B, C, Δ), the causal depthwise convolution over x, B and C (I+2GN channels, + bias, SiLU),
    the chunked scan's five products (``ssd_macs``; Δ's bias, A and D: 3·H parameters), the gated RMS norm over
    G groups (y·SiLU(z), normalised per group, × γ: I parameters; without ``ssm_gated_norm``, y·SiLU(z) alone), out
    projection I→d (``ssm_out_bias`` where it differs from the in projection's; + the residual add)."""
    i, n, k = block.ssm_inner_size, block.ssm_state_size, block.ssm_conv_kernel
    h, g, q = block.ssm_heads, block.ssm_groups, block.ssm_chunk_size
    p = i // h
    channels = i + 2 * g * n
    conv_params = channels * k + (channels if block.ssm_conv_bias else 0)
    conv_extra = length * channels * ((1 if block.ssm_conv_bias else 0) + ACTIVATION_FLOP[block.activation])
    scores, diagonal, states, passing, read_out = ssd_macs(length, h, p, n, q)
    gate = length * i * (ACTIVATION_FLOP["silu"] + 1)
    if block.ssm_gated_norm:
        norm = Part("mamba2 gated RMS norm", i, 0, gate + rms_norm_cost(length * i, i, True).extra_flop, None, "none",
                    ("y", "q"), ("a",))
    else:  # Falcon-H1 without mamba_rms_norm: y·SiLU(z) alone
        norm = Part("mamba2 gate y·SiLU(z)", 0, 0, gate, None, "none", ("y", "q"), ("a",))
    out_bias = block.ssm_bias if block.ssm_out_bias == "same" else block.ssm_out_bias == "bias"
    return [
        _linear("mamba2 in projection (z, x, B, C, Δ)", d, 2 * i + 2 * g * n + h, block.ssm_bias, length, src=(read,),
                dst=("q",), role="in"),
        Part("mamba2 causal convolution", conv_params, channels * k * (length + k - 1), conv_extra, None, "linear",
             ("q",), ("k",)),
        Part("mamba2 scan: C·Bᵀ within chunks", 0, scores, 0, None, "product", ("k", "k"), ("g",)),
        Part("mamba2 scan: diagonal blocks", 3 * h, diagonal, ssd_full_flop(length, h, p, n, q), None, "product",
             ("g", "k"), ("y",)),
        Part("mamba2 scan: chunk states", 0, states, 0, None, "product", ("k", "k"), ("s",)),
        Part("mamba2 scan: states passed between chunks", 0, passing, 0, None, "product", ("q", "s"), ("s",)),
        Part("mamba2 scan: read-out of the passed states", 0, read_out, 0, None, "product", ("k", "s"), ("y",),
             ("y",)),
        norm,
        _linear("mamba2 out projection", i, d, out_bias, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add (beside attention: + the attention's output)
    ]


def falcon_h1_multipliers(block, d: int, length: int, read: str = "h") -> Part:
    """Falcon-H1's µP multipliers in one layer, element-wise (no parameters, no products; ``full`` only): the
    mixer's input (d) and its in projection's output (the µP vector over z, x, B, C, Δ: 2I + 2GN + H) and output
    (d), the attention's input (d), keys (H_kv·Q) and output (d), the MLP's gate (F) and output (d), per position."""
    i, g, n, h = block.ssm_inner_size, block.ssm_groups, block.ssm_state_size, block.ssm_heads
    _, h_kv, q = block.attention_sizes(d)
    per_position = 5 * d + 2 * i + 2 * g * n + h + h_kv * q + (block.ff_size or 4 * d)
    return Part("µP multipliers (element-wise)", 0, 0, length * per_position, None, "none", (read,), (read,))
