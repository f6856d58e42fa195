"""``python -m engine transformer``: JSON out, or exit 2 with one line naming the key."""
from __future__ import annotations

import json

import pytest

from engine.cli.transformer import parse_count
from engine.errors import InputError
from tests.cli import write
from tests.cli.test_flops import run

GPT2 = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024,
        "vocab_size": 50257, "n_inner": None, "activation_function": "gelu_new", "resid_pdrop": 0.1}


def test_gpt2_small_on_9b_tokens(tmp_path):
    out = run("transformer", "--config", write(tmp_path, GPT2, "config.json"), "--tokens", "9B")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["params"] == 124_439_808  # HF gpt2
    assert data["non_embedding_params"] == 124_439_808 - 50257 * 768 - 1024 * 768
    assert data["seq_len"] == 1024  # the config's n_positions
    # 3 × (2·12·12·768² + 2·768·50,257 + 4·12·1,024·768) per token × 9e9 tokens
    per_token = 2 * 12 * 12 * 768 ** 2 + 2 * 768 * 50257 + 4 * 12 * 1024 * 768
    assert data["training_flop"] == pytest.approx(3 * per_token * 9e9, rel=1e-12)
    assert set(data["formulas"]) == {"kaplan_6nd", "total_params_6nd", "kaplan_6n_attention", "palm_6n_12lhqt",
                                     "megatron_72bslh2"}
    assert data["formulas"]["kaplan_6nd"] == pytest.approx(6 * data["non_embedding_params"] * 9e9)
    assert "layers" not in data
    assert data["forward_flop_by_part"]["attention scores QKᵀ"] == 12 * 2 * 12 * 1024 * 1024 * 64


def test_seq_len_layers_and_options(tmp_path):
    path = write(tmp_path, GPT2, "config.json")
    out = run("transformer", "--config", path, "--tokens", "1e9", "--seq-len", "512", "--layers",
              "--convention", "full", "--causal-count", "half")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["seq_len"] == 512 and data["sequences"] == 1e9 / 512
    assert data["convention"] == "full" and data["causal_count"] == "half"
    assert {row["part"] for row in data["layers"] if row["type"] == "transformer_block"} >= {
        "attention q projection", "feed-forward down"}


@pytest.mark.parametrize("config,args,needle", [
    ("{not json", (), "config: not valid JSON"),
    ({k: v for k, v in GPT2.items() if k != "n_head"}, (), "config.n_head: missing"),
    (GPT2 | {"n_head": 7}, (), "config.n_head: 7 heads do not divide"),
    (GPT2 | {"n_embd": -1}, (), "config.n_embd"),
    (json.dumps(GPT2).replace('"n_layer": 12', '"n_layer": NaN'), (), "config.n_layer: must be a finite"),
    (GPT2 | {"model_type": "t5"}, (), "config.model_type"),
    (GPT2, ("--tokens", "lots"), "tokens: 'lots' is not a count"),
    (GPT2, ("--tokens", "0"), "tokens"),
    (GPT2, ("--tokens", "1e999"), "tokens"),
    (GPT2, ("--tokens", "1e9", "--seq-len", "2048"), "seq_len: 2048 is longer than the model's 1024"),
    (GPT2, ("--tokens", "1e9", "--seq-len", "-3"), "seq_len"),
    (GPT2, ("--tokens", "1e9", "--seq-len", "x"), "arguments"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, config, args, needle):
    args = args or ("--tokens", "1e9")
    out = run("transformer", "--config", write(tmp_path, config, "config.json"), *args)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in out.stderr


def test_missing_config_file_and_missing_tokens(tmp_path):
    out = run("transformer", "--config", str(tmp_path / "nope.json"), "--tokens", "1e9")
    assert out.returncode == 2 and "config: " in out.stderr and "does not exist" in out.stderr
    assert run("transformer", "--config", write(tmp_path, GPT2)).returncode == 2


@pytest.mark.parametrize("text,value", [("300e9", 300e9), ("300B", 300e9), ("1.4T", 1.4e12), ("15.6t", 15.6e12),
                                        ("2,000,000", 2e6), ("5k", 5e3), ("7 M", 7e6), ("1e3G", 1e12)])
def test_parse_count(text, value):
    assert parse_count(text, "tokens") == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "B", "1.2.3", "-5", "1e9X", "nan", "inf"])
def test_parse_count_refuses(text):
    with pytest.raises(InputError, match="^tokens: "):
        parse_count(text, "tokens")
