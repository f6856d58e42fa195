"""Compression and serving in a real browser (Debian's Chromium, headless, Playwright): a pruned model from the
layer builder's Compress panel, applied; a serving plan on the Serve page, with a bad batch named in one line. Every
step fails on any exception element; the figures are derived here (Epoch's example: conv 5×5×5 → 16 over 400×400×5,
LSTM 256 over 640,000 values, dense 256 → 10; Llama 3.1 8B's KV cache: 2·8·128·32 values of 2 bytes per token)."""
from __future__ import annotations

import pytest

from tests.browser.harness import metric_value
from tests.browser.test_user_flows import settle

COMPRESS = "Compress: prune, sparsify, quantize or train in a smaller format — before and after"
# pruned by half: conv 16 → 8 filters (8·125 + 8), its output 200·200·8 = 320,000 values into an LSTM of 128 units:
# 4·(320,000·128 + 128² + 2·128); the dense head keeps its 10 outputs: 128·10 + 10
PRUNED_PARAMS = (8 * 125 + 8) + 4 * (320_000 * 128 + 128 * 128 + 2 * 128) + (128 * 10 + 10)


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2600})
    yield context.new_page()
    context.close()


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def test_prune_the_layer_list_and_apply(server, page):
    page.goto(server)
    settle(page)
    page.get_by_text(COMPRESS).click()
    settle(page)
    expander = page.locator("[data-testid='stExpander']", has_text=COMPRESS)
    expander.get_by_text("Compare before and after").click()
    settle(page)
    no_exception(page)
    assert expander.get_by_text("Measured speed-up").count() >= 1
    expander.get_by_role("button", name="Apply the pruned layers").click()
    page.wait_for_function("""(n) => [...document.querySelectorAll('[data-testid=stMetric]')].some(m =>
        m.innerText.includes('Trainable parameters') && m.innerText.includes(n))""",
                           arg=f"{PRUNED_PARAMS:,}", timeout=30_000)
    settle(page)
    no_exception(page)
    assert metric_value(page, "Trainable parameters") == f"{PRUNED_PARAMS:,}"


def test_a_serving_plan_and_a_bad_batch(server, page):
    page.goto(f"{server}/serve")
    settle(page)
    no_exception(page)
    assert metric_value(page, "KV cache / token") == "131.1 kB"
    batch = page.locator("[data-testid='stNumberInput']", has_text="Batch (0: the best that fits)").locator("input")
    batch.fill("1000000000")
    batch.press("Enter")
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stAlert]')].some(a =>
        a.innerText.startsWith('batch:'))""", timeout=30_000)
    no_exception(page)
    batch.fill("8")
    batch.press("Enter")
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stMetric]')].some(m =>
        m.innerText.includes('Batch') && m.innerText.includes('8'))""", timeout=30_000)
    settle(page)
    no_exception(page)
    assert metric_value(page, "Batch") == "8"
