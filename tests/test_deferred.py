"""Validators built on first use (``engine/deferred.py``): the layer union validated kind by kind gives pydantic's own
errors for the whole union, the table of kinds refuses what does not match, and an input imports only what it names."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Literal, Union

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from engine.deferred import TaggedUnion
from engine.method1.blocks import LAYERS
from engine.method1.kind_table import KIND_TABLE
from engine.method1.kinds import LAYER_KINDS

ROOT = Path(__file__).resolve().parents[1]
WHOLE = TypeAdapter(list[Annotated[Union[LAYER_KINDS], Field(discriminator="type")]])
"""The union as pydantic builds it from every kind at once: what the deferred one must equal."""
LAZY = TypeAdapter(list[Annotated[BaseModel, LAYERS]])

INPUTS = [
    [{"type": "dense", "units": 0}],
    [{"type": "dense", "units": "x", "bias": 3, "extra": 1}],
    [{"type": "dénse", "units": 4}],
    [{"units": 4}],
    [5, "dense", None, []],
    [{"type": 7}],
    [{"type": "residual", "body": [{"type": "conv2d", "filters": -1, "kernel_size": 3}]}],
    [{"type": "branches", "branches": [[{"type": "nope"}], []], "merge": "add"}],
    [{"type": "transformer_block", "heads": 0}],
    [{"type": "activation", "function": "relu"}, {"type": "layer_norm", "eps": "x"}],
]


def _errors(adapter: TypeAdapter, data) -> list[dict]:
    with pytest.raises(ValidationError) as caught:
        adapter.validate_python(data)
    return [{k: v for k, v in e.items() if k != "url"} for e in caught.value.errors()]


@pytest.mark.parametrize("data", INPUTS, ids=range(len(INPUTS)))
def test_the_deferred_union_errs_as_the_whole_union(data):
    assert repr(_errors(LAZY, data)) == repr(_errors(WHOLE, data))


def test_the_deferred_union_validates_as_the_whole_union():
    data = [{"type": "dense", "units": 8}, {"type": "residual", "body": [{"type": "activation", "function": "relu"}]},
            {"type": "multi_head_attention", "heads": 2}]
    lazy, whole = LAZY.validate_python(data), WHOLE.validate_python(data)
    assert lazy == whole and [type(x) for x in lazy] == [type(x) for x in whole]
    assert LAZY.validate_python(whole) == whole  # instances pass through
    assert LAZY.dump_json(lazy) == WHOLE.dump_json(whole)


class _A(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    type: Literal["a"] = "a"


class _B(BaseModel):
    type: Literal["b"] = "b"


def test_the_table_refuses_a_kind_it_does_not_name_and_an_entry_of_no_kind():
    here = __name__.rpartition(".")[0]
    where = "." + __name__.rpartition(".")[2]
    with pytest.raises(ValueError, match="'b'.*not in the table"):
        TaggedUnion("type", {"a": (where, "_A")}, here).register_all([_A, _B])
    with pytest.raises(ValueError, match="kinds not registered.*'c'"):
        TaggedUnion("type", {"a": (where, "_A"), "b": (where, "_B"), "c": (where, "_C")}, here).register_all([_A, _B])
    with pytest.raises(ValueError, match="registered twice"):
        TaggedUnion("type").register_all([_A, _A])
    with pytest.raises(ValueError, match="not in the table"):  # a kind named under another class
        TaggedUnion("type", {"a": (where, "_B")}, here).register_all([_A])


def test_the_layer_table_is_the_registered_kinds():
    assert set(KIND_TABLE) == set(LAYERS.members)
    for tag, (module, name) in KIND_TABLE.items():
        kind = LAYERS.members[tag]
        assert (kind.__module__, kind.__name__) == ("engine.method1" + module, name)


def test_a_file_imports_and_builds_only_the_kinds_it_names(tmp_path):
    """Through the CLI's path: two kinds named, no other kind module imported, no other kind's validator built."""
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"input": {"shape": [16]}, "layers": [{"type": "dense", "units": 4},
                                                                      {"type": "activation", "function": "relu"}]}))
    code = ("import sys\nfrom engine.scenario import load_scenario_text\n"
            f"load_scenario_text(open({str(path)!r}).read())\n"
            "from engine.method1.layers import LayerBase\n"
            "todo, built = [LayerBase], []\n"
            "while todo:\n"
            "    for sub in todo.pop().__subclasses__():\n"
            "        todo.append(sub)\n"
            "        built += [sub.__name__] if sub.__pydantic_complete__ else []\n"
            "print(sorted(built)); print(sorted(m for m in sys.modules if m.startswith('engine.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    built, modules = out.splitlines()
    assert built == "['Activation', 'Dense']"
    for absent in ("vision", "media", "transformer", "sequence_layers", "kinds", "training", "method2", "plan",
                   "serve", "compress"):
        assert f"'engine.method1.{absent}" not in modules and f"'engine.{absent}" not in modules, absent


SECTIONS = {"quick": ("engine.method1.training", "QuickForm"), "training": ("engine.method1.training", "TrainingSetup"),
            "hardware": ("engine.method2.run", "HardwareRun"), "plan": ("engine.plan.layout", "PlanInputs"),
            "serve": ("engine.serve.inputs", "ServePlan"), "compression": ("engine.compress.inputs", "Compression")}


def _eager_sections():
    """The scenario's sections as plain ``Model | None`` fields: what the deferred ones must equal."""
    import importlib

    from pydantic import create_model

    from engine.scenario import Scenario

    fields = {}
    for name, (module, cls) in SECTIONS.items():
        model = getattr(importlib.import_module(module), cls)
        fields[name] = (model | None, Field(None, description=Scenario.model_fields[name].description))
    return create_model("Sections", **fields)


