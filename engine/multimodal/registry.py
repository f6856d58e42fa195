"""The readers of multimodal and generative configs, one registry: a diffusers config is known by its
``_class_name``, a transformers one by its ``model_type``. ``reader`` registers a function under its names and
refuses a name registered twice; ``read_model`` picks the reader and refuses, by name, a class or type no reader
counts. The family modules (one file per lineage) register themselves when ``FAMILY_MODULES`` are imported.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import NamedTuple

from ..errors import InputError, json_type, quoted
from ..llm.families.keys import MAX_LAYERS
from .inputs import MediaInputs
from .model import ReadModel

FAMILY_MODULES = (".unet", ".vae", ".text_encoders", ".chatglm",
                  ".dit", ".mmdit", ".video", ".video_vae",
                  ".hunyuan", ".unet3d", ".vision_towers",
                  ".llava", ".gemma", ".qwen_vl",
                  ".mistral", ".audio",
                  ".idefics", ".internvl",
                  ".llama4", ".mllama")
"""The modules whose readers register here (relative to this package)."""

Reader = Callable[[dict, MediaInputs, str], ReadModel]


class Entry(NamedTuple):
    """A reader and the family it reads (shown in refusals and docs)."""

    read: Reader
    family: str


_DIFFUSERS: dict[str, Entry] = {}
_TRANSFORMERS: dict[str, Entry] = {}


def reader(*names: str, family: str, library: str = "diffusers") -> Callable[[Reader], Reader]:
    """Register the decorated function as the reader of ``names`` (diffusers class names, or transformers model
    types with ``library="transformers"``); a name registered twice is an error."""
    table = _DIFFUSERS if library == "diffusers" else _TRANSFORMERS

    def register(fn: Reader) -> Reader:
        for name in names:
            if name in table:
                raise ValueError(f"{library} reader for {name!r} registered twice ({table[name].read.__module__} "
                                 f"and {fn.__module__})")
            table[name] = Entry(fn, family)
        return fn

    return register


def _load() -> None:
    for module in FAMILY_MODULES:
        importlib.import_module(module, __package__)


def diffusers_classes() -> dict[str, str]:
    """Every diffusers class a reader counts → its family."""
    _load()
    return {name: e.family for name, e in sorted(_DIFFUSERS.items())}


def transformers_types() -> dict[str, str]:
    """Every transformers ``model_type`` a reader here counts → its family."""
    _load()
    return {name: e.family for name, e in sorted(_TRANSFORMERS.items())}


def is_multimodal(data: object) -> bool:
    """Whether a decoded config is read here (a diffusers class, or a model type of this registry)."""
    if not isinstance(data, dict):
        return False
    _load()
    return "_class_name" in data or data.get("model_type") in _TRANSFORMERS


DEPTH_KEY = re.compile(r"layers|depth|blocks", re.IGNORECASE)
"""The keys whose numbers the readers turn into as many layers (``num_hidden_layers``, a vision tower's ``depth``,
``layers_per_block``, ``num_single_layers``, ``encoder_layers``…)."""


def _check_depths(data: dict, source: str) -> None:
    """Every depth in ``data`` (at any level: a VLM's ``vision_config``, a U-Net's per-block lists) at most
    ``MAX_LAYERS``, as a language model's: refused by name before any layer is built (10⁹ vision layers filled the
    memory for minutes)."""
    stack = [(data, source)]
    while stack:
        node, path = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            here = f"{path}.{key}" if isinstance(node, dict) else f"{path}[{key}]"
            if isinstance(value, (dict, list)):
                stack.append((value, here))
            elif (type(value) is int and value > MAX_LAYERS
                  and DEPTH_KEY.search(here.rsplit(".", 1)[-1].split("[")[0])):
                raise InputError(here, f"{value:,} layers is more than the {MAX_LAYERS:,} a model may have")


def read_model(data: object, inputs: MediaInputs, source: str = "config") -> ReadModel:
    """The reader for ``data``'s ``_class_name`` (diffusers) or ``model_type`` (transformers)."""
    if not isinstance(data, dict):
        raise InputError(source, f"expected a JSON object {{ … }}, got {json_type(data)}")
    _check_depths(data, source)
    _load()
    if "_class_name" in data:
        name = data["_class_name"]
        entry = _DIFFUSERS.get(name) if isinstance(name, str) else None
        if entry is None:
            raise InputError(f"{source}._class_name", f"{quoted(name, 60)} is not a diffusers model this reader "
                                                      f"counts (counted: {', '.join(sorted(_DIFFUSERS))})")
        return _heard(entry.read(data, inputs, source), inputs)
    model_type = data.get("model_type")
    entry = _TRANSFORMERS.get(model_type) if isinstance(model_type, str) else None
    if entry is None:
        raise InputError(f"{source}.model_type", f"{quoted(model_type, 60)} is not a multimodal model this reader "
                                                 f"counts (counted: {', '.join(sorted(_TRANSFORMERS))})")
    return _heard(entry.read(data, inputs, source), inputs)


def _heard(model: ReadModel, inputs: MediaInputs) -> ReadModel:
    """The model read, where it reads the audio given: seconds of audio given to a model that takes none are
    refused, as video frames given to an image model are (the count would silently leave them out)."""
    if inputs.audio_seconds is not None and "audio_seconds" not in model.inputs:
        raise InputError("audio_seconds", f"{model.config_class} takes no audio")
    return model
