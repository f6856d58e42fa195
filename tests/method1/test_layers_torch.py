"""Parameters, output shapes and ``matmul`` forward FLOP against PyTorch, exactly.

The reference: ``sum(p.numel())`` of the equivalent module with default options, and
``torch.utils.flop_counter.FlopCounterMode`` on the ``meta`` device (on CPU it counts 0 for
``nn.LSTM``; on ``meta`` the recurrent layers decompose into the ``addmm`` calls it counts).
Shapes here are channels-last; PyTorch's are channels-first.
"""
from __future__ import annotations

import random

import pytest

from engine.method1.architecture import Architecture, evaluate
from engine.errors import InputError
from engine.method1.kinds import KIND_BY_TYPE
from tests.method1 import evaluated

CASES = 40


def _engine(input_shape, layer: dict, steps=None):
    return evaluated(input_shape, [layer], steps)


def _torch_count(torch, module, *inputs):
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        out = module(*inputs)
    out = out[0] if isinstance(out, tuple) else out
    return counter.get_total_flops(), list(out.shape), sum(p.numel() for p in module.parameters())


def _compare(torch, module, x, input_shape, layer, steps=None, out_perm=None):
    """Both raise, or both agree on params, FLOP and the output shape."""
    try:
        flop, out_shape, params = _torch_count(torch, module.to("meta"), x)
        if 0 in out_shape:  # the meta device does not check for an empty output; the CPU would
            raise RuntimeError("empty output")
    except RuntimeError:
        with pytest.raises(InputError):
            _engine(input_shape, layer, steps)
        return False
    result = _engine(input_shape, layer, steps)
    row = result.rows[0]
    assert row.params == params, (layer, input_shape)
    assert row.forward_flop == flop, (layer, input_shape)
    expected_shape = out_shape[1:]  # drop the batch axis
    if out_perm is not None:
        expected_shape = [expected_shape[i] for i in out_perm]
    assert row.output_shape == expected_shape, (layer, input_shape)
    return True


@pytest.mark.external_check("dense")
def test_dense(torch):
    rng = random.Random(1)
    for _ in range(CASES):
        n, m, bias = rng.randint(1, 300), rng.randint(1, 300), rng.random() < 0.7
        steps = rng.choice([None, rng.randint(1, 30)])
        x = torch.empty((1, steps, n) if steps else (1, n), device="meta")
        layer = {"type": "dense", "units": m, "bias": bias}
        assert _compare(torch, torch.nn.Linear(n, m, bias=bias), x, [n], layer, steps)


def test_dense_per_position_is_nn_linear_on_the_last_axis(torch):
    """Swin's and ConvNeXt's MLPs: nn.Linear on a channels-last grid maps C at each of the H·W positions."""
    rng = random.Random(2)
    for _ in range(CASES):
        h, w, n, m, bias = rng.randint(1, 12), rng.randint(1, 12), rng.randint(1, 64), rng.randint(1, 64), \
            rng.random() < 0.7
        layer = {"type": "dense", "units": m, "bias": bias, "per_position": True}
        x = torch.empty(1, h, w, n, device="meta")
        assert _compare(torch, torch.nn.Linear(n, m, bias=bias), x, [h, w, n], layer)


@pytest.mark.external_check("max_pool2d", "avg_pool2d")
@pytest.mark.parametrize("kind", ["max_pool2d", "avg_pool2d"])
def test_pooling_with_and_without_ceil_mode(torch, kind):
    """The output size, PyTorch's rule for ceil_mode included (a last window that would start in the padding
    is dropped), and its errors (padding more than half the kernel, no output)."""
    rng = random.Random(("max_pool2d", "avg_pool2d").index(kind))
    cls = {"max_pool2d": torch.nn.MaxPool2d, "avg_pool2d": torch.nn.AvgPool2d}[kind]
    agreed = ceil_differs = 0
    for _ in range(CASES * 3):
        c, spatial = rng.randint(1, 4), [rng.randint(1, 20) for _ in range(2)]
        k = [rng.randint(1, 5) for _ in range(2)]
        s = [rng.randint(1, 4) for _ in range(2)]
        p = [rng.randint(0, 2) for _ in range(2)]
        ceil = rng.random() < 0.7
        layer = {"type": kind, "kernel_size": k, "stride": s, "padding": p, "ceil_mode": ceil}
        module = cls(k, s, p, ceil_mode=ceil)
        x = torch.empty([1, c] + spatial, device="meta")
        try:
            floor_shape = list(cls(k, s, p)(x).shape)
        except RuntimeError:
            floor_shape = None
        if _compare(torch, module, x, spatial + [c], layer, out_perm=[1, 2, 0]):
            agreed += 1
            ceil_differs += ceil and floor_shape != list(module(x).shape)
    assert agreed > CASES and ceil_differs > 5  # ceil_mode changed the size in many of the cases compared


