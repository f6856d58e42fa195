"""The layer builder's "Multimodal and diffusion models" upload in a real browser (Debian's Chromium, Playwright):
a VLM (LLaVA-1.5-7B's config.json as the Hub holds it) counted per component, its training recipe chosen and loaded
into the layer builder — the page's parameters are then the model's; a diffusion pipeline (SD 1.5's unet/, text_encoder/
and vae/config.json, each named config.json) gives its sampling compute. Every step fails on an exception element."""
from __future__ import annotations

import shutil

from tests.browser.harness import WAIT_MS, metric_changes, metric_value, wait_for_app
from tests.multimodal.configs_lib import CONFIGS, config

PANEL = "Multimodal and diffusion models"


def healthy(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Something unexpected went wrong").count() == 0


def _open(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 2600})
    page = context.new_page()
    page.goto(server)
    wait_for_app(page)
    page.get_by_text(PANEL).click()
    wait_for_app(page)
    return context, page


def _upload(page, paths):
    page.locator("[data-testid='stExpander']", has_text=PANEL).locator(
        "[data-testid='stFileUploaderDropzoneInput']").set_input_files([str(p) for p in paths])
    wait_for_app(page)


def _panel_metric(page, label: str) -> str:
    return page.locator("[data-testid='stExpander']", has_text=PANEL).locator(
        "[data-testid='stMetric']", has_text=label).locator("[data-testid='stMetricValue']").first.inner_text()


def _as_config_json(tmp_path, *names):
    """Each stored config copied to <part>/config.json, as a pipeline folder holds it."""
    out = []
    for name in names:
        folder = tmp_path / name
        folder.mkdir()
        out.append(shutil.copy(CONFIGS / f"{name}.json", folder / "config.json"))
    return out


def _loaded_params(page) -> int:
    """Click "Load into the layer builder" and read the parameters the layer builder shows for the model, once they
    are no longer the figure shown before the click (the page's preset's)."""
    before = metric_value(page, "Parameters")
    page.get_by_role("button", name="Load into the layer builder").click()
    loaded = metric_changes(page, "Parameters", before)
    healthy(page)
    return int(loaded.replace(",", ""))


def test_a_vlm_is_counted_and_loaded_with_its_recipe(server, browser, tmp_path):
    from engine import estimate_multimodal

    context, page = _open(browser, server)
    _upload(page, _as_config_json(tmp_path, "llava-1.5-7b"))
    page.get_by_text("config.json: training step per example").wait_for(timeout=WAIT_MS)
    healthy(page)
    expected = estimate_multimodal(config("llava-1.5-7b"))
    assert page.get_by_text("576 image tokens reach the language model").count() == 1
    trainable = expected.params - expected.params_by_component["vision"]
    assert _panel_metric(page, "Trainable parameters") == f"{trainable:,}"
    assert _loaded_params(page) == expected.params  # 7,063,427,072
    context.close()


def test_a_vlm_trained_in_full_shows_the_backward_without_the_unread_layer(server, browser, tmp_path):
    """LLaVA-1.5 reads the vision tower's second-to-last layer: under "every weight trains" the backward shown is the
    engine's, without a backward for the last layer (checked against loss.backward() in
    tests/multimodal/test_training.py), and the page says why; no exception element at any step."""
    from engine import estimate_vlm_training
    from engine.units import format_flop

    context, page = _open(browser, server)
    _upload(page, _as_config_json(tmp_path, "llava-1.5-7b"))
    page.get_by_text("config.json: training step per example").wait_for(timeout=WAIT_MS)
    healthy(page)
    assert page.get_by_text("transformers runs the last layer too (forward counted), but no gradient reaches it",
                            exact=False).count() == 1
    before = _panel_metric(page, "Backward / example")
    recipe = page.locator("[data-testid='stSelectbox']", has_text="Recipe").first.locator("input")
    recipe.click()
    recipe.fill("every weight trains")  # typed, as a user filters the list: the list opens on typing
    page.get_by_role("option", name="every weight trains").first.click()
    full = format_flop(estimate_vlm_training(config("llava-1.5-7b"), recipe="full").backward_flop)
    page.locator("[data-testid='stExpander']", has_text=PANEL).locator("[data-testid='stMetric']",
                                                                      has_text=full).wait_for(timeout=WAIT_MS)
    healthy(page)
    assert _panel_metric(page, "Backward / example") == full != before
    context.close()


