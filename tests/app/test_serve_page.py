"""The Serve page and the layer builder's Compress panel through AppTest: figures from formulas written here, bad
input in one line naming the field, the choices kept in the scenario (link, report)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def page(name: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    if name:
        at.switch_page(str(ROOT / "pages" / f"{name}.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_serve_page_default_plan():
    at = page("serve")
    # Llama 3.1 8B: 2 (K, V) × 8 KV heads × 128 × 32 layers × 2 bytes = 131,072 B per token
    assert metric(at, "KV cache / token") == "131.1 kB"
    # 1,000 + 200 tokens per sequence
    assert metric(at, "KV cache / sequence") == "157.3 MB"
    assert at.session_state["scenario"].serve.model == "llama-3.1-8b"


@pytest.mark.parametrize("key,value,field", [
    ("sv_batch", 10**9, "batch"),
    ("sv_prompt", 200_000, "prompt_tokens"),
])
def test_serve_page_bad_input_names_the_field(key, value, field):
    at = page("serve")
    at.number_input(key=key).set_value(value).run()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.replace("\\", "").startswith(f"{field}:")


def test_serve_page_kv_precision_the_chip_lacks():
    at = page("serve")
    at.selectbox(key="sv_chip").set_value("nvidia-a100-sxm4-80gb").run()
    at.selectbox(key="sv_kv").set_value("fp8").run()
    assert at.error[0].value.replace("\\", "").startswith("kv_precision:")


def test_compress_panel_before_after_and_bad_fractions():
    at = page()
    at.toggle(key="cp_on").set_value(True).run()
    # the default CNN-LSTM-FCN: halving the conv's filters and the LSTM's units (the head keeps its 10)
    assert metric(at, "Measured speed-up") == "1.1×"
    assert at.session_state["scenario"].compression.technique == "prune"
    for bad in (0.0, 1.0):
        at.number_input(key="cp_fraction").set_value(bad).run()
        assert at.error and "fraction" in at.error[0].value and not at.exception
    at.number_input(key="cp_fraction").set_value(0.5).run()
    at.radio(key="cp_technique").set_value("two_four").run()
    at.selectbox(key="cp_chip").set_value("nvidia-tesla-v100-sxm2").run()
    assert any("no sparse tensor cores" in c.value for c in at.caption)
