"""A faulty deployment: every page with each shipped data file missing, empty, cut short or corrupt.
A page that needs the file says so once, naming it (no exception box); the other pages work unchanged."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.shipped import ROOT_FILES
from tests.conftest import ROOT
from tests.shipped_faults import FAULTS, broken_copy, reason_in, use
from ui.navigation import PAGE_NAMES as PAGES

NEEDS = {"hardware_db.json": set(PAGES) - {"layer_builder"},
         "training_runs.csv": {"trends"},
         "utilization_reports.csv": set()}
ADDS_TO = {"utilization_reports.csv": {"hardware"}}
"""Pages where the file only adds something (the hardware page's presets from reported runs): a warning,
and the rest of the page works."""


def run_page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if name != "layer_builder":
        at.switch_page(str(ROOT / "pages" / f"{name}.py")).run()
    return at


def texts(elements) -> list[str]:
    return [e.value.replace("\\", "") for e in elements]


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", ROOT_FILES)
def test_every_page_with_a_broken_data_file(tmp_path, monkeypatch, name, fault):
    use(monkeypatch, name, broken_copy(name, fault, tmp_path))
    for page in PAGES:
        at = run_page(page)
        assert not at.exception, (page, [e.value for e in at.exception])
        errors = [t for t in texts(at.error) if name in t]
        warnings = [t for t in texts(at.warning) if name in t]
        if page in NEEDS[name]:
            assert len(errors) == 1 and reason_in(fault, name, errors[0]), (page, texts(at.error))
            assert errors[0].startswith(f"This page needs the data file {name}")
            assert str(tmp_path) not in errors[0]
        elif page in ADDS_TO.get(name, ()):
            assert not errors and len(warnings) == 1 and reason_in(fault, name, warnings[0]), (page, warnings)
            assert at.metric, page  # the page's figures are still there
        else:
            assert not errors and not warnings, (page, errors, warnings)
            assert not at.error, (page, texts(at.error))
