"""External counts: a Hugging Face Mixtral built on the meta device gives the parameters (and the expert
parameters) that the memory formulas multiply; nothing here comes from FLOPscope's own count."""
from __future__ import annotations

import pytest

from engine.llm.config import read_hf_config
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.memory import memory_per_chip
from engine.plan.model import plan_model

MIXTRAL_SMALL = {"model_type": "mixtral", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 4,
                 "num_attention_heads": 8, "num_key_value_heads": 4, "num_local_experts": 8,
                 "num_experts_per_tok": 2, "vocab_size": 1000, "max_position_embeddings": 256,
                 "tie_word_embeddings": False}


@pytest.fixture(scope="module")
def hf_counts(torch):
    transformers = pytest.importorskip("transformers")
    config = transformers.MixtralConfig(**{k: v for k, v in MIXTRAL_SMALL.items() if k != "model_type"})
    with torch.device("meta"):
        model = transformers.MixtralForCausalLM(config)
    total = sum(p.numel() for p in model.parameters())
    experts = sum(p.numel() for name, p in model.named_parameters() if ".experts." in name)
    last = sum(p.numel() for name, p in model.named_parameters() if name.startswith(("model.norm.", "lm_head.")))
    return total, experts, last


def _most_loaded(counts, pp):
    """(dense, expert) parameters of the fullest of ``pp`` even stages, from transformers' modules: the first holds
    ``embed_tokens`` (the last ``norm`` and the untied ``lm_head``: Megatron-LM's placement) and, under 1F1B, p
    micro-batches of activations where the last holds one, so its total is the largest."""
    total, experts, last = counts
    first = MIXTRAL_SMALL["vocab_size"] * MIXTRAL_SMALL["hidden_size"]
    blocks = total - experts - first - last
    if pp == 1:
        return total - experts, experts
    return blocks / pp + first, experts / pp


def test_parameters_and_expert_parameters_match_transformers(hf_counts):
    total, experts, _ = hf_counts
    model = plan_model(read_hf_config(MIXTRAL_SMALL).architecture(256))
    assert model.params == total
    assert model.expert_params == experts and model.experts == 8


@pytest.mark.parametrize("tp,pp,ep,dp,zero", [(1, 1, 1, 1, 0), (2, 2, 4, 4, 0), (1, 1, 8, 8, 1), (2, 1, 2, 4, 3)])
def test_model_states_shard_the_counted_parameters(hf_counts, tp, pp, ep, dp, zero):
    dense, experts = _most_loaded(hf_counts, pp)
    model = plan_model(read_hf_config(MIXTRAL_SMALL).architecture(256))
    mem = memory_per_chip(model, Layout(dp=dp, tp=tp, pp=pp, ep=ep), MemoryOptions(zero=zero))
    mp_dense, mp_experts = dense / tp, experts / (tp * ep)
    # ZeRO shards the dense states over d and the experts' over the d/e replicas that hold the same experts
    sharded = mp_dense / dp + mp_experts / (dp // ep)
    whole = mp_dense + mp_experts
    expected = {0: 16 * whole, 1: 4 * whole + 12 * sharded, 2: 2 * whole + 14 * sharded, 3: 16 * sharded}[zero]
    assert mem.model_states == pytest.approx(expected)
