"""The flows a user takes, in a real browser (Debian's Chromium, headless, Playwright): start from
scratch, every preset then an edit, add/move/duplicate/delete layers, every page, a share link into a
fresh context, upload and download. Every step fails on any exception element or the last-resort
sentence; figures are checked against their formulas (tests/reference.py) or their proportions."""
from __future__ import annotations

import json

import pytest

from engine.method1.kinds import KIND_BY_TYPE
from engine.presets import presets
from tests.app.hostile_corpus import pack_json
from tests.browser import harness
from tests.browser.harness import PAGES, WAIT_MS, metric_value, wait_for_app
from tests.reference import (
    EPOCH_EXAMPLE_PARAMS,
    EPOCH_EXAMPLE_TRAINING,
    REPORTED_A100,
    REPORTED_A100_VALUES,
    REPORTED_LANGUAGE,
    flop,
    percentile,
)

SCRATCH_FORWARD = 2 * (784 * 128 + 128 * 10)  # dense 784→128, activation, dense 128→10


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2200}, accept_downloads=True)
    yield context.new_page()
    context.close()


def healthy(page) -> None:
    """No exception element, no last-resort sentence."""
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Something unexpected went wrong").count() == 0


def settle(page) -> None:
    """After a click or an edit: until the rerun it started has finished."""
    wait_for_app(page)
    healthy(page)


def click(page, label: str) -> None:
    page.get_by_role("button", name=label, exact=True).click()
    settle(page)


def choose(page, label: str, option: str) -> None:
    page.get_by_label(label).first.click()
    page.get_by_role("option", name=option).first.click()
    settle(page)


def type_number(page, label: str, value) -> None:
    field = page.get_by_label(label, exact=True).first
    field.fill(str(value))
    field.press("Enter")
    settle(page)


def type_text(page, label: str, value: str) -> None:
    field = page.get_by_label(label, exact=True).first
    field.fill(value)
    field.press("Enter")
    settle(page)


def click_label(page, label: str) -> None:
    page.get_by_text(label, exact=True).first.click()
    settle(page)


def metric_changes(page, label: str, before: str) -> str:
    """The metric ``label`` once it no longer reads ``before``, on a healthy page."""
    value = harness.metric_changes(page, label, before)
    healthy(page)
    return value


def add_layer(page, kind: str) -> None:
    """One click on the kind's name in the "add a layer" lists (pills: each option is a radio)."""
    page.locator("[data-testid=stButtonGroup]").get_by_role(
        "radio", name=KIND_BY_TYPE[kind].kind_label, exact=True).click()
    settle(page)


def test_start_from_scratch_then_add_edit_and_delete(server, page):
    page.goto(server)
    wait_for_app(page)
    click(page, "Start from scratch")  # an input of 784 values and no layers
    # until the rerun the click started has drawn it: on a machine loaded ~15 deep, the click can reach the server
    # after the settled-page check has already passed on the page before it
    page.get_by_text("No layers yet").first.wait_for(timeout=WAIT_MS)
    assert page.get_by_text("No layers yet").count() == 1
    for kind in ("dense", "activation", "dense"):  # each added after the one just added
        add_layer(page, kind)
    type_number(page, "units", 10)  # the last dense: 128 → 10
    type_number(page, "Examples per epoch", 60_000)
    before = metric_value(page, "Training compute")
    type_number(page, "Epochs", 10)
    total = metric_changes(page, "Training compute", before)
    assert flop(total) == pytest.approx(3 * SCRATCH_FORWARD * 600_000, rel=5e-3)
    type_number(page, "Epochs", 20)
    assert flop(metric_changes(page, "Training compute", total)) == pytest.approx(
        3 * SCRATCH_FORWARD * 1_200_000, rel=5e-3)
    choose(page, "Layer (blocks", "#2 dense")
    before = metric_value(page, "Parameters")
    click(page, "Delete")
    assert int(metric_changes(page, "Parameters", before).replace(",", "")) == 784 * 128 + 128  # last dense gone
    before = metric_value(page, "Parameters")
    add_layer(page, "dense")  # a starter dense of 128 units after the activation
    assert int(metric_changes(page, "Parameters", before).replace(",", "")) == 784 * 128 + 128 + 128 * 128 + 128


