"""Where the shipped data files are: the repository root in a checkout, the package in an install.

``hardware_db.json``, ``training_runs.csv`` and ``utilization_reports.csv`` sit at the repository root
(next to their ``.md`` notes, where contributors edit them); ``pip install .`` copies them into the
installed package as ``engine/_shipped/`` (``setup.py``), so the ``flopscope`` command finds them too.
"""
from __future__ import annotations

from pathlib import Path

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
