"""A form for one layer, generated from its pydantic model: each kind's own parameters."""
from __future__ import annotations

import types
from typing import Annotated, Literal, Union, get_args, get_origin

import streamlit as st
from pydantic import BaseModel

from engine.errors import InputError, parse_input
from engine.method1.kinds import KIND_BY_TYPE
from ui.state import bind

STARTER_VALUES: dict[str, dict] = {
    "dense": {"units": 128},
    "conv1d": {"filters": 32, "kernel_size": 3, "padding": 1},
    "conv2d": {"filters": 32, "kernel_size": 3, "padding": 1},
    "conv3d": {"filters": 16, "kernel_size": 3, "padding": 1},
    "conv_transpose2d": {"filters": 16, "kernel_size": 4, "stride": 2, "padding": 1},
    "rnn": {"units": 128}, "gru": {"units": 128}, "lstm": {"units": 128},
    "self_attention": {"key_size": 64, "value_size": 64},
    "multi_head_attention": {"heads": 8},
    "embedding": {"vocab_size": 32_000, "dim": 512},
    "max_pool2d": {"kernel_size": 2}, "avg_pool2d": {"kernel_size": 2},
    "transformer_block": {"mixer": {"heads": 8}},
    "position_embedding": {"max_positions": 2048},
    "lm_head": {"vocab_size": 32_000},
    "token_type_embedding": {"types": 2},
    "relative_position_bias": {"buckets": 32, "heads": 8},
    "relative_position_table": {"rows": 512},
    "per_layer_embeddings": {"vocab_size": 262_144, "blocks": 35, "size": 256},
    "hyper_head": {"streams": 4},
    "window_attention": {"heads": 4},
    "decoder_input": {"length": 128},
    "spare_token_table": {"vocab_size": 32_000},
    "contact_head": {"maps": 660},
    "bottleneck_block": {"heads": 4, "bottleneck": 128, "ff_size": 512, "feed_forwards": 4},
    "mobilebert_embeddings": {"d_model": 512, "max_positions": 512, "types": 2},
    "group_norm": {"groups": 32},
    "conditioning_dense": {"in_features": 1280, "units": 320},
    "attention_core": {"heads": 8, "head_size": 64},
    "tokens_to_grid": {"grid": [16, 16]},
    "stream_dense": {"units": 512, "streams": [256, 77]},
    "sequence_slice": {"length": 256},
    "text_tokens": {"vocab_size": 32_000, "tokens": 64},
    "context_tokens": {"tokens": 77, "in_features": 768},
    "attention_pool": {"heads": 8},
    "merge_tokens": {"factor": 4},
    "learned_values": {"count": 6},
    "each": {"layers": [{"type": "activation"}]},
    "unused": {"layers": [{"type": "activation"}]},
    "residual": {"body": [{"type": "activation"}]},
    "branches": {"branches": [[], [{"type": "activation"}]]},
    "repeat": {"times": 2, "layers": [{"type": "activation"}]},
}
"""Values a new layer of each kind starts with (the user edits them)."""

HIDDEN_FIELDS = {"type", "body", "shortcut", "layers", "branches", "trainable", "lora", "shared_block", "hyper",
                 "input_convolution", "backward_macs", "trainable_params"}
"""Not edited as fields: the tag, a block's layer lists (edited layer by layer in the picker), Zamba2's shared
block, DeepSeek-V4's hyper-connections and DeBERTa's input convolution (kept as read from the config), what trains
(its own widgets: ``ui.components.fine_tune.trainability_controls``), and a counted row's backward pass and
trained parameters as counted (0 is a count there, not "automatic"; kept as the row holds them)."""


