"""Each language-model family's ``config.json`` keys → ``TransformerConfig`` fields.

A reader per ``model_type``, written from the family's ``transformers`` modelling code (the class the
config's ``architectures`` names, head included): which keys set sizes, and what the code fixes (norm
kind, biases, gating, parallel layout, position table, extra norms, experts). Every key of the file is
accounted for: read, known not to change parameters or FLOP (``NEUTRAL_KEYS`` and the family's own), read
by nothing transformers builds for the family (``config_keys.json``: listed in ``unused_keys``), or refused by
name (``lenient``: listed in ``ignored_keys`` instead). A missing size key is an error, never
a default guessed from another family.
"""
from __future__ import annotations

import functools
from pathlib import Path

from engine.errors import InputError, json_type, quoted
from engine.shipped import read_shipped_json
from engine.llm.decoder_families import DECODER_FAMILIES, shared_class_families
from engine.llm.encoder_families import ENCODER_FAMILIES
from engine.llm.state_space_families import STATE_SPACE_FAMILIES
from engine.llm.seq2seq_families import SEQ2SEQ_FAMILIES, _bart, _t5
from engine.llm.family_parts import (  # noqa: F401 (KEYS_FILE, NEUTRAL_KEYS, MAX_LAYERS: re-exported)
    _resolve_aliases,
    KEYS_FILE,
    MAX_LAYERS,
    NEUTRAL_KEYS,
    Family,
    Keys,
    _bert,
    _decoder,
    _experts,
    _gemma_common,
    _gptj,
    _latent_attention,
    _learned_positions,
    _lm,
    _no_sliding,
    _rms_swiglu,
    _shared_experts,
    _sparse_layers,
    _windows,
    modelling_keys,
    transformers_model_types,
)

