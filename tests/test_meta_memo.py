"""The remembered meta shape functions (``tests/meta_memo.py``) change no count: FlopCounterMode's totals, forward
and backward, are the same with and without them, and views and in-place results keep their identity."""
from __future__ import annotations

import pytest


def _llama(torch):
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=3,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=128)
    with torch.device("meta"):
        return transformers.LlamaForCausalLM._from_config(config, attn_implementation="eager")


def _conv_net(torch):
    nn = torch.nn
    with torch.device("meta"):
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 8, 3, groups=2),
                             nn.LayerNorm(6), nn.GELU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 10)).eval()


def _step(torch, model, inputs, counter):
    """(forward FLOP, forward + backward FLOP, the output's shape) under ``counter``."""
    with counter as c:
        out = model(*inputs)
        out = getattr(out, "logits", out)
        forward = c.get_total_flops()
        out.float().sum().backward()
    return forward, c.get_total_flops(), tuple(out.shape)


@pytest.mark.parametrize("make", [_llama, _conv_net])
def test_the_memo_changes_no_count(torch, make):
    from torch.utils.flop_counter import FlopCounterMode

    from tests.meta_memo import MetaMemo, flop_counter

    model = make(torch)
    inputs = ((torch.zeros(2, 12, dtype=torch.long, device="meta"),) if make is _llama
              else (torch.zeros(2, 3, 8, 8, device="meta"),))
    plain = _step(torch, model, inputs, FlopCounterMode(display=False))
    memo = MetaMemo()
    with memo:
        remembered = _step(torch, model, inputs, FlopCounterMode(display=False))
    again = _step(torch, model, inputs, flop_counter())
    assert plain[1] > plain[0] > 0
    assert remembered == again == plain
    assert memo.hits > 0  # the second and third layers' operators were answered from the memo


def test_views_and_in_place_results_keep_their_identity(torch):
    from tests.meta_memo import MetaMemo

    x = torch.zeros(4, 6, device="meta")
    with MetaMemo() as memo:
        for _ in range(2):
            assert x.add_(1) is x
            view = x.view(24)
            assert view._base is x and view.shape == (24,)
            y = x * 2  # functional: a fresh tensor of the same shape, from the memo the second time
            assert y is not x and y.shape == x.shape and y.stride() == x.stride() and y.dtype == x.dtype
    assert memo.hits >= 1


def test_a_cpu_tensor_runs_as_before(torch):
    from tests.meta_memo import flop_counter

    a, b = torch.ones(3, 4), torch.ones(4, 5)
    with flop_counter() as counter:
        out = a @ b
    assert out.device.type == "cpu" and float(out[0, 0]) == 4.0
    assert counter.get_total_flops() == 2 * 3 * 4 * 5
