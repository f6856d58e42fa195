"""MiniMax's lightning attention (MiniMax-01, 2025: linear attention computed in blocks) as the rows of a block
(``TransformerBlock`` with ``mixer="lightning"``), counted as transformers' ``MiniMaxLightningAttention``
computes it on a whole sequence (no cache yet).

Symbols: d model width, L positions, H heads of size Q, B the block length; the L positions fall in blocks
b_1 … b_n of B (the last one shorter), Σb² the sum of their squares.

Matmul convention (what ``FlopCounterMode`` sees): q/k/v projection d→3·H·Q (then the activation), per block
and head the intra-block scores QKᵀ (b²·Q multiply-accumulates) and their product with V after the decay mask
(b²·Q), the read-out of the state passed from the earlier blocks (Q·decay)·S (b·Q²; the first block reads a zero
state, still multiplied), the block's own state (K·decay)ᵀ·V (b·Q², the last block's too, which nothing reads),
an RMSNorm of H·Q, the output gate d→H·Q (sigmoid, product), the output projection H·Q→d.

Backward (full training, as autograd runs it): each product's two operands get a gradient, except the zero
state of the first read-out (no gradient) and the last block's state, which no output depends on (not run).

The ``full`` convention adds the element-wise work: the activation of q/k/v, the decay mask (Σb² per head),
Q·decay and K·decay (H·Q per position each), the sum of the two read-outs (H·Q per position), the state's decay
and update (2·H·Q² per block) and the block decay exp(−slope·b) (2·H per block), the norm, sigmoid and product
of the gate; the residual add.
"""
from __future__ import annotations

from ..conventions import ACTIVATION_FLOP
from ..layers import Part
from ..ops import rms_norm_cost
from .rows import linear


def block_lengths(length: int, block: int) -> tuple[int, int, int, int]:
    """L positions in blocks b_1 … b_n of B, the last one what is left: (n, b_1, b_n, Σ b_i²), in closed form
    (⌊L/B⌋ full blocks and the rest r: Σ b_i² = ⌊L/B⌋·B² + r²), so a block of 1 over 10⁹ positions costs nothing."""
    full, rest = divmod(length, block)
    n = full + (1 if rest else 0)
    return n, min(block, length), rest or block, full * block * block + rest * rest


def lightning_full_flop(length: int, heads: int, head_size: int, block: int, activation: str) -> dict[str, int]:
    """The element-wise FLOP of each row (``full`` convention only), by row: see the module docstring."""
    h, q = heads, head_size
    n, _, _, squares = block_lengths(length, block)
    width = heads * head_size
    return {"qkv": length * 3 * width * ACTIVATION_FLOP[activation],
            "scores": h * squares,                                      # the decay mask
            "states": length * width + n * (2 * h * q * q + 2 * h),    # K·decay; S·decay + new; exp(−slope·b)
            "read-out": 2 * length * width,                             # Q·decay; + the intra-block output
            "gate": length * width * (ACTIVATION_FLOP["sigmoid"] + 1)}


def lightning(m, d: int, length: int, read: str = "h") -> list[Part]:
    """The mixer's rows, wired as a data flow: ``read`` (the norm's output) → q, k, v → … → added into ``x``."""
    h, _, q = m.attention_sizes(d)
    width = h * q
    n, first, last, squares = block_lengths(length, m.block_size)
    extra = lightning_full_flop(length, h, q, m.block_size, m.activation)
    # the element-wise work of the states and read-outs, shared out by the rows' positions
    states_extra = extra["states"] * (length - last) // length
    read_extra = extra["read-out"] * first // length
    norm = rms_norm_cost(length * width, width, True)
    parts = [
        linear("lightning q/k/v projection", d, 3 * width, False, length, extra_flop=extra["qkv"], src=(read,),
                dst=("q", "k", "v"), role="lightning qkv"),
        Part("lightning intra-block scores QKᵀ", 0, h * squares * q, extra["scores"], None, "product", ("q", "k"),
             ("s",)),
        Part("lightning intra-block values", 0, h * squares * q, 0, None, "product", ("s", "v"), ("a",)),
        Part("lightning first block's read-out (zero state)", 0, h * first * q * q, read_extra, None, "product",
             ("q", "zero"), ("a",), ("a",)),  # the zero state needs no gradient
    ]
    if n > 1:
        parts += [
            Part("lightning block states (K·decay)ᵀV", 0, h * (length - last) * q * q, states_extra, None, "product",
                 ("k", "v"), ("kv",)),
            Part("lightning read-out of the passed states", 0, h * (length - first) * q * q,
                 extra["read-out"] - read_extra, None, "product", ("q", "kv"), ("a",), ("a",)),
        ]
    # the last block's state is computed (for a cache) and read by nothing: no gradient runs through it
    parts += [
        Part("lightning last block's state (read by nothing)", 0, h * last * q * q, extra["states"] - states_extra,
             None, "none", (), ("unread",)),
        Part("lightning output norm", width, 0, norm.extra_flop, None, "none", ("a",), ("n",)),
        linear("lightning output gate", d, width, False, length, extra_flop=extra["gate"], src=(read,), dst=("g",),
                role="lightning gate"),
        linear("lightning out projection", width, d, False, length, extra_flop=length * d, src=("n", "g"),
                dst=("x",), also=("x",), role="lightning out"),  # + the residual add
    ]
    return parts
