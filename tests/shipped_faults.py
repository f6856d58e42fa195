"""Broken copies of every shipped data file (``engine.shipped.SHIPPED_FILES``: missing, empty, cut short, corrupt,
of the wrong type, or with an empty table) and where each is read, for the engine, CLI and page tests of a faulty
deployment."""
from __future__ import annotations

import sys
from pathlib import Path

from engine.compress import factors
from engine.llm import library
from engine.llm.families import keys, reading
from engine.method2 import hardware_db, places, utilization_priors
from engine.multimodal import config_reader
from engine.plan import interconnects, published, uncertainty
from engine.serve import engines, validation
from engine.shipped import ROOT_FILES, SHIPPED_FILES, module_file, shipped_file
from engine.trends import runs_dataset

PATH_ATTRIBUTE = {"hardware_db.json": (hardware_db, "HARDWARE_DB_PATH"),
                  "training_runs.csv": (runs_dataset, "DATASET_PATH"),
                  "utilization_reports.csv": (utilization_priors, "REPORTS_PATH"),
                  "config_keys.json": (keys, "KEYS_FILE"),
                  "models.json": (library, "LIBRARY_FILE"),
                  "multimodal_wrappers.json": (reading, "WRAPPERS_FILE"),
                  "pue.csv": (places, "PUE_PATH"),
                  "grid_intensity.csv": (places, "GRID_PATH"),
                  "interconnects.json": (interconnects, "PATH"),
                  "published_runs.json": (published, "PATH"),
                  "model_error.json": (uncertainty, "PATH"),
                  "efficiencies.json": (engines, "EFFICIENCIES"),
                  "measured_serving.json": (validation, "DATA"),
                  "factors.json": (factors, "PATH"),
                  "library_keys.json": (config_reader, "KEYS_FILE")}
assert set(PATH_ATTRIBUTE) == set(SHIPPED_FILES)
LOADERS = {"hardware_db.json": hardware_db.load_hardware_db, "training_runs.csv": runs_dataset.load_training_runs,
           "utilization_reports.csv": utilization_priors.load_utilization_reports,
           "config_keys.json": keys.modelling_keys, "models.json": library.library_models,
           "multimodal_wrappers.json": reading.multimodal_wrappers, "pue.csv": places.provider_pues,
           "grid_intensity.csv": places.grid_places, "interconnects.json": interconnects.interconnects,
           "published_runs.json": published.published_runs, "model_error.json": uncertainty.model_errors,
           "efficiencies.json": lambda: engines.efficiency("vllm"), "measured_serving.json": validation.measured,
           "factors.json": factors.factors, "library_keys.json": config_reader.keys_file}
"""Each file's reader in the engine."""
TABLE = {"hardware_db.json": "chips", "config_keys.json": "families", "models.json": "models",
         "multimodal_wrappers.json": "wrappers", "interconnects.json": "systems", "published_runs.json": "runs",
         "model_error.json": "runs", "efficiencies.json": "engines", "measured_serving.json": "rows",
         "factors.json": "factors", "library_keys.json": "classes"}
"""The main table of each JSON file (emptied by the ``no_rows`` fault)."""
FAULTS = ("missing", "empty", "cut_short", "corrupt", "wrong_type", "no_rows")
PAGE_FAULTS = ("empty", "cut_short", "wrong_type")
"""The faults every page is run with (all six are checked on the engine and the CLI)."""
REASON = {"missing": "missing from this installation", "empty": "empty",
          "cut_short": ("not valid JSON", "cut short"), "corrupt": "not UTF-8 text (byte 101 of",
          "wrong_type": ("a JSON list where an object belongs", "missing column(s)"),
          "no_rows": "the installation is broken"}
"""What the message must say for each fault (JSON first, CSV second where they differ)."""


def path_of(name: str) -> Path:
    return shipped_file(name) if name in ROOT_FILES else module_file(name)


def broken_copy(name: str, fault: str, folder: Path) -> Path:
    """``folder/name`` as the fault leaves it."""
    import json

    data = path_of(name).read_bytes()
    path = folder / name
    if fault == "empty":
        path.write_bytes(b"")
    elif fault == "cut_short":
        path.write_bytes(data[: len(data) // 2])
    elif fault == "corrupt":
        path.write_bytes(data[:100] + b"\xff\xfe" + data[100:])
    elif fault == "wrong_type":
        path.write_bytes(b'[{"id": "x"}]\n' if name.endswith(".json") else b'{"models": []}\n')
    elif fault == "no_rows":
        if name.endswith(".json"):
            content = json.loads(data)
            content[TABLE[name]] = type(content[TABLE[name]])()
            path.write_text(json.dumps(content), encoding="utf-8")
        else:
            path.write_bytes(data.split(b"\n", 1)[0] + b"\n")
    return path


def forget() -> None:
    """Every engine cache (the shipped files' readers and what they feed) and Streamlit's data cache."""
    for module_name, module in list(sys.modules.items()):
        if module_name == "engine" or module_name.startswith("engine."):
            for value in list(vars(module).values()):
                if callable(value) and hasattr(value, "cache_clear") and getattr(value, "__module__", "") == \
                        module_name:
                    value.cache_clear()
    if "streamlit" in sys.modules:
        import streamlit as st
        st.cache_data.clear()


def use(monkeypatch, name: str, path: Path) -> None:
    """Make the engine read ``name`` from ``path`` (and forget what it cached)."""
    module, attribute = PATH_ATTRIBUTE[name]
    monkeypatch.setattr(module, attribute, path)
    forget()


def reason_in(fault: str, name: str, text: str) -> bool:
    wanted = REASON[fault]
    if isinstance(wanted, tuple):
        wanted = wanted[0] if name.endswith(".json") else wanted[1]
    return wanted in text