def test_googlenet_pools_need_no_padding_trick(torch):
    """GoogLeNet's 3×3/2 pools round up (ceil_mode=True): 112 → 56 → 28 → 14 → 7, as in torchvision's
    googlenet.py; without ceil_mode they would give 55 → 27 → 13 → 6."""
    pool = {"type": "max_pool2d", "kernel_size": 3, "stride": 2, "ceil_mode": True}
    result = evaluated([112, 112, 64], [pool, pool, pool, {"type": "max_pool2d", "kernel_size": 2, "stride": 2,
                                                           "ceil_mode": True}])
    x = torch.empty(1, 64, 112, 112, device="meta")
    sizes = []
    for module in (torch.nn.MaxPool2d(3, 2, ceil_mode=True),) * 3 + (torch.nn.MaxPool2d(2, 2, ceil_mode=True),):
        x = module(x)
        sizes.append(list(x.shape[2:]))
    assert [r.output_shape[:2] for r in result.rows] == sizes == [[56, 56], [28, 28], [14, 14], [7, 7]]


@pytest.mark.external_check("conv1d", "conv2d", "conv3d")
@pytest.mark.parametrize("kind", ["conv1d", "conv2d", "conv3d"])
def test_conv(torch, kind):
    dims = int(kind[4])
    rng = random.Random(10 + dims)
    cls = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[dims]
    agreed = 0
    for _ in range(CASES):
        g = rng.choice([1, 1, 2, 3])
        c, d = g * rng.randint(1, 6), g * rng.randint(1, 6)
        spatial = [rng.randint(1, 24 if dims < 3 else 12) for _ in range(dims)]
        k = [rng.randint(1, 5) for _ in range(dims)]
        s = [rng.randint(1, 3) for _ in range(dims)]
        p = [rng.randint(0, 2) for _ in range(dims)]
        dil = [rng.randint(1, 2) for _ in range(dims)]
        bias = rng.random() < 0.6
        x = torch.empty([1, c] + spatial, device="meta")
        module = cls(c, d, k, stride=s, padding=p, dilation=dil, groups=g, bias=bias)
        layer = {"type": kind, "filters": d, "kernel_size": k, "stride": s, "padding": p,
                 "dilation": dil, "groups": g, "bias": bias}
        # torch: [D, *spatial'] → channels-last [*spatial', D]
        agreed += _compare(torch, module, x, spatial + [c], layer, out_perm=list(range(1, dims + 1)) + [0])
    assert agreed >= CASES // 3  # many random cases are valid, so the comparison really ran


def test_conv_scalar_arguments(torch):
    """kernel_size/stride/padding as one number apply to every spatial axis, as in PyTorch."""
    module = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
    layer = {"type": "conv2d", "filters": 8, "kernel_size": 3, "stride": 2, "padding": 1}
    assert _compare(torch, module, torch.empty(1, 3, 32, 30, device="meta"), [32, 30, 3], layer,
                    out_perm=[1, 2, 0])


@pytest.mark.external_check("conv_transpose2d")
def test_conv_transpose2d(torch):
    rng = random.Random(7)
    agreed = 0
    for _ in range(CASES):
        g = rng.choice([1, 1, 2])
        c, d = g * rng.randint(1, 6), g * rng.randint(1, 6)
        spatial = [rng.randint(1, 16) for _ in range(2)]
        k = [rng.randint(1, 5) for _ in range(2)]
        s = [rng.randint(1, 3) for _ in range(2)]
        p = [rng.randint(0, 2) for _ in range(2)]
        op = [rng.randint(0, max(0, si - 1)) for si in s]
        bias = rng.random() < 0.6
        module = torch.nn.ConvTranspose2d(c, d, k, stride=s, padding=p, output_padding=op, groups=g, bias=bias)
        layer = {"type": "conv_transpose2d", "filters": d, "kernel_size": k, "stride": s, "padding": p,
                 "output_padding": op, "groups": g, "bias": bias}
        agreed += _compare(torch, module, torch.empty([1, c] + spatial, device="meta"), spatial + [c], layer,
                           out_perm=[1, 2, 0])
    assert agreed > CASES // 2


