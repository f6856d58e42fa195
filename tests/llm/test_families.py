"""The family readers without transformers: hostile configs → one line naming the key; the library's
entries are sourced; what each family fixes, checked against hand-written weight shapes."""
from __future__ import annotations

import json

import pytest

from engine.errors import InputError
from engine.llm.config import load_hf_config_text, read_hf_config
from engine.llm.families import FAMILIES
from engine.llm.library import library_model, library_models
from engine.method1.architecture import evaluate


def _config(model_id: str) -> dict:
    return json.loads(json.dumps(library_model(model_id).config))


@pytest.mark.parametrize("model_id,change,key", [
    ("bert-base-uncased", {"num_attention_heads": 7}, "config.num_attention_heads: 7 heads do not divide"),
    ("bert-base-uncased", {"architectures": ["BertForSequenceClassification"]},
     "config.architectures: 'BertForSequenceClassification' is not counted"),
    ("bert-base-uncased", {"architectures": "BertModel"}, "config.architectures: expected a list"),
    ("bert-base-uncased", {"tie_word_embeddings": False}, "config.tie_word_embeddings: false is not supported"),
    ("t5-base", {"d_kv": -64}, "config.d_kv: "),
    ("t5-base", {"feed_forward_proj": "gated-mish"}, "config.feed_forward_proj: 'gated-mish' is not one of"),
    ("t5-base", {"num_layers": 10**9}, "config.num_layers: must be at most 10000"),
    ("bart-base", {"encoder_attention_heads": 5}, "config.encoder_attention_heads: 5 heads do not divide"),
    ("gemma-2b", {"head_dim": None}, "config.head_dim: missing"),
    ("gemma-2-9b", {"layer_types": ["full_attention"]}, "config.layer_types: expected 42 entries"),
    ("gemma-3-1b", {"use_bidirectional_attention": True}, "config.use_bidirectional_attention: "),
    ("falcon-40b", {"num_kv_heads": 7}, "config.num_kv_heads: kv_heads 7 must divide heads 128"),
    ("falcon-7b", {"ffn_hidden_size": "big"}, "config.ffn_hidden_size: expected a whole number"),
    ("falcon-7b", {"multi_query": False, "num_kv_heads": 7}, "config.num_kv_heads: grouped key/value heads need"),
    ("deepseek-v3", {"num_experts_per_tok": 300}, "config.num_experts_per_tok: active_experts 300 is more than"),
    ("deepseek-v3", {"kv_lora_rank": 0}, "config.kv_lora_rank: "),
    ("deepseek-v2-lite", {"q_lora_rank": ...}, "config.q_lora_rank: missing"),
    ("qwen1.5-moe-a2.7b", {"use_sliding_window": True}, "config.use_sliding_window: true is not supported"),
    ("qwen1.5-moe-a2.7b", {"mlp_only_layers": "all"}, "config.mlp_only_layers: expected a list"),
    ("qwen1.5-moe-a2.7b", {"shared_expert_intermediate_size": 0}, "config.shared_expert_intermediate_size: "),
    ("gemma-2-2b", {"num_attention_heads": 7}, "config.num_attention_heads: 7 heads do not divide hidden_size"),
    ("qwen3-30b-a3b", {"num_experts": 1e400}, "config.num_experts: "),
    ("qwen3-30b-a3b", {"num_hidden_layers": 10**9}, "config.num_hidden_layers: must be at most"),
    ("gemma-3-1b", {"num_hidden_layers": 10**9, "layer_types": None}, "config.num_hidden_layers: "),
    ("qwen3-8b", {"head_dim": ...}, "config.head_dim: missing"),
    ("gpt-oss-20b", {"num_local_experts": -32}, "config.num_local_experts: "),
    ("mpt-7b", {"attn_config": "alibi"}, "config.attn_config: expected an object"),
    ("bloom-560m", {"n_embed": None}, "config.hidden_size: missing (or n_embed)"),
    ("starcoder2-3b", {"use_bias": "yes"}, "config.use_bias: expected true or false"),
    ("olmo-2-7b", {"num_key_value_heads": 0}, "config.num_key_value_heads: "),
    ("llama-3.1-8b", {"model_type": "llama4"},  # Llama 4's multimodal checkpoint: its language model is text_config
     "config.text_config: a 'llama4' checkpoint keeps its language model in text_config"),
    ("llama-3.1-8b", {"model_type": "rwkv"}, "config.model_type: 'rwkv' is not a family this reader supports"),
    ("llama-3.1-8b", {"architectures": ["MistralForCausalLM"]}, "config.architectures: 'MistralForCausalLM'"),
    ("gpt2", {"num_hidden_layers": 24}, "config.num_hidden_layers: 24 differs from n_layer 12 (transformers reads"),
    ("bert-base-uncased", {"embedding_size": 128}, "config.embedding_size: transformers' "),
    ("minimax-m2", {"attn_type_list": [0] + [1] * 61}, "config.attn_type_list: [0, 1, "),
    ("minimax-m2", {"use_qk_norm": False}, "config.use_qk_norm: false is not supported"),
    ("minimax-m2", {"qk_norm_type": "per_head"}, "config.qk_norm_type: \"per_head\" is not supported"),
    ("minimax-m2", {"shared_intermediate_size": 1536}, "config.shared_intermediate_size: 1536 is not supported"),
    ("minimax-m2", {"head_dim": ...}, "config.head_dim: missing (transformers' MiniMax-M2 default is 128"),
    ("deberta-v2-xlarge", {"conv_kernel_size": 4}, "config.conv_kernel_size: 4 is even"),
    ("deberta-v2-xlarge", {"conv_groups": 5}, "config.conv_groups: 5 groups must divide hidden_size 1536"),
    ("deberta-v2-xlarge", {"attention_head_size": 32}, "config.attention_head_size: 32 × 24 heads ≠ hidden_size"),
    ("deberta-v2-xlarge", {"tie_word_embeddings": False}, "config.tie_word_embeddings: false is not supported"),
    ("deberta-v2-xlarge", {"legacy": False, "embedding_size": 512}, "config.legacy: false with embedding_size 512"),
    ("deberta-v2-xlarge", {"pos_att_type": 3}, "config.pos_att_type: expected a list of position terms"),
    ("deberta-v2-xlarge", {"norm_rel_ebd": True}, "config.norm_rel_ebd: expected a string"),
    ("deberta-v3-base", {"model_type": "deberta", "architectures": ["DebertaModel"], "talking_head": True},
     "config.talking_head: true is not supported"),
    ("gemma-4-26b-a4b-text", {"use_bidirectional_attention": "all"},
     "config.use_bidirectional_attention: \"all\" is not supported"),
    ("gemma-4-26b-a4b-text", {"num_experts": None}, "config.num_experts: missing (enable_moe_block builds"),
    ("gemma-4-26b-a4b-text", {"top_k_experts": 129}, "config.top_k_experts: 129: expected 1 to num_experts"),
    ("gemma-4-26b-a4b-text", {"layer_types": [{"x": 1}] * 30}, "config.layer_types: expected 30 entries"),
    ("gemma-4-26b-a4b-text", {"per_layer_config": {"05": {"sliding_window": 8}}},
     "config.per_layer_config.05.sliding_window: a per-layer override of this key is not modelled"),
    ("gemma-4-26b-a4b-text", {"per_layer_config": {"05": {"head_dim": 512}}},
     "config.per_layer_config: the full_attention layers have different overrides"),
    ("gemma-4-26b-a4b-text", {"per_layer_config": {"30": {"head_dim": 512}}},
     "config.per_layer_config: layer 30 is not one of the 30 layers"),
    ("gemma-4-12b-text", {"use_bidirectional_attention": "all"},
     "config.use_bidirectional_attention: \"all\" is not supported"),
    ("gemma-4-12b-text", {"num_kv_shared_layers": 48}, "config.num_kv_shared_layers: 48: expected 0 to 47"),
    ("gemma-4-12b-text", {"per_layer_config": {"5": {"sliding_window": 8}}},
     "config.per_layer_config.5.sliding_window: a per-layer override of this key is not modelled"),
    ("gemma-4-e2b-text", {"num_kv_shared_layers": 35}, "config.num_kv_shared_layers: 35: expected 0 to 34"),
    ("gemma-4-e2b-text", {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"],
                          "intermediate_size": [6144] * 34}, "config.intermediate_size: expected one size or a list of 35"),
    ("gemma-4-e2b-text", {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"],
                          "altup_num_inputs": 2, "altup_active_idx": 2}, "config.altup_active_idx: 2: expected a stream"),
    ("gemma-4-e2b-text", {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"],
                          "num_attention_heads": 7}, "config.num_attention_heads: 7 heads do not divide hidden_size"),
    ("gemma-4-e2b-text", {"num_kv_shared_layers": 34}, "config.num_kv_shared_layers: a layer type that shares"),
    ("longcat-flash-chat", {"head_dim": 128}, "config.head_dim: 128 differs from qk_rope_head_dim 64"),
    ("longcat-flash-chat", {"qk_head_dim": 128}, "config.qk_head_dim: 128 differs from qk_nope_head_dim"),
    ("longcat-flash-chat", {"num_hidden_layers": 55}, "config.num_hidden_layers: 55 is odd"),
    ("longcat-flash-chat", {"num_hidden_layers": 54}, "config.num_layers: 28 disagrees with num_hidden_layers 54"),
    ("longcat-flash-chat", {"moe_topk": 513}, "config.moe_topk: 513 is more than n_routed_experts 512"),
    ("longcat-flash-chat", {"router_bias": True}, "config.router_bias: true is not supported"),
    ("longcat-flash-chat", {"q_lora_rank": None}, "config.q_lora_rank: null is not accepted"),
    ("longcat-flash-chat", {"zero_expert_num": None}, "config.zero_expert_num: null is not accepted"),
    ("longcat-flash-chat", {"num_key_value_heads": 8}, "config.num_key_value_heads: 8 (absent: 64) differs"),
    ("longcat-flash-chat", {"n_routed_experts": 1, "moe_topk": 1}, "config.n_routed_experts: 1: one routed expert"),
    ("deepseek-v4-flash", {"mlp_bias": True}, "config.mlp_bias: true is not modelled"),
    ("deepseek-v4-flash", {"q_lora_rank": None}, "config.q_lora_rank: null is not accepted"),
    ("deepseek-v4-flash", {"hc_mult": None}, "config.hc_mult: null is not accepted"),
    ("deepseek-v4-flash", {"o_groups": 7}, "config.o_groups: 7 groups do not divide"),
    ("deepseek-v4-flash", {"compress_ratios": [0, 4, 64] * 15}, "config.compress_ratios: expected 43 entries"),
    ("deepseek-v4-flash", {"compress_ratios": [0, 4]}, "config.compress_ratios: expected 43 entries"),
    ("deepseek-v4-flash", {"layer_types": ["sliding_attention", "full_attention"] * 21 + ["sliding_attention"]},
     "config.layer_types: expected 43 entries"),
    ("deepseek-v4-flash", {"compress_rates": {"sliding_attention": 4}}, "config.compress_rates: expected an object"),
    ("deepseek-v4-flash", {"compress_rates": {"compressed_sparse_attention": 4}},
     "config.compress_rates: no rate for heavily_compressed_attention, which layer 3 is"),
    ("deepseek-v4-flash", {"compress_rate_hca": 0}, "config.compress_rate_hca: heavily_compressed_attention's rate"),
    ("deepseek-v4-flash", {"mlp_layer_types": ["moe", "dense"] * 21 + ["moe"]}, "config.mlp_layer_types: expected 43"),
])
def test_hostile_configs_name_the_key(model_id, change, key):
    config = _config(model_id)
    for k, v in change.items():
        if v is ...:
            config.pop(k, None)
        else:
            config[k] = v
    if model_id == "bloom-560m":
        config.pop("hidden_size", None)
    with pytest.raises(InputError) as info:
        read_hf_config(config)
    message = str(info.value)
    assert message.startswith(key), message
    assert "\n" not in message and len(message) < 600


