"""Every kind in the registry is checked against an external counter: a new kind fails here until a test
compares it with PyTorch (or, for the parts of language models, until a published model that the
transformers cross-check builds uses it)."""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from engine.method1.kinds import KIND_BY_TYPE

TESTS = Path(__file__).resolve().parents[1]
_TORCH_MARKERS = ("FlopCounterMode", "torch_nets", "hf_reference", "(torch)", "(torch,", ", torch)", ", torch,")


def _torch_test_sources() -> list[str]:
    """The text of every test module that compares with PyTorch (it uses the counter, the twins or the
    ``torch`` fixture)."""
    texts = (p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py"))
    return [t for t in texts if any(marker in t for marker in _TORCH_MARKERS)]


def _kinds_in(layers) -> set[str]:
    found = set()
    for layer in layers:
        found.add(layer.type)
        for child in ("layers", "body", "shortcut"):
            found |= _kinds_in(getattr(layer, child, None) or [])
        for branch in getattr(layer, "branches", None) or []:
            found |= _kinds_in(branch)
    return found


def _kinds_of(configs) -> set[str]:
    """The kinds the language models of these config.json dicts are made of (checked against transformers
    in tests/llm/test_families_hf.py)."""
    from engine.llm.config import read_hf_config

    used: set[str] = set()
    for data in configs:
        config = read_hf_config(data)
        used |= _kinds_in(config.architecture(config.sequence_length(min(config.context_length or 64, 64))).layers)
    return used


def test_every_kind_has_an_external_check():
    sources = _torch_test_sources()
    named = {k for k in KIND_BY_TYPE if any(f'"{k}"' in s or f"'{k}'" in s for s in sources)}
    rest = set(KIND_BY_TYPE) - named
    if rest:  # the parts of language models: checked through whole models built by transformers
        from engine.llm.library import library_models

        configs = [model.config for model in library_models()]
        if rest - _kinds_of(configs):  # and the small configs that switch each option the readers know
            pytest.importorskip("transformers")
            from tests.llm.test_families_hf import VARIANTS

            configs += list(VARIANTS.values())
        rest -= _kinds_of(configs)
    assert not rest, f"kinds with no comparison against PyTorch or transformers: {sorted(rest)}"


def test_every_kind_is_in_the_scenario_schema_and_documented():
    from engine.scenario import Scenario

    schema = str(Scenario.model_json_schema())
    for kind_type, kind in KIND_BY_TYPE.items():
        assert f"'{kind_type}'" in schema, kind_type
        assert (inspect.getdoc(kind) or "").strip(), f"{kind_type} has no docstring"
