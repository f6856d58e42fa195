"""Typed reads of a diffusers ``config.json`` that fill what the file leaves out with the class's own defaults
(``library_keys.json``, derived from diffusers and transformers: ``tools/derive_multimodal_keys.py``) and remember
what was read.
When the reading is done, a key the class takes and the reader did not read is refused by name (it may change the
count); a key the class does not take is inert (diffusers passes it to nobody) and listed as not used.
"""
from __future__ import annotations

import functools
import json
import math

from engine.errors import InputError, json_type, quoted
from engine.llm.families.keys import NEUTRAL_KEYS
from engine.method1.layers import MAX_SIZE
from engine.shipped import module_file, read_shipped_json

KEYS_FILE = module_file("library_keys.json")

NEUTRAL = frozenset({"_class_name", "_diffusers_version", "_name_or_path", "_use_default_values", "dropout",
                     "attention_dropout", "norm_eps", "eps", "layer_norm_eps", "act_fn", "resnet_act_fn",
                     "scaling_factor", "shift_factor", "force_upcast", "upcast_attention", "sample_size",
                     "use_quant_conv", "use_post_quant_conv", "latents_mean", "latents_std", "flip_sin_to_cos",
                     "freq_shift", "center_input_sample", "norm_elementwise_affine", "quantization_config",
                     "mid_block_scale_factor", "resnet_out_scale_factor", "downsample_padding",
                     "interpolation_scale", "rope_max_seq_len", "axes_dims_rope", "pos_embed_max_size",
                     "time_embedding_type", "attention_type", "output_type", "timestep_activation_fn",
                     "spatial_interpolation_scale", "temporal_interpolation_scale", "temporal_compression_ratio",
                     "use_rotary_positional_embeddings", "use_learned_positional_embeddings", "norm_type_",
                     "attn_scales", "temperal_downsample", "is_residual", "scale_factor_temporal",
                     "scale_factor_spatial", "invert_scale_latents", "use_framewise_encoding",
                     "use_framewise_decoding", "norm_num_groups_"})
"""Keys that change neither parameters nor the matmul count in any class read here (norm epsilons, dropout,
scalings, rotary and sinusoidal position settings, numeric casts)."""

TRANSFORMERS_NEUTRAL = frozenset(NEUTRAL_KEYS) | frozenset({
    "chunk_size_feed_forward", "id2label", "label2id", "problem_type", "is_encoder_decoder", "output_hidden_states",
    "return_dict", "image_token_index", "image_token_id", "video_token_id", "video_token_index",
    "vision_start_token_id",
    "vision_end_token_id", "boi_token_index", "eoi_token_index", "image_seq_length_", "audio_token_id",
    "audio_token_index", "vision_token_id", "image_end_token_id", "image_start_token_id", "image_context_token_id",
    "projection_dim_", "logit_scale_init_value", "dtype", "tokenizer_class", "use_return_dict"})
"""transformers keys that change neither parameters nor the matmul count (special token ids, output flags) beside
the language models' ones (``engine.llm.families.keys.NEUTRAL_KEYS``)."""


@functools.cache
def keys_file() -> dict:
    """The derived keys and defaults (``library_keys.json``)."""
    return read_shipped_json(KEYS_FILE, {"classes": dict, "model_types": dict})


def class_keys(library: str = "diffusers") -> dict[str, dict]:
    """diffusers class (or transformers ``model_type``) → {key → its default (the ``required`` marker when it has
    none, the ``factory`` marker when the library makes it)}."""
    return keys_file()["classes" if library == "diffusers" else "model_types"]


