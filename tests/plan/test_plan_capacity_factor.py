"""The expert capacity factor of a mixture-of-experts plan: the busiest expert-parallel rank's routed tokens
÷ the mean scales its expert GEMMs, its routed memory traffic and its all-to-all."""
from __future__ import annotations

import json
import math

import pytest

from engine.cli import main
from engine.errors import InputError, parse_input
from engine.plan.kernel.block import ExpertSettings
from engine.plan.kernel.calibration import DEFAULT_CALIBRATION
from engine.plan.kernel.chip import kernel_chip
from engine.plan.kernel.gemm import gemm_s
from engine.plan.layout import Layout, PlanInputs
from engine.plan.published import plan_for, run_config
from engine.plan.run_plan import PlanSettings
from tests.plan import kernel, moe_plan_page, published_run, synthetic_model

QWEN3_30B = run_config(published_run("Qwen3 30B"))
MODEL = synthetic_model(blocks=1, h=512, heads=8, head_dim=64, s=1024, dense_params=1e6, expert_params=1e6,
                        experts=4, top_k=2, f=1024, gated=True)
LAYOUT = Layout(dp=2, ep=2, global_batch=2)


def test_the_busiest_rank_takes_c_times_the_mean():
    even = kernel(MODEL, LAYOUT)
    busy = kernel(MODEL, LAYOUT, experts=ExpertSettings(capacity_factor=1.25))
    # all-to-all: 4 per block, each 1,024 × 2 × 512 × 2 bytes × 1/2 over NVLink (450 GB/s at 75%), × 1.25 for the
    # busiest rank
    assert busy.ep_comm_s == pytest.approx(1.25 * 4 * 1024 * 2 * 512 * 2 / 2 / (450e9 * 0.75))
    assert busy.ep_comm_s == pytest.approx(1.25 * even.ep_comm_s)
    # expert GEMMs: 2 local experts of ⌈1.25 × 1,024⌉ = 1,280 tokens instead of 1,024 (FC1 gated: 2f)
    h100 = kernel_chip("nvidia-h100-sxm")

    def g(m, n, k):
        return gemm_s(h100, DEFAULT_CALIBRATION, m, n, k)

    def experts(m):
        return 2 * (g(m, 2048, 512) + g(m, 512, 1024) + g(m, 512, 2048) + g(512, 2048, m) + g(m, 1024, 512)
                    + g(1024, 512, m))
    assert busy.gemm_s - even.gemm_s == pytest.approx(experts(math.ceil(1.25 * 1024)) - experts(1024))


def test_a_plan_with_an_unbalanced_router_is_slower_and_says_so():
    run = published_run("GPT-OSS")
    even, busy = plan_for(run), plan_for(run, capacity_factor=1.25)
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
