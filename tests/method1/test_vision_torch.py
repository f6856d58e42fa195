"""The vision kinds without arithmetic (``engine.method1.vision``: channel split and shuffle, layer scale,
stochastic depth) and Swin's kinds (``engine.method1.windows``: window attention, patch merging) against
PyTorch: Σ ``p.numel()``, ``FlopCounterMode`` on the meta device and the output shape, exactly.

The PyTorch twins are torchvision's modules rewritten in ``tests/method1/torch_nets.py``. Shapes here are
channels-last, as Swin's are in PyTorch too; channel split and shuffle act on the last axis.
"""
from __future__ import annotations

import random

import pytest

from engine.errors import InputError, parse_input
from engine.scenario import Scenario
from tests.method1 import evaluated

CASES = 30


def _count(torch, module, x):
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        out = module(x)
    return sum(p.numel() for p in module.parameters()), counter.get_total_flops(), list(out.shape[1:])


def _row(shape, layer):
    result = evaluated(shape, [layer])
    return result.params, result.forward_flop, result.rows[0].output_shape


def _meta(torch, *shape):
    return torch.empty(1, *shape, device="meta")


@pytest.mark.external_check("channel_split")
def test_channel_split_is_torch_chunk(torch):
    rng = random.Random(1)
    compared = raised = 0
    for _ in range(CASES * 2):
        shape = [rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 40)]
        chunks, index = rng.randint(1, 8), rng.randint(0, 7)
        layer = {"type": "channel_split", "chunks": chunks, "index": index}
        pieces = _meta(torch, *shape).chunk(chunks, dim=-1)
        if index >= len(pieces):
            with pytest.raises(InputError, match="past the last slice"):
                evaluated(shape, [layer])
            raised += 1
            continue
        split = torch.nn.Module()
        split.forward = lambda x, i=index, n=chunks: x.chunk(n, dim=-1)[i]
        assert _row(shape, layer) == _count(torch, split, _meta(torch, *shape))
        compared += 1
    assert compared > CASES // 2 and raised > 3


@pytest.mark.external_check("channel_shuffle")
def test_channel_shuffle(torch):
    from tests.method1.torch_nets import channel_shuffle

    rng = random.Random(2)
    for _ in range(CASES):
        groups = rng.randint(1, 6)
        c = groups * rng.randint(1, 8)
        h, w = rng.randint(1, 9), rng.randint(1, 9)
        shuffle = torch.nn.Module()
        shuffle.forward = lambda x, g=groups: channel_shuffle(x, g)
        params, flop, out = _count(torch, shuffle, _meta(torch, c, h, w))
        assert _row([h, w, c], {"type": "channel_shuffle", "groups": groups}) == (params, flop, out[1:] + out[:1])
    with pytest.raises(InputError, match="groups 3 must divide the channels C = 8"):
        evaluated([4, 4, 8], [{"type": "channel_shuffle", "groups": 3}])


@pytest.mark.external_check("layer_scale")
def test_layer_scale(torch):
    rng = random.Random(3)
    for _ in range(CASES):
        shape = [rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 64)]

        class Scale(torch.nn.Module):
            def __init__(self, c):
                super().__init__()
                self.gamma = torch.nn.Parameter(torch.ones(c, device="meta") * 1e-6)

            def forward(self, x):
                return self.gamma * x

        assert _row(shape, {"type": "layer_scale"}) == _count(torch, Scale(shape[-1]), _meta(torch, *shape))
    full = evaluated([5, 7, 3], [{"type": "layer_scale"}], convention="full").rows[0]
    assert (full.params, full.forward_flop) == (3, 5 * 7 * 3)  # γ per channel, one multiply per element


@pytest.mark.external_check("stochastic_depth")
def test_stochastic_depth_counts_nothing_in_training_either(torch):
    from tests.method1.torch_nets import StochasticDepth

    for shape in ([56, 56, 96], [7, 7, 768], [197, 768]):
        drop = StochasticDepth(0.2).train()
        assert _row(shape, {"type": "stochastic_depth", "rate": 0.2}) == _count(torch, drop, _meta(torch, *shape))
    full = evaluated([4, 4, 8], [{"type": "stochastic_depth", "rate": 0.1}], convention="full").rows[0]
    assert full.forward_flop == 4 * 4 * 8  # the training-time mask multiply, as dropout


@pytest.mark.external_check("window_attention")
def test_window_attention(torch):
    from tests.method1.torch_nets import ShiftedWindowAttention

    rng = random.Random(4)
    for case in range(CASES):
        heads = rng.randint(1, 4)
        c = heads * rng.randint(1, 8)
        window = [rng.randint(1, 8), rng.randint(1, 8)]
        shift = [rng.randint(0, m - 1) for m in window]
        h, w = rng.randint(1, 20), rng.randint(1, 20)
        bias, table = rng.random() < 0.7, rng.random() < 0.7
        with torch.device("meta"):
            module = ShiftedWindowAttention(c, window, shift, heads, bias, table)
        layer = {"type": "window_attention", "heads": heads, "window_size": window, "shift": shift, "bias": bias,
                 "relative_position_bias": table}
        assert _row([h, w, c], layer) == _count(torch, module, _meta(torch, h, w, c)), layer


