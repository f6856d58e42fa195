"""Untrusted JSON text (a file, an upload, a link's payload) → a Python object, with limits."""
from __future__ import annotations

import json

from .errors import InputError, quoted

MAX_INT_DIGITS = 100
"""Longest integer accepted in JSON text: every count FLOPscope takes is below 10^30; Python's own
limit (4,300 digits) would raise a bare ``ValueError`` deep inside ``json``."""


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise InputError("", f"a number has {digits:,} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(text)


def int_or_infinite(text: str):
    """A JSON integer as Python reads it, or ±infinity past Python's 4,300-digit limit for reading one (a profiler
    trace's time, size or id that large is none: infinite, left out as any non-finite number is)."""
    try:
        return int(text)
    except ValueError:
        return -float("inf") if text.startswith("-") else float("inf")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object's pairs as a dict; a key written twice is an error (``json`` would keep the last silently)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise InputError("", f"the key {quoted(key)} appears twice in one object (each key once)")
        out[key] = value
    return out


def wide_encoding(data: bytes | str) -> str | None:
    """"UTF-16" or "UTF-32" where text looks written in one (a byte-order mark, or Latin letters with a NUL in
    every other place, or in three of every four), bytes or characters read as UTF-8; None otherwise — NULs
    anywhere else are binary data. The one test for every file the tool reads."""
    head = data[:65_536]
    zero = 0 if isinstance(head, bytes) else "\x00"
    if isinstance(head, bytes) and head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if isinstance(head, bytes) and head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    for name, stride in (("UTF-32", 4), ("UTF-16", 2)):
        share = sorted(head[i::stride].count(zero) / max(1, len(head[i::stride])) for i in range(stride))
        if len(head) >= 2 * stride and share[0] < 0.1 and share[1] > 0.9:  # one place of each group holds letters
            return name
    return None


def parse_json_text(text: str | bytes, source: str, max_bytes: int) -> object:
    """``json.loads`` with a size limit; every failure is an ``InputError`` on ``source``. Never eval.

    Strict: integers longer than ``MAX_INT_DIGITS`` digits and a key written twice in one object are refused
    here, with the reason (NaN/Infinity pass, for the model to name the field they are in); text holding a NUL
    character (UTF-16 without its byte-order mark decodes so) is "not UTF-8 text"; a UTF-8 byte-order mark
    (as editors write) is skipped.
    """
    if len(text) > max_bytes:
        raise InputError(source, f"larger than {max_bytes:,} bytes")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(source, "not UTF-8 text") from None
    text = text.removeprefix("\ufeff")
    if "\x00" in text:  # no JSON text holds a raw NUL; UTF-16 text read as UTF-8 has one after every letter
        if (wide := wide_encoding(text)) is not None:
            raise InputError(source, f"not UTF-8 text (it looks like {wide}: save it as UTF-8)")
        raise InputError(source, "not a text file (it holds NUL bytes: binary data?)")
    try:
        return json.loads(text, parse_int=_int, object_pairs_hook=_unique_keys)
    except InputError as exc:
        raise InputError(source, exc.reason) from None
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")  # "Invalid control character at": the position follows
        raise InputError(source, f"not valid JSON ({what[:1].lower()}{what[1:]} at line {exc.lineno}, "
                                 f"column {exc.colno})") from None
    except RecursionError:
        raise InputError(source, "nested too deeply") from None
    except ValueError as exc:  # anything else json's number conversion refuses
        raise InputError(source, f"not valid JSON ({exc.__class__.__name__})") from None