def test_keys_transformers_does_not_read_are_accepted_and_listed():
    """``moe_experts``, ``alpha`` and a markup key are read by no transformers code for Llama (config_keys.json):
    inert, so the count is the plain Llama 3.1 8B one, and they are listed as not used."""
    config = _config("llama-3.1-8b") | {"zeta": 1, "alpha": {"x": 2}, "moe_experts": 8, "<script>alert(1)</script>": 1}
    model = read_hf_config(config)
    assert model.unused_keys == ("<script>alert(1)</script>", "alpha", "moe_experts", "zeta")
    assert model.ignored_keys == ()
    assert evaluate(model.architecture(8)).params == 8_030_261_248


def test_lenient_lists_every_ignored_key():
    """BERT's embedding_size is read by transformers' BertEmbeddings/BertSelfAttention (config_keys.json), not by
    the reader: refused, or left out and listed when lenient (zeta and position_embedding_type, read by nothing in transformers 5's BERT, are listed as not used)."""
    config = _config("bert-base-uncased") | {"embedding_size": 128, "zeta": 1}
    with pytest.raises(InputError, match=r"^config\.embedding_size: transformers' .* reads? it, and this reader "
                                         r"does not"):
        read_hf_config(config)
    model = read_hf_config(config, lenient=True)
    assert (model.ignored_keys, model.unused_keys) == (("embedding_size",), ("position_embedding_type", "zeta"))
    assert evaluate(model.architecture(8)).params == 109_514_298  # BertForMaskedLM, transformers on meta


def test_other_names_transformers_reads_a_key_under():
    """GPT2Config.attribute_map: hidden_size is n_embd, num_hidden_layers n_layer. Written instead of the key,
    the alias is read as it; repeating the key's value, it is accepted; a different value is refused."""
    gpt2 = _config("gpt2")
    renamed = {k: v for k, v in gpt2.items() if k not in ("n_embd", "n_layer")} | {"hidden_size": 768,
                                                                                     "num_hidden_layers": 12}
    model = read_hf_config(renamed)
    assert (model.ignored_keys, model.unused_keys) == ((), ())
    assert evaluate(model.architecture(8)).params == 124_439_808
    assert evaluate(read_hf_config(gpt2 | {"hidden_size": 768}).architecture(8)).params == 124_439_808
    with pytest.raises(InputError, match=r"^config\.hidden_size: must be at least 1"):  # the key the file wrote
        read_hf_config({k: v for k, v in renamed.items()} | {"hidden_size": -5})


def test_huge_and_garbage_text():
    with pytest.raises(InputError, match=r"^config"):
        load_hf_config_text('{"model_type": "llama", "num_hidden_layers": ' + "9" * 5000 + "}")
    with pytest.raises(InputError, match=r"^config\.num_hidden_layers: "):
        load_hf_config_text(json.dumps(_config("llama-3.1-8b") | {"num_hidden_layers": 10**9}))


VLM_TEXT_TOWERS = ("qwen2_vl_text", "qwen2_5_vl_text", "qwen3_vl_text", "qwen3_vl_moe_text", "qwen2_5_omni_text",
                   "qwen3_omni_moe_text", "glm4v_text", "glm4v_moe_text", "glm_ocr_text")
WITHOUT_LIBRARY = {
    **{t: "the text tower of a vision-language model: its published config.json is the VLM's, with this one nested "
          "as text_config (read by the multimodal readers: tests/multimodal), never a text model's file of its own"
       for t in VLM_TEXT_TOWERS},
    "deberta": "no published DeBERTa v1 config.json (microsoft/deberta-base, -large) among the sources this checkout "
               "could read; Microsoft's DeBERTa repository ships the v2/v3 configs only (counted exactly against "
               "transformers from configs: tests/llm/test_families_hf.py, the coverage sweep)",
    "gemma3n_text": "no verbatim copy of a published Gemma 3n config.json (google/gemma-3n-E2B, -E4B) among the "
                    "sources this checkout could read (test fixtures and converters only); counted exactly against "
                    "transformers from configs (tests/llm/test_families_hf.py, the coverage sweep) and by hand at "
                    "E2B's sizes (test_gemma3n_e2b_sizes_by_hand)",
    "zamba": "no published Zamba-7B-v1 config.json among the sources this checkout could read (counted exactly "
             "against transformers from configs: tests/llm/test_families_hf.py, the coverage sweep)",
    "ministral": "Ministral-8B-Instruct-2410's published config.json names MistralForCausalLM (model_type mistral, "
                 "counted by the mistral reader); no config published as ministral was found (counted exactly against "
                 "transformers from configs: tests/llm/test_families_hf.py, the coverage sweep)",
    **{t: f"no published {name} config.json among the sources this checkout could read (counted exactly against "
          "transformers from configs: tests/llm/test_families_hf.py, the coverage sweep)"
       for t, name in (("arcee", "AFM-4.5B"), ("vaultgemma", "VaultGemma 1B"),
                       ("granitemoeshared", "Granite MoE shared-expert"), ("exaone_moe", "K-EXAONE"),
                       ("cohere2_moe", "Command A+ (Cohere 2 MoE)"), ("jetmoe", "JetMoE-8B"),
                       ("roformer", "RoFormer (junnyu/roformer_chinese_base; its URL only, in transformers' old "
                                    "archive maps)"),
                       ("t5gemma", "T5Gemma (google/t5gemma-2b-2b-ul2 and the others: their Hub ids only, in "
                                   "transformers' docs and tests)"),
                       ("xlm", "XLM (FacebookAI/xlm-mlm-en-2048 and the others)"),
                       ("olmo_hybrid", "OLMo Hybrid (allenai/Olmo-Hybrid-7B; only converters' and tests' configs "
                                       "found)"),
                       ("flaubert", "FlauBERT (flaubert/flaubert_base_cased and the others)"),
                       ("fsmt", "FSMT (facebook/wmt19-en-de and the others; the FSMT blog post quotes the "
                                "converter's mapping, not the files)"),
                       ("glm_moe_dsa", "GLM-5 (zai-org/GLM-5; only partial quotations and test fixtures)"),
                       ("jais2", "Jais 2 (inceptionai/Jais-2-8B-Chat; its Hub id only, in transformers' docs)"),
                       ("granitemoe_swa", "Granite MoE SWA (only test fixtures)"),
                       ("hyperclovax", "HyperCLOVA X (naver-hyperclovax; no config written as hyperclovax)"),
                       ("nanochat", "nanochat (converters' code only, no published config.json written as "
                                    "NanoChatConfig)"),
                       ("bitnet", "BitNet b1.58 2B4T (microsoft/bitnet-b1.58-2B-4T; its Hub id only)"),
                       ("diffllama", "DiffLlama (no published checkpoint config found)"),
                       ("biogpt", "BioGPT (microsoft/biogpt; only converters and fixtures that write one)"),
                       ("mimo_v2_flash", "MiMo-V2-Flash (XiaomiMiMo/MiMo-V2-Flash; only reconstructions in "
                                         "tests, in its remote-code keys)"),
                       ("lfm3", "LFM3 (LiquidAI/LFM3-1.7B, transformers' docstring checkpoint; only ports' test "
                                "configs found)"),
                       ("minicpm5_moe", "MiniCPM5-MoE (openbmb/MiniCPM5-15B-A2.5B, transformers' docstring "
                                        "checkpoint; only a training script's size check and converters found; its "
                                        "sizes are MiniCPM5MoeConfig's defaults, counted by hand: "
                                        "test_minicpm5_moe_default_sizes_by_hand)"),
                       ("hy_v3", "Hy3-preview (tencent/Hy3-preview; only ports' reconstructions of its config.json "
                                 "found, in its remote-code keys; its sizes are HYV3Config's defaults, counted by "
                                 "hand: test_hy_v3_default_sizes_are_hy3_preview_by_hand)"),
                       ("laguna", "Laguna XS.2 (poolside/Laguna-XS.2; only copies cut off before its layer_types "
                                  "and the keys after them, and trimmed or toy configs in other projects' tests)"),
                       ("apertus1p5_text", "Apertus 1.5 (swiss-ai/Apertus-v1.5-8B, transformers' docstring "
                                           "checkpoint; only a serving port's loader found, no config.json; "
                                           "Apertus1p5TextConfig's defaults counted by hand: "
                                           "test_apertus1p5_text_default_sizes_by_hand)"),
                       ("hy_v4", "Hy4-preview (tencent/Hy4-preview, transformers' docstring checkpoint; no copy of "
                                 "its config.json found; HYV4Config's defaults counted by hand: "
                                 "test_hy_v4_default_sizes_by_hand)"),
                       ("minimax_m3_vl_text", "MiniMax-M3 (MiniMaxAI/MiniMax-M3, transformers' docstring checkpoint; "
                                              "only its text_config quoted in other projects' tests and ports, no "
                                              "verbatim config.json; that layout counted by hand and against "
                                              "transformers: test_minimax_m3_published_layout_by_hand)"),
                       ("cohere_compass_text", "North Micro (CohereLabs/North-Micro-Vision-Instruct, transformers' "
                                               "docstring checkpoint; only toy configs in other projects' tests "
                                               "found; CohereCompassTextConfig's defaults counted by hand: "
                                               "test_cohere_compass_default_sizes_by_hand)"),
                       ("dots3_note_text", "dots.3 note preview (dots-studio/dots3-note-prev, transformers' docstring "
                                           "checkpoint; no copy of its config.json found; Dots3NoteTextConfig's "
                                           "defaults counted by hand: test_dots3_note_text_default_sizes_by_hand)"))},
    "eurobert": "no published EuroBERT config.json (EuroBERT/EuroBERT-210m, -610m, -2.1B) among the sources this "
                "checkout could read (only a conversion script that writes one from its own size table); counted "
                "exactly against transformers from configs (tests/llm/test_families_hf.py, the coverage sweep)",
    "rembert": "no published RemBERT config.json file (google/rembert) among the sources this checkout could read: "
               "only a quotation of it in a comment of PaddleNLP's RemBERT port, which "
               "tests/llm/test_families_hf.py::test_rembert_by_the_formula counts by hand and against transformers "
               "(RemBertModel 575,920,384: the paper's 575M)",
    "bert-generation": "no published BertGeneration config.json (google/bert_for_seq_generation_L-24_bbc_encoder) "
                       "among the sources this checkout could read (counted exactly against transformers from "
                       "configs: tests/llm/test_families_hf.py, the coverage sweep)",
    "nomic_bert": "Nomic's published configs (nomic-embed-text-v1/v1.5, nomic-bert-2048) are written for its remote "
                  "code (n_embd, n_head, n_layer, n_inner: keys NomicBertConfig does not read; the reader refuses such "
                  "a file by name, test_nomic_remote_code_config_is_refused_by_name) and no config written as "
                  "NomicBertConfig was found (counted exactly against transformers from configs: "
                  "tests/llm/test_families_hf.py, the coverage sweep)",
    "mobilebert": "no published MobileBERT config.json file (google/mobilebert-uncased) among the sources this "
                  "checkout could read: only a quotation of it in PaddleNLP's MobileBERT port, which "
                  "tests/llm/test_families_hf.py::test_mobilebert_uncased_by_the_formula counts by hand and against "
                  "transformers (MobileBertModel 24,581,888)",
    "gte": "GTE's published configs (Alibaba-NLP/gte-*, Snowflake/snowflake-arctic-embed-m-v2.0) are written for "
           "Alibaba's remote code and no copy of one, nor of transformers' own alibaba-nlp-community/gte-* configs, was "
           "found among the sources this checkout could read (counted exactly against transformers from configs: "
           "tests/llm/test_families_hf.py, the coverage sweep)",
    "jina_embeddings_v3": "jinaai/jina-embeddings-v3's published config is written for its remote code (model_type "
                          "xlm-roberta with LoRA keys) and no copy of transformers' own jinaai/jina-embeddings-v3-hf "
                          "config was found among the sources this checkout could read (counted exactly against "
                          "transformers from configs: tests/llm/test_families_hf.py, the coverage sweep)",
}
"""Families the library has no published config of yet, with the reason."""


