"""``python -m engine transformer``: JSON out, or exit 2 with one line naming the key."""
from __future__ import annotations

import json
import re

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
    ("{not json", (), "config.json': not valid JSON"),
    ({k: v for k, v in GPT2.items() if k != "n_head"}, (), "config.n_head: missing"),
    (GPT2 | {"n_head": 7}, (), "config.n_head: 7 heads do not divide"),
    (GPT2 | {"n_embd": -1}, (), "config.n_embd"),
    (json.dumps(GPT2).replace('"n_layer": 12', '"n_layer": NaN'), (), "config.n_layer: must be a finite"),
    (GPT2 | {"model_type": "xlnet"}, (), "config.model_type"),
    (GPT2, ("--tokens", "lots"), "tokens: 'lots' is not a count"),
    (GPT2, ("--tokens", "0"), "tokens"),
    (GPT2, ("--tokens", "1e-320"), "tokens: must be at least 1"),  # it blamed 'examples', a field nobody gave
    (GPT2, ("--tokens", "0.5"), "tokens: must be at least 1"),
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
    missing = run("transformer", "--config", write(tmp_path, GPT2))
    assert missing.returncode == 2  # a user's file is no library model: no "published token count" to miss
    assert missing.stderr.strip() == "error: tokens: give --tokens, the training tokens D (300e9, 300B, 1.4T)"


@pytest.mark.parametrize("text,value", [("300e9", 300e9), ("300B", 300e9), ("1.4T", 1.4e12), ("15.6t", 15.6e12),
                                        ("2,000,000", 2e6), ("5k", 5e3), ("7 M", 7e6), ("1e3G", 1e12)])
def test_parse_count(text, value):
    assert parse_count(text, "tokens") == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "B", "1.2.3", "-5", "1e9X", "nan", "inf"])
def test_parse_count_refuses(text):
    with pytest.raises(InputError, match="^tokens: "):
        parse_count(text, "tokens")


def test_library_model_with_its_published_tokens():
    """Llama 3.1 405B from the library: 15.6T tokens (Dubey et al. 2024) by default, sources in the output."""
    out = run("transformer", "--model", "llama-3.1-405b", "--seq-len", "8192")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["model"] == "llama-3.1-405b" and data["tokens"] == 15.6e12
    assert data["params"] == 405_853_388_800  # transformers' LlamaForCausalLM from this config (meta device)
    assert "2407.21783" in data["training_tokens_source"]
    assert data["config_source"] == "https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json"
    # --tokens overrides the published count, and the token source is then not claimed
    data = json.loads(run("transformer", "--model", "llama-3.1-405b", "--seq-len", "8192", "--tokens", "1T").stdout)
    assert data["tokens"] == 1e12 and data["training_tokens_source"] is None


def test_list_models():
    data = json.loads(run("transformer", "--list-models").stdout)
    ids = [m["id"] for m in data["models"]]
    assert len(ids) >= 40 and len(set(ids)) == len(ids) and "deepseek-v3" in ids


def test_encoder_decoder_lengths(tmp_path):
    """T5-small, 512 encoder and 128 decoder tokens: each decoder block's cross-attention reads 512 positions."""
    base = ("transformer", "--model", "t5-small", "--tokens", "1e9", "--seq-len", "512")
    same = json.loads(run(*base).stdout)
    apart = json.loads(run(*base, "--decoder-seq-len", "128").stdout)
    assert (same["decoder_seq_len"], apart["decoder_seq_len"]) == (512, 128)
    d, h, q, layers = 512, 8, 64, 6
    # cross-attention scores and values: 2 × 2·H·L_dec·M·Q per decoder layer, M = 512 either way
    assert apart["forward_flop_by_part"]["cross-attention scores QKᵀ"] == layers * 2 * h * 128 * 512 * q
    assert same["forward_flop_by_part"]["cross-attention scores QKᵀ"] == layers * 2 * h * 512 * 512 * q
    # cross-attention k/v projections run over the encoder's 512 positions in both
    assert apart["forward_flop_by_part"]["cross-attention k/v projections"] == \
        same["forward_flop_by_part"]["cross-attention k/v projections"] == layers * 2 * 512 * d * 2 * h * q
    out = run("transformer", "--model", "gpt2", "--tokens", "1e9", "--decoder-seq-len", "64")
    assert out.returncode == 2 and out.stderr.strip() == \
        "error: decoder_seq_len: only an encoder-decoder model has a separate decoder length"


