"""Falcon's lineage: Falcon's layouts (multi-query, the new decoder architecture's parallel blocks, ALiBi).
"""
from __future__ import annotations

from .keys import Keys
from .registry import lm_classes, register


@register("falcon", lm_classes("Falcon"), class_aliases={"RWForCausalLM": "FalconForCausalLM"})
def _falcon(c: Keys) -> dict:
    """falcon: fused q/k/v, parallel attention and MLP (one input norm, or ln_attn and ln_mlp with
    ``new_decoder_architecture``); multi-query (7B) or ``num_kv_heads`` groups (40B, 180B); ``bias``
    on every linear; an MLP of ``ffn_hidden_size`` (default 4·d); ALiBi or rotary, neither with parameters."""
    new = c.flag("new_decoder_architecture", False)
    multi_query = c.flag("multi_query", True)
    parallel = c.flag("parallel_attn", True)
    bias = c.flag("bias", False)
    c.neutral("alibi", "apply_residual_connection_post_layernorm")
    heads = c.size("block.heads", "num_attention_heads", "n_head")
    kv = c.size("block.kv_heads", "num_kv_heads", "n_head_kv", required=False)
    # the fused q/k/v: num_kv_heads groups (new), one key/value head (multi-query) or H (otherwise: 3·d wide)
    if not new and not multi_query and kv not in (None, heads):
        raise c.error("num_kv_heads", "grouped key/value heads need new_decoder_architecture (transformers' "
                                      "older Falcon layout has H or, with multi_query, 1)")
    kv = (kv or heads) if new else 1 if multi_query else heads
    ln_count = c.size(None, "num_ln_in_parallel_attn", required=False, default=2 if new else 1)
    d = c.size("d_model", "hidden_size")
    fields = {"layers": c.size("layers", "num_hidden_layers", "n_layer"), "d_model": d,
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": heads, "kv_heads": kv, "ff_size": c.size("block.ff_size", "ffn_hidden_size",
                                                                          required=False, default=4 * d),
                        "activation": c.activation("activation", default="gelu"), "qkv_bias": bias,
                        "out_bias": bias, "ff_bias": bias, "parallel": parallel,
                        "shared_norm": parallel and ln_count != 2}}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}
