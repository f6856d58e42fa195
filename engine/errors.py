"""The one validation path: ``parse_input`` validates untrusted data as a pydantic model, and every
problem becomes one ``InputError`` — one line, ``field: reason`` — that the UI, the CLI and the API show.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Annotated, TypeVar

from pydantic import BaseModel, Field, ValidationError

PositiveFinite = Annotated[float, Field(gt=0, allow_inf_nan=False)]
"""A number > 0 that is not NaN or infinite (sizes, counts, times, FLOP)."""

M = TypeVar("M", bound=BaseModel)

_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """``text`` with control characters and line separators written as escapes (``\\n``, ``\\x0b``)."""
    return _BREAKS.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                                            else f"\\u{ord(m.group()):04x}"), text)


def quoted(value: object, limit: int = 40) -> str:
    """A user-supplied value for a message: quoted, one line, cut to ``limit`` characters."""
    text = one_line(str(value))
    return f"'{text[:limit]}…'" if len(text) > limit else f"'{text}'"


class InputError(ValueError):
    """Bad user input: ``field`` names what is wrong, ``reason`` says why."""

    def __init__(self, field: str, reason: str):
        self.field = one_line(field)
        self.reason = one_line(reason)
        super().__init__(f"{self.field}: {self.reason}" if self.field else self.reason)


@functools.cache
def union_tags(model: type[BaseModel]) -> frozenset[str]:
    """The tags of every tagged union inside ``model`` (e.g. the layer kinds), read from its schema."""
    tags: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            mapping = (node.get("discriminator") or {}).get("mapping") if isinstance(node.get("discriminator"),
                                                                                      dict) else None
            tags.update(mapping or ())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    try:
        walk(model.model_json_schema())
    except Exception:  # a model without a JSON schema has no tags to hide
        pass
    return frozenset(tags)


def _loc_to_field(loc: tuple, tags: frozenset[str] = frozenset()) -> str:
    parts: list[str] = []
    for i, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif item in tags and i and isinstance(loc[i - 1], int):
            continue  # pydantic puts the tag of a tagged union in the path: layers.0.dense.units
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def from_validation_error(exc: ValidationError, prefix: str = "", *, model: type[BaseModel] | None = None,
                          key_of: Mapping[str, str] | None = None) -> InputError:
    """The first error of a pydantic ``ValidationError`` as an ``InputError`` (field + reason).

    ``model`` lets the path skip the tags of its tagged unions (``layers[0].units``, not
    ``layers[0].dense.units``); ``key_of`` renames fields to the keys the user wrote (a config file's).
    """
    errors = exc.errors(include_url=False)
    if not errors:
        return InputError(prefix or "input", "invalid")
    first = errors[0]
    field = _loc_to_field(tuple(first.get("loc", ())), union_tags(model) if model else frozenset())
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, InputError):  # a cross-field check named its own field: keep it, under the path
        if not (field == cause.field or field.endswith("." + cause.field)):
            field = f"{field}.{cause.field}" if field else cause.field
        field = (key_of or {}).get(field, field)
        field = f"{prefix}.{field}" if prefix else field
        return InputError(field, cause.reason)
    field = (key_of or {}).get(field, field)
    if prefix:
        field = f"{prefix}.{field}" if field and not field.startswith("[") else f"{prefix}{field}"
    reason = str(first.get("msg", "invalid"))
    if first.get("type") == "union_tag_invalid":  # an unknown ``type`` of a tagged union (a layer kind)
        ctx = first.get("ctx", {})
        field = f"{field}.{ctx.get('discriminator', 'type').strip(chr(39))}"
        reason = f"unknown type {quoted(ctx.get('tag'))}; known types: {ctx.get('expected_tags')}"
    elif first.get("type") == "union_tag_not_found":
        field = f"{field}.type" if field else "type"
        reason = "missing; every layer needs a 'type'"
    if reason.startswith("Value error, "):
        reason = reason[len("Value error, "):]
    more = len(errors) - 1
    if more:
        reason += f" (and {more} more problem{'s' if more > 1 else ''})"
    return InputError(field or "input", reason)


def parse_input(model: type[M], data: object, *, source: str = "", key_of: Mapping[str, str] | None = None) -> M:
    """Validate ``data`` (a mapping or an instance) as ``model``; any problem becomes one ``InputError``.

    ``source`` prefixes the field (``training.epochs``); a cross-field check that raised ``InputError``
    keeps its own field; ``key_of`` renames fields to the user's keys.
    """
    if isinstance(data, model):
        return data
    if isinstance(data, BaseModel):
        data = data.model_dump()
    if not isinstance(data, Mapping):
        raise InputError(source or "input", f"expected a JSON object, got {type(data).__name__}")
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        raise from_validation_error(exc, source, model=model, key_of=key_of) from None
