"""``python -m engine plan … --trace FILE``: the planned step beside a real trace's measured one (TraceLens's H100
trace of Qwen1.5-0.5B-Chat; its measured parts equal TraceLens's own ``gpu_timeline.csv``), the plan re-run with
the trace's efficiencies, and one line (exit 2) for what cannot be compared."""
from __future__ import annotations

import csv
import json

import pytest

from engine.cli import main

QWEN15_05B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 2816,
    "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 16,
    "num_hidden_layers": 24, "num_key_value_heads": 16, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.37.0",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
"""Qwen/Qwen1.5-0.5B-Chat's config.json as the Hub holds it (the trace's products confirm 1024 × 2816, 24 layers)."""
LAYOUT = ["--dp", "1", "--tp", "1", "--pp", "1", "--micro-batch", "16", "--global-batch", "16", "--seq-len", "559"]
"""One H100, the trace's 16 sequences of 559 tokens (its products are 8,944 rows)."""


@pytest.fixture(scope="module")
def qwen_trace(shared_dir):
    path = shared_dir / "data" / "traces" / "tracelens" / "h100" / "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
    if not path.is_file():
        pytest.skip("../shared/data/traces is not here")
    return path


@pytest.fixture(scope="module")
def timeline(qwen_trace):
    path = qwen_trace.parent / "Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs" / "gpu_timeline.csv"
    with open(path, newline="") as f:
        return {row["type"]: float(row["time ms"]) / 1e3 for row in csv.DictReader(f)}


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(QWEN15_05B))
    return path


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_plan_beside_a_real_trace(capsys, config, qwen_trace, timeline):
    code, data, err = cli(capsys, "plan", "--config", config, *LAYOUT, "--trace", qwen_trace, "--format", "json")
    assert code == 0, err
    t = data["trace"]
    parts = {p["part"]: p for p in t["parts"]}
    # measured: TraceLens's own report of the same step
    assert t["measured_step_s"] == pytest.approx(timeline["total_time"], rel=1e-6)
    assert parts["computation"]["measured_s"] == pytest.approx(timeline["computation_time"], rel=1e-6)
    assert parts["exposed communication"]["measured_s"] == pytest.approx(timeline["exposed_comm_time"], abs=1e-12)
    assert parts["exposed memory copies"]["measured_s"] == pytest.approx(timeline["exposed_memcpy_time"], rel=1e-6)
    assert parts["pipeline bubble + idle"]["measured_s"] == pytest.approx(timeline["idle_time"], rel=1e-6)
    # planned: the plan printed beside it; the chip was taken from the trace
    assert data["chip"] == "nvidia-h100-sxm" and t["chip"] == "nvidia-h100-sxm"
    assert t["planned_step_s"] == pytest.approx(data["step_s"])
    assert parts["step"]["gap_s"] == pytest.approx(t["measured_step_s"] - t["planned_step_s"])
    # a forward-only trace against a training plan: said (the trace executes about a third of the plan's FLOP)
    assert 0.2 <= t["flop_ratio"] <= 0.4
    assert any("forward-only" in a for a in t["assumed"])
    # plan with this run's efficiency: products fitted, memory-bound work at the measured share
    cal = t["calibration"]
    assert cal["fitted_shapes"] >= 1 and 0 < cal["gemm_efficiency"] <= 1
    assert 0 < cal["memory_bandwidth_fraction"] <= 1
    assert t["calibrated"]["step_s"] > 0 and t["calibrated"]["step_s"] != t["planned_step_s"]


def test_plan_trace_as_text(capsys, config, qwen_trace):
    code = main([str(a) for a in ("plan", "--config", config, *LAYOUT, "--trace", qwen_trace, "--format", "text")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "planned vs measured" in out and "with this run's efficiency" in out and "gap:" in out


def test_a_trace_of_another_chip_is_one_line(capsys, config, qwen_trace):
    code, _, err = cli(capsys, "plan", "--config", config, *LAYOUT, "--chip", "a100", "--trace", qwen_trace)
    assert code == 2 and err.count("\n") == 1
    assert "H100" in err and "--chip nvidia-h100-sxm" in err


@pytest.mark.parametrize("extra, field", [(["--sweep", "8"], "trace"), ([], "trace")])
def test_what_cannot_be_compared_is_one_line(capsys, config, tmp_path, qwen_trace, extra, field):
    trace = qwen_trace if extra else tmp_path  # a folder of ranks: one file is needed
    code, _, err = cli(capsys, "plan", "--config", config, *LAYOUT, "--trace", trace, *extra)
    assert code == 2 and err.count("\n") == 1 and f"{field}:" in err


def test_a_broken_trace_is_one_line(capsys, config, tmp_path):
    bad = tmp_path / "rank0.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel"')
    code, _, err = cli(capsys, "plan", "--config", config, *LAYOUT, "--trace", bad)
    assert code == 2 and err.count("\n") == 1 and "rank0.json" in err
