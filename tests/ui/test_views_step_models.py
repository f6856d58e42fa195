"""The plan page's kernel-model rows: the H100 table and the kernel model's basis line."""
from __future__ import annotations

import pytest

from ui.views.step_models import chips_rows, h100_rows, kernel_basis, long_context_rows


def test_h100_rows_give_the_published_step_and_name_the_model():
    rows = h100_rows()
    first = rows[0]
    # NeMo 24.07: Llama 2 7B on 8 H100s, 128 × 4,096 tokens at 16,847 tokens/s/GPU
    assert first["published step (s)"] == pytest.approx(round(128 * 4096 / (16847 * 8), 2))
    assert first["model"] == "kernel model" and first["source"].startswith("NVIDIA NeMo 24.07")
    moe = next(r for r in rows if "MoE" in r["case"])
    assert moe["model"] == "kernel model"  # the plan's, with the recipe's settings in the published run's data
    assert sum("MoE" in r["case"] for r in rows) == 3  # GPT-OSS 120B, Qwen3 30B-A3B, Qwen3 235B-A22B
    err = (moe["FLOPscope (s)"] / moe["published step (s)"] - 1) * 100
    assert float(moe["error"].rstrip("%")) == pytest.approx(err, abs=0.2)


def test_kernel_basis_names_the_validation_errors():
    import statistics

    from engine.plan.published import comparisons

    line = kernel_basis()
    timed = [c for c in comparisons(role="validation") if c.run.published.metric not in ("mfu", "hfu")]
    errors = [abs(c.predicted / c.published - 1) for c in timed]
    frameworks = ", ".join(dict.fromkeys(c.run.framework for c in comparisons() if c.run.role != "check"))
    assert (f"on {len(timed)} published runs ({frameworks}) kept apart from its calibration it is "
            f"off by {100 * statistics.median(errors):.1f}% (median), {100 * max(errors):.0f}% at worst") in line
    assert f"({sum(e <= 0.2 for e in errors)} within 20%)" in line


def test_framework_rows_and_a_frameworks_runs():
    from ui.views.step_models import framework_rows, runs_of

    rows = framework_rows()
    assert rows[-1]["framework"] == "all" and rows[-1]["role"] == "validation"
    tt = runs_of("torchtitan")
    assert len(tt) == sum(r["runs"] for r in rows if r["framework"] == "torchtitan")
    assert {r["role"] for r in tt} == {"calibration", "validation"}
    # each run's held-out range lies around FLOPscope's step for it
    first = tt[0]
    low, high = (float(x) for x in first["90% range, held out (s)"].split("–"))
    assert low < first["FLOPscope (s)"] < high


def test_step_parts_list_the_expert_all_to_all_of_a_moe_plan():
    from engine.plan.published import plan_for
    from tests.plan import published_run
    from ui.views.plan import step_parts

    plan = plan_for(published_run("GPT-OSS"))
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
    assert len(cp) == 3 and all(r["model"] == "kernel model" for r in cp)  # plans hold context parallelism


def test_long_context_rows_give_the_published_step_from_nemos_formula():
    rows = long_context_rows()
    assert len(rows) == 9 and rows[0]["case"].startswith("Llama 2 7B, s 4,096, 4 H100")
    # 1M positions on 1,024 H100: 4 × 2^20 tokens at 536 TFLOP/s/GPU, NeMo's Llama 2 FLOP per token
    s = 2 ** 20
    per_token = 32 * 4096 ** 2 * (12 + 12 + 18 * 11008 / 4096 + 12 * s / 4096 + 6 * 32000 / (32 * 4096))
    assert rows[-1]["published step (s)"] == pytest.approx(round(4 * s * per_token / (536e12 * 1024), 2))
    err = (rows[-1]["FLOPscope (s)"] / rows[-1]["published step (s)"] - 1) * 100
    assert float(rows[-1]["error"].rstrip("%")) == pytest.approx(err, abs=0.2)
