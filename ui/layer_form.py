"""A form for one layer, generated from its pydantic model: each kind's own parameters."""
from __future__ import annotations

import types
from typing import Annotated, Literal, Union, get_args, get_origin

import streamlit as st

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
    "transformer_block": {"heads": 8},
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
    "residual": {"body": [{"type": "activation"}]},
    "branches": {"branches": [[], [{"type": "activation"}]]},
    "repeat": {"times": 2, "layers": [{"type": "activation"}]},
}
"""Values a new layer of each kind starts with (the user edits them)."""

HIDDEN_FIELDS = {"type", "body", "shortcut", "layers", "branches", "trainable", "lora", "shared_block", "disentangled",
                 "input_convolution", "backward_macs", "trainable_params"}
"""Not edited as fields: the tag, a block's layer lists (edited layer by layer in the picker), Zamba2's shared
block and DeBERTa's position terms and input convolution (kept as read from the config), what trains
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


def layer_form(layer: dict, key_prefix: str):
    """Widgets for ``layer``'s fields; returns (edited layer dict, error message or None)."""
    kind = KIND_BY_TYPE[layer["type"]]
    edited: dict = {"type": layer["type"]}
    fields = [(n, f) for n, f in kind.model_fields.items() if n not in HIDDEN_FIELDS]
    for i, (name, info) in enumerate(fields):
        if i % 3 == 0:  # a row of three at a time: on a phone the fields stack in reading order
            columns = st.columns(3)
        widget, choices, optional = _widget_kind(info.annotation)
        current = layer.get(name, info.default)
        label = name.replace("_", " ")
        help_text = info.description
        key = f"{key_prefix}_{name}"
        with columns[i % 3]:
            if widget == "bool":
                edited[name] = st.checkbox(label, key=bind(key, bool(current)), help=help_text)
            elif widget == "choice":
                edited[name] = st.selectbox(label, choices, key=bind(key, current), help=help_text)
            elif widget == "int":
                edited[name] = st.number_input(label, min_value=0 if optional else _lowest(info, 1), step=1,
                                               key=bind(key, current), help=help_text
                                               or ("empty = automatic" if optional else None))
            elif widget == "float":
                edited[name] = st.number_input(label, step=0.05, format="%.3f", key=bind(key, current),
                                               help=help_text)
            elif widget == "sizes":
                text = st.text_input(label, key=bind(key, sizes_to_text(current)),
                                     help=help_text or "one number for every axis, or one per axis: 3 or 3, 5")
                edited[name] = text_to_sizes(text)
                if get_origin(_strip(info.annotation)) is list and isinstance(edited[name], int):
                    edited[name] = [edited[name]]
            else:
                edited[name] = st.text_input(label, key=bind(key, current or ""), max_chars=200, help=help_text)
        if optional and edited[name] in (None, 0, ""):
            edited[name] = None
    edited = {k: v for k, v in edited.items() if v is not None or k == "type"}
    for name in HIDDEN_FIELDS - {"type"}:  # a block keeps what it holds
        if name in layer:
            edited[name] = layer[name]
    try:
        parse_input(kind, edited)
    except InputError as exc:
        return edited, str(exc)
    return edited, None
