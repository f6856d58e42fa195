"""A decoder-only language model's shape, normalised, and a Hugging Face ``config.json`` reader.

``TransformerConfig`` is the one model of a language model's shape (the CLI's file, the dashboard's
"from HF config" form); ``read_hf_config`` maps either key family onto it:
GPT-2 style (``n_layer``, ``n_embd``, ``n_head``, ``n_inner``, ``n_positions``: gpt2, gptj) or
LLaMA style (``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``, ``num_key_value_heads``,
``intermediate_size``, …: gpt_neox, opt, llama, mistral, mixtral, qwen2). What each family's
modelling code fixes (norm kind, biases, gating, parallel layout, position table) comes from its
``model_type``. Extra keys are ignored; a missing or bad key that matters is named in the error.
"""
from __future__ import annotations

import json
from typing import Annotated, Callable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.method1.architecture import Architecture, InputSpec
from engine.json_text import parse_json_text
from engine.errors import InputError, json_type, parse_input
from engine.method1.layers import Embedding, LayerNorm, Size
from engine.scenario import Scenario
from engine.method1.training import TrainingSetup
from engine.method1.transformer import LMHead, PositionEmbedding, RMSNorm, TransformerBlock

MAX_TRANSFORMER_LAYERS = 10_000
MAX_CONFIG_BYTES = 1_000_000


class TransformerConfig(BaseModel):
    """A decoder-only language model: token embedding (V×d), an optional learned position table,
    ``layers`` identical blocks, a final norm (pre-norm models) and the LM head (tied or not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    model_type: str = Field("", max_length=100)
    layers: Annotated[int, Field(ge=1, le=MAX_TRANSFORMER_LAYERS)]
    d_model: Size
    vocab_size: Size
    context_length: Size | None = Field(None, description="Positions the model was built for (default T).")
    learned_positions: Size | None = Field(None, description="Rows of a learned position table (None: "
                                                             "rotary, ALiBi or none, which have no parameters).")
    tied_embeddings: bool = Field(True, description="The LM head reuses the token embedding's weights.")
    head_bias: bool = False
    block: TransformerBlock

    @model_validator(mode="after")
    def _heads_fit(self):
        if self.block.head_size is None and self.d_model % self.block.heads:
            raise InputError("block.heads", f"{self.block.heads} heads do not divide d_model {self.d_model} "
                                                 "(give the head size)")
        return self

    @property
    def vocabulary_params(self) -> int:
        """Token embedding, learned positions and an untied output matrix: Kaplan's "embedding" parameters."""
        matrices = 1 if self.tied_embeddings else 2
        return (matrices * self.vocab_size + (self.learned_positions or 0)) * self.d_model

    def architecture(self, seq_len: int) -> Architecture:
        """This model's layers for sequences of ``seq_len`` tokens: the engine's detailed count."""
        layers = [Embedding(vocab_size=self.vocab_size, dim=self.d_model)]
        if self.learned_positions:
            layers.append(PositionEmbedding(max_positions=self.learned_positions))
        layers += [self.block] * self.layers
        if self.block.norm_position == "pre":  # post-norm blocks end in a norm already
            layers.append(LayerNorm() if self.block.norm == "layernorm" else RMSNorm())
        layers.append(LMHead(vocab_size=self.vocab_size, tied=self.tied_embeddings, bias=self.head_bias))
        return Architecture(input=InputSpec(shape=[1], sequence_length=seq_len), layers=layers)

    def sequence_length(self, seq_len: int | None = None) -> int:
        """T for training: ``seq_len``, or else the context length; within a learned position table."""
        seq_len = seq_len or self.context_length
        if seq_len is None:
            raise InputError("seq_len", "the config gives no context length (n_positions, "
                                        "max_position_embeddings); give the training sequence length")
        if self.learned_positions and seq_len > self.learned_positions:
            raise InputError("seq_len", f"{seq_len} is longer than the model's {self.learned_positions} "
                                        "learned positions")
        return seq_len

    def scenario(self, tokens: float, seq_len: int | None = None, name: str = "") -> Scenario:
        """A method-1 scenario: these layers, trained on ``tokens`` in sequences of T = ``sequence_length``,
        i.e. tokens / T examples."""
        seq_len = self.sequence_length(seq_len)
        arch = self.architecture(seq_len)
        training = parse_input(TrainingSetup, {"examples": tokens / seq_len}, source="training")
        return Scenario(name=name, input=arch.input, layers=arch.layers, training=training)


