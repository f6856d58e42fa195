"""Untrusted JSON text (a file, an upload, a link's payload) → a Python object, with limits."""
from __future__ import annotations

import json

from engine.errors import InputError


def parse_json_text(text: str | bytes, source: str, max_bytes: int) -> object:
    """``json.loads`` with a size limit; every failure is an ``InputError`` on ``source``. Never eval."""
    if len(text) > max_bytes:
        raise InputError(source, f"larger than {max_bytes:,} bytes")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(source, f"not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError(source, "nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits (Python's conversion limit)
        raise InputError(source, f"not valid JSON ({str(exc).split(';')[0]})") from None
