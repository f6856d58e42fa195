"""Small configs of the decoder families of ``engine.llm.families`` added for issue 21's second round
(Helium, Seed-OSS, GLM, CWM, FlexOlmo, Nemotron, Persimmon, and the
types transformers builds with another family's classes: EXAONE 3, InternLM3, IQuest-Coder → Llama;
Param2-MoE, Sarvam-MoE → GLM-4.5 MoE; Sarvam-MLA → DeepSeek-V3). Each switches the options its reader knows;
``tests/llm/test_families_hf.py`` compares every one with transformers (and ``test_written_configs`` the same
configs as transformers writes them)."""
from __future__ import annotations

S = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4,
     "num_key_value_heads": 2, "vocab_size": 128, "max_position_embeddings": 64, "pad_token_id": 0,
     "bos_token_id": 0, "eos_token_id": 0}
MOE = {"n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 24, "n_group": 1, "topk_group": 1}
WINDOWS = ["full_attention", "sliding_attention", "sliding_attention"]
LAGUNA = S | {"head_dim": 12, "moe_intermediate_size": 24, "shared_expert_intermediate_size": 20, "num_experts": 4,
              "num_experts_per_tok": 2}
LONGCAT = {"hidden_size": 64, "num_attention_heads": 4, "vocab_size": 128, "max_position_embeddings": 64,
           "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0, "ffn_hidden_size": 96, "q_lora_rank": 24,
           "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "head_dim": 4, "v_head_dim": 12,
           "n_routed_experts": 4, "zero_expert_num": 2, "moe_topk": 3, "expert_ffn_hidden_size": 20}


G4 = S | {"num_hidden_layers": 6, "head_dim": 16, "sliding_window": 8, "vocab_size_per_layer_input": 100,
          "hidden_size_per_layer_input": 0, "layer_types": ["sliding_attention", "full_attention"] * 3}
"""Gemma 4's small base: sliding layers of head_dim 16 and 2 key/value heads, full ones of global_head_dim."""
G4U = {k: v for k, v in G4.items() if not k.endswith("per_layer_input")}
"""Gemma 4 unified's (no per-layer embeddings)."""


V4 = {"hidden_size": 64, "moe_intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 4,
      "head_dim": 16, "q_lora_rank": 12, "n_routed_experts": 4, "num_experts_per_tok": 2, "vocab_size": 128,
      "o_groups": 2, "o_lora_rank": 10, "index_n_heads": 3, "index_head_dim": 8, "index_topk": 2, "hc_mult": 3,
      "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8}, "sliding_window": 4,
      "max_position_embeddings": 64, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
"""DeepSeek-V4's small base: rates 4 and 8, so that 10 and 12 positions make entries on both compressed kinds."""

HY3 = S | {"head_dim": 16, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 24}
"""Hy3's small base: GQA of head_dim 16, 4 experts of 24 (2 a token)."""


def _v(model_type: str, architecture: str, **keys) -> dict:
    return {"model_type": model_type, "architectures": [architecture], **keys}


HY4 = {"hidden_size": 64, "intermediate_size": 96, "moe_intermediate_size": 24, "num_hidden_layers": 3,
       "num_attention_heads": 4, "n_routed_experts": 4, "num_experts_per_tok": 2, "q_lora_rank": 24,
       "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 12, "index_n_heads": 3,
       "index_head_dim": 8, "hc_mult": 3, "vocab_size": 128, "max_position_embeddings": 64, "pad_token_id": 0,
       "bos_token_id": 0, "eos_token_id": 0}
"""HY-V4's small base: 3 layers (the first dense, the third a shared-indexer layer), 3 hyper-connection streams."""


DOTS3 = {"hidden_size": 64, "intermediate_size": 96, "moe_intermediate_size": 24, "num_hidden_layers": 6,
         "num_attention_heads": 4, "num_key_value_heads": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "shared_experts_intermediate_size": 20, "q_lora_rank": 24, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
         "qk_rope_head_dim": 4, "v_head_dim": 12, "head_dim": 12, "index_n_heads": 3, "index_head_dim": 8,
         "sliding_window": 4, "swa_num_attention_heads": 2, "swa_num_key_value_heads": 2, "swa_q_lora_rank": 20,
         "swa_kv_lora_rank": 12, "swa_head_dim": 16, "swa_qk_nope_head_dim": 10, "swa_v_head_dim": 8,
         "vocab_size": 128, "max_position_embeddings": 64, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
"""dots.3 note's small base: 6 layers (indexed 0, 1, 5; sliding 2–4 with attention sizes of their own, swa_*)."""


DECODER_VARIANTS = {
    "helium biases": _v("helium", "HeliumForCausalLM", **S, head_dim=16, attention_bias=True, mlp_bias=True),
    "helium tied": _v("helium", "HeliumForCausalLM", **S, head_dim=16, tie_word_embeddings=True),
    "ministral3 wide heads, tied": _v("ministral3", "Ministral3ForCausalLM", **S, head_dim=20,
                                      tie_word_embeddings=True),
    "ministral3 windows": _v("ministral3", "Ministral3ForCausalLM", **S, sliding_window=8, head_dim=16),
    "openai-gpt relu, untied": _v("openai-gpt", "OpenAIGPTLMHeadModel", n_embd=48, n_layer=2, n_head=4,
                                  n_positions=40, vocab_size=90, afn="relu", tie_word_embeddings=False),
    "openai-gpt model": _v("openai-gpt", "OpenAIGPTModel", n_embd=48, n_layer=3, n_head=6, n_positions=32,
                           vocab_size=90),
    "seed-oss every bias": _v("seed_oss", "SeedOssForCausalLM", **S, head_dim=12, attention_bias=True,
                              attention_out_bias=True, mlp_bias=True),
    "seed-oss no bias": _v("seed_oss", "SeedOssForCausalLM", **S, head_dim=12, attention_bias=False),
    "glm": _v("glm", "GlmForCausalLM", **S, head_dim=12),
    "glm no bias, tied": _v("glm", "GlmForCausalLM", **S, head_dim=12, attention_bias=False,
                            tie_word_embeddings=True),
    "cwm default windows": _v("cwm", "CwmForCausalLM", **(S | {"num_hidden_layers": 5}), head_dim=16,
                                sliding_window=8),
    "cwm layer_types, mlp bias": _v("cwm", "CwmForCausalLM", **S, head_dim=16, sliding_window=8, layer_types=WINDOWS,
                                    mlp_bias=True),
    "flex-olmo": _v("flex_olmo", "FlexOlmoForCausalLM", **S, num_experts=4, num_experts_per_tok=2),
    "nemotron relu² biases": _v("nemotron", "NemotronForCausalLM", **S, head_dim=16, attention_bias=True,
                                mlp_bias=True),
    "nemotron wide heads": _v("nemotron", "NemotronForCausalLM", **S, head_dim=24),
    "persimmon qk layernorm": _v("persimmon", "PersimmonForCausalLM", hidden_size=48, intermediate_size=80,
                                 num_hidden_layers=2, num_attention_heads=4, vocab_size=90,
                                 max_position_embeddings=40, qk_layernorm=True),
    "persimmon no qk norm, tied": _v("persimmon", "PersimmonForCausalLM", hidden_size=48, intermediate_size=80,
                                     num_hidden_layers=2, num_attention_heads=4, vocab_size=90,
                                     max_position_embeddings=40, qk_layernorm=False, tie_word_embeddings=True),
    "exaone 3 names (num_layers, activation_function)": _v(
        "exaone", "LlamaForCausalLM", num_layers=3, hidden_size=64, intermediate_size=96, num_attention_heads=4,
        num_key_value_heads=2, vocab_size=128, max_position_embeddings=64, activation_function="silu",
        layer_norm_epsilon=1e-5, pad_token_id=0, bos_token_id=0, eos_token_id=0),
    "internlm3 biases by their names (qkv_bias, bias)": _v("internlm3", "LlamaForCausalLM", **S, head_dim=20,
                                                          qkv_bias=True, bias=True),
    "iquestcoder": _v("iquestcoder", "LlamaForCausalLM", **S, head_dim=16),
    "internlm3 defaults (2 key/value heads, head_dim 128)": _v(
        "internlm3", "LlamaForCausalLM", **{k: v for k, v in S.items() if k != "num_key_value_heads"}),
    "param2moe defaults (tied, qk norm, head_dim 64, 2 shared)": _v("param2moe", "Glm4MoeForCausalLM", **S, **MOE,
                                                                   first_k_dense_replace=1),
    "param2moe (GLM-4.5 MoE classes)": _v("param2moe", "Glm4MoeForCausalLM", **S, **MOE, head_dim=12,
                                          first_k_dense_replace=1, n_shared_experts=2, use_qkv_bias=True),
    "sarvam-moe (GLM-4.5 MoE classes)": _v("sarvam_moe", "Glm4MoeForCausalLM", **S, **MOE, head_dim=12,
                                           first_k_dense_replace=1, n_shared_experts=1),
    "dbrx gqa, two of four experts": _v("dbrx", "DbrxForCausalLM", d_model=64, n_heads=4, n_layers=2, vocab_size=100,
                                        max_seq_len=64, attn_config={"kv_n_heads": 2, "clip_qkv": 8, "rope_theta": 1e4},
                                        ffn_config={"ffn_hidden_size": 48, "moe_num_experts": 4, "moe_top_k": 2}),
    "dbrx one key/value head, gelu experts": _v("dbrx", "DbrxForCausalLM", d_model=48, n_heads=6, n_layers=3,
                                                vocab_size=90, max_seq_len=32,
                                                attn_config={"rope_theta": 1e4, "clip_qkv": 6.0},
                                                ffn_config={"ffn_hidden_size": 40, "moe_num_experts": 3,
                                                            "moe_top_k": 1, "ffn_act_fn": {"name": "gelu"}}),
    "sarvam-mla (DeepSeek-V3 classes)": _v("sarvam_mla", "DeepseekV3ForCausalLM", **(S | {"num_key_value_heads": 4}),
                                           q_lora_rank=None, kv_lora_rank=24, qk_nope_head_dim=16,
                                           qk_rope_head_dim=8, v_head_dim=12, num_experts=4, num_experts_per_tok=2,
                                           n_shared_experts=1, moe_intermediate_size=20, first_k_dense_replace=1,
                                           n_group=1, topk_group=1),
    "minimax-m2 (width QK norms, partial rotary, sigmoid router)": _v(
        "minimax_m2", "MiniMaxM2ForCausalLM", **(S | {"intermediate_size": 40}), head_dim=24, rotary_dim=12,
        num_local_experts=4, num_experts_per_tok=2, use_qk_norm=True, qk_norm_type="per_layer",
        attn_type_list=[1, 1, 1], scoring_func="sigmoid", use_routing_bias=True, shared_intermediate_size=0,
        use_mtp=True, num_mtp_modules=3, mtp_transformer_layers=1),
    "minimax-m2 model, multi-head, tied, top-1": _v(
        "minimax_m2", "MiniMaxM2Model", **(S | {"num_key_value_heads": 4, "intermediate_size": 28}), head_dim=16,
        num_local_experts=3, num_experts_per_tok=1, tie_word_embeddings=True),
    "cohere-compass text (windows by layer_types, biases, head_dim, untied)": _v(
        "cohere_compass_text", "CohereCompassForCausalLM", **(S | {"num_hidden_layers": 4}), sliding_window=4,
        layer_types=["sliding_attention", "full_attention", "sliding_attention", "sliding_attention"],
        attention_bias=True, head_dim=6, sliding_window_pattern=2, tie_word_embeddings=False, logit_scale=0.5,
        rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": None}),
    "cohere-compass text model, d/H floored, no layer_types (all full), tied": _v(
        "cohere_compass_text", "CohereCompassTextModel", **(S | {"hidden_size": 74, "num_key_value_heads": 1}),
        sliding_window=3, pooling="mean", rope_parameters={"full_attention": {"rope_type": "default",
                                                                              "rope_theta": 50000.0}}),
    "minimax-m3 text (indexer on sparse layers, dense/sparse MLPs, shared expert)": _v(
        "minimax_m3_vl_text", "MiniMaxM3VLForCausalLM", **(S | {"num_hidden_layers": 4, "intermediate_size": 20}),
        head_dim=24, rotary_dim=12, dense_intermediate_size=40, shared_intermediate_size=12, num_local_experts=4,
        num_experts_per_tok=2, index_n_heads=2, index_head_dim=16, index_block_size=4, index_topk_blocks=2,
        layer_types=["full_attention", "minimax_m3_sparse", "minimax_m3_sparse", "full_attention"],
        mlp_layer_types=["dense", "sparse", "sparse", "sparse"]),
    "minimax-m3 text model, legacy sparse_attention_config and moe_layer_freq, tied, no shared expert": _v(
        "minimax_m3_vl_text", "MiniMaxM3VLTextModel", **(S | {"intermediate_size": 16}), head_dim=16, rotary_dim=8,
        dense_intermediate_size=36, shared_intermediate_size=0, num_local_experts=3, num_experts_per_tok=1,
        tie_word_embeddings=True, moe_layer_freq=[1, 0, 1],
        sparse_attention_config={"sparse_num_index_heads": 4, "sparse_index_dim": 8, "sparse_block_size": 3,
                                 "sparse_topk_blocks": 1, "sparse_local_block": 1,
                                 "sparse_attention_freq": [1, 1, 0]}),
    "minimax-m3 text, all dense, all full attention": _v(
        "minimax_m3_vl_text", "MiniMaxM3VLForCausalLM", **S, head_dim=16, dense_intermediate_size=48,
        mlp_layer_types=["dense"] * 3),
    "minimax (lightning blocks of 4 between softmax layers)": _v(
        "minimax", "MiniMaxForCausalLM", **(S | {"num_hidden_layers": 4, "intermediate_size": 40}), block_size=4,
        num_local_experts=4, num_experts_per_tok=2, full_attn_alpha_factor=3.56, linear_attn_alpha_factor=3.56,
        mlp_alpha_factor=3.56),
    "minimax model, listed kinds, head size, window, attn_type_list": _v(
        "minimax", "MiniMaxModel", **(S | {"num_key_value_heads": 4, "intermediate_size": 28}), head_dim=12,
        block_size=3, sliding_window=6, num_local_experts=3, num_experts_per_tok=1,
        layer_types=["linear_attention", "linear_attention", "full_attention"], attn_type_list=[0, 0, 1],
        postnorm=True, shared_intermediate_size=0, tie_word_embeddings=True),
    "minimax all lightning, one block": _v(
        "minimax", "MiniMaxForCausalLM", **(S | {"num_hidden_layers": 2}), num_local_experts=2, num_experts_per_tok=2,
        layer_types=["linear_attention", "linear_attention"]),
    "ministral windows by layer_types": _v("ministral", "MinistralForCausalLM", **S, head_dim=16, sliding_window=8,
                                           layer_types=WINDOWS),
    "ministral full attention, wide heads, tied": _v("ministral", "MinistralForCausalLM", **S, head_dim=20,
                                                     sliding_window=8, layer_types=["full_attention"] * 3,
                                                     tie_word_embeddings=True),
    "arcee relu², biases": _v("arcee", "ArceeForCausalLM", **S, attention_bias=True, mlp_bias=True),
    "arcee model, head_dim": _v("arcee", "ArceeModel", **S, head_dim=24),
    "apertus xielu, qk norms": _v("apertus", "ApertusForCausalLM", **S),
    "apertus biases, relu², tied": _v("apertus", "ApertusForCausalLM", **S, head_dim=12, attention_bias=True,
                                      hidden_act="relu2", tie_word_embeddings=True),
    "hy_v4 defaults of its kinds": _v("hy_v4", "HYV4ForCausalLM", **HY4),
    "hy_v4 biases, two shared experts, all full indexers, tied": _v(
        "hy_v4", "HYV4ForCausalLM", **HY4, attention_bias=True, n_shared_experts=2, indexer_types=["full"] * 3,
        mlp_layer_types=["sparse", "dense", "sparse"], tie_word_embeddings=True),
    "hy_v4 model, 2 streams, no shared expert": _v("hy_v4", "HYV4Model", **(HY4 | {"hc_mult": 2}),
                                                   n_shared_experts=0, indexer_types=["full", "shared", "shared"]),
    "dots3_note defaults of its kinds": _v("dots3_note_text", "Dots3NoteForCausalLM", **DOTS3),
    "dots3_note biases, two shared, dense by freq, tied": _v(
        "dots3_note_text", "Dots3NoteForCausalLM", **(DOTS3 | {"n_shared_experts": 2}), attention_bias=True,
        moe_layer_freq=2, first_k_dense_replace=0, tie_word_embeddings=True),
    "dots3_note model, no DSA, no windows": _v("dots3_note_text", "Dots3NoteTextModel", **DOTS3, use_dsa=False,
                                               use_sliding_window=False),
    "dots3_note layer kinds and mlp types": _v(
        "dots3_note_text", "Dots3NoteForCausalLM", **DOTS3,
        layer_types=["full_attention", "sliding_attention", "full_attention", "sliding_attention",
                     "sliding_attention", "full_attention"],
        mlp_layer_types=["sparse", "dense", "sparse", "dense", "sparse", "sparse"]),
    "apertus1p5 pruned head": _v("apertus1p5_text", "Apertus1p5TextForCausalLM", **S, output_vocab_size=100),
    "apertus1p5 full head, biases, head_dim, tied": _v("apertus1p5_text", "Apertus1p5TextForCausalLM", **S,
                                                        head_dim=12, attention_bias=True, output_vocab_size=128,
                                                        tie_word_embeddings=True),
    "apertus1p5 pruned head tied (the table)": _v("apertus1p5_text", "Apertus1p5TextForCausalLM", **S,
                                                   output_vocab_size=100, tie_word_embeddings=True),
    "apertus1p5 model": _v("apertus1p5_text", "Apertus1p5TextModel", **S, output_vocab_size=100),
    "vaultgemma windows": _v("vaultgemma", "VaultGemmaForCausalLM", **S, head_dim=16, sliding_window=8),
    "vaultgemma model, wide heads": _v("vaultgemma", "VaultGemmaModel", **S, head_dim=24, sliding_window=8,
                                       layer_types=WINDOWS),
    "hunyuan dense biases": _v("hunyuan_v1_dense", "HunYuanDenseV1ForCausalLM", **S, head_dim=16,
                               attention_bias=True),
    "hunyuan dense tied, wide heads": _v("hunyuan_v1_dense", "HunYuanDenseV1ForCausalLM", **S, head_dim=24,
                                         tie_word_embeddings=True),
    "hunyuan moe (experts + shared MLP)": _v("hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM", **S, head_dim=16,
                                             num_experts=4, moe_topk=2),
    "hunyuan moe model, top-1, biases": _v("hunyuan_v1_moe", "HunYuanMoEV1Model", **S, head_dim=16, num_experts=3,
                                           moe_topk=1, attention_bias=True),
    "hunyuan moe, moe_topk by layer": _v("hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM", **S, head_dim=16, num_experts=4,
                                         moe_topk=[2, 2, 2]),
    "granitemoeshared": _v("granitemoeshared", "GraniteMoeSharedForCausalLM", **S, num_local_experts=4,
                           num_experts_per_tok=2, shared_intermediate_size=40),
    "granitemoeshared without a shared MLP, tied": _v("granitemoeshared", "GraniteMoeSharedForCausalLM", **S,
                                                      num_local_experts=3, num_experts_per_tok=1,
                                                      shared_intermediate_size=0, tie_word_embeddings=True),
    "dots1 windows from max_window_layers, a dense first layer": _v(
        "dots1", "Dots1ForCausalLM", **S, **MOE, n_shared_experts=1, first_k_dense_replace=1, sliding_window=8,
        max_window_layers=1),
    "dots1 model, biases, two shared, no dense layer": _v(
        "dots1", "Dots1Model", **S, **MOE, head_dim=20, attention_bias=True, n_shared_experts=2,
        first_k_dense_replace=0, sliding_window=None),
    "exaone-moe windows by pattern, a dense first layer": _v(
        "exaone_moe", "ExaoneMoeForCausalLM", **S, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
        num_shared_experts=1, first_k_dense_replace=1, sliding_window=8, sliding_window_pattern=2),
    "exaone-moe mlp_layer_types, layer_types, no shared expert, tied": _v(
        "exaone_moe", "ExaoneMoeForCausalLM", **S, head_dim=20, num_experts=3, num_experts_per_tok=1,
        moe_intermediate_size=20, num_shared_experts=0, mlp_layer_types=["sparse", "dense", "sparse"],
        sliding_window=8, layer_types=WINDOWS, tie_word_embeddings=True),
    "glm4-moe-lite (latent attention, GLM-4.5 experts)": _v(
        "glm4_moe_lite", "Glm4MoeLiteForCausalLM", **(S | {"num_key_value_heads": 4}), kv_lora_rank=24,
        q_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=12, n_routed_experts=4,
        num_experts_per_tok=2, moe_intermediate_size=20, n_shared_experts=1, n_group=1, topk_group=1),
    "glm4-moe-lite model, direct queries, mlp_layer_types, two shared": _v(
        "glm4_moe_lite", "Glm4MoeLiteModel", **(S | {"num_key_value_heads": 4}), kv_lora_rank=24, q_lora_rank=None,
        qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=16, n_routed_experts=3, num_experts_per_tok=1,
        moe_intermediate_size=20, n_shared_experts=2, mlp_layer_types=["sparse", "dense", "sparse"], n_group=1,
        topk_group=1),
    "minicpm3 (latent attention, scalings)": _v(
        "minicpm3", "MiniCPM3ForCausalLM", **(S | {"num_key_value_heads": 4}), kv_lora_rank=24, q_lora_rank=16,
        qk_nope_head_dim=16, qk_rope_head_dim=8, scale_emb=12, scale_depth=1.4, dim_model_base=32),
    "minicpm3 model, direct queries, biases, v_head_dim": _v(
        "minicpm3", "MiniCPM3Model", **(S | {"num_key_value_heads": 4}), kv_lora_rank=20, q_lora_rank=None,
        qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=12, attention_bias=True, mlp_bias=True),
    "minicpm3 untied": _v(
        "minicpm3", "MiniCPM3ForCausalLM", **(S | {"num_key_value_heads": 4}), kv_lora_rank=24, q_lora_rank=16,
        qk_nope_head_dim=16, qk_rope_head_dim=8, tie_word_embeddings=False),
    "cohere2-moe LayerNorm, dense prefix, windows by pattern": _v(
        "cohere2_moe", "Cohere2MoeForCausalLM", **(S | {"num_hidden_layers": 5}), head_dim=16, num_experts=4,
        num_experts_per_tok=2, num_shared_experts=1, prefix_dense_intermediate_size=40, first_k_dense_replace=1,
        sliding_window=8, sliding_window_pattern=2, rms_norm_eps=None),
    "cohere2-moe RMSNorm, listed layers, biases, untied": _v(
        "cohere2_moe", "Cohere2MoeForCausalLM", **S, head_dim=20, num_experts=3, num_experts_per_tok=1,
        num_shared_experts=2, shared_expert_combination_strategy="sum", rms_norm_eps=1e-5, attention_bias=True,
        mlp_layer_types=["dense", "sparse", "sparse"], layer_types=WINDOWS, sliding_window=8,
        prefix_dense_intermediate_size=None, tie_word_embeddings=False),
    "cohere2-moe model, no shared expert": _v(
        "cohere2_moe", "Cohere2MoeModel", **S, head_dim=16, num_experts=4, num_experts_per_tok=2, num_shared_experts=0,
        sliding_window=8),
    "xglm (sinusoidal positions, pre-norm, biases)": _v(
        "xglm", "XGLMForCausalLM", d_model=48, ffn_dim=80, num_layers=3, attention_heads=4, vocab_size=90,
        max_position_embeddings=40, pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2),
    "xglm model, relu, untied head": _v(
        "xglm", "XGLMModel", d_model=40, ffn_dim=64, num_layers=2, attention_heads=5, vocab_size=70,
        max_position_embeddings=32, activation_function="relu", scale_embedding=False, pad_token_id=1,
        bos_token_id=0, eos_token_id=2, decoder_start_token_id=2),
    "xglm untied": _v(
        "xglm", "XGLMForCausalLM", d_model=48, ffn_dim=80, num_layers=2, attention_heads=6, vocab_size=90,
        max_position_embeddings=40, tie_word_embeddings=False, pad_token_id=1, bos_token_id=0, eos_token_id=2,
        decoder_start_token_id=2),
    "gemma4 dense: full layers of global_head_dim 32": _v("gemma4_text", "Gemma4ForCausalLM", **G4, global_head_dim=32),
    "gemma4 E2B-like: per-layer embeddings, 2 layers reuse keys and values, double-wide MLP there": _v(
        "gemma4_text", "Gemma4ForCausalLM", **(G4 | {"hidden_size_per_layer_input": 8}), global_head_dim=32,
        num_kv_shared_layers=2, use_double_wide_mlp=True),
    "gemma4 31B-like: values from keys, 1 global key/value head, untied, biases": _v(
        "gemma4_text", "Gemma4ForCausalLM", **G4, global_head_dim=24, attention_k_eq_v=True,
        num_global_key_value_heads=1, tie_word_embeddings=False, attention_bias=True),
    "gemma4 26B-A4B-like: experts beside the dense MLP, default layer types": _v(
        "gemma4_text", "Gemma4ForCausalLM", **{k: v for k, v in G4.items() if k != "layer_types"},
        global_head_dim=32, enable_moe_block=True, num_experts=4, top_k_experts=2, moe_intermediate_size=24,
        attention_k_eq_v=True, num_global_key_value_heads=1),
    "gemma4 unified: full layers of global_head_dim 32": _v(
        "gemma4_unified_text", "Gemma4UnifiedForCausalLM", **G4U, global_head_dim=32),
    "gemma4 unified: 2 layers reuse keys and values, double-wide MLP there, inert PLE/expert keys": _v(
        "gemma4_unified_text", "Gemma4UnifiedForCausalLM", **G4U, global_head_dim=32, num_kv_shared_layers=2,
        use_double_wide_mlp=True, hidden_size_per_layer_input=8, enable_moe_block=True, num_experts=4),
    "gemma4 unified model: values from keys, 1 global key/value head, untied, biases, default layer types": _v(
        "gemma4_unified_text", "Gemma4UnifiedTextModel", **{k: v for k, v in G4U.items() if k != "layer_types"},
        global_head_dim=24, attention_k_eq_v=True, num_global_key_value_heads=1, tie_word_embeddings=False,
        attention_bias=True),
    "gemma4 unified, per_layer_config as transformers writes it": _v(
        "gemma4_unified_text", "Gemma4UnifiedForCausalLM", **(G4U | {"num_hidden_layers": 5, "layer_types":
                                                                   ["sliding_attention", "full_attention"] * 2
                                                                   + ["sliding_attention"]}),
        per_layer_config={"1": {"head_dim": 24, "num_key_value_heads": 1}, "3": {"head_dim": 24, "num_key_value_heads": 1},
                          "4": {"head_dim": 24, "num_key_value_heads": 1}},
        attention_k_eq_v=True, num_kv_shared_layers=2, use_double_wide_mlp=True),
    "gemma4 model, every option, per_layer_config as transformers writes it": _v(
        "gemma4_text", "Gemma4TextModel", **(G4 | {"hidden_size_per_layer_input": 8, "num_hidden_layers": 5,
                                                 "layer_types": ["sliding_attention", "full_attention"] * 2
                                                 + ["sliding_attention"]}),
        per_layer_config={"1": {"head_dim": 24, "num_key_value_heads": 1}, "3": {"head_dim": 24, "num_key_value_heads": 1},
                          "4": {"head_dim": 24, "num_key_value_heads": 1}},
        attention_k_eq_v=True, num_kv_shared_layers=2, use_double_wide_mlp=True, enable_moe_block=True, num_experts=3,
        top_k_experts=1, moe_intermediate_size=20),
    "jetmoe (mixture of attention heads and experts)": _v(
        "jetmoe", "JetMoeForCausalLM", hidden_size=64, num_hidden_layers=3, num_key_value_heads=2, kv_channels=12,
        intermediate_size=40, num_local_experts=4, num_experts_per_tok=2, vocab_size=128, max_position_embeddings=64,
        pad_token_id=0, bos_token_id=0, eos_token_id=0),
    "jetmoe model, top-1, untied": _v(
        "jetmoe", "JetMoeModel", hidden_size=48, num_hidden_layers=2, num_key_value_heads=4, kv_channels=8,
        intermediate_size=24, num_local_experts=3, num_experts_per_tok=1, vocab_size=90, max_position_embeddings=32,
        tie_word_embeddings=False, pad_token_id=0, bos_token_id=0, eos_token_id=0),
    "jetmoe untied, three of three": _v(
        "jetmoe", "JetMoeForCausalLM", hidden_size=40, num_hidden_layers=2, num_key_value_heads=1, kv_channels=16,
        intermediate_size=20, num_local_experts=3, num_experts_per_tok=3, vocab_size=70, max_position_embeddings=32,
        tie_word_embeddings=False, pad_token_id=0, bos_token_id=0, eos_token_id=0),
    "gemma3n E2B-like: AltUp of 3 streams, LAuReL, per-layer embeddings, sizes per layer, 3 layers reuse keys": _v(
        "gemma3n_text", "Gemma3nForCausalLM", **(S | {"num_hidden_layers": 12,
                                                     "intermediate_size": [96, 80, 96, 64] + [96] * 8}),
        head_dim=16, sliding_window=8, vocab_size_per_layer_input=100, hidden_size_per_layer_input=8,
        num_kv_shared_layers=3, laurel_rank=5, altup_num_inputs=3),
    "gemma3n model, one stream, biases, untied, no sharing": _v(
        "gemma3n_text", "Gemma3nTextModel", **(S | {"num_hidden_layers": 4, "intermediate_size": 40}), head_dim=16,
        sliding_window=8, vocab_size_per_layer_input=100, hidden_size_per_layer_input=8, num_kv_shared_layers=0,
        laurel_rank=5, altup_num_inputs=1, attention_bias=True, tie_word_embeddings=False),
    "gemma3n listed layer types, untied": _v(
        "gemma3n_text", "Gemma3nForCausalLM", **(S | {"num_hidden_layers": 5, "intermediate_size": 48}), head_dim=16,
        sliding_window=8, vocab_size_per_layer_input=100, hidden_size_per_layer_input=8, num_kv_shared_layers=2,
        laurel_rank=5, altup_num_inputs=3, tie_word_embeddings=False,
        layer_types=["full_attention", "sliding_attention"] * 2 + ["full_attention"]),
    "deepseek-v3.2 (latent attention, lightning indexer, experts)": _v(
        "deepseek_v32", "DeepseekV32ForCausalLM", **(S | {"num_key_value_heads": 4}), **MOE, kv_lora_rank=24,
        q_lora_rank=16, qk_nope_head_dim=12, qk_rope_head_dim=8, v_head_dim=10, index_n_heads=3, index_head_dim=16,
        index_topk=4, first_k_dense_replace=1, n_shared_experts=1),
    "deepseek-v3.2 model, biases, mlp_layer_types, two shared, indexer defaults": _v(
        "deepseek_v32", "DeepseekV32Model", **(S | {"num_key_value_heads": 4}), **MOE, kv_lora_rank=20,
        q_lora_rank=12, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=16, attention_bias=True,
        mlp_layer_types=["sparse", "dense", "sparse"], n_shared_experts=2),
    "deepseek-v3.2 no shared expert, tied, top-1": _v(
        "deepseek_v32", "DeepseekV32ForCausalLM", **(S | {"num_key_value_heads": 4}), **(MOE | {"n_routed_experts": 3,
        "num_experts_per_tok": 1}), kv_lora_rank=16, q_lora_rank=8, qk_nope_head_dim=8, qk_rope_head_dim=8,
        v_head_dim=8, index_n_heads=2, index_head_dim=8, n_shared_experts=0, tie_word_embeddings=True),
    "glm-moe-dsa indexer_types, mlp_layer_types": _v(
        "glm_moe_dsa", "GlmMoeDsaForCausalLM", **(S | {"num_hidden_layers": 4, "num_key_value_heads": 4}), **MOE,
        kv_lora_rank=24, q_lora_rank=16, qk_nope_head_dim=12, qk_rope_head_dim=8, v_head_dim=10, index_n_heads=3,
        index_head_dim=16, indexer_types=["full", "shared", "full", "shared"],
        mlp_layer_types=["dense", "sparse", "sparse", "dense"]),
    "glm-moe-dsa model, index_topk_freq and offset, biases": _v(
        "glm_moe_dsa", "GlmMoeDsaModel", **(S | {"num_hidden_layers": 5, "num_key_value_heads": 4}), **MOE,
        kv_lora_rank=20, q_lora_rank=12, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=16, index_n_heads=2,
        index_head_dim=8, index_topk_freq=2, index_skip_topk_offset=1, attention_bias=True, first_k_dense_replace=1,
        n_shared_experts=2),
    "glm-moe-dsa index_topk_pattern, default dense prefix, tied": _v(
        "glm_moe_dsa", "GlmMoeDsaForCausalLM", **(S | {"num_hidden_layers": 4, "num_key_value_heads": 4}), **MOE,
        kv_lora_rank=16, q_lora_rank=8, qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8,
        index_head_dim=8, index_topk_pattern="FSSF", tie_word_embeddings=True),
    "youtu (latent attention, Llama MLP)": _v(
        "youtu", "YoutuForCausalLM", **(S | {"num_key_value_heads": 4}), kv_lora_rank=24, q_lora_rank=16,
        qk_nope_head_dim=12, qk_rope_head_dim=8, v_head_dim=10),
    "youtu model, direct queries, biases": _v(
        "youtu", "YoutuModel", **(S | {"num_key_value_heads": 4}), kv_lora_rank=24, q_lora_rank=None,
        qk_nope_head_dim=12, qk_rope_head_dim=8, v_head_dim=10, attention_bias=True),
    "youtu untied": _v(
        "youtu", "YoutuForCausalLM", **(S | {"num_key_value_heads": 4}), kv_lora_rank=16, q_lora_rank=8,
        qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=16, tie_word_embeddings=False),
    "solar-open (experts in every layer, q/k/v biases)": _v(
        "solar_open", "SolarOpenForCausalLM", **S, **MOE, head_dim=12, attention_bias=True),
    "solar-open model, default head_dim, two shared": _v(
        "solar_open", "SolarOpenModel", **S, **MOE, n_shared_experts=2),
    "solar-open no shared expert, tied": _v(
        "solar_open", "SolarOpenForCausalLM", **S, **(MOE | {"num_experts_per_tok": 1}), head_dim=16,
        n_shared_experts=0, tie_word_embeddings=True),
    "jais2 (LayerNorm, ReLU², biases)": _v("jais2", "Jais2ForCausalLM", **S),
    "jais2 model, no biases, tied, head_dim": _v("jais2", "Jais2Model", **S, attention_bias=False, mlp_bias=False,
                                                 tie_word_embeddings=True, head_dim=20),
    "jais2 gelu": _v("jais2", "Jais2ForCausalLM", **S, hidden_act="gelu", mlp_bias=False),
    "granite-swa (sinks, default windows: every fourth layer full)": _v(
        "granite_swa", "GraniteSWAForCausalLM", **(S | {"num_hidden_layers": 5}), sliding_window=4),
    "granite-swa model, layer_types, NoPE layers, biases, untied": _v(
        "granite_swa", "GraniteSWAModel", **S, layer_types=WINDOWS[::-1], attention_bias=True, mlp_bias=True,
        tie_word_embeddings=False, layer_rope_theta=[0, 10000, 0]),
    "granitemoe-swa (sinks, windows, experts, shared MLP)": _v(
        "granitemoe_swa", "GraniteMoeSWAForCausalLM", **S, num_local_experts=4, num_experts_per_tok=2,
        shared_intermediate_size=32),
    "granitemoe-swa model, no shared MLP, tied": _v(
        "granitemoe_swa", "GraniteMoeSWAModel", **S, num_local_experts=3, num_experts_per_tok=1, sliding_window=4,
        tie_word_embeddings=True),
    "hyperclovax (Peri-LN post-norms, multipliers, head_dim)": _v(
        "hyperclovax", "HyperCLOVAXForCausalLM", **S, head_dim=20, attention_multiplier=0.1, residual_multiplier=0.5,
        embedding_multiplier=2.0, logits_scaling=0.5),
    "hyperclovax model, no post-norms, biases": _v(
        "hyperclovax", "HyperCLOVAXModel", **S, use_post_norm=False, attention_bias=True, mlp_bias=True),
    "nanochat (gainless norms, ReLU² up/down)": _v("nanochat", "NanoChatForCausalLM", **S),
    "nanochat model, biases, head_dim, gelu, softcap": _v(
        "nanochat", "NanoChatModel", **S, attention_bias=True, head_dim=20, hidden_act="gelu",
        final_logit_softcapping=30.0),
    "nanochat tied": _v("nanochat", "NanoChatForCausalLM", **S, tie_word_embeddings=True),
    "mellum (experts every layer)": _v(
        "mellum", "MellumForCausalLM", **S, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24),
    "mellum model, dense and sliding layers, biases, MTP key": _v(
        "mellum", "MellumModel", **S, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24, head_dim=12,
        mlp_layer_types=["dense", "sparse", "sparse"], layer_types=WINDOWS, sliding_window=4, attention_bias=True,
        num_mtp_layers=1),
    "bitnet (sub-norms before o and down, ReLU² gated)": _v("bitnet", "BitNetForCausalLM", **S),
    "bitnet model, biases, default 5 key/value heads, silu": _v(
        "bitnet", "BitNetModel", **{k: v for k, v in S.items() if k != "num_key_value_heads"}
        | {"hidden_size": 80, "num_attention_heads": 5}, attention_bias=True, hidden_act="silu"),
    "bitnet tied": _v("bitnet", "BitNetForCausalLM", **S, tie_word_embeddings=True),
    "diffllama (differential attention)": _v("diffllama", "DiffLlamaForCausalLM", **S),
    "diffllama model, 4 key/value heads, head_dim, biases": _v(
        "diffllama", "DiffLlamaModel", **(S | {"num_key_value_heads": 4}), head_dim=12, attention_bias=True),
    "diffllama tied, gelu": _v("diffllama", "DiffLlamaForCausalLM", **S, tie_word_embeddings=True, hidden_act="gelu"),
    "biogpt (pre-LN, biases, learned positions + 2, tied)": _v(
        "biogpt", "BioGptForCausalLM", hidden_size=64, intermediate_size=96, num_hidden_layers=3,
        num_attention_heads=4, vocab_size=128, max_position_embeddings=64),
    "biogpt model, relu, no embedding scale": _v(
        "biogpt", "BioGptModel", hidden_size=48, intermediate_size=80, num_hidden_layers=2, num_attention_heads=6,
        vocab_size=90, max_position_embeddings=40, hidden_act="relu", scale_embedding=False),
    "biogpt untied": _v(
        "biogpt", "BioGptForCausalLM", hidden_size=64, intermediate_size=96, num_hidden_layers=3,
        num_attention_heads=4, vocab_size=128, max_position_embeddings=64, tie_word_embeddings=False),
    "afmoe (gated attention, sandwich norms, dense first layer, default windows)": _v(
        "afmoe", "AfmoeForCausalLM", **(S | {"num_hidden_layers": 5}), head_dim=16, num_experts=4,
        num_experts_per_tok=2, moe_intermediate_size=24, num_shared_experts=1, sliding_window=4),
    "afmoe model, layer_types, no shared or dense layers, muP": _v(
        "afmoe", "AfmoeModel", **S, num_experts=3, num_experts_per_tok=1, moe_intermediate_size=24,
        num_shared_experts=0, num_dense_layers=0, layer_types=WINDOWS, mup_enabled=True),
    "afmoe two dense layers, tied": _v(
        "afmoe", "AfmoeForCausalLM", **S, head_dim=12, num_experts=4, num_experts_per_tok=2,
        moe_intermediate_size=20, num_dense_layers=2, tie_word_embeddings=True),
    "mimo-v2-flash (V ≠ Q, default layer kinds: sliding layers with 2× kv heads and sinks)": _v(
        "mimo_v2_flash", "MiMoV2FlashForCausalLM", **(S | {"num_hidden_layers": 7}), head_dim=16, v_head_dim=12,
        **MOE, sliding_window=4),
    "mimo-v2-flash model, layer kinds listed, biases, sliding_window_size": _v(
        "mimo_v2_flash", "MiMoV2FlashModel", **(S | {"num_key_value_heads": 1}), head_dim=12, v_head_dim=20, **MOE,
        layer_types=WINDOWS, mlp_layer_types=["sparse", "dense", "sparse"], attention_bias=True,
        sliding_window_size=3),
    "mimo-v2-flash tied, top-1": _v(
        "mimo_v2_flash", "MiMoV2FlashForCausalLM", **S, head_dim=8, v_head_dim=8, **(MOE | {"num_experts_per_tok": 1}),
        tie_word_embeddings=True),
    "laguna (softplus gate per head, sigmoid-routed experts beside a shared one, first layer dense)": _v(
        "laguna", "LagunaForCausalLM", **LAGUNA),
    "laguna model, gate per channel, heads per layer, windows": _v(
        "laguna", "LagunaModel", **LAGUNA, gating="per-element", num_attention_heads_per_layer=[4, 2, 6],
        sliding_window=4, layer_types=["full_attention", "sliding_attention", "sliding_attention"]),
    "laguna biases, dense middle layer, no shared expert, tied": _v(
        "laguna", "LagunaForCausalLM", **(LAGUNA | {"shared_expert_intermediate_size": 0}), attention_bias=True,
        mlp_layer_types=["sparse", "dense", "sparse"], tie_word_embeddings=True),
    "longcat-flash (two sub-layers a layer, shortcut experts, zero experts)": _v(
        "longcat_flash", "LongcatFlashForCausalLM", **LONGCAT, num_layers=2),
    "longcat-flash model, biases, no zero experts, num_hidden_layers": _v(
        "longcat_flash", "LongcatFlashModel", **(LONGCAT | {"zero_expert_num": 0}), num_hidden_layers=6,
        attention_bias=True),
    "longcat-flash tied, gelu, top-4 of 4 with 5 zero experts, aliases": _v(
        "longcat_flash", "LongcatFlashForCausalLM", **{k: v for k, v in LONGCAT.items() if k not in (
            "ffn_hidden_size", "moe_topk", "n_routed_experts", "zero_expert_num")}, intermediate_size=80, num_experts_per_tok=4,
        num_local_experts=4, zero_expert_num=5, num_layers=1, tie_word_embeddings=True, hidden_act="gelu"),
    "deepseek-v4 (sliding, compressed sparse and heavily compressed layers; indexer, streams)": _v(
        "deepseek_v4", "DeepseekV4ForCausalLM", **V4,
        layer_types=["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"]),
    "deepseek-v4 model, default layer kinds, hash layers listed, rates 3 and 4": _v(
        "deepseek_v4", "DeepseekV4Model", **(V4 | {"num_hidden_layers": 5, "hc_mult": 2, "o_groups": 4,
                                                  "num_experts_per_tok": 1,
                                                  "compress_rates": {"compressed_sparse_attention": 3,
                                                                     "heavily_compressed_attention": 4}}),
        mlp_layer_types=["hash_moe", "moe", "hash_moe", "moe", "moe"]),
    "deepseek-v4 legacy compress_ratios and compress_rate_csa (heavily compressed 128: no entry), tied": _v(
        "deepseek_v4", "DeepseekV4ForCausalLM", **({k: v for k, v in V4.items() if k != "compress_rates"}
                                                  | {"num_hidden_layers": 4, "head_dim": 12, "hc_mult": 1}),
        compress_ratios=[4, 128, 0, 4], compress_rate_csa=5, tie_word_embeddings=True, num_hash_layers=1),
    "deepseek-v4 compress_rates naming one kind, the other by compress_rate_hca": _v(
        "deepseek_v4", "DeepseekV4ForCausalLM", **(V4 | {"compress_rates": {"compressed_sparse_attention": 3}}),
        compress_rate_hca=5,
        layer_types=["heavily_compressed_attention", "compressed_sparse_attention", "sliding_attention"]),
    "hy3 (QK-norm GQA, first layer dense, experts + one shared)": _v(
        "hy_v3", "HYV3ForCausalLM", **HY3),
    "hy3 model, biases, listed layer kinds, two shared": _v(
        "hy_v3", "HYV3Model", **HY3, attention_bias=True, mlp_layer_types=["sparse", "dense", "sparse"],
        num_shared_experts=2),
    "hy3 no shared expert (an MLP of intermediate_size instead), tied, head_dim 12": _v(
        "hy_v3", "HYV3ForCausalLM", **(HY3 | {"head_dim": 12}), num_shared_experts=0, tie_word_embeddings=True),
    "hy3 published file's remote-code keys (first_k_dense_replace, qk_norm, expert_hidden_dim…: inert)": _v(
        "hy_v3", "HYV3ForCausalLM", **HY3, first_k_dense_replace=2, qk_norm=True, expert_hidden_dim=40,
        route_norm=True, moe_router_use_sigmoid=True, moe_router_enable_expert_bias=True, num_nextn_predict_layers=1,
        use_grouped_mm=True, enable_attention_fp32_softmax=True, enable_lm_head_fp32=True),
    "hy3 all dense, MLP biases, null experts": _v(
        "hy_v3", "HYV3ForCausalLM", **(HY3 | {"num_experts": None}), mlp_layer_types=["dense"] * 3, mlp_bias=True),
}
