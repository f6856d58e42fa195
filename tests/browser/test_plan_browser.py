"""The "Plan a run" flow in Chromium, on the shared server: a shared Llama 2 7B link, a bad tensor-parallel degree, a
good one; the framework convention, context parallelism, expert capacity and dispatcher, FP8 casts, published runs."""
from __future__ import annotations

from engine.presets import presets
from engine.share_link import encode
from tests.browser.harness import ARTIFACTS, WAIT_MS, metric_value, wait_for_app
from tests.plan import qwen3_30b_scenario


def _llama_8way():
    """Llama 2 7B with a saved plan of 8 H100s (d 8, global batch 64): the layout the tests below start from."""
    from engine.plan.layout import PlanInputs

    return presets()["llama2-7b"].scenario.model_copy(update={"plan": PlanInputs()})


def _no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0


def _open(browser, url: str, query: str = "", *, width: int = 1400, timeout_ms: int = 60_000):
    """A fresh context on the Plan page (``query``: "?s=..."), drawn, with no exception element."""
    context = browser.new_context(viewport={"width": width, "height": 2600})
    page = context.new_page()
    page.goto(f"{url}/plan{query}")
    wait_for_app(page, timeout_ms=timeout_ms)
    _no_exception(page)
    return context, page


def _changed(page, label: str, before: str) -> str:
    """The metric ``label`` once its value no longer reads ``before`` (its value element only: the 90% range under
    it may hold the old figure), the page drawn again with no exception."""
    page.wait_for_function(
        "([label, before]) => [...document.querySelectorAll('[data-testid=stMetric]')].some(m => "
        "m.innerText.includes(label) && m.querySelector('[data-testid=stMetricValue]') && "
        "m.querySelector('[data-testid=stMetricValue]').innerText.trim() !== before.trim())", arg=[label, before],
        timeout=WAIT_MS)
    wait_for_app(page)
    _no_exception(page)
    return metric_value(page, label)


def test_plan_flow_in_the_browser(server, browser):
    token = encode(_llama_8way())
    context, page = _open(browser, server, f"?s={token}")
    assert metric_value(page, "Fits") == "no"  # 16 B × 6.74e9 parameters alone exceed 80 GB
    before = metric_value(page, "Memory per chip (of 80 GB)")

    tp = page.get_by_label("Tensor parallel t", exact=True)
    tp.fill("5")
    tp.press("Enter")
    page.get_by_text("does not divide the 32 attention heads").first.wait_for(timeout=WAIT_MS)
    _no_exception(page)

    tp.fill("8")
    tp.press("Enter")
    _changed(page, "Memory per chip (of 80 GB)", before)
    assert page.get_by_text("does not divide").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "plan-flow.png"), full_page=True)
    context.close()


def test_framework_convention_and_the_kernel_model_in_the_browser(server, browser):
    # Llama 2 7B on 8 H100s (d 8, B 64): Megatron's FP32 gradients add 2 B × 6.74e9 = 13.5 GB per chip; the
    # plan's step and MFU come from the kernel model
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel.step import kernel_step_for
    from engine.plan.layout import Layout, MemoryOptions
    scenario = _llama_8way()
    kernel = kernel_step_for(scenario.plan_model(), Layout(dp=8, global_batch=64), MemoryOptions(),
                             "nvidia-h100-sxm", interconnect_for("nvidia-h100-sxm"))
    context, page = _open(browser, server, f"?s={encode(scenario)}")
    assert metric_value(page, "Predicted MFU") == f"{100 * kernel.mfu:.1f}%"
    before = metric_value(page, "Memory per chip (of 80 GB)")
    page.get_by_label("Framework", exact=True).first.click()
    page.get_by_role("option", name="Megatron-LM", exact=False).first.click()
    after = _changed(page, "Memory per chip (of 80 GB)", before)
    grown = float(after.split(" GB")[0].replace(",", "")) - float(before.split(" GB")[0].replace(",", ""))
    assert abs(grown - 13.5) <= 1  # the metric shows whole GB
    context.close()


