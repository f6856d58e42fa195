"""Every family against Hugging Face ``transformers`` itself: the model the config's ``architectures``
names, built from the config on the meta device (``tests/llm/hf_reference.py``): parameters
(Σ numel) and forward FLOP of one sequence (``FlopCounterMode``, eager attention) equal this engine's
count to the integer, for every model in the shipped library (published configs, full size) and for
small configs that switch each option the readers know.

One documented difference: transformers ≥ 5 forces ``tie_word_embeddings = True`` for T5
(``T5Config.__post_init__``), so T5 v1.1 / Flan-T5 checkpoints, which have an lm_head of their own
(``"tie_word_embeddings": false``; google/flan-t5-base has 247,577,856 parameters), are built tied:
the engine counts the published untied head, V·d more parameters; the FLOP are the same.
"""
from __future__ import annotations

import pytest

from engine.llm.config import read_hf_config
from engine.llm.library import library_models
from engine.method1.architecture import evaluate

pytest.importorskip("transformers")
from tests.llm.decoder_variants import DECODER_VARIANTS
from tests.llm.hf_reference import T5_TIED, counts, idle_expert_flop

SEQ = 16


def _engine(config: dict, seq_len: int, decoder_seq_len: int | None = None) -> tuple[int, int]:
    model = read_hf_config(config)
    result = evaluate(model.architecture(seq_len, decoder_seq_len), "matmul")
    return result.params, result.forward_flop


def _untied_t5_head(config: dict) -> int:
    """The V·d of an untied T5 head that transformers ≥ 5 ties (see the module docstring)."""
    if config["model_type"] in T5_TIED and config.get("tie_word_embeddings") is False:
        return config["vocab_size"] * config["d_model"]
    return 0


@pytest.mark.parametrize("model", library_models(), ids=lambda m: m.id)
def test_library_model_matches_transformers(torch, model):
    config = model.config
    expected_params, expected_flop = counts(config, SEQ)
    params, flop = _engine(config, SEQ)
    assert flop == expected_flop - idle_expert_flop(config, SEQ)
    assert params == expected_params + _untied_t5_head(config)


@pytest.mark.parametrize("model_id", ["t5-small", "flan-t5-base", "bart-base", "bart-large-cnn"])
def test_encoder_decoder_lengths_apart(torch, model_id):
    """Encoder and decoder lengths differ: cross-attention reads M = encoder positions."""
    config = next(m for m in library_models() if m.id == model_id).config
    expected_params, expected_flop = counts(config, 24, decoder_seq_len=7)
    params, flop = _engine(config, 24, 7)
    assert (params - _untied_t5_head(config), flop) == (expected_params, expected_flop)


SMALL = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4,
         "num_key_value_heads": 2, "vocab_size": 128, "max_position_embeddings": 64}

VARIANTS = {
    "llama bare model, biases": {"model_type": "llama", "architectures": ["LlamaModel"], **SMALL,
                                 "attention_bias": True, "mlp_bias": True},
    "llama tied, head_dim": {"model_type": "llama", "architectures": ["LlamaForCausalLM"], **SMALL,
                             "head_dim": 24, "tie_word_embeddings": True},
    "bert model with pooler": {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 48,
                               "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4,
                               "vocab_size": 90, "max_position_embeddings": 40, "type_vocab_size": 3},
    "roberta model": {"model_type": "roberta", "architectures": ["RobertaModel"], "hidden_size": 48,
                      "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4,
                      "vocab_size": 90, "max_position_embeddings": 42, "type_vocab_size": 1, "pad_token_id": 1},
    "t5 bare, gated-silu, unequal stacks": {"model_type": "t5", "architectures": ["T5Model"], "d_model": 40,
                                           "d_kv": 12, "d_ff": 72, "num_layers": 3, "num_decoder_layers": 2,
                                           "num_heads": 5, "vocab_size": 100, "feed_forward_proj": "gated-silu",
                                           "relative_attention_num_buckets": 16},
    "bart unequal stacks": {"model_type": "bart", "architectures": ["BartForConditionalGeneration"], "d_model": 48,
                            "encoder_layers": 3, "decoder_layers": 2, "encoder_attention_heads": 4,
                            "decoder_attention_heads": 6, "encoder_ffn_dim": 64, "decoder_ffn_dim": 80,
                            "vocab_size": 100, "max_position_embeddings": 40, "activation_function": "relu"},
    "falcon sequential, multi-head, biases": {"model_type": "falcon", "architectures": ["FalconForCausalLM"],
                                              "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                                              "vocab_size": 100, "parallel_attn": False, "multi_query": False,
                                              "bias": True, "ffn_hidden_size": 100},
    "falcon new architecture, one norm": {"model_type": "falcon", "architectures": ["FalconForCausalLM"],
                                          "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,
                                          "num_kv_heads": 2, "vocab_size": 100, "new_decoder_architecture": True,
                                          "num_ln_in_parallel_attn": 1, "alibi": True},
    "deepseek v2 direct queries, two dense layers": {
        "model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"], **SMALL, "num_key_value_heads": 4,
        "q_lora_rank": None, "kv_lora_rank": 24, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 12,
        "n_routed_experts": 6, "num_experts_per_tok": 3, "n_shared_experts": 2, "moe_intermediate_size": 20,
        "first_k_dense_replace": 2, "topk_method": "greedy", "n_group": 1, "topk_group": 1},
    "deepseek v3 no shared experts": {
        "model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"], **SMALL, "num_key_value_heads": 4,
        "q_lora_rank": 20, "kv_lora_rank": 24, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 12,
        "n_routed_experts": 8, "num_experts_per_tok": 2, "n_shared_experts": 0, "moe_intermediate_size": 20,
        "first_k_dense_replace": 1, "n_group": 2, "topk_group": 1},
    "qwen2-moe sparse step and mlp-only layers": {
        "model_type": "qwen2_moe", "architectures": ["Qwen2MoeForCausalLM"], **SMALL, "num_hidden_layers": 5,
        "num_experts": 6, "num_experts_per_tok": 2, "moe_intermediate_size": 24,
        "shared_expert_intermediate_size": 40, "decoder_sparse_step": 2, "mlp_only_layers": [1]},
    "qwen3-moe all sparse": {"model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], **SMALL,
                             "head_dim": 20, "num_experts": 5, "num_experts_per_tok": 5,
                             "moe_intermediate_size": 24},
    "gemma3 with layer_types": {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], **SMALL,
                                "head_dim": 20, "sliding_window": 8,
                                "layer_types": ["full_attention", "sliding_attention", "sliding_attention"]},
    "olmo tied": {"model_type": "olmo", "architectures": ["OlmoForCausalLM"], **SMALL, "tie_word_embeddings": True,
                  "attention_bias": True},
    "olmo2 gqa": {"model_type": "olmo2", "architectures": ["Olmo2ForCausalLM"], **SMALL},
    "gpt-oss small": {"model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"], **SMALL, "head_dim": 16,
                      "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 8},
    "starcoder2 no bias, untied": {"model_type": "starcoder2", "architectures": ["Starcoder2ForCausalLM"], **SMALL,
                                   "use_bias": False, "tie_word_embeddings": False, "bos_token_id": 0,
                                   "eos_token_id": 0},
    "bloom bare": {"model_type": "bloom", "architectures": ["BloomModel"], "hidden_size": 48, "n_layer": 2,
                   "n_head": 4, "vocab_size": 100},
    "mpt": {"model_type": "mpt", "architectures": ["MptForCausalLM"], "d_model": 48, "n_heads": 4,
            "n_layers": 2, "vocab_size": 100, "max_seq_len": 64},
    "phi3 gqa": {"model_type": "phi3", "architectures": ["Phi3ForCausalLM"], **SMALL, "pad_token_id": 0,
                 "eos_token_id": 1, "bos_token_id": 1},
    "gemma bare": {"model_type": "gemma", "architectures": ["GemmaModel"], **SMALL, "head_dim": 12},
    "gemma2 untied": {"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"], **SMALL, "head_dim": 12,
                      "tie_word_embeddings": False},
    "mixtral": {"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], **SMALL, "num_local_experts": 4,
                "num_experts_per_tok": 2},
    "gpt-neox sequential": {"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "hidden_size": 48,
                            "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4,
                            "vocab_size": 100, "max_position_embeddings": 40, "use_parallel_residual": False},
    "opt post-norm": {"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 48, "ffn_dim": 80,
                      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
                      "max_position_embeddings": 40, "word_embed_proj_dim": 48, "do_layer_norm_before": False},
    "phi with qk layernorm, gqa": {"model_type": "phi", "architectures": ["PhiForCausalLM"], **SMALL,
                                   "qk_layernorm": True},
    "gpt-bigcode multi-head": {"model_type": "gpt_bigcode", "architectures": ["GPTBigCodeForCausalLM"], "n_embd": 48,
                               "n_layer": 2, "n_head": 4, "n_positions": 40, "vocab_size": 100, "multi_query": False},
    "qwen3-moe without head_dim (d/H)": {"model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], **SMALL,
                                         "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 24},
    "opt-350m layout: narrower table, project in and out": {
        "model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 48, "ffn_dim": 80,
        "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 40,
        "word_embed_proj_dim": 24, "do_layer_norm_before": False},
    "opt bare model, narrower table": {
        "model_type": "opt", "architectures": ["OPTModel"], "hidden_size": 48, "ffn_dim": 80,
        "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 40,
        "word_embed_proj_dim": 32},
    "bart untied: a token table per stack beside shared": {
        "model_type": "bart", "architectures": ["BartForConditionalGeneration"], "d_model": 48, "encoder_layers": 2,
        "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
        "decoder_ffn_dim": 64, "vocab_size": 100, "max_position_embeddings": 40, "tie_word_embeddings": False},
    "bart bare model untied": {
        "model_type": "bart", "architectures": ["BartModel"], "d_model": 48, "encoder_layers": 2,
        "decoder_layers": 1, "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
        "decoder_ffn_dim": 64, "vocab_size": 100, "max_position_embeddings": 40, "tie_word_embeddings": False},
    "t5 encoder only (T5EncoderModel)": {"model_type": "t5", "architectures": ["T5EncoderModel"], "d_model": 40,
                                         "d_kv": 12, "d_ff": 72, "num_layers": 3, "num_decoder_layers": 2,
                                         "num_heads": 5, "vocab_size": 100, "feed_forward_proj": "gated-gelu"},
    "deepseek v2 low-rank queries, one dense layer": {
        "model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"], **SMALL, "num_key_value_heads": 4,
        "q_lora_rank": 20, "kv_lora_rank": 24, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 12,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1, "moe_intermediate_size": 20,
        "first_k_dense_replace": 1, "topk_method": "greedy", "n_group": 1, "topk_group": 1},
    "gptj": {"model_type": "gptj", "architectures": ["GPTJForCausalLM"], "n_embd": 48, "n_layer": 2, "n_head": 4,
             "n_positions": 40, "vocab_size": 100, "rotary_dim": 4},
}