def test_library_is_sourced_and_covers_every_family():
    models = library_models()
    assert len(models) >= 40
    assert len({m.id for m in models}) == len(models)
    for m in models:
        # a Hub config.json, or the developer's own config file elsewhere (Zyphra's Zamba2 repository, Microsoft's
        # DeBERTa pre-training configs), whose translation to the transformers config the entry's note states
        hub = m.source.startswith("https://huggingface.co/") and m.source.endswith("/config.json")
        assert hub or (m.source.startswith("https://github.com/") and m.note and m.source.endswith(".json")), m.id
        assert (m.training_tokens is None) == (m.training_tokens_source is None), m.id
        if m.training_tokens is not None:
            assert "https://" in m.training_tokens_source and m.training_tokens > 1e9, m.id
        read_hf_config(m.config)  # strict: every key of a shipped config is read or known neutral
    families = {m.config["model_type"] for m in models}
    assert families | set(WITHOUT_LIBRARY) == set(FAMILIES)  # every reader has published configs in the library,
    assert not families & set(WITHOUT_LIBRARY)                # except those named below, each with the reason
    assert sum(1 for m in models if m.config["model_type"] in families) == len(models)
    for family in families:  # several sizes each, except the one-of-a-kind Qwen2 dense entry
        sizes = [m for m in models if m.config["model_type"] == family]
        assert len(sizes) >= (1 if family in ("mistral", "mixtral", "deepseek_v3", "gptj", "phimoe", "ernie4_5",
                                                "data2vec-text", "mvp", "blenderbot-small", "helium", "glm", "cwm",
                                                "flex_olmo", "internlm3", "iquestcoder", "param2moe", "sarvam_moe",
                                                "sarvam_mla", "persimmon", "seed_oss", "nllb-moe",
                                                "ministral3", "bigbird_pegasus", "openai-gpt", "zamba2",
                                                "minimax_m2", "minimax", "apertus",
                                                "hunyuan_v1_dense", "hunyuan_v1_moe", "minicpm3", "dots1", "glm4_moe_lite", "qwen3_next",
                                                "xglm", "qwen3_5_moe_text", "deepseek_v32", "youtu",
                                                "solar_open", "granite_swa", "lfm2_moe", "mellum",
                                                "afmoe", "kimi_linear", "esm", "longcat_flash", "deepseek_v4",
                                                "gemma4_unified_text") else 2), family


@pytest.mark.parametrize("model_id,published", [
    ("bert-base-uncased", 109_514_298),  # BertForMaskedLM (no pooler): 110M in Devlin et al.
    ("llama-3.1-8b", 8_030_261_248),     # "8.03B" on the model card
    ("mistral-7b", 7_241_732_096),       # Jiang et al. 2023 "7.3B"; HF numel
    ("deepseek-v3", 671_026_404_352),    # "671B total" (without the 14B multi-token-prediction module)
    ("gpt-oss-120b", 116_829_156_672),   # OpenAI model card: 116.8B total
    ("gpt-oss-20b", 20_914_757_184),     # 20.9B total
    ("zamba2-2.7b", 2_662_214_560),      # Zyphra: "2.7B" (the shared blocks counted once, per-use adapters each)
    ("qwen3-235b-a22b", 235_093_634_560),
    ("minimax-m2", 228_689_748_992),     # MiniMax: 230B total (without the 3 multi-token-prediction modules)
    ("apertus-8b", 8_053_338_176),       # Swiss AI: "8B" (64 of them the xIELU scalars)
    ("hunyuan-7b", 7_504_568_320),       # Tencent: "7B"
    ("minicpm3-4b", 4_073_875_968),      # OpenBMB: "4B" (tied head)
    ("xglm-1.7b", 1_732_907_008),        # Meta: "1.7B"
    ("hunyuan-a13b", 80_393_183_232),    # Tencent: 80B total
    ("dots.llm1", 142_774_373_888),      # rednote: 142B total
    ("glm-4.7-flash", 29_943_390_976),   # Z.ai: 30B total
    ("solar-open-100b", 102_651_793_408),  # Upstage: 102B total
    ("youtu-llm-2b", 1_961_560_064),     # Tencent: 1.96B
    ("mellum2-12b-a2.5b", 12_149_923_072),  # JetBrains: 12B total
    ("trinity-nano-preview", 6_120_003_328),  # Arcee: 6B total
    ("jamba-1.5-mini", 51_570_323_328),   # AI21: "52B total parameters"
    ("lfm2-350m", 354_483_968),          # Liquid AI model card: "354,483,968"
    ("lfm2-1.2b", 1_170_340_608),        # Liquid AI model card: "1,170,340,608"
    ("lfm2-8b-a1b", 8_339_929_856),      # Liquid AI: "8.3B total" (1.5B active; 1,557,740,288 with the tied table)
    ("jamba-1.5-large", 398_555_145_696),  # AI21: "398B total parameters"
    ("minimax-text-01", 456_089_655_296),  # MiniMax: 456B total
    ("qwen3-next-80b-a3b-instruct", 79_674_391_296),  # Qwen: "80B" (without the MTP layer transformers omits)
    ("gemma-4-26b-a4b-text", 25_233_141_760),  # Google: "25.2B total" (the text decoder; vision encoder aside)
    ("qwen3.5-35b-a3b-text", 34_660_610_688),  # Qwen: "35B" total (text model: no vision encoder, no MTP layer)
    ("qwen3.5-4b-text", 4_205_751_296),        # Qwen: "4B" (text model, tied)
    ("deepseek-v4-flash", 284_332_230_231),    # DeepSeek: "284B" total (without the MTP module)
    ("kimi-linear-48b-a3b-instruct", 49_122_675_072),  # Moonshot: "48B" total (the index's 49,122,681,728 adds
                                                       # the 26 routers' 256 correction-bias buffers)
    ("longcat-flash-chat", 560_664_958_976),  # Meituan: 560B total
])
def test_published_totals(model_id, published):
    assert evaluate(read_hf_config(library_model(model_id).config).architecture(8)).params == published


def test_active_parameters_of_mixtures():
    """DeepSeek-V3 37B active (DeepSeek-AI 2024), GPT-OSS-120B 5.13B active (OpenAI's gpt-oss model card,
    which counts the unembedding but not the embedding table), Qwen3-235B-A22B 22B active, Qwen3-Next-80B-A3B 3B
    active without its embedding and head tables: the engine's
    active count, the weights a token goes through."""
    def active(model_id):
        return evaluate(read_hf_config(library_model(model_id).config).architecture(8)).active_params
    assert 37.0e9 < active("deepseek-v3") < 38.0e9
    assert 5.12e9 < active("gpt-oss-120b") - 201088 * 2880 < 5.14e9
    assert 22.0e9 < active("qwen3-235b-a22b") < 22.5e9
    assert 12.0e9 < active("jamba-1.5-mini") < 12.2e9   # AI21: 12B active
    assert 94.0e9 < active("jamba-1.5-large") < 94.5e9  # AI21: 94B active
    assert 12.7e9 < active("hunyuan-a13b") < 12.8e9     # Tencent: 13B active (80B total)
    assert 14.0e9 < active("dots.llm1") < 14.1e9        # rednote: 14B active (142B total)
    assert 3.8e9 < active("glm-4.7-flash") < 3.9e9      # Z.ai: 30B-A3B
    # MiniMax-Text-01 (MiniMax's model card: 45.9B activated per token): 70 lightning layers (q/k/v, gate, out,
    # norm of H·Q = 8192), 10 softmax layers (GQA, 8 key/value heads of 128), each with a router and 2 of 32 experts
    d, hq, f, e = 6144, 64 * 128, 9216, 32
    layer = d * e + 2 * 3 * d * f + 2 * d
    by_hand = 70 * (5 * d * hq + hq + layer) + 10 * (2 * d * hq + 2 * d * 8 * 128 + layer) + d
    assert active("minimax-text-01") - 2 * 200064 * d == by_hand
    assert 45.9e9 < by_hand < 46.0e9
    assert 3.2e9 < active("qwen3-next-80b-a3b-instruct") - 2 * 151936 * 2048 < 3.3e9  # "A3B": 3B besides V·d twice
    assert 3.80e9 < active("gemma-4-26b-a4b-text") < 3.85e9  # Google: 3.8B active
    assert 2.9e9 < active("qwen3.5-35b-a3b-text") - 248320 * 2048 < 3.0e9  # "A3B": 3B with the head, not the table
    assert 3.1e9 < active("kimi-linear-48b-a3b-instruct") - 163840 * 2304 < 3.2e9  # Moonshot: 3B activated
    assert 12.7e9 < active("deepseek-v4-flash") - 2 * 129280 * 4096 < 12.8e9  # DeepSeek: 13B activated


