"""Hugging Face ``config.json`` → parameter counts, against the sum of each model's weight shapes
(written out here, as the modelling code declares them) and published counts; bad configs → the key."""
from __future__ import annotations

import json
import math

import pytest

from engine.method1.architecture import evaluate
from engine.errors import InputError
from engine.llm.config import TransformerConfig, load_hf_config_text, read_hf_config, validate_transformer_config
from engine.llm.estimate import TransformerRun, estimate_transformer
from engine.scenario import parse_scenario

# Hugging Face's gpt2/config.json (extras kept: they must be ignored)
GPT2 = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
        "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
        "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": None,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}}, "vocab_size": 50257}

# meta-llama/Llama-2-7b-hf/config.json
LLAMA2_7B = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
             "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008,
             "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 32,
             "num_hidden_layers": 32, "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
             "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float16", "vocab_size": 32000}

MISTRAL_7B = {"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
              "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
              "max_position_embeddings": 32768, "sliding_window": 4096, "hidden_act": "silu",
              "tie_word_embeddings": False}

MIXTRAL_8X7B = MISTRAL_7B | {"model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2,
                             "sliding_window": None}


def params(config: dict, seq_len: int = 8) -> int:
    return evaluate(read_hf_config(config).architecture(seq_len)).params


def test_gpt2_small_is_124_439_808():
    d, v, ctx, ff = 768, 50257, 1024, 3072
    block = (2 * d                      # ln_1 γ, β
             + d * 3 * d + 3 * d        # c_attn (q, k, v)
             + d * d + d                # attn c_proj
             + 2 * d                    # ln_2
             + d * ff + ff + ff * d + d)  # mlp c_fc, c_proj
    expected = v * d + ctx * d + 12 * block + 2 * d  # wte, wpe, h.0–11, ln_f; lm_head tied to wte
    assert expected == 124_439_808  # Hugging Face gpt2: sum(p.numel()) = 124,439,808 ("124M")
    assert params(GPT2) == expected
    config = read_hf_config(GPT2)
    assert config.vocabulary_params == v * d + ctx * d


def test_llama2_7b():
    d, ff, v = 4096, 11008, 32000
    block = 4 * d * d + 3 * d * ff + 2 * d  # q, k, v, o; gate, up, down; two RMSNorm γ
    expected = 32 * block + d + 2 * v * d   # final norm; embed_tokens and an untied lm_head
    assert expected == 6_738_415_616        # Touvron et al. 2023 "7B"; HF Llama-2-7b-hf numel
    assert params(LLAMA2_7B) == expected


def test_mistral_7b_grouped_query():
    d, ff, v, kv = 4096, 14336, 32000, 8 * 128
    block = d * d + 2 * d * kv + d * d + 3 * d * ff + 2 * d
    expected = 32 * block + d + 2 * v * d
    assert expected == 7_241_732_096  # Jiang et al. 2023, "Mistral 7B": 7.24B
    assert params(MISTRAL_7B) == expected


def test_mistral_sliding_window_is_read_and_counted_with_the_unmasked_pairs():
    """Mistral 7B v0.1: sliding_window 4096 (Jiang et al. 2023, §2: W = 4096)."""
    config = read_hf_config(MISTRAL_7B)
    assert config.block.attention_window == 4096
    assert read_hf_config(MIXTRAL_8X7B).block.attention_window is None  # "sliding_window": null
    t, w, layers, h, q = 8192, 4096, 32, 32, 128
    full = estimate_transformer(config, TransformerRun(tokens=1e9, seq_len=t))
    half = estimate_transformer(config, TransformerRun(tokens=1e9, seq_len=t, causal_count="half"))
    pairs = w * (w + 1) // 2 + (t - w) * w      # min(i + 1, W) keys for query i
    saved_per_layer = 2 * (2 * h * q * (t * t - pairs))  # QKᵀ and AV, 2 FLOP per MAC
    sequences = 1e9 / t
    assert full.training_flop - half.training_flop == pytest.approx(3 * sequences * layers * saved_per_layer,
                                                                    rel=1e-12)
    caveats = {f["key"]: f["caveats"] for f in full.as_dict()["formula_details"]}
    assert any("W = 4096" in c for c in caveats["palm_6n_12lhqt"])
    assert not any("W = 4096" in c for c in caveats["kaplan_6nd"])
    short = estimate_transformer(config, TransformerRun(tokens=1e9, seq_len=4096)).as_dict()
    assert not any("W = " in c for f in short["formula_details"] for c in f["caveats"])  # W ≥ T: no effect


def test_mixtral_total_and_active():
    d, ff, v, kv, e, k = 4096, 14336, 32000, 8 * 128, 8, 2
    attention = d * d + 2 * d * kv + d * d
    expert = 3 * d * ff
    total = 32 * (attention + e * expert + d * e + 2 * d) + d + 2 * v * d  # router d·E, no bias
    active = 32 * (attention + k * expert + d * e + 2 * d) + d + 2 * v * d
    # Jiang et al. 2024, "Mixtral of Experts": 47B parameters, 13B active per token
    assert math.isclose(total, 46.7e9, rel_tol=0.01) and math.isclose(active, 12.9e9, rel_tol=0.01)
    result = evaluate(read_hf_config(MIXTRAL_8X7B).architecture(8))
    assert (result.params, result.active_params) == (total, active)


