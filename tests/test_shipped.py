"""A missing, empty, cut-short, corrupt or wrongly typed shipped data file, or an empty table, is one
``ShippedDataError`` naming the file and the fault (no server path, one line) from each file's reader."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.shipped import ROOT_FILES, SHIPPED_FILES, ShippedDataError, shipped_file
from engine.trends.runs_dataset import load_training_runs
from tests.conftest import ROOT
from tests.shipped_faults import FAULTS, LOADERS, broken_copy, forget, path_of, reason_in, use


@pytest.fixture(autouse=True)
def _forget_after():
    yield
    forget()


def test_every_data_file_that_ships_is_read_through_the_guarded_reader():
    """Every .json and .csv under engine/ and the three at the root are in SHIPPED_FILES (so the faults below
    cover them); no module reads one but through engine.shipped (no json.loads(...read_text()) of a data file)."""
    found = {p.name for p in (ROOT / "engine").rglob("*") if p.suffix in (".json", ".csv")}
    assert found | set(ROOT_FILES) == set(SHIPPED_FILES)
    for module in (ROOT / "engine").rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        if module.name == "shipped.py":
            continue
        for call in (".read_text(", ".read_bytes(", "open("):
            for line in text.splitlines():
                if call in line and any(name.split(".")[0] in line for name in ("KEYS_FILE", "LIBRARY_FILE", "PATH)",
                                                                              "WRAPPERS_FILE", "PUE_PATH",
                                                                              "GRID_PATH", "PATH.")):
                    raise AssertionError(f"{module.relative_to(ROOT)} reads a data file directly: {line.strip()}")


@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_the_shipped_files_load_and_end_with_a_line_end(name):
    """The cut-short check of a CSV relies on every shipped file ending with a newline."""
    assert LOADERS[name]()
    assert path_of(name).read_bytes().endswith(b"\n")


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_each_fault_names_the_file(tmp_path, monkeypatch, name, fault):
    use(monkeypatch, name, broken_copy(name, fault, tmp_path))
    with pytest.raises(ShippedDataError) as info:
        LOADERS[name]()
    exc = info.value
    assert isinstance(exc, InputError) and exc.name == name
    assert str(exc).startswith(f"{name}") and reason_in(fault, name, str(exc)), str(exc)
    assert "\n" not in str(exc) and str(tmp_path) not in str(exc)


@pytest.mark.parametrize("name, lookup", [("pue.csv", "provider_pue"), ("grid_intensity.csv", "grid_place")])
def test_an_empty_table_is_a_broken_install_not_the_users_mistake(tmp_path, monkeypatch, name, lookup):
    """Once "unknown provider 'aws'; known: " (an empty list) for a file with its header only."""
    from engine.method2 import places

    use(monkeypatch, name, broken_copy(name, "no_rows", tmp_path))
    with pytest.raises(ShippedDataError) as info:
        getattr(places, lookup)("aws" if lookup == "provider_pue" else "fr")
    assert str(info.value) == (f"{name}: no rows under its header (the installation is broken: restore the file "
                               "from the repository)")


def test_a_bad_row_names_the_file_and_the_line(tmp_path, monkeypatch):
    text = shipped_file("training_runs.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    text[3] = text[3].replace("http", "ftp", 1)  # a source that is not an http(s) link, on line 4
    path = tmp_path / "training_runs.csv"
    path.write_text("".join(text), encoding="utf-8")
    use(monkeypatch, "training_runs.csv", path)
    with pytest.raises(ShippedDataError, match=r"^training_runs\.csv line 4\.source: must be one http") as info:
        load_training_runs()
    assert info.value.problem == "line 4.source: must be one http(s) URL"
