"""Serving counts against transformers itself (``tests/serve/hf_serving.py``: meta device, ``use_cache=True``):
the KV cache layer by layer, the prefill's FLOP and one decode step's FLOP, for each attention kind.

Windows are set below the prompt (8 < 20) so that the sliding layers' caches are capped and the decode step's
keys with them. Differences that are transformers' and not the model's, each by its formula:
- a class without ``logits_to_keep`` (Whisper's decoder) computes every position's logits: (P − 1)·2·d·V more;
- Llama 4's MoE layers run every expert on every token (``hf_reference.idle_expert_flop``).
"""
from __future__ import annotations

import pytest

from engine.llm.config import read_hf_config
from engine.llm.library import library_model
from engine.serve.cache import sequence_cache
from engine.serve.counts import ModelCounts
from engine.serve.model_facts import model_facts
from tests.llm import hf_reference
from tests.serve.hf_serving import serve_reference

PROMPT = 20
CASES = [  # (library id, config changes, attention kind)
    ("gpt2", {"n_layer": 2}, "multi-head (MHA), learned positions"),
    ("pythia-160m", {"num_hidden_layers": 2}, "multi-head, parallel attention and MLP"),
    ("llama-3.1-8b", {"num_hidden_layers": 2}, "grouped-query (GQA 32/8)"),
    ("santacoder", {"n_layer": 2}, "multi-query (MQA)"),
    ("falcon-7b", {"num_hidden_layers": 2}, "multi-query, parallel"),
    ("mistral-7b", {"num_hidden_layers": 2, "sliding_window": 8}, "sliding window 8 < prompt"),
    ("gemma-2-2b", {"num_hidden_layers": 4, "sliding_window": 8}, "alternating sliding/full"),
    ("gemma-3-1b", {"sliding_window": 8}, "5 sliding : 1 full, QK norms"),
    ("gpt-oss-20b", {"num_hidden_layers": 4, "sliding_window": 8,
                     "layer_types": ["sliding_attention", "full_attention"] * 2}, "sliding + sinks, MoE"),
    ("deepseek-v2-lite", {"num_hidden_layers": 3}, "MLA latent (q direct)"),
    ("deepseek-v3", {"num_hidden_layers": 4}, "MLA latent (q low-rank), MoE"),
    ("deepseek-v3.2", {"num_hidden_layers": 4}, "MLA + lightning indexer keys"),
    ("gemma-4-e2b-text", {"sliding_window": 8}, "KV shared across layers (Gemma 4)"),
    ("mamba-130m", {"num_hidden_layers": 2}, "Mamba state"),
    ("mamba2-2.7b", {"num_hidden_layers": 2}, "Mamba-2 state"),
    ("jamba-1.5-mini", {}, "hybrid Mamba + attention"),
    ("falcon-h1-0.5b-instruct", {"num_hidden_layers": 2}, "attention beside Mamba-2 (one layer)"),
    ("zamba2-2.7b", {}, "Mamba-2 + shared attention block"),
    ("nemotron-h-8b", {}, "Mamba-2 / attention / MLP layers"),
    ("qwen3-next-80b-a3b-instruct", {"num_hidden_layers": 4}, "Gated DeltaNet + gated attention"),
    ("kimi-linear-48b-a3b-instruct", {}, "Kimi Delta Attention + MLA"),
    ("lfm2-350m", {}, "short convolutions + attention"),
    ("minimax-text-01", {"num_hidden_layers": 8}, "lightning attention state + attention"),
    ("llama-4-scout-text", {"num_hidden_layers": 4}, "chunked layers (within the chunk), MoE"),
    ("llama-4-scout-text", {"num_hidden_layers": 4, "attention_chunk_size": 8},
     "chunked layers capped: a window of the chunk (8 < prompt)"),
    ("whisper-base-decoder", {}, "decoder without logits_to_keep"),
    ("t5-small", {"num_layers": 2, "num_decoder_layers": 2}, "encoder-decoder: self + cross"),
    ("bart-large-cnn", {"encoder_layers": 2, "decoder_layers": 2, "num_hidden_layers": 2},
     "encoder-decoder, learned positions"),
]


def _config(model_id: str, changes: dict) -> dict:
    config = dict(library_model(model_id).config) | changes
    types = config.get("layer_types")
    layers = config.get("num_hidden_layers")
    if isinstance(types, list) and layers and len(types) > layers:
        config["layer_types"] = types[:layers]
    return config


IDS = [c[0] + ("-chunk" if "attention_chunk_size" in c[1] else "") for c in CASES]


@pytest.mark.parametrize("model_id,changes,kind", CASES, ids=IDS)
def test_cache_prefill_and_decode_equal_transformers(model_id, changes, kind):
    config = _config(model_id, changes)
    facts = model_facts(read_hf_config(config), config)
    counts = ModelCounts(facts, memory=PROMPT)
    ref = serve_reference(config, PROMPT)
    encdec = facts.encoder_decoder
    tokens, context = (2, 1) if encdec else (PROMPT + 1, PROMPT)
    cache = sequence_cache(facts, tokens, kv_bytes=1, state_bytes=1, memory=PROMPT if encdec else 0)
    assert tuple(int(layer.kv_elements + layer.state_elements) for layer in cache.layers) == ref.cache_elements
    head = 0 if ref.logits_to_keep or encdec else (PROMPT - 1) * 2 * facts.d_model * facts.vocab_size
    idle = hf_reference.idle_expert_flop(config, PROMPT)
    assert counts.prefill_flop(PROMPT) + head + idle == ref.prefill_flop
    assert counts.decode_flop(context) + hf_reference.idle_expert_flop(config, 1) == ref.decode_flop
