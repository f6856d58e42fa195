"""The keys each model class the multimodal readers count takes from its ``config.json``, with the defaults the
library fills in — derived from the installed diffusers and transformers, not guessed:
``python -m tools.derive_multimodal_keys`` writes ``engine/multimodal/library_keys.json``: for every diffusers class
the readers in ``engine/multimodal/`` count, the parameters of its ``__init__`` (what ``from_config`` passes it) and
their declared defaults; for every transformers ``model_type`` they count, its configuration class's fields and
defaults (a file written by an older version lacks the keys added since, or, inside ``text_config`` and
``vision_config``, keeps only those that differ; the library fills the rest from these defaults, and so does the
reader). ``tests/multimodal/test_library_keys.py`` fails when the installed versions differ or the file is stale.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "engine" / "multimodal" / "library_keys.json"

CLASSES = ("UNet2DConditionModel", "UNet3DConditionModel", "AutoencoderKL", "AutoencoderKLCogVideoX",
           "AutoencoderKLWan", "PixArtTransformer2DModel", "DiTTransformer2DModel", "Transformer2DModel",
           "SD3Transformer2DModel", "FluxTransformer2DModel", "HunyuanDiT2DModel", "CogVideoXTransformer3DModel",
           "WanTransformer3DModel")
"""The diffusers classes the readers count (``engine.multimodal.registry``)."""

MODEL_TYPES = ("clip_text_model", "clip_vision_model", "clip", "siglip_vision_model", "siglip", "llava",
               "llava_next", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe",
               "gemma3", "paligemma", "idefics3", "smolvlm", "mllama", "llama4", "mistral3", "pixtral", "internvl",
               "whisper", "voxtral", "voxtral_encoder")
"""The transformers model types the readers count, with their sub-configurations' types (added below)."""

SHIPPED_CONFIGS = {"chatglm": ("diffusers.pipelines.kolors.text_encoder", "ChatGLMConfig")}
"""Model types outside transformers (remote code) whose configuration class diffusers ships: Kolors' ChatGLM3. Their
keys are the class's ``__init__`` parameters and defaults."""

_MISSING = "__required__"
_MISSING_FACTORY = "__factory__"
"""A field whose default is made by a factory (a list, a sub-configuration): read as absent."""


def _default(value):
    if value is inspect.Parameter.empty:
        return _MISSING
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def _config_fields(cls) -> dict:
    """A transformers configuration class's fields and their declared defaults (factories and sub-configurations
    left out: a sub-configuration is read with its own type's defaults)."""
    out = {}
    for field in dataclasses.fields(cls):
        if field.name.startswith("_") or field.name in ("architectures", "model_type", "transformers_version"):
            continue
        out[field.name] = _MISSING_FACTORY if field.default is dataclasses.MISSING else _default(field.default)
    return out


def _init_params(cls) -> dict:
    """The parameters of ``cls.__init__`` and their declared defaults."""
    params = inspect.signature(cls.__init__).parameters
    return {k: _default(p.default) for k, p in params.items()
            if k != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


def derive() -> dict:
    import diffusers
    import transformers
    from transformers import CONFIG_MAPPING

    classes = {name: _init_params(getattr(diffusers, name)) for name in CLASSES}
    types: dict[str, dict] = {t: _init_params(getattr(importlib.import_module(module), name))
                              for t, (module, name) in SHIPPED_CONFIGS.items()}
    todo = list(MODEL_TYPES)
    while todo:
        model_type = todo.pop()
        if model_type in types:
            continue
        cls = CONFIG_MAPPING[model_type]
        types[model_type] = _config_fields(cls)
        for sub in (getattr(cls, "sub_configs", None) or {}).values():
            sub_type = getattr(sub, "model_type", None)
            if isinstance(sub_type, str) and sub_type in CONFIG_MAPPING:
                todo.append(sub_type)
    return {"diffusers": diffusers.__version__, "transformers": transformers.__version__, "required": _MISSING,
            "factory": _MISSING_FACTORY, "classes": classes, "model_types": dict(sorted(types.items()))}


def main() -> None:
    OUTPUT.write_text(json.dumps(derive(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
