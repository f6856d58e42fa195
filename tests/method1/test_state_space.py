"""Mamba's mixer rows (engine.method1.state_space) from formulas written here and from FlopCounterMode on
torch's own depthwise convolution; whole Mamba models against transformers are in tests/llm."""
from __future__ import annotations

import pytest

from engine.method1.architecture import Architecture, InputSpec, evaluate
from engine.method1.transformer import TransformerBlock

D, L, I, N, K, R = 24, 7, 48, 6, 4, 3


def _block(**kw) -> TransformerBlock:
    """A Mamba block (the mixer's fields in ``kw``), no feed-forward, RMS norms."""
    mixer = {"kind": "mamba", "inner_size": I, "state_size": N, "conv_kernel": K, "dt_rank": R} | kw
    return TransformerBlock(mixer=mixer, feed_forward=None, norms={"kind": "rmsnorm"})


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
    rows = _rows(_block(bias=True, conv_bias=False))
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

    with pytest.raises(InputError, match=r"^mixer\.inner_size: "):
        parse_input(TransformerBlock, {"type": "transformer_block", "mixer": {"kind": "mamba"}})


# ---------------------------------------------------------------- Mamba-2

H, P, G, Q = 6, 8, 2, 4  # heads, head size (I = H·P = 48), groups, chunk length


def _block2(**kw) -> TransformerBlock:
    mixer = {"kind": "mamba2", "inner_size": H * P, "state_size": N, "conv_kernel": K, "heads": H, "groups": G,
             "chunk_size": Q, "activation": "silu"} | kw
    return TransformerBlock(mixer=mixer, feed_forward=None, norms={"kind": "rmsnorm"})


def _with_mixer(block: TransformerBlock, **change) -> dict:
    return block.model_dump() | {"mixer": block.mixer.model_dump() | change}


def test_mamba2_params_from_the_formula():
    """in_proj d→2I+2GN+H, a conv over I+2GN channels (+ bias), Δ's bias, A and D (H each), the gated norm's γ (I),
    out_proj I→d; biases on the projections with ``bias``."""
    rows = _rows(_block2(bias=True))
    i = H * P
    assert rows["mamba2 in projection (z, x, B, C, Δ)"].params == D * (2 * i + 2 * G * N + H) + 2 * i + 2 * G * N + H
    assert rows["mamba2 causal convolution"].params == (i + 2 * G * N) * (K + 1)
    assert sum(r.params for name, r in rows.items() if "scan" in name) == 3 * H
    assert rows["mamba2 gated RMS norm"].params == i
    assert rows["mamba2 out projection"].params == i * D + D


def test_mamba2_scan_products_are_what_flop_counter_mode_sees(torch):
    """transformers' own chunked scan (``mamba2_chunk_scan``, run on meta tensors) under FlopCounterMode: the five
    products over L padded to whole chunks — C·Bᵀ L_p·Q·H·N, diagonal blocks L_p·Q·H·P, chunk states L_p·H·P·N,
    passing (c+1)²·H·P·N, read-out L_p·H·P·N (L = 7, Q = 4: L_p = 8, c = 2)."""
    from torch.utils.flop_counter import FlopCounterMode
    from transformers.models.mamba2.modeling_mamba2 import mamba2_chunk_scan

    with torch.device("meta"):
        x, dt = torch.zeros(1, L, H, P), torch.zeros(1, L, H)
        b, c, a = torch.zeros(1, L, G, N), torch.zeros(1, L, G, N), torch.zeros(H)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        mamba2_chunk_scan(x, dt, a, b, c, chunk_size=Q, D=torch.zeros(H, device="meta"))
    padded, count = 8, 2
    expected = padded * Q * H * N + padded * Q * H * P + 2 * padded * H * P * N + (count + 1) ** 2 * H * P * N
    assert counter.get_total_flops() == 2 * expected
    rows = _rows(_block2())
    assert 2 * sum(r.macs for name, r in rows.items() if "scan" in name) == counter.get_total_flops()


def test_mamba2_scan_full_convention_from_the_formula():
    """What FlopCounterMode does not count (element-wise): per position Δ + bias, softplus (3), x·Δ, A·Δ; per
    padded position D·x, cumsum, 3·Q per head (segment sums, exp, mask product), 2 + N + 1 per head (decays, B ×
    decay), the read-out × decay, the sum of both outputs, + D·x; 2·H·(c+1)² between chunks; 2·H once."""
    scan = sum(r.extra_flop for name, r in _rows(_block2()).items() if "scan" in name)
    i, padded, count = H * P, 8, 2
    assert scan == L * (4 * H + i + H) + padded * (i + H + 3 * H * Q + 2 * H + H * N + H + 3 * i) \
        + 2 * H * (count + 1) ** 2 + 2 * H
    norm = _rows(_block2())["mamba2 gated RMS norm"]
    assert norm.extra_flop == L * i * (5 + 1) + L * i * 4  # y·SiLU(z); square, mean, normalise, × γ
    arch = Architecture(input=InputSpec(shape=[D], sequence_length=L), layers=[_block2()])
    assert evaluate(arch, "full").forward_flop - evaluate(arch, "matmul").forward_flop >= scan + norm.extra_flop


