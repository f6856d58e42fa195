"""A deployment without its hardware database (hardware_db.json deleted from a copy of the project):
in the browser, the pages that need it say so in one line naming the file, and the layer builder still
counts (Epoch AI's worked example, 1.13e16 FLOP). AppTest covers every page × file × fault
(tests/app/test_shipped_faults.py); this checks a real server renders the same."""
from __future__ import annotations

from tests.browser.harness import PAGES, metric_value, project_copy, streamlit_server, wait_for_app

NEEDS_THE_DATABASE = set(PAGES) - {"layer_builder"}
"""Every page but the layer builder (which counts without it)."""


def test_a_missing_hardware_database_in_the_browser(tmp_path, browser):
    root = project_copy(tmp_path / "flopscope")
    (root / "hardware_db.json").unlink()
    with streamlit_server(root=root) as url:
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        for name, path in PAGES.items():
            page.goto(f"{url}/{path}")
            wait_for_app(page)
            assert page.locator("[data-testid='stException']").count() == 0, name
            alerts = page.locator("[data-testid='stAlert']", has_text="hardware_db.json").all_inner_texts()
            if name in NEEDS_THE_DATABASE:
                assert len(alerts) == 1, (name, alerts)
                assert "This page needs the data file hardware_db.json, which ships" in alerts[0] \
                    and "missing from this installation" in alerts[0] and str(root) not in alerts[0]
            else:
                assert alerts == [], (name, alerts)
                assert metric_value(page, "Training compute") == "1.13e16 FLOP"
        context.close()
