"""FLOP of an operator from its recorded shapes: one small formula per operator, the same as PyTorch's
``torch.utils.flop_counter`` (FlopCounterMode, the ``matmul`` convention: multiply-accumulates × 2, bias adds and
softmax not counted) — computed here from the trace, without torch.

``FORMULAS`` is the registry (``@formula("aten::mm", …)``; a name registered twice is an error). Each formula
takes an ``OpSignature`` and returns an ``OpCost``: ``flop`` (the matmul convention), ``bias_flop`` (the bias
adds a fuller convention adds: M·N for ``addmm``, one per output element for a convolution with a bias),
``masked_flop`` (causal attention: the half of the products above the diagonal, which flash kernels skip;
included in ``flop``, as FlopCounterMode does) and ``bytes`` (inputs read once + output written once).
Formulas marked ``leaf_only`` (``aten::linear``, ``aten::matmul``, ``aten::conv2d``…, PyTorch's composite
operators) count only where the trace shows no operator beneath them: normally their work is recorded by the
operator they dispatch to (``addmm``, ``mm``, ``convolution``), as FlopCounterMode sees it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .op_shapes import (
    ShapeError,
    concrete,
    dims,
    dtype_of,
    first_float_format,
    has_tensor,
    int_list,
    size,
)
from .trace_tables import OpSignature
from ..results import Result

MATRIX, ATTENTION, CONVOLUTION = "matrix products", "attention", "convolution"


@dataclass(frozen=True, slots=True)
class OpCost(Result):
    """One call's arithmetic and traffic (see the module docstring)."""

    flop: int
    family: str
    fmt: str | None
    bytes: int = 0
    bias_flop: int = 0
    masked_flop: int = 0
    gemm: tuple[int, int, int, int] | None = None
    """A matrix product's (batch, M, N, K)."""


@dataclass(frozen=True, slots=True)
class Formula:
    fn: Callable[[OpSignature], OpCost]
    family: str
    leaf_only: bool


FORMULAS: dict[str, Formula] = {}


def formula(*names: str, family: str, leaf_only: bool = False):
    """Register ``fn`` as the FLOP formula of each operator in ``names`` (a duplicate is an error)."""
    def register(fn):
        for name in names:
            if name in FORMULAS:
                raise ValueError(f"{name}: a FLOP formula is registered twice")
            FORMULAS[name] = Formula(fn, family, leaf_only)
        return fn
    return register


def op_cost(sig: OpSignature) -> OpCost:
    """The registered formula of ``sig.name`` applied (``ShapeError`` when the shapes do not fit it)."""
    return FORMULAS[sig.name].fn(sig)


def _bpe(sig: OpSignature, i: int) -> float:
    return dtype_of(sig, i)[1]


def _gemm(b: int, m: int, k: int, n: int, sig: OpSignature, a_i: int, b_i: int, bias_i: int | None,
          family: str = MATRIX) -> OpCost:
    """2·b·m·n·k; bytes: A (b·m·k) + B (b·k·n) + C (b·m·n) [+ bias], each at its own element size. Operands of more
    than 2⁶³ elements are no real tensors (``ShapeError``)."""
    for operand in ((b, m, k), (b, k, n), (b, m, n)):
        size(operand)
    bpe_a, bpe_b = _bpe(sig, a_i), _bpe(sig, b_i)
    traffic = b * m * k * bpe_a + b * k * n * bpe_b + b * m * n * bpe_a
    bias_flop = 0
    if bias_i is not None and has_tensor(sig, bias_i):
        traffic += size(dims(sig, bias_i)) * _bpe(sig, bias_i)
        bias_flop = b * m * n
    return OpCost(2 * b * m * n * k, family, first_float_format(sig), int(traffic), bias_flop, gemm=(b, m, n, k))


@formula("aten::mm", "aten::_scaled_mm", family=MATRIX)
def mm(sig: OpSignature) -> OpCost:
    """A (M×K) @ B (K×N), FP8 with scales too (``_scaled_mm``): 2·M·N·K."""
    (m, k), (k2, n) = dims(sig, 0, 2), dims(sig, 1, 2)
    if k != k2:
        raise ShapeError(f"inner sizes differ ({k} and {k2})")
    return _gemm(1, m, k, n, sig, 0, 1, None)


@formula("aten::addmm", family=MATRIX)
def addmm(sig: OpSignature) -> OpCost:
    """bias + A (M×K) @ B (K×N): 2·M·N·K (the bias add, M·N, in ``bias_flop``)."""
    (m, k), (k2, n) = dims(sig, 1, 2), dims(sig, 2, 2)
    if k != k2:
        raise ShapeError(f"inner sizes differ ({k} and {k2})")
    return _gemm(1, m, k, n, sig, 1, 2, 0)


