"""The dashboard in a real browser: Debian's Chromium, headless, driven by Playwright.

Screenshots of every page go to ``test-artifacts/``. Without Chromium these skip, except in CI
(FLOPSCOPE_REQUIRE_BROWSER=1), where they must run.
"""
from __future__ import annotations

import pytest

from tests.browser.harness import ARTIFACTS, PAGES, WAIT_MS, metric_value, wait_for_app
from tests.reference import EPOCH_EXAMPLE_TRAINING, flop



def new_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2200})
    return context, context.new_page()



@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_loads_without_an_exception(server, browser, name):
    context, page = new_page(browser)
    page.goto(f"{server}/{PAGES[name]}")
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{name}.png"), full_page=True)
    context.close()


def test_edit_updates_the_total_and_the_link_restores_it(server, browser):
    context, page = new_page(browser)
    page.goto(server)
    wait_for_app(page)
    assert flop(metric_value(page, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)
    page.wait_for_function("() => location.search.includes('s=')", timeout=WAIT_MS)
    before = page.evaluate("() => location.search")
    epochs = page.get_by_label("Epochs", exact=True)
    epochs.fill("20")
    epochs.press("Enter")
    expected = f"{2 * EPOCH_EXAMPLE_TRAINING:.2e}".replace("e+", "e") + " FLOP"
    page.wait_for_function(
        "(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')].some(e => e.innerText === want)",
        arg=expected, timeout=WAIT_MS)
    page.wait_for_function("(before) => location.search !== before", arg=before, timeout=WAIT_MS)
    link = page.url
    context.close()

    fresh, page = new_page(browser)  # a new browser context: no cookies, no session
    page.goto(link)
    wait_for_app(page)
    assert metric_value(page, "Training compute") == expected
    fresh.close()


def test_garbage_link_shows_a_message(server, browser):
    context, page = new_page(browser)
    page.goto(f"{server}/?s=1.garbage%3Cscript%3E")
    wait_for_app(page)
    assert page.get_by_text("share link could not be opened").count() >= 1
    assert page.locator("[data-testid='stException']").count() == 0
    context.close()


@pytest.mark.parametrize("body", [
    '{"input": {"shape": [3]}, "layers": [{"type": "warp_drive"}]}',
    # a list where the type goes: once a TypeError under the upload ("Something unexpected went wrong")
    '{"input": {"shape": [3]}, "layers": [{"type": []}]}',
])
def test_hostile_upload_shows_a_message(server, browser, tmp_path, body):
    bad = tmp_path / "bad.json"
    bad.write_text(body)
    context, page = new_page(browser)
    page.goto(server)
    wait_for_app(page)
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(bad))
    page.get_by_text("The file was not loaded").wait_for(timeout=WAIT_MS)
    assert page.get_by_text("layers[0].type").count() >= 1
    assert flop(metric_value(page, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)
    context.close()


def test_a_link_of_a_billion_lightning_blocks_opens_with_its_total(server, browser):
    """Lightning attention in blocks of 1 over 10⁹ positions: the blocks were listed one by one (minutes of CPU,
    15 GB); in closed form the page opens with its total. MACs per example (d = 64, one head of Q = 64, b_i = 1):
    q/k/v L·d·3Q, intra-block QKᵀ and AV Σb²·Q each (Σb² = L), the states and their read-out (L − 1)·Q² each, the
    first read-out and the last state Q² each, gate and output L·d·Q each, the feed-forward L·2·d·4d."""
    import base64
    import json
    import zlib

    spec = {"input": {"shape": [64], "sequence_length": 10**9}, "training": {"examples": 1, "epochs": 1},
            "layers": [{"type": "transformer_block", "heads": 1, "mixer": "lightning", "lightning_block_size": 1}]}
    token = "1." + base64.urlsafe_b64encode(zlib.compress(json.dumps(spec).encode())).decode().rstrip("=")
    context, page = new_page(browser)
    page.goto(f"{server}/?s={token}")
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    n, d = 10**9, 64
    macs = n * d * 3 * d + 2 * n * d + 2 * (n - 1) * d * d + 2 * d * d + 2 * n * d * d + n * 2 * d * 4 * d
    assert flop(metric_value(page, "Forward per example")) == pytest.approx(2 * macs, rel=5e-3)
    context.close()


def test_hostile_epoch_csv_upload_shows_a_message(server, browser, tmp_path):
    bad = tmp_path / "not_epoch.csv"
    bad.write_bytes(b"\x00\x01\x02garbage,without,the,columns\n1,2,3\n")
    context, page = new_page(browser)
    page.goto(f"{server}/trends")
    wait_for_app(page)
    page.get_by_text("Add Epoch AI's data").click()
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(bad))
    page.get_by_text("the file was not used").wait_for(timeout=WAIT_MS)
    assert page.locator("[data-testid='stException']").count() == 0
    context.close()


