"""Typed reads of a ``config.json`` that remember which keys were read (``Keys``), the keys no family's count depends
on (``NEUTRAL_KEYS``), the keys transformers reads per family (``modelling_keys``, from ``config_keys.json``) and
the names a config class gives them (``key_aliases``), and the checks that every key is accounted for
(``check_unknown``, ``nested_done`` for nested objects).
"""
from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path

from engine.errors import InputError
from engine.shipped import read_shipped_json

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
image_token_id image_token_index video_token_id video_token_index vision_token_id vision_start_token_id
vision_end_token_id audio_token_id audio_token_index
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


KEYS_FILE = Path(__file__).parents[1] / "config_keys.json"


@functools.cache
def modelling_keys() -> dict[str, dict[str, list[str]]]:
    """``model_type`` → {config key → the transformers classes/functions that read it}: the keys each family's
    modelling code reads, derived from transformers' source (``tools/derive_config_keys.py``)."""
    return _keys_file()["families"]


@functools.cache
def key_aliases() -> dict[str, dict[str, str]]:
    """``model_type`` → {other name → the key it sets}: the config class's ``attribute_map`` (GPT-2 reads
    ``hidden_size`` as ``n_embd``), from ``config_keys.json``."""
    return _keys_file()["aliases"]


def resolve_key_aliases(data: dict, model_type: str, source: str) -> tuple[dict, dict[str, str], list[str]]:
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
    return frozenset(_keys_file()["model_types"])


@functools.cache
def _keys_file() -> dict:
    return read_shipped_json(KEYS_FILE, {"families": dict, "aliases": dict, "model_types": list})


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

    def nested(self, key: str) -> Keys:
        """The typed reads of a nested object (DBRX's ``attn_config``), its source named ``config.<key>``."""
        value = self.get(key, {})
        if not isinstance(value, dict):
            raise self.error(key, "expected an object")
        sub = Keys(value, f"{self.source}.{key}", self.lenient)
        sub.model_type = self.model_type
        return sub


def check_unknown(c: Keys, data: dict, family_neutral, lenient: bool,
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


def nested_done(c: Keys, sub: Keys, key: str) -> None:
    """Every key of the nested object read, neutral, or not read by the family's transformers code (listed as
    not used); one transformers reads and the reader does not is refused (``lenient``: listed as left out)."""
    readers = modelling_keys().get(c.model_type, {})
    for name in sorted(k for k in sub.data if k not in sub.used and k not in NEUTRAL_KEYS):
        if name not in readers:
            c.unused.append(f"{key}.{name}")
        elif c.lenient:
            c.ignored.append(f"{key}.{name}")
        else:
            raise sub.error(name, f"transformers' {', '.join(readers[name])} read it, and this reader does not, so "
                                  "it may change the parameters or FLOP; read the file leniently to count without it")


def whole_defaults(c: Keys, defaults: dict, config_class: str) -> None:
    """Absent sizes: ``defaults`` (``config_class``'s); a null one refused, as the config class's whole-number
    fields refuse it."""
    for key in defaults:
        if key in c.data and c.data[key] is None:
            raise c.error(key, f"null is not accepted (transformers' {config_class} requires a whole number)")
    c.data = {**defaults, **c.data}
