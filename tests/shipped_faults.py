"""Broken copies of the shipped data files (missing, empty, cut short, corrupt) and where each is read,
for the engine, CLI and page tests of a faulty deployment."""
from __future__ import annotations

from pathlib import Path

from engine.method2 import hardware_db, utilization_priors
from engine.shipped import ROOT_FILES, shipped_file
from engine.trends import runs_dataset

PATH_ATTRIBUTE = {"hardware_db.json": (hardware_db, "HARDWARE_DB_PATH"),
                  "training_runs.csv": (runs_dataset, "DATASET_PATH"),
                  "utilization_reports.csv": (utilization_priors, "REPORTS_PATH")}
assert set(PATH_ATTRIBUTE) == set(ROOT_FILES)
FAULTS = ("missing", "empty", "cut_short", "corrupt")
REASON = {"missing": "missing from this installation", "empty": "empty",
          "cut_short": ("not valid JSON", "cut short"), "corrupt": "not UTF-8 text (byte 101 of"}
"""What the message must say for each fault (a cut-short JSON file fails to parse; a CSV lacks its line end)."""


def broken_copy(name: str, fault: str, folder: Path) -> Path:
    """``folder/name`` as the fault leaves it: absent, empty, its first half, or bytes 0xff 0xfe at 101."""
    data = shipped_file(name).read_bytes()
    path = folder / name
    if fault == "empty":
        path.write_bytes(b"")
    elif fault == "cut_short":
        path.write_bytes(data[: len(data) // 2])
    elif fault == "corrupt":
        path.write_bytes(data[:100] + b"\xff\xfe" + data[100:])
    return path


def use(monkeypatch, name: str, path: Path) -> None:
    """Make the engine read ``name`` from ``path`` (and forget what it cached)."""
    module, attribute = PATH_ATTRIBUTE[name]
    monkeypatch.setattr(module, attribute, path)
    hardware_db._load.cache_clear()
    utilization_priors._load.cache_clear()
    runs_dataset._load.cache_clear()


def reason_in(fault: str, name: str, text: str) -> bool:
    wanted = REASON[fault]
    if isinstance(wanted, tuple):
        wanted = wanted[0] if name.endswith(".json") else wanted[1]
    return wanted in text