@formula("aten::bmm", family=MATRIX)
def bmm(sig: OpSignature) -> OpCost:
    """A (B×M×K) @ B (B×K×N): 2·B·M·N·K."""
    (b, m, k), (b2, k2, n) = dims(sig, 0, 3), dims(sig, 1, 3)
    if b != b2 or k != k2:
        raise ShapeError(f"batch or inner sizes differ ({b}×…×{k} and {b2}×{k2}×…)")
    return _gemm(b, m, k, n, sig, 0, 1, None)


@formula("aten::baddbmm", family=MATRIX)
def baddbmm(sig: OpSignature) -> OpCost:
    """bias + A (B×M×K) @ B (B×K×N): 2·B·M·N·K."""
    (b, m, k), (b2, k2, n) = dims(sig, 1, 3), dims(sig, 2, 3)
    if b != b2 or k != k2:
        raise ShapeError(f"batch or inner sizes differ ({b}×…×{k} and {b2}×{k2}×…)")
    return _gemm(b, m, k, n, sig, 1, 2, 0)


@formula("aten::linear", family=MATRIX, leaf_only=True)
def linear(sig: OpSignature) -> OpCost:
    """x (…×K) @ Wᵀ (K×N) [+ bias]: 2·prod(…)·K·N."""
    x, w = dims(sig, 0), dims(sig, 1, 2)
    if not x or x[-1] != w[1]:
        raise ShapeError(f"input {x} does not end in the weight's {w[1]} inputs")
    return _gemm(1, size(x[:-1]), x[-1], w[0], sig, 0, 1, 2)


@formula("aten::matmul", family=MATRIX, leaf_only=True)
def matmul(sig: OpSignature) -> OpCost:
    """torch.matmul with broadcasting: 2·batch·M·N·K (a vector's missing axis counts 1)."""
    a, b = dims(sig, 0), dims(sig, 1)
    if not a or not b:
        raise ShapeError("matmul of a scalar")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ShapeError(f"inner sizes differ ({a2[-1]} and {b2[-2]})")
    batch_a, batch_b = a2[:-2], b2[:-2]
    n = max(len(batch_a), len(batch_b))
    batch_a, batch_b = (1,) * (n - len(batch_a)) + batch_a, (1,) * (n - len(batch_b)) + batch_b
    batch = []
    for x, y in zip(batch_a, batch_b):
        if x != y and 1 not in (x, y):
            raise ShapeError(f"batch sizes {x} and {y} do not broadcast")
        batch.append(max(x, y))
    return _gemm(size(tuple(batch)), a2[-2], a2[-1], b2[-1], sig, 0, 1, None)


