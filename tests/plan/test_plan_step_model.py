"""Which step-time model a plan's figures come from: the kernel model where it applies (dense blocks,
16-bit or FP8/FP6/FP4 on a chip with its multiprocessor count, ZeRO 0–3), else the constant-efficiency model — each with a note naming it."""
from __future__ import annotations

import pytest

from engine.llm.config import read_hf_config
from engine.llm.presets import GPT3_175B_CONFIG
from engine.plan.interconnects import interconnect_for
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.model import plan_model
from engine.plan.run_plan import PlanSettings, plan_run, sweep_layouts
from engine.plan.step_time import step_time

# Korthikanti et al. 2022, Table 5 (layout: Table 3): GPT-3 175B on 64 A100s, t 8, p 8, B 64, b 1, v 3,
# measured 18.13 s per iteration with full recomputation — https://arxiv.org/abs/2205.05198
PUBLISHED_175B_FULL_S = 18.13
LAYOUT = Layout(dp=1, tp=8, pp=8, micro_batch=1, global_batch=64, virtual_stages=3)


@pytest.fixture(scope="module")
def gpt3():
    return plan_model(read_hf_config(GPT3_175B_CONFIG).architecture(2048))


def test_the_plan_step_comes_from_the_kernel_model_and_is_near_the_measured_one(gpt3):
    # Megatron-LM as the paper ran it: nothing overlapped, the scores stored (before FlashAttention)
    plan = plan_run(gpt3, LAYOUT, MemoryOptions(precision="fp16", recompute="full", convention="megatron-2021",
                                                attention="stored"),
                    PlanSettings(chip="nvidia-a100-sxm4-80gb", tokens=300e9))
    step = plan.step
    assert step.model == "kernel model" and any("kernel model" in n for n in step.notes)
    # GPT-3's vocabulary (50,257) is a little smaller than the paper's 51,200: within the validation bound
    assert step.step_s == pytest.approx(PUBLISHED_175B_FULL_S, rel=0.12)
    # the constant-efficiency model (k = 0.7) is further off on this run, as the issue measured (11% fast)
    constant = step_time(gpt3, LAYOUT, MemoryOptions(precision="fp16", recompute="full"), 312e12,
                         interconnect_for("nvidia-a100-sxm4-80gb"), 0.7)
    assert abs(step.step_s / PUBLISHED_175B_FULL_S - 1) < abs(constant.step_s / PUBLISHED_175B_FULL_S - 1)
    # MFU = 3 × forward FLOP × B / (step × chips × 312 TFLOP/s); wall-clock = tokens / (B·s) × step
    assert step.mfu == pytest.approx(3 * gpt3.forward_flop * 64 / (step.step_s * 64 * 312e12))
    data = plan.as_dict()
    assert data["step_s"] == step.step_s and data["step_model"] == "kernel model"
    assert data["wall_clock_days"] == pytest.approx(300e9 / (64 * 2048) * step.step_s / 86_400)
    assert data["kernel_model"]["step_s"] == pytest.approx(step.step_s)


def test_outside_the_kernel_model_the_constant_efficiency_model_says_so(gpt3):
    # FP32 is not in the kernel model: the step is hardware FLOP / (n·P·k) + bubble + links
    options = MemoryOptions(precision="fp32", recompute="full", zero=3, convention="torchtitan")  # FSDP + pipeline
    plan = plan_run(gpt3, LAYOUT, options, PlanSettings(chip="nvidia-h100-sxm", kernel_efficiency=0.6))
    assert plan.kernel is None and plan.step.model == "constant-efficiency model"
    assert any("constant-efficiency model (kernels at 0.6 of peak)" in n for n in plan.step.notes)
    link = interconnect_for("nvidia-h100-sxm")
    assert plan.step.step_s == pytest.approx(step_time(gpt3, LAYOUT, options, plan.step.peak_flop_per_s, link,
                                                       0.6).step_s)


def test_the_sweep_ranks_by_the_kernel_model(gpt3):
    rows = sweep_layouts(gpt3, 64, 64, MemoryOptions(precision="bf16", recompute="full"),
                         PlanSettings(chip="nvidia-a100-sxm4-80gb"))
    assert rows and all(r.step.model == "kernel model" for r in rows)
    fits = [r.step.mfu for r in rows if r.memory.fits]
    assert fits == sorted(fits, reverse=True)


@pytest.mark.parametrize("layout", [LAYOUT, Layout(dp=12, tp=8, pp=8, micro_batch=1, global_batch=1536)])
def test_the_kernel_models_bubble_is_the_schedules_share(gpt3, layout):
    """The pipeline bubble's share, (p−1)/(v·m + p−1) (Narayanan et al. 2021), under the kernel model too: its
    stage holds the tensor-parallel collectives and overheads beside the products, and the share was taken of the
    products alone (6.6% for 5.2% at p 8, m 128)."""
    plan = plan_run(gpt3, layout, MemoryOptions(precision="fp16", recompute="full", attention="stored",
                                                convention="megatron"),
                    PlanSettings(chip="nvidia-a100-sxm4-80gb"))
    m = layout.global_batch // (layout.dp * layout.micro_batch)
    assert plan.step.model == "kernel model"
    assert plan.step.bubble_fraction == pytest.approx(7 / (layout.virtual_stages * m + 7))
