"""Where the shipped data files are: the repository root in a checkout, the package in an install.

``hardware_db.json``, ``training_runs.csv`` and ``utilization_reports.csv`` sit at the repository root
(next to their ``.md`` notes, where contributors edit them); ``pip install .`` copies them into the
installed package as ``engine/_shipped/`` (``setup.py``), so the ``flopscope`` command finds them too.
Every shipped data file (``SHIPPED_FILES``: the three above and the tables beside their modules) is read through
``read_shipped_text`` — as JSON through ``read_shipped_json``, as CSV rows through ``read_shipped_rows``. A missing,
empty, cut-short, corrupt or wrongly shaped file, or an empty table, is a ``ShippedDataError`` naming it (a fault
of the installation, never the user's input): the page that needs it says so in one line (``ui/boundary.py``),
the pages that do not keep working, and the CLI exits with one line.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from engine.errors import InputError

PACKAGE = Path(__file__).resolve().parent
ROOT_FILES = ("hardware_db.json", "training_runs.csv", "utilization_reports.csv")
"""The data files kept at the repository root (the others live beside the module that reads them)."""
MODULE_FILES = ("llm/config_keys.json", "llm/models.json", "llm/multimodal_wrappers.json", "method2/pue.csv",
                "method2/grid_intensity.csv", "plan/interconnects.json", "plan/published_runs.json",
                "plan/model_error.json", "serve/efficiencies.json", "serve/measured_serving.json",
                "compress/factors.json", "multimodal/library_keys.json")
"""The data files under ``engine/``, by their path in the package."""
SHIPPED_FILES = ROOT_FILES + tuple(f.rsplit("/", 1)[1] for f in MODULE_FILES)
"""Every shipped data file by name (a test checks that no other ``.json``/``.csv`` ships)."""
assert len(set(SHIPPED_FILES)) == len(SHIPPED_FILES)


def module_file(name: str) -> Path:
    """The path of a data file under ``engine/`` by its name (``models.json``)."""
    return PACKAGE / next(f for f in MODULE_FILES if f.rsplit("/", 1)[1] == name)


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

    installation = True

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


def empty_table(name: str, what: str) -> ShippedDataError:
    """An empty table in a shipped file: a broken installation, never an answer ('unknown provider; known: ')."""
    return ShippedDataError(name, f"{what} (the installation is broken: restore the file from the repository)")


def read_shipped_json(path: Path, tables: dict[str, type]) -> dict:
    """A shipped JSON file: an object whose keys ``tables`` hold values of their types (a list or an object:
    not empty), or a ``ShippedDataError`` naming the file — missing, empty, cut short, not JSON, another type."""
    name = path.name
    text = read_shipped_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ShippedDataError(name, f"not valid JSON ({exc.msg[:1].lower()}{exc.msg[1:]}: line {exc.lineno:,}, "
                                     f"column {exc.colno:,}; cut short?)") from None
    except RecursionError:
        raise ShippedDataError(name, "not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise ShippedDataError(name, f"a JSON {_json_type(data)} where an object belongs")
    for key, kind in tables.items():
        value = data.get(key)
        if not isinstance(value, kind):
            found = "missing" if value is None else "a JSON " + _json_type(value)
            raise ShippedDataError(name, f"its '{key}' is {found} where {'a list' if kind is list else 'an object'} "
                                         "belongs")
        if kind in (list, dict) and not value:
            raise empty_table(name, f"its '{key}' table is empty")
    return data


def _json_type(value: object) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def read_shipped_rows(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict]]:
    """A shipped CSV's rows as (line number, {column: text}): its header holds ``required``, each row has no more
    cells than columns, and there is at least one row; else a ``ShippedDataError`` naming the file."""
    name = path.name
    reader = csv.DictReader(io.StringIO(read_shipped_text(path), newline=""))
    try:
        missing = [c for c in required if c not in (reader.fieldnames or ())]
        if missing:
            raise ShippedDataError(name, f"missing column(s) {', '.join(missing)} (not this file, or cut short?)")
        rows = []
        for row in reader:
            if None in row:
                raise ShippedDataError(name, "more cells than columns (unquoted comma?)",
                                       field=f"{name} line {reader.line_num}")
            rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise ShippedDataError(name, f"not a readable CSV ({exc})") from None
    if not rows:
        raise empty_table(name, "no rows under its header")
    return rows