def test_a_newcomer_enters_epochs_worked_example_in_at_most_12_actions(server, page):
    """Epoch AI's CNN-LSTM-FCN example by hand, from an empty model: every click and every field entry counted."""
    actions = 0

    def act(step, *args):
        nonlocal actions
        actions += 1
        step(page, *args)

    page.goto(server)
    wait_for_app(page)
    act(click, "Start from scratch")
    act(type_text, "Input shape (channels last: H, W, C — or N for a vector)", "400, 400, 5")
    act(type_number, "Sequence length T (0 = not a sequence)", 20)
    page.get_by_label("Layers as text (several at once)", exact=True).fill(
        "conv2d(16, 5, stride=2, padding=2), flatten, lstm(256), dense(10)")
    actions += 1
    act(click, "Add these layers")
    assert int(metric_value(page, "Parameters").replace(",", "")) == EPOCH_EXAMPLE_PARAMS
    act(click_label, "batches × batch size")
    act(type_number, "Epochs", 10)
    act(type_number, "Batches per epoch", 100)
    before = metric_value(page, "Training compute")
    act(type_number, "Batch size", 128)
    total = metric_changes(page, "Training compute", before)
    assert flop(total) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)
    assert actions <= 12, actions


@pytest.mark.parametrize("preset_id", list(presets()))
def test_every_preset_then_edit_a_number(server, page, preset_id):
    preset = presets()[preset_id]
    page.goto(server)
    wait_for_app(page)
    choose(page, "Start from a preset", preset.title)
    click(page, "Load preset")
    page.wait_for_function("(name) => [...document.querySelectorAll('input')].some(i => i.value === name)",
                           arg=preset.scenario.name, timeout=WAIT_MS)  # the preset's name is in its field
    settle(page)
    before = metric_value(page, "Training compute")
    epochs = float(page.get_by_label("Epochs", exact=True).input_value())
    type_number(page, "Epochs", f"{2 * epochs:g}")
    after = metric_changes(page, "Training compute", before)
    # C is proportional to the epochs (the optimizer's steps too): twice the epochs, twice the compute
    assert flop(after) == pytest.approx(2 * flop(before), rel=1e-2)