def conv_out_shape(x: tuple, w: tuple, stride, padding, dilation, transposed: bool, output_padding,
                   groups: int) -> tuple[int, ...]:
    """N, C_out, spatial: ⌊(H + 2P − D·(K−1) − 1)/S⌋ + 1 per axis; transposed: (H−1)·S − 2P + D·(K−1) + OP + 1."""
    spatial = []
    for i, h in enumerate(x[2:]):
        k = w[2 + i]
        if transposed:
            o = (h - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + output_padding[i] + 1
        else:
            o = (h + 2 * padding[i] - dilation[i] * (k - 1) - 1) // stride[i] + 1
        if o < 0:
            raise ShapeError("the convolution's output would have a negative size")
        spatial.append(o)
    c_out = w[1] * groups if transposed else w[0]
    return (x[0], c_out, *spatial)


def conv_flop(x: tuple, w: tuple, out: tuple, transposed: bool) -> int:
    """FlopCounterMode's ``conv_flop_count``: 2·N·prod(spatial)·prod(kernel)·w₀·w₁, spatial = the output's
    (the input's when transposed)."""
    spatial = (x if transposed else out)[2:]
    return 2 * x[0] * math.prod(spatial) * math.prod(w[2:]) * w[0] * w[1]


def _conv(sig: OpSignature, x_i: int, w_i: int, bias_i: int | None, stride_i: int, pad_i: int, dil_i: int,
          transposed_i: int | None, out_pad_i: int | None, groups_i: int | None) -> OpCost:
    x, w = dims(sig, x_i), dims(sig, w_i)
    if len(x) < 3 or len(w) != len(x):
        raise ShapeError(f"input {x} and weight {w} are not a convolution's")
    nd = len(x) - 2
    stride, padding, dilation = (int_list(sig, stride_i, nd, 1), int_list(sig, pad_i, nd, 0),
                                 int_list(sig, dil_i, nd, 1))
    if min(stride + dilation) < 1 or min(padding) < 0:
        raise ShapeError("a stride or dilation below 1, or a negative padding")
    transposed = bool(concrete(sig, transposed_i)) if transposed_i is not None else False
    out_pad = int_list(sig, out_pad_i, nd, 0) if out_pad_i is not None else [0] * nd
    groups = concrete(sig, groups_i) if groups_i is not None else 1
    groups = groups if type(groups) is int and groups >= 1 else 1
    out = conv_out_shape(x, w, stride, padding, dilation, transposed, out_pad, groups)
    bpe = _bpe(sig, x_i)
    traffic = (size(x) + size(w) + size(out)) * bpe
    bias_flop = 0
    if bias_i is not None and has_tensor(sig, bias_i) and dims(sig, bias_i):
        traffic += size(dims(sig, bias_i)) * bpe
        bias_flop = size(out)
    return OpCost(conv_flop(x, w, out, transposed), CONVOLUTION, first_float_format(sig), int(traffic), bias_flop)


@formula("aten::convolution", "aten::_convolution", "aten::convolution_overrideable", family=CONVOLUTION)
def convolution(sig: OpSignature) -> OpCost:
    """(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)."""
    return _conv(sig, 0, 1, 2, 3, 4, 5, 6, 7, 8)


@formula("aten::cudnn_convolution", family=CONVOLUTION)
def cudnn_convolution(sig: OpSignature) -> OpCost:
    """(input, weight, padding, stride, dilation, groups, …): no bias."""
    return _conv(sig, 0, 1, None, 3, 2, 4, None, None, 5)


@formula("aten::_slow_conv2d_forward", family=CONVOLUTION)
def slow_conv2d(sig: OpSignature) -> OpCost:
    """(input, weight, kernel_size, bias, stride, padding)."""
    return _conv(sig, 0, 1, 3, 4, 5, None, None, None, None)


@formula("aten::conv1d", "aten::conv2d", "aten::conv3d", family=CONVOLUTION, leaf_only=True)
def conv_nd(sig: OpSignature) -> OpCost:
    """(input, weight, bias, stride, padding, dilation, groups)."""
    return _conv(sig, 0, 1, 2, 3, 4, 5, None, None, 6)


@formula("aten::convolution_backward", family=CONVOLUTION)
def convolution_backward(sig: OpSignature) -> OpCost:
    """(grad_out, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
    output_mask): the input gradient (a transposed convolution of grad_out with the weight) when
    output_mask[0], the weight gradient (input ⋆ grad_out) when output_mask[1]; FlopCounterMode's
    ``conv_backward_flop``."""
    g, x, w = dims(sig, 0), dims(sig, 1), dims(sig, 2)
    if not (len(g) == len(x) == len(w) >= 3):
        raise ShapeError(f"grad {g}, input {x} and weight {w} are not a convolution's")
    transposed = bool(concrete(sig, 7))
    mask = concrete(sig, 10)
    if not (isinstance(mask, list) and len(mask) == 3 and all(isinstance(v, bool) for v in mask)):
        mask = [True, True, False]

    def t(s):
        return (s[1], s[0], *s[2:])

    flop = 0
    if mask[0]:
        flop += conv_flop(g, w, x, not transposed)
    if mask[1]:
        flop += conv_flop(t(g), t(x), t(w), False) if transposed else conv_flop(t(x), t(g), t(w), False)
    bpe = _bpe(sig, 0)
    traffic = (size(g) + size(x) + size(w)) * bpe + (size(x) if mask[0] else 0) * bpe \
        + (size(w) if mask[1] else 0) * bpe
    return OpCost(flop, CONVOLUTION, first_float_format(sig), int(traffic))


def _sdpa(q: tuple, k: tuple, v: tuple) -> int:
    """FlopCounterMode's ``sdpa_flop_count`` (b, h, s, d layout): 2·b·h_q·s_q·s_k·d_q + 2·b·h_q·s_q·s_k·d_v."""
    b, h, s_q, d_q = q
    b2, h_kv, s_k, d_k = k
    b3, h_v, s_v, d_v = v
    if not (b == b2 == b3 and h_kv == h_v and d_q == d_k and s_k == s_v) or h_kv == 0 or h % h_kv:
        raise ShapeError(f"query {q}, key {k} and value {v} are not attention's")
    return 2 * b * h * s_q * s_k * d_q + 2 * b * h * s_q * s_k * d_v


def _sdpa_backward(g: tuple, q: tuple, k: tuple, v: tuple) -> int:
    """FlopCounterMode's ``sdpa_backward_flop_count``: the scores recomputed (q·kᵀ), and grad through p·v
    (2 products) and q·kᵀ (2 products): five batched products."""
    b, h, s_q, d_q = q
    _, _, s_k, _ = k
    d_v = v[3]
    if g[0] != b or g[1] != h or g[2] != s_q or g[3] != d_v:
        raise ShapeError(f"grad {g} does not match query {q}")
    _sdpa(q, k, v)
    return 2 * b * h * (s_q * d_q * s_k + s_q * d_v * s_k + s_k * s_q * d_v + s_q * s_k * d_q + d_q * s_q * s_k)


def _attention(sig: OpSignature, q_i: int, causal_i: int | None, backward: bool, bshd: bool = False) -> OpCost:
    q, k, v = (dims(sig, q_i, 4), dims(sig, q_i + 1, 4), dims(sig, q_i + 2, 4))
    if bshd:  # flash/efficient kernels take (batch, sequence, heads, dim)
        q, k, v = ((s[0], s[2], s[1], s[3]) for s in (q, k, v))
    if backward:
        g = dims(sig, 0, 4)
        g = (g[0], g[2], g[1], g[3]) if bshd else g
        flop = _sdpa_backward(g, q, k, v)
    else:
        flop = _sdpa(q, k, v)
    causal = causal_i is not None and concrete(sig, causal_i) is True
    masked = flop // 2 if causal and q[2] == k[2] else 0
    bpe = _bpe(sig, q_i)
    out = q[0] * q[1] * q[2] * v[3]
    traffic = (size(q) + size(k) + size(v) + out * (3 if backward else 1)) * bpe
    return OpCost(flop, ATTENTION, first_float_format(sig), int(traffic), masked_flop=masked)


@formula("aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_flash_attention_for_cpu",
         family=ATTENTION)
def sdpa_flash(sig: OpSignature) -> OpCost:
    """(query, key, value, dropout_p, is_causal, …)."""
    return _attention(sig, 0, 4, False)


@formula("aten::_scaled_dot_product_efficient_attention", family=ATTENTION)
def sdpa_efficient(sig: OpSignature) -> OpCost:
    """(query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, …)."""
    return _attention(sig, 0, 6, False)


@formula("aten::_scaled_dot_product_cudnn_attention", family=ATTENTION)
def sdpa_cudnn(sig: OpSignature) -> OpCost:
    """(query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, …)."""
    return _attention(sig, 0, 6, False)


@formula("aten::scaled_dot_product_attention", family=ATTENTION, leaf_only=True)
def sdpa(sig: OpSignature) -> OpCost:
    """(query, key, value, attn_mask, dropout_p, is_causal, …): only where nothing is recorded beneath it."""
    return _attention(sig, 0, 5, False)


@formula("aten::_flash_attention_forward", family=ATTENTION)
def flash_forward(sig: OpSignature) -> OpCost:
    """(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, …), (B, S, H, D) layout."""
    return _attention(sig, 0, 8, False, bshd=True)


@formula("aten::_efficient_attention_forward", family=ATTENTION)
def efficient_forward(sig: OpSignature) -> OpCost:
    """(query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
    custom_mask_type, …), (B, S, H, D) layout; custom_mask_type 1 is causal."""
    cost = _attention(sig, 0, None, False, bshd=True)
    if concrete(sig, 9) == 1:
        cost = OpCost(cost.flop, cost.family, cost.fmt, cost.bytes, masked_flop=cost.flop // 2)
    return cost


@formula("aten::_scaled_dot_product_flash_attention_backward",
         "aten::_scaled_dot_product_flash_attention_for_cpu_backward", family=ATTENTION)
def sdpa_flash_backward(sig: OpSignature) -> OpCost:
    """(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
    is_causal, …); the CPU kernel's: (grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, …)."""
    return _attention(sig, 1, 7 if sig.name.endswith("for_cpu_backward") else 11, True)


@formula("aten::_scaled_dot_product_efficient_attention_backward", family=ATTENTION)
def sdpa_efficient_backward(sig: OpSignature) -> OpCost:
    """(grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p,
    grad_input_mask, is_causal, …)."""
    return _attention(sig, 1, 11, True)


@formula("aten::_scaled_dot_product_cudnn_attention_backward", family=ATTENTION)
def sdpa_cudnn_backward(sig: OpSignature) -> OpCost:
    """(grad_out, query, key, value, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q,
    cum_seq_k, max_q, max_k, dropout_p, is_causal, …)."""
    return _attention(sig, 1, 14, True)


@formula("aten::_flash_attention_backward", "aten::_efficient_attention_backward", family=ATTENTION)
def flash_backward(sig: OpSignature) -> OpCost:
    """(grad_out, query, key, value, …), (B, S, H, D) layout."""
    return _attention(sig, 1, None, True, bshd=True)
