"""Small cost functions that the layer kinds share (basic and composite alike).

Each returns exact integers: parameters, multiply-accumulates (``matmul`` FLOP = 2·MACs) and the
extra FLOP the ``full`` convention adds (``engine.method1.conventions``).
"""
from __future__ import annotations

import math
from typing import NamedTuple

from .conventions import (
    ACTIVATION_FLOP,
    ATTENTION_SCALE_FLOP_PER_SCORE,
    NORM_AFFINE_FLOP_PER_ELEMENT,
    NORM_FLOP_PER_ELEMENT,
)

RMS_NORM_FLOP_PER_ELEMENT = NORM_FLOP_PER_ELEMENT - 2
"""LayerNorm's count less the mean and the centring: square, mean of squares (add), normalise."""
RMS_NORM_GAIN_FLOP_PER_ELEMENT = NORM_AFFINE_FLOP_PER_ELEMENT - 1
"""× γ only: RMSNorm has no β."""


class Cost(NamedTuple):
    params: int
    macs: int
    extra_flop: int


def prod(values) -> int:
    return math.prod(values)


def dense_cost(n_in: int, n_out: int, bias: bool) -> Cost:
    """A projection N→M: params N·M (+ M), N·M MACs, M bias adds (full)."""
    b = n_out if bias else 0
    return Cost(n_in * n_out + b, n_in * n_out, b)


def layer_norm_cost(elements: int, channels: int, affine: bool, bias: bool = True) -> Cost:
    """LayerNorm/BatchNorm over ``elements`` values: params 2·C with γ and β (C with γ only, as MPT);
    full 5 FLOP per element, + 2 with γ, β (+ 1 with γ only)."""
    if not affine:
        return Cost(0, 0, NORM_FLOP_PER_ELEMENT * elements)
    if not bias:
        return Cost(channels, 0, (NORM_FLOP_PER_ELEMENT + NORM_AFFINE_FLOP_PER_ELEMENT - 1) * elements)
    return Cost(2 * channels, 0, (NORM_FLOP_PER_ELEMENT + NORM_AFFINE_FLOP_PER_ELEMENT) * elements)


def rms_norm_cost(elements: int, d: int, affine: bool) -> Cost:
    """RMSNorm: params d with the gain γ; full 3 (+1) FLOP per element."""
    per = RMS_NORM_FLOP_PER_ELEMENT + (RMS_NORM_GAIN_FLOP_PER_ELEMENT if affine else 0)
    return Cost(d if affine else 0, 0, per * elements)


def softmax_and_scale_flop(scores: int) -> int:
    """Full convention: softmax (5) and the 1/√D scaling (1) per attention score."""
    return (ACTIVATION_FLOP["softmax"] + ATTENTION_SCALE_FLOP_PER_SCORE) * scores
