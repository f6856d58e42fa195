"""Read Epoch AI's model CSVs ("Notable AI Models", "All AI Models", "Large-scale AI Models").

Users download these files from epoch.ai themselves (CC BY 4.0: "Epoch AI, 'Data on AI Models'").
The importer finds the columns it needs by name wherever they are: the name column is ``Model``
(current) or ``System`` (older exports); ``Publication date`` may be ``YYYY-MM-DD`` or partial;
``Training compute (FLOP)`` may be written in any float notation. The shipped
``training_runs.csv`` is read too (its ``name``/``publication_date``/``training_flop`` columns).

A row without a usable date or FLOP figure is skipped and counted by reason, never fatal: most
rows of Epoch's files have no compute estimate. A file that is not such a CSV at all (empty,
binary, not text, a line too long, the needed columns missing) raises
``InputError("csv", reason)``.
"""
from __future__ import annotations

import csv
import os
import re
from collections import Counter
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..errors import InputError
from ..json_text import wide_encoding
from ..records.epoch_rows import HardwareRow, parse_training_flop
from ..records.partial_dates import parse_partial_date
from ..results import Result
from .runs_dataset import RunPoint

MAX_CSV_BYTES = 64 * 1024 * 1024
"""Epoch's largest export (All AI Models, every column) is ~15 MB; anything far beyond is not it."""
MAX_ROWS = 50_000
"""Epoch's files have a few thousand rows (Notable AI Models ~1,000; All AI Models ~3,000): a file far
beyond is not one of them, and holding its rows would cost the server hundreds of MB per session."""
MAX_FIELD_CHARS = 1_000_000
"""Longest cell accepted (Epoch's abstracts and notes are a few thousand characters)."""

# header names each role is found under (compared lower-cased, letters and digits only)
_ALIASES: dict[str, tuple[str, ...]] = {
    "name": ("model", "system", "name", "modelname"),
    "date": ("publicationdate", "publication_date", "date"),
    "flop": ("trainingcomputeflop", "trainingcomputeflops", "trainingflop"),
    "organization": ("organization", "organizations", "organisation"),
    "domain": ("domain", "domains"),
    # method 2's inputs, read for the reconciliation (engine.trends.reconcile)
    "hardware": ("traininghardware",),
    "quantity": ("hardwarequantity",),
    "hours": ("trainingtimehours",),
    "utilization": ("hardwareutilization",),
    "base_model": ("basemodel",),
    "time_notes": ("trainingtimenotes",),
    "compute_notes": ("trainingcomputenotes",),
    "confidence": ("confidence",),
}
HARDWARE_ROLES = ("hardware", "quantity", "hours")
_NORMALIZED_ALIASES = {role: frozenset(re.sub(r"[^a-z0-9]", "", a) for a in names)
                       for role, names in _ALIASES.items()}
_REQUIRED = {"name": "'Model' (or 'System')", "date": "'Publication date'", "flop": "'Training compute (FLOP)'"}