def test_add_move_duplicate_and_delete_layers(server, page):
    page.goto(server)
    wait_for_app(page)
    seed = metric_value(page, "Parameters")
    assert int(seed.replace(",", "")) == EPOCH_EXAMPLE_PARAMS
    choose(page, "Layer (blocks", "#3 dense")
    click(page, "Duplicate")  # a second dense 10 → 10 after the first: + 10·10 + 10
    assert int(metric_changes(page, "Parameters", seed).replace(",", "")) == EPOCH_EXAMPLE_PARAMS + 110
    page.get_by_text("#4 · ").first.wait_for(timeout=WAIT_MS)  # the copy is selected
    click(page, "↑ Move up")
    page.get_by_text("#3 · ").first.wait_for(timeout=WAIT_MS)
    assert int(metric_value(page, "Parameters").replace(",", "")) == EPOCH_EXAMPLE_PARAMS + 110
    click(page, "↓ Move down")
    page.get_by_text("#4 · ").first.wait_for(timeout=WAIT_MS)
    click(page, "Delete")
    assert int(metric_changes(page, "Parameters", f"{EPOCH_EXAMPLE_PARAMS + 110:,}").replace(",", "")) == \
        EPOCH_EXAMPLE_PARAMS
    assert flop(metric_value(page, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_each_page_through_the_navigation(server, page):
    page.goto(server)
    wait_for_app(page)
    for slug in PAGES.values():
        if not slug:
            continue
        page.locator(f"[data-testid='stSidebarNav'] a[href$='/{slug}']").first.click()
        page.wait_for_url(f"**/{slug}**", timeout=WAIT_MS)
        settle(page)


def test_a_hardware_edit_travels_by_link_into_a_fresh_context(server, browser, page):
    page.goto(f"{server}/hardware")
    wait_for_app(page)
    before = metric_value(page, "Training compute")
    type_number(page, "Number of chips", 16)
    expected = metric_changes(page, "Training compute", before)
    page.wait_for_function("() => location.search.includes('s=')", timeout=WAIT_MS)
    link = page.url
    fresh = browser.new_context(viewport={"width": 1400, "height": 2200})
    other = fresh.new_page()
    other.goto(link)
    wait_for_app(other)
    healthy(other)
    assert metric_value(other, "Training compute") == expected
    fresh.close()


def test_a_failed_link_keeps_its_notice_and_the_address_on_reload(server, page):
    bad = "1.eNrtwTEJAAAIALAuNvA1mSB2N4ewbaKjEgAAAOCTPT7ZOVk"
    page.goto(f"{server}/?s={bad}")
    wait_for_app(page)
    healthy(page)
    assert page.get_by_text("share link could not be opened").count() >= 1
    assert bad in page.url
    page.reload()
    wait_for_app(page)
    assert page.get_by_text("share link could not be opened").count() >= 1 and bad in page.url
    page.get_by_text("Show the link that failed").click()
    assert page.get_by_text(bad).count() >= 1


def test_download_then_upload_restores_the_scenario(server, browser, page, tmp_path):
    name = '=HYPERLINK("https://login.evil.example/","x")'
    scenario = {"version": 1, "name": name, "input": {"shape": [784]},
                "layers": [{"type": "dense", "units": 64, "name": name}, {"type": "dense", "units": 10}],
                "training": {"epochs": 3, "examples": 1000}}
    page.goto(f"{server}/?s={pack_json(scenario)}")
    wait_for_app(page)
    expected = 3 * 2 * (784 * 64 + 64 * 10) * 3000
    assert flop(metric_value(page, "Training compute")) == pytest.approx(expected, rel=5e-3)
    files = {}
    for label in ("⬇ Scenario (JSON)", "⬇ Layer table (CSV)", "⬇ Report (Markdown)"):
        with page.expect_download() as info:
            page.get_by_role("button", name=label).click()
        files[label] = tmp_path / info.value.suggested_filename
        info.value.save_as(files[label])
    healthy(page)
    csv_rows = files["⬇ Layer table (CSV)"].read_text().splitlines()
    assert "'=HYPERLINK" in csv_rows[1] and ",=HYPERLINK" not in csv_rows[1]  # a spreadsheet shows text
    assert "\\'=HYPERLINK" in files["⬇ Report (Markdown)"].read_text().splitlines()[0] or \
        "'\\=HYPERLINK" in files["⬇ Report (Markdown)"].read_text().splitlines()[0]
    assert json.loads(files["⬇ Scenario (JSON)"].read_text())["name"] == name  # the file keeps what was typed

    fresh = browser.new_context(viewport={"width": 1400, "height": 2200})
    other = fresh.new_page()
    other.goto(server)
    wait_for_app(other)
    other.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(
        str(files["⬇ Scenario (JSON)"]))
    other.wait_for_function("(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')]"
                            ".some(e => e.innerText.trim().endsWith(' FLOP') &&"
                            "           Math.abs(parseFloat(e.innerText) / want - 1) < 0.005)",
                            arg=expected, timeout=WAIT_MS)
    healthy(other)
    fresh.close()


def test_epoch_csv_upload_then_a_refused_one_keeps_the_first(server, page, tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("Model,Publication date,Training compute (FLOP),Domain\n"
                    "A,2015-01-01,1e20,Language\nB,2018-06-01,1e22,Language\nC,2021-03-01,1e24,Vision\n")
    bad = tmp_path / "header_only.csv"
    bad.write_text("Model,Publication date,Training compute (FLOP)\n")
    page.goto(f"{server}/trends")
    wait_for_app(page)
    page.get_by_text("Add Epoch AI's data").click()
    uploader = page.locator("[data-testid='stFileUploaderDropzoneInput']").first
    uploader.set_input_files(str(good))
    page.get_by_text("3 runs imported").wait_for(timeout=WAIT_MS)
    settle(page)
    uploader.set_input_files(str(bad))
    page.get_by_text("no usable runs").wait_for(timeout=WAIT_MS)
    settle(page)
    assert page.get_by_text("the earlier import (3 runs from good.csv) is kept").count() >= 1
    page.get_by_text("the uploaded Epoch CSV").click()
    settle(page)


def test_add_the_swin_and_convnext_kinds_to_a_preset(server, page):
    """Swin-T, then after its first patch merging (a 28×28×192 grid): window attention (starter: 4 heads,
    7×7 windows), layer scale, stochastic depth and a channel shuffle, each from the "add a layer" lists."""
    preset = presets()["swin_t"]
    page.goto(server)
    wait_for_app(page)
    choose(page, "Start from a preset", preset.title)
    click(page, "Load preset")
    base = f"{28_288_354:,}"  # torchvision's Swin-T
    page.wait_for_function("(v) => document.body.innerText.includes(v)", arg=base, timeout=WAIT_MS)
    settle(page)
    assert metric_value(page, "Parameters") == base
    page.get_by_label("Layer (blocks").first.click()
    page.keyboard.type("patch_merging")  # the list is long: typing filters it
    page.get_by_role("option", name="#3 patch_merging").first.click()
    settle(page)
    add_layer(page, "window_attention")  # qkv and projection 4·192² + 4·192, table 13·13·4
    with_attention = 28_288_354 + 4 * 192 ** 2 + 4 * 192 + 13 * 13 * 4
    assert metric_changes(page, "Parameters", base) == f"{with_attention:,}"
    add_layer(page, "layer_scale")  # γ: one per channel
    assert metric_changes(page, "Parameters", f"{with_attention:,}") == f"{with_attention + 192:,}"
    forward = metric_value(page, "Forward per example")
    for kind in ("stochastic_depth", "channel_shuffle"):  # no parameters, no FLOP in the matmul convention
        add_layer(page, kind)
        assert metric_value(page, "Parameters") == f"{with_attention + 192:,}"
        assert metric_value(page, "Forward per example") == forward


def test_choose_where_the_chips_ran_for_the_co2(server, page):
    # 8 A100 80 GB × 24 h × 400 W × PUE 1.1 = 84.48 kWh: 40.6 kg CO₂ on the world average (0.48 kg/kWh),
    # 4.82 kg on the French grid (57 g/kWh, Luccioni et al. 2022)
    page.goto(f"{server}/hardware")
    wait_for_app(page)
    assert metric_value(page, "CO₂") == "40.6 kg CO₂"
    page.get_by_text("Cost, energy and CO₂ assumptions").click()
    settle(page)
    choose(page, "Where the chips ran (grid)", "France — 57 g CO₂/kWh (2022)")
    assert metric_changes(page, "CO₂", "40.6 kg CO₂") == "4.82 kg CO₂"


def test_train_in_fp4_on_a_blackwell_chip(server, page):
    # B200: 9 PFLOP/s dense FP4 (HGX B200, 144 PFLOP/s sparse for 8 GPUs); 8 chips × 1 day × 9e15 × the median
    # reported utilization of language-model runs (its generation has too few reports) = 2.03e21
    page.goto(f"{server}/hardware")
    wait_for_app(page)
    before = metric_value(page, "Training compute")
    type_text = page.get_by_label("Find a chip", exact=True).first
    type_text.fill("B200")
    type_text.press("Enter")
    settle(page)
    choose(page, "Number format trained in", "FP4 (MXFP4 / NVFP4)")
    after = metric_changes(page, "Training compute", before)
    assert flop(after) == pytest.approx(8 * 86_400 * 9e15 * REPORTED_LANGUAGE, rel=5e-3)


def test_the_starting_utilization_is_the_reported_runs_median_with_its_range_and_source(server, page):
    # 8 A100s for a day start at the median of the 8 reported A100-generation language-model runs (34.0%),
    # with their 5th–95th percentiles (28.9–52.1%) as the utilization's 90% range; the user can set any value
    import math
    page.goto(f"{server}/hardware")
    wait_for_app(page)
    healthy(page)
    chosen = page.locator("[data-testid='stSelectbox']", has_text="Utilization").first.locator("input")
    assert chosen.input_value() == "Reported runs like this one: 34%"
    low, high = percentile(REPORTED_A100_VALUES, 0.05), percentile(REPORTED_A100_VALUES, 0.95)
    source = page.locator("a", has_text="median of 8 reported utilizations").first  # the caption's source link
    assert f"90% range {100 * low:.0f}–{100 * high:.0f}%" in source.inner_text() and "PaLM 540B" in source.inner_text()
    assert source.get_attribute("href").startswith("https://")
    point = 8 * 86_400 * 312e12 * REPORTED_A100
    assert flop(metric_value(page, "Training compute")) == pytest.approx(point, rel=5e-3)
    z = 1.6448536269514722
    mu, sigma = math.log(point * math.sqrt(low * high) / REPORTED_A100), math.log(high / low) / (2 * z)
    lo, hi = metric_value(page, "90% interval").replace(" FLOP", "").split(" – ")
    assert float(lo) == pytest.approx(math.exp(mu - z * sigma), rel=5e-3)
    assert float(hi) == pytest.approx(math.exp(mu + z * sigma), rel=5e-3)
    before = metric_value(page, "Training compute")
    choose(page, "Utilization", "custom value")
    type_number(page, "Utilization (fraction of peak, in (0, 1])", 0.5)
    after = metric_changes(page, "Training compute", before)
    assert flop(after) == pytest.approx(8 * 86_400 * 312e12 * 0.5, rel=5e-3)