def test_deepseek_v3_layer_by_hand():
    """One MoE layer of DeepSeek-V3 written out from DeepseekV3DecoderLayer's weight shapes."""
    d, h, c, cq, q, r, v, e, f = 7168, 128, 512, 1536, 128, 64, 128, 256, 2048
    attention = (d * cq + cq + cq * h * (q + r)       # q_a_proj, q_a_layernorm, q_b_proj
                 + d * (c + r) + c + c * h * (q + v)   # kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj
                 + h * v * d)                          # o_proj
    moe = e * d + e * 3 * d * f + 3 * d * f           # router, 256 experts, 1 shared expert
    dense = 3 * d * 18432
    norms = 2 * d
    vocab = 129280
    expected = vocab * d * 2 + d + 3 * (attention + dense + norms) + 58 * (attention + moe + norms)
    assert evaluate(read_hf_config(library_model("deepseek-v3").config).architecture(8)).params == expected


def test_apertus_layer_by_hand():
    """Apertus 8B from ApertusDecoderLayer's weight shapes: q d→H·Q, k and v d→H_kv·Q, o H·Q→d without biases, a
    per-head RMSNorm of queries and keys (γ of Q each), a plain up d→F and down F→d with xIELU between (two learned
    scalars, α_p and α_n, per layer), two RMSNorms per layer; untied head. Forward FLOP for T tokens: the
    projections, QKᵀ and AV (T² per head), up and down, the head; xIELU and the norms no multiply-accumulate."""
    d, h, kv, q, f, vocab, layers, t = 4096, 32, 8, 128, 21504, 131072, 32, 16
    layer = d * h * q + 2 * d * kv * q + h * q * d + 2 * q + 2 * d * f + 2 + 2 * d
    result = evaluate(read_hf_config(library_model("apertus-8b").config).architecture(t))
    assert result.params == 2 * vocab * d + d + layers * layer
    macs = layers * (t * (d * h * q + 2 * d * kv * q + h * q * d + 2 * d * f) + 2 * h * t * t * q) + t * d * vocab
    assert result.forward_flop == 2 * macs


def test_longcat_flash_by_hand():
    """LongCat-Flash-Chat from LongcatFlashDecoderLayer's weight shapes and the products FlopCounterMode counts: per
    layer two latent attentions (q_a d→c_q, its norm, q_b c_q→H·(Q+R); kv_a d→c+R, its norm, kv_b c→H·(Q+V); o
    H·V→d), two gated MLPs of F, four RMSNorms, a router d→E+Z (Z zero-computation experts) and E gated experts of
    F_e. Forward FLOP of T tokens: every pick runs a real expert (a zero expert's pick goes to a real one at weight
    0), k experts per token whatever the routing; QKᵀ over Q+R and AV over V for T² pairs per head; the head."""
    d, h, cq, c, q, r, v = 6144, 64, 1536, 512, 128, 64, 128
    f, fe, e, z, k, vocab, layers, t = 12288, 2048, 512, 256, 12, 131072, 28, 16
    attention = d * cq + cq + cq * h * (q + r) + d * (c + r) + c + c * h * (q + v) + h * v * d
    layer = 2 * attention + 2 * 3 * d * f + 4 * d + d * (e + z) + e * 3 * d * fe
    result = evaluate(read_hf_config(library_model("longcat-flash-chat").config).architecture(t))
    assert result.params == 2 * vocab * d + d + layers * layer
    assert result.active_params == result.params - layers * (e - k) * 3 * d * fe
    attention_macs = t * (d * cq + cq * h * (q + r) + d * (c + r) + c * h * (q + v) + h * v * d) + h * t * t * (q + r + v)
    macs = layers * (2 * attention_macs + 2 * t * 3 * d * f + t * d * (e + z) + k * t * 3 * d * fe) + t * d * vocab
    assert result.forward_flop == 2 * macs


def test_deepseek_v32_is_deepseek_v3_plus_the_lightning_indexer():
    """DeepSeek-V3.2 has DeepSeek-V3's sizes and, in each of its 61 layers, a lightning indexer of 64 heads of 128:
    queries from the query latent c_q 1536 → 64·128, one key d 7168 → 128 with a LayerNorm (γ, β), head weights
    7168 → 64. Its FLOP at L tokens add, per layer, those projections (2·L·(c_q·64·128 + d·128 + d·64)), the
    scores 2·64·L²·128 and their head-weighted sum 2·64·L² (every pair; the top-k only masks)."""
    v3 = read_hf_config(library_model("deepseek-v3").config)
    v32 = read_hf_config(library_model("deepseek-v3.2").config)
    indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    assert indexer == 13_959_424
    length = 8
    before, after = (evaluate(m.architecture(length), "matmul") for m in (v3, v32))
    assert after.params == before.params + 61 * indexer == 671_877_929_216
    flop = 2 * length * (1536 * 64 * 128 + 7168 * 128 + 7168 * 64) + 2 * 64 * length ** 2 * 128 + 2 * 64 * length ** 2
    assert after.forward_flop == before.forward_flop + 61 * flop


def test_deepseek_v4_flash_by_hand():
    """DeepSeek-V4-Flash from DeepseekV4DecoderLayer's weight shapes: d 4096, 64 heads of 512, q rank 1024, one
    key/value head, 8 output groups of rank 1024, 4 hyper-connection streams, 256 experts of 2048 (6 a token) and one
    shared; layers 0–1 sliding, then compressed sparse (m 4, an indexer of 64 heads of 128) and heavily compressed
    (m 128) alternating. Forward MACs at L tokens as FlopCounterMode counts them: the projections at every position,
    QKᵀ and AV over L + ⌊L/m⌋ keys, the indexer's scores over ⌊L/4⌋ compressed keys, comb × streams."""
    d, h, q, cq, g, ro, n, e, k, f, vocab = 4096, 64, 512, 1024, 8, 1024, 4, 256, 6, 2048, 129280
    hi, di = 64, 128
    hc = (2 + n) * n * n * d + (2 + n) * n + 3                      # fn, base, scale
    attention = d * cq + cq + cq * h * q + d * q + q + h * q * ro + g * ro * d + h  # … kv_norm, o_a, o_b, sinks
    moe = e * d + e * 3 * d * f + 3 * d * f                         # router, experts, shared expert
    layer = 2 * hc + 2 * d + attention + moe
    csa = 2 * d * 2 * q + 4 * 2 * q + q + 2 * d * 2 * di + 4 * 2 * di + di + cq * hi * di + d * hi
    hca = 2 * d * q + 128 * q + q
    kinds = ["sliding"] * 2 + ["csa", "hca"] * 20 + ["csa"]
    params = 43 * layer + kinds.count("csa") * csa + kinds.count("hca") * hca + 2 * vocab * d + d \
        + n * n * d + n + 1
    model = read_hf_config(library_model("deepseek-v4-flash").config)
    for length in (8, 130):
        result = evaluate(model.architecture(length), "matmul")
        assert result.params == params == 284_332_230_231
        macs = length * (n * n * d + vocab * d)                     # hyper head, LM head
        for kind in kinds:
            m = {"sliding": 0, "csa": 4, "hca": 128}[kind]
            t = length // m if m else 0
            macs += 2 * length * ((2 + n) * n * n * d + n * n * d)  # two hyper-connections: weights, comb × streams
            macs += length * (d * cq + cq * h * q + d * q + h * q * ro + g * ro * d)
            macs += 2 * h * length * (length + t) * q              # QKᵀ, AV
            macs += length * (d * e + k * 3 * d * f + 3 * d * f)
            if kind == "csa":
                macs += length * (2 * d * 2 * q + 2 * d * 2 * di + cq * hi * di + d * hi) + hi * length * t * di
            if kind == "hca":
                macs += length * 2 * d * q
        assert result.forward_flop == 2 * macs


def test_minicpm3_layer_by_hand():
    """MiniCPM3 4B from MiniCPM3DecoderLayer's weight shapes (DeepSeek-V2's latent attention, the Llama MLP), tied."""
    d, h, c, cq, q, r, v, f, vocab, layers = 2560, 40, 256, 768, 64, 32, 64, 6400, 73448, 62
    attention = (d * cq + cq + cq * h * (q + r)       # q_a_proj, q_a_layernorm, q_b_proj
                 + d * (c + r) + c + c * h * (q + v)   # kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj
                 + h * v * d)                          # o_proj
    expected = vocab * d + d + layers * (attention + 3 * d * f + 2 * d)
    assert evaluate(read_hf_config(library_model("minicpm3-4b").config).architecture(8)).params == expected


def test_xglm_layer_by_hand():
    """XGLM 1.7B from XGLMDecoderLayer's weight shapes: biased q/k/v/out d→d, fc1 d→F and fc2 F→d with biases, two
    LayerNorms (γ, β) per layer, a final LayerNorm, a tied head; the sinusoidal positions a buffer. Forward FLOP
    for T tokens: the projections, QKᵀ and AV (T² per head), fc1 and fc2, the head."""
    d, h, f, vocab, layers, t = 2048, 16, 8192, 256008, 24, 16
    layer = 4 * (d * d + d) + d * f + f + f * d + d + 2 * 2 * d
    result = evaluate(read_hf_config(library_model("xglm-1.7b").config).architecture(t))
    assert result.params == vocab * d + layers * layer + 2 * d
    assert result.forward_flop == 2 * (layers * (t * (4 * d * d + 2 * d * f) + 2 * t * t * d) + t * d * vocab)


def test_esm2_150m_by_hand():
    """ESM-2 150M from EsmLayer's weight shapes: a LayerNorm before attention and before the feed-forward, biased
    q/k/v/out d→d, dense d→F and F→d with biases; rotary positions (no table); emb_layer_norm_after; the masked-LM
    head (dense d→d, LayerNorm, tied decoder, bias V); EsmModel's contact head, a regression over the L·H attention
    maps (L·H + 1 parameters), which the forward pass does not run. Forward FLOP for T tokens: the projections, QKᵀ
    and AV (T² per head), the feed-forward, the head's dense and decoder; the contact head none."""
    d, h, f, vocab, layers, t = 640, 20, 2560, 33, 30, 8
    layer = 2 * 2 * d + 4 * (d * d + d) + d * f + f + f * d + d
    head = d * d + d + 2 * d + vocab
    result = evaluate(read_hf_config(library_model("esm2-t30-150m").config).architecture(t))
    assert result.params == vocab * d + layers * layer + 2 * d + (layers * h + 1) + head == 148_140_154
    assert result.forward_flop == 2 * (layers * (t * (4 * d * d + 2 * d * f) + 2 * t * t * d) + t * d * d
                                       + t * d * vocab)