def test_context_parallelism_in_the_browser(server, browser):
    # Llama 2 7B on 8 H100s (d 8, B 64), then c = 3 (4,096 tokens do not split into 6 chunks: named), then
    # c = 2: 16 chips, each holding half of every sequence; MFU from the kernel model with cp = 2
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel.step import kernel_step_for
    from engine.plan.layout import Layout, MemoryOptions
    scenario = _llama_8way()
    kernel = kernel_step_for(scenario.plan_model(), Layout(dp=8, cp=2, global_batch=64), MemoryOptions(),
                             "nvidia-h100-sxm", interconnect_for("nvidia-h100-sxm"))
    context, page = _open(browser, server, f"?s={encode(scenario)}")
    cp = page.get_by_label("Context parallel c", exact=True)
    cp.fill("3")
    cp.press("Enter")
    page.get_by_text("does not split into 2 × cp = 6").first.wait_for(timeout=WAIT_MS)
    _no_exception(page)
    cp.fill("2")
    cp.press("Enter")
    page.wait_for_function(
        "(want) => [...document.querySelectorAll('[data-testid=stMetric]')].some(m => "
        "m.innerText.includes('Predicted MFU') && m.innerText.includes(want))",
        arg=f"{100 * kernel.mfu:.1f}%", timeout=WAIT_MS)
    wait_for_app(page)
    _no_exception(page)
    assert page.get_by_text("does not split").count() == 0
    assert "s=" in page.url  # the layout, c included, is in the share link
    context.close()


def test_expert_capacity_factor_in_the_browser(server, browser):
    # Qwen3 30B-A3B on 8 H100s: the capacity-factor input appears for a mixture of experts; 2 (the busiest
    # rank routed twice the mean) lowers the predicted MFU; no exception at any point
    from engine.plan.layout import PlanInputs
    scenario = qwen3_30b_scenario(PlanInputs())
    # a 51-layer scenario: a slower first run
    context, page = _open(browser, server, f"?s={encode(scenario)}", timeout_ms=WAIT_MS)
    before = metric_value(page, "Predicted MFU")
    capacity = page.get_by_label("Expert capacity factor", exact=True)
    capacity.fill("2")
    capacity.press("Enter")
    after = _changed(page, "Predicted MFU", before)
    assert float(after.rstrip("%")) < float(before.rstrip("%"))
    context.close()


def test_published_runs_with_the_long_context_check_in_the_browser(server, browser):
    # the expander lists the validation tables and the long-context check: 9 runs, 4K to 1M positions
    context, page = _open(browser, server, width=1440)
    page.get_by_text("How good is the step-time model? Published runs").click()
    page.get_by_text("Long context, a check").first.wait_for(timeout=WAIT_MS)
    _no_exception(page)
    assert page.get_by_text("the model underestimates the step by 15–30%").count() == 1
    context.close()


def test_token_dispatcher_on_a_mixture_of_experts_in_the_browser(server, browser):
    # Qwen3 30B-A3B on 16 H100s in two nodes (e 16): DeepEP/HybridEP sends a token to the other node once
    # instead of one copy per remote expert, so the predicted MFU rises; no exception at any point
    from engine.plan.layout import DISPATCHERS, Layout, PlanInputs
    scenario = qwen3_30b_scenario(PlanInputs(layout=Layout(dp=16, ep=16, global_batch=1024)))
    context, page = _open(browser, server, f"?s={encode(scenario)}", timeout_ms=WAIT_MS)
    before = metric_value(page, "Predicted MFU")
    page.locator("[data-testid='stSelectbox']", has_text="Token dispatcher").first.locator("input").click()
    page.get_by_role("option", name=DISPATCHERS["flex"]).first.click()
    after = _changed(page, "Predicted MFU", before)
    assert float(after.rstrip("%")) > float(before.rstrip("%"))
    # then hide the all-to-all behind another micro-batch's compute: faster still
    before = metric_value(page, "Predicted MFU")
    page.get_by_text("Overlap the all-to-all", exact=True).click()
    after = _changed(page, "Predicted MFU", before)
    assert float(after.rstrip("%")) > float(before.rstrip("%"))
    context.close()