@pytest.mark.parametrize("section, value", [("hardware", {"chip": "x", "chip_count": 0}), ("hardware", 5),
                                            ("plan", {"layout": {"dp": 0}}), ("serve", {"nope": 1}),
                                            ("compression", {"technique": "?"}), ("plan", []),
                                            ("training", {"examples": -1, "epochs": "x"}), ("quick", {"kind": "?"})])
def test_a_deferred_section_errs_as_its_model(section, value):
    from engine.scenario import Scenario

    with pytest.raises(ValidationError) as lazy:
        Scenario.model_validate({section: value})
    eager = _errors(TypeAdapter(_eager_sections()), {section: value})
    assert repr([{k: v for k, v in e.items() if k != "url"} for e in lazy.value.errors()]) == repr(eager)


def test_the_deferred_sections_have_the_schema_of_their_models():
    from engine.scenario import Scenario

    ours, eager = Scenario.model_json_schema(), _eager_sections().model_json_schema()
    for name in SECTIONS:
        assert ours["properties"][name] == eager["properties"][name]
    assert {k: ours["$defs"][k] for k in eager["$defs"]} == eager["$defs"]


def test_a_deferred_section_is_written_as_its_model():
    """Dumped (Python, JSON, defaults left out) as ``Model | None`` dumps it, with no serializer warning."""
    import warnings

    from engine.scenario import Scenario

    data = {"training": {"examples": 1000, "epochs": 2}, "quick": {"kind": "connections", "value": 1e6},
            "hardware": {"chip": "nvidia-a100-sxm4-80gb", "chip_count": 8, "duration": 1, "duration_unit": "days"}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, eager = Scenario.model_validate(data), _eager_sections().model_validate(data)
        for options in ({}, {"mode": "json"}, {"exclude_defaults": True}, {"exclude_none": True}):
            assert ours.model_dump(include=set(SECTIONS), **options) == eager.model_dump(**options)
        assert json.loads(ours.model_dump_json(include=set(SECTIONS))) == json.loads(eager.model_dump_json())


def _repeats(depth: int) -> dict:
    """A repeat of a repeat … ``depth`` deep around one dense layer (hand-built: no nesting check before it)."""
    layer = {"type": "dense", "units": 4}
    for _ in range(depth):
        layer = {"type": "repeat", "times": 2, "layers": [layer]}
    return layer


def test_a_hand_built_object_thousands_deep_is_one_line_not_a_crash():
    """Each level of the deferred union is a validator calling another, which pydantic's recursion guard (one per
    call) cannot see: 3,000 levels overflowed the stack (a segmentation fault) before ``MAX_NESTED``. Now pydantic's
    own depth error, as the whole union gives at that depth ("nested too deeply", naming the innermost path)."""
    from engine.deferred import MAX_NESTED
    from engine.errors import InputError, parse_input
    from engine.method1.kinds import KIND_BY_TYPE

    repeat = KIND_BY_TYPE["repeat"]
    assert parse_input(repeat, _repeats(MAX_NESTED - 2)).times == 2  # within the bound: validated
    for depth in (MAX_NESTED + 1, 3_000):
        with pytest.raises(InputError) as caught:
            parse_input(repeat, _repeats(depth))
        assert str(caught.value).endswith("nested too deeply")
        assert str(caught.value).startswith("layers[0].layers[0].")
