"""The kinds' registry refuses what is not registered: every layer kind defined anywhere in the engine (found by
walking ``LayerBase``'s subclasses once every engine module is imported, not from a hand list) is in the tagged
union, and every kind is checked against an external counter — a test marked ``external_check("<type>")`` that
compares it with PyTorch, or, for the parts of language models, a published model (or a small config switching
each option a reader knows) that the transformers cross-check builds."""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import engine
from engine.method1.kinds import KIND_BY_TYPE, LAYER_KINDS
from engine.method1.layers import LayerBase

TESTS = Path(__file__).resolve().parents[1]


def defined_kinds() -> set[type[LayerBase]]:
    """Every concrete layer kind the engine defines: the subclasses of ``LayerBase`` with a ``type`` tag, every
    engine module imported first."""
    for module in pkgutil.walk_packages(engine.__path__, "engine."):
        if module.name != "engine.__main__":
            importlib.import_module(module.name)
    found, todo = set(), [LayerBase]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            tag = sub.model_fields.get("type")
            if tag is not None and isinstance(tag.default, str):
                found.add(sub)
    return found


def externally_checked() -> dict[str, list[str]]:
    """``type`` → the tests marked ``@pytest.mark.external_check(...)`` with it, read from every test module."""
    out: dict[str, list[str]] = {}
    for path in TESTS.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for mark in node.decorator_list:
                if isinstance(mark, ast.Call) and ast.unparse(mark.func) == "pytest.mark.external_check":
                    for arg in mark.args:
                        out.setdefault(arg.value, []).append(f"{path.relative_to(TESTS)}::{node.name}")
    return out


def test_every_defined_kind_is_registered():
    """A kind class written and left out of its module's kinds tuple (``BASIC_KINDS``, ``VISION_KINDS``…) is
    not in the scenario's tagged union: no file, link or form could use it."""
    missing = {k.__name__ for k in defined_kinds()} - {k.__name__ for k in LAYER_KINDS}
    assert not missing, f"layer kinds defined and not registered: {sorted(missing)}"
    assert len(KIND_BY_TYPE) == len(LAYER_KINDS), "two kinds share a type tag"


def test_the_external_check_marks_name_real_kinds():
    marked = externally_checked()
    assert marked, "no test is marked external_check"
    assert set(marked) <= set(KIND_BY_TYPE), f"marks naming no kind: {sorted(set(marked) - set(KIND_BY_TYPE))}"


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
    rest = set(KIND_BY_TYPE) - set(externally_checked())
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


def test_every_mixer_kind_is_in_the_union():
    """A mixer written in ``engine.method1.transformer.mixers`` (a model with a ``kind`` tag and rows) and left out
    of ``MIXERS`` could be named in no file or link."""
    import inspect as _inspect

    from engine.method1.transformer import mixers

    written = {cls for _, cls in _inspect.getmembers(mixers, _inspect.isclass)
               if cls.__module__ == mixers.__name__ and "kind" in getattr(cls, "model_fields", {})
               and hasattr(cls, "rows")}
    assert written == set(mixers.MIXERS), sorted(c.__name__ for c in written ^ set(mixers.MIXERS))
