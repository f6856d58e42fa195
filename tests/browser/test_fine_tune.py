"""Fine-tuning in a real browser (Debian's Chromium, headless, Playwright): LoRA on the layer list, one layer
frozen from the editor, the last k blocks of a language model from the panel, and the one-third rule on the
Plan page. Every step fails on any exception element; the figures are derived here by hand (Epoch's example:
conv 5×5×5 → 16, LSTM 256 over 20 steps of 640,000 values, dense 256 → 10)."""
from __future__ import annotations

import pytest

from tests.browser.harness import WAIT_MS, metric_value, wait_for_app
from tests.browser.test_user_flows import settle
from tests.reference import EPOCH_EXAMPLE_PARAMS

FINE_TUNE = "Fine-tune: train every weight, the last k blocks, or LoRA adapters"
CONV_PARAMS = 16 * 5 * 5 * 5 + 16


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2400})
    yield context.new_page()
    context.close()


def test_lora_on_the_layer_list(server, page):
    page.goto(server)
    settle(page)
    assert metric_value(page, "Trainable parameters") == f"{EPOCH_EXAMPLE_PARAMS:,}"
    page.get_by_text(FINE_TUNE).click()
    settle(page)
    expander = page.locator("[data-testid='stExpander']", has_text=FINE_TUNE)
    expander.get_by_text("LoRA adapters (every other weight frozen)").click()
    settle(page)
    expander.get_by_role("button", name="Apply to the layers").click()
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stMetric]')].some(m =>
        m.innerText.includes('Trainable parameters') && m.innerText.includes('2,128'))""", timeout=WAIT_MS)
    settle(page)
    # an adapter of rank 8 on the dense layer 256 → 10: 8·(256 + 10) trainable parameters; its backward: A and B
    # weight gradients (2,128 MACs) and B's input gradient (80), nothing before it (all frozen): 2·2,208 FLOP
    assert metric_value(page, "Trainable parameters") == "2,128"
    assert metric_value(page, "Backward per example") == "4,420 FLOP"  # 4,416 to three figures
    assert page.get_by_text("frozen or adapted").count() >= 1


def test_freeze_one_layer_from_the_editor(server, page):
    page.goto(server)
    settle(page)
    box = page.locator("[data-testid='stSelectbox']", has_text="Weights").first  # the selected layer: #0, the conv
    box.locator("input").click()
    page.get_by_role("option", name="frozen (no weight gradients)").first.click()
    settle(page)
    page.wait_for_function("""(n) => [...document.querySelectorAll('[data-testid=stMetric]')].some(m =>
        m.innerText.includes('Trainable parameters') && m.innerText.includes(n))""",
                           arg=f"{EPOCH_EXAMPLE_PARAMS - CONV_PARAMS:,}", timeout=WAIT_MS)
    settle(page)
    assert metric_value(page, "Trainable parameters") == f"{EPOCH_EXAMPLE_PARAMS - CONV_PARAMS:,}"


def test_last_blocks_of_a_language_model_then_the_one_third_rule(server, page):
    page.goto(server)
    settle(page)
    panel_title = "Transformers: build from a Hugging Face config.json"
    page.get_by_text(panel_title).click()
    settle(page)
    panel = page.locator("[data-testid='stExpander']", has_text=panel_title)
    panel.get_by_text("the last k blocks (and what follows)").click()
    settle(page)
    panel.get_by_role("button", name="Build the layers from this config").click()
    page.get_by_text("Fine-tune (last)").wait_for(timeout=WAIT_MS)
    settle(page)
    trainable = int(metric_value(page, "Trainable parameters").replace(",", ""))
    total = int(metric_value(page, "Parameters").replace(",", ""))
    assert 0 < trainable < total
    # the Plan page: the fine-tune's compute against a base model's training compute
    page.locator("[data-testid='stSidebarNav'] a[href$='/plan']").first.click()
    page.wait_for_url("**/plan**", timeout=WAIT_MS)
    settle(page)
    page.get_by_text("Modifying a model (a fine-tune)").wait_for(timeout=WAIT_MS)
    field = page.get_by_role("spinbutton", name="The base model's training compute")
    field.fill("1e40")
    field.press("Enter")
    page.get_by_text("below one third").first.wait_for(timeout=WAIT_MS)
    settle(page)
    field.fill("1")
    field.press("Enter")
    page.get_by_text("above one third").first.wait_for(timeout=WAIT_MS)
    settle(page)
    assert page.get_by_text("European Commission, guidelines").count() >= 1


def test_lora_on_qkv_with_q_is_one_line(server, page):
    """The fused q/k/v adapter beside q (the default targets are q and v): one line naming the targets, the layer list
    kept; pydantic's error reached the page as an exception element."""
    page.goto(server)
    settle(page)
    before = metric_value(page, "Trainable parameters")
    page.get_by_text(FINE_TUNE).click()
    settle(page)
    expander = page.locator("[data-testid='stExpander']", has_text=FINE_TUNE)
    expander.get_by_text("LoRA adapters (every other weight frozen)").click()
    settle(page)
    targets = expander.locator("[data-testid='stMultiSelect']").locator("input")
    targets.click()
    targets.fill("qkv")
    page.get_by_role("option", name="qkv (one adapter on the fused q/k/v: GPT-2's c_attn)").click()
    page.keyboard.press("Escape")
    settle(page)
    expander.get_by_role("button", name="Apply to the layers").click()
    page.get_by_text("targets: qkv is one adapter on the fused q/k/v projection").wait_for(timeout=WAIT_MS)
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert metric_value(page, "Trainable parameters") == before