E = {"hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 90,
     "max_position_embeddings": 40, "pad_token_id": 1}
S = SMALL | {"pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
MOE = {"num_local_experts": 4, "num_experts_per_tok": 2}


def _variant(model_type: str, architecture: str, **keys) -> dict:
    return {"model_type": model_type, "architectures": [architecture], **keys}


VARIANTS |= {
    "xlm-roberta": _variant("xlm-roberta", "XLMRobertaForMaskedLM", **E, type_vocab_size=1),
    "xlm-roberta model": _variant("xlm-roberta", "XLMRobertaModel", **E),
    "camembert": _variant("camembert", "CamembertForMaskedLM", **E),
    "distilbert": _variant("distilbert", "DistilBertForMaskedLM", dim=48, hidden_dim=80, n_layers=2, n_heads=4,
                           vocab_size=90, max_position_embeddings=40, pad_token_id=0),
    "distilbert model, sinusoidal": _variant("distilbert", "DistilBertModel", dim=48, hidden_dim=80, n_layers=2,
                                             n_heads=4, vocab_size=90, max_position_embeddings=40,
                                             sinusoidal_pos_embds=True, pad_token_id=0),
    "mpnet": _variant("mpnet", "MPNetForMaskedLM", **E, relative_attention_num_buckets=16),
    "mpnet model": _variant("mpnet", "MPNetModel", **E),
    "electra discriminator, narrow tables": _variant("electra", "ElectraForPreTraining", **E, embedding_size=32),
    "electra generator, narrow tables": _variant("electra", "ElectraForMaskedLM", **E, embedding_size=32),
    "electra model, tables of width d": _variant("electra", "ElectraModel", **E, embedding_size=48),
    "gpt-neo global and local": _variant("gpt_neo", "GPTNeoForCausalLM", hidden_size=48, num_layers=3, num_heads=4,
                                         vocab_size=90, max_position_embeddings=40, window_size=4,
                                         attention_types=[[["global", "local"], 1], [["global"], 1]],
                                         bos_token_id=0, eos_token_id=0),
    "codegen": _variant("codegen", "CodeGenForCausalLM", n_embd=48, n_layer=2, n_head=4, n_positions=40, vocab_size=90,
                        rotary_dim=4, bos_token_id=0, eos_token_id=0),
    "stablelm per-head qk norms, qkv bias": _variant("stablelm", "StableLmForCausalLM", **S, qk_layernorm=True,
                                                     use_qkv_bias=True),
    "stablelm parallel, tied": _variant("stablelm", "StableLmForCausalLM", **S, use_parallel_residual=True,
                                        tie_word_embeddings=True),
    "cohere qk norms": _variant("cohere", "CohereForCausalLM", **S, use_qk_norm=True),
    "cohere biases, untied": _variant("cohere", "CohereForCausalLM", **S, attention_bias=True,
                                      tie_word_embeddings=False),
    "cohere2 windows": _variant("cohere2", "Cohere2ForCausalLM", **S, sliding_window=8),
    "granite biases, multipliers": _variant("granite", "GraniteForCausalLM", **S, mlp_bias=True, attention_bias=True,
                                            embedding_multiplier=12.0, residual_multiplier=0.22),
    "granitemoe": _variant("granitemoe", "GraniteMoeForCausalLM", **S, **MOE),
    "phimoe biases": _variant("phimoe", "PhimoeForCausalLM", **S, **MOE, attention_bias=True, lm_head_bias=True),
    "glm4": _variant("glm4", "Glm4ForCausalLM", **S, head_dim=12),
    "smollm3": _variant("smollm3", "SmolLM3ForCausalLM", **S),
    "smollm3 untied, mlp bias": _variant("smollm3", "SmolLM3ForCausalLM", **S, tie_word_embeddings=False,
                                         mlp_bias=True),
    "exaone4 windows": _variant("exaone4", "Exaone4ForCausalLM", **S, sliding_window=8),
    "ernie4_5 biases": _variant("ernie4_5", "Ernie4_5ForCausalLM", **S, head_dim=20, use_bias=True),
    "olmo3 windows": _variant("olmo3", "Olmo3ForCausalLM", **S, sliding_window=8),
    "olmoe": _variant("olmoe", "OlmoeForCausalLM", **S, num_experts=4, num_experts_per_tok=2),
    "glm4-moe qk norm, one dense layer": _variant(
        "glm4_moe", "Glm4MoeForCausalLM", **S, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
        first_k_dense_replace=1, n_shared_experts=1, head_dim=12, n_group=1, topk_group=1, use_qk_norm=True,
        attention_bias=True),
    "glm4-moe all sparse, two shared": _variant(
        "glm4_moe", "Glm4MoeForCausalLM", **S, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
        first_k_dense_replace=0, n_shared_experts=2, head_dim=12, n_group=1, topk_group=1),
    "ernie4_5-moe shared": _variant("ernie4_5_moe", "Ernie4_5_MoeForCausalLM", **S, moe_num_experts=4, moe_k=2,
                                    moe_intermediate_size=24, moe_num_shared_experts=1, head_dim=12),
    "ernie4_5-moe biases, interval": _variant(
        "ernie4_5_moe", "Ernie4_5_MoeForCausalLM", **S, moe_num_experts=4, moe_k=2, moe_intermediate_size=24,
        moe_num_shared_experts=0, head_dim=12, use_bias=True, moe_layer_start_index=0, moe_layer_interval=2,
        tie_word_embeddings=False),
}

VARIANTS |= {  # BERT's and RoBERTa's layouts under other names, pre-norm variants
    "data2vec-text": _variant("data2vec-text", "Data2VecTextForMaskedLM", **E, type_vocab_size=1),
    "data2vec-text model": _variant("data2vec-text", "Data2VecTextModel", **E),
    "roberta-prelayernorm": _variant("roberta-prelayernorm", "RobertaPreLayerNormForMaskedLM", **E),
    "roberta-prelayernorm model": _variant("roberta-prelayernorm", "RobertaPreLayerNormModel", **E,
                                           type_vocab_size=3),
    "xlm-roberta-xl": _variant("xlm-roberta-xl", "XLMRobertaXLForMaskedLM", **E, type_vocab_size=1),
    "xlm-roberta-xl model": _variant("xlm-roberta-xl", "XLMRobertaXLModel", **E),
    "megatron-bert": _variant("megatron-bert", "MegatronBertForMaskedLM", **E),
    "megatron-bert model": _variant("megatron-bert", "MegatronBertModel", **E, type_vocab_size=4),
    "ernie": _variant("ernie", "ErnieForMaskedLM", **E, type_vocab_size=4),
    "ernie model": _variant("ernie", "ErnieModel", **E, hidden_act="relu"),
}

ALBERT = {"hidden_size": 48, "intermediate_size": 80, "num_attention_heads": 4, "vocab_size": 90,
          "max_position_embeddings": 40, "embedding_size": 24}
VARIANTS |= {  # ALBERT: tables of width E projected to d, layers sharing G groups of weights
    "albert one shared layer": _variant("albert", "AlbertForMaskedLM", **ALBERT, num_hidden_layers=3),
    "albert 5 layers, 2 groups of 2 blocks": _variant("albert", "AlbertForMaskedLM", **ALBERT, num_hidden_layers=5,
                                                      num_hidden_groups=2, inner_group_num=2),
    "albert model, 4 layers, 3 groups, E = d": _variant("albert", "AlbertModel", **(ALBERT | {"embedding_size": 48}),
                                                        num_hidden_layers=4, num_hidden_groups=3, hidden_act="relu"),
    "albert unshared (groups = layers)": _variant("albert", "AlbertForMaskedLM", **ALBERT, num_hidden_layers=2,
                                                  num_hidden_groups=2, type_vocab_size=1),
}

MODERNBERT = {"hidden_size": 48, "intermediate_size": 40, "num_hidden_layers": 4, "num_attention_heads": 4,
              "vocab_size": 90, "max_position_embeddings": 64, "pad_token_id": 0, "bos_token_id": 0,
              "eos_token_id": 0, "cls_token_id": 0, "sep_token_id": 0}
VARIANTS |= {  # ModernBERT: GeGLU, no biases, the first layer without an attention norm, global/local layers
    "modernbert": _variant("modernbert", "ModernBertForMaskedLM", **MODERNBERT, global_attn_every_n_layers=2,
                           local_attention=4),
    "modernbert biases everywhere, untied, relu head": _variant(
        "modernbert", "ModernBertForMaskedLM", **MODERNBERT, norm_bias=True, attention_bias=True, mlp_bias=True,
        classifier_bias=True, decoder_bias=False, tie_word_embeddings=False, classifier_activation="relu",
        hidden_activation="silu"),
    "modernbert-decoder, full and local layers": _variant(
        "modernbert-decoder", "ModernBertDecoderForCausalLM", **MODERNBERT, local_attention=8,
        layer_types=["full_attention", "sliding_attention", "full_attention", "sliding_attention"]),
    "modernbert-decoder model, every 3rd layer full": _variant(
        "modernbert-decoder", "ModernBertDecoderModel", **(MODERNBERT | {"num_hidden_layers": 5}),
        global_attn_every_n_layers=3, local_attention=6, norm_bias=True, attention_bias=True),
    "modernbert model": _variant("modernbert", "ModernBertModel", **(MODERNBERT | {"num_hidden_layers": 1})),
}

DEBERTA = {"hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 2, "num_attention_heads": 4,
           "vocab_size": 90, "max_position_embeddings": 40}
VARIANTS |= {  # DeBERTa: disentangled attention over a relative-position table (T = 10: v1 reads 2·min(T, S) rows)
    "deberta c2p|p2c": _variant("deberta", "DebertaForMaskedLM", **DEBERTA, relative_attention=True,
                                pos_att_type="c2p|p2c"),
    "deberta model, no relative attention": _variant("deberta", "DebertaModel", **DEBERTA),
    "deberta c2p, span 6, narrow tables, token types": _variant(
        "deberta", "DebertaForMaskedLM", **DEBERTA, relative_attention=True, pos_att_type=["c2p"],
        max_relative_positions=6, embedding_size=32, type_vocab_size=2, position_biased_input=False),
    "deberta p2c, head over the token table, relu": _variant(
        "deberta", "DebertaForMaskedLM", **DEBERTA, relative_attention=True, pos_att_type=["p2c"], legacy=False,
        hidden_act="relu"),
    "deberta-v3 layout (buckets, shared keys, normed table)": _variant(
        "deberta-v2", "DebertaV2ForMaskedLM", **DEBERTA, relative_attention=True, pos_att_type="p2c|c2p",
        position_buckets=8, share_att_key=True, norm_rel_ebd="layer_norm", position_biased_input=False),
    "deberta-v2 xlarge layout (convolution)": _variant(
        "deberta-v2", "DebertaV2ForMaskedLM", **DEBERTA, relative_attention=True, pos_att_type="p2c|c2p",
        position_buckets=8, share_att_key=True, norm_rel_ebd="layer_norm", conv_kernel_size=3, conv_act="gelu",
        attention_head_size=12),
    "deberta-v2 own projections, narrow tables, grouped convolution": _variant(
        "deberta-v2", "DebertaV2ForMaskedLM", **DEBERTA, relative_attention=True, pos_att_type=["c2p", "p2c"],
        embedding_size=32, conv_kernel_size=5, conv_groups=4, max_relative_positions=7),
    "deberta-v2 model, c2p through shared keys": _variant(
        "deberta-v2", "DebertaV2Model", **DEBERTA, relative_attention=True, pos_att_type=["c2p"], share_att_key=True),
    "deberta-v2 no relative attention, normed table's norm alone": _variant(
        "deberta-v2", "DebertaV2ForMaskedLM", **DEBERTA, norm_rel_ebd="layer_norm", legacy=False),
}

VARIANTS |= {  # RoFormer: rotary positions reading a frozen d/H-wide sinusoidal table; ELECTRA-like narrow tables
    "roformer": _variant("roformer", "RoFormerForMaskedLM", **E),
    "roformer narrow tables, rotary values, relu": _variant("roformer", "RoFormerForMaskedLM", **E,
                                                            embedding_size=32, rotary_value=True, hidden_act="relu",
                                                            type_vocab_size=3),
    "roformer model, narrow tables": _variant("roformer", "RoFormerModel", **E, embedding_size=24),
}

VARIANTS |= {  # NomicBERT: post-norm, rotary, no projection biases, a gated feed-forward
    "nomic_bert": _variant("nomic_bert", "NomicBertForMaskedLM", **E),
    "nomic_bert head size of its own, gelu, 3 token types": _variant(
        "nomic_bert", "NomicBertForMaskedLM", **E, head_dim=20, hidden_act="gelu", type_vocab_size=3),
    "nomic_bert model": _variant("nomic_bert", "NomicBertModel", **E, type_vocab_size=1),
}

VARIANTS |= {  # EuroBERT: Llama's blocks without the causal mask, a final norm, an LM head over every position
    "eurobert": _variant("eurobert", "EuroBertForMaskedLM", **S),
    "eurobert biases, tied, head size of its own, multi-head": _variant(
        "eurobert", "EuroBertForMaskedLM", **(S | {"num_key_value_heads": 4}), attention_bias=True, mlp_bias=True, tie_word_embeddings=True,
        head_dim=12),
    "eurobert model": _variant("eurobert", "EuroBertModel", **S, mlp_bias=True),
}

VARIANTS |= {  # BertGeneration: BERT's blocks without token types, a tied decoder d→V with a bias
    "bert-generation decoder": _variant("bert-generation", "BertGenerationDecoder", **E, is_decoder=True),
    "bert-generation decoder, bidirectional, relu": _variant("bert-generation", "BertGenerationDecoder", **E,
                                                             hidden_act="relu"),
    "bert-generation encoder": _variant("bert-generation", "BertGenerationEncoder", **E),
}

VARIANTS |= {  # ESM: pre-norm blocks, a final LayerNorm, learned or rotary positions, a contact head that is not run
    "esm-2 layout (rotary, token dropout)": _variant("esm", "EsmForMaskedLM", **E, position_embedding_type="rotary",
                                                     token_dropout=True, mask_token_id=3),
    "esm-1b layout (learned positions, embedding norm), untied": _variant(
        "esm", "EsmForMaskedLM", **E, position_embedding_type="absolute", emb_layer_norm_before=True,
        tie_word_embeddings=False),
    "esm model with pooler, learned positions": _variant("esm", "EsmModel", **E),
}

VARIANTS |= {  # RemBERT: decoupled embeddings — E-wide input tables projected E→d, an O-wide untied output embedding
    "rembert": _variant("rembert", "RemBertForMaskedLM", **E, input_embedding_size=16, output_embedding_size=24),
    "rembert causal LM, tables as wide as d, relu, 3 token types": _variant(
        "rembert", "RemBertForCausalLM", **E, input_embedding_size=48, output_embedding_size=32, is_decoder=True,
        hidden_act="relu", type_vocab_size=3, tie_word_embeddings=True),
    "rembert model with pooler": _variant("rembert", "RemBertModel", **E, input_embedding_size=24,
                                          output_embedding_size=40),
}

VARIANTS |= {  # GTE and JinaEmbeddingsV3: post-norm rotary blocks; GTE's gated feed-forward has a bias on down only
    "gte": _variant("gte", "GteForMaskedLM", **E),
    "gte untied, silu, 3 token types": _variant("gte", "GteForMaskedLM", **E, tie_word_embeddings=False,
                                                hidden_act="silu", type_vocab_size=3),
    "gte model, no token types, head size of its own": _variant("gte", "GteModel", **E, type_vocab_size=0,
                                                                head_dim=20),
    "jina_embeddings_v3": _variant("jina_embeddings_v3", "JinaEmbeddingsV3ForMaskedLM", **E),
    "jina_embeddings_v3 relu, head size of its own, remote-code LoRA keys": _variant(
        "jina_embeddings_v3", "JinaEmbeddingsV3ForMaskedLM", **E, hidden_act="relu", head_dim=20, type_vocab_size=2,
        lora_adaptations=["retrieval.query", "retrieval.passage", "separation", "classification", "text-matching"],
        lora_rank=4, lora_alpha=1),
    "jina_embeddings_v3 model with pooler": _variant("jina_embeddings_v3", "JinaEmbeddingsV3Model", **E),
}

MOBILE = {"hidden_size": 64, "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 90,
          "max_position_embeddings": 40, "embedding_size": 16, "intra_bottleneck_size": 24}
VARIANTS |= {  # MobileBERT: trigram embeddings, bottleneck blocks with stacked feed-forwards, NoNorm
    "mobilebert": _variant("mobilebert", "MobileBertForMaskedLM", **MOBILE),
    "mobilebert model, layer norms": _variant("mobilebert", "MobileBertModel", **MOBILE,
                                              normalization_type="layer_norm"),
    "mobilebert model without pooler activation, 3 token types": _variant(
        "mobilebert", "MobileBertModel", **MOBILE, classifier_activation=False, type_vocab_size=3),
    "mobilebert bottleneck attention (shared bottleneck held, not run)": _variant(
        "mobilebert", "MobileBertForMaskedLM", **MOBILE, use_bottleneck_attention=True),
    "mobilebert bottleneck attention, no shared bottleneck, 2 feed-forwards": _variant(
        "mobilebert", "MobileBertForMaskedLM", **MOBILE, use_bottleneck_attention=True,
        key_query_shared_bottleneck=False, num_feedforward_networks=2),
    "mobilebert without bottleneck or trigram, gelu, one feed-forward": _variant(
        "mobilebert", "MobileBertForMaskedLM", **MOBILE, use_bottleneck=False, num_feedforward_networks=1,
        trigram_input=False, hidden_act="gelu"),
    "mobilebert token table as wide as d, no trigram (projection held, not run)": _variant(
        "mobilebert", "MobileBertForMaskedLM", **(MOBILE | {"embedding_size": 64}), trigram_input=False),
    "mobilebert bottleneck as wide as d, queries from the input": _variant(
        "mobilebert", "MobileBertForMaskedLM", **(MOBILE | {"intra_bottleneck_size": 64}),
        key_query_shared_bottleneck=False),
}

MAMBA = {"hidden_size": 48, "num_hidden_layers": 2, "vocab_size": 90, "state_size": 8, "conv_kernel": 4, "expand": 2,
         "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
VARIANTS |= {
    "mamba": _variant("mamba", "MambaForCausalLM", **MAMBA),
    "mamba biases, rank, untied": _variant("mamba", "MambaForCausalLM", **MAMBA, use_bias=True, use_conv_bias=False,
                                           time_step_rank=5, tie_word_embeddings=False),
    "mamba model": _variant("mamba", "MambaModel", **MAMBA),
    "falcon-mamba": _variant("falcon_mamba", "FalconMambaForCausalLM", **(MAMBA | {"expand": 3, "state_size": 5})),
}

MAMBA2 = {"hidden_size": 48, "num_hidden_layers": 2, "vocab_size": 90, "state_size": 8, "conv_kernel": 4, "expand": 2,
          "num_heads": 6, "head_dim": 16, "n_groups": 2, "chunk_size": 8, "pad_token_id": 0, "bos_token_id": 0,
          "eos_token_id": 0}
VARIANTS |= {  # chunk 8 over 10 and 12 positions: padded to 16, two chunks; chunk 5: two (10), three (12)
    "mamba2 groups": _variant("mamba2", "Mamba2ForCausalLM", **MAMBA2),
    "mamba2 biases, tied, chunk 5": _variant("mamba2", "Mamba2ForCausalLM", **(MAMBA2 | {"chunk_size": 5}),
                                             use_bias=True, use_conv_bias=False, tie_word_embeddings=True),
    "bamba attention at 1 and 3": _variant("bamba", "BambaForCausalLM", **(S | {"num_hidden_layers": 4}),
                                           attn_layer_indices=[1, 3], mamba_n_heads=8, mamba_d_head="auto",
                                           mamba_n_groups=2, mamba_d_state=8, mamba_chunk_size=8, mamba_d_conv=4),
    "bamba model, no attention, biases": _variant(  # transformers' cache needs an attention layer: run without one
        "bamba", "BambaModel", **S, mamba_n_heads=4, mamba_d_head=32, mamba_n_groups=1, mamba_d_state=8,
        attention_bias=True, mlp_bias=True, mamba_d_conv=3, mamba_chunk_size=5, mamba_proj_bias=True,
        mamba_conv_bias=False, tie_word_embeddings=True),
    "granitemoehybrid experts, attention at 1": _variant(
        "granitemoehybrid", "GraniteMoeHybridForCausalLM", **(S | {"num_hidden_layers": 4, "intermediate_size": 48}),
        layer_types=["mamba", "attention", "mamba", "mamba"], mamba_n_heads=8, mamba_d_head="auto",
        mamba_n_groups=2, mamba_d_state=8, mamba_d_conv=4, mamba_chunk_size=8, num_local_experts=4,
        num_experts_per_tok=2, shared_intermediate_size=80, position_embedding_type="rope", embedding_multiplier=12.0),
    "granitemoehybrid model, dense, no attention": _variant(  # no attention layer: run without a cache
        "granitemoehybrid", "GraniteMoeHybridModel", **S, mamba_n_heads=4, mamba_d_head=32, mamba_n_groups=1,
        mamba_d_state=8, mamba_d_conv=3, mamba_chunk_size=5, mamba_proj_bias=True, mamba_conv_bias=False,
        tie_word_embeddings=True, num_local_experts=0, shared_intermediate_size=72),
    "granitemoehybrid dense, all attention, biases": _variant(
        "granitemoehybrid", "GraniteMoeHybridForCausalLM", **(S | {"num_hidden_layers": 2}),
        layer_types=["full_attention", "full_attention"], attention_bias=True, mamba_n_heads=4, mamba_d_head=32,
        mamba_n_groups=1, mamba_d_state=8, mamba_d_conv=3, mamba_chunk_size=5, num_local_experts=0,
        shared_intermediate_size=72),
    "nemotron_h pattern M-M*-E": _variant(
        "nemotron_h", "NemotronHForCausalLM", **S, head_dim=24, hybrid_override_pattern="M-M*-E", mamba_num_heads=8,
        mamba_head_dim=16, n_groups=2, ssm_state_size=8, conv_kernel=4, chunk_size=8, n_routed_experts=4,
        num_experts_per_tok=2, moe_intermediate_size=40, moe_shared_expert_intermediate_size=56),
    "nemotron_h model, legacy layer names, biases": _variant(
        "nemotron_h", "NemotronHModel", **(S | {"num_key_value_heads": 4}), head_dim=16,
        layers_block_type=["mamba", "mlp", "attention", "mlp", "linear_attention"], mamba_num_heads=4,
        mamba_head_dim=24, n_groups=1, ssm_state_size=8, conv_kernel=3, chunk_size=5, use_bias=True,
        use_conv_bias=False, mlp_bias=True, mlp_hidden_act="silu"),
    "nemotron_h old key names, tie flag": _variant(  # transformers ties nothing; num_hidden_layers is ignored
        "nemotron_h", "NemotronHForCausalLM", **(S | {"num_hidden_layers": 7}), hybrid_override_pattern="M*-",
        mamba_num_heads=8, mamba_head_dim=16, mamba_n_groups=4, ssm_state_size=8, mamba_d_conv=4,
        mamba_chunk_size=4, tie_word_embeddings=True),
    "mamba2 model, one group, gelu": _variant("mamba2", "Mamba2Model", **(MAMBA2 | {"n_groups": 1, "expand": 3,
                                                                                   "num_heads": 9}), hidden_act="gelu"),
}

ZAMBA2 = {"hidden_size": 48, "vocab_size": 90, "num_attention_heads": 4, "n_mamba_heads": 6, "mamba_d_state": 8,
          "mamba_d_conv": 4, "chunk_size": 8, "adapter_rank": 4, "intermediate_size": 72, "pad_token_id": 0,
          "bos_token_id": 0, "eos_token_id": 0}
VARIANTS |= {  # the shared blocks: two, used alternately (ABAB), each use with its own adapters and projection
    "zamba2 two shared blocks, attention adapters": _variant(
        "zamba2", "Zamba2ForCausalLM", **ZAMBA2, num_hidden_layers=6, num_mem_blocks=2,
        layers_block_type=["mamba", "hybrid", "mamba", "hybrid", "hybrid", "mamba"],
        use_shared_attention_adapter=True),
    "zamba2 one block, GQA, groups, biases, rope": _variant(
        "zamba2", "Zamba2ForCausalLM", **(ZAMBA2 | {"chunk_size": 5}), num_hidden_layers=4, num_key_value_heads=2,
        mamba_ngroups=2, add_bias_linear=True, use_mem_rope=True, hidden_act="silu",
        layers_block_type=["hybrid", "linear_attention", "hybrid", "hybrid"]),
    "zamba2 untied: a copy per use with every use's adapters": _variant(
        "zamba2", "Zamba2ForCausalLM", **ZAMBA2, num_hidden_layers=5, num_mem_blocks=2, tie_word_embeddings=False,
        layers_block_type=["hybrid", "hybrid", "mamba", "hybrid", "hybrid"], use_shared_attention_adapter=True),
    "zamba2 model, untied, blocks for every use": _variant(
        "zamba2", "Zamba2Model", **(ZAMBA2 | {"num_attention_heads": 3}), num_hidden_layers=3, num_mem_blocks=2,
        layers_block_type=["hybrid", "mamba", "hybrid"], tie_word_embeddings=False, mamba_expand=3),
}

ZAMBA = {"hidden_size": 48, "vocab_size": 90, "num_attention_heads": 4, "num_key_value_heads": 4, "n_mamba_heads": 2, "mamba_d_state": 8,
         "mamba_d_conv": 4, "intermediate_size": 72, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
VARIANTS |= {  # Zamba v1: Mamba layers with per-head x/Δ projections, one shared block (no adapters)
    "zamba period 2": _variant("zamba", "ZambaForCausalLM", **ZAMBA, num_hidden_layers=6, attn_layer_period=2,
                               attn_layer_offset=1),
    "zamba model, listed kinds, GQA, head size, biases": _variant(
        "zamba", "ZambaModel", **(ZAMBA | {"n_mamba_heads": 4, "num_key_value_heads": 2}), num_hidden_layers=4,
        attention_head_dim=20, mamba_dt_rank=5, mamba_proj_bias=True, mamba_conv_bias=False, tie_word_embeddings=False,
        layers_block_type=["mamba", "hybrid", "mamba", "mamba"]),
}

JAMBA = {"hidden_size": 48, "intermediate_size": 72, "num_attention_heads": 4, "num_key_value_heads": 2,
         "vocab_size": 90, "mamba_d_state": 8, "mamba_d_conv": 4, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
VARIANTS |= {  # Jamba: Mamba layers (Δ, B, C norms) and attention layers, each with experts or a dense gated MLP
    "jamba attention and experts on odd layers": _variant(
        "jamba", "JambaForCausalLM", **JAMBA, num_hidden_layers=4, attn_layer_period=2, attn_layer_offset=1,
        num_experts=4, num_experts_per_tok=2, expert_layer_period=2, expert_layer_offset=1),
    "jamba every kind, tied, rank, biases, head size": _variant(  # layers: A+E, M, M+E, A, M+E, M
        "jamba", "JambaForCausalLM", **JAMBA, num_hidden_layers=6, attn_layer_period=3, attn_layer_offset=0,
        num_experts=3, num_experts_per_tok=1, expert_layer_period=2, expert_layer_offset=0, tie_word_embeddings=True,
        mamba_dt_rank=5, mamba_proj_bias=True, mamba_conv_bias=False, head_dim=20, mamba_expand=3, hidden_act="gelu"),
    "jamba model, dense, multi-head, no attention layer": _variant(  # attention at 3 of 3 layers: none
        "jamba", "JambaModel", **(JAMBA | {"num_key_value_heads": 4, "mamba_d_conv": 3}), num_hidden_layers=3,
        attn_layer_period=4, attn_layer_offset=3, num_experts=1),
}

FALCON_H1 = {"hidden_size": 48, "intermediate_size": 72, "num_attention_heads": 4, "num_key_value_heads": 2,
             "vocab_size": 90, "mamba_d_ssm": 64, "mamba_n_heads": 8, "mamba_d_head": "auto", "mamba_n_groups": 2,
             "mamba_d_state": 8, "mamba_d_conv": 4, "mamba_chunk_size": 8, "pad_token_id": 0, "bos_token_id": 0,
             "eos_token_id": 0}
VARIANTS |= {  # Falcon-H1: attention and Mamba-2 side by side in every layer, then a gated MLP; µP multipliers
    "falcon_h1 gated norm, groups, multipliers": _variant(
        "falcon_h1", "FalconH1ForCausalLM", **FALCON_H1, num_hidden_layers=2, mamba_rms_norm=True,
        key_multiplier=0.5, attention_in_multiplier=2.0, attention_out_multiplier=0.7, ssm_in_multiplier=1.3,
        ssm_out_multiplier=0.2, ssm_multipliers=[0.5, 0.25, 0.5, 1.5, 0.5], mlp_multipliers=[0.9, 0.6],
        embedding_multiplier=5.0, lm_head_multiplier=0.04),
    "falcon_h1 biases, head size, expand, tied": _variant(  # I = mamba_expand·d when mamba_d_ssm is null
        "falcon_h1", "FalconH1ForCausalLM", **(FALCON_H1 | {"mamba_d_ssm": None, "mamba_n_heads": 6,
                                                             "mamba_chunk_size": 5, "mamba_d_conv": 3}),
        num_hidden_layers=3, projectors_bias=True, attention_bias=True, mlp_bias=True, head_dim=20,
        tie_word_embeddings=True, hidden_act="gelu"),
    "falcon_h1 model, in-projection bias only, multi-head": _variant(
        "falcon_h1", "FalconH1Model", **(FALCON_H1 | {"num_key_value_heads": None, "mamba_n_groups": 1}),
        num_hidden_layers=2, mamba_proj_bias=True, mamba_conv_bias=False, mamba_rms_norm=True,
        mamba_norm_before_gate=False),
}

QWEN3_NEXT = {"hidden_size": 64, "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
              "intermediate_size": 96, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 8,
              "linear_value_head_dim": 12, "linear_num_key_heads": 2, "linear_num_value_heads": 4, "num_experts": 4,
              "num_experts_per_tok": 2, "moe_intermediate_size": 40, "shared_expert_intermediate_size": 56,
              "max_position_embeddings": 256, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
VARIANTS |= {  # Gated DeltaNet layers (q/k heads repeated to the value heads) and gated attention; experts or MLP
    "qwen3_next every 2nd layer attention, a dense layer": _variant(
        "qwen3_next", "Qwen3NextForCausalLM", **QWEN3_NEXT, num_hidden_layers=4, full_attention_interval=2,
        mlp_only_layers=[2]),
    "qwen3_next model, listed kinds, biases, sparse step 2, gelu, equal heads": _variant(
        "qwen3_next", "Qwen3NextModel", **(QWEN3_NEXT | {"linear_num_key_heads": 3, "linear_num_value_heads": 3, "linear_conv_kernel_dim": 3}),
        num_hidden_layers=3, layer_types=["full_attention", "linear_attention", "linear_attention"],
        decoder_sparse_step=2, attention_bias=True, hidden_act="gelu"),
    "qwen3_next no experts, all linear, tied": _variant(
        "qwen3_next", "Qwen3NextForCausalLM", **(QWEN3_NEXT | {"num_experts": 0}), num_hidden_layers=2,
        tie_word_embeddings=True),
}
QWEN3_5 = {k: v for k, v in QWEN3_NEXT.items() if k not in ("num_experts", "num_experts_per_tok", "moe_intermediate_size",
                                                           "shared_expert_intermediate_size")}
QWEN3_5_MOE = {k: v for k, v in QWEN3_NEXT.items() if k != "intermediate_size"}
QWEN3_5_PUBLISHED = {"attn_output_gate": True, "mtp_num_hidden_layers": 1, "mtp_use_dedicated_embeddings": False,
                     "mamba_ssm_dtype": "float32", "rope_parameters": {
                         "mrope_interleaved": True, "mrope_section": [1, 1, 0], "rope_type": "default",
                         "rope_theta": 10000000, "partial_rotary_factor": 0.25}}
"""Keys of the published Qwen3.5 text_configs that change no count (the MTP layer is not built by transformers)."""
VARIANTS |= {  # Qwen3.5: Qwen3-Next's layers with split Gated DeltaNet in projections; dense MLP or experts everywhere
    "qwen3_5_text every 2nd layer attention, published keys": _variant(
        "qwen3_5_text", "Qwen3_5ForCausalLM", **(QWEN3_5 | QWEN3_5_PUBLISHED), num_hidden_layers=4,
        full_attention_interval=2, mlp_only_layers=[]),
    "qwen3_5_text model, listed kinds, biases, gelu, equal heads, tied": _variant(
        "qwen3_5_text", "Qwen3_5TextModel", **(QWEN3_5 | {"linear_num_key_heads": 3, "linear_num_value_heads": 3,
                                                          "linear_conv_kernel_dim": 3}),
        num_hidden_layers=3, layer_types=["full_attention", "linear_attention", "linear_attention"],
        attention_bias=True, hidden_act="gelu", tie_word_embeddings=True),
    "qwen3_5_text all linear, inert expert keys": _variant(
        "qwen3_5_text", "Qwen3_5ForCausalLM", **(QWEN3_5 | {"num_experts": 4, "decoder_sparse_step": 2}),
        num_hidden_layers=2, layer_types=["linear_attention"] * 2),
    "qwen3_5_moe_text every 2nd layer attention, published keys": _variant(
        "qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", **(QWEN3_5_MOE | QWEN3_5_PUBLISHED), num_hidden_layers=4,
        full_attention_interval=2),
    "qwen3_5_moe_text model, default interval, biases, k=1, inert dense keys": _variant(
        "qwen3_5_moe_text", "Qwen3_5MoeTextModel", **(QWEN3_5_MOE | {"num_experts_per_tok": 1}), num_hidden_layers=5,
        attention_bias=True, intermediate_size=7, mlp_only_layers=[0], decoder_sparse_step=2),
    "qwen3_5_moe_text all linear, tied, one key head": _variant(
        "qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", **(QWEN3_5_MOE | {"linear_num_key_heads": 1}),
        num_hidden_layers=2, layer_types=["linear_attention"] * 2, tie_word_embeddings=True),
}

LFM2 = {"hidden_size": 64, "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 96, "max_position_embeddings": 256, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
        "norm_eps": 1e-5}
LFM2_PUBLISHED = {"block_dim": 64, "block_mlp_init_scale": 1.0, "block_norm_eps": 1e-05, "block_out_init_scale": 1.0,
                  "block_use_swiglu": True, "block_use_xavier_init": True, "conv_dim": 64, "conv_dim_out": 64,
                  "conv_use_xavier_init": True, "num_heads": 4, "use_pos_enc": True, "rope_theta": 1000000.0}
"""Keys of the published LFM2 configs that no transformers code reads (the original training code's)."""
LFM2_MOE = LFM2 | {"moe_intermediate_size": 40, "num_experts": 4, "num_experts_per_tok": 2}
VARIANTS |= {  # LFM2: gated short convolutions and GQA attention with q/k norms by layer_types; Lfm2MLP's widths
    "lfm2 listed kinds, width adjusted, published keys": _variant(
        "lfm2", "Lfm2ForCausalLM", **(LFM2 | LFM2_PUBLISHED), num_hidden_layers=4,
        layer_types=["conv", "conv", "full_attention", "conv"], block_ff_dim=160, block_multiple_of=16,
        block_ffn_dim_multiplier=1.3, block_auto_adjust_ff_dim=True, conv_L_cache=3),
    "lfm2 model, attention indices, conv biases, head size, untied": _variant(
        "lfm2", "Lfm2Model", **LFM2, num_hidden_layers=3, full_attn_idxs=[0, 2, 9], conv_bias=True, conv_L_cache=4,
        head_dim=20, tie_embedding=False, block_auto_adjust_ff_dim=False),
    "lfm2 all convolutions, kernel 2, untied": _variant(
        "lfm2", "Lfm2ForCausalLM", **LFM2, num_hidden_layers=2, layer_types=["conv", "conv"], conv_L_cache=2,
        tie_word_embeddings=False, block_multiple_of=7),
    "lfm2 all attention (no layer kinds given), heads not dividing d": _variant(
        "lfm2", "Lfm2ForCausalLM", **(LFM2 | {"hidden_size": 66}), num_hidden_layers=2),
    "lfm2_moe dense layers then experts, published keys": _variant(
        "lfm2_moe", "Lfm2MoeForCausalLM", **(LFM2_MOE | LFM2_PUBLISHED), num_hidden_layers=4, num_dense_layers=1,
        layer_types=["conv", "full_attention", "conv", "full_attention"], use_expert_bias=True,
        norm_topk_prob=True, routed_scaling_factor=1.0),
    "lfm2_moe model, experts everywhere, k=1, conv biases, no expert bias": _variant(
        "lfm2_moe", "Lfm2MoeModel", **(LFM2_MOE | {"num_experts_per_tok": 1}), num_hidden_layers=3, num_dense_layers=0,
        layer_types=["full_attention", "conv", "conv"], conv_bias=True, use_expert_bias=False, head_dim=12,
        routed_scaling_factor=2.5, norm_topk_prob=False),
    "lfm2_moe all dense, all convolutions, untied": _variant(
        "lfm2_moe", "Lfm2MoeForCausalLM", **LFM2_MOE, num_hidden_layers=2, num_dense_layers=2,
        layer_types=["conv", "conv"], tie_embedding=False),
}

LFM3 = LFM2 | {"head_dim": 16, "sliding_window": 4}
LFM3_PUBLISHED = {"rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                                      "full_attention": {"rope_type": "proportional", "rope_theta": 1000000.0,
                                                         "partial_rotary_factor": 0.5}},
                  "attention_dropout": 0.0, "use_cache": True}
VARIANTS |= {  # LFM3: LFM2's layers with sliding-window attention, a sigmoid gate per head and sandwich norms
    "lfm3 default kinds, head size 128, gate and sandwich norms, published keys": _variant(
        "lfm3", "Lfm3ForCausalLM", **(LFM2 | LFM3_PUBLISHED | {"sliding_window": 6}), num_hidden_layers=5),
    "lfm3 model, listed kinds, biases, no gate, no sandwich norms, conv biases": _variant(
        "lfm3", "Lfm3Model", **LFM3, num_hidden_layers=4,
        layer_types=["sliding_attention", "conv", "full_attention", "sliding_attention"], attention_bias=True,
        conv_bias=True, conv_L_cache=3, use_attention_gate=False, use_sandwich_norm=False),
    "lfm3 convolutions and sliding attention, untied, heads not dividing d": _variant(
        "lfm3", "Lfm3ForCausalLM", **(LFM3 | {"hidden_size": 66, "head_dim": 10}), num_hidden_layers=3,
        layer_types=["conv", "sliding_attention", "conv"], tie_word_embeddings=False, conv_L_cache=2),
    "lfm3 all convolutions, no window": _variant(
        "lfm3", "Lfm3ForCausalLM", **(LFM3 | {"sliding_window": None}), num_hidden_layers=2,
        layer_types=["conv", "conv"]),
}

MINICPM5_MOE = {"hidden_size": 64, "vocab_size": 100, "intermediate_size": 96, "moe_intermediate_size": 24,
                "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "n_routed_experts": 6,
                "num_experts_per_tok": 2, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 1}
VARIANTS |= {  # MiniCPM5-MoE: GQA with a sigmoid output gate from the q projection; DeepSeek-V3's experts
    "minicpm5_moe default dense layer, one shared expert, old class name": _variant(
        "minicpm5_moe", "MiniCPM5MoEForCausalLM", **MINICPM5_MOE, num_hidden_layers=3, routed_scaling_factor=2.5,
        n_group=2, topk_group=1, norm_topk_prob=False, use_gated_attention=True),
    "minicpm5_moe model, listed kinds, biases, 2 shared, head size 128 (absent), first_k_dense_replace": _variant(
        "minicpm5_moe", "MiniCPM5MoeModel", **{k: v for k, v in MINICPM5_MOE.items() if k != "head_dim"},
        num_hidden_layers=4, mlp_layer_types=["sparse", "dense", "sparse", "dense"], attention_bias=True,
        n_shared_experts=2, first_k_dense_replace=3),
    "minicpm5_moe first 2 dense, no shared expert, null key/value heads and head size, tied": _variant(
        "minicpm5_moe", "MiniCPM5MoeForCausalLM", **(MINICPM5_MOE | {"num_key_value_heads": None, "head_dim": None,
                                                                    "hidden_size": 66}),
        num_hidden_layers=3, first_k_dense_replace=2, n_shared_experts=0, tie_word_embeddings=True,
        hidden_act="gelu"),
}

KIMI_LINEAR = {"hidden_size": 48, "vocab_size": 97, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
               "intermediate_size": 80, "moe_intermediate_size": 24, "num_attention_heads": 4,
               "num_key_value_heads": 4, "kv_lora_rank": 16, "q_lora_rank": None, "qk_rope_head_dim": 8,
               "qk_nope_head_dim": 12, "v_head_dim": 10, "num_experts": 6, "num_experts_per_token": 2,
               "num_shared_experts": 1}
KIMI_LINEAR_PUBLISHED = {"head_dim": 72, "mla_use_nope": True, "moe_layer_freq": 1, "moe_renormalize": True,
                         "moe_router_activation_func": "sigmoid", "num_nextn_predict_layers": 0, "rope_theta": 10000.0,
                         "rope_scaling": None, "routed_scaling_factor": 2.446, "use_grouped_topk": True,
                         "num_expert_group": 1, "topk_group": 1, "model_max_length": 256}
"""Keys of the published Kimi-Linear-48B-A3B config.json that change no count (head_dim is overwritten by
qk_rope_head_dim; the others transformers does not read, or reads for routing only)."""
VARIANTS |= {  # Kimi Delta Attention (per-channel decay, low-rank gates) and latent attention without rotary; MoE
    "kimi_linear published layout keys, listed 1-based kinds, a dense first layer": _variant(
        "kimi_linear", "KimiLinearForCausalLM", **(KIMI_LINEAR | KIMI_LINEAR_PUBLISHED), num_hidden_layers=5,
        first_k_dense_replace=1, linear_attn_config={"full_attn_layers": [2, 5], "kda_layers": [1, 3, 4],
                                                     "head_dim": 8, "num_heads": 3, "short_conv_kernel_size": 4}),
    "kimi_linear model, q rank, biases, 2 shared, gelu, kinds by the default rule": _variant(
        "kimi_linear", "KimiLinearModel", **(KIMI_LINEAR | {"q_lora_rank": 12, "num_shared_experts": 2}),
        num_hidden_layers=6, attention_bias=True, hidden_act="gelu", linear_num_heads=2, linear_head_dim=12, linear_conv_kernel_dim=3,
        n_group=2, topk_group=1),
    "kimi_linear listed kinds and feed-forwards, no shared expert, tie ignored": _variant(
        "kimi_linear", "KimiLinearForCausalLM", **(KIMI_LINEAR | {"num_shared_experts": 0}), num_hidden_layers=3,
        layer_types=["linear_attention", "linear_attention", "full_attention"],
        mlp_layer_types=["sparse", "dense", "sparse"], linear_num_heads=2, linear_head_dim=8,
        tie_word_embeddings=True),
}

OLMO_HYBRID = {"hidden_size": 64, "vocab_size": 100, "intermediate_size": 96, "num_attention_heads": 4,
               "num_key_value_heads": 2, "pad_token_id": 0, "eos_token_id": 1}
VARIANTS |= {  # OLMo 2's attention layers (output norms, whole-width q/k norms) and pre-norm Gated DeltaNet layers
    "olmo_hybrid default kinds and linear sizes": _variant(
        "olmo_hybrid", "OlmoHybridForCausalLM", **OLMO_HYBRID, num_hidden_layers=4),
    "olmo_hybrid model, grouped linear heads, biases": _variant(
        "olmo_hybrid", "OlmoHybridModel", **OLMO_HYBRID, num_hidden_layers=3, linear_num_key_heads=2,
        linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=12, attention_bias=True,
        linear_allow_neg_eigval=False),
    "olmo_hybrid listed kinds, tied, kernel 3": _variant(
        "olmo_hybrid", "OlmoHybridForCausalLM", **OLMO_HYBRID, num_hidden_layers=2,
        layer_types=["full_attention", "linear_attention"], tie_word_embeddings=True, linear_conv_kernel_dim=3),
}

VARIANTS |= DECODER_VARIANTS  # tests/llm/decoder_variants.py

@pytest.mark.parametrize("name", VARIANTS)
def test_small_variant_matches_transformers(torch, name):
    config = VARIANTS[name]
    assert _engine(config, 10) == counts(config, 10)


INERT = {  # keys the readers once refused, which transformers 5's modelling code does not read (config_keys.json)
    "bert relative positions": ("bert-base-uncased", {"position_embedding_type": "relative_key"},
                                {"position_embedding_type"}),
    "bart mbart-style flags": ("bart-base", {"add_final_layer_norm": True, "normalize_before": True,
                                            "static_position_embeddings": True},
                               {"add_final_layer_norm", "normalize_before", "static_position_embeddings"}),
    "mpt expansion ratio, qk_ln, biases": ("mpt-7b", {"expansion_ratio": 3, "no_bias": False,
                                                      "attn_config": {"alibi": True, "qk_ln": True}},
                                           {"expansion_ratio", "no_bias", "attn_config.qk_ln"}),
    "phi-3 attention_bias": ("phi-3-mini-4k", {"attention_bias": True}, {"attention_bias"}),
    "mistral attention_bias": ("mistral-7b", {"attention_bias": True}, {"attention_bias"}),
    "starcoder2 mlp_type": ("starcoder2-3b", {"mlp_type": "gated", "norm_type": "rms_norm"},
                            {"mlp_type", "norm_type"}),
}


@pytest.mark.parametrize("name", INERT)
def test_keys_transformers_does_not_read_change_nothing(torch, name):
    """Such a key is accepted and listed as not used, and the count still equals the model transformers builds
    from the same file: the key changes nothing there either."""
    from engine.llm.library import library_model

    model_id, change, unused = INERT[name]
    config = library_model(model_id).config | change
    model = read_hf_config(config)
    assert model.ignored_keys == ()
    assert unused <= set(model.unused_keys)
    assert _engine(config, SEQ) == counts(config, SEQ)


def test_deepseek_moe_layer_freq_is_inert(torch):
    """transformers makes every layer after the first k sparse whatever moe_layer_freq says."""
    config = VARIANTS["deepseek v3 no shared experts"] | {"moe_layer_freq": 2}
    assert "moe_layer_freq" in read_hf_config(config).unused_keys
    assert _engine(config, 10) == counts(config, 10)


@pytest.mark.parametrize("model_id", ["gpt2", "t5-small", "mpt-7b"])
def test_keys_written_under_their_other_names(torch, model_id):
    """A file that writes attribute_map's names (hidden_size for GPT-2's n_embd, num_heads' num_attention_heads…)
    counts as transformers builds it."""
    import transformers
    from engine.llm.library import library_model

    config = library_model(model_id).config
    aliases = transformers.CONFIG_MAPPING[config["model_type"]].attribute_map
    renamed = dict(config)
    for alias, key in aliases.items():
        if key in renamed and alias not in renamed:
            renamed[alias] = renamed.pop(key)
    assert renamed != config
    assert _engine(renamed, SEQ) == counts(renamed, SEQ) == _engine(config, SEQ)
@pytest.mark.parametrize("step,moe_layers", [(2, None), (1, None), (1, [0, 2])])
def test_llama4_counts_the_routed_experts(torch, step, moe_layers):
    """Llama 4: transformers runs all E experts on every token; the engine counts the k routed ones, so the
    FLOP differ by exactly the idle experts' (formula in ``hf_reference.idle_expert_flop``); parameters are equal."""
    config = _variant("llama4_text", "Llama4ForCausalLM", **S, num_local_experts=4, num_experts_per_tok=1,
                      intermediate_size_mlp=80, interleave_moe_layer_step=step, head_dim=16, moe_layers=moe_layers)
    params, flop = counts(config, 10)
    assert _engine(config, 10) == (params, flop - idle_expert_flop(config, 10))
    assert idle_expert_flop(config, 10) > 0


def test_albert_shared_weights_counted_once_run_every_time(torch):
    """ALBERT, 5 layers over 2 groups of 2 blocks: the FLOP of 10 blocks (transformers' model with 10 unshared
    layers runs the same), the parameters of 4 (transformers' numel), each trained once in full training."""
    from engine.llm.estimate import TransformerRun, estimate_transformer
    from tests.llm.hf_reference import build

    shared = VARIANTS["albert 5 layers, 2 groups of 2 blocks"]
    unshared = shared | {"num_hidden_layers": 10, "num_hidden_groups": 10, "inner_group_num": 1}
    (p_shared, f_shared), (p_unshared, f_unshared) = counts(shared, 10), counts(unshared, 10)
    assert f_shared == f_unshared and _engine(shared, 10) == (p_shared, f_shared)
    d, f = shared["hidden_size"], shared["intermediate_size"]
    block = 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d  # q, k, v, o, up, down (+ biases), two LayerNorms
    assert p_unshared - p_shared == 6 * block
    estimate = estimate_transformer(read_hf_config(shared), TransformerRun(tokens=1e6, seq_len=10, backward="exact"))
    trainable = sum(p.numel() for p in build(shared).parameters())
    assert estimate.architecture.trainable_params == trainable == estimate.params == p_shared


@pytest.mark.parametrize("run", [{"trainable_last": 1}, {"lora_rank": 4}])
def test_albert_partial_fine_tuning_is_refused(run):
    from engine.errors import InputError
    from engine.llm.estimate import TransformerRun, estimate_transformer

    with pytest.raises(InputError, match="fine-tune: .*share weights"):
        estimate_transformer(read_hf_config(VARIANTS["albert one shared layer"]),
                             TransformerRun(tokens=1e6, seq_len=10, **run))


def test_deberta_v3_base_by_the_formula():
    """DeBERTa-v3 base (d = 768, L = 12 layers, H = 12, Q = 64, F = 3072, V = 128,100, S = 256 buckets), DebertaV2Model:
    parameters V·d + 2d (embedding norm) + 2S·d + 2d (relative table, its norm) + L·[4(d² + d) + 2dF + F + d + 4d];
    forward FLOP at T tokens per layer 2T·(4d² + 2dF) (projections, feed-forward) + 2·2·H·T²·Q (QKᵀ, AV) + 2·2·2S·d²
    (the table through q and k, share_att_key) + 2·2·H·T·2S·Q (c2p, p2c)."""
    from engine.llm.library import library_model

    d, layers, h, q, f, v, s, t = 768, 12, 12, 64, 3072, 128_100, 256, 16
    params = v * d + 2 * d + 2 * s * d + 2 * d + layers * (4 * (d * d + d) + 2 * d * f + f + d + 4 * d)
    per_layer = 2 * t * (4 * d * d + 2 * d * f) + 4 * h * t * t * q + 4 * 2 * s * d * d + 4 * h * t * 2 * s * q
    assert _engine(library_model("deberta-v3-base").config, t) == (params, layers * per_layer)
    assert params == 183_831_552  # the published 86M backbone + 98M embedding


def test_deberta_v1_reads_the_middle_rows_of_its_table(torch):
    """DeBERTa v1 reads 2·min(T, S) rows of its 2S-row table (S = 40 here): per layer the position projections
    (d→d, c2p and p2c) over those rows, 2·2·rows·d², and c2p, p2c, 2·2·H·T·rows·Q — the FLOP transformers adds to the
    same model without relative attention, at T = 3 (6 rows) and T = 30 (60 rows); the engine equals transformers."""
    config = VARIANTS["deberta c2p|p2c"]
    plain = dict(config, relative_attention=False)
    d, h, q, layers = 48, 4, 12, 2
    for t in (3, 30):
        rows = 2 * min(t, 40)
        (params, flop), (_, plain_flop) = counts(config, t), counts(plain, t)
        assert flop - plain_flop == layers * (2 * 2 * rows * d * d + 2 * 2 * h * t * rows * q)
        assert _engine(config, t) == (params, flop)


@pytest.mark.parametrize("run", [{"trainable_last": 1}, {"lora_rank": 4}])
def test_deberta_partial_fine_tuning_is_refused(run):
    from engine.errors import InputError
    from engine.llm.estimate import TransformerRun, estimate_transformer

    with pytest.raises(InputError, match="fine-tune: .*DeBERTa"):
        estimate_transformer(read_hf_config(VARIANTS["deberta-v3 layout (buckets, shared keys, normed table)"]),
                             TransformerRun(tokens=1e6, seq_len=10, **run))


def test_roformer_base_by_the_formula(torch):
    """RoFormer base (V = 50,000, d = E = 768, L = 12, H = 12, Q = 64, F = 3072, P = 1536 positions, 2 token types),
    RoFormerForMaskedLM: parameters (V + 2)·d + 2d (tables, embedding norm) + P·Q (the sinusoidal table the rotary
    positions read) + L·[4(d² + d) + 2dF + F + d + 4d] + d² + d + 2d + V (head: dense, norm, decoder bias); forward
    FLOP at T tokens L·[2T·(4d² + 2dF) + 4·H·T²·Q] + 2T·d² + 2T·d·V. Trained in full, the table is the one parameter
    that does not train (requires_grad false in transformers)."""
    from engine.llm.estimate import TransformerRun, estimate_transformer
    from tests.llm.hf_reference import build

    v, d, layers, h, q, f, p, t = 50_000, 768, 12, 12, 64, 3072, 1536, 16
    config = {"model_type": "roformer", "architectures": ["RoFormerForMaskedLM"], "vocab_size": v, "hidden_size": d,
              "num_hidden_layers": layers, "num_attention_heads": h, "intermediate_size": f,
              "max_position_embeddings": p, "type_vocab_size": 2, "embedding_size": d}
    params = (v + 2) * d + 2 * d + p * q + layers * (4 * (d * d + d) + 2 * d * f + f + d + 4 * d) + d * d + 3 * d + v
    forward = layers * (2 * t * (4 * d * d + 2 * d * f) + 4 * h * t * t * q) + 2 * t * d * d + 2 * t * d * v
    assert counts(config, t) == (params, forward)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=t, backward="exact"))
    assert (estimate.params, estimate.architecture.forward_flop) == (params, forward)
    assert estimate.architecture.trainable_params == params - p * q
    model = build(config)
    assert sum(x.numel() for x in model.parameters() if x.requires_grad) == params - p * q


def test_nomic_remote_code_config_is_refused_by_name():
    """Nomic's published configs are written for its remote code (n_embd, n_head, n_layer, n_inner): keys
    transformers' NomicBertConfig does not read, so transformers would build its default sizes from such a file.
    The reader lists them as unused and refuses the file, naming the size it lacks."""
    from engine.errors import InputError

    remote = {"model_type": "nomic_bert", "architectures": ["NomicBertModel"], "n_embd": 768, "n_head": 12,
              "n_layer": 12, "n_inner": 3072, "vocab_size": 30528, "type_vocab_size": 2, "rotary_emb_fraction": 1.0}
    with pytest.raises(InputError, match=r"^config\.num_attention_heads: missing"):
        read_hf_config(remote)


def test_modernbert_decoder_windows_count_with_causal_half():
    """causal_count "half": the full layers keep L(L+1)/2 query-key pairs, the local ones W(W+1)/2 + (L−W)·W with
    W = local_attention // 2 (transformers' sliding_window); QKᵀ and AV are H·pairs·Q MACs each."""
    from engine.llm.estimate import TransformerRun, estimate_transformer

    config = VARIANTS["modernbert-decoder, full and local layers"]  # layers F S F S, W = 4, H = 4, Q = 12
    model = read_hf_config(config)
    length, window, hq = 10, 4, 48
    full = estimate_transformer(model, TransformerRun(tokens=1e6, seq_len=length)).architecture.forward_flop
    half = estimate_transformer(model, TransformerRun(tokens=1e6, seq_len=length, causal_count="half"))
    pairs = 2 * (length * (length + 1) // 2) + 2 * (window * (window + 1) // 2 + (length - window) * window)
    assert full - half.architecture.forward_flop == 2 * 2 * hq * (4 * length * length - pairs)


@pytest.mark.parametrize("name", ["jetmoe (mixture of attention heads and experts)", "jetmoe model, top-1, untied"])
def test_jetmoe_meta_gating_counts_what_the_real_routing_counts(torch, name):
    """The reference replaces JetMoE's gating on meta (``hf_reference._jetmoe_gating``: its expert sizes need
    ``.tolist()``): on CPU with random weights and random tokens, transformers' own routing (tokens split among the
    experts of the attention heads and of the feed-forward) gives the same forward FlopCounterMode total, and the
    engine's count is that total."""
    import transformers
    from torch.utils.flop_counter import FlopCounterMode

    config = VARIANTS[name]
    data = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    hf_config = transformers.AutoConfig.for_model(config["model_type"], **data)
    torch.manual_seed(0)
    model = getattr(transformers, config["architectures"][0])._from_config(hf_config, attn_implementation="eager")
    ids = torch.randint(1, data["vocab_size"], (1, SEQ))
    with torch.no_grad(), FlopCounterMode(display=False) as real:
        model.eval()(input_ids=ids, use_cache=False)
    assert real.get_total_flops() == counts(config, SEQ)[1]
    assert real.get_total_flops() == _engine(config, SEQ)[1]


@pytest.mark.parametrize("change,key", [
    ({"position_embedding_type": "relative_key"}, "position_embedding_type"),  # ESM builds no positions for it
    ({"position_embedding_type": None}, "position_embedding_type"),
    ({"is_folding_model": True}, "is_folding_model"),
    ({"add_cross_attention": True, "is_decoder": True}, "add_cross_attention"),
    ({"pad_token_id": None}, "pad_token_id"),
    ({"head_dim": 8}, "head_dim"),  # the rotary table's width: transformers cannot run one of another size
])
def test_esm_refusals_name_the_key(change, key):
    """What the ESM reader does not count is refused in one line naming the key, never counted."""
    from engine.errors import InputError

    config = VARIANTS["esm-2 layout (rotary, token dropout)"] | change
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(config)


def test_esm_contact_head_counts_parameters_but_no_flop(torch):
    """EsmModel holds the contact-prediction head (L·H + 1 parameters, in Σ numel) and the forward pass does not run
    it: without it the parameters are transformers' less L·H + 1, the FLOP the same."""
    config = VARIANTS["esm model with pooler, learned positions"]
    params, flop = counts(config, SEQ)
    model = read_hf_config(config)
    result = evaluate(model.architecture(SEQ), "matmul")
    plain = evaluate(model.model_copy(update={"contact_head": False}).architecture(SEQ), "matmul")
    maps = config["num_hidden_layers"] * config["num_attention_heads"]
    assert (result.params, result.forward_flop) == (params, flop)
    assert (params - plain.params, flop - plain.forward_flop) == (maps + 1, 0)


@pytest.mark.parametrize("toward", ["zero", "real"])
def test_longcat_zero_expert_picks_still_run_a_real_expert(torch, toward):
    """LongCat-Flash's counting rule for zero-computation experts, checked on CPU weights with transformers' own
    (eager) expert loop: the router's score correction pushes every token's k picks onto the Z zero experts (or onto
    the real ones); either way FlopCounterMode counts the same k experts per token, because ``LongcatFlashMoE``
    sends a pick of zero expert E + j to the real expert ⌊j·E/Z⌋ at weight 0 (and adds x·Σw element-wise). The
    engine's count, k experts per token whatever the routing, is that total."""
    import transformers
    from torch.utils.flop_counter import FlopCounterMode

    config = VARIANTS["longcat-flash (two sub-layers a layer, shortcut experts, zero experts)"] | {
        "zero_expert_num": 3, "moe_topk": 3}  # E = 4 real experts, Z = 3 zero experts, k = 3: all picks can be zero
    data = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    hf_config = transformers.AutoConfig.for_model("longcat_flash", **data)
    hf_config._experts_implementation = "eager"
    torch.manual_seed(0)
    model = transformers.LongcatFlashForCausalLM._from_config(hf_config, attn_implementation="eager").eval()
    picked = []
    for layer in model.model.layers:
        router = layer.mlp.router
        router.e_score_correction_bias[4:] = 1e4 if toward == "zero" else -1e4
        router.register_forward_hook(lambda module, args, out: picked.append(out[2]))
    ids = torch.randint(1, data["vocab_size"], (1, SEQ))
    with torch.no_grad(), FlopCounterMode(display=False) as real:
        model(input_ids=ids, use_cache=False)
    assert all(((p >= 4) if toward == "zero" else (p < 4)).all() for p in picked) and len(picked) == 2
    assert real.get_total_flops() == counts(config, SEQ)[1] == _engine(config, SEQ)[1]


def test_rembert_by_the_formula(torch):
    """RemBERT as google/rembert's config.json reads (quoted in PaddleNLP's RemBERT port; no .json copy was found for
    the library), by hand: E-wide word, position and token-type tables and their LayerNorm, the projection E→d
    (biased), 32 post-norm blocks, and RemBertModel's pooler — 575,920,384, the paper's 575M fine-tuning parameters;
    RemBertForMaskedLM adds the decoupled output embedding: dense d→O, LayerNorm of O, decoder O→V with a bias
    (993,263,548). Forward FLOP of T tokens: the projection, the blocks, the pooler (first token) or the head."""
    config = {"model_type": "rembert", "architectures": ["RemBertModel"], "attention_probs_dropout_prob": 0,
              "bos_token_id": 312, "embedding_dropout_prob": 0, "embedding_size": 256, "eos_token_id": 313,
              "hidden_act": "gelu", "hidden_dropout_prob": 0, "hidden_size": 1152, "initializer_range": 0.02,
              "input_embedding_size": 256, "intermediate_size": 4608, "layer_norm_eps": 1e-12,
              "max_position_embeddings": 512, "num_attention_heads": 18, "num_hidden_layers": 32,
              "output_embedding_size": 1664, "pad_token_id": 0, "tie_word_embeddings": False, "type_vocab_size": 2,
              "use_cache": True, "vocab_size": 250300}
    v, e, d, o, layers, f, p, types, t = 250300, 256, 1152, 1664, 32, 4608, 512, 2, 16
    embeddings = (v + p + types) * e + 2 * e + e * d + d
    layer = 4 * (d * d + d) + d * f + f + f * d + d + 2 * 2 * d
    blocks = layers * (2 * t * (4 * d * d + 2 * d * f) + 4 * t * t * d)
    model = (embeddings + layers * layer + d * d + d, 2 * t * e * d + blocks + 2 * d * d)
    head = d * o + o + 2 * o + o * v + v
    masked = (embeddings + layers * layer + head, 2 * t * e * d + blocks + 2 * t * d * o + 2 * t * o * v)
    assert model[0] == 575_920_384 and masked[0] == 993_263_548
    for cls, expected in (("RemBertModel", model), ("RemBertForMaskedLM", masked)):
        data = config | {"architectures": [cls]}
        assert counts(data, t) == expected
        assert _engine(data, t) == expected
    assert read_hf_config(config).unused_keys == ("embedding_dropout_prob",)  # nothing in transformers reads it


def test_rembert_cross_attention_is_refused_by_name():
    from engine.errors import InputError

    config = VARIANTS["rembert"] | {"is_decoder": True, "add_cross_attention": True}
    with pytest.raises(InputError, match=r"^config\.add_cross_attention: true is not supported"):
        read_hf_config(config)


LAGUNA_BASE = "laguna (softplus gate per head, sigmoid-routed experts beside a shared one, first layer dense)"


@pytest.mark.parametrize("change,key", [
    ({"gating": "per-element", "attention_bias": True}, "gating"),  # the gate projection has no bias, q would
    ({"num_attention_heads_per_layer": [4, 3, 4]}, "num_attention_heads_per_layer"),  # 3 heads over 2 kv heads
    ({"num_attention_heads_per_layer": [4, 4]}, "num_attention_heads_per_layer"),  # not one per layer
    ({"num_attention_heads": 5, "num_key_value_heads": 2}, "num_attention_heads"),
    ({"num_experts": 1, "num_experts_per_tok": 1}, "num_experts"),
    ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
    ({"moe_apply_router_weight_on_input": True}, "moe_apply_router_weight_on_input"),
    ({"head_dim": None}, "head_dim"),
    ({"mlp_layer_types": ["dense", "moe", "sparse"]}, "mlp_layer_types"),
])
def test_laguna_refusals_name_the_key(change, key):
    """What the Laguna reader does not count is refused in one line naming the key, never counted."""
    from engine.errors import InputError

    config = VARIANTS[LAGUNA_BASE] | change
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(config)


def test_laguna_layer_by_hand():
    """A Laguna model from LagunaDecoderLayer's weight shapes and the products FlopCounterMode counts: per layer q
    d→H_i·Q, k and v d→H_kv·Q, o H_i·Q→d (heads per layer), a softplus gate d→H_i (per head) without bias, per-head
    q/k RMSNorms (Q each), two RMSNorms; the first layer a gated MLP of F, the others a router d→E (no bias; its score
    correction, E parameters), E gated experts of F_e (k per token) and a gated shared expert of F_s."""
    d, q, kv, vocab, t = 64, 12, 2, 128, 10
    f, fe, fs, e, k = 96, 24, 20, 4, 2
    heads = [4, 2, 6]
    config = VARIANTS[LAGUNA_BASE] | {"num_attention_heads_per_layer": heads}

    def attention(h):
        return d * h * q + 2 * d * kv * q + h * q * d + d * h + 2 * q + 2 * d

    moe = d * e + e + e * 3 * d * fe + 3 * d * fs
    params = 2 * vocab * d + d + sum(attention(h) for h in heads) + 3 * d * f + 2 * moe
    macs = t * d * vocab + t * 3 * d * f + 2 * t * (d * e + k * 3 * d * fe + 3 * d * fs) + sum(
        t * (d * h * q + 2 * d * kv * q + h * q * d + d * h) + 2 * h * t * t * q for h in heads)
    assert _engine(config, t) == (params, 2 * macs)


def test_gte_and_jina_embeddings_v3_by_the_formula(torch):
    """GteConfig's defaults (gte-multilingual-base's sizes) and JinaEmbeddingsV3Config's (jina-embeddings-v3's), by
    hand. GTE: tables V·d + types·d and their LayerNorm; per layer biased q, k, v, output (4(d² + d)), gate and up
    d→F without bias, down F→d with one, two LayerNorms; Jina: fc1 and fc2 both biased, and JinaEmbeddingsV3Model's
    pooler d→d. Forward FLOP of T tokens: 2T(4d² + n·dF) + 4T²d per layer (n = 3 gated, 2), the pooler 2d²."""
    gte = {"model_type": "gte", "architectures": ["GteModel"], "vocab_size": 250048, "hidden_size": 768,
           "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072, "type_vocab_size": 1,
           "max_position_embeddings": 8192, "pad_token_id": 1}
    v, d, layers, f, t = 250048, 768, 12, 3072, 16
    layer = 4 * (d * d + d) + 3 * d * f + d + 2 * 2 * d
    expected = (v * d + d + 2 * d + layers * layer, layers * (2 * t * (4 * d * d + 3 * d * f) + 4 * t * t * d))
    assert expected[0] == 305_368_320  # gte-multilingual-base: "305M"
    assert counts(gte, t) == expected
    assert _engine(gte, t) == expected
    jina = {"model_type": "jina_embeddings_v3", "architectures": ["JinaEmbeddingsV3Model"], "vocab_size": 250002,
            "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
            "type_vocab_size": 1, "max_position_embeddings": 8194, "pad_token_id": 1}
    v, d, layers, f = 250002, 1024, 24, 4096
    layer = 4 * (d * d + d) + 2 * d * f + f + d + 2 * 2 * d
    expected = (v * d + d + 2 * d + layers * layer + d * d + d,
                layers * (2 * t * (4 * d * d + 2 * d * f) + 4 * t * t * d) + 2 * d * d)
    assert expected[0] == 559_364_096  # the backbone without the remote code's task adapters
    assert counts(jina, t) == expected
    assert _engine(jina, t) == expected


def test_jina_embeddings_v3_task_adapters_are_what_the_class_builds(torch):
    """transformers' JinaEmbeddingsV3 builds no LoRA adapter: the remote code's keys are listed as not used, and the
    counts are the backbone's, equal to transformers' with or without them."""
    plain = VARIANTS["jina_embeddings_v3"]
    adapters = plain | {"lora_adaptations": ["retrieval.query", "retrieval.passage", "separation", "classification",
                                             "text-matching"], "lora_rank": 4, "lora_alpha": 1,
                        "lora_main_params_trainable": False, "task_instructions": {"separation": ""}}
    model = read_hf_config(adapters)
    assert set(model.unused_keys) == {"lora_adaptations", "lora_rank", "lora_alpha", "lora_main_params_trainable",
                                      "task_instructions"}
    assert _engine(adapters, SEQ) == _engine(plain, SEQ) == counts(adapters, SEQ)


@pytest.mark.parametrize("change, key", [({"tie_word_embeddings": False}, "tie_word_embeddings"),
                                         ({"type_vocab_size": 0}, "type_vocab_size"),
                                         ({"head_dim": None}, "head_dim")])
def test_jina_embeddings_v3_refusals_name_the_key(change, key):
    from engine.errors import InputError

    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(VARIANTS["jina_embeddings_v3"] | change)


MOBILEBERT_UNCASED = {
    "model_type": "mobilebert", "architectures": ["MobileBertModel"], "attention_probs_dropout_prob": 0.1,
    "classifier_activation": False, "embedding_size": 128, "hidden_act": "relu", "hidden_dropout_prob": 0.0,
    "hidden_size": 512, "initializer_range": 0.02, "intermediate_size": 512, "intra_bottleneck_size": 128,
    "key_query_shared_bottleneck": True, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
    "normalization_type": "no_norm", "num_attention_heads": 4, "num_feedforward_networks": 4, "num_hidden_layers": 24,
    "pad_token_id": 0, "transformers_version": "4.6.0.dev0", "trigram_input": True, "true_hidden_size": 128,
    "type_vocab_size": 2, "use_bottleneck": True, "use_bottleneck_attention": False, "vocab_size": 30522}
"""google/mobilebert-uncased's config.json as PaddleNLP's MobileBERT port quotes it (no .json copy was found)."""


def test_mobilebert_uncased_by_the_formula(torch):
    """MobileBERT (google/mobilebert-uncased) by hand. Embeddings: the token table V·E, the trigram projection
    3E·d + d, positions P·d, token types T·d, a NoNorm 2d. Per layer: the input and shared attention bottlenecks
    (d·b + b and a NoNorm 2b each), q and k b→b, v d→b, the output b→b (NoNorm 2b), N feed-forwards b→F→b (a NoNorm
    2b each), the output bottleneck b→d (NoNorm 2d). MobileBertModel without classifier_activation: no pooler.
    The masked-LM head: dense d→d, a LayerNorm 2d, the tied table's E rows and d − E rows of its own (V·(d − E)), one
    bias V. Forward FLOP of T tokens: 2T·3E·d, per layer 2T(2db + 2b² + db + b² + 2NbF + bd) + 4T²b, the head
    2T(d² + dV)."""
    v, e, d, b, f, n, layers, p, types, t = 30522, 128, 512, 128, 512, 4, 24, 512, 2, 16
    embeddings = v * e + 3 * e * d + d + (p + types) * d + 2 * d
    layer = 2 * (d * b + b + 2 * b) + 2 * (b * b + b) + d * b + b + b * b + b + 2 * b \
        + n * (b * f + f + f * b + b + 2 * b) + b * d + d + 2 * d
    blocks = layers * (2 * t * (2 * d * b + 2 * b * b + d * b + b * b + 2 * n * b * f + b * d) + 4 * t * t * b)
    model = (embeddings + layers * layer, 2 * t * 3 * e * d + blocks)
    head = d * d + d + 2 * d + (d - e) * v + v
    masked = (model[0] + head, model[1] + 2 * t * (d * d + d * v))
    assert model[0] == 24_581_888 and masked[0] == 36_596_538  # the paper reports 25.3M for MobileBERT
    for cls, expected in (("MobileBertModel", model), ("MobileBertForMaskedLM", masked)):
        data = MOBILEBERT_UNCASED | {"architectures": [cls]}
        assert counts(data, t) == expected
        assert _engine(data, t) == expected


@pytest.mark.parametrize("change, key", [
    ({"tie_word_embeddings": False}, "tie_word_embeddings"),
    ({"normalization_type": "batch_norm"}, "normalization_type"),
    ({"num_attention_heads": 3}, "num_attention_heads"),  # 3 does not divide the bottleneck's 128
    ({"key_query_shared_bottleneck": False}, "key_query_shared_bottleneck"),  # queries read d through b-wide weights
    ({"embedding_size": 600, "architectures": ["MobileBertForMaskedLM"]}, "embedding_size"),
    ({"type_vocab_size": 0}, "type_vocab_size"),
    ({"hidden_act": "relu2"}, "hidden_act"),
    ({"num_feedforward_networks": 10**9}, "num_feedforward_networks"),  # each its own rows: minutes, gigabytes
    ({"num_feedforward_networks": 0}, "num_feedforward_networks"),
])
def test_mobilebert_refusals_name_the_key(change, key):
    from engine.errors import InputError

    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(MOBILEBERT_UNCASED | change)


def test_mobilebert_fine_tuning_part_is_refused():
    from engine.errors import InputError
    from engine.llm.estimate import TransformerRun, estimate_transformer

    config = read_hf_config(MOBILEBERT_UNCASED)
    for run in (TransformerRun(tokens=1e9, seq_len=128, lora_rank=4), TransformerRun(tokens=1e9, seq_len=128,
                                                                                     trainable_last=2)):
        with pytest.raises(InputError, match="^fine-tune: fine-tuning part of a MobileBERT model"):
            estimate_transformer(config, run)
    full = estimate_transformer(config, TransformerRun(tokens=1e9, seq_len=128, backward="exact"))
    assert full.architecture.params == 24_581_888
    assert full.non_embedding_params == 24_581_888 - 30522 * 128 - (512 + 2) * 512  # the E-wide token table


def test_mobilebert_no_norm_in_the_full_convention():
    """NoNorm (γ·x + β) has a LayerNorm's parameters and no matmul; in the full convention it costs 2 FLOP an element
    where a LayerNorm costs 7: over T positions, the embeddings' norm (d) and per layer the input and attention
    bottlenecks', the attention output's, the N feed-forwards' (b each) and the output bottleneck's (d)."""
    d, b, n, layers, t = 512, 128, 4, 24, 16
    counted = {}
    for kind in ("no_norm", "layer_norm"):
        model = read_hf_config(MOBILEBERT_UNCASED | {"normalization_type": kind})
        result = evaluate(model.architecture(t), "full")
        counted[kind] = (result.params, result.forward_flop, evaluate(model.architecture(t), "matmul").forward_flop)
    assert counted["no_norm"][0] == counted["layer_norm"][0] and counted["no_norm"][2] == counted["layer_norm"][2]
    elements = t * (d + layers * ((3 + n) * b + d))
    assert counted["layer_norm"][1] - counted["no_norm"][1] == (7 - 2) * elements