def test_a_mamba2_mixer_needs_whole_heads_and_groups():
    from engine.errors import InputError, parse_input

    with pytest.raises(InputError, match=r"^mixer\.heads: "):
        parse_input(TransformerBlock, _with_mixer(_block2(), heads=5))  # 5 does not divide I = 48
    with pytest.raises(InputError, match=r"^mixer\.heads: "):
        parse_input(TransformerBlock, _with_mixer(_block2(), groups=4))  # 4 groups do not divide 6 heads
    with pytest.raises(InputError, match=r"^mixer\.chunk_size: "):
        parse_input(TransformerBlock, _with_mixer(_block2(), chunk_size=None))


# ---------------------------------------------------------------- Gated DeltaNet (Qwen3-Next's linear attention)

HV, DV, HK, DK, C = 4, 6, 2, 5, 4  # value heads of d_v, key heads of d_k, chunk length (L = 7: L_p = 8, two chunks)


def _deltanet(**kw) -> TransformerBlock:
    mixer = {"kind": "gated_deltanet", "inner_size": HV * DV, "state_size": DK, "conv_kernel": K, "heads": HV,
             "groups": HK, "chunk_size": C, "activation": "silu"} | kw
    return TransformerBlock(mixer=mixer, feed_forward=None, norms={"kind": "rmsnorm"})


def test_gated_deltanet_params_from_the_formula():
    """in projections d→2·G·d_k + 2·H·d_v and d→2·H, the depthwise convolution over 2·G·d_k + H·d_v channels (no
    bias), A and Δ's bias (H each), the gated norm's γ (d_v, shared by the heads), out projection H·d_v→d."""
    rows = _rows(_deltanet())
    assert rows["gated deltanet in projection (q, k, v, z)"].params == D * (2 * HK * DK + 2 * HV * DV)
    assert rows["gated deltanet in projection (β, a)"].params == D * 2 * HV
    assert rows["gated deltanet causal convolution"].params == (2 * HK * DK + HV * DV) * K
    assert sum(r.params for name, r in rows.items() if "scan" in name) == 2 * HV
    assert rows["gated deltanet gated RMS norm"].params == DV
    assert rows["gated deltanet out projection"].params == HV * DV * D


def test_gated_delta_rule_products_are_what_flop_counter_mode_sees(torch):
    """transformers' own chunked rule (``torch_chunk_gated_delta_rule`` on meta tensors, chunks of C; q and k on G
    heads, repeated to the H value heads) under FlopCounterMode: 2·H·L_p·C·d_k (k_β·kᵀ, q·kᵀ) + H·L_p·C·d_v
    (attention × new values) + 3·H·L_p·d_k·d_v (two reads of the passed state and its update, per chunk)."""
    from torch.utils.flop_counter import FlopCounterMode
    from transformers.models.qwen3_next.modeling_qwen3_next import torch_chunk_gated_delta_rule

    with torch.device("meta"):
        q, k, v = torch.zeros(1, L, HK, DK), torch.zeros(1, L, HK, DK), torch.zeros(1, L, HV, DV)
        g, beta = torch.zeros(1, L, HV), torch.zeros(1, L, HV)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        torch_chunk_gated_delta_rule(q, k, v, g=g, beta=beta, chunk_size=C, use_qk_l2norm_in_kernel=True)
    padded = 8
    expected = 2 * HV * padded * C * DK + HV * padded * C * DV + 3 * HV * padded * DK * DV
    assert counter.get_total_flops() == 2 * expected
    rows = _rows(_deltanet())
    assert 2 * sum(r.macs for name, r in rows.items() if "scan" in name) == counter.get_total_flops()


