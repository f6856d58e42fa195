"""Random small configs (Qwen3, Gemma 3, Qwen2-MoE, DeepSeek-V3, GLM-4, EXAONE 4, OLMo 3, OLMoE) against
transformers (meta device): parameters and forward FLOP equal, whatever the sizes (hypothesis; CI replays a
fixed seed)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.llm.config import read_hf_config
from engine.method1.architecture import evaluate

pytest.importorskip("transformers")
from tests.llm.hf_reference import counts

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def decoder(draw, model_type: str, arch: str):
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    config = {"model_type": model_type, "architectures": [arch], "hidden_size": draw(st.integers(1, 8)) * 2 * heads,
              "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": draw(st.integers(2, 12)) * 2,
              "intermediate_size": draw(st.integers(1, 40)), "num_hidden_layers": draw(st.integers(1, 3)),
              "vocab_size": draw(st.integers(8, 60)), "max_position_embeddings": 64,
              "tie_word_embeddings": draw(st.booleans())}
    return config


@st.composite
def moe(draw, model_type: str, arch: str):
    config = draw(decoder(model_type, arch))
    e = draw(st.integers(2, 6))
    config |= {"num_experts": e, "num_experts_per_tok": draw(st.integers(1, e)),
               "moe_intermediate_size": draw(st.integers(1, 24))}
    if model_type == "qwen2_moe":
        config |= {"shared_expert_intermediate_size": draw(st.integers(1, 24)),
                   "decoder_sparse_step": draw(st.integers(1, 2)), "qkv_bias": draw(st.booleans())}
    return config


@st.composite
def deepseek(draw):
    config = draw(decoder("deepseek_v3", "DeepseekV3ForCausalLM"))
    config.pop("head_dim")
    e = draw(st.integers(2, 6))
    groups = draw(st.sampled_from([g for g in (1, 2) if e % g == 0 and e // g >= 2]))  # top-2 per group
    layers = config["num_hidden_layers"]
    config |= {"num_key_value_heads": config["num_attention_heads"], "q_lora_rank": draw(st.one_of(st.none(), st.integers(1, 20))),
               "kv_lora_rank": draw(st.integers(1, 20)), "qk_nope_head_dim": draw(st.integers(1, 8)) * 2,
               "qk_rope_head_dim": draw(st.integers(1, 4)) * 2, "v_head_dim": draw(st.integers(1, 12)),
               "n_routed_experts": e, "num_experts_per_tok": draw(st.integers(1, e // groups)) if groups > 1 else
               draw(st.integers(1, e)), "n_group": groups, "topk_group": 1,
               "n_shared_experts": draw(st.integers(0, 2)), "moe_intermediate_size": draw(st.integers(1, 16)),
               "first_k_dense_replace": draw(st.integers(0, layers))}
    return config


def _check(config, length):
    model = read_hf_config(config)
    result = evaluate(model.architecture(length), "matmul")
    assert (result.params, result.forward_flop) == counts(config, length)


@SETTINGS
@given(config=decoder("qwen3", "Qwen3ForCausalLM"), length=st.integers(1, 12))
def test_qwen3(torch, config, length):
    _check(config, length)


@SETTINGS
@given(config=decoder("gemma3_text", "Gemma3ForCausalLM"), length=st.integers(1, 12))
def test_gemma3(torch, config, length):
    _check(config, length)


@SETTINGS
@given(config=moe("qwen2_moe", "Qwen2MoeForCausalLM"), length=st.integers(1, 12))
def test_qwen2_moe(torch, config, length):
    _check(config, length)


@SETTINGS
@given(config=deepseek(), length=st.integers(1, 12))
def test_deepseek_v3(torch, config, length):
    _check(config, length)


TOKENS = {"pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}  # within the small vocabularies


@SETTINGS
@given(config=decoder("glm4", "Glm4ForCausalLM"), length=st.integers(1, 12))
def test_glm4(torch, config, length):
    _check(config | TOKENS, length)


@SETTINGS
@given(config=decoder("exaone4", "Exaone4ForCausalLM"), length=st.integers(1, 12))
def test_exaone4(torch, config, length):
    _check(config | TOKENS | {"sliding_window": 4}, length)


@SETTINGS
@given(config=decoder("olmo3", "Olmo3ForCausalLM"), length=st.integers(1, 12))
def test_olmo3(torch, config, length):
    _check(config | TOKENS, length)


@SETTINGS
@given(config=moe("olmoe", "OlmoeForCausalLM"), length=st.integers(1, 12))
def test_olmoe(torch, config, length):
    config.pop("head_dim")  # OLMoE's whole-width QK-norm is d wide: transformers builds only head_dim = d/H
    _check(config | TOKENS, length)