def test_fp8_plan_counts_its_casts_in_the_browser(server, browser):
    # Llama 2 7B on 8 H100s (d 8, B 64), switched to FP8: the step comes from the kernel model with the casts
    # into FP8 (its MFU against the FP8 peak), and the note under the step's parts says they are counted
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel.step import kernel_step_for
    from engine.plan.layout import Layout, MemoryOptions
    scenario = _llama_8way()
    fp8 = kernel_step_for(scenario.plan_model(), Layout(dp=8, global_batch=64), MemoryOptions(precision="fp8"),
                          "nvidia-h100-sxm", interconnect_for("nvidia-h100-sxm"))
    context, page = _open(browser, server, f"?s={encode(scenario)}")
    before = metric_value(page, "Predicted MFU")
    page.get_by_label("Number format").first.click()
    page.get_by_role("option", name="fp8", exact=True).first.click()
    assert _changed(page, "Predicted MFU", before) == f"{100 * fp8.mfu:.1f}%"
    page.get_by_text("FP8: the linear layers run in the format, their inputs and gradients cast into it",
                     exact=False).first.wait_for(timeout=WAIT_MS)
    _no_exception(page)
    context.close()


def test_the_bill_by_place_and_the_carry_over_in_the_browser(server, browser):
    # Llama 2 7B on 8 H100s: the step's 90% range, then the bill at the world's average grid; France's grid lowers
    # the CO₂ (57 against 480 g/kWh), not the cost; "use this layout on the hardware page" opens the Hardware &
    # time page holding 8 chips, the plan's days and the place, with the sentence saying where they came from
    from engine.method2.places import grid_places

    context, page = _open(browser, server, f"?s={encode(_llama_8way())}")
    page.get_by_text("90% ranges from the model's error on").first.wait_for(timeout=WAIT_MS)
    assert metric_value(page, "Step time") and "90%:" in page.locator(
        "[data-testid=stMetric]", has_text="Step time").first.inner_text()
    cost, co2 = metric_value(page, "Cost"), metric_value(page, "CO₂")
    page.locator("[data-testid='stSelectbox']", has_text="Where the chips ran (grid)").first.locator(
        "input").click()
    page.get_by_role("option", name=grid_places()["fr"].label, exact=False).first.click()
    after = _changed(page, "CO₂", co2)
    assert metric_value(page, "Cost") == cost
    ratio = float(after.split(" t")[0].replace(",", "")) / float(co2.split(" t")[0].replace(",", ""))
    assert abs(ratio - grid_places()["fr"].kg_co2_per_kwh / 0.48) < 0.02
    days = metric_value(page, "Wall-clock")
    page.get_by_role("button", name="Use this layout on the hardware page").click()
    page.get_by_text("From the Plan page: 8 × NVIDIA H100").first.wait_for(timeout=WAIT_MS)
    wait_for_app(page)
    _no_exception(page)
    assert "/hardware" in page.url and "s=" in page.url
    assert page.get_by_label("Number of chips", exact=True).input_value() == "8"
    assert days.split()[0] in page.get_by_text("From the Plan page").first.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "plan-carried-to-hardware.png"), full_page=True)
    context.close()


def test_the_results_come_before_the_inputs_on_a_phone(server, browser):
    # at 390 px the metrics of the plan sit above its 16 inputs; at 1440 px the inputs come first
    for width, results_first in ((390, True), (1440, False)):
        context, page = _open(browser, server, f"?s={encode(_llama_8way())}", width=width)
        metric_y = page.locator("[data-testid=stMetric]", has_text="Memory per chip").first.bounding_box()["y"]
        input_y = page.get_by_label("Data parallel d", exact=True).bounding_box()["y"]
        assert (metric_y < input_y) == results_first, (width, metric_y, input_y)
        context.close()
