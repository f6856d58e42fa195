"""Results: what the engine computes, and their one JSON view.

Inputs (anything read from outside: forms, flags, files, links, the databases) are pydantic models,
validated once through ``engine.errors.parse_input``. Results are ``@dataclass(frozen=True, slots=True)``
classes deriving from ``Result`` (not frozen only where the engine fills one in step by step, which
each such class says). ``Result.as_dict()`` is a result's JSON-ready dict: its fields in declaration
order, nested results, lists, tuples and dicts walked into (tuples become lists), input models as
``model_dump(mode="json")``, an error as its one line; numbers, text, booleans and None as they are. Two class attributes shape
it where needed:

- ``json_fields``: the names shown, in order; fields or properties (default: every field);
- ``json_omit_default``: names left out while equal to their field's default.

A result whose JSON view has another shape (keys renamed, parts flattened) writes its own ``as_dict``
and serialises its nested parts with ``to_json``.
"""
from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, ClassVar

from pydantic import BaseModel

_KEEP = object()
"""Marks a name that is always shown (not omitted at its default)."""
_SCALARS = (float, int, str, bool, type(None))
_PLAIN = frozenset(_SCALARS)
"""The exact types passed through without a call (subclasses such as numpy's float64 go by ``to_json``)."""
_VIEWS: dict[type, tuple[tuple[str, object], ...]] = {}


class Result:
    """Base of every result dataclass: ``as_dict()``, the JSON view (see the module docstring)."""

    __slots__ = ()
    json_fields: ClassVar[tuple[str, ...] | None] = None
    """The names shown, in order (fields or properties); None: every field."""
    json_omit_default: ClassVar[frozenset[str]] = frozenset()
    """Fields left out of the view while equal to their default."""

    def as_dict(self) -> dict[str, Any]:
        out = {}
        for name, default in _view(type(self)):
            value = getattr(self, name)
            if default is _KEEP or value != default:
                out[name] = value if type(value) in _PLAIN else to_json(value)
        return out


def _view(cls: type) -> tuple[tuple[str, object], ...]:
    """(name, the default it is omitted at, or ``_KEEP``) per name shown, worked out once per class."""
    view = _VIEWS.get(cls)
    if view is None:
        defaults = {f.name: f.default for f in fields(cls)}
        names = cls.json_fields if cls.json_fields is not None else tuple(defaults)
        unknown = set(cls.json_omit_default) - {n for n in names if defaults.get(n, MISSING) is not MISSING}
        if unknown:
            raise TypeError(f"{cls.__name__}.json_omit_default: {', '.join(sorted(unknown))} shown without a "
                            "field default")
        view = _VIEWS[cls] = tuple((n, defaults[n] if n in cls.json_omit_default else _KEEP) for n in names)
    return view


def to_json(value: Any) -> Any:
    """``value`` made JSON-ready: results by their ``as_dict``, containers walked into, tuples as lists,
    pydantic models dumped in JSON mode; other values as they are."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, Result):
        return value.as_dict()
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _PLAIN else to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: v if type(v) in _PLAIN else to_json(v) for k, v in value.items()}
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Exception):  # an InputError: its one line, 'field: reason'
        return str(value)
    return value