def test_jetmoe_layer_by_hand():
    """JetMoE from JetMoeDecoderLayer's weight shapes: the attention router d→E, E query experts d→H_kv·Q, a k/v
    projection d→2·H_kv·Q, E output experts H_kv·Q→d and a bias d; the feed-forward router d→E, E gated experts
    (d→2F, F→d) and a bias d; two RMSNorms per layer; a final norm; tied head. Forward FLOP for T tokens: both
    routers, k query and output experts and k feed-forward experts per token, the k/v projection, QKᵀ and AV over
    H = k·H_kv heads (T² each), the head. Active parameters: k experts of each kind."""
    d, kv, q, f, e, k, vocab, layers, t = 64, 2, 12, 40, 4, 2, 128, 3, 16
    config = {"model_type": "jetmoe", "architectures": ["JetMoeForCausalLM"], "hidden_size": d,
              "num_hidden_layers": layers, "num_key_value_heads": kv, "kv_channels": q, "intermediate_size": f,
              "num_local_experts": e, "num_experts_per_tok": k, "vocab_size": vocab, "max_position_embeddings": 64}
    attention = d * e + e * d * kv * q + d * 2 * kv * q + e * kv * q * d + d
    moe = d * e + e * 3 * d * f + d
    result = evaluate(read_hf_config(config).architecture(t))
    assert result.params == vocab * d + d + layers * (attention + moe + 2 * d)
    active = d * e + k * d * kv * q + d * 2 * kv * q + k * kv * q * d + d + d * e + k * 3 * d * f + d + 2 * d
    assert result.active_params == vocab * d + d + layers * active
    macs = t * (d * e + k * d * kv * q + d * 2 * kv * q + k * kv * q * d + d * e + k * 3 * d * f) \
        + 2 * k * kv * t * t * q
    assert result.forward_flop == 2 * (layers * macs + t * d * vocab)


def test_qwen3_5_layer_by_hand():
    """Qwen3.5-0.8B's text model from Qwen3_5DecoderLayer's weight shapes, tied: 18 Gated DeltaNet layers — separate
    in_proj_qkv d→2·G·d_k + H·d_v, in_proj_z d→H·d_v, in_proj_b and in_proj_a d→H, a depthwise convolution of K over
    the q/k/v channels (no bias), A_log and dt_bias (H each), the gated norm (d_v), out_proj H·d_v→d — and 6 gated
    attention layers — q d→2·H·Q (queries and gate), k and v d→H_kv·Q, o H·Q→d, q/k norms (Q each); a gated MLP and
    two norms in every layer."""
    d, vocab, f, g, h, dk, dv, k, heads, kv, q = 1024, 248320, 3584, 16, 16, 128, 128, 4, 8, 2, 256
    channels = 2 * g * dk + h * dv
    deltanet = d * channels + d * h * dv + 2 * d * h + channels * k + 2 * h + dv + h * dv * d
    attention = d * 2 * heads * q + 2 * d * kv * q + heads * q * d + 2 * q
    expected = vocab * d + d + 18 * deltanet + 6 * attention + 24 * (3 * d * f + 2 * d)
    assert evaluate(read_hf_config(library_model("qwen3.5-0.8b-text").config).architecture(8)).params == expected


def test_lfm2_layers_by_hand():
    """LFM2-1.2B from Lfm2DecoderLayer's weight shapes, tied: 10 short-convolution layers — in_proj d→3d, a depthwise
    convolution of K = 3 (no bias), out_proj d→d — and 6 attention layers — q d→H·Q, k and v d→H_kv·Q, out_proj H·Q→d,
    q/k norms (Q each); Lfm2MLP of F = 8192 (⌊2·12288/3⌋, a multiple of 256: w1, w3 d→F, w2 F→d) and two norms in
    every layer. Forward FLOP for T tokens: 2 per multiply-accumulate of the projections, the convolution over
    T + K − 1 positions (nn.Conv1d's padding), QKᵀ and AV (T² per head), the head. LFM2-8B-A1B: the first 2 layers
    with an MLP of 7168, the other 22 a router d→E (no bias; the expert bias is a buffer) and E = 32 experts of 1792,
    k = 4 of them per token."""
    d, f, k, h, kv, q, vocab, t = 2048, 8192, 3, 32, 8, 64, 65536, 16
    conv = 4 * d * d + d * k
    attention = 2 * d * d + 2 * d * kv * q + 2 * q
    result = evaluate(read_hf_config(library_model("lfm2-1.2b").config).architecture(t))
    assert result.params == vocab * d + d + 10 * conv + 6 * attention + 16 * (3 * d * f + 2 * d) == 1_170_340_608
    macs = 10 * (t * 4 * d * d + d * k * (t + k - 1)) + 6 * (t * (2 * d * d + 2 * d * kv * q) + 2 * h * t * t * q) \
        + 16 * t * 3 * d * f + t * d * vocab
    assert result.forward_flop == 2 * macs
    moe = evaluate(read_hf_config(library_model("lfm2-8b-a1b").config).architecture(t))
    dense, e, top, fe = 7168, 32, 4, 1792
    mlps = 2 * 3 * d * dense + 22 * (d * e + e * 3 * d * fe)
    assert moe.params == vocab * d + d + 18 * conv + 6 * attention + mlps + 24 * 2 * d
    assert moe.active_params == moe.params - 22 * (e - top) * 3 * d * fe


def test_kimi_linear_by_hand():
    """Kimi-Linear-48B-A3B written out from the weight shapes transformers' KimiLinear classes build: 20 Kimi Delta
    Attention layers (q, k, v d→H·D; the depthwise convolution 3·H·D·K; forget gate d→D→H·D with Δ's bias H·D and A
    H; β d→H; output gate d→D→H·D; the gated norm D; out H·D→d), 7 latent-attention layers (q d→H·(Q+R), kv
    d→c+R, its norm c, kv up c→H·(Q+V), o H·V→d), layer 1 a dense MLP, 26 of 256 experts (a router E·d) beside a
    shared expert of 1024, two norms per layer, the final norm, untied embedding and head."""
    v, d, f_dense, f, e = 163840, 2304, 9216, 1024, 256
    h, q, r, val, c = 32, 128, 64, 128, 512
    heads, dim, k = 32, 128, 4
    i = heads * dim
    kda = 3 * d * i + 3 * i * k + d * dim + dim * i + i + heads + d * heads + d * dim + dim * i + dim + i * d
    mla = d * h * (q + r) + d * (c + r) + c + c * h * (q + val) + h * val * d
    moe = e * d + e * 3 * d * f + 3 * d * f
    total = 20 * kda + 7 * mla + 26 * moe + 3 * d * f_dense + 27 * 2 * d + d + 2 * v * d
    model = read_hf_config(library_model("kimi-linear-48b-a3b-instruct").config)
    assert evaluate(model.architecture(8)).params == total == 49_122_675_072


def test_minimax_m2_layer_by_hand():
    """MiniMax-M2 from MiniMaxM2DecoderLayer's weight shapes: q d→H·Q, k and v d→H_kv·Q, o H·Q→d, RMSNorms of the
    whole query (H·Q) and key (H_kv·Q) projections; a router d→E without bias (e_score_correction_bias is a buffer,
    not a parameter) and E experts with fused gate/up d→2F and down F→d; two RMSNorms per layer; untied head.
    Forward FLOP for T tokens: 2 per multiply-accumulate of the projections, QKᵀ and AV (T² per head, eager), the
    router, k experts per token, the head."""
    d, h, kv, q, e, k, f, vocab, layers, t = 3072, 48, 8, 128, 256, 8, 1536, 200064, 62, 16
    attention = d * h * q + 2 * d * kv * q + h * q * d + h * q + kv * q
    layer = attention + d * e + e * 3 * d * f + 2 * d
    result = evaluate(read_hf_config(library_model("minimax-m2").config).architecture(t))
    assert result.params == 2 * vocab * d + d + layers * layer
    macs = t * (d * h * q + 2 * d * kv * q + h * q * d) + 2 * h * t * t * q + t * d * e + k * t * 3 * d * f
    assert result.forward_flop == 2 * (layers * macs + t * d * vocab)


MINICPM5_MOE = {"model_type": "minicpm5_moe", "architectures": ["MiniCPM5MoeForCausalLM"]}
"""MiniCPM5-MoE with every size absent: MiniCPM5MoeConfig's defaults (its docstring's openbmb/MiniCPM5-15B-A2.5B)."""


def test_minicpm5_moe_default_sizes_by_hand():
    """MiniCPM5MoeConfig's defaults (d 2048, 28 layers, 32 heads of 128, 2 key/value heads, the first layer a dense
    MLP of 8192, then 160 experts of 512, 16 per token, one shared; vocabulary 130,560, untied) from the weight shapes:
    q_gate_proj d→2·H·Q, k and v d→H_kv·Q, o H·Q→d, two norms; the dense MLP 3·d·F; a MoE layer's router d→E, E
    experts and the shared one of 3·d·F_e each. Active: 16 of the 160 experts (about 2.5B without the input table:
    "A2.5B"). Forward FLOP at T tokens: 2 per multiply-accumulate of the projections, of QKᵀ and AV (T² per head), of
    the router, the k experts and the shared one per token, and of the head."""
    d, layers, h, kv, q, f, fe, e, k, vocab, t = 2048, 28, 32, 2, 128, 8192, 512, 160, 16, 130560, 16
    attention = d * 2 * h * q + 2 * d * kv * q + h * q * d
    moe = d * e + (e + 1) * 3 * d * fe
    params = 2 * vocab * d + d + layers * (attention + 2 * d) + 3 * d * f + (layers - 1) * moe
    active = params - (layers - 1) * (e - k) * 3 * d * fe
    macs = layers * (t * attention + 2 * h * t * t * q) + t * 3 * d * f \
        + (layers - 1) * t * (d * e + (k + 1) * 3 * d * fe) + t * d * vocab
    result = evaluate(read_hf_config(MINICPM5_MOE).architecture(t))
    assert (result.params, result.active_params, result.forward_flop) == (params, active, 2 * macs)
    assert 15.0e9 < params < 15.01e9 and 2.50e9 < active - vocab * d < 2.51e9


HY_V3 = {"model_type": "hy_v3", "architectures": ["HYV3ForCausalLM"]}
"""Hy3 with every size absent: HYV3Config's defaults, the sizes of its docstring's tencent/Hy3-preview."""


def test_hy_v3_default_sizes_are_hy3_preview_by_hand():
    """HYV3Config's defaults (d 4096, 80 layers, 64 heads of 128, 8 key/value heads, the first layer a dense MLP of
    13,312, then 192 experts of 1,536, 8 per token, one shared; vocabulary 120,832, untied), from the weight shapes:
    q, k, v, o without biases and the per-head q/k norms (2·128), two norms a layer; the dense MLP 3·d·F; a MoE
    layer's router d→E, E experts and the shared one of 3·d·F_e each. 295,033,528,320 parameters: Tencent's 295B;
    about 21B active (Tencent: 21B). Forward FLOP at T tokens: 2 per multiply-accumulate of the projections, QKᵀ and
    AV, the router, the k experts and the shared one per token, and the head."""
    d, layers, h, kv, q, f, fe, e, k, vocab, t = 4096, 80, 64, 8, 128, 13312, 1536, 192, 8, 120832, 16
    attention = d * h * q + 2 * d * kv * q + h * q * d + 2 * q
    moe = d * e + (e + 1) * 3 * d * fe
    params = 2 * vocab * d + d + layers * (attention + 2 * d) + 3 * d * f + (layers - 1) * moe
    active = params - (layers - 1) * (e - k) * 3 * d * fe
    macs = layers * (t * (attention - 2 * q) + 2 * h * t * t * q) + t * 3 * d * f \
        + (layers - 1) * t * (d * e + (k + 1) * 3 * d * fe) + t * d * vocab
    result = evaluate(read_hf_config(HY_V3).architecture(t))
    assert (result.params, result.active_params, result.forward_flop) == (params, active, 2 * macs)
    assert params == 295_033_528_320 and 20.6e9 < active < 20.7e9


