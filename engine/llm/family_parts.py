"""The pieces every family reader is built from: typed reads of a ``config.json`` that remember which keys
were read (``Keys``), the keys no family's count depends on (``NEUTRAL_KEYS``), the keys transformers reads
per family (``modelling_keys``), the shared block readers (the Llama block, windows, experts, learned
positions), GPT-J's and BERT's readers (which other families reuse), and a registry entry (``Family``).
``engine.llm.families`` and the modules beside it (``decoder_families``, ``encoder_families``) hold the
readers per ``model_type``.
"""
from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from engine.errors import InputError

ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu", "gelu_fast": "gelu", "gelu_pytorch_tanh": "gelu",
               "gelu_python": "gelu", "quick_gelu": "gelu", "relu": "relu", "silu": "silu", "swish": "silu",
               "sigmoid": "sigmoid", "tanh": "tanh", "relu2": "relu2",
               "xielu": "xielu"}
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

def _decoder(c: Keys, ff_key: str | None = "intermediate_size", gqa: bool = True, **block) -> dict:
    """num_hidden_layers, hidden_size, num_attention_heads, intermediate_size; with ``gqa``,
    num_key_value_heads and head_dim (families without them leave those keys unread, hence refused). ``ff_key``
    None: the family reads its feed-forward sizes itself (one per layer)."""
    heads = {"heads": c.size("block.heads", "num_attention_heads")}
    if gqa:
        heads |= {"kv_heads": c.size("block.kv_heads", "num_key_value_heads", required=False),
                  "head_size": c.size("block.head_size", "head_dim", required=False)}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": c.size("d_model", "hidden_size"),
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "max_position_embeddings", required=False),
            "block": heads | {"ff_size": c.size("block.ff_size", ff_key) if ff_key else None, **block}}


def _rms_swiglu(c: Keys, attention_bias: bool = False, act_keys=("hidden_act",), **block) -> dict:
    """The Llama block: RMSNorm, gated feed-forward (SiLU by default), no feed-forward biases; ``attention_bias``
    read where the family's transformers code reads it (Mistral's, Phi-3's and Qwen2's do not: inert there)."""
    bias = c.flag("attention_bias", attention_bias) if c.reads("attention_bias") else attention_bias
    return dict(norm="rmsnorm", gated=True, activation=c.activation(*act_keys, default="silu"),
                qkv_bias=bias, out_bias=bias, ff_bias=False) | block


def _layer_kinds(c: Keys, key: str, layers, kinds: tuple[str, ...]) -> list[str] | None:
    """``key``'s list of one of ``kinds`` per layer (``layer_types``, ``mlp_layer_types``); absent: None."""
    types = c.get(key)
    if types is not None and (not isinstance(types, list) or len(types) != layers or not set(types) <= set(kinds)):
        raise c.error(key, f"expected {layers} entries of {' or '.join(repr(k) for k in kinds)}")
    return types


def _windows(c: Keys, fields: dict, period: int | None) -> dict:
    """``sliding_window`` W on the layers ``layer_types`` marks "sliding_attention" (absent: transformers'
    default pattern, layer i full when (i + 1) is a multiple of ``period``); the full-attention layers become a
    group placed where they are (``at``: the cache a serving step keeps differs layer by layer)."""
    window = c.size("block.attention_window", "sliding_window", required=False)
    if window is None:
        c.neutral("layer_types")
        return fields
    layers = fields["layers"]
    types = _layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention"))
    if types is None:
        full = [i for i in range(layers) if (i + 1) % period == 0] if period else []
    else:
        full = [i for i, kind in enumerate(types) if kind == "full_attention"]
    return _full_layers_at(fields, window, full)


def _full_layers_at(fields: dict, window: int, full: list[int]) -> dict:
    """Window W on the block; the layers ``full`` (0-based) without it, as a group placed at them."""
    fields["block"]["attention_window"] = window
    if len(full) == fields["layers"]:
        del fields["block"]["attention_window"]
    elif full:
        fields["first_layers"] = [{"layers": len(full), "block": dict(fields["block"], attention_window=None),
                                   "at": full}]
    return fields


