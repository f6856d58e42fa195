"""Editing nested layer lists by path: each operation's result written out here."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.method1 import tree

A, B, C = {"type": "dense", "units": 1}, {"type": "dense", "units": 2}, {"type": "dense", "units": 3}


def test_entries_in_reading_order_with_depth_and_copies():
    layers = [A, {"type": "repeat", "times": 3, "layers": [{"type": "branches", "branches": [[], [B]]}]}, C]
    got = [(e.path, e.depth, e.copies) for e in tree.entries(layers)]
    assert got == [("layers[0]", 0, 1), ("layers[1]", 0, 1), ("layers[1].layers[0]", 1, 3),
                   ("layers[1].layers[0].branches[1][0]", 2, 3), ("layers[2]", 0, 1)]


def test_wrap_and_unwrap_are_inverse():
    layers = [A, B, C]
    wrapped = tree.wrap(layers, "layers[1]", 2, "residual")
    assert wrapped == [A, {"type": "residual", "body": [B, C]}]
    assert tree.unwrap(wrapped, "layers[1]") == (layers, 2)
    assert tree.wrap(layers, "layers[0]", 1, "repeat") == [{"type": "repeat", "times": 2, "layers": [A]}, B, C]
    branches = tree.wrap(layers, "layers[0]", 3, "branches")
    assert branches == [{"type": "branches", "merge": "concat", "branches": [[], [A, B, C]]}]
    assert tree.unwrap(branches, "layers[0]")[0] == layers
    assert layers == [A, B, C]  # the input is not changed


def test_nested_edits():
    layers = [{"type": "residual", "body": [A, B], "shortcut": [C]}]
    assert tree.get(layers, "layers[0].shortcut[0]") == C
    assert tree.replace(layers, "layers[0].body[1]", C)[0]["body"] == [A, C]
    assert tree.delete(layers, "layers[0].body[0]")[0]["body"] == [B]
    moved, path = tree.move(layers, "layers[0].body[0]", 1)
    assert moved[0]["body"] == [B, A] and path == "layers[0].body[1]"
    assert tree.insert(layers, "layers[0].body[2]", C)[0]["body"] == [A, B, C]


@pytest.mark.parametrize("call", [
    lambda: tree.get([A], "layers[5]"),
    lambda: tree.get([A], "layer[0]; drop"),
    lambda: tree.wrap([A], "layers[0]", 2, "residual"),
    lambda: tree.unwrap([A], "layers[0]"),
    lambda: tree.wrap([A], "layers[0]", 1, "graph"),
])
def test_bad_edits_are_input_errors(call):
    with pytest.raises(InputError):
        call()
