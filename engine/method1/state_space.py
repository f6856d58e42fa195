"""Mamba's selective state-space mixer (Gu & Dao 2023) as the rows of a block (``TransformerBlock`` with
``mixer="mamba"``), counted as transformers' ``MambaMixer`` computes it without the CUDA kernels.

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
Parameters: A (I×N, stored as its log) and D (I) besides the projections and the convolution.
"""
from __future__ import annotations

from engine.method1.conventions import ACTIVATION_FLOP
from engine.method1.layers import Part
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
    return [
        _linear("mamba in projection", d, 2 * i, block.ssm_bias, length, src=(read,), dst=("q",), role="in"),
        Part("mamba causal convolution", conv_params, i * k * (length + k - 1), conv_extra, None, "linear",
             ("q",), ("k",)),
        _linear("mamba x projection (Δ, B, C)", i, r + 2 * n, False, length, src=("k",), dst=("v",), role="x"),
        _linear("mamba Δ projection", r, i, True, length, extra_flop=length * i * SOFTPLUS_FLOP, src=("v",),
                dst=("s",), role="dt"),
        Part("mamba selective scan", i * n + i, length * i * n, scan_full_flop(length, i, n), None, "product",
             ("k", "s", "v"), ("a",)),
        _linear("mamba out projection", i, d, block.ssm_bias, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add
    ]