@pytest.mark.parametrize("change,key", [
    ({"head_dim": None}, "head_dim"),            # HYV3Config: a whole number
    ({"num_experts": None}, "num_experts"),      # HYV3MoE cannot be built with it
    ({"num_shared_experts": None}, "num_shared_experts"),
    ({"num_experts": 1, "num_experts_per_tok": 1}, "num_experts"),
    ({"mlp_bias": True}, "mlp_bias"),            # a biased shared expert beside the experts
    ({"mlp_layer_types": ["dense"] * 79}, "mlp_layer_types"),
    ({"mlp_layer_types": ["dense"] + ["moe"] * 79}, "mlp_layer_types"),
    ({"num_experts_per_tok": 193}, "num_experts_per_tok"),
])
def test_hy_v3_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(HY_V3 | change)


@pytest.mark.parametrize("change,key", [
    ({"use_gated_attention": False}, "use_gated_attention"),  # MiniCPM5MoeConfig refuses it
    ({"first_k_dense_replace": None}, "first_k_dense_replace"),  # compared with the layer numbers: no build
    ({"mlp_layer_types": ["dense"] * 27}, "mlp_layer_types"),
    ({"mlp_layer_types": ["dense"] * 27 + ["moe"]}, "mlp_layer_types"),
    ({"num_key_value_heads": 0}, "num_key_value_heads"),
    ({"n_routed_experts": None}, "n_routed_experts"),
    ({"num_experts_per_tok": 161}, "num_experts_per_tok"),
])
def test_minicpm5_moe_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(MINICPM5_MOE | change)


def test_minicpm5_moe_defaults_and_inert_keys():
    """Absent ``head_dim`` is 128 and absent ``num_key_value_heads`` 2 (MiniCPM5MoeConfig's), null ones ⌊d/H⌋ and H
    (its __post_init__); ``mlp_layer_types`` wins over ``first_k_dense_replace``; the routing keys, the old class name,
    ``use_gated_attention`` true and the keys MiniCPM5MoeConfig drops (``use_qk_norm``, ``num_mtp_layers``) change
    nothing."""
    def block(change):
        return read_hf_config(MINICPM5_MOE | change).architecture(8).layers

    base = read_hf_config(MINICPM5_MOE).model_dump()
    assert (base["block"]["mixer"]["head_size"], base["block"]["mixer"]["kv_heads"]) == (128, 2)
    nulls = read_hf_config(MINICPM5_MOE | {"head_dim": None, "num_key_value_heads": None}).model_dump()
    assert (nulls["block"]["mixer"]["head_size"], nulls["block"]["mixer"]["kv_heads"]) == (64, None)  # 2048 / 32; None: H
    inert = {"routed_scaling_factor": 1.0, "n_group": 4, "topk_group": 2, "norm_topk_prob": False,
             "use_gated_attention": True, "use_qk_norm": True, "num_mtp_layers": 1,
             "architectures": ["MiniCPM5MoEForCausalLM"]}
    assert evaluate(read_hf_config(MINICPM5_MOE | inert).architecture(8)).forward_flop == \
        evaluate(read_hf_config(MINICPM5_MOE).architecture(8)).forward_flop
    dense = [layer.experts for layer in block({"first_k_dense_replace": 3}) if hasattr(layer, "experts")]
    assert dense[:4] == [1, 1, 1, 160]
    listed = [layer.experts for layer in block({"first_k_dense_replace": 3, "num_hidden_layers": 3,
                                               "mlp_layer_types": ["sparse", "dense", "sparse"]})
              if hasattr(layer, "experts")]
    assert listed == [160, 1, 160]


def test_gemma3n_e2b_sizes_by_hand():
    """Gemma 3n at E2B's text sizes (d 2048, 30 layers, F 8192, 8 heads, 2 key/value heads of 256, the last 10
    layers reusing keys and values, per-layer inputs of 256, LAuReL rank 64, 4 AltUp streams) from
    Gemma3nTextDecoderLayer's weight shapes: q and o, a query norm (Q); k, v and a key norm in the 20 layers making
    their own; GeGLU of F; four norms; the per-layer gate d→P, projection P→d and norm; LAuReL d→r→d and its norm;
    AltUp's router d→N and its norm, prediction coefficients N→N², correction coefficients N→N and output scale (d).
    The model: token table V·d (tied head), per-layer table V_p·L·P, its projection d→L·P and norm (P), N − 1
    projections d→d into the streams and N − 1 out of them, the final norm. Forward FLOP at T tokens: 2 per
    multiply-accumulate of those projections, of QKᵀ and AV (T² per head), of the streams × coefficients (d·N² per
    token) and of the head."""
    d, h, kv, q, f, layers, shared, p, vp, vocab, r, n, t = 2048, 8, 2, 256, 8192, 30, 10, 256, 262144, 262400, 64, 4, 16
    params = macs = 0
    for i in range(layers):
        own = i < layers - shared
        params += 2 * d * h * q + q + (2 * d * kv * q + q if own else 0) + 3 * d * f + 4 * d + 2 * d * p + d
        params += 2 * d * r + d + d + n * n + n ** 3 + d * n + d
        macs += t * (2 * d * h * q + (2 * d * kv * q if own else 0) + 3 * d * f + 2 * d * p + 2 * d * r)
        macs += 2 * h * t * t * q + t * (2 * d * n + n ** 3 + d * n * n + n * n)
    params += vocab * d + vp * layers * p + d * layers * p + p + 2 * (n - 1) * d * d + d
    macs += t * d * layers * p + 2 * t * (n - 1) * d * d + t * d * vocab
    config = {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"], "hidden_size": d,
              "intermediate_size": f, "num_hidden_layers": layers, "num_attention_heads": h, "num_key_value_heads": kv,
              "head_dim": q, "vocab_size": vocab, "vocab_size_per_layer_input": vp, "hidden_size_per_layer_input": p,
              "num_kv_shared_layers": shared, "laurel_rank": r, "altup_num_inputs": n, "sliding_window": 512}
    result = evaluate(read_hf_config(config).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs)


def test_gemma4_e2b_by_hand():
    """Gemma 4 E2B's text decoder from Gemma4TextDecoderLayer's weight shapes: q d→H·Q and o H·Q→d with a query norm
    (Q) everywhere; k and v d→H_kv·Q and a key norm (Q) only in the 15 layers making their own keys and values (the
    value norm has no gain); Q = 256 on sliding layers, 512 on every fifth (full); a GeGLU MLP of F, 2F in the 20
    layers reusing keys and values (double-wide); four norms (4d); the per-layer input gate d→P, projection P→d and
    norm (d). The model: the token table V·d (tied head), the per-layer table V·L·P, its projection d→L·P and norm
    (P), the final norm (d). Forward FLOP for T tokens: 2 per multiply-accumulate of every projection, of QKᵀ and AV
    (T² per head), of the per-layer projection and of the head."""
    d, h, kv, f, p, vocab, layers, shared, t = 1536, 8, 1, 6144, 256, 262144, 35, 20, 16
    params = macs = 0
    for i in range(layers):
        q = 512 if i % 5 == 4 else 256
        own = i < layers - shared
        ff = f * (1 if own else 2)
        params += 2 * d * h * q + q + (2 * d * kv * q + q if own else 0) + 3 * d * ff + 4 * d + 2 * d * p + d
        macs += t * (2 * d * h * q + (2 * d * kv * q if own else 0) + 3 * d * ff + 2 * d * p) + 2 * h * t * t * q
    params += vocab * d + vocab * layers * p + d * layers * p + p + d
    macs += t * d * layers * p + t * d * vocab
    result = evaluate(read_hf_config(library_model("gemma-4-e2b-text").config).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs)


def test_gemma4_12b_by_hand():
    """Gemma 4 12B's text decoder (the unified checkpoint) from Gemma4UnifiedTextDecoderLayer's weight shapes: q d→H·Q
    and o H·Q→d, query and key norms (Q each); on the 40 sliding layers (Q = 256) k and v d→8·Q, on the 8 full ones
    (every sixth: Q = 512) one key head d→Q and no v (the values are the keys); a GeGLU MLP of F; four norms (4d).
    The model: the token table V·d (tied head) and the final norm (d). The checkpoint's tensor list (the library
    entry's note) holds the same: its language-model tensors span 23,814,700,640 bytes of bf16, which is these
    parameters and one layer scalar per layer. Forward FLOP for T tokens: 2 per multiply-accumulate of every
    projection, of QKᵀ and AV (T² per head) and of the head."""
    d, h, f, vocab, layers, t = 3840, 16, 15360, 262144, 48, 16
    params = macs = 0
    for i in range(layers):
        full = i % 6 == 5
        q, kv_width = (512, 512) if full else (256, 8 * 256)
        params += 2 * d * h * q + 2 * q + d * kv_width * (1 if full else 2) + 3 * d * f + 4 * d
        macs += t * (2 * d * h * q + d * kv_width * (1 if full else 2) + 3 * d * f) + 2 * h * t * t * q
    params += vocab * d + d
    macs += t * d * vocab
    assert params + layers == 23_814_700_640 // 2
    result = evaluate(read_hf_config(library_model("gemma-4-12b-text").config).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs) == (11_907_350_272, 381_245_456_384)


def test_gemma4_unified_experts_and_per_layer_keys_are_inert():
    """Gemma4UnifiedTextConfig has no experts nor per-layer embeddings: their keys, whatever their values, build
    nothing (the 12B's file writes them: false, 0, null) and are listed as not used."""
    base = library_model("gemma-4-12b-text").config
    model = read_hf_config(base)
    other = read_hf_config(base | {"enable_moe_block": True, "num_experts": 8, "top_k_experts": 2,
                                   "moe_intermediate_size": 64, "hidden_size_per_layer_input": 256})
    result, changed = evaluate(model.architecture(16)), evaluate(other.architecture(16))
    assert (result.params, result.forward_flop) == (changed.params, changed.forward_flop)
    assert {"enable_moe_block", "hidden_size_per_layer_input", "num_experts"} <= set(other.unused_keys)


def test_gemma2_windows_on_alternate_layers_when_halved():
    """Gemma 2 2B, T = 8192, causal_count half: 13 full layers count L(L+1)/2 query–key pairs per head,
    13 sliding layers (W = 4096) W(W+1)/2 + (L − W)·W; QKᵀ is 2·H·Q FLOP per pair (H = 8, Q = 256)."""
    from engine.llm.estimate import TransformerRun, estimate_transformer

    config = read_hf_config(library_model("gemma-2-2b").config)
    length, window, h, q = 8192, 4096, 8, 256
    est = estimate_transformer(config, TransformerRun(tokens=1e9, seq_len=length, causal_count="half"))
    full_pairs = length * (length + 1) // 2
    window_pairs = window * (window + 1) // 2 + (length - window) * window
    assert est.forward_flop_by_part()["attention scores QKᵀ"] == 2 * h * q * (13 * full_pairs + 13 * window_pairs)
    full = estimate_transformer(config, TransformerRun(tokens=1e9, seq_len=length))
    assert full.forward_flop_by_part()["attention scores QKᵀ"] == 2 * h * q * 26 * length * length


