"""The configs stored beside these tests (``configs/*.json``, each with its source in ``configs/SOURCES.json``)."""
from __future__ import annotations

import json
from pathlib import Path

CONFIGS = Path(__file__).with_name("configs")


def config(name: str) -> dict:
    """A stored config, decoded."""
    return json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))


def sources() -> dict:
    return json.loads((CONFIGS / "SOURCES.json").read_text(encoding="utf-8"))


def engine_count(data: dict, **inputs):
    """The engine's count of a config at ``inputs`` (image_size, frames, text_tokens…)."""
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.model import count
    from engine.multimodal.registry import read_model

    return count(read_model(data, media_inputs(inputs)))
