"""The 90% range on a plan's step time, MFU and wall-clock (engine/plan/uncertainty.py): split-conformal
percentiles of the model's error on published validation runs of the plan's regime (model_error.json)."""
from __future__ import annotations

import math

import pytest

from engine.plan.kernel.calibration import KernelCalibration
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.published import comparisons, plan_for
from engine.plan.run_plan import PlanSettings, plan_run
from engine.plan.uncertainty import MIN_RUNS, Regime, RunError, interval, model_errors, percentiles, regime_runs
from tests.plan import published_run, run_model


def test_conformal_percentiles_take_the_ranks_of_n_plus_one():
    """Of n errors the ⌊0.05·(n+1)⌋-th and ⌈0.95·(n+1)⌉-th smallest (Lei et al. 2018), the extremes where the
    ranks fall outside 1..n: n = 19 gives the 1st and 19th, n = 39 the 2nd and 38th, n = 8 the 1st and 8th."""
    assert percentiles(list(range(1, 20))) == (1, 19)
    assert percentiles(list(range(1, 40))) == (2, 38)
    assert percentiles(list(range(8, 0, -1))) == (1, 8)
    assert MIN_RUNS == 19  # the fewest runs whose two ranks fall inside 1..n


def _runs(n, **regime):
    base = {"step_model": "kernel model", "framework": "megatron", "architecture": "hopper", "experts": False,
            "long_context": False}
    return tuple(RunError(id=f"r{i}", log_error=i / 100, **{**base, **regime}) for i in range(n))


def test_a_regime_with_too_few_runs_widens_one_key_at_a_time():
    runs = _runs(19) + _runs(5, framework="torchtitan") + _runs(30, framework="torchtitan", architecture="ampere")
    own, keys = regime_runs(Regime("kernel model", "megatron", "hopper", False, False), runs)
    assert len(own) == 19 and keys == ("framework", "long_context", "experts", "architecture")
    # 5 torchtitan Hopper runs: the framework goes first — the 24 Hopper runs of every framework
    wide, keys = regime_runs(Regime("kernel model", "torchtitan", "hopper", False, False), runs)
    assert len(wide) == 24 and keys == ("long_context", "experts", "architecture")
    # then context, experts, architecture, down to every run of the step model
    alone, keys = regime_runs(Regime("kernel model", "torchtitan", "cdna3", True, True), runs)
    assert len(alone) == 54 and keys == ()
    span = interval(Regime("kernel model", "megatron", "hopper", False, False), 10.0, runs)
    assert (span.low_s, span.high_s) == pytest.approx((10.0, 10.0 * math.exp(0.18)))
    assert span.runs == 19
    assert span.basis == "19 published runs (kernel model; megatron, contexts under 16K, dense models, hopper)"


def test_a_plan_carries_its_range_on_step_mfu_and_wall_clock():
    run = published_run("Llama 2 70B, 64 H100")
    plan = plan_for(run, tokens=1e12)
    span = plan.interval
    chosen, _ = regime_runs(Regime("kernel model", "megatron", "hopper", False, False))
    low, high = percentiles([r.log_error for r in chosen])
    step = plan.step.step_s
    assert (span.low_s, span.high_s) == pytest.approx((step * math.exp(low), step * math.exp(high)))
    out = plan.as_dict()["interval"]
    assert out["level"] == 0.9 and out["step_s"] == pytest.approx([span.low_s, span.high_s])
    assert out["mfu"] == pytest.approx([plan.step.mfu * step / span.high_s, plan.step.mfu * step / span.low_s])
    days = plan.as_dict()["wall_clock_days"]
    assert out["wall_clock_days"] == pytest.approx([days * span.low_s / step, days * span.high_s / step])
    assert span.low_s < step < span.high_s


def test_every_published_run_gets_a_range_and_a_trace_narrows_it():
    assert all(plan_for(c.run).interval is not None for c in comparisons(role="validation"))
    model = run_model("Llama 2 7B, 8 H100")
    traced = KernelCalibration(error_range=(-0.05, 0.05), source="a measured trace of this run")
    plan = plan_run(model, Layout(dp=8, global_batch=128), MemoryOptions(convention="megatron", zero=1),
                    PlanSettings(chip="nvidia-h100-sxm", calibration=traced))
    assert (plan.interval.low_s, plan.interval.high_s) == pytest.approx(
        (0.95 * plan.step.step_s, 1.05 * plan.step.step_s))
    assert plan.interval.basis == "a measured trace of this run"


def test_the_stored_errors_are_the_validation_runs_only():
    ids = {r.id for r in model_errors()}
    validation = {c.run.id for c in comparisons(role="validation")}
    assert ids == validation - {c.run.id for c in comparisons(role="validation")
                                if c.run.published.metric in ("mfu", "hfu")}
