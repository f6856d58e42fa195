"""The plan page's kernel-model rows: the H100 table and the kernel model's basis line."""
from __future__ import annotations

import pytest

from ui.views.step_models import chips_rows, h100_rows, kernel_basis


def test_h100_rows_give_the_published_step_and_name_the_model():
    rows = h100_rows()
    first = rows[0]
    # NeMo 24.07: Llama 2 7B on 8 H100s, 128 × 4,096 tokens at 16,847 tokens/s/GPU
    assert first["published step (s)"] == pytest.approx(round(128 * 4096 / (16847 * 8), 2))
    assert first["model"] == "kernel model" and first["source"].startswith("NVIDIA NeMo 24.07")
    moe = next(r for r in rows if "MoE" in r["case"])
    assert moe["model"] == "kernel model, experts (the recipe's settings)"
    assert sum("MoE" in r["case"] for r in rows) == 3  # GPT-OSS 120B, Qwen3 30B-A3B, Qwen3 235B-A22B
    err = (moe["FLOPscope (s)"] / moe["published step (s)"] - 1) * 100
    assert float(moe["error"].rstrip("%")) == pytest.approx(err, abs=0.2)


def test_kernel_basis_names_the_validation_errors():
    line = kernel_basis()
    assert "8 measured Megatron-LM runs" in line and "3.6% (median)" in line and "7.5% at worst" in line


def test_step_parts_list_the_expert_all_to_all_of_a_moe_plan():
    from engine.plan.validation_h100 import OUTSIDE, plan_for
    from ui.views.plan import step_parts

    plan = plan_for(next(r for r in OUTSIDE if r.label.startswith("GPT-OSS")))
    parts = {p["part"]: p["seconds"] for p in step_parts(plan.step)}
    assert parts["expert all-to-all"] == pytest.approx(plan.kernel.ep_comm_s) and parts["expert all-to-all"] > 0
    assert sum(parts.values()) == pytest.approx(plan.step.step_s)


def test_chips_rows_give_the_published_step_and_the_model():
    rows = chips_rows()
    first = rows[0]
    # Megatron Bridge 25.11: Llama 3 8B on 8 B200s, 128 × 8,192 tokens at 30,624 tokens/s/GPU
    assert first["case"] == "Llama 3 8B, 8 B200, FP8"
    assert first["published step (s)"] == pytest.approx(round(128 * 8192 / (30624 * 8), 2))
    assert first["model"] == "kernel model" and first["source"].startswith("NVIDIA Megatron Bridge 25.11")
    err = (first["FLOPscope (s)"] / first["published step (s)"] - 1) * 100
    assert float(first["error"].rstrip("%")) == pytest.approx(err, abs=0.3)
    cp = [r for r in rows if "context parallel" in r["case"]]
    assert len(cp) == 3 and all(r["constant-efficiency model (s)"] is None for r in cp)
