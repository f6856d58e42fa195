"""Fine-tuning from the CLI: ``flops`` with frozen layers and LoRA in the scenario, ``transformer`` with
``--trainable-last N`` and ``--lora-rank R [--lora-targets …]``: JSON figures, and one line for bad input."""
from __future__ import annotations

import json

import pytest

from tests.cli import write
from tests.cli.test_flops import run
from tests.cli.test_transformer import GPT2

D, L, V, BLOCKS = 768, 1024, 50257, 12


def test_flops_json_has_backward_per_layer_and_effective_passes(tmp_path):
    # 100 → 50 (frozen) → 10 (LoRA r = 2), 1,000 examples, Adam on batches of 10
    scenario = {"input": {"shape": [100]}, "layers": [
        {"type": "dense", "units": 50, "trainable": False}, {"type": "activation"},
        {"type": "dense", "units": 10, "lora": {"rank": 2}}],
        "training": {"examples": 1000, "batch_size": 10, "optimizer": "adam"}}
    out = run("flops", write(tmp_path, scenario, "s.json"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    forward = 2 * 100 * 50 + 2 * 50 * 10 + 2 * 2 * (50 + 10)
    # frozen first layer: nothing; LoRA: A and B weight gradients, B's input, A's and W's inputs (the first
    # layer's output needs none: it is frozen and reads the data)
    backward = 2 * (2 * (50 + 10) + 2 * 10)
    assert data["forward_flop"] == forward and data["backward_flop"] == backward
    assert [row["backward_flop"] for row in data["layers"]] == [0, 0, backward]
    assert data["trainable_params"] == 2 * (50 + 10)
    assert data["training"]["backward"] == "exact" and "frozen" in data["training"]["note"]
    assert data["training"]["passes"] == pytest.approx((forward + backward) / forward)
    optimizer = 18 * 2 * (50 + 10) * 100  # trainable parameters only, 100 steps
    assert data["training_flop"] == pytest.approx((forward + backward) * 1000 + optimizer)


def test_flops_exact_on_request_and_ratio_by_default(tmp_path):
    scenario = {"input": {"shape": [100]}, "layers": [{"type": "dense", "units": 10}],
                "training": {"examples": 5}}
    data = json.loads(run("flops", write(tmp_path, scenario, "r.json")).stdout)
    assert data["training"]["backward"] == "ratio" and data["training"]["passes"] == 3
    scenario["training"]["backward"] = "exact"
    data = json.loads(run("flops", write(tmp_path, scenario, "e.json")).stdout)
    # the first layer reads the data: its weight gradient only, r = 1
    assert data["training"]["passes"] == 2 and data["backward_flop"] == 2 * 100 * 10


def test_transformer_last_blocks_and_lora(tmp_path):
    path = write(tmp_path, GPT2, "config.json")
    last = json.loads(run("transformer", "--config", path, "--tokens", "1e9", "--trainable-last", "2").stdout)
    block = 2 * L * (12 * D * D) + 2 * 2 * 12 * L * L * 64  # projections 12·d² per position; QKᵀ and AV
    assert last["trainable_params"] == 2 * (12 * D * D + 13 * D) + 2 * D  # 2 blocks + the final norm
    assert last["backward"] == "exact" and last["fine_tune"] == {"mode": "last", "blocks": 2}
    # the 2 trained blocks: weight and input gradients of every projection, both operands of QKᵀ and AV (the
    # first one's input needs no gradient, but its pre-norm's γ trains, so what the projections read needs
    # one); the frozen tied head: its input gradient 2·L·d·V; nothing before the blocks
    assert last["backward_flop_per_sequence"] == 2 * 2 * block + 2 * L * D * V
    lora = json.loads(run("transformer", "--config", path, "--tokens", "1e9", "--lora-rank", "8",
                          "--lora-targets", "q,v").stdout)
    assert lora["trainable_params"] == BLOCKS * 2 * 8 * (D + D)
    assert lora["passes"] == pytest.approx(1 + lora["backward_flop_per_sequence"] / lora["forward_flop_per_sequence"])


@pytest.mark.parametrize("args,message", [
    (["--trainable-last", "2", "--lora-rank", "8"], "choose one"),
    (["--lora-targets", "q"], "--lora-rank"),
    (["--lora-rank", "8", "--lora-targets", "q,x"], "lora_targets"),
    (["--lora-rank", "0"], "lora_rank"),
    (["--trainable-last", "-1"], "trainable_last"),
])
def test_transformer_fine_tune_errors_are_one_line(tmp_path, args, message):
    out = run("transformer", "--config", write(tmp_path, GPT2, "config.json"), "--tokens", "1e9", *args)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_text_views_say_the_backward_and_what_trains(tmp_path):
    scenario = {"input": {"shape": [100]}, "layers": [{"type": "dense", "units": 50, "trainable": False},
                                                      {"type": "dense", "units": 10}],
                "training": {"examples": 1000}}
    out = run("flops", write(tmp_path, scenario, "s.json"), "--format", "text")
    assert out.returncode == 0, out.stderr
    # backward: the second layer's weight gradient only, 2·50·10; forward 2·(100·50 + 50·10) = 11,000
    assert "backward / example  1,000 FLOP (r = 0.0909)" in out.stdout
    assert "trainable           510 parameters (the rest frozen)" in out.stdout
    assert "C = (F + B) × examples × epochs" in out.stdout and "frozen or adapted" in out.stdout
    text = run("transformer", "--config", write(tmp_path, GPT2, "config.json"), "--tokens", "1e9",
               "--trainable-last", "2", "--format", "text")
    assert "last: 14,177,280 trainable parameters" in text.stdout  # 2·(12·768² + 13·768) + 2·768
