"""The one validation path: ``parse_input`` validates untrusted data as a pydantic model, and every
problem becomes one ``InputError`` — one line, ``field: reason`` — that the UI, the CLI and the API show.
"""
from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Annotated, TypeVar

from pydantic import BaseModel, Field, ValidationError

PositiveFinite = Annotated[float, Field(gt=0, allow_inf_nan=False)]
"""A number > 0 that is not NaN or infinite (sizes, counts, times, FLOP)."""

M = TypeVar("M", bound=BaseModel)

_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\ud800-\udfff]")
"""Control characters, line and paragraph separators, the invisible ones (zero-width space, word joiner, BOM), the
bidirectional overrides and isolates that reorder what follows them on screen, and lone surrogates."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """``text`` with control characters, line separators, invisible and bidirectional-control characters and lone
    surrogates written as escapes (``\\n``, ``\\x0b``, ``\\u202e``)."""
    return _BREAKS.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                                            else f"\\u{ord(m.group()):04x}"), text)


def quoted(value: object, limit: int = 40) -> str:
    """A user-supplied value for a message: quoted, one line, cut to ``limit`` characters."""
    text = one_line(str(value))
    return f"'{text[:limit]}…'" if len(text) > limit else f"'{text}'"


KNOWN_TYPES_LIMIT = 200
"""Characters of the known types listed after an unknown ``type``: the message stays one short line, even
behind a field path 32 blocks deep (the full list: ``python -m engine schema``)."""


def unknown_type_reason(tag: object, known: list[str], noun: str = "type") -> str:
    """"unknown type 'dénse' (did you mean 'dense'?); known types: 'dense', 'conv1d', … (40 in all)"."""
    import difflib  # only here: an unknown type is rare, and the module costs start-up

    close = difflib.get_close_matches(str(tag), known, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(quoted(c) for c in close)}?)" if close else ""
    listing = ", ".join(quoted(k) for k in known)
    if len(listing) > KNOWN_TYPES_LIMIT:
        listing = listing[:listing.rfind(", ", 0, KNOWN_TYPES_LIMIT)] + f", … ({len(known)} in all)"
    return f"unknown {noun} {quoted(tag)}{hint}; known {noun}s: {listing}"


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages: object, array, text, number, true/false, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class InputError(ValueError):
    """Bad user input: ``field`` names what is wrong, ``reason`` says why."""

    installation = False
    """True for a fault of the installation (``engine.shipped.ShippedDataError``): passed on unchanged by the
    validation path, never put under the user's field."""

    def __init__(self, field: str, reason: str):
        self.field = one_line(field)
        self.reason = one_line(reason)
        super().__init__(f"{self.field}: {self.reason}" if self.field else self.reason)


@functools.cache
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


_UNION_MEMBER = re.compile(r"^(?:[a-z]+(?:-[a-z]+)+(?:\[.*\])?|[a-z-]+\[.*\]|int|str|float|bool|none|list|dict)$")
"""Names pydantic gives a union's members in an error's path (``constrained-int``, ``list[int]``): not fields."""

_REASONS = {
    "missing": "missing (required)",
    "extra_forbidden": "unknown field (not a setting here)",
    "string_type": "must be text",
    "string_unicode": "must be text (it holds characters that are not valid text)",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_parsing_size": "is too large a number",
    "int_from_float": "must be a whole number (no fraction)",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number (not NaN or infinity)",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list [ … ]",
    "tuple_type": "must be a list [ … ]",
    "dict_type": "must be an object { … }",
    "model_type": "must be an object { … }",
    "model_attributes_type": "must be an object { … }",
    "none_required": "must be left out",
}
"""User-language reasons for pydantic's error types (its own messages name Python types)."""

PATTERN_WORDS = {
    r"^[a-z0-9]+(-[a-z0-9]+)*$": "must be a chip id: lower-case letters, digits and dashes, e.g. nvidia-h100-sxm",
    r"^(19|20)\d\d-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$": "must be a date, YYYY-MM-DD or YYYY-MM, e.g. 2022-03-21",
}
"""What a value of each text pattern the models use looks like, in words (never the regular expression)."""