def validate_transformer_config(data: object, source: str = "config",
                                key_of: dict[str, str] | None = None) -> TransformerConfig:
    """Validate normalised fields; an error names the field, or the config key it came from (``key_of``)."""
    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object {{ … }}, got {json_type(data)}")
    return parse_input(TransformerConfig, data, source=source, key_of=key_of)


# ---------------------------------------------------------------- reading config.json

_ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu", "gelu_fast": "gelu", "gelu_pytorch_tanh": "gelu",
                "quick_gelu": "gelu", "relu": "relu", "silu": "silu", "swish": "silu", "sigmoid": "sigmoid",
                "tanh": "tanh"}
"""Hugging Face activation names → the block's (tanh approximations of GELU count as GELU)."""


class _Keys:
    """Typed reads from a config dict that remember which key gave each field, for error messages."""

    def __init__(self, data: dict, source: str):
        self.data, self.source, self.key_of = data, source, {}

    def error(self, key: str, reason: str) -> InputError:
        return InputError(f"{self.source}.{key}", reason)

    def size(self, field: str, *keys: str, required: bool = True):
        """The first of ``keys`` present (and not null): a whole number, range-checked by the model."""
        for key in keys:
            value = self.data.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.error(key, f"expected a whole number, got {json.dumps(value)[:40]}")
            self.key_of[field] = key
            return value
        if required:
            raise self.error(keys[0], "missing" + (f" (or {', '.join(keys[1:])})" if keys[1:] else ""))
        return None

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {json.dumps(value)[:40]}")
        return value

    def activation(self, key: str, default: str) -> str:
        name = self.data.get(key, default)
        if not isinstance(name, str) or name not in _ACTIVATIONS:
            raise self.error(key, f"unknown activation {json.dumps(name)[:40]}; known: {', '.join(_ACTIVATIONS)}")
        return _ACTIVATIONS[name]

    def refuse(self, key: str, unless: Callable[[object], bool], why: str) -> None:
        """A key that changes the count in a way this reader does not model."""
        if key in self.data and not unless(self.data[key]):
            raise self.error(key, f"{json.dumps(self.data[key])[:40]} is not supported ({why})")


def _gpt2_style(c: _Keys, **block) -> dict:
    """gpt2, gptj: n_layer, n_embd, n_head, n_inner (null: 4·d)."""
    return {"layers": c.size("layers", "n_layer"), "d_model": c.size("d_model", "n_embd"),
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "n_positions", "n_ctx", required=False),
            "block": {"heads": c.size("block.heads", "n_head"),
                      "ff_size": c.size("block.ff_size", "n_inner", required=False),
                      "activation": c.activation("activation_function", "gelu_new"), **block}}


def _llama_style(c: _Keys, ff_key: str = "intermediate_size", **block) -> dict:
    """num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, head_dim, intermediate_size."""
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": c.size("d_model", "hidden_size"),
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "max_position_embeddings", required=False),
            "block": {"heads": c.size("block.heads", "num_attention_heads"),
                      "kv_heads": c.size("block.kv_heads", "num_key_value_heads", required=False),
                      "head_size": c.size("block.head_size", "head_dim", required=False),
                      "ff_size": c.size("block.ff_size", ff_key), **block}}


def _learned_positions(c: _Keys, fields: dict, key: str, offset: int = 0):
    """The rows of a learned position table: the context length (+ an offset), which must be given."""
    if fields["context_length"] is None:
        raise c.error(key, "missing (the length of the learned position table)")
    return fields["context_length"] + offset


