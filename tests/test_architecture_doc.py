"""docs/architecture.md is true: every path its "Where a change goes" table names exists, and every name it
tells a contributor to edit is defined where it says."""
from __future__ import annotations

import re

from tests.conftest import ROOT

DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _table() -> list[str]:
    section = DOC.split("## Where a change goes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| to add")]
    assert len(rows) >= 8
    return rows


def test_every_path_in_the_table_exists():
    for row in _table():
        for path in re.findall(r"`([\w./<>-]+\.(?:py|json|csv|md|ipynb))`", row):
            if "<" in path:  # a pattern: its folder must exist
                assert (ROOT / path.split("<")[0]).is_dir(), (row, path)
            elif "/" in path or (ROOT / path).exists():
                assert (ROOT / path).exists(), (row, path)


def test_every_name_in_the_table_is_defined_where_it_says():
    named = {"COMMANDS": "engine/cli/__init__.py", "TEXT": "engine/cli/text.py",
             "FAMILIES": "engine/llm/families/registry.py",
             "BASIC_KINDS": "engine/method1/layers.py", "VISION_KINDS": "engine/method1/vision.py",
             "_LAZY": "engine/__init__.py", "PAGES": "ui/navigation.py",
             "COSTS": "engine/importers/onnx_ops.py", "FREE": "engine/importers/onnx_ops.py",
             "GRAPHS": "tests/importers/test_onnx_ops.py",
             "MIXERS": "engine/method1/transformer/mixers.py", "PART_STARTERS": "ui/layer_form.py",
             "FAMILY_MODULES": "engine/multimodal/registry.py"}
    text = "\n".join(_table())
    for name in re.findall(r"`([A-Z_][A-Z_]+)`", text):
        assert name in named, f"{name}: say in this test where it is defined"
        assert re.search(rf"^{name}\b.*=", (ROOT / named[name]).read_text(encoding="utf-8"), re.M), name


def test_every_engine_module_is_on_the_map():
    listed = set(re.findall(r"([a-z_0-9]+)\.py", DOC.split("## How a scenario flows", 1)[0]))
    top = {p.stem for p in (ROOT / "engine").glob("*.py")} - {"__init__", "__main__"}
    assert top <= listed, f"engine modules missing from docs/architecture.md: {sorted(top - listed)}"
