"""``python -m engine optimal | memory | plan``: JSON out, or exit 2 with one line naming the field."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.cli import main
from tests.conftest import ROOT

LLAMA_7B_PARAMS = 6_738_415_616


def cli(capsys, *args) -> tuple[int, dict | None, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_optimal_as_a_process_prints_chinchilla():
    out = subprocess.run([sys.executable, "-m", "engine", "optimal", "--flop", "5.76e23", "--rule",
                          "tokens-per-param"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # Hoffmann et al. 2022: Gopher's budget → Chinchilla, 70B on 1.4T tokens
    assert data["params"] == pytest.approx(70e9, rel=0.015) and data["tokens"] == pytest.approx(1.4e12, rel=0.015)
    assert "loss" not in data


def test_optimal_fits_give_loss(capsys):
    code, data, _ = cli(capsys, "optimal", "--flop", "1e24", "--rule", "hoffmann-approach3")
    G = (0.34 * 406.4 / (0.28 * 410.7)) ** (1 / 0.62)
    n = G * (1e24 / 6) ** (0.28 / 0.62)
    assert code == 0 and data["params"] == pytest.approx(n) and data["tokens"] == pytest.approx(1e24 / (6 * n))
    assert data["loss"] == pytest.approx(1.69 + 406.4 / n ** 0.34 + 410.7 / (1e24 / (6 * n)) ** 0.28)


def test_memory_of_a_7b_preset(capsys):
    code, data, _ = cli(capsys, "memory", "--model", "llama2-7b", "--optimizer", "adam", "--precision", "bf16",
                        "--zero", "0", "--dp", "1", "--tp", "1", "--pp", "1", "--micro-batch", "1",
                        "--seq-len", "4096", "--recompute", "full", "--chip", "nvidia-h100-sxm")
    assert code == 0
    assert data["model_states_bytes_per_chip"] == 16 * LLAMA_7B_PARAMS
    assert data["activation_bytes_per_chip"] > 32 * 2 * 4096 * 4096  # 2·s·h per block, plus embeddings/logits
    assert data["total_bytes_per_chip"] == data["model_states_bytes_per_chip"] + data["activation_bytes_per_chip"]
    assert data["fits"] is False  # 108 GB of states on an 80 GB chip


def test_memory_from_a_config_file_with_zero3(capsys, tmp_path):
    from engine.llm.presets import LLAMA2_7B_CONFIG
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA2_7B_CONFIG))
    code, data, _ = cli(capsys, "memory", "--config", str(path), "--zero", "3", "--dp", "8", "--micro-batch", "1",
                        "--seq-len", "2048", "--recompute", "selective", "--chip", "nvidia-a100-sxm4-80gb")
    assert code == 0 and data["fits"] is True
    assert data["model_states_bytes_per_chip"] == pytest.approx(16 * LLAMA_7B_PARAMS / 8)


def test_plan_gives_step_time_mfu_and_wall_clock(capsys):
    code, data, _ = cli(capsys, "plan", "--model", "gpt3-175b", "--chip", "nvidia-a100-sxm4-80gb", "--dp", "8",
                        "--tp", "8", "--pp", "16", "--micro-batch", "1", "--global-batch", "1536")
    assert code == 0
    assert 0 < data["mfu"] < 1 and data["step_s"] > 0
    # the preset trains on 300B tokens: wall-clock = tokens / tokens per step × step time
    assert data["wall_clock_days"] == pytest.approx(300e9 / (1536 * 2048) * data["step_s"] / 86_400, rel=1e-9)
    assert any("below" in t["sentence"] for t in data["thresholds"])


def test_plan_sweep_ranks_layouts(capsys):
    code, data, _ = cli(capsys, "plan", "--model", "gpt3-175b", "--chip", "nvidia-a100-sxm4-80gb",
                        "--global-batch", "1536", "--sweep", "1024", "--recompute", "selective", "--zero", "1")
    assert code == 0 and data["layouts"] > 50
    assert all(row["virtual_stages"] == 1 for row in data["best"])  # DeepSpeed's pipeline does not interleave
    mfus = [row["mfu"] for row in data["best"] if row["fits"]]
    assert mfus == sorted(mfus, reverse=True) and all(r["dp"] * r["tp"] * r["pp"] == 1024 for r in data["best"])


@pytest.mark.parametrize("args,field", [
    (["optimal", "--flop", "0"], "flop"),
    (["optimal", "--flop", "nan"], "flop"),
    (["optimal", "--flop", "1e24", "--rule", "kaplan"], "arguments"),
    (["memory", "--model", "llama2-7b", "--tp", "5"], "tp"),
    (["memory", "--model", "llama2-7b", "--pp", "3", "--framework", "megatron"], "pp"),
    (["memory", "--model", "llama2-7b", "--pp", "2", "--framework", "fsdp"], "pp"),
    (["memory", "--model", "llama2-7b", "--dp", "0"], "dp"),
    (["memory", "--model", "llama2-7b", "--dp", "nan"], "dp"),
    (["memory", "--model", "llama2-7b", "--dp", "1000000000"], "dp"),
    (["memory", "--model", "llama2-7b", "--dp", "9" * 5000], "dp"),
    (["memory", "--model", "llama2-7b", "--micro-batch", "64", "--global-batch", "32"], "micro_batch"),
    (["memory", "--model", "llama2-7b", "--zero", "4"], "zero"),
    (["memory", "--model", "llama2-7b", "--optimizer", "lion"], "optimizer"),
    (["memory", "--model", "llama2-7b", "--seq-len", "0"], "seq_len"),
    (["memory", "--model", "no-such-model"], "model"),
    (["memory", "--model", "llama2-7b", "--chips", "1000000000", "--dp", "8"], "chips"),
    (["memory", "--model", "llama2-7b", "--chips", "12", "--dp", "8"], "chips"),
    (["memory", "--model", "llama2-7b", "--chips", "nan"], "chips"),
    (["memory", "--model", "llama2-7b", "--chip", "<script>"], "chip"),
    (["memory", "--model", "nas"], "layers"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "2"], "global_batch"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "8",
      "--kernel-efficiency", "1.5"], "kernel_efficiency"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-gtx-580", "--global-batch", "8"], "interconnect"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "8", "--sweep", "0"], "chips"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "64", "--sweep", "64", "--top",
      "0"], "top: 0: the layouts shown, at least 1"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "64", "--sweep", "64", "--top",
      "-1"], "top"),
    (["memory", "--model", "llama2-7b", "--tp", "8", "--chips", "8.0"], "chips: '8.0' is not a whole number of chips"),
    (["memory", "--model", "llama2-7b", "--chips", ""], "chips: '' is not a whole number of chips"),
    (["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "64", "--trace", ""],
     "trace: an empty path"),  # was taken as no trace
])
def test_bad_input_is_one_line_naming_the_field(capsys, args, field):
    code, _, err = cli(capsys, *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}"), err


def test_a_sweep_without_layouts_says_why(capsys):
    """64 sequences cannot be split over the data-parallel ranks of 100,000 chips (d = chips ÷ (t·p) ≥ 100,000 ÷
    (8 · 32) > 64): no layout, and the reason, not a bare "0 layouts"."""
    code, data, _ = cli(capsys, "plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "64",
                        "--sweep", "100000")
    assert code == 0 and data["layouts"] == 0 and data["best"] == []
    assert data["note"].startswith("no layout of 100,000 chips splits a global batch of 64 sequences")


def test_published_run_as_a_model(capsys):
    # Megatron-LM 1T (Narayanan et al. 2021): 1,008B parameters on t = 8 × p = 64 × d = 6 = 3,072 GPUs
    code, data, _ = cli(capsys, "plan", "--model", "megatron-1t", "--chip", "nvidia-a100-sxm4-80gb", "--chips", "3072",
                        "--dp", "6", "--tp", "8", "--pp", "64", "--micro-batch", "1", "--global-batch", "3072",
                        "--precision", "fp16", "--recompute", "full", "--tokens", "450B",
                        "--framework", "megatron-2021", "--attention", "stored")
    assert code == 0
    # the first of the 64 stages, t = 8: 2 of the 128 blocks (12h² + 13h each, h = 25,600) and the word and
    # position embeddings ((51,200 + 2,048)·h), as Megatron-LM's theoretical memory counts its most loaded shard
    h = 25_600
    assert data["params_per_chip"] == (2 * (12 * h * h + 13 * h) + (51_200 + 2_048) * h) / 8
    assert 0.45 < data["hfu"] < 0.65  # published 52% of peak


def test_a_scenario_with_a_saved_plan_needs_no_flags(capsys, tmp_path):
    from engine.plan.layout import PlanInputs
    from engine.presets import presets
    from engine.share_link import scenario_json
    saved = PlanInputs.model_validate({"chip": "nvidia-a100-sxm4-80gb", "layout": {"dp": 4, "tp": 2, "global_batch": 64},
                                       "options": {"zero": 3, "recompute": "full"}})
    scenario = presets()["llama2-7b"].scenario.model_copy(update={"plan": saved})
    path = tmp_path / "scenario.json"
    path.write_text(scenario_json(scenario))
    code, data, err = cli(capsys, "memory", str(path))
    assert code == 0, err
    assert data["chip"] == "nvidia-a100-sxm4-80gb" and data["chips"] == 8
    assert data["model_states_bytes_per_chip"] == pytest.approx(16 * LLAMA_7B_PARAMS / 2 / 4)  # t = 2, ZeRO-3 over d = 4
    code, data, err = cli(capsys, "plan", str(path), "--tp", "4")  # a flag overrides the saved plan
    assert code == 0, err
    assert data["layout"]["tp"] == 4 and data["layout"]["dp"] == 4 and data["chips"] == 16


def test_help_default_matches_the_engine():
    from engine.cli import plan as plan_command
    from engine.plan.layout import DEFAULT_KERNEL_EFFICIENCY
    assert plan_command.DEFAULT_KERNEL_EFFICIENCY == DEFAULT_KERNEL_EFFICIENCY
