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
import json
import math
from collections.abc import Callable
from pathlib import Path

from engine.errors import InputError, quoted

ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu", "gelu_fast": "gelu", "gelu_pytorch_tanh": "gelu",
               "gelu_python": "gelu", "quick_gelu": "gelu", "relu": "relu", "silu": "silu", "swish": "silu",
               "sigmoid": "sigmoid", "tanh": "tanh"}
"""Hugging Face activation names → the block's (tanh approximations of GELU count as GELU)."""

MAX_LAYERS = 10_000
"""As ``engine.llm.config.MAX_TRANSFORMER_LAYERS`` (checked there; here it bounds the readers' own loops)."""

NEUTRAL_KEYS = frozenset("""  # noqa: SIM905 (a word list reads better than 100 quoted strings)
architectures model_type transformers_version torch_dtype dtype _name_or_path name_or_path auto_map
bos_token_id eos_token_id pad_token_id unk_token_id sep_token_id cls_token_id mask_token_id
decoder_start_token_id forced_bos_token_id forced_eos_token_id
initializer_range init_std initializer_factor use_cache output_attentions output_hidden_states return_dict
use_return_dict torchscript id2label label2id num_labels problem_type task_specific_params tokenizer_class
prefix quantization_config rope_theta rope_scaling rope_parameters rope_type original_max_position_embeddings
partial_rotary_factor rotary_pct rotary_emb_base rotary_dim rope_interleave rope_local_base_freq
layer_norm_eps layer_norm_epsilon rms_norm_eps norm_epsilon
dropout dropout_rate attention_dropout activation_dropout hidden_dropout hidden_dropout_prob
attention_probs_dropout_prob classifier_dropout resid_pdrop embd_pdrop attn_pdrop emb_pdrop
embedding_dropout residual_dropout encoder_layerdrop decoder_layerdrop layerdrop
gradient_checkpointing pretraining_tp output_router_logits router_aux_loss_coef aux_loss_alpha
router_jitter_noise router_z_loss_coef seq_aux cache_implementation attn_implementation _attn_implementation
chunk_size_feed_forward max_length min_length num_beams early_stopping no_repeat_ngram_size length_penalty
do_sample temperature top_k top_p repetition_penalty bad_words_ids num_return_sequences
output_past use_flash_attn model_max_length generation_config _commit_hash tie_encoder_decoder
""".split())
"""Keys no family's parameters or (matmul) FLOP depend on."""


class Keys:
    """Typed reads from a config dict that remember which keys were read, and which key gave each
    field (for error messages)."""

    def __init__(self, data: dict, source: str, lenient: bool = False):
        self.data, self.source, self.key_of, self.used = data, source, {}, set()
        self.lenient, self.ignored = lenient, []  # ignored: keys of nested objects left unread (lenient)
        self.unused: list[str] = []  # keys of nested objects that nothing in transformers reads
        self.cls = ""  # the architectures class being read
        self.renamed: dict[str, str] = {}  # key → the alias the file wrote it under (errors name the alias)
        self.model_type = ""  # the family being read (its transformers-read keys: ``reads``)

    def error(self, key: str, reason: str) -> InputError:
        return InputError(f"{self.source}.{self.renamed.get(key, key)}", reason)

    def get(self, key: str, default=None):
        self.used.add(key)
        value = self.data.get(key)
        return default if value is None else value

    def size(self, field: str | None, *keys: str, required: bool = True, default: int | None = None):
        """The first of ``keys`` present (and not null): a whole number, range-checked by the model."""
        self.used.update(keys)
        for key in keys:
            value = self.data.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.error(key, f"expected a whole number, got {json.dumps(value)[:40]}")
            if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
                if field:  # the model's own check names the problem (not finite, not whole)
                    self.key_of[field] = key
                    return value
                raise self.error(key, f"expected a whole number, got {value}")
            if field:
                self.key_of[field] = key
            return int(value)
        if required:
            raise self.error(keys[0], "missing" + (f" (or {', '.join(keys[1:])})" if keys[1:] else ""))
        return default

    def flag(self, key: str, default: bool) -> bool:
        self.used.add(key)
        value = self.data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {json.dumps(value)[:40]}")
        return value

    def activation(self, *keys: str, default: str) -> str:
        self.used.update(keys)
        key = next((k for k in keys if self.data.get(k) is not None), keys[0])
        name = self.data.get(key, default)
        if not isinstance(name, str) or name not in ACTIVATIONS:
            raise self.error(key, f"unknown activation {json.dumps(name)[:40]}; known: {', '.join(ACTIVATIONS)}")
        return ACTIVATIONS[name]

    def require(self, key: str, ok: Callable[[object], bool], why: str) -> None:
        """A key whose other values change the count in a way this reader does not model (absent: fine)."""
        self.used.add(key)
        if key in self.data and self.data[key] is not None and not ok(self.data[key]):
            raise self.error(key, f"{json.dumps(self.data[key])[:40]} is not supported ({why})")

    def given(self, *keys: str) -> None:
        """Keys whose absence transformers fills with a family default unlike this reader's: they must be
        written out (null where that is meant)."""
        for key in keys:
            if key not in self.data:
                raise self.error(key, "missing (transformers would use its own default here; write it out)")

    def reads(self, key: str) -> bool:
        """Whether transformers' modelling code for this family reads ``key`` (``modelling_keys``); a key it
        does not read is inert, whatever its value."""
        readers = modelling_keys().get(self.model_type)
        return readers is None or key in readers

    def neutral(self, *keys: str) -> None:
        """Keys this family has that change neither parameters nor FLOP."""
        self.used.update(keys)