def test_two_vlms_each_called_config_json_are_both_counted(server, browser, tmp_path):
    """Every Hub model's file is config.json: LLaVA 1.5 and Qwen2.5-VL uploaded together each get their training step
    and recipe (their widgets were keyed by the file's name: a duplicate-key exception)."""
    from engine import estimate_vlm_training

    context, page = _open(browser, server)
    _upload(page, _as_config_json(tmp_path, "llava-1.5-7b", "qwen2.5-vl-7b-instruct"))
    page.get_by_text("config.json: training step per example").nth(1).wait_for(timeout=WAIT_MS)
    healthy(page)
    assert page.get_by_text("config.json: training step per example").count() == 2
    panel = page.locator("[data-testid='stExpander']", has_text=PANEL)
    shown = panel.locator("[data-testid='stMetric']", has_text="Trainable parameters").locator(
        "[data-testid='stMetricValue']").all_inner_texts()
    expected = [estimate_vlm_training(config(name), recipe="frozen_vision").trainable_params
                for name in ("llava-1.5-7b", "qwen2.5-vl-7b-instruct")]
    assert shown == [f"{n:,}" for n in expected]
    context.close()


def test_llama_3_2_vision_is_counted_and_loaded_with_its_recipe(server, browser, tmp_path):
    """Its image reaches the language model through cross-attention layers: the recipe (vision frozen) trains the
    projector and the language model, and the model loads into the layer builder as the other VLMs do."""
    from engine import estimate_multimodal, estimate_vlm_training
    from engine.units import format_flop

    name = "llama-3.2-11b-vision.constructed"
    context, page = _open(browser, server)
    _upload(page, _as_config_json(tmp_path, name))
    page.get_by_text("config.json: training step per example").wait_for(timeout=WAIT_MS)
    healthy(page)
    expected = estimate_multimodal(config(name))
    step = estimate_vlm_training(config(name), recipe="frozen_vision")
    assert _panel_metric(page, "Trainable parameters") == f"{step.trainable_params:,}" == "9,806,653,456"
    assert _panel_metric(page, "Backward / example") == format_flop(step.backward_flop)
    assert _loaded_params(page) == expected.params  # 10,670,220,835
    context.close()


def test_a_diffusion_pipeline_gives_its_sampling_compute(server, browser, tmp_path):
    from engine import estimate_pipeline
    from engine.units import format_flop

    context, page = _open(browser, server)
    _upload(page, _as_config_json(tmp_path, "sd-1.5.unet", "sd-1.5.text_encoder", "sd-1.5.vae"))
    page.get_by_text("Diffusion pipeline: sampling and training").wait_for(timeout=WAIT_MS)
    healthy(page)
    expected = estimate_pipeline(config("sd-1.5.unet"), [config("sd-1.5.text_encoder")], config("sd-1.5.vae"),
                                 steps=50, guidance=True)
    assert _panel_metric(page, "Sampling / output") == format_flop(expected.sampling_flop_per_output)
    page.get_by_text("Classifier-free guidance").click()  # off: one pass a step
    wait_for_app(page)
    healthy(page)
    one_pass = estimate_pipeline(config("sd-1.5.unet"), [config("sd-1.5.text_encoder")], config("sd-1.5.vae"),
                                 steps=50, guidance=False)
    assert _panel_metric(page, "Sampling / output") == format_flop(one_pass.sampling_flop_per_output)
    context.close()


def test_a_bad_file_gives_one_message(server, browser, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llava", "text_config": "llama"}')
    context, page = _open(browser, server)
    _upload(page, [bad])
    page.get_by_text("that file was not used").wait_for(timeout=WAIT_MS)
    healthy(page)
    context.close()
