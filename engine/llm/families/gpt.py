"""GPT's lineage: OpenAI GPT, GPT-2, GPT-J, GPT-Neo, GPT-NeoX, CodeGen, GPT-BigCode, StarCoder2, BioGPT, XGLM, OPT,
BLOOM, MPT,
Persimmon and Nemotron — learned or rotary positions, LayerNorm, plain (ungated) feed-forwards, fused or
parallel layouts.
"""
from __future__ import annotations

from .keys import Keys, check_unknown
from .parts import (
    decoder_fields,
    learned_position_rows,
    full_layers_at,
    sliding_windows,
)
from .registry import lm_classes, register


@register("gptj", lm_classes("GPTJ"))
def _gptj(c: Keys) -> dict:
    # GPTJBlock: one ln_1 feeds attention and MLP in parallel; q/k/v/out have no bias; lm_head has one
    fields = {"layers": c.size("layers", "n_layer"), "d_model": c.size("d_model", "n_embd"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "n_positions", required=False),
              "block": {"heads": c.size("block.heads", "n_head"),
                        "ff_size": c.size("block.ff_size", "n_inner", required=False),
                        "activation": c.activation("activation_function", default="gelu_new"),
                        "parallel": True, "shared_norm": True, "qkv_bias": False, "out_bias": False}}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "head_bias": True}


