"""A missing, empty, cut-short or corrupt shipped data file is one ``ShippedDataError`` naming the file
and the fault (no server path, one line) from each of the three loaders."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.method2.hardware_db import load_hardware_db
from engine.method2.utilization_priors import load_utilization_reports
from engine.shipped import ROOT_FILES, ShippedDataError, shipped_file
from engine.trends.runs_dataset import load_training_runs
from tests.shipped_faults import FAULTS, broken_copy, reason_in, use

LOADERS = {"hardware_db.json": load_hardware_db, "training_runs.csv": load_training_runs,
           "utilization_reports.csv": load_utilization_reports}


@pytest.mark.parametrize("name", ROOT_FILES)
def test_the_shipped_files_load_and_end_with_a_line_end(name):
    """The cut-short check relies on every shipped CSV ending with a newline."""
    assert LOADERS[name]()
    assert shipped_file(name).read_bytes().endswith(b"\n")


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", ROOT_FILES)
def test_each_fault_names_the_file(tmp_path, monkeypatch, name, fault):
    use(monkeypatch, name, broken_copy(name, fault, tmp_path))
    with pytest.raises(ShippedDataError) as info:
        LOADERS[name]()
    exc = info.value
    assert isinstance(exc, InputError) and exc.name == name
    assert str(exc).startswith(f"{name}: ") and reason_in(fault, name, str(exc)), str(exc)
    assert "\n" not in str(exc) and str(tmp_path) not in str(exc)


def test_a_bad_row_names_the_file_and_the_line(tmp_path, monkeypatch):
    text = shipped_file("training_runs.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    text[3] = text[3].replace("http", "ftp", 1)  # a source that is not an http(s) link, on line 4
    path = tmp_path / "training_runs.csv"
    path.write_text("".join(text), encoding="utf-8")
    use(monkeypatch, "training_runs.csv", path)
    with pytest.raises(ShippedDataError, match=r"^training_runs\.csv line 4\.source: must be one http") as info:
        load_training_runs()
    assert info.value.problem == "line 4.source: must be one http(s) URL"