def _strip(annotation):
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _widget_kind(annotation) -> tuple[str, tuple, bool]:
    """(kind, choices, optional) for a field's annotation: bool, choice, int, float, text or sizes."""
    annotation = _strip(annotation)
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [_strip(a) for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        if len(args) == 1:
            kind, choices, _ = _widget_kind(args[0])
            return kind, choices, optional
        return "sizes", (), optional
    if origin is Literal:
        return "choice", get_args(annotation), False
    if origin is list:  # a shape (the counted kind's output shape)
        return "sizes", (), False
    if annotation is bool:
        return "bool", (), False
    if annotation is int:
        return "int", (), False
    if annotation is float:
        return "float", (), False
    return "text", (), False


def sizes_to_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def text_to_sizes(text: str):
    """'3' → 3, '3, 5' → [3, 5], 'same' → 'same'; other text is passed on for validation to name."""
    text = text.strip()
    if not text:
        return None
    parts = [p.strip() for p in text.replace(";", ",").split(",")]
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        return text
    return numbers[0] if len(numbers) == 1 else numbers


def starter_layer(kind: str) -> dict:
    return {"type": kind, **STARTER_VALUES.get(kind, {})}


def _lowest(info, default: int) -> int:
    """The field's own lower bound (``ge``) where it states one (a counted row's 0 parameters), else ``default``."""
    for annotation in [info.annotation, *get_args(info.annotation)]:
        for meta in [*info.metadata, *getattr(annotation, "__metadata__", ())]:
            for item in [meta, *getattr(meta, "metadata", ())]:
                if getattr(item, "ge", None) is not None:
                    return int(item.ge)
    return default


PART_STARTERS: dict[str, dict] = {
    "attention": {"heads": 8},
    "latent": {"heads": 8, "kv_lora_rank": 128, "rope_head_size": 16, "value_head_size": 32},
    "compressed": {"heads": 8, "q_lora_rank": 256, "output_groups": 2, "output_rank": 128},
    "lightning": {"heads": 8, "block_size": 256},
    "mamba": {"inner_size": 1024, "state_size": 16, "conv_kernel": 4, "dt_rank": 32},
    "mamba2": {"inner_size": 1024, "state_size": 64, "conv_kernel": 4, "heads": 16, "groups": 1, "chunk_size": 64},
    "gated_deltanet": {"inner_size": 1024, "state_size": 64, "conv_kernel": 4, "heads": 16, "groups": 8,
                       "chunk_size": 64},
    "short_conv": {"conv_kernel": 3},
    "none": {},
    "experts": {"count": 8, "active": 2},
}
"""Values a part starts with when its kind is chosen (or it is switched on)."""

PART_HIDDEN = {"kind", "disentangled", "beside"}
"""A part's fields kept as read (DeBERTa's position terms, Falcon-H1's Mamba-2 beside attention) or chosen above
(its kind)."""


def _models_of(annotation) -> tuple[list[type[BaseModel]], bool]:
    """(the pydantic models a field holds, optional) — one for a plain part, several for a tagged union."""
    annotation = _strip(annotation)
    args = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    models = [_strip(a) for a in args if a is not type(None)]
    models = [m for m in models if isinstance(m, type) and issubclass(m, BaseModel)]
    return models, type(None) in args


def _scalar(name: str, info, current, key: str):
    """One widget for a field that holds a value (not a part); → its value (None: automatic)."""
    widget, choices, optional = _widget_kind(info.annotation)
    label = name.replace("_", " ")
    help_text = info.description
    if widget == "bool":
        value = st.checkbox(label, key=bind(key, bool(current)), help=help_text)
    elif widget == "choice":
        value = st.selectbox(label, choices, key=bind(key, current), help=help_text)
    elif widget == "int":
        value = st.number_input(label, min_value=0 if optional else _lowest(info, 1), step=1, key=bind(key, current),
                                help=help_text or ("empty = automatic" if optional else None))
    elif widget == "float":
        value = st.number_input(label, step=0.05, format="%.3f", key=bind(key, current), help=help_text)
    elif widget == "sizes":
        text = st.text_input(label, key=bind(key, sizes_to_text(current)),
                             help=help_text or "one number for every axis, or one per axis: 3 or 3, 5")
        value = text_to_sizes(text)
        if get_origin(_strip(info.annotation)) is list and isinstance(value, int):
            value = [value]
    else:
        value = st.text_input(label, key=bind(key, current or ""), max_chars=200, help=help_text)
    return None if optional and value in (None, 0, "") else value


def _fields(model: type[BaseModel], values: dict, key_prefix: str, hidden: set[str]) -> dict:
    """Widgets for ``model``'s fields (three a row: on a phone they stack in reading order), its parts below them,
    each under its name; → the edited values (what is hidden kept as it was)."""
    edited: dict = {}
    scalars, parts = [], []
    for name, info in model.model_fields.items():
        if name in hidden:
            continue
        (parts if _models_of(info.annotation)[0] else scalars).append((name, info))
    for i, (name, info) in enumerate(scalars):
        if i % 3 == 0:
            columns = st.columns(3)
        with columns[i % 3]:
            edited[name] = _scalar(name, info, values.get(name, info.default), f"{key_prefix}_{name}")
    edited = {k: v for k, v in edited.items() if v is not None}
    for name, info in parts:
        edited[name] = _part(name, info, values.get(name, info.get_default()), f"{key_prefix}_{name}")
        if edited[name] is _ABSENT:
            del edited[name]
    for name in hidden - {"type", "kind"}:
        if name in values:
            edited[name] = values[name]
    return edited


_ABSENT = object()


def _part(name: str, info, current, key: str):
    """A part of a layer (a block's mixer, feed-forward, norms; its experts): its kind (a tagged union) or whether
    it is there (an optional part), then its own fields. → its values, None (switched off) or ``_ABSENT``."""
    models, optional = _models_of(info.annotation)
    if isinstance(current, BaseModel):
        current = current.model_dump(mode="json", exclude_defaults=True)
    st.caption(name.replace("_", " "))
    if optional:
        on = st.checkbox(f"with {name.replace('_', ' ')}", key=bind(f"{key}_on", current is not None),
                         help=info.description)
        if not on:
            return None if info.default is not None else _ABSENT
        current = current if isinstance(current, dict) else dict(PART_STARTERS.get(name, {}))
    current = current if isinstance(current, dict) else {}
    model = models[0]
    if len(models) > 1:  # a tagged union: the kind first
        kinds = [m.model_fields["kind"].default for m in models]
        kind = current.get("kind", kinds[0])
        chosen = st.selectbox(f"{name.replace('_', ' ')} kind", kinds, key=bind(f"{key}_kind", kind),
                              help=info.description)
        if chosen != kind:
            current = dict(PART_STARTERS.get(chosen, {}))
        model = models[kinds.index(chosen)]
        return {"kind": chosen, **_fields(model, current, f"{key}_{chosen}", PART_HIDDEN)}
    return _fields(model, current, key, PART_HIDDEN)


def layer_form(layer: dict, key_prefix: str):
    """Widgets for ``layer``'s fields; returns (edited layer dict, error message or None)."""
    kind = KIND_BY_TYPE[layer["type"]]
    edited = {"type": layer["type"], **_fields(kind, layer, key_prefix, HIDDEN_FIELDS)}
    try:
        parse_input(kind, edited)
    except InputError as exc:
        return edited, str(exc)
    return edited, None
