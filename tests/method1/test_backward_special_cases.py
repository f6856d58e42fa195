"""The cases where PyTorch's counter or autograd does something special, as docs/training.md states them."""
from __future__ import annotations

from tests.method1 import evaluated, flat_block
from tests.method1.backward_reference import forward_backward, set_trainable


def test_lstm_on_cpu_counts_nothing_so_the_twin_is_built_from_linear(torch):
    """On CPU, ``FlopCounterMode`` sees no product inside ``nn.LSTM`` (a fused kernel), forward or backward.
    The twin of the same cell from ``nn.Linear`` (i, f, g, o gates from x and h at every step, h₀ = 0) is
    counted, and equals the engine's count: weight gradients 8·T·(N·M + M²), the input gradient 8·T·N·M
    when the input needs one, the hidden state's 8·(T − 1)·M² (none at step 0)."""
    n, m, t = 6, 4, 5
    lstm = torch.nn.LSTM(n, m, batch_first=True)
    x = torch.randn(1, t, n, requires_grad=True)
    assert forward_backward(torch, lstm, x) == (0, 0)

    w_ih, w_hh = torch.nn.Linear(n, 4 * m), torch.nn.Linear(m, 4 * m)

    def twin(x):
        h = c = torch.zeros(1, m)
        for step in range(t):
            i, f, g, o = (w_ih(x[:, step]) + w_hh(h)).chunk(4, -1)
            c = f.sigmoid() * c + i.sigmoid() * g.tanh()
            h = o.sigmoid() * c.tanh()
        return h

    for grad_in in (True, False):
        forward, backward = forward_backward(torch, twin, torch.randn(1, t, n, requires_grad=grad_in))
        assert forward == 2 * 4 * t * (n * m + m * m)
        assert backward == 2 * (4 * t * (n * m + m * m) + (4 * t * n * m if grad_in else 0) + 4 * (t - 1) * m * m)
        layers = [{"type": "layer_norm", "trainable": grad_in}, {"type": "lstm", "units": m}]
        assert evaluated([n], layers, t).backward_flop == backward


def test_grouped_convolution_weight_gradient_formula_ignores_groups(torch):
    """``FlopCounterMode``'s formula for a convolution's weight gradient multiplies C·D·K² per output position,
    ignoring the groups: g times the grouped kernel's arithmetic (the forward's). The engine counts the
    arithmetic; the raw counter's excess is (g − 1) × the forward."""
    for g in (1, 2, 4):
        conv = torch.nn.Conv2d(8, 8, 3, groups=g).to("meta")
        set_trainable(conv, True)
        x = torch.empty(1, 8, 10, 10, device="meta")
        forward, corrected = forward_backward(torch, conv, x)
        _, raw = forward_backward(torch, conv, x, corrected=False)
        assert forward == 2 * 8 * 8 * 8 * (8 // g) * 9
        assert corrected == forward  # the weight gradient only: the data needs none
        assert raw - corrected == (g - 1) * forward
        layer = {"type": "conv2d", "filters": 8, "kernel_size": 3, "groups": g}
        assert evaluated([10, 10, 8], [layer]).backward_flop == corrected


def test_fused_attention_backward_counts_five_products(torch):
    """A fused attention kernel's backward (FlashAttention, SDPA's flash and memory-efficient backends) computes
    dQ, dK and dV whatever needs them, and recomputes the scores QKᵀ it did not keep: ``FlopCounterMode``'s
    formula for it counts five products (QKᵀ again, dP, dV, dQ, dK) of 2·H·L²·Q FLOP each. The engine counts what autograd asks for with eager attention: in a frozen
    block whose input needs no gradient, with LoRA on q only, dQ and dP (two products), not dK nor dV."""
    from torch.utils.flop_counter import sdpa_backward_flop_count

    b, h, length, q = 1, 2, 7, 4
    shape = (b, h, length, q)
    product = 2 * h * length * length * q
    assert sdpa_backward_flop_count(shape, shape, shape, shape) == 5 * product
    block = flat_block({"type": "transformer_block", "heads": h, "head_size": q, "ff_size": 8, "trainable": False,
             "lora": {"rank": 1, "targets": ["q"]}})
    rows = {row.part: row.backward_flop for row in evaluated([h * q], [block], length).rows}
    assert rows["attention scores QKᵀ"] == product  # dQ only
    assert rows["attention values AV"] == product  # dP only
