"""The trace's FLOP formulas against PyTorch's own (torch.utils.flop_counter's functions, the external counter),
on shapes drawn at random; the registry refuses a name twice."""
from __future__ import annotations

import random

import pytest

from engine.measure.op_flop import FORMULAS, conv_out_shape, formula, op_cost
from engine.measure.trace_tables import OpSignature

BF = "c10::BFloat16"


def sig(name, dims, types=None, concrete=None):
    dims = tuple(tuple(d) for d in dims)
    return OpSignature(name, dims, tuple(types or [BF] * len(dims)), tuple(concrete or [""] * len(dims)))


def test_matrix_products(torch):
    from torch.utils.flop_counter import addmm_flop, baddbmm_flop, bmm_flop, mm_flop
    rng = random.Random(1)
    for _ in range(50):
        b, m, n, k = (rng.randint(1, 300) for _ in range(4))
        assert op_cost(sig("aten::mm", [(m, k), (k, n)])).flop == mm_flop((m, k), (k, n))
        assert op_cost(sig("aten::addmm", [(n,), (m, k), (k, n), (), ()])).flop == addmm_flop((n,), (m, k), (k, n))
        assert op_cost(sig("aten::bmm", [(b, m, k), (b, k, n)])).flop == bmm_flop((b, m, k), (b, k, n))
        assert op_cost(sig("aten::baddbmm", [(b, m, n), (b, m, k), (b, k, n), (), ()])).flop == \
            baddbmm_flop((b, m, n), (b, m, k), (b, k, n))
        assert op_cost(sig("aten::addmm", [(n,), (m, k), (k, n), (), ()])).bias_flop == m * n


def test_attention_forward_and_backward(torch):
    from torch.utils.flop_counter import sdpa_backward_flop_count, sdpa_flop_count
    rng = random.Random(2)
    for _ in range(50):
        b, h_kv, s_q, s_k, d, dv = (rng.randint(1, 64) for _ in range(6))
        h = h_kv * rng.randint(1, 4)
        q, k, v, g = (b, h, s_q, d), (b, h_kv, s_k, d), (b, h_kv, s_k, dv), (b, h, s_q, dv)
        fwd = op_cost(sig("aten::_scaled_dot_product_flash_attention", [q, k, v, (), (), (), ()],
                          concrete=["", "", "", "0.", "True", "False", ""]))
        assert fwd.flop == sdpa_flop_count(q, k, v)
        assert fwd.masked_flop == (fwd.flop // 2 if s_q == s_k else 0)
        bwd = op_cost(sig("aten::_scaled_dot_product_efficient_attention_backward", [g, q, k, v, (), g, (b, h, s_q)]))
        assert bwd.flop == sdpa_backward_flop_count(g, q, k, v)


def test_convolution_forward_and_backward(torch):
    from torch.utils.flop_counter import conv_backward_flop, conv_flop_count
    rng = random.Random(3)
    for _ in range(40):
        nd = rng.choice([1, 2, 3])
        groups = rng.choice([1, 2, 4])
        n, c_in, c_out = rng.randint(1, 4), groups * rng.randint(1, 4), groups * rng.randint(1, 4)
        ks = [rng.randint(1, 3) for _ in range(nd)]
        stride, pad, dil = ([rng.randint(1, 2) for _ in range(nd)], [rng.randint(0, 2) for _ in range(nd)],
                            [rng.randint(1, 2) for _ in range(nd)])
        x = [n, c_in] + [rng.randint(8, 16) for _ in range(nd)]
        w = [c_out, c_in // groups, *ks]
        out = conv_out_shape(tuple(x), tuple(w), stride, pad, dil, False, [0] * nd, groups)
        # the output's sizes as torch computes them (an external check of conv_out_shape)
        f = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}[nd]
        real = f(torch.empty(x, device="meta"), torch.empty(w, device="meta"), stride=stride, padding=pad,
                 dilation=dil, groups=groups)
        assert list(out) == list(real.shape)
        s = lambda v: str(list(v))
        cost = op_cost(sig("aten::convolution", [x, w, [c_out], [], [], [], [], [], []],
                           [BF, BF, BF, "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
                           ["", "", "", s(stride), s(pad), s(dil), "False", s([0] * nd), str(groups)]))
        assert cost.flop == conv_flop_count(x, w, list(out))
        assert cost.bias_flop == n * c_out * int(__import__("math").prod(out[2:]))
        for mask in ([True, True, False], [False, True, True], [True, False, False]):
            bwd = op_cost(sig("aten::convolution_backward", [out, x, w, [], [], [], [], [], [], [], []],
                              concrete=["", "", "", s([c_out]), s(stride), s(pad), s(dil), "False", s([0] * nd),
                                        str(groups), s(mask)]))
            expected = conv_backward_flop(list(out), x, w, None, stride, pad, dil, False, [0] * nd, groups, mask,
                                          out_val=(torch.empty(x, device="meta"), torch.empty(w, device="meta"), None))
            assert bwd.flop == expected, mask


def test_transposed_convolution(torch):
    from torch.utils.flop_counter import conv_flop_count
    x, w = (2, 8, 7, 7), (8, 4, 3, 3)  # transposed: weight (C_in, C_out / groups, k, k)
    real = torch.nn.functional.conv_transpose2d(torch.empty(x, device="meta"), torch.empty(w, device="meta"),
                                                stride=2, padding=1, output_padding=1)
    cost = op_cost(sig("aten::convolution", [x, w, [], [], [], [], [], [], []],
                       concrete=["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "True", "[1, 1]", "1"]))
    assert cost.flop == conv_flop_count(list(x), list(w), list(real.shape), transposed=True)


def test_a_formula_registered_twice_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        formula("aten::mm", family="matrix products")(lambda s: None)
    assert "aten::mm" in FORMULAS