def _gpt2(c: _Keys) -> dict:
    c.refuse("add_cross_attention", lambda v: not v, "cross-attention needs the encoder's length")
    fields = _gpt2_style(c)
    return fields | {"learned_positions": _learned_positions(c, fields, "n_positions"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _gptj(c: _Keys) -> dict:
    # GPTJBlock: one ln_1 feeds attention and MLP in parallel; q/k/v/out have no bias; lm_head has one
    fields = _gpt2_style(c, parallel=True, shared_norm=True, qkv_bias=False, out_bias=False)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "head_bias": True}


def _gpt_neox(c: _Keys) -> dict:
    attention_bias = c.flag("attention_bias", True)
    fields = _llama_style(c, parallel=c.flag("use_parallel_residual", True), qkv_bias=attention_bias,
                          out_bias=attention_bias, activation=c.activation("hidden_act", "gelu"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _opt(c: _Keys) -> dict:
    c.refuse("word_embed_proj_dim", lambda v: v == c.data.get("hidden_size"),
             "embedding projections in and out of a narrower table")
    c.refuse("_remove_final_layer_norm", lambda v: not v, "no final norm")
    bias = c.flag("enable_bias", True)
    fields = _llama_style(c, ff_key="ffn_dim", qkv_bias=bias, out_bias=bias, ff_bias=bias,
                          norm_position="pre" if c.flag("do_layer_norm_before", True) else "post",
                          activation=c.activation("activation_function", "relu"))
    # OPTLearnedPositionalEmbedding keeps 2 extra rows (its offset)
    return fields | {"learned_positions": _learned_positions(c, fields, "max_position_embeddings", 2),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _llama(c: _Keys, qkv_bias: bool | None = None, out_bias: bool | None = None, ff_bias: bool | None = None,
           **block) -> dict:
    """llama, mistral, mixtral, qwen2: RMSNorm, SwiGLU, rotary positions."""
    attention_bias = c.flag("attention_bias", False)
    fields = _llama_style(c, norm="rmsnorm", gated=True, activation=c.activation("hidden_act", "silu"),
                          qkv_bias=attention_bias if qkv_bias is None else qkv_bias,
                          out_bias=attention_bias if out_bias is None else out_bias,
                          ff_bias=c.flag("mlp_bias", False) if ff_bias is None else ff_bias, **block)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _mistral(c: _Keys) -> dict:
    """mistral (and mixtral): ``sliding_window`` W (null: full attention) on every layer."""
    return _llama(c, qkv_bias=False, out_bias=False, ff_bias=False,
                  attention_window=c.size("block.attention_window", "sliding_window", required=False))


def _qwen2(c: _Keys) -> dict:
    """qwen2: q/k/v biases only (Qwen2Attention); windows, when used, apply from ``max_window_layers`` on."""
    c.refuse("use_sliding_window", lambda v: not v, "Qwen2 windows only the layers from max_window_layers "
                                                    "on; a per-layer window is not modelled")
    return _llama(c, qkv_bias=True, out_bias=False, ff_bias=False)


def _mixtral(c: _Keys) -> dict:
    fields = _mistral(c)
    fields["block"] |= {"experts": c.size("block.experts", "num_local_experts"),
                        "active_experts": c.size("block.active_experts", "num_experts_per_tok")}
    return fields


FAMILIES: dict[str, Callable[[_Keys], dict]] = {
    "gpt2": _gpt2, "gptj": _gptj, "gpt_neox": _gpt_neox, "opt": _opt, "llama": _llama,
    "mistral": _mistral, "mixtral": _mixtral, "qwen2": _qwen2,
}
"""``model_type`` → reader. Others are refused by name rather than guessed."""


def _model_type(data: dict, source: str) -> str:
    model_type = data.get("model_type")
    if model_type is None:  # older or hand-written configs: infer the family from the keys
        if "n_embd" in data:
            return "gpt2"
        if "hidden_size" in data:
            return "opt" if "ffn_dim" in data else "mixtral" if "num_local_experts" in data else "llama"
        raise InputError(f"{source}.model_type", "missing, and neither n_embd (GPT-2 style) nor hidden_size "
                                                  "(LLaMA style) is given")
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        raise InputError(f"{source}.model_type", f"{json.dumps(model_type)[:40]} is not a decoder-only family "
                                                  f"this reader knows ({', '.join(FAMILIES)}); set the closest one "
                                                  "to read the file like it")
    return model_type


def read_hf_config(data: object, source: str = "config") -> TransformerConfig:
    """A Hugging Face ``config.json`` (decoded) → ``TransformerConfig``; ``InputError`` naming the key."""
    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object {{ … }}, got {json_type(data)}")
    model_type = _model_type(data, source)
    keys = _Keys(data, source)
    fields = FAMILIES[model_type](keys) | {"model_type": model_type}
    return validate_transformer_config(fields, source, keys.key_of)


def load_hf_config_text(text: str | bytes, source: str = "config") -> TransformerConfig:
    """JSON text (a file, an upload) → ``TransformerConfig``."""
    return read_hf_config(parse_json_text(text, source, MAX_CONFIG_BYTES), source)

