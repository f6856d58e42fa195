"""A PyTorch module counted on the command line (``python -m engine count FILE.py:FACTORY --save``), then
opened in the dashboard: the saved scenario is restored on the layer builder, whose figures are the module's
per example (frozen weights included), and the page's link opens every other page. Debian's Chromium through
Playwright; every step fails on an exception element."""
from __future__ import annotations

from tests.browser.harness import PAGES, WAIT_MS, metric_changes, metric_value, wait_for_app
from tests.cli import cli

BATCH, D_IN, HIDDEN, D_OUT = 4, 8, 16, 4
MODULE = f"""import torch


def build():  # the first layer frozen: a fine-tune of the head only
    net = torch.nn.Sequential(torch.nn.Linear({D_IN}, {HIDDEN}), torch.nn.ReLU(), torch.nn.Linear({HIDDEN}, {D_OUT}))
    net[0].requires_grad_(False)
    return net
"""
PARAMS = D_IN * HIDDEN + HIDDEN + HIDDEN * D_OUT + D_OUT
TRAINABLE = HIDDEN * D_OUT + D_OUT
FORWARD = 2 * (D_IN * HIDDEN + HIDDEN * D_OUT)  # per example
BACKWARD = 2 * HIDDEN * D_OUT  # the head's weight gradient; nothing below it trains


def healthy(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Something unexpected went wrong").count() == 0


def test_a_counted_module_opens_in_the_dashboard_and_its_link_on_every_page(torch, server, browser, tmp_path):
    code, saved = tmp_path / "head.py", tmp_path / "head.json"
    code.write_text(MODULE, encoding="utf-8")
    out = cli("count", f"{code}:build", "--input", f"{BATCH},{D_IN}", "--save", str(saved))
    assert out.returncode == 0, out.stderr

    context = browser.new_context(viewport={"width": 1400, "height": 2200})
    page = context.new_page()
    page.goto(server)
    wait_for_app(page)
    before = metric_value(page, "Parameters")  # the default example's
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(saved))  # "Restore a scenario"
    # the restore's rerun can start long after the upload's run on a busy machine: read once it has drawn
    assert metric_changes(page, "Parameters", before) == f"{PARAMS:,}"
    healthy(page)
    assert metric_value(page, "Forward per example") == f"{FORWARD:,} FLOP"
    assert metric_value(page, "Backward per example") == f"{BACKWARD:,} FLOP"
    assert metric_value(page, "Trainable parameters") == f"{TRAINABLE:,}"
    page.wait_for_function("() => location.search.includes('s=')", timeout=WAIT_MS)
    query = page.evaluate("() => location.search")
    context.close()

    for path in PAGES.values():
        context = browser.new_context(viewport={"width": 1400, "height": 2200})
        page = context.new_page()
        page.goto(f"{server}/{path}{query}")
        wait_for_app(page)
        healthy(page)
        if path == "":  # the layer builder
            assert metric_value(page, "Parameters") == f"{PARAMS:,}"
            assert metric_value(page, "Trainable parameters") == f"{TRAINABLE:,}"
        context.close()
