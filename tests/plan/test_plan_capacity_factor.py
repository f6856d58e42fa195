"""The expert capacity factor of a mixture-of-experts plan: the busiest expert-parallel rank's routed tokens
÷ the mean scales its expert GEMMs, its routed memory traffic and its all-to-all."""
from __future__ import annotations

import json
import math

import pytest

from engine.cli import main
from engine.errors import InputError, parse_input
from engine.plan.kernel_model import ETA_NETWORK, H100, gemm_s
from engine.plan.kernel_moe import moe_step_s
from engine.plan.layout import PlanInputs
from engine.plan.run_plan import PlanSettings, plan_run
from engine.plan.validation_h100 import OUTSIDE, plan_for, plan_model_of
from tests.plan import moe_plan_page

QWEN3_30B = next(r for r in OUTSIDE if r.label.startswith("Qwen3 30B")).config
ARGS = dict(layers=1, h=512, heads=8, kv_heads=8, head_dim=64, s=1024, vocab=0, dense_params=1e6,
            expert_params=1e6, experts=4, top_k=2, f=1024, p=1, d=2, ep=2, b=1, global_batch=2)


def test_the_busiest_rank_takes_c_times_the_mean():
    even, busy = moe_step_s(H100, **ARGS), moe_step_s(H100, imbalance=1.25, **ARGS)
    # all-to-all: 4 per block, each 1,024 × 2 × 512 × 2 bytes × 1/2 over NVLink, × 1.25 for the busiest rank
    assert busy["all_to_all_s"] == pytest.approx(1.25 * 4 * 1024 * 2 * 512 * 2 / 2 / (450e9 * ETA_NETWORK))
    assert busy["all_to_all_s"] == pytest.approx(1.25 * even["all_to_all_s"])
    # expert GEMMs: 2 local experts of ⌈1.25 × 1,024⌉ = 1,280 tokens instead of 1,024 (FC1 gated: 2f)
    def experts(m):
        return 2 * (gemm_s(H100, m, 2048, 512) + gemm_s(H100, m, 512, 1024) + gemm_s(H100, m, 512, 2048)
                    + gemm_s(H100, 512, 2048, m) + gemm_s(H100, m, 1024, 512) + gemm_s(H100, 1024, 512, m))
    assert busy["gemm_s"] - even["gemm_s"] == pytest.approx(experts(math.ceil(1.25 * 1024)) - experts(1024))


def test_a_plan_with_an_unbalanced_router_is_slower_and_says_so():
    run = next(r for r in OUTSIDE if r.label.startswith("GPT-OSS"))
    even = plan_for(run)
    busy = plan_run(plan_model_of(run), even.layout, even.options,
                    PlanSettings(chip="nvidia-h100-sxm", capacity_factor=1.25))
    assert busy.step.ep_comm_s == pytest.approx(1.25 * even.step.ep_comm_s)
    assert busy.step.step_s > even.step.step_s
    assert any("1.25× the mean tokens" in n for n in busy.step.notes)
    assert any("routing balanced" in n for n in even.step.notes)
    with pytest.raises(InputError) as e:
        parse_input(PlanSettings, {"capacity_factor": 0.5})
    assert e.value.field == "capacity_factor"


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_cli_capacity_factor(capsys, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN3_30B))
    base = ("plan", "--config", str(config), "--seq-len", "4096", "--chip", "nvidia-h100-sxm", "--dp", "8",
            "--ep", "8", "--global-batch", "64", "--precision", "fp8")
    code, even, err = cli(capsys, *base)
    assert code == 0, err
    code, busy, err = cli(capsys, *base, "--capacity-factor", "1.5")
    assert code == 0, err
    assert even["step_model"] == busy["step_model"] == "kernel model"
    assert busy["step"]["ep_comm_s"] == pytest.approx(1.5 * even["step"]["ep_comm_s"])
    for bad in ("0.5", "nan", "1e308", "x"):
        code, _, err = cli(capsys, *base, "--capacity-factor", bad)
        assert code == 2 and err.startswith("error: capacity_factor") and len(err.strip().splitlines()) == 1


def test_the_page_asks_for_it_on_a_mixture_of_experts_and_the_link_keeps_it():
    at, mfu, linked = moe_plan_page(PlanInputs())
    before = mfu()
    at.number_input(key="plan_capacity").set_value(2.0).run()
    assert not at.exception
    assert mfu() < before
    assert linked().plan.capacity_factor == 2.0
