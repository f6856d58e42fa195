"""One error type for bad input, with the field it concerns and the reason.

UI, CLI and API all show ``str(error)``: one line, ``field: reason``.
"""
from __future__ import annotations

from pydantic import ValidationError


class InputError(ValueError):
    """Bad user input: ``field`` names what is wrong, ``reason`` says why."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}" if field else reason)


def _loc_to_field(loc: tuple) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            # pydantic adds the tag of a discriminated union as a path element; keep it readable
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def from_validation_error(exc: ValidationError, prefix: str = "") -> InputError:
    """The first error of a pydantic ``ValidationError`` as an ``InputError`` (field + reason)."""
    errors = exc.errors(include_url=False)
    if not errors:
        return InputError(prefix or "input", "invalid")
    first = errors[0]
    field = _loc_to_field(tuple(first.get("loc", ())))
    if prefix:
        field = f"{prefix}.{field}" if field and not field.startswith("[") else f"{prefix}{field}"
    reason = str(first.get("msg", "invalid"))
    if reason.startswith("Value error, "):
        reason = reason[len("Value error, "):]
    more = len(errors) - 1
    if more:
        reason += f" (and {more} more problem{'s' if more > 1 else ''})"
    return InputError(field or "input", reason)