_OTHER_REASONS = {
    "string_pattern_mismatch": "is not in the expected form",
    "string_not_ascii": "must use plain letters, digits and punctuation (ASCII)",
    "json_invalid": "not valid JSON",
    "recursion_loop": "refers to itself",
    "recursion_depth_exceeded": "nested too deeply",
    "frozen_field": "cannot be changed",
    "frozen_instance": "cannot be changed",
    "invalid_key": "every key must be text",
    "dataclass_type": "must be an object { … }",
    "dataclass_exact_type": "must be an object { … }",
    "named_tuple_type": "must be a list [ … ]",
    "iterable_type": "must be a list [ … ]",
    "set_type": "must be a list [ … ]",
    "frozen_set_type": "must be a list [ … ]",
    "deque_type": "must be a list [ … ]",
    "mapping_type": "must be an object { … }",
    "frozen_dict_type": "must be an object { … }",
    "ordered_dict_type": "must be an object { … }",
    "counter_type": "must be an object { … }",
    "union_tag_invalid": "has an unknown type",
    "union_tag_not_found": "needs a 'type'",
    "date_type": "must be a date, YYYY-MM-DD",
    "date_parsing": "must be a date, YYYY-MM-DD",
    "datetime_type": "must be a date and time, YYYY-MM-DDTHH:MM:SS",
    "datetime_parsing": "must be a date and time, YYYY-MM-DDTHH:MM:SS",
    "url_type": "must be a web address (https://…)",
    "url_parsing": "must be a web address (https://…)",
}
"""The other types, for the models this project may add: never pydantic's own sentence."""
GENERIC_REASON = "is not a value this field takes"
"""Any error type not named above (pydantic has over a hundred): a plain sentence, never pydantic's."""

_BOUNDS = {"greater_than": ("gt", "greater than"), "greater_than_equal": ("ge", "at least"),
           "less_than": ("lt", "less than"), "less_than_equal": ("le", "at most")}


def _number(value) -> str:
    """1000000000 → '1e9'; 0.01 → '0.01' (bounds as a reader writes them)."""
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return str(value)
    if x.is_integer() and abs(x) >= 1e6:
        mantissa, _, exponent = f"{x:.6e}".partition("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return f"{x:g}"


@functools.cache
def kind_tags(model: type[BaseModel]) -> frozenset[str]:
    """The ``kind`` constants of the parts inside ``model`` (a block's mixer kinds: the tags of a union tagged by
    its members' ``kind``), read from its schema."""
    found: set[str] = set()
    try:
        defs = model.model_json_schema().get("$defs", {})
    except Exception:  # a model without a JSON schema has no parts to name
        return frozenset()
    for node in defs.values():
        kind = (node.get("properties") or {}).get("kind")
        if isinstance(kind, dict) and isinstance(kind.get("const"), str):
            found.add(kind["const"])
    return frozenset(found)


def _loc_to_field(loc: tuple, tags: frozenset[str] = frozenset(), kinds: frozenset[str] = frozenset()) -> str:
    parts: list[str] = []
    for i, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif item in tags and i and isinstance(loc[i - 1], int):
            continue  # pydantic puts the tag of a tagged union in the path: layers.0.dense.units
        elif item in kinds and i:
            continue  # and a part's kind: mixer.mamba.inner_size
        elif isinstance(item, str) and _UNION_MEMBER.match(item) and i:
            continue  # a union member's name (kernel_size.constrained-int): not something the user wrote
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def user_reason(error: dict) -> str:
    """One pydantic error in the user's words."""
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    if kind in _REASONS:
        return _REASONS[kind]
    if kind in _BOUNDS and _BOUNDS[kind][0] in ctx:
        key, words = _BOUNDS[kind]
        return f"must be {words} {_number(ctx[key])}"
    if kind in ("too_long", "too_short", "string_too_long", "string_too_short") and (
            "actual_length" in ctx or kind.startswith("string")):
        what = "characters" if kind.startswith("string") else "items"
        got = f" (got {ctx['actual_length']:,})" if isinstance(ctx.get("actual_length"), int) else ""
        if kind.endswith("too_long"):
            return f"too long: at most {ctx.get('max_length')} {what}{got}"
        return f"too short: at least {ctx.get('min_length')} {what}{got}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") in PATTERN_WORDS:
        return PATTERN_WORDS[ctx["pattern"]]
    if kind in ("literal_error", "enum") and "expected" in ctx:  # the user's own choices: 'matmul' or 'full'
        return f"must be {one_line(str(ctx['expected']))}"
    if kind in ("multiple_of",) and "multiple_of" in ctx:
        return f"must be a multiple of {_number(ctx['multiple_of'])}"
    if kind in _OTHER_REASONS:
        return _OTHER_REASONS[kind]
    if kind not in ("value_error", "assertion_error"):  # our validators' sentences pass; pydantic's do not
        return GENERIC_REASON
    reason = one_line(str(error.get("msg", "invalid")))
    for prefix in ("Value error, ", "Assertion failed, "):
        if reason.startswith(prefix):
            reason = reason[len(prefix):]
    return reason


