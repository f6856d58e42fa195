"""Llama 4's chunked attention for serving: which layers are chunked (as transformers' ``Llama4TextConfig`` decides
from the same ``config.json``) and the cache they keep (transformers' ``DynamicSlidingWindowLayer`` of the chunk C:
the last C − 1 tokens); the NoPE layers (every 4th) keep every token. The exact cache and FLOP against transformers'
own generation step: ``test_exact_hf.py`` (llama-4-scout-text-chunk)."""
from __future__ import annotations

import pytest

from engine.api import serve_model
from engine.llm.config import read_hf_config
from engine.llm.library import library_model
from engine.serve.cache import sequence_cache
from engine.serve.model_facts import chunked_layers, model_facts

SCOUT = library_model("llama-4-scout-text").config


def _transformers_chunked(config: dict) -> set[int]:
    from transformers import Llama4TextConfig

    hf = Llama4TextConfig(**{k: v for k, v in config.items() if k not in ("architectures", "model_type")})
    return {i for i, kind in enumerate(hf.layer_types) if kind == "chunked_attention"}


@pytest.mark.external_check
@pytest.mark.parametrize("changes", [{}, {"no_rope_layer_interval": 3}, {"no_rope_layers": [1, 0, 0, 1] * 12},
                                     {"layer_types": ["full_attention", "chunked_attention"] * 24},
                                     {"attention_chunk_size": 1024}])
def test_the_chunked_layers_are_transformers(changes):
    config = SCOUT | changes
    chunks = chunked_layers(config, config["num_hidden_layers"])
    assert set(chunks) == _transformers_chunked(config)
    assert set(chunks.values()) == {config["attention_chunk_size"]}


def test_scouts_cache_at_a_long_context():
    """48 layers, 8 KV heads of 128: the 36 chunked layers keep min(T, 8191) tokens, the 12 NoPE layers T."""
    facts = model_facts(read_hf_config(SCOUT), SCOUT)
    per_token = 2 * 8 * 128
    for tokens in (4_000, 100_000):
        cache = sequence_cache(facts, tokens, kv_bytes=2, state_bytes=2)
        assert cache.bytes == 2 * per_token * (36 * min(tokens, 8191) + 12 * tokens)
    assert sum(layer.window == 8192 for layer in facts.layers) == 36


def test_the_api_caps_the_chunked_layers_given_the_config_json():
    """vLLM (its chunked local attention frees the blocks before the chunk): 30,100 tokens, BF16 cache. A
    TransformerConfig alone (what the counts keep) has no chunk: every layer keeps the whole sequence."""
    settings = {"chip": "nvidia-h100-sxm", "chips": 4, "prompt_tokens": 30_000, "output_tokens": 100, "batch": 1,
                "engine": "vllm"}
    per_token = 2 * (2 * 8 * 128)
    assert serve_model(SCOUT, **settings).kv_cache_bytes == per_token * (36 * 8191 + 12 * 30_100)
    assert serve_model(read_hf_config(SCOUT), **settings).kv_cache_bytes == per_token * 48 * 30_100


@pytest.mark.parametrize("source", ["model", "config"])
def test_the_cli_caps_the_chunked_layers(tmp_path, capsys, source):
    """``serve --model`` and ``serve --config FILE`` read the chunks from the config.json (formula as above)."""
    import json

    from engine.cli import main

    path = tmp_path / "config.json"
    path.write_text(json.dumps(SCOUT))
    given = ["--model", "llama-4-scout-text"] if source == "model" else ["--config", str(path)]
    code = main(["serve", *given, "--chip", "nvidia-h100-sxm", "--chips", "4", "--engine", "vllm", "--prompt-tokens",
                 "30000", "--output-tokens", "100", "--batch", "1", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["kv_cache_bytes"] == 2 * (2 * 8 * 128) * (36 * 8191 + 12 * 30_100)
