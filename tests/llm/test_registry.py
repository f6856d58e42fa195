"""The family registry refuses what is not registered: a reader written and left unregistered, a lineage module
the package does not import, a ``model_type`` registered twice, an alias of an unknown type. The readers are
found by reading the lineage modules (every function of one ``c: Keys`` argument), not from a hand list."""
from __future__ import annotations

import ast
import importlib
import pkgutil

import pytest

import engine.llm.families as families
from engine.llm.families import FAMILIES, LINEAGES
from engine.llm.families.registry import DuplicateFamily, Family, register, register_alias, resolve_aliases

MACHINERY = {"keys", "parts", "registry", "reading"}
"""The package's modules that hold no family."""


def lineage_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(families.__path__) if m.name not in MACHINERY)


def readers_written(module_name: str) -> set[str]:
    """The module's functions of one argument annotated ``Keys``: a config.json reader each."""
    module = importlib.import_module(f"engine.llm.families.{module_name}")
    tree = ast.parse(open(module.__file__, encoding="utf-8").read())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and len(node.args.args) == 1 and not node.args.defaults \
                and getattr(node.args.args[0].annotation, "id", None) == "Keys":
            out.add(node.name)
    return out


def called_within(module_name: str) -> set[str]:
    module = importlib.import_module(f"engine.llm.families.{module_name}")
    tree = ast.parse(open(module.__file__, encoding="utf-8").read())
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def test_every_lineage_module_is_imported_by_the_package():
    """A lineage module the package leaves out registers nothing (its families would be refused as unknown)."""
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in LINEAGES) == lineage_modules()


@pytest.mark.parametrize("module_name", lineage_modules())
def test_every_reader_written_is_registered(module_name):
    """Each reader of a lineage module is registered under a ``model_type``, or read by another reader of its
    module that is (Mixtral's reads Mistral's)."""
    registered = {f.reader.__name__ for f in FAMILIES.values()
                  if f.reader.__module__ == f"engine.llm.families.{module_name}"}
    assert registered, f"{module_name} registers no family"
    unregistered = readers_written(module_name) - registered - called_within(module_name)
    assert not unregistered, f"written and never registered: {sorted(unregistered)}"


def test_a_model_type_registered_twice_is_refused():
    with pytest.raises(DuplicateFamily, match="'llama' is registered twice"):
        register("llama", {"LlamaForCausalLM": "lm"})(lambda c: {})
    assert FAMILIES["llama"].reader.__name__ == "_llama"  # the first one stays


def test_an_alias_of_an_unknown_type_is_refused():
    register_alias("not_a_family_alias", "not_a_family")
    with pytest.raises(DuplicateFamily, match="names 'not_a_family', which is not a registered family"):
        resolve_aliases()
    assert "not_a_family_alias" not in FAMILIES


def test_aliases_read_with_their_targets_reader_and_classes():
    """vLLM-style reuse: exaone reads as Llama (its classes), with ExaoneConfig's own defaults."""
    exaone = FAMILIES["exaone"]
    assert isinstance(exaone, Family) and exaone.alias_of == "llama"
    assert exaone.classes == FAMILIES["llama"].classes
    assert {t for t, f in FAMILIES.items() if f.alias_of} == {
        "exaone", "internlm3", "iquestcoder", "param2moe", "sarvam_moe", "sarvam_mla",
        # vision-language models' text towers, bare text models of their decoders' families
        "qwen2_vl_text", "qwen2_5_vl_text", "qwen2_5_omni_text", "qwen3_vl_text", "qwen3_vl_moe_text",
        "qwen3_omni_moe_text", "glm4v_moe_text"}
    with pytest.raises(TypeError):
        FAMILIES["x"] = exaone  # read-only: registration goes through register()
