"""One error type for bad input, with the field it concerns and the reason.

UI, CLI and API all show ``str(error)``: one line, ``field: reason``.
"""
from __future__ import annotations

import re

from pydantic import ValidationError

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


UNION_TAGS: frozenset[str] = frozenset()
"""Tags of the tagged unions (layer kinds); set once by ``engine.method1.layers`` at import."""


def _loc_to_field(loc: tuple) -> str:
    parts: list[str] = []
    for i, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif item in UNION_TAGS and i and isinstance(loc[i - 1], int):
            continue  # pydantic puts the tag of a tagged union in the path: layers.0.dense.units
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def from_validation_error(exc: ValidationError, prefix: str = "") -> InputError:
    """The first error of a pydantic ``ValidationError`` as an ``InputError`` (field + reason)."""
    errors = exc.errors(include_url=False)
    if not errors:
        return InputError(prefix or "input", "invalid")
    first = errors[0]
    field = _loc_to_field(tuple(first.get("loc", ())))
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, InputError):  # a cross-field check named its own field: keep it, under the path
        if not (field == cause.field or field.endswith("." + cause.field)):
            field = f"{field}.{cause.field}" if field else cause.field
        field = f"{prefix}.{field}" if prefix else field
        return InputError(field, cause.reason)
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