def test_epoch_csv_upload_reconciles_rows_with_their_hardware(server, browser, tmp_path):
    # ratios worked out here: method 2 = chips × hours × 3600 × dense peak × utilization
    a100 = 8 * 10 * 3600 * 312e12 * 0.5          # A100 datasheet BF16 312 TFLOP/s → ratio 1
    v100 = 4 * 24 * 3600 * 125e12 * 0.4          # V100 SXM2 FP16 tensor 125 TFLOP/s, Epoch's 40% → ratio 2
    gtx = 2 * 100 * 3600 * 512 * 1544e6 * 2 * 0.4  # GTX 580: 512 cores × 1544 MHz × 2 → ratio 10
    rows = [("Alpha", "2021-01-01", "Language", a100, "NVIDIA A100", 8, 10, "0.5"),
            ("Beta", "2018-01-01", "Vision", v100 / 2, "NVIDIA V100", 4, 24, ""),
            ("Gamma", "2012-01-01", "Vision", gtx / 10, "NVIDIA GeForce GTX 580", 2, 100, "")]
    lines = ["Model,Publication date,Domain,Training compute (FLOP),Training hardware,Hardware quantity,"
             "Training time (hours),Hardware utilization"]
    lines += [f"{n},{d},{dom},{c:.6e},{hw},{q},{h},{u}" for n, d, dom, c, hw, q, h, u in rows]
    path = tmp_path / "epoch.csv"
    path.write_text("\n".join(lines) + "\n")
    context, page = new_page(browser)
    page.goto(f"{server}/trends")
    wait_for_app(page)
    page.get_by_text("Add Epoch AI's data").click()
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(path))
    page.get_by_text("Median ratio (method 2 ÷ reported)").wait_for(timeout=WAIT_MS)
    wait_for_app(page)
    assert metric_value(page, "Median ratio (method 2 ÷ reported)") == "2"   # median of 1, 2, 10
    assert metric_value(page, "Within 2×") == "67%" and metric_value(page, "Within 3×") == "67%"
    assert metric_value(page, "Chip found") == "3"
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "trends-reconciliation.png"), full_page=True)
    context.close()


def _choose(page, label: str, text: str) -> None:
    """Choose the option of the selectbox ``label`` whose text contains ``text`` (it filters as one types)."""
    box = page.get_by_label(label)
    box.click()
    page.keyboard.type(text)
    page.get_by_role("option").filter(has_text=text).first.wait_for(timeout=WAIT_MS)
    page.keyboard.press("Enter")
    wait_for_app(page)


def _pick_layer(page, text: str) -> None:
    _choose(page, "Layer (blocks are listed with what they hold, indented)", text)


def test_resnet50_link_edit_inside_a_repeat_and_wrap_unwrap(server, browser):
    """Issue 11's flows: a nested preset through its link, an edit inside a repeated block (every copy
    changes: the parameters drop by 2 × (256·32 + 2·32 + 32·64·9)), then wrap a layer into branches and unwrap."""
    from engine.presets import presets
    from engine.share_link import encode

    context, page = new_page(browser)
    page.goto(f"{server}/?s={encode(presets()['resnet50'].scenario)}")
    wait_for_app(page)
    assert metric_value(page, "Parameters") == "25,557,032"
    _pick_layer(page, "#4 › layers[2] › layers[0] › body[0]")
    assert page.get_by_text("edits every copy").count() >= 1
    filters = page.get_by_label("filters", exact=True)
    filters.fill("32")
    filters.press("Enter")
    want = f"{25_557_032 - 2 * (256 * 32 + 2 * 32 + 32 * 64 * 9):,}"
    page.wait_for_function(
        "(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')].some(e => e.innerText === want)",
        arg=want, timeout=WAIT_MS)
    wait_for_app(page)
    _pick_layer(page, "#10  dense")
    _choose(page, "Wrap into a block", "branches (the identity")
    page.get_by_role("button", name="Wrap", exact=True).click()
    wait_for_app(page)
    page.get_by_text("#10 · Parallel branches").first.wait_for(timeout=WAIT_MS)
    page.get_by_role("button", name="Unwrap", exact=True).click()
    wait_for_app(page)
    page.get_by_text("#10 · Fully connected").first.wait_for(timeout=WAIT_MS)
    assert page.locator("[data-testid='stException']").count() == 0
    assert metric_value(page, "Parameters") == want  # wrapping in (identity ‖ dense) and back changed nothing
    context.close()