def _experts(c: Keys, fields: dict, experts_keys: tuple[str, ...], ff_key: str = "moe_intermediate_size") -> dict:
    """A mixture-of-experts block: E, k, the expert size (replacing the dense one)."""
    block = fields["block"]
    block["experts"] = c.size("block.experts", *experts_keys)
    block["active_experts"] = c.size("block.active_experts", "num_experts_per_tok")
    dense_ff = block["ff_size"]
    block["ff_size"] = c.size("block.ff_size", ff_key)
    return dense_ff


def _shared_experts(c: Keys, fields: dict, key: str, default: int | None = None) -> None:
    """``key`` shared experts (absent: ``default``; None: the key is required), each as wide as the routed ones:
    the block's F_s = n·F (after ``_experts`` has set F); 0 shared: none."""
    block = fields["block"]
    shared = c.size(None, key, required=default is None, default=default)
    if shared:
        block["shared_ff_size"] = shared * block["ff_size"]


def _latent_attention(c: Keys, fields: dict, value_default=None) -> dict:
    """DeepSeek's multi-head latent attention in place of the block's: ``qk_nope_head_dim`` Q, ``qk_rope_head_dim``
    R, ``v_head_dim`` V (absent: ``value_default``, where the family has one), ``kv_lora_rank`` c, ``q_lora_rank``
    c_q (null: queries projected directly)."""
    block = fields["block"]
    block["kv_heads"] = None
    block["head_size"] = c.size("block.head_size", "qk_nope_head_dim")
    block |= {"kv_lora_rank": c.size("block.kv_lora_rank", "kv_lora_rank"),
              "q_lora_rank": c.size("block.q_lora_rank", "q_lora_rank", required=False),
              "rope_head_size": c.size("block.rope_head_size", "qk_rope_head_dim"),
              "value_head_size": c.size("block.value_head_size", "v_head_dim", required=value_default is None,
                                        default=value_default)}
    return fields


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


# ---------------------------------------------------------------- readers other families build on

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


def _bert(c: Keys, token_types: int = 2) -> dict:
    """bert, roberta: word + learned position + token-type tables and a LayerNorm; post-norm encoder
    blocks with biases; the masked-LM head (dense, activation, LayerNorm, tied decoder with a bias) or,
    for the bare model, the pooler. ``token_types``: the family's default ``type_vocab_size``."""
    c.require("is_decoder", lambda v: v is False, "BERT as a decoder is not modelled")
    c.require("is_encoder_decoder", lambda v: v is False, "BERT inside an encoder-decoder is not modelled")
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then "
                                                          "keeps a second, unused output bias; not modelled")
    fields = _decoder(c, gqa=False, activation=c.activation("hidden_act", default="gelu"), causal=False,
                      norm_position="post")
    return fields | {"learned_positions": _learned_positions(c, fields, "max_position_embeddings"),
                     "token_types": c.size("token_types", "type_vocab_size", required=False,
                                           default=token_types) or None,
                     "embedding_norm": True, "tied_embeddings": True, "final_norm": False}


# ---------------------------------------------------------------- the registry's entry

class Family(NamedTuple):
    """A registry entry (a value, not a result): the family's reader, the transformers classes it counts
    (class → head), and other names a file may give those classes (alias → class)."""

    reader: Callable[[Keys], dict]
    classes: Mapping[str, str]
    aliases: Mapping[str, str] = MappingProxyType({})


def _lm(prefix: str, *, bare: str | None = None) -> dict[str, str]:
    """``{prefix}ForCausalLM`` → LM head, ``{prefix}Model`` → none."""
    return {f"{prefix}ForCausalLM": "lm", bare or f"{prefix}Model": "none"}
