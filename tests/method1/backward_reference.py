"""The external reference for the backward pass: ``FlopCounterMode`` over a real ``loss.backward()``.

The net runs on the ``meta`` device in eval mode; the loss is ``out.sum()``, whose backward is an
``expand`` (0 FLOP counted), so the figure is the net's own backward. Parameters train where their
``requires_grad`` is set; the input needs no gradient unless asked.

One correction, stated in docs/training.md: ``FlopCounterMode``'s formula for a convolution's weight
gradient ignores ``groups`` (it counts C·D·K² per output position, g times the arithmetic); the count
here uses the forward formula for it, which is what the grouped kernel computes. ``grouped_weight_gap``
measures that difference so a test can show it.
"""
from __future__ import annotations


def _conv_backward(torch):
    from torch.utils.flop_counter import conv_flop_count

    def formula(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed,
                _output_padding, _groups, output_mask, out_shape=None, **_):
        flop = 0
        if output_mask[0]:  # ∂x: as torch counts it (the weight is already per group)
            flop += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
        if output_mask[1]:  # ∂W: the forward's multiply-accumulates once
            flop += conv_flop_count(x_shape, w_shape, grad_out_shape, transposed)
        return flop

    return formula


def counter(torch, corrected: bool = True, meta: bool = True):
    """FlopCounterMode (with the grouped-convolution correction), over remembered meta shape functions
    (``tests/meta_memo.py``) for a model on the meta device."""
    from tests.meta_memo import flop_counter

    mapping = {torch.ops.aten.convolution_backward: _conv_backward(torch)} if corrected else {}
    return flop_counter(remember=meta, custom_mapping=mapping)


def forward_backward(torch, module, *inputs, corrected: bool = True, kwargs=None) -> tuple[int, int]:
    """(forward FLOP, backward FLOP) of ``module(*inputs)`` and ``out.sum().backward()``."""
    parameters = getattr(module, "parameters", None)  # a module, or a function of modules
    meta = parameters is None or all(p.is_meta for p in parameters())
    with counter(torch, corrected, meta) as c:
        out = module(*inputs, **(kwargs or {}))
        forward = c.get_total_flops()
        out = out[0] if isinstance(out, tuple) else out
        out = next((getattr(out, name) for name in ("logits", "pooler_output", "last_hidden_state")
                    if getattr(out, name, None) is not None), out)
        if out.requires_grad:
            out.float().sum().backward()
    return forward, c.get_total_flops() - forward


def set_trainable(module, trainable: bool) -> None:
    for p in module.parameters():
        p.requires_grad_(trainable)


def lora_linear(torch, base, rank: int):
    """``base`` (an ``nn.Linear``) frozen, and a trainable adapter B·A of two ``nn.Linear`` without bias added."""
    nn = torch.nn

    class LoraLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.base = base
            set_trainable(self.base, False)
            self.a = nn.Linear(base.in_features, rank, bias=False)
            self.b = nn.Linear(rank, base.out_features, bias=False)

        def forward(self, x):
            return self.base(x) + self.b(self.a(x))

    return LoraLinear()
