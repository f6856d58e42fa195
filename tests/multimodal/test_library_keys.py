"""``engine/multimodal/library_keys.json`` (the keys and defaults of every class and model type the multimodal readers
count) is what the installed diffusers and transformers declare: stale → ``python -m tools.derive_multimodal_keys``;
and every family the registry reads has its keys there."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("diffusers")
pytest.importorskip("transformers")


def test_the_derived_file_is_current():
    from engine.multimodal.config_reader import keys_file
    from tools.derive_multimodal_keys import derive

    assert keys_file() == json.loads(json.dumps(derive())), \
        "engine/multimodal/library_keys.json is stale: python -m tools.derive_multimodal_keys"


def test_every_registered_family_has_its_keys():
    from engine.multimodal.config_reader import keys_file
    from engine.multimodal.registry import diffusers_classes, transformers_types

    keys = keys_file()
    assert set(diffusers_classes()) <= set(keys["classes"])
    assert set(transformers_types()) <= set(keys["model_types"])