@pytest.mark.external_check("rnn", "gru", "lstm")
@pytest.mark.parametrize("kind", ["rnn", "gru", "lstm"])
def test_recurrent(torch, kind):
    rng = random.Random(("rnn", "gru", "lstm").index(kind))  # hash() of a str changes per process
    cls = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[kind]
    for _ in range(CASES):
        n, m, t = rng.randint(1, 64), rng.randint(1, 64), rng.randint(1, 12)
        bias, bidirectional, seqs = rng.random() < 0.7, rng.random() < 0.5, rng.random() < 0.5
        module = cls(n, m, bias=bias, batch_first=True, bidirectional=bidirectional)
        layer = {"type": kind, "units": m, "bias": bias, "bidirectional": bidirectional, "return_sequences": seqs}
        flop, out_shape, params = _torch_count(torch, module.to("meta"), torch.empty(1, t, n, device="meta"))
        row = _engine([n], layer, t).rows[0]
        assert (row.params, row.forward_flop) == (params, flop), layer
        # torch returns every step; many-to-one keeps the last
        assert row.output_shape == (out_shape[1:] if seqs else out_shape[2:])


def test_lstm_counts_zero_on_cpu_but_not_on_meta(torch):
    """The trap the BRIEF names: FlopCounterMode sees nothing of nn.LSTM on CPU."""
    module = torch.nn.LSTM(8, 4, batch_first=True)
    cpu_flop, _, _ = _torch_count(torch, module, torch.zeros(1, 5, 8))
    meta_flop, _, _ = _torch_count(torch, module.to("meta"), torch.empty(1, 5, 8, device="meta"))
    assert cpu_flop == 0
    assert meta_flop == 5 * 8 * (8 * 4 + 4 * 4)  # 8·(N·M + M²) per step, T = 5
    assert _engine([8], {"type": "lstm", "units": 4}, 5).rows[0].forward_flop == meta_flop


@pytest.mark.external_check("multi_head_attention")
def test_multi_head_attention(torch):
    rng = random.Random(3)
    for _ in range(CASES):
        h = rng.randint(1, 8)
        w, length, bias = h * rng.randint(1, 16), rng.randint(1, 40), rng.random() < 0.7
        module = torch.nn.MultiheadAttention(w, h, bias=bias, batch_first=True)
        x = torch.empty(1, length, w, device="meta")
        flop, out_shape, params = _torch_count(torch, module.to("meta"), x, x, x)
        row = _engine([w], {"type": "multi_head_attention", "heads": h, "bias": bias}, length).rows[0]
        assert (row.params, row.forward_flop, row.output_shape) == (params, flop, out_shape[1:])


@pytest.mark.external_check("layer_norm", "activation", "dropout")
def test_transformer_encoder_layer_stack(torch):
    """A whole post-norm encoder layer: MHA + 2 dense + norms + activation, matmul convention."""
    w, h, ff, length = 64, 4, 256, 10
    module = torch.nn.TransformerEncoderLayer(w, h, ff, batch_first=True)
    flop, _, params = _torch_count(torch, module.to("meta"), torch.empty(1, length, w, device="meta"))
    layers = [{"type": "multi_head_attention", "heads": h}, {"type": "layer_norm"},
              {"type": "dense", "units": ff}, {"type": "activation", "function": "relu"},
              {"type": "dropout", "rate": 0.1}, {"type": "dense", "units": w}, {"type": "layer_norm"}]
    arch = Architecture.model_validate({"input": {"shape": [w], "sequence_length": length}, "layers": layers})
    result = evaluate(arch, "matmul")
    assert (result.params, result.forward_flop) == (params, flop)


@pytest.mark.external_check("self_attention")
def test_self_attention(torch):
    """One head: q, k (W → D) and v (W → N) projections, softmax(q·kᵀ/√D)·v, as three nn.Linear and two
    matmuls; FlopCounterMode counts the projections and the two products."""
    rng = random.Random(7)
    for _ in range(CASES):
        w, d, n, length, bias = (rng.randint(1, 40), rng.randint(1, 40), rng.randint(1, 40), rng.randint(1, 30),
                                 rng.random() < 0.5)
        q, k, v = (torch.nn.Linear(w, size, bias=bias).to("meta") for size in (d, d, n))

        class OneHead(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.q, self.k, self.v = q, k, v

            def forward(self, x):
                scores = self.q(x) @ self.k(x).transpose(-1, -2) / d ** 0.5
                return scores.softmax(-1) @ self.v(x)

        x = torch.empty(1, length, w, device="meta")
        flop, out_shape, params = _torch_count(torch, OneHead(), x)
        row = _engine([w], {"type": "self_attention", "key_size": d, "value_size": n, "bias": bias}, length).rows[0]
        assert (row.params, row.forward_flop, row.output_shape) == (params, flop, out_shape[1:])