@register("gpt2", {"GPT2LMHeadModel": "lm", "GPT2Model": "none"})
def _gpt2(c: Keys) -> dict:
    c.require("add_cross_attention", lambda v: not v, "cross-attention needs the encoder's length")
    c.neutral("n_ctx", "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
              "summary_first_dropout", "scale_attn_weights", "scale_attn_by_inverse_layer_idx",
              "reorder_and_upcast_attn")
    fields = {"layers": c.size("layers", "n_layer"), "d_model": c.size("d_model", "n_embd"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "n_positions", required=False),
              "block": {"heads": c.size("block.heads", "n_head"),
                        "ff_size": c.size("block.ff_size", "n_inner", required=False),
                        "activation": c.activation("activation_function", default="gelu_new")}}
    return fields | {"learned_positions": learned_position_rows(c, fields, "n_positions"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("gpt_neox", lm_classes("GPTNeoX"))
def _gpt_neox(c: Keys) -> dict:
    bias = c.flag("attention_bias", True)
    fields = decoder_fields(c, gqa=False, parallel=c.flag("use_parallel_residual", True), qkv_bias=bias, out_bias=bias,
                      activation=c.activation("hidden_act", default="gelu"))
    c.neutral("is_decoder")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("opt", lm_classes("OPT"))
def _opt(c: Keys) -> dict:
    c.require("_remove_final_layer_norm", lambda v: not v, "no final norm")
    c.require("layer_norm_elementwise_affine", lambda v: v is True, "norms without γ and β")
    bias = c.flag("enable_bias", True)
    fields = decoder_fields(c, ff_key="ffn_dim", gqa=False, qkv_bias=bias, out_bias=bias, ff_bias=bias,
                      norm_position="pre" if c.flag("do_layer_norm_before", True) else "post",
                      activation=c.activation("activation_function", default="relu"))
    # word_embed_proj_dim E ≠ d (OPT-350m): an E-wide token table, project_in E→d and project_out d→E
    width = c.size("embedding_size", "word_embed_proj_dim", required=False)
    # OPTLearnedPositionalEmbedding keeps 2 extra rows (its offset)
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings", 2),
                     "embedding_size": None if width == fields["d_model"] else width,
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("gpt_bigcode", lm_classes("GPTBigCode"))
def _gpt_bigcode(c: Keys) -> dict:
    """gpt_bigcode (StarCoder, SantaCoder): GPT-2's layout (learned positions, LayerNorm, biases) with
    multi-query attention (``multi_query``, default true)."""
    c.require("add_cross_attention", lambda v: not v, "cross-attention needs the encoder's length")
    c.neutral("n_ctx", "scale_attn_weights", "attention_softmax_in_fp32", "scale_attention_softmax_in_fp32",
              "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
              "summary_first_dropout", "inference_runner", "max_batch_size", "max_sequence_length",
              "pad_key_length", "pre_allocate_kv_cache", "validate_runner_input")
    fields = {"layers": c.size("layers", "n_layer"), "d_model": c.size("d_model", "n_embd"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "n_positions", required=False),
              "block": {"heads": c.size("block.heads", "n_head"),
                        "kv_heads": 1 if c.flag("multi_query", True) else None,
                        "ff_size": c.size("block.ff_size", "n_inner", required=False),
                        "activation": c.activation("activation_function", default="gelu_pytorch_tanh")}}
    return fields | {"learned_positions": learned_position_rows(c, fields, "n_positions"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("starcoder2", lm_classes("Starcoder2"))
def _starcoder2(c: Keys) -> dict:
    """starcoder2: LayerNorm, biased linears (``use_bias``), a plain GELU MLP, grouped-query attention."""
    # mlp_type, norm_type: transformers' Starcoder2 has one MLP and LayerNorm and reads neither (inert)
    bias = c.flag("use_bias", True)
    fields = decoder_fields(c, activation=c.activation("hidden_act", default="gelu_pytorch_tanh"), qkv_bias=bias,
                      out_bias=bias, ff_bias=bias)
    return sliding_windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("bloom", lm_classes("Bloom"))
def _bloom(c: Keys) -> dict:
    """bloom: ALiBi (no position table), a LayerNorm on the embeddings, fused q/k/v and every linear
    biased, a 4·d GELU MLP."""
    c.neutral("apply_residual_connection_post_layernorm", "attention_softmax_in_fp32", "bias_dropout_fusion",
              "masked_softmax_fusion", "offset_alibi", "skip_bias_add", "skip_bias_add_qkv", "slow_but_exact",
              "seq_length")
    fields = {"layers": c.size("layers", "n_layer", "num_hidden_layers"),
              "d_model": c.size("d_model", "hidden_size", "n_embed"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "block": {"heads": c.size("block.heads", "n_head", "num_attention_heads")},
              "embedding_norm": True}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("mpt", lm_classes("Mpt"), class_aliases={"MPTForCausalLM": "MptForCausalLM"})
def _mpt(c: Keys) -> dict:
    """mpt: ALiBi, LayerNorm without β, fused q/k/v, ``expansion_ratio``·d GELU MLP, no biases
    (``no_bias``); transformers' MptModel builds no position table (``learned_pos_emb`` unused)."""
    attn = c.get("attn_config", {})
    if not isinstance(attn, dict):
        raise c.error("attn_config", "expected an object")
    sub = Keys(attn, f"{c.source}.attn_config", c.lenient)
    # alibi, qk_ln, attn_type, prefix_lm: transformers' MPT always builds ALiBi multi-head attention without
    # QK norms and reads none of them (inert, listed as not used)
    sub.neutral("alibi_bias_max", "attn_impl", "attn_pdrop", "attn_uses_sequence_id", "clip_qkv", "softmax_scale")
    ignored, unused = check_unknown(sub, attn, (), c.lenient, "mpt")
    c.ignored += [f"attn_config.{k}" for k in ignored]
    c.unused += [f"attn_config.{k}" for k in unused]
    # norm_type, no_bias, expansion_ratio: transformers' MPT builds LayerNorm, bias-free linears and a 4·d MLP
    # whatever they say and reads none of them (inert)
    c.neutral("learned_pos_emb", "logit_scale", "embedding_fraction", "init_device", "init_config",
              "tokenizer_name", "verbose")
    d = c.size("d_model", "d_model")
    ratio = 4
    fields = {"layers": c.size("layers", "n_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_seq_len", required=False),
              "block": {"heads": c.size("block.heads", "n_heads"), "ff_size": ratio * d, "qkv_bias": False,
                        "out_bias": False, "ff_bias": False, "norm_bias": False}}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _head_dim_unused(fields: dict) -> dict:
    """Families whose attention is always d/H wide (``head_dim`` sets only the rotary width there)."""
    fields["block"].pop("head_size", None)
    return fields


@register("gpt_neo", lm_classes("GPTNeo"))
def _gpt_neo(c: Keys) -> dict:
    """gpt_neo: GPT-2's layout (learned positions, LayerNorm, biased MLP) with q/k/v without biases and a
    biased output; ``attention_types`` alternates global and local (``window_size``) layers."""
    fields = {"layers": c.size("layers", "num_layers"), "d_model": c.size("d_model", "hidden_size"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": c.size("block.heads", "num_heads"),
                        "ff_size": c.size("block.ff_size", "intermediate_size", required=False),
                        "activation": c.activation("activation_function", default="gelu_new"),
                        "qkv_bias": False}}
    c.neutral("attention_layers", "embed_dropout", "resid_dropout")  # attention_layers: from attention_types
    types = c.get("attention_types", [[["global", "local"], fields["layers"] // 2 if isinstance(fields["layers"], int)
                                       else 1]])
    kinds = []
    try:
        for pattern, repeat in types:
            kinds += list(pattern) * int(repeat)
    except (TypeError, ValueError):
        raise c.error("attention_types", "expected [[[\"global\", \"local\"], n], …]") from None
    if isinstance(fields["layers"], int) and (len(kinds) != fields["layers"] or set(kinds) - {"global", "local"}):
        raise c.error("attention_types", f"expected {fields['layers']} layers of 'global' or 'local' in all")
    window = c.size("block.attention_window", "window_size", required=False, default=256)
    full = [i for i, kind in enumerate(kinds) if kind == "global"]
    if len(full) < len(kinds):
        fields = full_layers_at(fields, window, full)
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("xglm", lm_classes("XGLM"))
def _xglm(c: Keys) -> dict:
    """xglm (XGLM): pre-norm blocks with LayerNorms (γ, β), biased q/k/v/out and fc1/fc2 (``ffn_dim``,
    ``activation_function``), a final LayerNorm; sinusoidal positions (a buffer: no parameters) and an
    embedding scale (``scale_embedding``: no weight); a tied head by default. Cross-attention
    (``add_cross_attention``) is refused: it needs the encoder's length."""
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.neutral("scale_embedding", "is_encoder_decoder")  # is_encoder_decoder: the cache's kind only
    fields = {"layers": c.size("layers", "num_layers"), "d_model": c.size("d_model", "d_model"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": c.size("block.heads", "attention_heads"),
                        "ff_size": c.size("block.ff_size", "ffn_dim"),
                        "activation": c.activation("activation_function", default="gelu")}}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("biogpt", lm_classes("BioGpt"))
def _biogpt(c: Keys) -> dict:
    """biogpt (BioGPT): pre-norm blocks with LayerNorms (γ, β), biased q/k/v/out and fc1/fc2 (``hidden_act``), a final
    LayerNorm; a learned position table of ``max_position_embeddings`` + 2 rows (its offset) and an embedding scale
    (``scale_embedding``: no weight); a tied head by default."""
    c.neutral("scale_embedding")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"))
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings", 2),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("codegen", lm_classes("CodeGen"))
def _codegen(c: Keys) -> dict:
    """codegen: GPT-J's block (one norm, parallel attention and MLP, fused q/k/v and output without
    biases, a biased MLP) and an LM head with a bias."""
    c.neutral("n_ctx")
    return _gptj(c)


@register("stablelm", lm_classes("StableLm"))
def _stablelm(c: Keys) -> dict:
    """stablelm: LayerNorm (γ, β), SwiGLU without biases, q/k/v biases (``use_qkv_bias``), a LayerNorm of
    its own per head on queries and keys (``qk_layernorm``), optionally parallel (one norm)."""
    parallel = c.flag("use_parallel_residual", False)
    fields = decoder_fields(c, norm="layernorm", gated=True, activation=c.activation("hidden_act", default="silu"),
                      qkv_bias=c.flag("use_qkv_bias", False), out_bias=False, ff_bias=False, parallel=parallel,
                      shared_norm=parallel, qk_norm="each_head" if c.flag("qk_layernorm", False) else "none")
    return _head_dim_unused(fields) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("openai-gpt", {"OpenAIGPTLMHeadModel": "lm", "OpenAIGPTModel": "none"})
def _openai_gpt(c: Keys) -> dict:
    """openai-gpt (GPT-1): learned positions (``n_positions`` rows), post-norm blocks (LayerNorm after each
    residual add, none at the end), biased fused q/k/v, output and a 4·d MLP (``afn``), a tied LM head."""
    c.neutral("summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
              "summary_first_dropout", "predict_special_tokens", "n_special", "n_ctx")
    fields = {"layers": c.size("layers", "n_layer"), "d_model": c.size("d_model", "n_embd"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "n_positions", required=False),
              "block": {"heads": c.size("block.heads", "n_head"), "activation": c.activation("afn", default="gelu"),
                        "norm_position": "post"}}
    return fields | {"learned_positions": learned_position_rows(c, fields, "n_positions"), "final_norm": False,
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("nemotron", lm_classes("Nemotron"))
def _nemotron(c: Keys) -> dict:
    """nemotron (Nemotron-4, Minitron): LayerNorm with γ and β (γ stored as 1 + w), ``attention_bias`` on
    q/k/v/o, a plain up/down feed-forward with ReLU² and ``mlp_bias``."""
    c.neutral("norm_eps")
    if c.data.get("num_key_value_heads") is None:
        raise c.error("num_key_value_heads", "missing (transformers' NemotronAttention needs it written out)")
    bias = c.flag("attention_bias", False)
    fields = decoder_fields(c, norm="layernorm", gated=False, activation=c.activation("hidden_act", default="relu2"),
                      qkv_bias=bias, out_bias=bias, ff_bias=c.flag("mlp_bias", False))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("persimmon", lm_classes("Persimmon"))
def _persimmon(c: Keys) -> dict:
    """persimmon: LayerNorm, fused q/k/v and output with biases, a LayerNorm of d/H (γ, β) on queries and
    keys (``qk_layernorm``), a biased up/down feed-forward with ReLU²; attention d/H wide."""
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="relu2"),
                      qk_norm="head" if c.flag("qk_layernorm", True) else "none")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
