"""Multimodal checkpoints whose language model is a family the reader counts — derived from the installed
transformers, not guessed: ``python -m tools.derive_multimodal_wrappers`` writes
``engine/llm/multimodal_wrappers.json``: for every ``model_type`` of ``CONFIG_MAPPING`` whose config class has a
``text_config`` sub-configuration and a class that generates text (in transformers' image-text-to-text,
vision-to-sequence, causal-LM, speech-to-sequence, multimodal-LM or audio-text-to-text mappings: its language
model ends in an LM head), that class, the ``model_type`` of its default text configuration and the wrapper's own
default ``tie_word_embeddings`` (the wrapper's value, not the text configuration's, decides whether the language
model's head shares the token table: Mistral 3's wrapper ties by default, its Mistral text config does not); and
for each such text ``model_type``, its configuration class's defaults (``text_defaults``): files written by
transformers 4.x keep in ``text_config`` only the keys that differ from them (Gemma 3's omit the head counts),
and transformers fills the rest from the same class.
``tests/llm/test_multimodal_configs.py`` fails when the installed version differs or the file is stale.
"""
from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "engine" / "llm" / "multimodal_wrappers.json"


GENERATING = ("MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES", "MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES",
              "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES",
              "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES", "MODEL_FOR_AUDIO_TEXT_TO_TEXT_MAPPING_NAMES")


def generating_class(model_type: str) -> str | None:
    """The first class of ``GENERATING`` transformers maps ``model_type`` to, or None."""
    from transformers.models.auto import modeling_auto

    for mapping in GENERATING:
        names = getattr(modeling_auto, mapping, {})
        if model_type in names and isinstance(names[model_type], str):
            return names[model_type]
    return None


def field_defaults(config_cls) -> dict:
    """The configuration class's declared defaults (its dataclass fields): the values, not what ``__post_init__``
    computes from them (Gemma 3's ``layer_types`` follows the file's layer count); None and factories left out
    (absent is the same as None to the reader)."""
    out = {}
    for field in dataclasses.fields(config_cls):
        value = field.default
        if value is dataclasses.MISSING or value is None or field.name.startswith("_") \
                or field.name in ("architectures", "model_type", "transformers_version"):
            continue
        try:
            out[field.name] = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            continue
    return out


def derive() -> dict:
    import transformers
    from transformers import CONFIG_MAPPING

    wrappers = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        cls = CONFIG_MAPPING[model_type]
        generating = generating_class(model_type)
        if "text_config" not in (getattr(cls, "sub_configs", None) or {}) or generating is None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                config = cls()
            text = config.text_config
        except Exception:  # a wrapper whose defaults do not build (it needs arguments): not readable here
            continue
        text_type = getattr(text, "model_type", None)
        if not isinstance(text_type, str) or not text_type:
            continue
        tie = getattr(config, "tie_word_embeddings", None)
        wrappers[model_type] = {"class": generating, "text_model_type": text_type,
                                "tie_word_embeddings": tie if isinstance(tie, bool) else None}
    defaults = {text_type: field_defaults(CONFIG_MAPPING[text_type])
                for text_type in sorted({w["text_model_type"] for w in wrappers.values()})}
    return {"transformers": transformers.__version__, "wrappers": wrappers, "text_defaults": defaults}


def main() -> None:
    OUTPUT.write_text(json.dumps(derive(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
