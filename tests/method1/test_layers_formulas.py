"""Layer kinds without a PyTorch twin, and the ``full`` convention, against formulas written here."""
from __future__ import annotations

import pytest

from tests.method1 import evaluated


def row(input_shape, layer, steps=None, convention="matmul"):
    return evaluated(input_shape, [layer], steps, convention).rows[0]


def test_self_attention_seed_formula():
    # L = 12, W = 32, D = 8, N = 16: params W·(2D+N); FLOP 2·L·W·(2D+N) + 2·L²·D + 2·L²·N
    L, W, D, N = 12, 32, 8, 16
    r = row([W], {"type": "self_attention", "key_size": D, "value_size": N}, steps=L)
    assert r.params == 32 * (2 * 8 + 16) == 1024
    assert r.forward_flop == 2 * 12 * 32 * 32 + 2 * 144 * 8 + 2 * 144 * 16 == 31_488
    assert r.output_shape == [12, 16]


def test_self_attention_full_adds_softmax_and_scaling():
    L, W, D, N = 12, 32, 8, 16
    matmul = 2 * L * W * (2 * D + N) + 2 * L * L * (D + N)
    # full: + softmax (5 per score: max, subtract, exp, sum, divide) + scaling (1 per score)
    r = row([W], {"type": "self_attention", "key_size": D, "value_size": N}, steps=L, convention="full")
    assert r.forward_flop == matmul + 6 * L * L


def test_multi_head_attention_general_sizes():
    # H = 3 heads of D = 4, N = 5, final M = 7, W = 10, L = 6, no bias:
    # params H·W·(2D+N) + H·N·M; FLOP H·[2·L·W·(2D+N) + 2·L²·(D+N)] + 2·L·H·N·M
    r = row([10], {"type": "multi_head_attention", "heads": 3, "key_size": 4, "value_size": 5,
                   "output_size": 7, "bias": False}, steps=6)
    assert r.params == 3 * 10 * 13 + 3 * 5 * 7 == 495
    assert r.forward_flop == 3 * (2 * 6 * 10 * 13 + 2 * 36 * 9) + 2 * 6 * 3 * 5 * 7 == 7_884


def test_dense_full_adds_bias():
    # FC 100 → 10: matmul 2·N·M = 2,000; full + M bias adds = 2,010
    assert row([100], {"type": "dense", "units": 10}).forward_flop == 2_000
    assert row([100], {"type": "dense", "units": 10}, convention="full").forward_flop == 2_010


def test_conv_full_adds_bias_per_output():
    # 8×8×3 → 3×3 conv, 4 filters, padding 1: 8·8·4 outputs × 27 taps; bias 256
    r = row([8, 8, 3], {"type": "conv2d", "filters": 4, "kernel_size": 3, "padding": 1}, convention="full")
    assert r.forward_flop == 2 * 8 * 8 * 4 * 27 + 8 * 8 * 4


def test_lstm_full_convention():
    # per step, per direction (M = units): PyTorch's two bias vectors 2·4M, x+h parts 4M,
    # 3 sigmoids (4 each) + tanh (5) on the gates, c = f∘c + i∘g (3M), tanh(c) (5M), o∘ (M)
    N, M, T = 6, 5, 4
    per_step_extra = 8 * M + 4 * M + 12 * M + 5 * M + 3 * M + 5 * M + M
    matmul = 8 * (N * M + M * M)
    r = row([N], {"type": "lstm", "units": M}, steps=T, convention="full")
    assert r.forward_flop == T * (matmul + per_step_extra)


def test_gru_and_rnn_full_convention():
    N, M, T = 6, 5, 4
    gru_extra = 6 * M + 2 * M + 8 * M + 2 * M + 5 * M + 4 * M  # biases, r/z sums, σσ, n gate, tanh, update
    rnn_extra = 2 * M + M + 5 * M                                # biases, x+h, tanh
    assert row([N], {"type": "gru", "units": M}, steps=T, convention="full").forward_flop == \
        T * (6 * (N * M + M * M) + gru_extra)
    assert row([N], {"type": "rnn", "units": M}, steps=T, convention="full").forward_flop == \
        T * (2 * (N * M + M * M) + rnn_extra)


@pytest.mark.parametrize("function,per_element", [("relu", 1), ("sigmoid", 4), ("tanh", 5), ("gelu", 5),
                                                  ("silu", 5), ("softmax", 5)])
def test_activations(function, per_element):
    assert row([4, 4, 2], {"type": "activation", "function": function}).forward_flop == 0
    assert row([4, 4, 2], {"type": "activation", "function": function}, convention="full").forward_flop == \
        32 * per_element


def test_norms():
    # 7 FLOP per element with affine (mean, centre, square, variance, normalise, ×γ, +β), 5 without
    r = row([10, 6], {"type": "layer_norm"}, convention="full")
    assert (r.params, r.forward_flop) == (2 * 6, 7 * 60)
    r = row([4, 4, 8], {"type": "batch_norm", "affine": False}, convention="full")
    assert (r.params, r.forward_flop) == (0, 5 * 128)


def test_pooling():
    # 9×9×2, 3×3 window stride 2 → 4×4×2; max: 8 comparisons per output; avg: 8 adds + 1 divide
    r = row([9, 9, 2], {"type": "max_pool2d", "kernel_size": 3, "stride": 2}, convention="full")
    assert (r.output_shape, r.forward_flop) == ([4, 4, 2], 32 * 8)
    r = row([9, 9, 2], {"type": "avg_pool2d", "kernel_size": 3, "stride": 2}, convention="full")
    assert r.forward_flop == 32 * 9
    assert row([9, 9, 2], {"type": "avg_pool2d", "kernel_size": 3}).output_shape == [3, 3, 2]  # stride = K


def test_embedding_flatten_dropout():
    r = row([1], {"type": "embedding", "vocab_size": 1000, "dim": 64}, steps=16)
    assert (r.params, r.forward_flop, r.output_shape) == (64_000, 0, [16, 64])
    assert row([3, 4, 5], {"type": "flatten"}).output_shape == [60]
    assert row([3, 4, 5], {"type": "dropout"}, convention="full").forward_flop == 60


def test_macs_are_half_the_matmul_flop():
    r = row([100], {"type": "dense", "units": 10})
    assert r.macs == 1_000 and r.forward_flop == 2 * r.macs


def test_every_kind_has_valid_starter_values():
    """The layer builder's 'Add a layer' starts each kind from these values: they must validate."""
    from engine.method1.kinds import KIND_BY_TYPE
    from ui.layer_form import starter_layer

    for kind, cls in KIND_BY_TYPE.items():
        cls.model_validate(starter_layer(kind))
