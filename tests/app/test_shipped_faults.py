"""A faulty deployment, generated: every shipped data file (``engine.shipped.SHIPPED_FILES``) empty, cut short or of
the wrong type, and every page run with it. A page or a part of a page that needs the file says so in one line
naming it (no exception box, no server path, never the user's fault); a part that only adds something warns and the
rest works; the pages that do not use the file are unchanged."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.shipped import SHIPPED_FILES
from tests.conftest import ROOT
from tests.shipped_faults import PAGE_FAULTS, broken_copy, forget, reason_in, use
from ui.navigation import PAGE_NAMES as PAGES

PAGE, PART, ADDS = "page", "part", "adds"
NEEDS = {
    "hardware_db.json": {name: PAGE for name in PAGES if name != "layer_builder"},
    "training_runs.csv": {"trends": PAGE},
    "utilization_reports.csv": {"hardware": ADDS},  # the presets from reported runs
    "config_keys.json": {"layer_builder": ADDS, "plan": PART,  # two presets; the published runs' comparison
                         "serve": PAGE},  # the models offered
    "models.json": {"layer_builder": PART, "serve": PAGE},  # the transformer panel; the models offered
    "multimodal_wrappers.json": {},  # read only when a multimodal config is counted (tests/cli/test_shipped_cli.py)
    # the list of data centres (hardware page, the plan's bill): the database's default PUE instead
    "pue.csv": {"hardware": ADDS, "plan": ADDS},
    "grid_intensity.csv": {"hardware": ADDS, "plan": ADDS},
    "interconnects.json": {"plan": PART},  # memory and step time; the published runs' comparison
    "model_error.json": {"plan": PART},  # the step's 90% range; the published runs' held-out ranges
    "published_runs.json": {"plan": PART},  # the published runs' comparison
    "efficiencies.json": {"serve": PART},  # the serving estimate (the inputs stay)
    "measured_serving.json": {},  # the serving check (tests, tools/fit_serving.py): no page reads it
    "factors.json": {},  # read when a compression with a measured factor is compared (tests/cli/test_shipped_cli.py)
    "library_keys.json": {},  # read only when a multimodal or diffusers config is counted (test_shipped_cli.py)
}
"""What each file's fault does to each page: the page stops with one line (``PAGE``); one part shows one line in
its place and the rest of the page works (``PART``); a part warns and works with less (``ADDS``); absent: nothing."""
assert set(NEEDS) == set(SHIPPED_FILES)


def run_page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if name != "layer_builder":
        at.switch_page(str(ROOT / "pages" / f"{name}.py")).run()
    return at


def texts(elements) -> list[str]:
    return [e.value.replace("\\", "") for e in elements]


@pytest.fixture(autouse=True)
def _forget_after():
    yield
    forget()  # nothing computed from a broken copy outlives the test


@pytest.mark.parametrize("fault", PAGE_FAULTS)
@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_every_page_with_a_broken_data_file(tmp_path, monkeypatch, name, fault):
    use(monkeypatch, name, broken_copy(name, fault, tmp_path))
    for page in PAGES:
        at = run_page(page)
        assert not at.exception, (page, [e.value for e in at.exception])
        errors = [t for t in texts(at.error) if name in t]
        warnings = [t for t in texts(at.warning) if name in t]
        for line in errors + warnings:
            assert "\n" not in line and str(tmp_path) not in line and reason_in(fault, name, line), (page, line)
            assert f"needs the data file {name}, which ships with FLOPscope" in line, (page, line)
        need = NEEDS[name].get(page)
        if need == PAGE:
            assert len(errors) == 1 and errors[0].startswith(f"This page needs the data file {name}"), (page, errors)
        elif need == PART:
            assert errors and not warnings and not any(e.startswith("This page") for e in errors), (page, errors)
            assert len(errors) == len(set(e.split(" needs ")[0] for e in errors)), (page, errors)  # one per part
            assert at.subheader or at.metric, page  # the rest of the page is there
        elif need == ADDS:
            assert not errors and len(warnings) == 1, (page, errors, warnings)
            assert at.metric or at.selectbox, page
        else:
            assert not errors and not warnings, (page, errors, warnings)
            assert not at.error, (page, texts(at.error))
