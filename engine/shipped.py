"""Where the shipped data files are: the repository root in a checkout, the package in an install.

``hardware_db.json``, ``training_runs.csv`` and ``utilization_reports.csv`` sit at the repository root
(next to their ``.md`` notes, where contributors edit them); ``pip install .`` copies them into the
installed package as ``engine/_shipped/`` (``setup.py``), so the ``flopscope`` command finds them too.
A missing, empty, cut-short or corrupt file is a ``ShippedDataError`` naming it: the page that needs it
says so in one line (``ui/boundary.py``) and the pages that do not keep working.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import InputError

PACKAGE = Path(__file__).resolve().parent
ROOT_FILES = ("hardware_db.json", "training_runs.csv", "utilization_reports.csv")
"""The data files kept at the repository root (the others live beside the module that reads them)."""


def shipped_file(name: str) -> Path:
    """The path of a shipped root data file: the checkout's root if it is there, else the installed copy."""
    checkout = PACKAGE.parent / name
    if checkout.exists():
        return checkout
    installed = PACKAGE / "_shipped" / name
    return installed if installed.exists() else checkout


class ShippedDataError(InputError):
    """A shipped data file is missing or unreadable: a fault of the installation, not of the user's input.
    ``name`` is the file's name; ``field`` may add where in it (``training_runs.csv line 4.source``);
    ``problem`` is what is wrong, without the file's name (one line, no server path)."""

    def __init__(self, name: str, reason: str, field: str | None = None):
        self.name = name
        super().__init__(field or name, reason)
        where = self.field.removeprefix(name).strip()
        self.problem = f"{where}: {self.reason}" if where else self.reason


def read_shipped_text(path: Path) -> str:
    """The UTF-8 text of a data file, or a ``ShippedDataError`` naming it: missing, unreadable, empty,
    not UTF-8, or (a CSV) cut short — its last line has no line end, as every line of the shipped files has."""
    name = path.name
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ShippedDataError(name, "missing from this installation") from None
    except OSError as exc:
        raise ShippedDataError(name, f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if not data.strip():
        raise ShippedDataError(name, "empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ShippedDataError(name, f"not UTF-8 text (byte {exc.start + 1:,} of {len(data):,})") from None
    if path.suffix == ".csv" and not text.endswith("\n"):
        raise ShippedDataError(name, "cut short (its last line has no line end)")
    return text


def shipped_data_error(path: Path, exc: InputError) -> ShippedDataError:
    """A validation error in a shipped file's contents, as a ``ShippedDataError`` naming the file first."""
    if isinstance(exc, ShippedDataError):
        return exc
    where = exc.field
    for prefix in (path.name, path.stem):  # the file is named once, at the start
        if where == prefix or where.startswith((prefix + " ", prefix + ".")):
            where = where[len(prefix):].lstrip(" .")
            break
    return ShippedDataError(path.name, exc.reason, field=f"{path.name} {where}" if where else None)