def test_encoder_blocks_stay_full_when_halved():
    """T5: --causal-count half halves the decoder's self-attention only (encoder and cross-attention see all)."""
    from engine.llm.estimate import TransformerRun, estimate_transformer

    config = read_hf_config(library_model("t5-small").config)
    run = dict(tokens=1e9, seq_len=64, decoder_seq_len=32)
    full = estimate_transformer(config, TransformerRun(**run)).forward_flop_by_part()
    half = estimate_transformer(config, TransformerRun(**run, causal_count="half")).forward_flop_by_part()
    h, q, layers = 8, 64, 6
    encoder, decoder = layers * 2 * h * q * 64 * 64, layers * 2 * h * q * 32 * 32
    assert full["attention scores QKᵀ"] == encoder + decoder
    assert half["attention scores QKᵀ"] == encoder + layers * 2 * h * q * (32 * 33 // 2)
    assert half["cross-attention scores QKᵀ"] == full["cross-attention scores QKᵀ"] == layers * 2 * h * q * 32 * 64


def test_nested_keys_are_judged_too():
    config = _config("mpt-7b")
    config["attn_config"] = config["attn_config"] | {"rope": False}  # read by nothing in transformers' MPT
    model = read_hf_config(config)
    assert model.ignored_keys == () and "attn_config.rope" in model.unused_keys


APERTUS_1P5 = {"model_type": "apertus1p5_text", "architectures": ["Apertus1p5TextForCausalLM"], "vocab_size": 266752,
               "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
               "max_position_embeddings": 65536}
"""Apertus1p5TextConfig's defaults (its docstring's Apertus-v1.5-8B), sizes written out."""


@pytest.mark.parametrize("rows", [None, 266752, 131072])
def test_apertus1p5_text_default_sizes_by_hand(rows):
    """Apertus 1.5's language model from the weight shapes: the table V×d over text, visual and audio codes; q, k, v,
    o d→d (32 heads of 128, key/value heads absent: H), q/k RMSNorms of 128, up/down d→F→d with xIELU's two scalars,
    two norms per layer, the final norm; an untied head of O rows (``output_vocab_size``; null or V: V). Forward FLOP
    at T tokens: 2 per multiply-accumulate of the projections, of QKᵀ and AV (T² per head) and of the head (T·d·O).
    The multimodal wrapper's file (model_type apertus1p5, the same text_config) counts the same. transformers on meta:
    Apertus1p5TextForCausalLM of Apertus1p5TextConfig() has 8,091,086,912 parameters, of output_vocab_size=131072
    7,535,341,632."""
    d, layers, h, q, f, vocab, t = 4096, 32, 32, 128, 14336, 266752, 16
    out = rows or vocab
    layer = 4 * d * d + 2 * q + 2 * d * f + 2 + 2 * d
    params = vocab * d + layers * layer + d + out * d
    macs = layers * (t * (4 * d * d + 2 * d * f) + 2 * h * t * t * q) + t * d * out
    config = APERTUS_1P5 | ({} if rows is None else {"output_vocab_size": rows})
    result = evaluate(read_hf_config(config).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs)
    assert params == {None: 8_091_086_912, 266752: 8_091_086_912, 131072: 7_535_341_632}[rows]
    wrapper = {"model_type": "apertus1p5", "architectures": ["Apertus1p5ForConditionalGeneration"],
               "text_config": {k: v for k, v in config.items() if k != "architectures"}}
    again = evaluate(read_hf_config(wrapper).architecture(t))
    assert (again.params, again.forward_flop) == (params, 2 * macs)


@pytest.mark.parametrize("change", [{"output_vocab_size": 0}, {"output_vocab_size": 266753},
                                    {"output_vocab_size": "131072"}])
def test_apertus1p5_text_refusals_name_the_key(change):
    with pytest.raises(InputError, match=r"^config\.output_vocab_size: "):
        read_hf_config(APERTUS_1P5 | change)


def test_apertus1p5_text_tied_head_is_the_table():
    """Tied, transformers ties lm_head to the full table whatever ``output_vocab_size`` says (V logits): the same
    count as without it."""
    tied = APERTUS_1P5 | {"tie_word_embeddings": True}
    a = evaluate(read_hf_config(tied).architecture(8))
    b = evaluate(read_hf_config(tied | {"output_vocab_size": 131072}).architecture(8))
    assert (a.params, a.forward_flop) == (b.params, b.forward_flop)


HY_V4 = {"model_type": "hy_v4", "architectures": ["HYV4ForCausalLM"]}


def test_hy_v4_default_sizes_by_hand():
    """HYV4Config's defaults (its docstring's tencent/Hy4-preview: d 2816, 34 layers, 32 heads) from the weight
    shapes: latent attention q d→c_q (norm) →H·(Q+R), kv d→c+R (norm) c→H·(Q+V), o H·V→d, the output gate d→H·V, a
    sink per head; the lightning indexer (c_q→H_I·D_I, d→D_I with a LayerNorm, d→H_I) on the 10 "full" layers (0, 1,
    5, …, 33); two independent hyper-connections per layer (N·d→2N, 2N biases, 2 scales); the first layer a dense
    MLP 3·d·F, the others a router d→E, E experts and one shared of 3·d·F_e; two norms a layer; the hyper head
    (N·d→N, N + 1), the final norm, the untied table and head. Forward FLOP at T tokens: 2 per multiply-accumulate of
    every projection, QKᵀ and AV (T² per head), the indexer's scores and weighted sum (H_I·D_I and H_I per pair),
    the hyper-connection weights (N·d·2N per position and sub-layer) and head (N·d·N), the k routed experts and the
    shared one, the LM head. transformers on meta: HYV4ForCausalLM of HYV4Config() has the same parameters."""
    d, layers, h, cq, c, qn, r, v, f, fe, e, k, vocab = 2816, 34, 32, 1536, 512, 192, 64, 256, 6912, 768, 256, 8, 120832
    hi, di, n, t = 16, 128, 4, 16
    full = [i for i in range(layers) if i == 0 or (i - 1) % 4 == 0]
    assert len(full) == 10
    attention = d * cq + cq + cq * h * (qn + r) + d * (c + r) + c + c * h * (qn + v) + h * v * d + d * h * v + h
    indexer = cq * hi * di + d * di + 2 * di + d * hi
    hyper = 2 * (2 * n * n * d + 2 * n + 2)
    moe = e * d + (e + 1) * 3 * d * fe
    params = 2 * vocab * d + d + n * n * d + n + 1 + layers * (attention + hyper + 2 * d) + len(full) * indexer \
        + 3 * d * f + (layers - 1) * moe
    attention_macs = t * (d * cq + cq * h * (qn + r) + d * (c + r) + c * h * (qn + v) + 2 * h * v * d) \
        + h * t * t * (qn + r + v)
    indexer_macs = t * (cq * hi * di + d * di + d * hi) + hi * t * t * (di + 1)
    macs = layers * (attention_macs + 2 * t * n * d * 2 * n) + len(full) * indexer_macs + t * 3 * d * f \
        + (layers - 1) * t * (e * d + (k + 1) * 3 * d * fe) + t * n * d * n + t * d * vocab
    result = evaluate(read_hf_config(HY_V4).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs)
    assert params == 58_278_193_133  # transformers on meta, HYV4Config()


@pytest.mark.parametrize("change,key", [
    ({"indexer_types": ["shared"] + ["full"] * 33}, "indexer_types"),  # no selection to share: no run
    ({"indexer_types": ["full"] * 33}, "indexer_types"),
    ({"layer_types": ["full_attention"] * 34}, "layer_types"),
    ({"mlp_layer_types": ["dense"] * 33}, "mlp_layer_types"),
    ({"n_routed_experts": 1}, "n_routed_experts"),
    ({"q_lora_rank": None}, "q_lora_rank"),
    ({"hc_mult": None}, "hc_mult"),
])
def test_hy_v4_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(HY_V4 | change)


def test_hy_v4_inert_keys():
    """``num_key_value_heads`` and ``head_dim`` (HYV4Config overwrites both), the routing scales and the sink's and
    clamp's values change nothing."""
    base = evaluate(read_hf_config(HY_V4).architecture(8))
    other = evaluate(read_hf_config(HY_V4 | {"num_key_value_heads": 4, "head_dim": 7, "routed_scaling_factor": 1.0,
                                             "hc_magnitude": 1.0, "swiglu_limit": 0.0, "index_topk": 4,
                                             "learnable_sink_init": 1.0}).architecture(8))
    assert (base.params, base.forward_flop) == (other.params, other.forward_flop)


MINIMAX_M3 = {"model_type": "minimax_m3_vl_text", "architectures": ["MiniMaxM3VLForCausalLM"],
              "hidden_size": 6144, "intermediate_size": 3072, "num_hidden_layers": 60, "num_attention_heads": 64,
              "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 200064, "rotary_dim": 64,
              "use_qk_norm": True, "qk_norm_type": "per_head", "tie_word_embeddings": False,
              "dense_intermediate_size": 12288, "shared_intermediate_size": 3072, "num_local_experts": 128,
              "num_experts_per_tok": 4, "n_shared_experts": 1, "scoring_func": "sigmoid", "use_routing_bias": True,
              "moe_layer_freq": [0] * 3 + [1] * 57, "swiglu_alpha": 1.702, "swiglu_limit": 7.0,
              "routed_scaling_factor": 2.0,
              "sparse_attention_config": {"use_sparse_attention": True, "sparse_index_dim": 128,
                                          "sparse_num_index_heads": 4, "sparse_topk_blocks": 16,
                                          "sparse_block_size": 128, "sparse_score_type": "max",
                                          "sparse_init_block": 0, "sparse_local_block": 1,
                                          "sparse_disable_index_value": [0] * 3 + [1] * 57,
                                          "sparse_attention_freq": [0] * 3 + [1] * 57}}
"""MiniMax-M3's text_config as the ports quote it (MiniMax's own keys: moe_layer_freq, sparse_attention_config)."""


def test_minimax_m3_published_layout_by_hand():
    """MiniMax-M3's language model (d 6144, 60 layers, 64 heads of 128, 4 key/value heads; the first 3 layers dense
    MLPs of 12288 with full attention, the other 57 sparse attention and 128 experts of 3072, 4 per token, beside a
    shared expert of 3072) from MiniMaxM3VLDecoderLayer's weight shapes: q d→H·Q, k and v d→H_kv·Q, o H·Q→d, a
    per-head norm of Q each for queries and keys; on sparse layers the indexer q d→H_I·D_I, k d→D_I and their norms
    (D_I each); gate/up fused d→2F and down; a router d→E without bias; two norms a layer; untied head. Forward FLOP
    at T tokens: 2 per multiply-accumulate of the projections, QKᵀ and AV (T² per head: the block selection only
    masks), the indexer's scores (H_I·D_I per query–key pair), the router, k experts and the shared one, the head.
    transformers on meta (MiniMaxM3VLForCausalLM of this file): the same parameters and FLOP."""
    d, layers, dense, h, kv, q, f, fd, fs, e, k, vocab = 6144, 60, 3, 64, 4, 128, 3072, 12288, 3072, 128, 4, 200064
    hi, di, t = 4, 128, 16
    attention = d * h * q + 2 * d * kv * q + h * q * d + 2 * q
    indexer = d * hi * di + d * di + 2 * di
    moe = d * e + e * 3 * d * f + 3 * d * fs
    params = 2 * vocab * d + d + layers * (attention + 2 * d) + dense * 3 * d * fd + (layers - dense) * (indexer + moe)
    active = params - (layers - dense) * (e - k) * 3 * d * f
    macs = layers * (t * (d * h * q + 2 * d * kv * q + h * q * d) + 2 * h * t * t * q) + dense * t * 3 * d * fd \
        + (layers - dense) * (t * (d * hi * di + d * di) + hi * t * t * di + t * (d * e + k * 3 * d * f + 3 * d * fs)) \
        + t * d * vocab
    result = evaluate(read_hf_config(MINIMAX_M3).architecture(t))
    assert (result.params, result.active_params, result.forward_flop) == (params, active, 2 * macs)
    assert (params, 2 * macs) == (426_174_565_632, 791_958_257_664)  # transformers on meta
    # full training: twice each product backward, except the indexer's (its output is block indices: no gradient)
    indexer_macs = (layers - dense) * (t * (d * hi * di + d * di) + hi * t * t * di)
    assert result.backward_flop == 2 * 2 * (macs - indexer_macs)


@pytest.mark.parametrize("change,key", [
    ({"layer_types": ["minimax_m3_sparse", "sliding_attention"] * 30}, "layer_types"),
    ({"layer_types": ["full_attention"] * 59}, "layer_types"),
    ({"mlp_layer_types": ["dense", "moe"] * 30}, "mlp_layer_types"),
    ({"moe_layer_freq": [1] * 59}, "moe_layer_freq"),
    ({"index_n_heads": 3, "sparse_attention_config": {"sparse_attention_freq": [1] * 60}}, "index_n_heads"),
    ({"sparse_attention_config": MINIMAX_M3["sparse_attention_config"] | {"sparse_disable_index_value": [0] * 60}},
     "sparse_attention_config.sparse_disable_index_value"),
    ({"sparse_attention_config": MINIMAX_M3["sparse_attention_config"] | {"use_sparse_attention": False}},
     "sparse_attention_config.use_sparse_attention"),
    ({"sparse_attention_config": MINIMAX_M3["sparse_attention_config"] | {"sparse_block_size": 0}},
     "index_block_size"),
    ({"qk_norm_type": "per_layer"}, "qk_norm_type"),
    ({"use_qk_norm": False}, "use_qk_norm"),
    ({"n_shared_experts": 0}, "n_shared_experts"),
    ({"num_local_experts": 1}, "num_local_experts"),
    ({"head_dim": None}, "head_dim"),
])
def test_minimax_m3_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(MINIMAX_M3 | change)


def test_minimax_m3_inert_keys():
    """The activation's constants, the routing scale, the rotary width, the selection's top-k and local blocks
    (masking only) and the multi-token-prediction keys (not built) change nothing."""
    base = evaluate(read_hf_config(MINIMAX_M3).architecture(8))
    other = evaluate(read_hf_config(MINIMAX_M3 | {
        "swiglu_alpha": 1.0, "swiglu_limit": 3.0, "routed_scaling_factor": 1.0, "rotary_dim": 32,
        "num_mtp_modules": 7, "num_nextn_predict_layers": 1, "index_topk_blocks": 2, "index_local_blocks": 0,
        "sparse_attention_config": MINIMAX_M3["sparse_attention_config"] | {"sparse_topk_blocks": 2}}).architecture(8))
    assert (base.params, base.forward_flop) == (other.params, other.forward_flop)


COHERE_COMPASS = {"model_type": "cohere_compass_text", "architectures": ["CohereCompassForCausalLM"],
                  "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}}
"""Cohere Compass's text model with CohereCompassTextConfig's default sizes (its rotary parameters per layer type
written: the default has none, and transformers cannot build without)."""


def test_cohere_compass_default_sizes_by_hand():
    """CohereCompassTextConfig's defaults (d 8192, 40 layers, 64 heads of d/H = 128, as many key/value heads, MLP
    22528, vocabulary 256,000, tied) from CohereCompassDecoderLayer's weight shapes: q, k, v, o d→d without biases,
    gate and up d→F, down F→d, one LayerNorm γ (no β) shared by attention and MLP; the final norm; the tied table.
    Forward FLOP at T tokens: 2 per multiply-accumulate of the projections, QKᵀ and AV (T² per head: every layer
    full by default) and the head. transformers on meta: the same parameters."""
    d, layers, h, q, f, vocab, t = 8192, 40, 64, 128, 22528, 256000, 16
    params = vocab * d + d + layers * (4 * d * d + 3 * d * f + d)
    macs = layers * (t * (4 * d * d + 3 * d * f) + 2 * h * t * t * q) + t * d * vocab
    result = evaluate(read_hf_config(COHERE_COMPASS).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs)
    assert params == 34_980_831_232  # transformers on meta, CohereCompassTextConfig()


@pytest.mark.parametrize("change,key", [
    ({"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}}, "rope_parameters"),
    ({"layer_types": ["sliding_attention"] * 40, "sliding_window": 8}, "rope_parameters"),
    ({"layer_types": ["full_attention"] * 39}, "layer_types"),
    ({"head_dim": None}, "head_dim"),
    ({"hidden_size": None}, "hidden_size"),
    ({"norm_type": "rms_norm"}, "norm_type"),
    ({"transformer_block_type": "vanilla"}, "transformer_block_type"),
    ({"mlp_bias": True}, "mlp_bias"),
])
def test_cohere_compass_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(COHERE_COMPASS | change)


def test_cohere_compass_inert_keys():
    """The old period key (not read: absent layer_types means all full), the pooling, the logit scale and rotary
    parameters (null: no rotary positions) change nothing."""
    base = evaluate(read_hf_config(COHERE_COMPASS).architecture(8))
    other = evaluate(read_hf_config(COHERE_COMPASS | {"sliding_window_pattern": 2, "pooling": "mean",
                                                      "logit_scale": 0.25,
                                                      "rope_parameters": {"full_attention": None}}).architecture(8))
    assert (base.params, base.forward_flop) == (other.params, other.forward_flop)


DOTS3_NOTE = {"model_type": "dots3_note_text", "architectures": ["Dots3NoteForCausalLM"]}


def test_dots3_note_text_default_sizes_by_hand():
    """Dots3NoteTextConfig's defaults (its docstring's dots-studio/dots3-note-prev: d 5120, 46 layers) from the weight
    shapes: on the 13 indexed layers (0, 1, 5, …, 45) latent attention of 128 heads (c_q 1024, c 512, Q 128, R 64, V
    128) with the lightning indexer (64 heads of 128: c_q→H_I·D_I, d→D_I with a LayerNorm, d→H_I); on the 33 sliding
    layers the swa sizes (64 heads, c_q 1024, c 1024, Q 192, R 64, V 128); each attention q d→c_q (norm) →H·(Q+R),
    kv d→c+R (norm of c, norm of R) c→H·(Q+V), o H·V→d, the gate d→H; the first layer a dense MLP 3·d·F, the others a
    router d→E, 256 experts and one shared of 3·d·1536; two norms a layer, the final norm, the untied table and
    head. Forward FLOP at T tokens: 2 per multiply-accumulate of every projection, QKᵀ and AV (T² per head: the
    window only masks), the indexer's scores and weighted sum, the k = 8 routed experts and the shared one, the head.
    transformers on meta: Dots3NoteForCausalLM of Dots3NoteTextConfig() has the same parameters. Its multimodal
    wrapper's file (dots3_note, the same text_config) counts the same."""
    d, layers, f, fe, e, k, vocab, cq, hi, di, t = 5120, 46, 13824, 1536, 256, 8, 152064, 1024, 64, 128, 16
    indexed = [i for i in range(layers) if i < 2 or i % 4 == 1]
    assert len(indexed) == 13

    def attention(h, c, qn, r, v):
        params = d * cq + cq + cq * h * (qn + r) + d * (c + r) + c + r + c * h * (qn + v) + h * v * d + d * h
        macs = t * (d * cq + cq * h * (qn + r) + d * (c + r) + c * h * (qn + v) + h * v * d + d * h) \
            + h * t * t * (qn + r + v)
        return params, macs

    (full_p, full_m), (swa_p, swa_m) = attention(128, 512, 128, 64, 128), attention(64, 1024, 192, 64, 128)
    indexer_p = cq * hi * di + d * di + 2 * di + d * hi
    indexer_m = t * (cq * hi * di + d * di + d * hi) + hi * t * t * (di + 1)
    moe = e * d + (e + 1) * 3 * d * fe
    params = 2 * vocab * d + d + layers * 2 * d + 13 * (full_p + indexer_p) + 33 * swa_p + 3 * d * f \
        + (layers - 1) * moe
    macs = 13 * (full_m + indexer_m) + 33 * swa_m + t * 3 * d * f + (layers - 1) * t * (e * d + (k + 1) * 3 * d * fe) \
        + t * d * vocab
    result = evaluate(read_hf_config(DOTS3_NOTE).architecture(t))
    assert (result.params, result.forward_flop) == (params, 2 * macs)
    assert params == 279_551_718_016  # transformers on meta, Dots3NoteTextConfig()
    wrapper = {"model_type": "dots3_note", "architectures": ["Dots3NoteForConditionalGeneration"],
               "text_config": {"model_type": "dots3_note_text"}}
    again = evaluate(read_hf_config(wrapper).architecture(t))
    assert (again.params, again.forward_flop) == (params, 2 * macs)


@pytest.mark.parametrize("change,key", [
    ({"n_shared_experts": 0}, "n_shared_experts"),  # Dots3NoteTextConfig refuses it
    ({"num_key_value_heads": 64}, "num_key_value_heads"),
    ({"layer_types": ["indexed_attention"] * 45}, "layer_types"),
    ({"moe_layer_freq": "2"}, "moe_layer_freq"),
    ({"per_layer_config": {"2": {"intermediate_size": 8}}}, r"per_layer_config\.2\.intermediate_size"),
    ({"per_layer_config": {"46": {"num_attention_heads": 8}}}, "per_layer_config"),
    ({"index_head_dim": 32}, "index_head_dim"),  # below the rotary part (64)
    ({"q_lora_rank": None}, "q_lora_rank"),
])
def test_dots3_note_text_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(DOTS3_NOTE | change)