def from_validation_error(exc: ValidationError, prefix: str = "", *, model: type[BaseModel] | None = None,
                          key_of: Mapping[str, str] | None = None) -> InputError:
    """The first error of a pydantic ``ValidationError`` as an ``InputError`` (field + reason).

    ``model`` lets the path skip the tags of its tagged unions (``layers[0].units``, not
    ``layers[0].dense.units``); ``key_of`` renames fields to the keys the user wrote (a config file's).
    """
    errors = exc.errors(include_url=False)
    if not errors:
        return InputError(prefix or "input", "invalid")
    for error in errors:  # a broken data file found while validating: the installation's fault, as it is
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, InputError) and cause.installation:
            return cause
    first = errors[0]
    loc = tuple(first.get("loc", ()))
    key_error = bool(loc) and loc[-1] == "[key]"
    if key_error:
        loc = loc[:-1]
    tags = union_tags(model) if model else frozenset()
    kinds = kind_tags(model) if model else frozenset()
    field = _loc_to_field(loc, tags, kinds)
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
    reason = user_reason(first)
    if first.get("type") == "extra_forbidden" and loc and isinstance(loc[-1], str):
        parent = _loc_to_field(loc[:-1], tags, kinds)  # the user's unknown name ends the field, cut to 40 characters
        parent = (f"{prefix}.{parent}" if parent and not parent.startswith("[") else f"{prefix}{parent}") \
            if prefix else parent
        name = quoted(loc[-1]).strip("'")
        field = f"{parent}.{name}" if parent else name
    if key_error:
        field, _, key = field.rpartition(".")
        reason = f"{quoted(key)} is not allowed here ({reason})"
    if first.get("type") == "union_tag_invalid":  # an unknown ``type`` of a tagged union (a layer kind)
        ctx = first.get("ctx", {})
        tag_field = ctx.get("discriminator", "type").strip(chr(39))
        tag_field = "kind" if tag_field.endswith("()") else tag_field  # a part's union, tagged by its kind
        field = f"{field}.{tag_field}"
        reason = unknown_type_reason(ctx.get("tag"), re.findall(r"'([^']*)'", str(ctx.get("expected_tags", ""))),
                                     tag_field)
    elif first.get("type") == "union_tag_not_found":
        field = f"{field}.type" if field else "type"
        reason = "missing; every layer needs a 'type'"
    more = len(errors) - 1
    if more:
        reason += f" (and {more} more problem{'s' if more > 1 else ''})"
    return InputError(field or "input", reason)