def test_pythia_160m_gpt_neox_parallel():
    """Biderman et al. 2023 (Pythia), Table 1: 162,322,944 parameters, 85,056,000 non-embedding."""
    config = {"model_type": "gpt_neox", "hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12,
              "num_hidden_layers": 12, "vocab_size": 50304, "max_position_embeddings": 2048, "rotary_pct": 0.25,
              "use_parallel_residual": True, "tie_word_embeddings": False, "hidden_act": "gelu"}
    d, ff, v = 768, 3072, 50304
    block = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (d * ff + ff) + (ff * d + d)
    assert 12 * block + 2 * d + 2 * v * d == 162_322_944
    model = read_hf_config(config)
    result = evaluate(model.architecture(2048))
    assert result.params == 162_322_944
    assert result.params - model.vocabulary_params == 85_056_000


def test_opt_125m_learned_positions_with_offset():
    config = {"model_type": "opt", "hidden_size": 768, "ffn_dim": 3072, "num_attention_heads": 12,
              "num_hidden_layers": 12, "vocab_size": 50272, "max_position_embeddings": 2048,
              "do_layer_norm_before": True, "word_embed_proj_dim": 768, "activation_function": "relu",
              "enable_bias": True}
    d, ff, v = 768, 3072, 50272
    block = (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (d * ff + ff) + (ff * d + d) + 2 * d
    # OPTLearnedPositionalEmbedding has 2,048 + 2 rows; lm_head tied to embed_tokens
    assert params(config) == v * d + 2050 * d + 12 * block + 2 * d == 125_239_296


def test_qwen2_0_5b_qkv_bias_tied():
    config = {"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864, "num_attention_heads": 14,
              "num_hidden_layers": 24, "num_key_value_heads": 2, "vocab_size": 151936,
              "max_position_embeddings": 32768, "tie_word_embeddings": True}
    d, ff, v, kv = 896, 4864, 151936, 2 * 64
    block = (d * d + d) + 2 * (d * kv + kv) + d * d + 3 * d * ff + 2 * d  # q, k, v with bias; o without
    assert params(config) == 24 * block + d + v * d == 494_032_768  # Qwen2-0.5B, "0.49B"


def test_gptj_6b_shapes():
    config = {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 28, "n_positions": 2048,
              "rotary_dim": 64, "vocab_size": 50400, "tie_word_embeddings": False}
    d, v = 4096, 50400
    block = 2 * d + 4 * d * d + (d * 4 * d + 4 * d) + (4 * d * d + d)  # ln_1; q, k, v, out (no bias); fc_in, fc_out
    assert params(config) == v * d + 28 * block + 2 * d + (d * v + v)  # wte, h, ln_f, lm_head with bias


def test_llama_head_dim_key():
    """A head_dim that is not hidden_size / heads (Gemma-style widths): q is d → H·Q."""
    config = LLAMA2_7B | {"num_hidden_layers": 1, "head_dim": 256, "num_key_value_heads": 8}
    d, ff, v = 4096, 11008, 32000
    block = d * 32 * 256 + 2 * d * 8 * 256 + 32 * 256 * d + 3 * d * ff + 2 * d
    assert params(config) == block + d + 2 * v * d


def test_missing_model_type_is_refused_not_guessed():
    """The family decides biases, norms and heads: without model_type nothing is guessed from the keys."""
    for config in (GPT2, LLAMA2_7B):
        with pytest.raises(InputError, match=r"^config\.model_type: missing"):
            read_hf_config({k: v for k, v in config.items() if k != "model_type"})


def test_scenario_from_a_config():
    scenario = parse_scenario(read_hf_config(GPT2).scenario_data(1024e6, name="GPT-2"))
    assert scenario.input.sequence_length == 1024 and scenario.training.examples == 1e6
    assert [layer.type for layer in scenario.layers[:3]] == ["embedding", "position_embedding", "transformer_block"]
    no_context = read_hf_config({k: v for k, v in LLAMA2_7B.items() if k != "max_position_embeddings"})
    with pytest.raises(InputError, match="^seq_len: "):
        no_context.scenario_data(1e9)
    with pytest.raises(InputError, match="^training.examples: "):
        no_context.scenario_data(0, 512)


def test_normalised_config_round_trips_and_validates_by_field():
    config = read_hf_config(MIXTRAL_8X7B)
    again = validate_transformer_config(json.loads(config.model_dump_json()))
    assert again == config
    with pytest.raises(InputError, match=r"^config\.block\.mixer\.heads: "):
        validate_transformer_config(config.model_dump() | {"d_model": 4095})
    assert "block" in TransformerConfig.model_json_schema()["properties"]


@pytest.mark.parametrize("config,key", [
    ({k: v for k, v in GPT2.items() if k != "n_head"}, "config.n_head: missing"),
    ({k: v for k, v in GPT2.items() if k not in ("n_positions", "n_ctx")}, "config.n_positions: missing"),
    ({k: v for k, v in LLAMA2_7B.items() if k != "intermediate_size"}, "config.intermediate_size: missing"),
    ({k: v for k, v in LLAMA2_7B.items() if k != "vocab_size"}, "config.vocab_size: missing"),
    (GPT2 | {"n_head": 7}, "config.n_head: 7 heads do not divide"),
    (GPT2 | {"n_embd": -768}, "config.n_embd: "),
    (GPT2 | {"n_layer": 0}, "config.n_layer: "),
    (GPT2 | {"n_layer": float("nan")}, "config.n_layer: must be a finite number"),
    (GPT2 | {"n_layer": float("inf")}, "config.n_layer: "),
    (GPT2 | {"n_layer": 12.5}, "config.n_layer: "),
    (GPT2 | {"n_layer": "12"}, "config.n_layer: expected a whole number"),
    (GPT2 | {"n_head": True}, "config.n_head: expected a whole number"),
    (GPT2 | {"vocab_size": 10**12}, "config.vocab_size: "),
    (LLAMA2_7B | {"num_key_value_heads": 5}, "config.num_key_value_heads: kv_heads 5 must divide heads 32"),
    (LLAMA2_7B | {"num_key_value_heads": -1}, "config.num_key_value_heads: "),
    (LLAMA2_7B | {"head_dim": 0}, "config.head_dim: "),
    (LLAMA2_7B | {"tie_word_embeddings": "yes"}, "config.tie_word_embeddings: expected true or false"),
    (LLAMA2_7B | {"hidden_act": "mish"}, "config.hidden_act: unknown activation"),
    (MIXTRAL_8X7B | {"num_experts_per_tok": 9}, "config.num_experts_per_tok: active_experts 9 is more than"),
    ({k: v for k, v in MIXTRAL_8X7B.items() if k != "num_local_experts"}, "config.num_local_experts: missing"),
    (GPT2 | {"model_type": "xlnet"}, "config.model_type: 'xlnet' is not a family this reader supports"),
    (GPT2 | {"model_type": ["gpt2"]}, "config.model_type: "),
    ({"model_type": "opt", "hidden_size": 1024, "ffn_dim": 4096, "num_hidden_layers": 2, "num_attention_heads": 16,
      "vocab_size": 100, "max_position_embeddings": 64, "word_embed_proj_dim": 0}, "config.word_embed_proj_dim: "),
    (GPT2 | {"add_cross_attention": True}, "config.add_cross_attention: true is not supported"),
    (MISTRAL_7B | {"sliding_window": 0}, "config.sliding_window: "),
    (MISTRAL_7B | {"sliding_window": "4k"}, "config.sliding_window: expected a whole number"),
    ({"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864, "num_attention_heads": 14,
      "num_hidden_layers": 24, "vocab_size": 151936, "use_sliding_window": True},
     "config.use_sliding_window: true is not supported"),
    ({"foo": 1}, "config.model_type: missing"),
    ([1, 2], "config: expected a JSON object"),
])
def test_bad_configs_name_the_key(config, key):
    with pytest.raises(InputError) as info:
        read_hf_config(config)
    message = str(info.value)
    assert message.startswith(key) and "\n" not in message


@pytest.mark.parametrize("text", ["{not json", "", "[", '{"n_layer": 1', "\x00\x01", "{" * 100_000])
def test_garbage_json(text):
    with pytest.raises(InputError, match=r"^config"):
        load_hf_config_text(text)


def test_json_nan_literal_is_named():
    text = json.dumps(GPT2).replace('"n_embd": 768', '"n_embd": NaN')
    with pytest.raises(InputError, match=r"^config\.n_embd: must be a finite number"):
        load_hf_config_text(text)


def test_dense_and_expert_layers_in_transformers_order():
    """Where a model interleaves dense and mixture-of-experts layers, the blocks stand in transformers' order (the
    backward of a fine-tune that trains the last layers depends on it): Llama 4 Maverick, layer i has experts iff
    (i + 1) % interleave_moe_layer_step == 0 (Llama4TextConfig's moe_layers); Switch's decoder, iff i % step == 1
    with step = num_decoder_layers / num_sparse_decoder_layers (SwitchTransformersStack's is_sparse); NLLB-MoE, iff
    (i + 1) % decoder_sparse_step == 0 (NllbMoeDecoder)."""
    from engine.llm.library import library_model

    cases = {"llama-4-maverick-text": (48, lambda i: (i + 1) % 2 == 0, 128),
             "switch-base-8": (12, lambda i: i % 2 == 1, 8), "nllb-moe-54b": (24, lambda i: (i + 1) % 4 == 0, 128)}
    for model_id, (layers, has_experts, experts) in cases.items():
        blocks = read_hf_config(library_model(model_id).config).decoder_blocks()
        assert [b.experts for b in blocks] == [experts if has_experts(i) else 1 for i in range(layers)], model_id
