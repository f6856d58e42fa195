"""Phi's lineage: Phi (parallel attention and MLP, partial rotary), Phi-3 (fused projections, the Llama block) and
Phi-3.5-MoE (two experts per token).
"""
from __future__ import annotations

from .keys import Keys
from .parts import (
    decoder_fields,
    llama_block,
    read_experts,
    sliding_windows,
)
from .registry import lm_classes, register


@register("phi3", lm_classes("Phi3"))
def _phi3(c: Keys) -> dict:
    """phi3: the Llama block with fused qkv_proj and gate_up_proj (the same weights) and no biases."""
    fields = decoder_fields(c, **llama_block(c))
    return sliding_windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("phi", lm_classes("Phi"))
def _phi(c: Keys) -> dict:
    """phi (Phi-1.5, Phi-2): parallel attention and MLP after one LayerNorm, biased q/k/v/dense and fc1/fc2,
    a GELU MLP, an untied LM head with a bias; ``qk_layernorm``: a LayerNorm of d/H per head on q and k."""
    fields = decoder_fields(c, activation=c.activation("hidden_act", default="gelu_new"), parallel=True,
                      shared_norm=True, qk_norm="head" if c.flag("qk_layernorm", False) else "none")
    if fields["block"]["head_size"] is not None:
        raise c.error("head_dim", "not a key of transformers' Phi (the head size is d/H)")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "head_bias": True}


@register("phimoe", lm_classes("Phimoe"), class_aliases={"PhiMoEForCausalLM": "PhimoeForCausalLM"})
def _phimoe(c: Keys) -> dict:
    """phimoe (Phi-3.5-MoE): LayerNorm (γ, β), q/k/v/o biases (``attention_bias``), E experts of
    ``intermediate_size``, an LM head with a bias (``lm_head_bias``); windows on every layer. Its router
    (transformers' ``sparsemixer``) picks 2 experts per token whatever ``num_experts_per_tok`` says: another
    value is refused."""
    c.neutral("input_jitter_noise")
    c.require("num_experts_per_tok", lambda v: v == 2, "Phi-3.5-MoE's router always sends each token to 2 "
                                                       "experts (transformers' sparsemixer ignores this key)")
    fields = decoder_fields(c, **llama_block(c, norm="layernorm"))
    read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    fields = sliding_windows(c, fields, None)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False),
                     "head_bias": c.flag("lm_head_bias", False)}
