"""Reading the files the commands are given: small UTF-8 text, or one clear error."""
from __future__ import annotations

from pathlib import Path

from engine.errors import InputError
from engine.scenario import MAX_SCENARIO_BYTES


def read_text_file(path: str, field: str = "file", limit: int = MAX_SCENARIO_BYTES) -> str:
    """A small text file's contents, or an ``InputError`` that says why not."""
    p = Path(path)
    try:
        if not p.is_file():
            raise InputError(field, f"'{path}' does not exist or is not a file")
        if p.stat().st_size > limit:
            raise InputError(field, f"'{path}' is larger than {limit:,} bytes")
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(field, f"'{path}' is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(field, f"cannot read '{path}' ({exc.strerror or exc})") from None