@functools.cache
def _field_keys(model: type[BaseModel]) -> dict[str, str]:
    """The keys a field of ``model`` is read from (its name, and its alias, which wins) → the field's name."""
    fields = model.model_fields
    return {name: name for name in fields} | {info.alias: name for name, info in fields.items() if info.alias}


def _holds_bool(raw: object) -> bool:
    """Whether decoded JSON holds a ``true``/``false`` anywhere (most inputs hold none): looked for in the text the
    standard library's C encoder writes of it (a boolean key or the words in a string only send the caller to its
    exact walk), or by a walk where that text cannot be written."""
    try:
        text = json.dumps(raw, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return _walk_holds_bool(raw)
    return "true" in text or "false" in text


def _walk_holds_bool(raw: object) -> bool:
    stack = [raw]
    while stack:
        item = stack.pop()
        if item is True or item is False:
            return True
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def bool_as_number(raw: object, value: object, path: str = "") -> str | None:
    """The path of the first ``true``/``false`` in ``raw`` (decoded JSON) that validation turned into a number
    in ``value`` (the model it became), or None. Pydantic's lax mode reads ``true`` as 1 for an int or float
    field; a JSON boolean is not a number. Walks ``raw`` and ``value`` side by side, iteratively."""
    if not _holds_bool(raw):
        return None
    # each entry: (raw, value, its parent's path, its key or index); a path is written only for what is popped
    stack: list[tuple[object, object, str | None, object]] = [(raw, value, None, path)]
    while stack:
        raw, value, parent, key = stack.pop()
        if parent is None:
            path = key
        elif type(key) is int:
            path = f"{parent}[{key}]"
        else:
            path = f"{parent}.{key}" if parent else (key if type(key) is str else str(key))
        if isinstance(raw, bool):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return path
        elif isinstance(raw, Mapping):
            if isinstance(value, BaseModel):
                by_key = _field_keys(type(value))
                for key, item in raw.items():
                    if type(item) in _NO_BOOL:  # a number, a text or null: nothing to find under it
                        continue
                    name = by_key.get(key) if isinstance(key, str) else None
                    if name is not None:
                        stack.append((item, getattr(value, name, None), path, key))
            elif isinstance(value, Mapping):
                for key, item in raw.items():
                    if type(item) not in _NO_BOOL and key in value:
                        stack.append((item, value[key], path, key if isinstance(key, str) else str(key)))
        elif isinstance(raw, (list, tuple)) and isinstance(value, (list, tuple)) and len(raw) == len(value):
            stack.extend((item, got, path, i) for i, (item, got) in enumerate(zip(raw, value))
                         if type(item) not in _NO_BOOL)
    return None


_NO_BOOL = frozenset({int, float, str, type(None)})
"""Decoded JSON values that are neither true/false nor hold one (``type(True)`` is ``bool``, not ``int``)."""


def parse_input(model: type[M], data: object, *, source: str = "", key_of: Mapping[str, str] | None = None,
                booleans: bool = True) -> M:
    """Validate ``data`` (a mapping or an instance) as ``model``; any problem becomes one ``InputError``.

    ``source`` prefixes the field (``training.epochs``); a cross-field check that raised ``InputError``
    keeps its own field; ``key_of`` renames fields to the user's keys. ``booleans=False``: the caller knows
    ``data`` holds no true/false (the JSON text it was decoded from has neither word), so none is looked for.
    """
    if isinstance(data, model):
        return data
    if isinstance(data, BaseModel):
        data = data.model_dump()
    if not isinstance(data, Mapping):
        raise InputError(source or "input", f"expected a JSON object {{ … }}, got {json_type(data)}")
    try:
        parsed = model.model_validate(dict(data))
    except ValidationError as exc:
        raise from_validation_error(exc, source, model=model, key_of=key_of) from None
    where = bool_as_number(data, parsed) if booleans else None
    if where is not None:
        where = (key_of or {}).get(where, where)
        raise InputError(f"{source}.{where}" if source else where, "must be a number, not true/false")
    return parsed
