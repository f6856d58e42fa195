"""The kernel model's call path: a plan's step time walks the kernel modules top-down, each entered from one
module only and none calling back up — run_plan → step → (chip, frameworks, block → gemm → calibration, comm).
(Before, the dense and experts models called each other six times in one walk.)"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine.plan.kernel as kernel_package
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.run_plan import PlanSettings, plan_run
from tests.plan import run_model

KERNEL_DIR = str(Path(kernel_package.__file__).parent)
EXPECTED_CALLERS = {
    "engine.plan.kernel.step": {"engine.plan.run_plan"},
    "engine.plan.kernel.chip": {"engine.plan.kernel.step"},
    "engine.plan.kernel.frameworks": {"engine.plan.kernel.step"},
    "engine.plan.kernel.block": {"engine.plan.kernel.step"},
    "engine.plan.kernel.comm": {"engine.plan.kernel.step"},
    "engine.plan.kernel.gemm": {"engine.plan.kernel.block"},
    "engine.plan.kernel.calibration": {"engine.plan.kernel.gemm"},
}
"""Who calls whom: each kernel module from one module above it; nothing below calls up."""
FLOORS = ["engine.plan.run_plan", "engine.plan.kernel.step", "engine.plan.kernel.chip",
          "engine.plan.kernel.frameworks", "engine.plan.kernel.block", "engine.plan.kernel.comm",
          "engine.plan.kernel.gemm", "engine.plan.kernel.calibration"]


def callers_of_kernel_modules(work) -> dict[str, set[str]]:
    """For each kernel module a call entered during ``work()``, the other modules that called into it."""
    seen: dict[str, set[str]] = {}

    def profile(frame, event, arg):
        if event != "call" or not frame.f_code.co_filename.startswith(KERNEL_DIR) or frame.f_back is None:
            return
        callee, caller = frame.f_globals.get("__name__"), frame.f_back.f_globals.get("__name__")
        if caller != callee:
            seen.setdefault(callee, set()).add(caller)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("label, layout, options", [
    ("Llama 3 70B, 64 H100", Layout(dp=2, tp=4, pp=4, cp=2, virtual_stages=5, global_batch=128,
                                    sequence_parallel=True), MemoryOptions(precision="fp8", convention="megatron")),
    ("Llama 3 8B, 8 H100", Layout(dp=8, global_batch=128), MemoryOptions(zero=3, convention="fsdp")),
    ("Qwen3 30B", Layout(dp=8, pp=2, ep=8, virtual_stages=12, global_batch=1024),
     MemoryOptions(precision="fp8", convention="megatron", recompute="selective")),
])
def test_a_plans_step_walks_the_kernel_modules_top_down(label, layout, options):
    model = run_model(label)
    plan = None

    def work():
        nonlocal plan
        plan = plan_run(model, layout, options, PlanSettings(chip="nvidia-h100-sxm"))

    seen = callers_of_kernel_modules(work)
    assert plan.kernel is not None and plan.step.model == "kernel model"
    for module, callers in seen.items():
        assert callers == EXPECTED_CALLERS[module], (module, callers)  # entered from one module
        # every caller sits on a floor above the module it calls: no call runs back up
        assert all(FLOORS.index(c) < FLOORS.index(module) for c in callers), (module, callers)
    assert set(seen) >= {"engine.plan.kernel.step", "engine.plan.kernel.block", "engine.plan.kernel.gemm",
                         "engine.plan.kernel.comm", "engine.plan.kernel.chip"}
