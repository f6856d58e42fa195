"""The token dispatcher of a mixture-of-experts plan: NCCL's all-to-all (one copy of a token per remote expert) or
Megatron-Core's flex dispatcher with DeepEP or HybridEP (a token crosses to each other node it needs once)."""
from __future__ import annotations

import json
from math import comb

import pytest

from engine.cli import main
from engine.errors import InputError, parse_input
from engine.plan.layout import Layout, MemoryOptions, PlanInputs
from engine.plan.published import run_config
from engine.plan.run_plan import PlanSettings, plan_run
from engine.report import markdown_report
from tests.plan import kernel, moe_plan_page, published_run, run_model

QWEN3_30B = run_config(published_run("Qwen3 30B"))
# Qwen3 30B-A3B on 16 H100s in two nodes, e 16 (Megatron Bridge's H100 recipe layout): 8 of 16 ranks elsewhere
TWO_NODES = Layout(dp=16, ep=16, global_batch=1024)


def _plan(dispatcher: str):
    return plan_run(run_model("Qwen3 30B"), TWO_NODES, MemoryOptions(convention="megatron"),
                    PlanSettings(chip="nvidia-h100-sxm", dispatcher=dispatcher))


def test_flex_sends_a_token_once_to_the_other_node():
    nccl, flex = _plan("alltoall"), _plan("flex")
    assert nccl.step.model == flex.step.model == "kernel model"
    # NCCL: half the 8 copies of a token go to the other node; flex: the token once, unless all 8 of its
    # experts are among this node's 64 — the scale-out link bounds both
    once = (1 - comb(64, 8) / comb(128, 8)) / 8
    assert flex.step.ep_comm_s == pytest.approx(nccl.step.ep_comm_s * once / (8 / 16))
    assert flex.step.step_s < nccl.step.step_s
    assert "DeepEP/HybridEP dispatch and combine" in flex.step.notes[-1]
    assert "the dispatch and combine all-to-all" in nccl.step.notes[-1]


def test_one_node_is_the_same_either_way():
    layout = Layout(dp=8, ep=8, global_batch=64)
    model = run_model("Qwen3 30B")
    steps = [plan_run(model, layout, MemoryOptions(), PlanSettings(chip="nvidia-h100-sxm", dispatcher=d)).step.step_s
             for d in ("alltoall", "flex")]
    assert steps[0] == pytest.approx(steps[1])


def test_an_unknown_dispatcher_is_refused_by_name():
    for bad in ("deepep", "", "<b>x</b>", 3):
        with pytest.raises(InputError) as e:
            parse_input(PlanSettings, {"dispatcher": bad})
        assert e.value.field == "dispatcher"
    assert PlanInputs().dispatcher == "alltoall"
    # a link saved before the field existed still opens, with NCCL's all-to-all
    assert PlanInputs.model_validate({"chip": "nvidia-h100-sxm"}).dispatcher == "alltoall"


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == 0 and out.strip().startswith("{") else None, err


def _two_nodes_cli(tmp_path) -> tuple[str, ...]:
    """``plan`` of Qwen3 30B-A3B's config.json on TWO_NODES (H100, Megatron convention), JSON out."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN3_30B))
    return ("plan", "--config", str(config), "--seq-len", "4096", "--chip", "nvidia-h100-sxm", "--dp", "16",
            "--ep", "16", "--global-batch", "1024", "--convention", "megatron", "--format", "json")


def test_cli_dispatcher(capsys, tmp_path):
    base = _two_nodes_cli(tmp_path)
    code, nccl, err = cli(capsys, *base)
    assert code == 0, err
    code, flex, err = cli(capsys, *base, "--dispatcher", "flex")
    assert code == 0, err
    assert flex["step"]["ep_comm_s"] == pytest.approx(_plan("flex").step.ep_comm_s)
    assert nccl["step"]["ep_comm_s"] == pytest.approx(_plan("alltoall").step.ep_comm_s)
    for bad in ("deepep", "x" * 5000, "<script>"):
        code, _, err = cli(capsys, *base, "--dispatcher", bad)
        assert code == 2 and err.startswith("error: dispatcher") and len(err.strip().splitlines()) == 1


def test_the_page_offers_it_on_a_mixture_of_experts_and_the_link_and_report_keep_it():
    at, mfu, linked = moe_plan_page(PlanInputs(layout=TWO_NODES))
    before = mfu()
    at.selectbox(key="plan_dispatcher").set_value("flex").run()
    assert not at.exception
    assert mfu() > before
    saved = linked()
    assert saved.plan.dispatcher == "flex"
    assert "DeepEP/HybridEP dispatcher" in markdown_report(saved)


def test_overlapping_the_all_to_all_hides_what_the_compute_covers():
    from dataclasses import replace

    from engine.plan.kernel.block import ExpertSettings

    model = replace(run_model("Qwen3 30B"), vocab=0)
    options = MemoryOptions(convention="megatron")
    exposed = kernel(model, TWO_NODES, options)
    hidden = kernel(model, TWO_NODES, options, experts=ExpertSettings(overlap_a2a=True))
    # per block and micro-batch (m = 1,024 / 16 = 64 of them, 48 blocks): the exposed all-to-all is
    # max(0, all-to-all − (forward + backward GEMMs)); with no logits (vocab 0) gemm_s is m·L·(fwd + bwd)
    per = 64 * model.blocks
    a2a, gemms = exposed.ep_comm_s / per, exposed.gemm_s / per
    assert hidden.ep_comm_s == pytest.approx(per * max(0.0, a2a - gemms))
    assert 0 < hidden.ep_comm_s < exposed.ep_comm_s  # the scale-out all-to-all outlasts the GEMMs
    plan = plan_run(run_model("Qwen3 30B"), TWO_NODES, options, PlanSettings(chip="nvidia-h100-sxm", overlap_a2a=True))
    assert plan.step.ep_comm_s == pytest.approx(hidden.ep_comm_s)
    assert "moe_a2a_overlap" in plan.step.notes[-1]


def test_cli_and_page_overlap_the_all_to_all(capsys, tmp_path):
    base = _two_nodes_cli(tmp_path)
    code, exposed, err = cli(capsys, *base)
    code2, hidden, err2 = cli(capsys, *base, "--overlap-a2a")
    assert code == code2 == 0, err + err2
    assert hidden["step"]["ep_comm_s"] < exposed["step"]["ep_comm_s"]
    at, mfu, linked = moe_plan_page(PlanInputs(layout=TWO_NODES))
    before = mfu()
    at.checkbox(key="plan_overlap_a2a").check().run()
    assert not at.exception and mfu() > before
    saved = linked()
    assert saved.plan.overlap_a2a is True and "all-to-all overlapped" in markdown_report(saved)


def test_a_saved_plan_runs_with_every_setting_it_holds():
    """The page and the report read a saved plan's settings through ``settings_for``: the chip, kernel efficiency,
    capacity factor, dispatcher and overlap as saved, the tokens given; a bad token count is one clear error."""
    from engine.plan.run_plan import settings_for

    saved = PlanInputs(chip="nvidia-b200", kernel_efficiency=0.55, capacity_factor=1.5, dispatcher="flex",
                       overlap_a2a=True)
    assert settings_for(saved, 1e12) == PlanSettings(chip="nvidia-b200", kernel_efficiency=0.55, tokens=1e12,
                                                     capacity_factor=1.5, dispatcher="flex", overlap_a2a=True)
    assert settings_for(PlanInputs()) == PlanSettings()
    with pytest.raises(InputError, match="tokens"):
        settings_for(saved, -1.0)
