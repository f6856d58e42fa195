"""Editing a nested layer list (plain JSON data) by path: list it, read, replace, insert, delete, move,
wrap a run of layers into a block, unwrap a block.

A path is the one the engine's rows and errors use: ``layers[3].branches[1][2]``, ``layers[0].body[1]``.
Every function takes and returns plain lists and dicts (a scenario's ``layers``) and copies what it changes.
"""
from __future__ import annotations

import re
from typing import Literal, NamedTuple

from ..errors import InputError
from ..plain_copy import plain_copy

_STEP = re.compile(r"\.(body|shortcut|layers)\[(\d+)\]|\.branches\[(\d+)\]\[(\d+)\]")
WRAP_KINDS = ("residual", "branches", "repeat")


class Entry(NamedTuple):
    """One layer of the tree, in reading order: its path, depth and the copies it stands for (repeats)."""

    path: str
    depth: int
    layer: dict
    copies: int


def parse_path(path: str) -> list[tuple[str | None, int | None, int]]:
    """'layers[3].branches[1][2]' → [(None, None, 3), ('branches', 1, 2)]: (list field, branch, index) steps."""
    m = re.match(r"layers\[(\d+)\]", path)
    if not m:
        raise InputError("path", f"not a layer path: {path[:80]!r}")
    steps: list[tuple[str | None, int | None, int]] = [(None, None, int(m.group(1)))]
    rest = path[m.end():]
    while rest:
        m = _STEP.match(rest)
        if not m:
            raise InputError("path", f"not a layer path: {path[:80]!r}")
        if m.group(1):
            steps.append((m.group(1), None, int(m.group(2))))
        else:
            steps.append(("branches", int(m.group(3)), int(m.group(4))))
        rest = rest[m.end():]
    return steps


def _list_at(layers: list, steps) -> list:
    """The list the last step indexes into."""
    current: list = layers
    for i, (field, branch, index) in enumerate(steps):
        if i == len(steps) - 1:
            return current
        layer = current[index]
        nxt_field, nxt_branch, _ = steps[i + 1]
        if not isinstance(layer, dict):
            raise InputError("path", "not a block")
        current = layer["branches"][nxt_branch] if nxt_field == "branches" else layer.get(nxt_field, [])
    return current


def entries(layers: list, prefix: str = "layers", depth: int = 0, copies: int = 1) -> list[Entry]:
    """Every layer, blocks and their insides, in reading order (a block before what it holds)."""
    out: list[Entry] = []
    for i, layer in enumerate(layers):
        path = f"{prefix}[{i}]"
        out.append(Entry(path, depth, layer, copies))
        kind = layer.get("type")
        if kind == "residual":
            out += entries(layer.get("body", []), f"{path}.body", depth + 1, copies)
            out += entries(layer.get("shortcut", []), f"{path}.shortcut", depth + 1, copies)
        elif kind == "branches":
            for b, branch in enumerate(layer.get("branches", [])):
                out += entries(branch, f"{path}.branches[{b}]", depth + 1, copies)
        elif kind == "repeat":
            out += entries(layer.get("layers", []), f"{path}.layers", depth + 1, copies * int(layer.get("times", 2)))
    return out


def siblings(layers: list, path: str) -> list:
    """The list that holds the layer at ``path``."""
    return _list_at(layers, parse_path(path))


def get(layers: list, path: str) -> dict:
    steps = parse_path(path)
    try:
        return _list_at(layers, steps)[steps[-1][2]]
    except (IndexError, KeyError, TypeError):
        raise InputError("path", f"no layer at {path}") from None


def replace(layers: list, path: str, layer: dict) -> list:
    out = plain_copy(layers)
    steps = parse_path(path)
    _list_at(out, steps)[steps[-1][2]] = layer
    return out


def insert(layers: list, path: str, layer: dict) -> list:
    """``layer`` inserted at ``path`` (before what is there; at the end when the index is the length)."""
    out = plain_copy(layers)
    steps = parse_path(path)
    _list_at(out, steps).insert(steps[-1][2], layer)
    return out


def delete(layers: list, path: str) -> list:
    out = plain_copy(layers)
    steps = parse_path(path)
    del _list_at(out, steps)[steps[-1][2]]
    return out


def move(layers: list, path: str, offset: int) -> tuple[list, str]:
    """Swap the layer with its neighbour ``offset`` (±1) places away in the same list; the new path."""
    out = plain_copy(layers)
    steps = parse_path(path)
    items = _list_at(out, steps)
    i = steps[-1][2]
    j = i + offset
    if not 0 <= j < len(items):
        return out, path
    items[i], items[j] = items[j], items[i]
    return out, sibling(path, j)


def sibling(path: str, index: int) -> str:
    """The path of position ``index`` in the same list as ``path``."""
    return re.sub(r"\[(\d+)\]$", f"[{index}]", path)


def wrap(layers: list, path: str, count: int, kind: Literal["residual", "branches", "repeat"]) -> list:
    """The ``count`` layers from ``path`` on (same list) become one block: a residual around them, branches of
    the identity and them (concatenated), or a repeat of them (2 copies)."""
    if kind not in WRAP_KINDS:
        raise InputError("wrap", f"unknown block {kind!r}")
    out = plain_copy(layers)
    steps = parse_path(path)
    items = _list_at(out, steps)
    i = steps[-1][2]
    if count < 1 or i + count > len(items):
        raise InputError("wrap", f"{count} layers from {path}: the list has {len(items) - i} from there")
    inner = items[i:i + count]
    block = {"residual": {"type": "residual", "body": inner},
             "branches": {"type": "branches", "merge": "concat", "branches": [[], inner]},
             "repeat": {"type": "repeat", "times": 2, "layers": inner}}[kind]
    items[i:i + count] = [block]
    return out


def unwrap(layers: list, path: str) -> tuple[list, int]:
    """The block at ``path`` replaced by the layers it holds (a residual's body, the first branch that is not
    the identity, one copy of a repeat); (new list, how many layers took its place)."""
    out = plain_copy(layers)
    steps = parse_path(path)
    items = _list_at(out, steps)
    i = steps[-1][2]
    block = items[i]
    kind = block.get("type")
    if kind == "residual":
        inner = block.get("body", [])
    elif kind == "branches":
        inner = next((b for b in block.get("branches", []) if b), [])
    elif kind == "repeat":
        inner = block.get("layers", [])
    else:
        raise InputError("unwrap", f"{path} is a {kind} layer, not a block")
    items[i:i + 1] = inner
    return out, len(inner)