_ROW_CELLS = frozenset(f.name for f in fields(HardwareRow)) - {"row", "name"}
"""The cells a ``HardwareRow`` keeps (its name is given apart; the organization is not kept)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EpochImport(Result):
    """Usable runs of one CSV (each validated as a ``RunPoint``), and what was skipped and why."""

    runs: list[RunPoint]
    rows_read: int
    skipped: int
    skipped_by_reason: dict[str, int]
    columns: dict[str, str]
    """role → the header it was found under, e.g. ``{"name": "System", ...}``."""
    hardware_rows: list[HardwareRow] = field(default_factory=list)
    """Rows naming training hardware, a chip count and a training time (all three)."""

    def require_runs(self) -> "EpochImport":
        """This import, or an ``InputError`` when not one row was usable (header only, every date bad…)."""
        if not self.runs:
            reasons = ", ".join(f"{k}: {v:,}" for k, v in self.skipped_by_reason.items()) or "no data rows"
            raise InputError("csv", f"no usable runs: {self.rows_read:,} row(s) read, none with both a "
                                    f"publication date and a training compute ({reasons})")
        return self


def _normalized(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


def _decode(data: bytes) -> str:
    if not data or data.isspace():  # (data.strip() would copy the whole file)
        raise InputError("csv", "the file is empty")
    head = data[:65_536]
    if (wide := wide_encoding(head)) is not None:
        raise InputError("csv", f"not UTF-8 text (it looks like {wide}: save it as UTF-8 CSV)")
    if b"\x00" in head:
        raise InputError("csv", "binary data, not a CSV text file")
    for encoding in ("utf-8-sig", "cp1252"):  # Epoch's downloads are UTF-8; Excel re-saves as cp1252
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise InputError("csv", "not a text file (neither UTF-8 nor Windows-1252)")
    sample = text[:65_536]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\r\n")
    if controls > max(16, len(sample) / 20):  # text has a stray control character at most
        raise InputError("csv", "binary data, not a CSV text file")
    return text


def _delimiter(first_line: str) -> str:
    # Epoch writes commas; a spreadsheet in a comma-decimal locale writes semicolons
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    return max(counts, key=counts.get) if max(counts.values()) else ","


def _find_columns(header: list[str]) -> dict[str, int]:
    positions: dict[str, int] = {}
    for index, name in enumerate(header):
        key = _normalized(name)
        for role, aliases in _NORMALIZED_ALIASES.items():
            if role not in positions and key in aliases:  # the first matching column wins
                positions[role] = index
    missing = [label for role, label in _REQUIRED.items() if role not in positions]
    if missing:
        shown = ", ".join(repr(h[:40]) for h in header[:8]) + (", …" if len(header) > 8 else "")
        raise InputError("csv", f"not an Epoch AI models CSV: missing column(s) {', '.join(missing)}; "
                                f"found {len(header)} column(s): {shown}")
    return positions


def _read_bytes(source: str | os.PathLike | bytes) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        path = Path(source)
        try:
            if not path.is_file():
                raise InputError("csv", f"'{path}' does not exist or is not a file")
            if path.stat().st_size > MAX_CSV_BYTES:
                raise InputError("csv", f"'{path}' is larger than {MAX_CSV_BYTES // 2**20} MiB")
            data = path.read_bytes()
        except OSError as exc:
            raise InputError("csv", f"cannot read '{path}' ({exc.strerror or exc})") from None
    if len(data) > MAX_CSV_BYTES:
        raise InputError("csv", f"larger than {MAX_CSV_BYTES // 2**20} MiB")
    return data


def read_epoch_csv(source: str | os.PathLike | bytes) -> EpochImport:
    """Runs with a usable date and FLOP figure from an Epoch AI CSV (a path, or the file's bytes)."""
    text = _decode(_read_bytes(source))
    newline = text.find("\n")
    first_line = text if newline < 0 else text[:newline]  # (split would copy the rest of the file)
    if len(first_line) > MAX_FIELD_CHARS:
        raise InputError("csv", f"line 1 is longer than {MAX_FIELD_CHARS:,} characters")
    previous_limit = csv.field_size_limit()
    csv.field_size_limit(MAX_FIELD_CHARS)  # process-wide setting: restored below
    try:
        return _parse(text, _delimiter(first_line))
    finally:
        csv.field_size_limit(previous_limit)


def _lines(text: str):
    """The lines of ``text`` with their endings, one at a time (``io.StringIO`` would copy the whole file
    into a 4-byte-per-character buffer first)."""
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start)
        stop = end if stop < 0 else stop + 1
        yield text[start:stop]
        start = stop


def _too_many_rows() -> InputError:
    return InputError("csv", f"more than {MAX_ROWS:,} rows: Epoch AI's files have a few thousand; is this "
                             "their models CSV?")


def _refuse_beyond_max_rows(text: str, delimiter: str) -> None:
    rows = -1  # the header is not a row
    try:
        for row in csv.reader(_lines(text), delimiter=delimiter):
            if any(cell.strip() for cell in row):
                rows += 1
                if rows > MAX_ROWS:
                    raise _too_many_rows()
    except csv.Error:
        return  # the real pass names the line


def _parse(text: str, delimiter: str) -> EpochImport:
    reader = csv.reader(_lines(text), delimiter=delimiter)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise InputError("csv", f"line 1: {exc}") from None
    except StopIteration:
        raise InputError("csv", "the file is empty") from None
    positions = _find_columns(header)
    if text.count("\n") > MAX_ROWS:  # maybe too many rows: count them before building any run
        _refuse_beyond_max_rows(text, delimiter)
    runs: list[RunPoint] = []
    hardware_rows: list[HardwareRow] = []
    skipped: Counter[str] = Counter()
    rows_read = 0
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue  # blank lines are not rows
            rows_read += 1
            if rows_read > MAX_ROWS:
                raise _too_many_rows()
            cells = {role: (row[i].strip() if i < len(row) else "") for role, i in positions.items()}
            point = _point(cells, rows_read, skipped)
            if point is not None:
                runs.append(point)
            if all(cells.get(role) for role in HARDWARE_ROLES):
                hardware_rows.append(HardwareRow(row=rows_read, name=cells["name"] or f"(row {rows_read}, unnamed)",
                                                 **{k: v for k, v in cells.items() if k in _ROW_CELLS}))
    except csv.Error as exc:
        raise InputError("csv", f"line {reader.line_num}: {exc}") from None
    return EpochImport(runs=runs, rows_read=rows_read, skipped=sum(skipped.values()),
                       skipped_by_reason=dict(sorted(skipped.items())),
                       columns={role: header[i] for role, i in positions.items()}, hardware_rows=hardware_rows)


def _point(cells: dict[str, str], row_number: int, skipped: Counter) -> RunPoint | None:
    if not cells["date"]:
        skipped["no date"] += 1
        return None
    if not cells["flop"]:
        skipped["no training compute"] += 1
        return None
    try:
        when = parse_partial_date(cells["date"])
    except ValueError:
        skipped["bad date"] += 1
        return None
    try:
        flop = parse_training_flop(cells["flop"])
    except ValueError:
        skipped["bad training compute"] += 1
        return None
    return RunPoint(name=cells["name"] or f"(row {row_number}, unnamed)",
                    organization=cells.get("organization", ""), publication_date=when.isoformat(),
                    decimal_year=when.decimal_year, domain=cells.get("domain", ""), training_flop=flop)
