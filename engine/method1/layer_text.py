"""Layers typed as one line of text: ``conv2d(16, 5, stride=2, padding=2), flatten, lstm(256), dense(10)``.

Each entry is a kind's ``type`` (case does not matter), optionally followed by arguments in parentheses:
positional ones fill the kind's required fields in the order the schema lists them (``dense``: units;
``conv2d``: filters, kernel_size), ``name=value`` any field. Values: integers, decimals, ``true``/``false``,
words (``activation(relu)``) and lists in brackets (``[3, 3]``). Entries are separated by commas, semicolons or new lines.
Nothing is evaluated: the text is split and read by the rules above; the layers it gives are then validated
like any other (the scenario model). Blocks (residual, branches, repeat) are added with the layer list.
"""
from __future__ import annotations

import difflib
import re

from ..errors import InputError
from .kinds import KIND_BY_TYPE

FIELD = "layers as text"
MAX_TEXT = 10_000
MAX_ENTRIES = 500
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
BLOCKS = ("residual", "branches", "repeat")


def _split(text: str, separators: str) -> list[str]:
    """``text`` cut at ``separators`` outside parentheses and brackets; an unbalanced one is an error."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                raise InputError(FIELD, f"a '{ch}' closes nothing (at character {i + 1})")
        elif ch in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise InputError(FIELD, "a '(' or '[' is not closed")
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


MAX_LIST_DEPTH = 4
"""Lists inside lists a value may hold (no layer field takes more than a list of lists)."""


def _value(text: str, where: str, depth: int = 0):
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        if depth >= MAX_LIST_DEPTH:
            raise InputError(FIELD, f"{where}: lists nested more than {MAX_LIST_DEPTH} deep")
        return [_value(item, where, depth + 1) for item in _split(text[1:-1], ",")]
    if _NUMBER.fullmatch(text):
        if not re.fullmatch(r"[+-]?\d+", text):
            return float(text)
        if len(text) > 30:
            raise InputError(FIELD, f"{where}: {text[:12]}… is too large a number")
        return int(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if _NAME.fullmatch(text) or re.fullmatch(r"[A-Za-z0-9_.\-]+", text):
        return text
    raise InputError(FIELD, f"{where}: cannot read {text[:40]!r} (a number, true/false, a word or [a, b])")


COMMON = ("name", "trainable", "type")
"""Fields every kind has; never filled by position."""


def _positional_fields(kind) -> list[str]:
    """The fields values without a name fill: the required ones, or else the kind's first own field
    (``activation(relu)``)."""
    own = [name for name in kind.model_fields if name not in COMMON]
    required = [name for name in own if kind.model_fields[name].is_required()]
    return required or own[:1]


def parse_entry(entry: str, number: int) -> dict:
    """One entry (``conv2d(16, 5, stride=2)``) → a layer's JSON object (not yet validated)."""
    where = f"entry {number} ({entry[:40]})"
    head = _NAME.match(entry)
    if head is None:
        raise InputError(FIELD, f"{where}: start with a layer kind, e.g. dense(128)")
    name, rest = head.group().lower(), entry[head.end():].strip()
    if name in BLOCKS:
        raise InputError(FIELD, f"{where}: blocks ({', '.join(BLOCKS)}) are added from the layer list, not as text")
    kind = KIND_BY_TYPE.get(name)
    if kind is None:
        close = difflib.get_close_matches(name, list(KIND_BY_TYPE), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise InputError(FIELD, f"{where}: '{name}' is not a layer kind{hint}")
    layer = {"type": name}
    if not rest:
        return layer
    if not (rest.startswith("(") and rest.endswith(")")):
        raise InputError(FIELD, f"{where}: after the kind, give its values in parentheses, e.g. {name}(…)")
    required = _positional_fields(kind)
    for i, arg in enumerate(_split(rest[1:-1], ",")):
        key, sep, value = arg.partition("=")
        if sep:
            key = key.strip()
            if key not in kind.model_fields or key == "type":
                close = difflib.get_close_matches(key, [f for f in kind.model_fields if f != "type"], n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise InputError(FIELD, f"{where}: {name} has no field '{key[:40]}'{hint}")
        else:
            if i >= len(required):
                raise InputError(FIELD, f"{where}: {name} takes {len(required)} value(s) without a name "
                                        f"({', '.join(required) or 'none'}); name the others, e.g. stride=2")
            key, value = required[i], arg
        if key in layer:
            raise InputError(FIELD, f"{where}: '{key}' is given twice")
        layer[key] = _value(value, where)
    return layer


def parse_layers_text(text: str) -> list[dict]:
    """Every entry of ``text`` as a layer's JSON object, in order; one ``InputError`` naming the entry."""
    if len(text) > MAX_TEXT:
        raise InputError(FIELD, f"{len(text):,} characters: at most {MAX_TEXT:,}")
    entries = _split(text, ",;\n")
    if not entries:
        raise InputError(FIELD, "empty: type layers such as dense(128), activation(relu)")
    if len(entries) > MAX_ENTRIES:
        raise InputError(FIELD, f"{len(entries):,} layers: at most {MAX_ENTRIES:,} at once")
    return [parse_entry(entry, n) for n, entry in enumerate(entries, 1)]