def test_key_read_by_transformers_refused_unless_lenient_and_inert_keys_listed(tmp_path):
    """embedding_size is read by transformers' BERT (config_keys.json) and not by the reader: refused, or left
    out when lenient; n_experts_magic is read by nothing: inert, listed."""
    from engine.llm.library import library_model

    bert = {k: v for k, v in library_model("bert-base-uncased").config.items() if k != "position_embedding_type"}
    path = write(tmp_path, bert | {"n_experts_magic": 8, "embedding_size": 128}, "config.json")
    out = run("transformer", "--config", path, "--tokens", "1e9")
    assert out.returncode == 2 and out.stderr.startswith("error: config.embedding_size: transformers' ")
    out = run("transformer", "--config", path, "--tokens", "1e9", "--lenient")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["ignored_keys"] == ["embedding_size"]
    assert data["unused_keys"] == ["n_experts_magic"]
    assert data["params"] == 109_514_298  # BertForMaskedLM built by transformers on the meta device
    text = run("transformer", "--config", path, "--tokens", "1e9", "--lenient", "--format", "text").stdout
    assert re.search(r"^left out +embedding_size \(read by transformers", text, re.M)
    assert re.search(r"^not used +n_experts_magic \(nothing transformers builds reads them\)", text, re.M)


@pytest.mark.parametrize("args,needle", [
    (("--model", "gpt2", "--config", "x.json", "--tokens", "1"), "arguments: give exactly one of"),
    (("--tokens", "1"), "arguments: give exactly one of"),
    (("--model", "no-such-model", "--tokens", "1"), "model: 'no-such-model' is not in the model library"),
    (("--model", "gpt2"), "tokens: give --tokens"),
    (("--model", "t5-small", "--tokens", "1e9", "--decoder-seq-len", "0"), "decoder_seq_len"),
])
def test_model_option_errors(args, needle):
    out = run("transformer", *args)
    assert out.returncode == 2 and out.stdout == "" and needle in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_config_given_as_a_scenario_points_to_the_transformer_command(tmp_path):
    out = run("flops", write(tmp_path, GPT2, "config.json"))
    assert out.returncode == 2 and out.stdout == ""
    assert "this is a Hugging Face config.json, not a FLOPscope scenario" in out.stderr
    assert "transformer --config FILE" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_remote_code_model_type_on_a_supported_class_is_read_with_a_note():
    """Kimi-K2's config.json: model_type kimi_k2 (transformers does not define it) on DeepseekV3ForCausalLM."""
    from tests.conftest import ROOT

    path = str(ROOT / "tests" / "llm" / "hub_configs" / "moonshotai--Kimi-K2-Instruct.json")
    out = run("transformer", "--config", path, "--tokens", "15.5e12", "--seq-len", "4096")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["model_type"] == "deepseek_v3"
    assert data["notes"] == ["model_type 'kimi_k2' is not a family of its own here; read as deepseek_v3 because "
                             "architectures names DeepseekV3ForCausalLM"]
    assert data["unused_keys"] == ["moe_layer_freq"] and data["ignored_keys"] == []
    text = run("transformer", "--config", path, "--tokens", "15.5e12", "--seq-len", "4096", "--format", "text").stdout
    assert re.search(r"^read as +model_type 'kimi_k2' is not a family of its own here", text, re.M)


def test_gpt2_lora_on_the_fused_c_attn(tmp_path):
    """PEFT's only LoRA target for GPT-2 is c_attn, the fused q/k/v projection (768 → 2,304): one adapter of rank r
    per block, r·(768 + 2,304) parameters (tests/llm/test_backward_hf.py: equal to peft's own count)."""
    out = run("transformer", "--config", write(tmp_path, GPT2, "config.json"), "--tokens", "1B", "--lora-rank", "8",
              "--lora-targets", "qkv")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["trainable_params"] == 12 * 8 * (768 + 3 * 768) == 294_912
    assert data["fine_tune"]["targets"] == ["qkv"]
    both = run("transformer", "--config", write(tmp_path, GPT2, "config.json"), "--tokens", "1B", "--lora-rank", "8",
               "--lora-targets", "qkv,q")
    assert both.returncode == 2 and both.stderr.count("\n") == 1 and "qkv is one adapter" in both.stderr


def test_bert_last_block_trains_the_masked_lm_bias():
    """bert-base-uncased, the last block trained: the block (4·(768² + 768) + 2·768·3,072 + 3,072 + 768 + 4·768 =
    7,087,872), the MLM transform (768² + 768 + 2·768 = 592,128) and the decoder's own bias (V = 30,522); the decoder
    weight is the frozen token table."""
    out = run("transformer", "--model", "bert-base-uncased", "--tokens", "1B", "--seq-len", "128",
              "--trainable-last", "1")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["trainable_params"] == 7_087_872 + 592_128 + 30_522