class ConfigReader:
    """Reads of one config (``data``) as the diffusers class (or transformers ``model_type``, ``library``
    "transformers") ``cls`` takes it; ``source`` prefixes error fields."""

    def __init__(self, data: dict, cls: str, source: str, library: str = "diffusers"):
        self.data, self.cls, self.source, self.library = data, cls, source, library
        self.defaults = class_keys(library)[cls]
        self.used: set[str] = set()
        self.notes: list[str] = []
        self.owner = f"diffusers' {cls}" if library == "diffusers" else f"transformers' {cls} configuration"

    def error(self, key: str, reason: str) -> InputError:
        return InputError(f"{self.source}.{key}", reason)

    def raw(self, key: str):
        """The file's value, else the class's default (what ``from_config`` passes)."""
        self.used.add(key)
        if key in self.data:
            return self.data[key]
        default = self.defaults.get(key)
        if default == keys_file()["required"]:
            raise self.error(key, f"missing ({self.owner} has no default for it)")
        return None if default == keys_file()["factory"] else default

    def size(self, key: str, value=None, *, allow_none: bool = False, zero: bool = False):
        """A whole number from 1 (or 0 with ``zero``) to 10⁹."""
        value = self.raw(key) if value is None else value
        if value is None and allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
            raise self.error(key, f"expected a whole number, got {quoted(json.dumps(value))}")
        value = int(value)
        if not (0 if zero else 1) <= value <= MAX_SIZE:
            raise self.error(key, f"{value:,} is outside {0 if zero else 1} to {MAX_SIZE:,}")
        return value

    def sizes(self, key: str, count: int, *, allow_none: bool = False) -> list:
        """One whole number for each of ``count`` blocks: a number (the same for all) or a list of ``count``."""
        value = self.raw(key)
        if isinstance(value, list):
            if len(value) != count:
                raise self.error(key, f"expected {count} values (one per block), got {len(value)}")
            return [self.size(f"{key}[{i}]", v, allow_none=allow_none) if v is not None or not allow_none else None
                    for i, v in enumerate(value)]
        if value is None and allow_none:
            return [None] * count
        return [self.size(key, value)] * count

    def flag(self, key: str) -> bool:
        value = self.raw(key)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {json_type(value)}")
        return value

    def names(self, key: str, allowed: tuple[str, ...] | None = None) -> list[str]:
        value = self.raw(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise self.error(key, "expected a list of block names")
        for v in value:
            if allowed is not None and v not in allowed:
                raise self.error(key, f"{quoted(v)} is not a block this reader counts ({', '.join(allowed)})")
        return value

    def choice(self, key: str, allowed: tuple, why: str = "") -> object:
        """A value among ``allowed`` (None included where listed); another is refused by name."""
        value = self.raw(key)
        if value not in allowed:
            shown = ", ".join("null" if a is None else json.dumps(a) for a in allowed)
            raise self.error(key, f"{quoted(json.dumps(value))} is not counted here (counted: {shown})"
                             + (f"; {why}" if why else ""))
        return value

    def require(self, key: str, ok, why: str) -> None:
        """A key whose other values change the count in a way this reader does not model."""
        value = self.raw(key)
        if not ok(value):
            raise self.error(key, f"{quoted(json.dumps(value))} is not supported ({why})")

    def neutral(self, *keys: str) -> None:
        self.used.update(keys)

    def finish(self) -> list[str]:
        """The file's keys nothing in the class reads (inert), after refusing any the class reads and this reader
        did not."""
        neutral = NEUTRAL if self.library == "diffusers" else NEUTRAL | TRANSFORMERS_NEUTRAL
        unread = sorted(k for k in self.data if k not in self.used and k not in neutral)
        read = [k for k in unread if k in self.defaults]
        if read:
            raise self.error(read[0], f"{self.owner} has it, and this reader does not read it, so it may change "
                                      "the parameters or FLOP")
        return unread

    def sub(self, key: str, model_type: str, aliases: tuple[str, ...] = ()) -> ConfigReader:
        """A reader of the sub-configuration ``key`` (``vision_config``, ``text_config``) as ``model_type`` (its own
        ``model_type`` key, where it has one, must be that, or one of ``aliases``: older files' names that the
        configuration class rewrites to it)."""
        value = self.raw(key)
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise self.error(key, f"expected a JSON object {{ … }}, got {json_type(value)}")
        written = value.get("model_type", model_type)
        if written != model_type and written not in aliases:
            raise InputError(f"{self.source}.{key}.model_type", f"{quoted(written, 60)}: this reader counts "
                                                                f"{quoted(model_type, 60)} here")
        return ConfigReader(value, model_type, f"{self.source}.{key}", self.library)
