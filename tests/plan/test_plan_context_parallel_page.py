"""The Plan page with a context-parallel degree (AppTest): chips, memory and step from the engine's formulas,
a bad degree named, the degree carried by the share link."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.plan.interconnects import interconnect_for
from engine.plan.kernel.step import kernel_step_for
from engine.plan.layout import Layout, MemoryOptions
from engine.presets import presets
from tests.conftest import ROOT
from tests.plan.test_plan_page import eight_way, gb, metric, plan_page


def test_cp_splits_the_activations_and_feeds_the_kernel_model():
    at = eight_way(plan_page("llama2-7b"))
    before = gb(metric(at, "Memory per chip (of 80 GB)"))
    at.number_input(key="plan_cp").set_value(2).run()
    assert not at.exception and not any(e.value.startswith("cp") for e in at.error)
    after = gb(metric(at, "Memory per chip (of 80 GB)"))
    # Llama 2 7B, s 4,096, b 1, no recomputation, fused attention: 32 blocks × 34·s·h bytes + the other layers'
    # outputs s·(2h + V)·2; half of it leaves each chip when c = 2 (the metric shows whole GB)
    s, h, vocab = 4096, 4096, 32000
    acts = 32 * s * h * 34 + 2 * s * (2 * h + vocab)
    assert before - after == pytest.approx(acts / 2 / 1e9, abs=1)
    model = presets()["llama2-7b"].scenario.plan_model()
    kernel = kernel_step_for(model, Layout(dp=8, cp=2, global_batch=64), MemoryOptions(), "nvidia-h100-sxm",
                             interconnect_for("nvidia-h100-sxm"))
    assert kernel.chips == 16 and metric(at, "Predicted MFU") == f"{100 * kernel.mfu:.1f}%"


def test_a_bad_cp_is_named_and_the_good_one_travels_in_the_link():
    from engine.share_link import decode
    at = eight_way(plan_page("llama2-7b"))
    at.number_input(key="plan_cp").set_value(3).run()
    assert any(e.value.replace("\\", "").startswith("cp: the sequence of 4,096 tokens does not split into "
                                                    "2 × cp = 6") for e in at.error)
    assert not at.exception
    at.number_input(key="plan_cp").set_value(4).run()
    token = at.query_params["s"] if isinstance(at.query_params["s"], str) else at.query_params["s"][0]
    assert decode(token).plan.layout.cp == 4
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    fresh.query_params["s"] = token
    fresh.run()
    fresh.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert fresh.number_input(key="plan_cp").value == 4 and not fresh.exception
