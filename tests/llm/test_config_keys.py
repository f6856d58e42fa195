"""``engine/llm/config_keys.json`` — the config keys each family's transformers modelling code reads — is
current: written from the installed transformers (same version), by ``tools/derive_config_keys.py`` as it
is now, for every supported family. Regenerate with ``python -m tools.derive_config_keys``."""
from __future__ import annotations

import json

import pytest

from engine.llm.families import FAMILIES, KEYS_FILE

transformers = pytest.importorskip("transformers")

STORED = json.loads(KEYS_FILE.read_text())
REGENERATE = "regenerate with: python -m tools.derive_config_keys"


def test_recorded_for_the_installed_transformers():
    assert STORED["transformers"] == transformers.__version__, \
        f"config_keys.json comes from transformers {STORED['transformers']}, {transformers.__version__} is installed; {REGENERATE}"


def test_every_supported_family_has_its_keys():
    assert sorted(STORED["families"]) == sorted(FAMILIES), REGENERATE


def test_output_is_not_stale():
    from tools.derive_config_keys import derive

    assert derive(FAMILIES) == STORED, REGENERATE


def test_derivation_finds_the_reads_it_is_meant_to():
    """Known reads, checked against the source by hand: LlamaMLP reads ``mlp_bias``; GPT-2's ``n_embd`` is
    ``hidden_size`` through ``attribute_map``; Llama's ``head_dim`` is computed from hidden_size and the heads;
    GPT-J files' ``rotary`` and Qwen2's ``use_mrope`` (Qwen2-VL's) are read by nothing."""
    families = STORED["families"]
    assert "LlamaMLP" in families["llama"]["mlp_bias"]
    assert "n_embd" in families["gpt2"] and "n_inner" in families["gpt2"]
    assert {"head_dim", "hidden_size", "num_attention_heads", "num_key_value_heads"} <= set(families["llama"])
    assert "rotary" not in families["gptj"] and "use_mrope" not in families["qwen2"]
    assert "n_inner" not in families["bloom"] and "sliding_window_size" not in families["gemma2"]
    # file keys a config's __post_init__ takes from kwargs: BLOOM's n_embed (hidden_size), Gemma 3's
    # sliding_window_pattern (layer_types)
    assert "n_embed" in families["bloom"] and "sliding_window_pattern" in families["gemma3_text"]
