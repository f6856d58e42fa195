"""``python -m engine serve``: the contract of issue 39 (flags, JSON keys), bad input in one line with status 2."""
from __future__ import annotations

import json

import pytest

from engine.cli import main

CONTRACT = ("kv_cache_bytes_per_token", "kv_cache_bytes", "prefill_flop", "decode_flop_per_token", "ttft_s", "tpot_s",
            "output_tokens_per_s", "batch", "sequences_in_memory")


def run(capsys, *argv):
    code = main(["serve", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return code, out, err


def test_contract_keys_from_a_config_file(tmp_path, capsys):
    from engine.llm.library import library_model

    path = tmp_path / "config.json"
    path.write_text(json.dumps(library_model("qwen3-0.6b").config))
    code, out, _ = run(capsys, "--config", str(path), "--chip", "nvidia-h100-sxm", "--prompt-tokens", "512",
                       "--output-tokens", "128", "--batch", "8", "--chips", "1", "--precision", "bf16",
                       "--kv-precision", "bf16")
    data = json.loads(out)
    assert code == 0 and all(key in data for key in CONTRACT)
    # Qwen3 0.6B: 28 layers, 8 KV heads of 128: 2·8·128·28 elements per token, 2 bytes
    assert data["kv_cache_bytes_per_token"] == 2 * 8 * 128 * 28 * 2
    assert data["kv_cache_bytes"] == 640 * data["kv_cache_bytes_per_token"]
    assert data["batch"] == 8


def test_model_flag_weights_and_chips(capsys):
    code, out, _ = run(capsys, "--model", "llama-3.1-70b", "--chip", "h100-sxm", "--chips", "4", "--prompt-tokens",
                       "1000", "--output-tokens", "0", "--precision", "fp8", "--weights", "int4")
    data = json.loads(out)
    assert code == 0 and data["output_tokens_per_s"] == 0 and data["batch"] == 1 and data["chips"] == 4
    assert data["model_id"] == "llama-3.1-70b" and data["weights"] == "int4"


def test_without_batch_the_best_within_memory(capsys):
    _, out, _ = run(capsys, "--model", "llama-3.1-8b", "--chip", "h100-sxm", "--prompt-tokens", "1000",
                    "--output-tokens", "200")
    data = json.loads(out)
    best = max(data["batch_sweep"], key=lambda r: r["output_tokens_per_s"])
    assert data["batch"] == best["batch"] <= data["sequences_in_memory"]


@pytest.mark.parametrize("argv,field", [
    (("--batch", "1000000000"), "batch"),
    (("--prompt-tokens", "200000"), "prompt_tokens"),
    (("--chip", "nvidia-a100-sxm4-80gb", "--kv-precision", "fp8"), "kv_precision"),
    (("--batch", "1e9"), "batch"),
    (("--chips", "0"), "chips"),
    (("--prompt-tokens", "nan"), "prompt_tokens"),
    (("--chips", "3"), "chips"),   # Llama 3.1 8B's 32 query heads split over 3 (vLLM, TensorRT-LLM: H % tp == 0)
    (("--chips", "64"), "chips"),  # more chips than heads
    (("--compute-efficiency", "1e-308"), "compute_efficiency"),  # a time per token of 10³⁰⁶ ms was printed
    (("--memory-efficiency", "0.0009"), "memory_efficiency"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, field):
    base = {"--model": "llama-3.1-8b", "--chip": "nvidia-h100-sxm", "--prompt-tokens": "100", "--output-tokens": "100"}
    args = dict(base)
    args.update(dict(zip(argv[::2], argv[1::2])))
    code, out, err = run(capsys, *[x for kv in args.items() for x in kv])
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith(f"error: {field}:")


def test_tokens_served_shows_the_lifetime_in_the_text_view_too(capsys):
    """``--tokens-served`` (docs/serving.md): the JSON's lifetime, and in the text view the same sum — serving =
    tokens served × FLOP per output token, its share of training + serving, and the break-even tokens."""
    argv = ("--model", "qwen3-30b-a3b", "--chip", "h100-sxm", "--prompt-tokens", "1000", "--output-tokens", "200",
            "--tokens-served", "1e13")
    code, out, _ = run(capsys, *argv)
    life = json.loads(out)["lifetime"]
    assert life["inference_flop"] == 1e13 * life["inference_flop_per_token"]
    assert life["total_flop"] == life["training_flop"] + life["inference_flop"]
    assert code == 0 and main(["serve", *argv, "--format", "text"]) == 0
    text = capsys.readouterr().out
    share = life["inference_flop"] / life["total_flop"]
    assert f"+ serving 1e13 tokens {life['inference_flop']:.3g} FLOP ({100 * share:.1f}% serving)".replace(
        "e+", "e") in text, text
    even = life["training_flop"] / life["inference_flop_per_token"]
    assert f"serving = training at    {even:.3g} tokens served".replace("e+", "e") in text


def test_an_encoders_prefill_alone_shows_no_decode_step(capsys):
    """docs/serving.md: an encoder (BERT) serves its prefill only — the text view and the page's phase table name
    no decode step (they showed a decode FLOP per token and a bound for a phase that does not run)."""
    from ui.views.serve import phase_rows

    argv = ["serve", "--model", "bert-base-uncased", "--chip", "h200-sxm", "--prompt-tokens", "500",
            "--output-tokens", "0", "--format", "text"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "prefill FLOP" in text and "decode" not in text
    from engine.api import serve_model
    from engine.llm.library import library_model

    est = serve_model(library_model("bert-base-uncased").config, chip="h200-sxm", prompt_tokens=500, output_tokens=0)
    assert [row["phase"] for row in phase_rows(est)] == ["prefill (the batch's prompts)"]
