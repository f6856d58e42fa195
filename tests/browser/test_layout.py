"""What only a browser shows: labels not cut off at 1440 px, the total in view while editing at 900 px,
the layer form in reading order and nothing wider than a 390 px phone."""
from __future__ import annotations

import pytest

from tests.browser.harness import WAIT_MS, metric_value, wait_for_app
from tests.reference import EPOCH_EXAMPLE_TRAINING, REPORTED_A100, REPORTED_A100_VALUES, flop, percentile
from ui.navigation import PAGES

CUT_OFF = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const visible = e => e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  const ellipsis = [...main.querySelectorAll('*')].filter(e => visible(e) && e.scrollWidth > e.clientWidth + 1
      && getComputedStyle(e).textOverflow === 'ellipsis');
  const hiddenTags = [...main.querySelectorAll('[data-testid=stMultiSelectTagsContainer]')].filter(
      e => visible(e) && e.scrollWidth > e.clientWidth + 1);
  return [...ellipsis, ...hiddenTags].map(e => e.innerText.slice(0, 80));
}"""


def open_page(browser, url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(url)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    return context, page


@pytest.mark.parametrize("path", [p.url_path for p in PAGES])
def test_no_label_is_cut_off_at_1440(server, browser, path):
    context, page = open_page(browser, f"{server}/{path}", 1440, 900)
    assert page.evaluate(CUT_OFF) == []
    context.close()


def test_the_total_stays_in_view_while_editing_the_epochs(server, browser):
    context, page = open_page(browser, server, 1440, 900)
    epochs = page.get_by_label("Epochs", exact=True)
    epochs.scroll_into_view_if_needed()
    epochs.fill("20")
    epochs.press("Enter")
    want = f"{2 * EPOCH_EXAMPLE_TRAINING:.2e}".replace("e+", "e") + " FLOP"
    bar = page.locator(".st-key-flop_summary")
    bar.get_by_text(want).wait_for(timeout=WAIT_MS)
    box = bar.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 900
    assert flop(metric_value(page, "Training compute")) == pytest.approx(2 * EPOCH_EXAMPLE_TRAINING, rel=5e-3)
    context.close()


def test_hardware_ranges_give_a_90_percent_interval_that_stays_in_view(server, browser):
    """The chips range's interval in the metric row, with its confidence label, and in the results line,
    which stays in view at the foot of the page."""
    import math
    context, page = open_page(browser, f"{server}/hardware", 1440, 900)
    page.get_by_text("Ranges: chips and time").click()
    for label, value in (("Chips, low", "6"), ("Chips, high", "12")):
        box = page.get_by_label(label, exact=True)
        box.fill(value)
        box.press("Enter")
        wait_for_app(page)
    page.get_by_text("90% interval").first.wait_for(timeout=WAIT_MS)
    # 8 A100s × 1 day × 312 TFLOP/s (datasheet, BF16 dense) × the reported-runs median; chips log-normal with
    # [6, 12] as 90%, utilization with the reported runs' 5th–95th percentiles
    z = 1.6448536269514722
    point = 8 * 86_400 * 312e12 * REPORTED_A100
    u_low, u_high = percentile(REPORTED_A100_VALUES, 0.05), percentile(REPORTED_A100_VALUES, 0.95)
    mu = math.log(point * math.sqrt(6 * 12) / 8 * math.sqrt(u_low * u_high) / REPORTED_A100)
    sigma = math.hypot(math.log(12 / 6), math.log(u_high / u_low)) / (2 * z)
    low, high = metric_value(page, "90% interval").replace(" FLOP", "").split(" – ")
    assert float(low) == pytest.approx(math.exp(mu - z * sigma), rel=5e-3)
    assert float(high) == pytest.approx(math.exp(mu + z * sigma), rel=5e-3)
    assert metric_value(page, "Confidence (Epoch's labels)") == "Confident"
    page.get_by_text("Share, save, export").scroll_into_view_if_needed()  # the foot of the page
    bar = page.locator(".st-key-flop_summary")
    text = bar.inner_text()
    low, high = text.split("90% range ")[1].split(")")[0].replace(" FLOP", "").split(" – ")
    assert flop(text.split("Training compute: ")[1].split(" (")[0]) == pytest.approx(point, rel=5e-3)
    assert float(low) == pytest.approx(math.exp(mu - z * sigma), rel=5e-3)
    assert float(high) == pytest.approx(math.exp(mu + z * sigma), rel=5e-3)
    box = bar.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 900
    assert page.locator("[data-testid='stException']").count() == 0
    context.close()


@pytest.mark.parametrize("path", [p.url_path for p in PAGES])
def test_nothing_is_wider_than_a_phone(server, browser, path):
    context, page = open_page(browser, f"{server}/{path}", 390, 844)
    overflow = page.evaluate("""() => [...document.querySelectorAll(
        '.katex-display, [data-testid="stMarkdown"], [data-testid="stCaptionContainer"], [data-testid="stCode"]')]
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
        .filter(e => !['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
        .map(e => e.innerText.slice(0, 60))""")
    assert overflow == []
    context.close()


@pytest.mark.parametrize("path", ["", "hardware"])
def test_the_result_formula_fits_a_phone(server, browser, path):
    """The training-compute formula (LaTeX on the layer builder, the method-2 line on the hardware page)
    wraps onto lines within a 390 px screen instead of running off its edge."""
    context, page = open_page(browser, f"{server}/{path}", 390, 844)
    selector = ".katex-display" if not path else "[data-testid=stText]"
    formula = page.locator(selector).first
    sizes = formula.evaluate("e => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().right]")
    assert sizes[0] <= sizes[1] + 4 and sizes[2] <= 390, sizes  # KaTeX rounds a pixel or two
    context.close()


def test_the_layer_form_reads_in_order_on_a_phone(server, browser):
    from engine.method1.kinds import KIND_BY_TYPE

    context, page = open_page(browser, server, 390, 844)
    # the kind's own fields in schema order ("trainable" is the "Weights" choice below the form)
    order = [n.replace("_", " ") for n in KIND_BY_TYPE["conv2d"].model_fields if n not in ("type", "trainable")]
    tops = []
    for label in order:
        widget = page.get_by_label(label, exact=True).first
        tops.append(widget.evaluate("e => e.getBoundingClientRect().top"
                                    " + document.querySelector('[data-testid=stMain]').scrollTop"))
    assert tops == sorted(tops), list(zip(order, tops))
    context.close()


BOXES = """() => {
  const bar = document.querySelector('.st-key-flop_summary').getBoundingClientRect();
  const main = document.querySelector('[data-testid=stMain]');
  const seen = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const items = [...main.querySelectorAll('[data-testid=stWidgetLabel], [data-testid=stMetric], h1, h2, h3')]
      .filter(e => seen(e) && !e.closest('.st-key-flop_summary'));
  const overlap = items.filter(e => { const r = e.getBoundingClientRect();
      return r.bottom > bar.top + 1 && r.top < bar.bottom - 1 && r.right > bar.left && r.left < bar.right; });
  return {bar: [bar.top, bar.bottom], overlapping: overlap.map(e => e.innerText.slice(0, 60))};
}"""
SCROLLED_TO = """(label) => {
  const found = [...document.querySelectorAll('[data-testid=stWidgetLabel]')]
      .find(l => l.innerText.trim().startsWith(label));
  found.scrollIntoView({block: 'start'});
  const bar = document.querySelector('.st-key-flop_summary').getBoundingClientRect();
  return [bar.bottom, found.getBoundingClientRect().top];
}"""


@pytest.mark.parametrize("width", [1440, 390])
@pytest.mark.parametrize(("path", "labels"), [
    ("", ["Scenario name", "Input shape", "Epochs", "Batches per epoch"]),
    ("hardware", ["Number of chips", "Training time", "FLOP budget"]),
])
def test_the_results_line_covers_nothing(server, browser, width, path, labels):
    """By element boxes: nothing under the results line when the page opens, and a field scrolled into view
    (a jump, a focus, Tab) stops below it, at a desktop and a phone width."""
    context, page = open_page(browser, f"{server}/{path}", width, 900)
    boxes = page.evaluate(BOXES)
    assert boxes["overlapping"] == [], boxes
    for label in labels:
        bar_bottom, label_top = page.evaluate(SCROLLED_TO, label)
        assert label_top >= bar_bottom, (label, bar_bottom, label_top)
    # what scrolls on under the line is hidden by it, not drawn through it: an opaque background
    alpha = page.evaluate("""() => {
      const c = getComputedStyle(document.querySelector('.st-key-flop_summary')).backgroundColor;
      const parts = c.match(/[\\d.]+/g).map(Number); return parts.length > 3 ? parts[3] : 1; }""")
    assert alpha >= 0.95
    context.close()
