"""DeepSeek-V4 (``deepseek_v4``): the full convention of its compressed attention and hyper-connections, from formulas
written here (the matmul counts, forward and backward, are checked against transformers in
tests/llm/test_families_hf.py and test_backward_hf.py; DeepSeek-V4-Flash by hand in test_families.py)."""
from __future__ import annotations

import pytest

from engine.llm.config import read_hf_config
from engine.method1.architecture import Architecture, evaluate
from engine.method1.transformer import HyperHead, TransformerBlock

V4 = {"model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"], "hidden_size": 64,
      "moe_intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 16, "q_lora_rank": 12,
      "n_routed_experts": 4, "num_experts_per_tok": 2, "vocab_size": 128, "o_groups": 2, "o_lora_rank": 10,
      "index_n_heads": 3, "index_head_dim": 8, "hc_mult": 3, "max_position_embeddings": 64,
      "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8}}
D, H, Q, N, HI, DI = 64, 4, 16, 3, 3, 8


def _extras(config: dict, length: int) -> int:
    arch = read_hf_config(config).architecture(length)
    return evaluate(arch, "full").forward_flop - evaluate(arch, "matmul").forward_flop


@pytest.mark.parametrize("length", [3, 10, 17])
def test_compressed_layers_full_convention_extras(length):
    """Against the same model of sliding layers only, a compressed layer's ``full`` extras add, for T = ⌊L/m⌋
    entries of w·m slots of D (w = 2 on compressed sparse layers): the position bias on the T·m·w·D gates, the
    softmax (5) and the weighted sum (2) per slot and channel, an RMSNorm with a gain (4 per value) per entry; the
    softmax and 1/√D of the T more scores per query and head (6·H·L·T); compressed sparse attention's indexer too:
    its own pooling at D_I, the head weights' scale (L·H_I), ReLU, scale, weight and sum per score (4·H_I·L·T)."""
    def pool(entries, rate, width, size):
        return entries * rate * width * size + 7 * entries * width * rate * size + 4 * entries * size

    layers = 3
    sliding = _extras(V4 | {"layer_types": ["sliding_attention"] * layers}, length)
    t_hca, t_csa = length // 8, length // 4
    hca = pool(t_hca, 8, 1, Q) + 6 * H * length * t_hca
    csa = pool(t_csa, 4, 2, Q) + 6 * H * length * t_csa + pool(t_csa, 4, 2, DI) + length * HI + 4 * HI * length * t_csa
    assert _extras(V4 | {"layer_types": ["heavily_compressed_attention"] * layers}, length) - sliding == layers * hca
    assert _extras(V4 | {"layer_types": ["compressed_sparse_attention"] * layers}, length) - sliding == layers * csa


@pytest.mark.parametrize("rounds", [1, 3, 20])
def test_hyper_connections_by_hand(rounds):
    """Each block's two hyper-connections, against the same blocks without them and without the final hyper head:
    matmul, per sub-layer, the weights N·d→(2+N)·N and comb × streams N²·d per position; the head N·d→N. Full, per
    sub-layer and position: the gainless RMSNorm of N·d (3 per value), scale and bias of the (2+N)·N weights, 2N
    sigmoids (4) with post's ×2 and pre's +ε, comb's softmax (5) and +ε over N², 2·rounds − 1 Sinkhorn
    normalisations of N² (a sum and a divide each), the collapse (N·d products, (N − 1)·d adds), post × output and
    the add (2·N·d); the head: its norm, scale, bias, sigmoid and +ε of N, the collapse."""
    length, layers = 6, 3
    arch = read_hf_config(V4 | {"hc_sinkhorn_iters": rounds}).architecture(length)
    plain = Architecture(input=arch.input, layers=[
        layer.model_copy(update={"hyper": None}) if isinstance(layer, TransformerBlock) else layer
        for layer in arch.layers if not isinstance(layer, HyperHead)])
    width, out = N * D, (2 + N) * N
    matmul = 2 * layers * length * (width * out + N * N * D) + length * width * N
    sub_layer = length * (3 * width + 2 * out + 2 * N * 4 + 2 * N + N * N * 6 + (2 * rounds - 1) * 2 * N * N
                          + (2 * N - 1) * D) + 2 * length * N * D
    head = length * (3 * width + N * 7 + (2 * N - 1) * D)
    assert evaluate(arch, "matmul").forward_flop - evaluate(plain, "matmul").forward_flop == 2 * matmul
    assert evaluate(arch, "full").forward_flop - evaluate(plain, "full").forward_flop \
        == 2 * matmul + 2 * layers * sub_layer + head
    params = layers * 2 * (width * out + out + 3) + N * width + N + 1
    assert evaluate(arch).params - evaluate(plain).params == params


def test_plan_reads_the_attention_core_of_every_layer():
    """The plan's attention core (the rows QKᵀ and AV, which selective recomputation runs again): 2·H·L·(L+T)·D
    multiply-accumulates per layer, T = ⌊L/m⌋ compressed keys (none on the sliding layer)."""
    from engine.plan.model import plan_model

    length = 10
    arch = read_hf_config(V4 | {"layer_types": ["sliding_attention", "compressed_sparse_attention",
                                                "heavily_compressed_attention"]}).architecture(length)
    keys = [length, length + length // 4, length + length // 8]
    assert plan_model(arch).attention_core_flop == sum(2 * 2 * H * length * k * Q for k in keys)


def test_absent_sizes_are_deepseek_v4_config_defaults(torch):
    """A file naming only the type: DeepseekV4Config's defaults (V4-Flash's sizes with its default layer kinds: two
    heavily compressed layers, then compressed sparse and heavily compressed alternating) = transformers on meta."""
    from tests.llm.hf_reference import counts

    config = {"model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"]}
    result = evaluate(read_hf_config(config).architecture(8))
    assert (result.params, result.forward_flop) == counts(config, 8)