# ---------------------------------------------------------------- shared pieces

def _decoder(c: Keys, ff_key: str = "intermediate_size", gqa: bool = True, **block) -> dict:
    """num_hidden_layers, hidden_size, num_attention_heads, intermediate_size; with ``gqa``,
    num_key_value_heads and head_dim (families without them leave those keys unread, hence refused)."""
    heads = {"heads": c.size("block.heads", "num_attention_heads")}
    if gqa:
        heads |= {"kv_heads": c.size("block.kv_heads", "num_key_value_heads", required=False),
                  "head_size": c.size("block.head_size", "head_dim", required=False)}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": c.size("d_model", "hidden_size"),
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "max_position_embeddings", required=False),
            "block": heads | {"ff_size": c.size("block.ff_size", ff_key), **block}}


def _rms_swiglu(c: Keys, attention_bias: bool = False, act_keys=("hidden_act",), **block) -> dict:
    """The Llama block: RMSNorm, gated feed-forward (SiLU by default), no feed-forward biases; ``attention_bias``
    read where the family's transformers code reads it (Mistral's, Phi-3's and Qwen2's do not: inert there)."""
    bias = c.flag("attention_bias", attention_bias) if c.reads("attention_bias") else attention_bias
    return dict(norm="rmsnorm", gated=True, activation=c.activation(*act_keys, default="silu"),
                qkv_bias=bias, out_bias=bias, ff_bias=False) | block


def _windows(c: Keys, fields: dict, period: int | None) -> dict:
    """``sliding_window`` W on the layers ``layer_types`` marks "sliding_attention" (absent: transformers'
    default pattern, every ``period``-th layer full); the full-attention layers become a first group."""
    window = c.size("block.attention_window", "sliding_window", required=False)
    if window is None:
        c.neutral("layer_types")
        return fields
    layers = fields["layers"]
    types = c.get("layer_types")
    if types is None:
        full = layers // period if period else 0
    else:
        if not isinstance(types, list) or len(types) != layers or \
                not set(types) <= {"sliding_attention", "full_attention"}:
            raise c.error("layer_types", f"expected {layers} entries of 'sliding_attention' or 'full_attention'")
        full = types.count("full_attention")
    fields["block"]["attention_window"] = window
    if full == layers:
        del fields["block"]["attention_window"]
    elif full:
        fields["first_layers"] = [{"layers": full, "block": dict(fields["block"], attention_window=None)}]
    return fields


def _experts(c: Keys, fields: dict, experts_keys: tuple[str, ...], ff_key: str = "moe_intermediate_size") -> dict:
    """A mixture-of-experts block: E, k, the expert size (replacing the dense one)."""
    block = fields["block"]
    block["experts"] = c.size("block.experts", *experts_keys)
    block["active_experts"] = c.size("block.active_experts", "num_experts_per_tok")
    dense_ff = block["ff_size"]
    block["ff_size"] = c.size("block.ff_size", ff_key)
    return dense_ff