def test_gated_delta_rule_backward_products_are_what_flop_counter_mode_sees(torch):
    """The rule's backward under FlopCounterMode, every input needing a gradient: twice the forward products,
    plus the triangular solves' ∂T = −(T⁻ᵀ∂X)·Xᵀ (H·L_p·C·(d_v + d_k)), minus the first chunk's reads of the zero
    state's gradient (2·H·C·d_k·d_v) and the discarded last state update's backward (2·H·C·d_k·d_v); the engine's
    rows give the same through the block's data flow."""
    from engine.method1.backward import parts_grad
    from engine.method1.layers import Flow
    from transformers.models.qwen3_next.modeling_qwen3_next import torch_chunk_gated_delta_rule

    from tests.method1.backward_reference import counter

    with torch.device("meta"):
        q, k, v = (torch.zeros(1, L, h, n, requires_grad=True) for h, n in ((HK, DK), (HK, DK), (HV, DV)))
        g, beta = torch.zeros(1, L, HV, requires_grad=True), torch.zeros(1, L, HV, requires_grad=True)
    with counter(torch) as c:
        out, _ = torch_chunk_gated_delta_rule(q, k, v, g=g, beta=beta, chunk_size=C, use_qk_l2norm_in_kernel=True)
        forward = c.get_total_flops()
        out.sum().backward()
    padded = 8
    forward_macs = forward // 2
    macs = 2 * forward_macs + HV * padded * C * (DV + DK) - 2 * HV * C * DK * DV - 2 * HV * C * DK * DV
    assert c.get_total_flops() - forward == 2 * macs
    parts = [p for p in _deltanet().cost(Flow((D,), L)).parts if "scan" in p.name]
    parts = [p._replace(src=tuple("x" if s in ("k", "b") else s for s in p.src)) for p in parts]  # the rule's inputs
    assert 2 * parts_grad(parts, True, False, False).macs == c.get_total_flops() - forward


def test_a_gated_deltanet_mixer_needs_whole_heads():
    from engine.errors import InputError, parse_input

    with pytest.raises(InputError, match=r"^mixer\.heads: "):
        parse_input(TransformerBlock, _with_mixer(_deltanet(), groups=3))  # 3 key heads do not divide 4
    with pytest.raises(InputError, match=r"^mixer\.chunk_size: "):
        parse_input(TransformerBlock, _with_mixer(_deltanet(), chunk_size=None))


# ---------------------------------------------------------------- LFM2's gated short convolution

def _short_conv(**kw) -> TransformerBlock:
    return TransformerBlock(mixer={"kind": "short_conv", "conv_kernel": K} | kw, feed_forward=None,
                            norms={"kind": "rmsnorm"})


@pytest.mark.parametrize("bias", [False, True])
def test_short_conv_rows_from_the_formula(bias):
    """in projection d→3d, the depthwise convolution d·K (+ d), out projection d→d; matmul: 3d² and d² per position, the
    convolution over L + K − 1 outputs; full: the two gates (L·d each), the bias adds, the residual add."""
    rows = _rows(_short_conv(bias=bias, conv_bias=bias))
    assert rows["short conv in projection (B, C, x)"].params == 3 * D * D + (3 * D if bias else 0)
    assert rows["short conv causal convolution"].params == D * K + (D if bias else 0)
    assert rows["short conv out projection"].params == D * D + (D if bias else 0)
    assert sum(p.macs for p in rows.values()) == L * 4 * D * D + D * K * (L + K - 1)
    gates = rows["short conv input gate B·x"].extra_flop + rows["short conv output gate C·conv"].extra_flop
    assert gates == 2 * L * D


def test_short_conv_is_what_flop_counter_mode_sees_in_transformers(torch):
    """transformers' Lfm2ShortConv on meta (no cache: the torch path), forward and, with every weight trained and an
    input that needs a gradient, backward (FlopCounterMode with the grouped convolution's weight gradient counted as
    the kernel computes it: tests/method1/backward_reference.py): 2 FLOP per multiply-accumulate of the mixer's rows,
    twice in the backward (weight and input gradients)."""
    import transformers

    from engine.method1.backward import parts_grad
    from engine.method1.layers import Flow
    from tests.method1.backward_reference import forward_backward

    config = transformers.Lfm2Config(hidden_size=D, conv_L_cache=K, conv_bias=True, num_hidden_layers=1,
                                     num_attention_heads=1, num_key_value_heads=1, layer_types=["conv"])
    with torch.device("meta"):
        mixer = transformers.models.lfm2.modeling_lfm2.Lfm2ShortConv(config, 0)
        x = torch.zeros(1, L, D, requires_grad=True)
    forward, backward = forward_backward(torch, mixer, x)
    parts = [p for p in _short_conv(bias=True, conv_bias=True).cost(Flow((D,), L)).parts
             if p.name.startswith("short conv")]
    macs = sum(p.macs for p in parts)
    assert 2 * macs == forward == 2 * (L * 4 * D * D + D * K * (L + K - 1))
    assert 2 * parts_grad(parts, True, True, False, {"h": True}).macs == backward == 2 * forward


def test_a_short_conv_mixer_needs_its_kernel():
    from engine.errors import InputError, parse_input

    with pytest.raises(InputError, match=r"^mixer\.conv_kernel: "):
        parse_input(TransformerBlock, {"type": "transformer_block", "mixer": {"kind": "short_conv"}})
