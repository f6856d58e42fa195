"""The hardware and precision pages edit ONE hardware run with the same controls; mixed precision
completes the last share; chip search ranks exact names first; the words are the user's."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.reference import REPORTED_A100, flop, metric
from ui.navigation import PAGE_NAMES

DAY_S = 86_400
A100_BF16 = 312e12    # NVIDIA A100 datasheet: BF16 tensor 312 TFLOP/s dense
A100_FP32 = 19.5e12   # NVIDIA A100 datasheet: FP32 19.5 TFLOP/s
V100_FP16 = 125e12    # NVIDIA V100 SXM2 datasheet: FP16 tensor 125 TFLOP/s (no BF16)


def page(name: str, at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(str(ROOT / "pages" / f"{name}.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def unescaped(elements) -> list[str]:
    return [e.value.replace("\\", "") for e in elements]


def test_a_chip_chosen_on_the_precision_page_is_the_run_everywhere():
    at = page("precision")
    at.selectbox(key="hw_precision").set_value("bf16").run()
    at.selectbox(key="hw_chip").set_value("nvidia-tesla-v100-sxm2").run()
    # the message names the controls this page has, not the CLI's flag
    errors = " ".join(unescaped(at.error))
    assert "bf16" in errors and "CLI" not in errors and "allow_fallback" not in errors
    fallback = at.checkbox(key="hw_fallback")
    assert f"“{fallback.label}”" in errors
    # the per-format table is the V100's: FP16 tensor 125 TFLOP/s, no BF16 row
    table = at.dataframe[0].value
    assert "125 TFLOP/s" in list(table["peak (dense)"]) and "BF16 tensor" not in list(table["format"])
    at = page("hardware", at)
    assert at.selectbox(key="hw_chip").value == "nvidia-tesla-v100-sxm2"
    assert at.session_state["scenario"].hardware.chip == "nvidia-tesla-v100-sxm2"
    at.checkbox(key="hw_fallback").check().run()
    # the run keeps the utilization it started with (the starting example's: the median of reported
    # A100-generation runs), which the hardware page now shows as a value of its own
    assert at.selectbox(key="hw_u_preset").value == "custom"
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * V100_FP16 * REPORTED_A100, rel=5e-3)
    at = page("precision", at)
    assert at.checkbox(key="hw_fallback").value is True
    assert flop(metric(at, "Method 2 training compute")) == pytest.approx(8 * DAY_S * V100_FP16 * REPORTED_A100,
                                                                             rel=5e-3)


def test_the_hardware_page_chip_is_the_precision_page_chip():
    at = page("hardware")
    at.selectbox(key="hw_chip").set_value("nvidia-h100-sxm").run()
    at = page("precision", at)
    assert at.selectbox(key="hw_chip").value == "nvidia-h100-sxm"


def test_mixed_precision_completes_the_last_share():
    at = page("precision")
    at.toggle(key="pr_use_mixed").set_value(True).run()
    at.number_input(key="pr_mix_bf16").set_value(80.0).run()
    assert not at.error
    assert at.number_input(key="pr_mix_rest_fp32").value == pytest.approx(20.0)
    effective = 1 / (0.8 / A100_BF16 + 0.2 / A100_FP32)  # fractions of the work: harmonic
    value = 1e12 * float(metric(at, "Effective peak per chip").removesuffix(" TFLOP/s"))
    assert value == pytest.approx(effective, rel=5e-3)
    at.number_input(key="pr_mix_bf16").set_value(100.0).run()  # all BF16: the rest is 0 and dropped
    assert not at.error
    assert 1e12 * float(metric(at, "Effective peak per chip").removesuffix(" TFLOP/s")) == pytest.approx(A100_BF16)


def test_h100_search_lists_the_h100s_first():
    at = page("hardware")
    at.text_input(key="hw_chip_search").set_value("H100").run()
    options = at.selectbox(key="hw_chip").options
    assert options and all("H100" in o for o in options)
    assert not any("B200" in o for o in options)
    assert at.selectbox(key="hw_chip").value == "nvidia-h100-sxm"  # the exact alias 'H100'


def _all_text(at: AppTest) -> str:
    parts, stack = [], [at._tree]
    while stack:
        node = stack.pop()
        if getattr(node, "proto", None) is not None:
            parts.append(str(node.proto))
        stack.extend(getattr(node, "children", {}).values())
    return "\n".join(parts)


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_the_ui_names_the_source_never_a_seed(name):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if name != "layer_builder":
        at = page(name, at)
    text = _all_text(at)
    # "seed" as our word for a source document; ByteDance's Seed-OSS models in the library keep their name
    assert "seed" not in re.sub(r"seed-oss", "", text.lower())
    if name == "layer_builder":
        assert "Epoch AI" in text and "Sevilla et al. 2022" in text


def test_the_preset_picker_says_when_the_scenario_is_not_a_preset():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    picker = at.selectbox(key="preset_choice")
    assert picker.value == "epoch-cnn-lstm" and "Epoch AI's worked example" in picker.format_func(picker.value)
    at.button[[b.label for b in at.button].index("Start from scratch")].click().run()
    assert not at.exception
    assert at.selectbox(key="preset_choice").value is None
    assert not any(e.label.startswith("About") for e in at.expander)
    assert at.session_state["scenario"].name == "My model"
    at.selectbox(key="preset_choice").set_value("alexnet").run()
    assert any(e.label.startswith("About “AlexNet") and "(not loaded)" in e.label for e in at.expander)
    at.button[[b.label for b in at.button].index("Load preset")].click().run()
    assert at.selectbox(key="preset_choice").value == "alexnet"
    assert at.session_state["scenario"].name == "AlexNet"


def test_a_config_build_clears_the_preset_label():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.button[[b.label for b in at.button].index("Build the layers from this config")].click().run()
    assert not at.exception
    assert at.selectbox(key="preset_choice").value is None
