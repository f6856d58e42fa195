"""Mamba's mixer rows (engine.method1.state_space) from formulas written here and from FlopCounterMode on
torch's own depthwise convolution; whole Mamba models against transformers are in tests/llm."""
from __future__ import annotations

import pytest

from engine.method1.architecture import Architecture, InputSpec, evaluate
from engine.method1.transformer import TransformerBlock

D, L, I, N, K, R = 24, 7, 48, 6, 4, 3


def _block(**kw) -> TransformerBlock:
    return TransformerBlock(type="transformer_block", heads=1, mixer="mamba", feed_forward=False, norm="rmsnorm",
                            ssm_inner_size=I, ssm_state_size=N, ssm_conv_kernel=K, ssm_dt_rank=R, **kw)


def _rows(block: TransformerBlock) -> dict:
    from engine.method1.layers import Flow

    return {p.name: p for p in block.cost(Flow((D,), L)).parts}


def test_selective_scan_full_convention_from_the_formula():
    """The scan's element-wise recurrence, which FlopCounterMode does not see: per position and channel
    exp(Δ·A) (2/state), Δ·B·u (2/state), h ← Ā·h + B̄u (2/state), + D·u (2), ·SiLU(z) (5 + 1); + 2·I·N once."""
    scan = _rows(_block())["mamba selective scan"]
    assert scan.macs == L * I * N  # y = C·h: the only matmul of the scan
    assert scan.extra_flop == L * (6 * I * N + 2 * I + 6 * I) + 2 * I * N
    assert scan.params == I * N + I  # A (as log A) and D
    full = evaluate(Architecture(input=InputSpec(shape=[D], sequence_length=L), layers=[_block()]), "full")
    matmul = evaluate(Architecture(input=InputSpec(shape=[D], sequence_length=L), layers=[_block()]), "matmul")
    assert full.forward_flop - matmul.forward_flop >= scan.extra_flop  # counted in full only


def test_rows_params_from_the_formula():
    rows = _rows(_block(ssm_bias=True, ssm_conv_bias=False))
    assert rows["mamba in projection"].params == D * 2 * I + 2 * I
    assert rows["mamba causal convolution"].params == I * K
    assert rows["mamba x projection (Δ, B, C)"].params == I * (R + 2 * N)
    assert rows["mamba Δ projection"].params == R * I + I
    assert rows["mamba out projection"].params == I * D + D


def test_convolution_counts_what_flop_counter_mode_sees(torch):
    """nn.Conv1d(I, I, K, groups=I, padding=K − 1) over L positions: FlopCounterMode counts 2·I·K·(L + K − 1)."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):
        conv = torch.nn.Conv1d(I, I, K, groups=I, padding=K - 1)
        x = torch.zeros(1, I, L)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        conv(x)
    assert 2 * _rows(_block())["mamba causal convolution"].macs == counter.get_total_flops()


def test_a_mamba_mixer_needs_its_sizes():
    from engine.errors import InputError, parse_input

    with pytest.raises(InputError, match="ssm_inner_size"):
        parse_input(TransformerBlock, {"type": "transformer_block", "heads": 1, "mixer": "mamba"})