def _sparse_layers(c: Keys, fields: dict, dense_ff: int) -> dict:
    """Qwen-MoE: layer i is sparse unless listed in ``mlp_only_layers`` or (i+1) % decoder_sparse_step ≠ 0;
    the dense ones (an ``intermediate_size`` MLP) become a first group."""
    layers = fields["layers"]
    if not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        c.neutral("decoder_sparse_step", "mlp_only_layers")
        return fields  # the model's own check names num_hidden_layers (and no loop runs 10⁹ times)
    step = c.size(None, "decoder_sparse_step", required=False, default=1)
    if step < 1:
        raise c.error("decoder_sparse_step", "must be at least 1")
    only = c.get("mlp_only_layers", [])
    if not isinstance(only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in only):
        raise c.error("mlp_only_layers", "expected a list of layer numbers")
    dense = sum(1 for i in range(layers) if i in set(only) or (i + 1) % step)
    if dense:
        block = dict(fields["block"], experts=1, active_experts=1, ff_size=dense_ff, shared_ff_size=None,
                     shared_expert_gate=False, router_bias=False)
        fields.setdefault("first_layers", []).append({"layers": dense, "block": block})
    return fields


def _no_sliding(c: Keys) -> None:
    """Qwen's windows apply only from ``max_window_layers`` on, which is not modelled: refuse them."""
    c.require("use_sliding_window", lambda v: v is False, "Qwen windows only the layers from "
                                                          "max_window_layers on; a per-layer window is not modelled")
    c.neutral("sliding_window", "max_window_layers", "layer_types")


def _learned_positions(c: Keys, fields: dict, key: str, offset: int = 0):
    """The rows of a learned position table: the context length (+ an offset), which must be given."""
    if fields["context_length"] is None:
        raise c.error(key, "missing (the length of the learned position table)")
    return fields["context_length"] + offset


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


def _gemma_common(c: Keys, act_keys, **block) -> dict:
    """Gemma: RMSNorm (γ stored as 1 + w: d parameters), GeGLU, tied embeddings by default; head_dim is a
    key of its own (256 in Gemma's config class, not d/H), so it must be given."""
    fields = _decoder(c, **_rms_swiglu(c, act_keys=act_keys, **block))
    if fields["block"]["head_size"] is None:
        raise c.error("head_dim", "missing (Gemma's head size is not d/H)")
    if block and isinstance(fields["d_model"], int) and fields["d_model"] % fields["block"]["heads"]:
        # Gemma2Config/Gemma3TextConfig refuse it, although head_dim sets the attention width
        raise c.error("num_attention_heads", f"{fields['block']['heads']} heads do not divide hidden_size "
                                             f"{fields['d_model']} (transformers refuses such a Gemma 2/3 config)")
    c.neutral("query_pre_attn_scalar", "attn_logit_softcapping", "final_logit_softcapping")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


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
    fields = _decoder(c, **_rms_swiglu(c))
    block = fields["block"]
    block["kv_heads"] = None
    block["head_size"] = c.size("block.head_size", "qk_nope_head_dim")
    block |= {"kv_lora_rank": c.size("block.kv_lora_rank", "kv_lora_rank"),
              "q_lora_rank": c.size("block.q_lora_rank", "q_lora_rank", required=False),
              "rope_head_size": c.size("block.rope_head_size", "qk_rope_head_dim"),
              "value_head_size": c.size("block.value_head_size", "v_head_dim")}
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    shared = c.size(None, "n_shared_experts", required=False, default=0)
    if shared:
        block["shared_ff_size"] = shared * block["ff_size"]
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


# ---------------------------------------------------------------- encoder-only and encoder-decoder