def test_window_attention_full_convention():
    """Swin-T's first block, 56×56×96, 7×7 windows, 3 heads, shifted: 64 windows of 49 tokens."""
    c, n, windows, heads = 96, 49, 64, 3
    tokens, scores = windows * n, windows * heads * n * n
    matmul = 2 * (tokens * 4 * c * c + 2 * windows * n * n * c)
    extra = tokens * 4 * c + tokens * c + 2 * scores + 5 * scores  # biases, q scaling, table + mask, softmax
    layer = {"type": "window_attention", "heads": heads, "shift": 3}
    assert evaluated([56, 56, c], [layer], convention="full").forward_flop == matmul + extra
    unshifted = evaluated([56, 56, c], [dict(layer, shift=0)], convention="full").forward_flop
    assert unshifted == matmul + extra - scores  # no mask to add
    # a 7×7 grid is one window: torchvision does not shift it, so there is no mask either
    small = evaluated([7, 7, c], [layer], convention="full").forward_flop
    assert small == 2 * (n * 4 * c * c + 2 * n * n * c) + n * 5 * c + 6 * heads * n * n


@pytest.mark.external_check("patch_merging")
def test_patch_merging(torch):
    from tests.method1.torch_nets import PatchMerging

    rng = random.Random(5)
    for _ in range(CASES):
        h, w, c = rng.randint(1, 15), rng.randint(1, 15), rng.randint(1, 48)
        out = rng.choice([None, rng.randint(1, 64)])
        with torch.device("meta"):
            module = PatchMerging(c, out)
        layer = {"type": "patch_merging"} | ({"out_channels": out} if out else {})
        assert _row([h, w, c], layer) == _count(torch, module, _meta(torch, h, w, c)), layer


def test_patch_merging_full_convention():
    """7×9×96 → padded 8×10 → 4×5 positions of 384 values, normed (7 FLOP each) and projected to 192."""
    rows = evaluated([7, 9, 96], [{"type": "patch_merging"}], convention="full").rows
    assert [(r.part, r.params, r.forward_flop) for r in rows] == [
        ("norm", 2 * 384, 7 * 4 * 5 * 384), ("reduction", 384 * 192, 2 * 4 * 5 * 384 * 192)]
    assert rows[0].output_shape == [4, 5, 192]


@pytest.mark.parametrize("shape, layer, message", [
    ([96], {"type": "window_attention", "heads": 3}, "expects a grid [H, W, C]"),
    ([8, 8, 96], {"type": "window_attention", "heads": 5}, "heads 5 must divide the channels C = 96"),
    ([8, 8, 96], {"type": "window_attention", "heads": 3, "window_size": 4, "shift": 4},
     "shift 4 must be smaller than the window 4"),
    ([8, 8, 96], {"type": "window_attention", "heads": 3, "window_size": [4, 4, 4]},
     "window_size has 3 values, expected 1 or 2"),
    ([8, 96], {"type": "patch_merging"}, "expects a grid [H, W, C]"),
    ([8, 8, 5], {"type": "channel_split", "chunks": 4, "index": 3},
     "index 3 is past the last slice: 5 channels in slices of 2 make 3 (index 0 to 2)"),
])
def test_bad_shapes_name_the_layer_and_the_reason(shape, layer, message):
    with pytest.raises(InputError) as caught:
        evaluated(shape, [layer])
    assert caught.value.field == "layers[0]"
    assert message in caught.value.reason and "\n" not in str(caught.value)


@pytest.mark.parametrize("layer, field", [
    ({"type": "window_attention", "heads": 0}, "heads"),
    ({"type": "window_attention", "heads": 3, "shift": -1}, "shift"),
    ({"type": "window_attention", "heads": 3, "window_size": 10 ** 5000}, "window_size"),
    ({"type": "stochastic_depth", "rate": 1.0}, "rate"),
    ({"type": "stochastic_depth", "rate": float("nan")}, "rate"),
    ({"type": "channel_split", "chunks": 0}, "chunks"),
    ({"type": "channel_split", "index": -1}, "index"),
    ({"type": "channel_shuffle", "groups": 1e308}, "groups"),
    ({"type": "patch_merging", "out_channels": 0}, "out_channels"),
    ({"type": "max_pool2d", "kernel_size": 3, "ceil_mode": "sometimes"}, "ceil_mode"),
])
def test_bad_values_are_one_line_naming_the_field(layer, field):
    with pytest.raises(InputError) as caught:
        parse_input(Scenario, {"input": {"shape": [8, 8, 96]}, "layers": [layer]})
    assert caught.value.field == f"layers[0].{field}", caught.value
    assert "\n" not in str(caught.value) and "pydantic" not in str(caught.value)