# ---------------------------------------------------------------- decoder-only families

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
    return fields | {"learned_positions": _learned_positions(c, fields, "n_positions"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _gpt_neox(c: Keys) -> dict:
    bias = c.flag("attention_bias", True)
    fields = _decoder(c, gqa=False, parallel=c.flag("use_parallel_residual", True), qkv_bias=bias, out_bias=bias,
                      activation=c.activation("hidden_act", default="gelu"))
    c.neutral("is_decoder")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _opt(c: Keys) -> dict:
    c.require("_remove_final_layer_norm", lambda v: not v, "no final norm")
    c.require("layer_norm_elementwise_affine", lambda v: v is True, "norms without γ and β")
    bias = c.flag("enable_bias", True)
    fields = _decoder(c, ff_key="ffn_dim", gqa=False, qkv_bias=bias, out_bias=bias, ff_bias=bias,
                      norm_position="pre" if c.flag("do_layer_norm_before", True) else "post",
                      activation=c.activation("activation_function", default="relu"))
    # word_embed_proj_dim E ≠ d (OPT-350m): an E-wide token table, project_in E→d and project_out d→E
    width = c.size("embedding_size", "word_embed_proj_dim", required=False)
    # OPTLearnedPositionalEmbedding keeps 2 extra rows (its offset)
    return fields | {"learned_positions": _learned_positions(c, fields, "max_position_embeddings", 2),
                     "embedding_size": None if width == fields["d_model"] else width,
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _llama(c: Keys) -> dict:
    """llama: RMSNorm, SwiGLU, rotary; ``attention_bias`` on q/k/v/o, ``mlp_bias`` on the feed-forward."""
    fields = _decoder(c, **_rms_swiglu(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _mistral(c: Keys) -> dict:
    """mistral: ``sliding_window`` W (null: full attention) on every layer."""
    fields = _decoder(c, **_rms_swiglu(c))
    return _windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _mixtral(c: Keys) -> dict:
    fields = _mistral(c)
    _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    return fields


def _qwen2(c: Keys) -> dict:
    """qwen2: q/k/v biases only (Qwen2Attention)."""
    _no_sliding(c)
    fields = _decoder(c, **_rms_swiglu(c, qkv_bias=True))
    fields["block"] |= {"qkv_bias": True, "out_bias": False}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _qwen2_moe(c: Keys) -> dict:
    """qwen2_moe: E routed experts of ``moe_intermediate_size``, a shared expert of
    ``shared_expert_intermediate_size`` behind a sigmoid gate; q/k/v biases (``qkv_bias``)."""
    _no_sliding(c)
    c.neutral("norm_topk_prob")
    c.given("shared_expert_intermediate_size")
    bias = c.flag("qkv_bias", True)
    fields = _decoder(c, **_rms_swiglu(c))
    fields["block"] |= {"qkv_bias": bias, "out_bias": False}
    dense_ff = _experts(c, fields, ("num_experts",))
    # transformers builds the shared expert and its gate whatever the size: 0 is refused by the field's check
    fields["block"] |= {"shared_ff_size": c.size("block.shared_ff_size", "shared_expert_intermediate_size"),
                        "shared_expert_gate": True}
    return _sparse_layers(c, fields, dense_ff) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _qwen3(c: Keys, head_dim_default: bool = False) -> dict:
    """qwen3: the Llama block with a per-head RMSNorm of queries and keys. Qwen3Config's head_dim defaults to
    128 (not d/H), so it must be given; Qwen3-MoE's attention takes d/H when it is absent
    (``getattr(config, "head_dim", hidden_size // num_attention_heads)``), as ``_decoder`` does."""
    _no_sliding(c)
    if not head_dim_default:
        c.given("head_dim")
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _qwen3_moe(c: Keys) -> dict:
    fields = _qwen3(c, head_dim_default=True)
    c.neutral("norm_topk_prob")
    dense_ff = _experts(c, fields, ("num_experts", "num_local_experts"))
    return _sparse_layers(c, fields, dense_ff)


def _bidirectional(c: Keys) -> None:
    """Gemma's ``use_bidirectional_attention`` (written by ``save_pretrained``): only false/null is causal."""
    c.require("use_bidirectional_attention", lambda v: v is False, "bidirectional attention is not modelled")


def _gemma(c: Keys) -> dict:
    _bidirectional(c)
    return _gemma_common(c, ("hidden_activation", "hidden_act"))


def _gemma2(c: Keys) -> dict:
    """gemma2: a norm on each sub-layer's output too; sliding windows on alternate layers."""
    c.neutral("hidden_act")
    _bidirectional(c)
    fields = _gemma_common(c, ("hidden_activation",), sandwich_norms=True)
    return _windows(c, fields, 2)


def _gemma3_text(c: Keys) -> dict:
    """gemma3_text: Gemma 2's block with a per-head RMSNorm of queries and keys; one full-attention layer
    in ``sliding_window_pattern`` (6)."""
    c.neutral("hidden_act", "_sliding_window_pattern")
    _bidirectional(c)
    fields = _gemma_common(c, ("hidden_activation",), sandwich_norms=True, qk_norm="head")
    period = c.size(None, "sliding_window_pattern", required=False, default=6)
    return _windows(c, fields, period)


def _phi3(c: Keys) -> dict:
    """phi3: the Llama block with fused qkv_proj and gate_up_proj (the same weights) and no biases."""
    fields = _decoder(c, **_rms_swiglu(c))
    return _windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _falcon(c: Keys) -> dict:
    """falcon: fused q/k/v, parallel attention and MLP (one input norm, or ln_attn and ln_mlp with
    ``new_decoder_architecture``); multi-query (7B) or ``num_kv_heads`` groups (40B, 180B); ``bias``
    on every linear; an MLP of ``ffn_hidden_size`` (default 4·d); ALiBi or rotary, neither with parameters."""
    new = c.flag("new_decoder_architecture", False)
    multi_query = c.flag("multi_query", True)
    parallel = c.flag("parallel_attn", True)
    bias = c.flag("bias", False)
    c.neutral("alibi", "apply_residual_connection_post_layernorm")
    heads = c.size("block.heads", "num_attention_heads", "n_head")
    kv = c.size("block.kv_heads", "num_kv_heads", "n_head_kv", required=False)
    # the fused q/k/v: num_kv_heads groups (new), one key/value head (multi-query) or H (otherwise: 3·d wide)
    if not new and not multi_query and kv not in (None, heads):
        raise c.error("num_kv_heads", "grouped key/value heads need new_decoder_architecture (transformers' "
                                      "older Falcon layout has H or, with multi_query, 1)")
    kv = (kv or heads) if new else 1 if multi_query else heads
    ln_count = c.size(None, "num_ln_in_parallel_attn", required=False, default=2 if new else 1)
    d = c.size("d_model", "hidden_size")
    fields = {"layers": c.size("layers", "num_hidden_layers", "n_layer"), "d_model": d,
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": heads, "kv_heads": kv, "ff_size": c.size("block.ff_size", "ffn_hidden_size",
                                                                          required=False, default=4 * d),
                        "activation": c.activation("activation", default="gelu"), "qkv_bias": bias,
                        "out_bias": bias, "ff_bias": bias, "parallel": parallel,
                        "shared_norm": parallel and ln_count != 2}}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _phi(c: Keys) -> dict:
    """phi (Phi-1.5, Phi-2): parallel attention and MLP after one LayerNorm, biased q/k/v/dense and fc1/fc2,
    a GELU MLP, an untied LM head with a bias; ``qk_layernorm``: a LayerNorm of d/H per head on q and k."""
    fields = _decoder(c, activation=c.activation("hidden_act", default="gelu_new"), parallel=True,
                      shared_norm=True, qk_norm="head" if c.flag("qk_layernorm", False) else "none")
    if fields["block"]["head_size"] is not None:
        raise c.error("head_dim", "not a key of transformers' Phi (the head size is d/H)")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "head_bias": True}


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
    return fields | {"learned_positions": _learned_positions(c, fields, "n_positions"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _olmo(c: Keys) -> dict:
    """olmo: LayerNorm without parameters (OlmoLayerNorm), SwiGLU; ``clip_qkv`` clamps values only."""
    c.neutral("clip_qkv")
    fields = _decoder(c, **_rms_swiglu(c, norm="layernorm", norm_affine=False, norm_bias=False))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _olmo2(c: Keys) -> dict:
    """olmo2: RMSNorm on each sub-layer's output (before the residual add), RMSNorm of the whole query and
    key projections."""
    fields = _decoder(c, **_rms_swiglu(c, norm_position="output", qk_norm="width"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


def _deepseek(c: Keys) -> dict:
    """deepseek_v2, deepseek_v3: multi-head latent attention; routed experts (``n_routed_experts``, k per
    token, ``moe_intermediate_size``) plus ``n_shared_experts`` shared ones; the first
    ``first_k_dense_replace`` layers dense (``intermediate_size``)."""
    # moe_layer_freq: transformers makes every layer after the first k sparse whatever it says (inert)
    if c.reads("mlp_bias"):  # DeepSeek-V2's MLPs take it; V3's do not
        c.require("mlp_bias", lambda v: v is False, "feed-forward biases are not modelled for DeepSeek")
    c.neutral("num_key_value_heads", "head_dim", "qk_head_dim", "topk_method", "n_group", "topk_group",
              "routed_scaling_factor", "scoring_func", "norm_topk_prob", "ep_size", "num_nextn_predict_layers")
    c.given("q_lora_rank", "first_k_dense_replace", "n_shared_experts")
    fields = _latent_attention(c, _decoder(c, **_rms_swiglu(c)))
    block = fields["block"]
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts", 0)
    first = c.size(None, "first_k_dense_replace", required=False, default=0)
    if first:
        dense = dict(block, experts=1, active_experts=1, ff_size=dense_ff, shared_ff_size=None)
        fields["first_layers"] = [{"layers": min(first, fields["layers"]), "block": dense}]
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _gpt_oss(c: Keys) -> dict:
    """gpt_oss: biased q/k/v/o, a learned sink per head, a biased router, E experts with biases
    (interleaved gate/up: the same weights as gate + up); sliding windows on alternate layers."""
    c.neutral("swiglu_limit", "swiglu_alpha", "initial_context_length", "experts_per_token")
    c.given("head_dim")
    fields = _decoder(c, **_rms_swiglu(c, attention_bias=True, attention_sinks=True))
    _experts(c, fields, ("num_local_experts", "num_experts"), ff_key="intermediate_size")
    fields["block"] |= {"ff_bias": True, "router_bias": True}
    return _windows(c, fields, 2) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _starcoder2(c: Keys) -> dict:
    """starcoder2: LayerNorm, biased linears (``use_bias``), a plain GELU MLP, grouped-query attention."""
    # mlp_type, norm_type: transformers' Starcoder2 has one MLP and LayerNorm and reads neither (inert)
    bias = c.flag("use_bias", True)
    fields = _decoder(c, activation=c.activation("hidden_act", default="gelu_pytorch_tanh"), qkv_bias=bias,
                      out_bias=bias, ff_bias=bias)
    return _windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


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
    ignored, unused = _check_unknown(sub, attn, (), c.lenient, "mpt")
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


# ---------------------------------------------------------------- the registry

FAMILIES: dict[str, Family] = {
    "gpt2": Family(_gpt2, {"GPT2LMHeadModel": "lm", "GPT2Model": "none"}),
    "gptj": Family(_gptj, _lm("GPTJ")),
    "gpt_neox": Family(_gpt_neox, _lm("GPTNeoX")),
    "opt": Family(_opt, _lm("OPT")),
    "llama": Family(_llama, _lm("Llama")),
    "mistral": Family(_mistral, _lm("Mistral")),
    "mixtral": Family(_mixtral, _lm("Mixtral")),
    "qwen2": Family(_qwen2, _lm("Qwen2")),
    "qwen2_moe": Family(_qwen2_moe, _lm("Qwen2Moe")),
    "qwen3": Family(_qwen3, _lm("Qwen3")),
    "qwen3_moe": Family(_qwen3_moe, _lm("Qwen3Moe")),
    "gemma": Family(_gemma, _lm("Gemma")),
    "gemma2": Family(_gemma2, _lm("Gemma2")),
    "gemma3_text": Family(_gemma3_text, _lm("Gemma3", bare="Gemma3TextModel")),
    "phi3": Family(_phi3, _lm("Phi3")),
    "phi": Family(_phi, _lm("Phi")),
    "gpt_bigcode": Family(_gpt_bigcode, _lm("GPTBigCode")),
    "falcon": Family(_falcon, _lm("Falcon"), {"RWForCausalLM": "FalconForCausalLM"}),
    "olmo": Family(_olmo, _lm("Olmo")),
    "olmo2": Family(_olmo2, _lm("Olmo2")),
    "deepseek_v2": Family(_deepseek, _lm("DeepseekV2")),
    "deepseek_v3": Family(_deepseek, _lm("DeepseekV3")),
    "gpt_oss": Family(_gpt_oss, _lm("GptOss")),
    "starcoder2": Family(_starcoder2, _lm("Starcoder2")),
    "bloom": Family(_bloom, _lm("Bloom")),
    "mpt": Family(_mpt, _lm("Mpt"), {"MPTForCausalLM": "MptForCausalLM"}),
    "bert": Family(_bert, {"BertForMaskedLM": "mlm", "BertModel": "pooler"}),
    "roberta": Family(_bert, {"RobertaForMaskedLM": "mlm", "RobertaModel": "pooler"}),
    "t5": Family(_t5, {"T5ForConditionalGeneration": "lm", "T5Model": "none", "T5EncoderModel": "none"}),
    "bart": Family(_bart, {"BartForConditionalGeneration": "lm", "BartModel": "none"}),
}
"""``model_type`` → reader and the ``architectures`` classes counted (the first is the default)."""
FAMILIES |= DECODER_FAMILIES | ENCODER_FAMILIES | STATE_SPACE_FAMILIES | SEQ2SEQ_FAMILIES  # more families, in modules of their own
FAMILIES |= shared_class_families(FAMILIES)  # a config of its own on another family's classes (exaone: Llama)


WRAPPERS_FILE = Path(__file__).with_name("multimodal_wrappers.json")


def family_of_class(architectures: object) -> str | None:
    """The supported ``model_type`` whose classes include the one ``architectures`` names (Kimi-K2's
    ``kimi_k2`` file names DeepseekV3ForCausalLM), or None."""
    if not isinstance(architectures, list) or len(architectures) != 1 or not isinstance(architectures[0], str):
        return None
    return next((t for t, f in FAMILIES.items() if architectures[0] in f.classes or architectures[0] in f.aliases),
                None)


def _architecture(c: Keys, family: Family) -> tuple[str, str]:
    """(class name, head) from ``architectures``; absent: the family's first class (its LM)."""
    names = c.data.get("architectures")
    if names is None:
        name = next(iter(family.classes))
    elif not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
        raise c.error("architectures", "expected a list of one class name")
    else:
        name = family.aliases.get(names[0], names[0])
    if name not in family.classes:
        raise c.error("architectures", f"{quoted(name, 60)} is not counted; this reader counts "
                                       f"{', '.join(family.classes)}")
    return name, family.classes[name]


def _check_unknown(c: Keys, data: dict, family_neutral, lenient: bool,
                   model_type: str | None = None) -> tuple[list[str], list[str]]:
    """(ignored, unused) among the keys no reader call accounted for. A key transformers' modelling code for
    this family reads (``modelling_keys``) is refused by name (``lenient``: ignored); any other is inert —
    nothing transformers builds reads it — and listed as not used. Without ``model_type`` (a nested object)
    every such key counts as read."""
    unknown = sorted(k for k in data if k not in c.used and k not in NEUTRAL_KEYS and k not in family_neutral)
    readers = modelling_keys().get(model_type) if model_type else None
    if readers is None:
        read, unused = unknown, []
    else:
        read = [k for k in unknown if k in readers]
        unused = [k for k in unknown if k not in readers]
    if read and not lenient:
        key = read[0]
        by = f"transformers' {', '.join(readers[key])} read{'s' if len(readers[key]) == 1 else ''} it" if readers \
            else "it may be read by transformers"
        raise c.error(key, f"{by}, and this reader does not, so it may change the parameters or FLOP"
                           + (f" (and {len(read) - 1} more such keys: {', '.join(read[1:4])}"
                              + ("…" if len(read) > 4 else "") + ")" if len(read) > 1 else "")
                           + "; read the file leniently to count without it")
    return read, unused


def _supported_list(model_type: object, most: int = 12) -> str:
    """The supported families, for a refusal: all of them when few, else the ones whose names share the refused
    type's first letters (llama4 → llama, llama4_text) and a count; the full list is docs/llm.md's table."""
    names = sorted(FAMILIES)
    if len(names) <= most:
        return ", ".join(names)
    prefix = model_type[:3].lower() if isinstance(model_type, str) and len(model_type) >= 3 else None
    near = [n for n in names if prefix and n.startswith(prefix)][:most]
    return (", ".join(near) + ", … " if near else "") + f"{len(names)} families in all, listed in docs/llm.md"


def read_family(data: dict, source: str, lenient: bool = False) -> tuple[dict, dict[str, str]]:
    """(``TransformerConfig`` fields, field → key) of a decoded config.json."""
    model_type = data.get("model_type")
    if model_type is None:
        raise InputError(f"{source}.model_type", "missing (the family: llama, bert, t5, …)")
    notes = []
    wrapper = multimodal_wrappers().get(model_type) if isinstance(model_type, str) and model_type not in FAMILIES \
        else None
    if wrapper is not None:
        return _read_language_model(data, model_type, wrapper, source, lenient)
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        # a model_type transformers does not define (remote code) on a class it does: read as that class's family
        known = family_of_class(data.get("architectures")) if isinstance(model_type, str) and \
            model_type not in transformers_model_types() else None
        if known is None:
            raise InputError(f"{source}.model_type", f"{quoted(model_type)} is not a family this reader supports "
                                                     f"(supported: {_supported_list(model_type)})")
        notes.append(f"model_type {quoted(model_type, 60)} is not a family of its own here; read as {known} "
                     f"because architectures names {data['architectures'][0]}")
        model_type = known
    family = FAMILIES[model_type]
    data, renamed, repeated = _resolve_aliases(data, model_type, source)
    c = Keys(data, source, lenient)
    c.renamed = renamed
    c.used.update(repeated)
    name, head = _architecture(c, family)
    c.cls, c.model_type = name, model_type
    fields = family.reader(c)
    ignored, unused = _check_unknown(c, data, (), lenient, model_type)
    if head == "pooler":
        head, fields["pooler"] = "none", True
    return fields | {"model_type": model_type, "architecture_name": name, "head": head,
                     "ignored_keys": tuple(ignored + c.ignored), "unused_keys": tuple(unused + c.unused),
                     "notes": tuple(notes)}, {f: renamed.get(k, k) for f, k in c.key_of.items()}


@functools.cache
def multimodal_wrappers() -> dict[str, dict]:
    """``model_type`` of a multimodal checkpoint → {``text_model_type``, ``tie_word_embeddings``}: its language
    model's family and the wrapper's default tie, derived from transformers (``tools/derive_multimodal_wrappers.py``)."""
    return _wrappers_file()["wrappers"]


@functools.cache
def _wrappers_file() -> dict:
    return read_shipped_json(WRAPPERS_FILE, {"wrappers": dict, "text_defaults": dict})


def _read_language_model(data: dict, model_type: str, wrapper: dict, source: str,
                         lenient: bool) -> tuple[dict, dict[str, str]]:
    """The language model of a multimodal checkpoint (Gemma 3, Llama 4, Mistral 3, LLaVA, Qwen3.5…): its
    ``text_config`` read as its own family, with the wrapper's ``tie_word_embeddings`` (the wrapper's value
    decides whether the head shares the token table). The vision or audio encoder and projector are not counted;
    the note says so. Keys absent from ``text_config`` take its configuration class's defaults, as transformers
    fills them (files written by transformers 4.x keep only the keys that differ)."""
    text = data.get("text_config")
    if not isinstance(text, dict):
        raise InputError(f"{source}.text_config", f"a {quoted(model_type)} checkpoint keeps its language model "
                                                  f"in text_config: expected a JSON object {{ … }}, got "
                                                  f"{json_type(text)}")
    text_type = text.get("model_type", wrapper["text_model_type"])
    if not isinstance(text_type, str) or text_type not in FAMILIES:
        raise InputError(f"{source}.text_config.model_type",
                         f"the language model of this {quoted(model_type)} checkpoint is {quoted(text_type)}, "
                         f"not a family this reader supports (supported: {_supported_list(text_type)})")
    family = FAMILIES[text_type]
    if not next(iter(family.classes)).endswith("ForCausalLM"):
        raise InputError(f"{source}.text_config.model_type",
                         f"the language model of this {quoted(model_type)} checkpoint is {quoted(text_type)}, an "
                         "encoder or encoder-decoder: counted from its own config.json, not inside a multimodal one")
    tie = data.get("tie_word_embeddings", wrapper["tie_word_embeddings"])
    defaults = _wrappers_file()["text_defaults"].get(text_type, {})  # what transformers fills in a partial text_config
    inner = defaults | {k: v for k, v in text.items() if k != "architectures"} | {"model_type": text_type}
    if tie is not None:
        inner["tie_word_embeddings"] = tie
    fields, key_of = read_family(inner, f"{source}.text_config", lenient)
    note = (f"a multimodal checkpoint ({quoted(model_type, 60)}, {wrapper['class']}): its language model is counted — text_config read "
            f"as {text_type} ({next(iter(family.classes))}), keys it leaves out at that class's defaults, with the "
            "checkpoint's tie_word_embeddings; the vision or audio encoder and the projector are not counted")
    fields["notes"] = (note,) + tuple(fields.get("notes", ()))
    for listed in ("unused_keys", "ignored_keys"):  # the file's own keys, not the defaults filled in
        fields[listed] = tuple(k for k in fields.get(listed, ()) if k in text)
    return fields, {f: (k if k == "tie_word_embeddings" else f"text_config.{k}") for f, k in key_of.items()}
