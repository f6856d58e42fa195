"""Published language models as preset scenarios: their config, written in Hugging Face keys."""
from __future__ import annotations

from .config import read_hf_config

GPT3_175B_CONFIG = {"model_type": "gpt2", "n_layer": 96, "n_embd": 12288, "n_head": 96, "n_positions": 2048,
                    "vocab_size": 50257}
"""Brown et al. 2020, Table 2.1 (96 layers, d_model 12,288, 96 heads of 128, n_ctx 2,048), GPT-2's BPE
vocabulary and layout, in GPT-2's config keys (GPT-3 has no published config.json)."""

LLAMA2_7B_CONFIG = {"model_type": "llama", "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 11008,
                    "max_position_embeddings": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
                    "num_key_value_heads": 32, "rms_norm_eps": 1e-05, "tie_word_embeddings": False,
                    "vocab_size": 32000}
"""meta-llama/Llama-2-7b-hf ``config.json`` (its size keys)."""


def transformer_scenario(config: dict, name: str, tokens: float, seq_len: int | None = None) -> dict:
    """A preset's scenario from a Hugging Face config trained on ``tokens`` in sequences of ``seq_len``."""
    return read_hf_config(config).scenario_data(tokens, seq_len, name)