def _bert(c: Keys) -> dict:
    """bert, roberta: word + learned position + token-type tables and a LayerNorm; post-norm encoder
    blocks with biases; the masked-LM head (dense, activation, LayerNorm, tied decoder with a bias) or,
    for the bare model, the pooler."""
    c.require("is_decoder", lambda v: v is False, "BERT as a decoder is not modelled")
    c.require("is_encoder_decoder", lambda v: v is False, "BERT inside an encoder-decoder is not modelled")
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then "
                                                          "keeps a second, unused output bias; not modelled")
    fields = _decoder(c, gqa=False, activation=c.activation("hidden_act", default="gelu"), causal=False,
                      norm_position="post")
    return fields | {"learned_positions": _learned_positions(c, fields, "max_position_embeddings"),
                     "token_types": c.size("token_types", "type_vocab_size", required=False, default=2) or None,
                     "embedding_norm": True, "tied_embeddings": True, "final_norm": False}


_T5_FF = {"relu": ("relu", False), "gelu": ("gelu", False), "gated-gelu": ("gelu", True),
          "gated-silu": ("silu", True), "gated-relu": ("relu", True), "silu": ("silu", False)}


def _t5(c: Keys) -> dict:
    """t5: shared token table, T5LayerNorm (RMS, γ only), no biases anywhere, attention width H·d_kv,
    a relative position bias table (buckets × H) in each stack's first layer, final norms on both stacks;
    ``feed_forward_proj`` relu (T5) or gated-gelu (T5 v1.1, Flan-T5)."""
    # is_decoder: T5Model and T5ForConditionalGeneration give each stack its own copy of the config
    # (is_decoder false for the encoder, true for the decoder), so the file's value is not read
    c.neutral("dense_act_fn", "is_gated_act", "relative_attention_max_distance", "scale_decoder_outputs",
              "n_positions", "is_encoder_decoder", "is_decoder")
    proj = c.get("feed_forward_proj", "relu")
    if proj not in _T5_FF:
        raise c.error("feed_forward_proj", f"{quoted(proj)} is not one of {', '.join(_T5_FF)}")
    act, gated = _T5_FF[proj]
    heads = c.size("block.heads", "num_heads")
    block = {"heads": heads, "head_size": c.size("block.head_size", "d_kv"), "ff_size": c.size("block.ff_size", "d_ff"),
             "gated": gated, "activation": act, "norm": "rmsnorm", "qkv_bias": False, "out_bias": False,
             "ff_bias": False}
    layers = c.size("encoder.layers", "num_layers")
    buckets = c.size("relative_buckets", "relative_attention_num_buckets", required=False, default=32)
    if c.cls == "T5EncoderModel":  # the shared table and the encoder stack, ending in its norm; no decoder
        c.neutral("num_decoder_layers")
        return {"layers": layers, "d_model": c.size("d_model", "d_model"),
                "vocab_size": c.size("vocab_size", "vocab_size"),
                "context_length": c.size("context_length", "n_positions", required=False),
                "relative_buckets": buckets, "block": dict(block, causal=False), "final_norm": True,
                "tied_embeddings": c.flag("tie_word_embeddings", True)}
    return {"layers": c.size("layers", "num_decoder_layers", "num_layers"),
            "d_model": c.size("d_model", "d_model"), "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "n_positions", required=False),
            "relative_buckets": buckets, "block": block,
            "encoder": {"layers": layers, "block": dict(block, causal=False), "relative_buckets": buckets},
            "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _bart(c: Keys) -> dict:
    """bart: shared token table; each stack with a learned position table of max_position_embeddings + 2
    rows and a LayerNorm on the embeddings; post-norm blocks with biases; no final norms; the LM head
    tied to the table (its final_logits_bias is a buffer, not a parameter)."""
    c.neutral("scale_embedding", "num_hidden_layers", "is_encoder_decoder", "extra_pos_embeddings")
    act = c.activation("activation_function", default="gelu")
    d = c.size("d_model", "d_model")
    positions = c.size("learned_positions", "max_position_embeddings") + 2
    common = {"activation": act, "norm_position": "post"}
    return {"layers": c.size("layers", "decoder_layers"), "d_model": d,
            "vocab_size": c.size("vocab_size", "vocab_size"), "context_length": positions - 2,
            "learned_positions": positions, "embedding_norm": True, "final_norm": False,
            "block": {"heads": c.size("block.heads", "decoder_attention_heads"),
                      "ff_size": c.size("block.ff_size", "decoder_ffn_dim"), **common},
            "encoder": {"layers": c.size("encoder.layers", "encoder_layers"), "learned_positions": positions,
                        "embedding_norm": True, "final_norm": False,
                        "block": {"heads": c.size("encoder.block.heads", "encoder_attention_heads"),
                                  "ff_size": c.size("encoder.block.ff_size", "encoder_ffn_dim"), "causal": False,
                                  **common}},
            # untied: transformers 5 gives each stack its own token table beside `shared` (and an lm_head)
            "tied_embeddings": (tied := c.flag("tie_word_embeddings", True)), "stack_token_tables": not tied}


# ---------------------------------------------------------------- the registry

class Family:
    """A reader, the transformers classes it counts (→ head), and its encoder-decoder-ness."""

    def __init__(self, reader: Callable[[Keys], dict], classes: dict[str, str], aliases: dict[str, str] | None = None):
        self.reader, self.classes, self.aliases = reader, classes, aliases or {}


def _lm(prefix: str, *, bare: str | None = None) -> dict[str, str]:
    """``{prefix}ForCausalLM`` → LM head, ``{prefix}Model`` → none."""
    return {f"{prefix}ForCausalLM": "lm", bare or f"{prefix}Model": "none"}


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
    "gemma3_text": Family(_gemma3_text, {"Gemma3ForCausalLM": "lm", "Gemma3TextModel": "none"}),
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


KEYS_FILE = Path(__file__).with_name("config_keys.json")


@functools.cache
def modelling_keys() -> dict[str, dict[str, list[str]]]:
    """``model_type`` → {config key → the transformers classes/functions that read it}: the keys each family's
    modelling code reads, derived from transformers' source (``tools/derive_config_keys.py``)."""
    return json.loads(KEYS_FILE.read_text())["families"]


@functools.cache
def key_aliases() -> dict[str, dict[str, str]]:
    """``model_type`` → {other name → the key it sets}: the config class's ``attribute_map`` (GPT-2 reads
    ``hidden_size`` as ``n_embd``), from ``config_keys.json``."""
    return json.loads(KEYS_FILE.read_text()).get("aliases", {})


def _resolve_aliases(data: dict, model_type: str, source: str) -> tuple[dict, dict[str, str], list[str]]:
    """(data with each alias renamed to the key it sets, key → the alias the file wrote, aliases that repeat
    their key's value). An alias whose value differs from its key's is refused: transformers keeps one of the
    two, and which depends on the order of the file."""
    renamed, repeated = {}, []
    out = dict(data)
    for alias, key in key_aliases().get(model_type, {}).items():
        if out.get(alias) is None or alias == key:
            continue
        if out.get(key) is not None:
            if out[alias] != out[key]:
                raise InputError(f"{source}.{alias}", f"{json.dumps(out[alias])[:40]} differs from {key} "
                                                      f"{json.dumps(out[key])[:40]} (transformers reads them as one "
                                                      "value; keep one)")
            repeated.append(alias)
            continue
        out[key] = out.pop(alias)
        renamed[key] = alias
    return out, renamed, repeated


@functools.cache
def transformers_model_types() -> frozenset[str]:
    """Every ``model_type`` the pinned transformers defines (``CONFIG_MAPPING``), from ``config_keys.json``."""
    return frozenset(json.loads(KEYS_FILE.read_text())["model_types"])


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


def read_family(data: dict, source: str, lenient: bool = False) -> tuple[dict, dict[str, str]]:
    """(``TransformerConfig`` fields, field → key) of a decoded config.json."""
    model_type = data.get("model_type")
    if model_type is None:
        raise InputError(f"{source}.model_type", "missing (the family: llama, bert, t5, …)")
    notes = []
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        # a model_type transformers does not define (remote code) on a class it does: read as that class's family
        known = family_of_class(data.get("architectures")) if isinstance(model_type, str) and \
            model_type not in transformers_model_types() else None
        if known is None:
            raise InputError(f"{source}.model_type", f"{quoted(model_type)} is not a family this reader supports "
                                                     f"(supported: {', '.join(sorted(FAMILIES))})")
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
