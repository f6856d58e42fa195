"""Reading the files the commands are given: small UTF-8 text, or one clear error."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError
from ..json_text import wide_encoding
from ..scenario import MAX_SCENARIO_BYTES, parse_scenario


def _not_utf8(data: bytes, error: UnicodeDecodeError | None) -> str:
    """Why bytes are not UTF-8 text, in the user's terms."""
    if (wide := wide_encoding(data)) is not None:
        return f"is not UTF-8 text (it looks like {wide}: save it as UTF-8)"
    if b"\x00" in data[:4096]:
        return "is not a text file (it holds NUL bytes: binary data?)"
    if error is None:
        return "is not UTF-8 text"
    return (f"is not UTF-8 text (byte {error.start + 1:,} is 0x{data[error.start]:02x}; Windows-1252 or Latin-1? "
            "save it as UTF-8)")


def read_text_file(path: str, field: str = "file", limit: int = MAX_SCENARIO_BYTES) -> str:
    """A small text file's contents, or an ``InputError`` that names the file and says why not: missing,
    not a file, too large, unreadable (permissions), empty, not UTF-8 (UTF-16, Windows-1252…)."""
    data = read_bytes_file(path, field, limit)
    if not data.strip():
        raise InputError(field, f"'{path}' is empty")
    if b"\x00" in data[:4096] or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(field, f"'{path}' {_not_utf8(data, None)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(field, f"'{path}' {_not_utf8(data, exc)}") from None


def one_of(positional, option, name: str, missing: str | None):
    """The value given either as a positional argument or as ``--name`` (``transformer FILE`` as ``flops FILE``
    takes it, or ``--config FILE``); both is one line; neither is ``missing`` as one line, or None."""
    if positional is not None and option is not None:
        raise InputError("arguments", f"give the {name} once: as a positional argument or as --{name}, not both")
    value = option if positional is None else positional
    if value is None and missing is not None:
        raise InputError(name, missing)
    return value


@contextmanager
def naming_file(path: str | os.PathLike, field: str):
    """Errors about the whole file (``field``: not JSON, not a CSV, no usable rows…) name the file too;
    errors about a field inside it pass unchanged."""
    try:
        yield
    except InputError as exc:
        if exc.field == field and f"'{path}'" not in exc.reason:
            raise InputError(field, f"'{path}': {exc.reason}") from None
        raise


def read_bytes_file(path: str, field: str, limit: int) -> bytes:
    """A file's bytes (at most ``limit``), or an ``InputError`` that names the file and says why not:
    missing, not a file, too large (also if it grew while being read), unreadable."""
    p = Path(path)
    try:
        if not p.is_file():
            raise InputError(field, f"'{path}' does not exist or is not a file")
        if p.stat().st_size > limit:
            raise InputError(field, f"'{path}' is larger than {limit:,} bytes")
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(field, f"cannot read '{path}' ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:  # grown since stat
        raise InputError(field, f"'{path}' is larger than {limit:,} bytes")
    return data


def write_text_file(path: str, text: str, field: str) -> None:
    """Write ``text`` (UTF-8, encoded before the file is opened: a file is never left cut short), or an
    ``InputError`` naming the option and the file: a folder, a missing folder, no permission."""
    data = text.encode("utf-8")
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise InputError(field, f"cannot write '{path}' ({exc.strerror or type(exc).__name__})") from None


def write_scenario_file(path: str, scenario, field: str = "--save") -> None:
    """Write ``scenario`` as indented JSON (defaults left out), or an ``InputError`` naming the file."""
    write_text_file(path, scenario.model_dump_json(exclude_defaults=True, indent=1), field)


def counted_scenario(data: dict, source: str, save: str | None):
    """An importer's counted rows (its ``scenario_data()``) as a scenario, its errors naming ``source``;
    written to ``save`` where given (``count``, ``flops --onnx``)."""
    scenario = parse_scenario(data, source)
    if save:
        write_scenario_file(save, scenario)
    return scenario
