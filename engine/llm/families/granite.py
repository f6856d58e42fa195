"""IBM Granite's lineage: Granite (µP multipliers: element-wise), Granite-MoE (with a shared expert), the sliding
window variants, and HyperCLOVA X (Granite's block).
"""
from __future__ import annotations

from .keys import Keys
from .parts import (
    decoder_fields,
    layer_windows,
    llama_block,
    read_experts,
)
from .registry import lm_classes, register


@register("granite", lm_classes("Granite"))
def _granite(c: Keys) -> dict:
    """granite: the Llama block; its multipliers (embedding, residual, attention, logits) scale
    activations only."""
    c.neutral("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling")
    fields = decoder_fields(c, **llama_block(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("granitemoe", lm_classes("GraniteMoe"))
def _granitemoe(c: Keys) -> dict:
    """granitemoe: Granite with E experts of ``intermediate_size`` (fused gate/up), k per token, a router
    without bias."""
    c.neutral("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling")
    fields = decoder_fields(c, **llama_block(c))
    read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("granitemoeshared", lm_classes("GraniteMoeShared"))
def _granitemoeshared(c: Keys) -> dict:
    """granitemoeshared: Granite MoE with a gated shared MLP of ``shared_intermediate_size`` (fused gate/up, no
    biases) beside the experts on every layer; 0: none."""
    fields = _granitemoe(c)
    shared = c.size("block.shared_ff_size", "shared_intermediate_size", required=False, default=0)
    if shared:
        fields["block"]["shared_ff_size"] = shared
    return fields


def _granite_windows(c: Keys, fields: dict) -> dict:
    """granite_swa, granitemoe_swa: a learned sink logit per head (attention_sinks) and ``sliding_window`` (absent:
    128, the config classes' default) on the layers ``layer_types`` marks sliding (absent: all but every fourth,
    from the first); ``layer_rope_theta`` (0: no rotary on that layer) changes no count."""
    c.neutral("layer_rope_theta")
    if "sliding_window" not in c.data:
        c.data = c.data | {"sliding_window": 128}
    fields["block"]["attention_sinks"] = True
    return layer_windows(c, fields, lambda n: ["full_attention" if i % 4 == 0 else "sliding_attention"
                                                for i in range(n)])


@register("granite_swa", lm_classes("GraniteSWA"))
def _granite_swa(c: Keys) -> dict:
    """granite_swa: ``_granite``'s block with ``_granite_windows``; tied head by default."""
    return _granite_windows(c, _granite(c)) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("granitemoe_swa", lm_classes("GraniteMoeSWA"))
def _granitemoe_swa(c: Keys) -> dict:
    """granitemoe_swa: ``_granitemoeshared``'s block with ``_granite_windows``."""
    return _granite_windows(c, _granitemoeshared(c))


@register("hyperclovax", lm_classes("HyperCLOVAX"))
def _hyperclovax(c: Keys) -> dict:
    """hyperclovax (HyperCLOVA X): Granite's block (``head_dim``, absent: d/H) with, where ``use_post_norm`` (default
    true), an RMSNorm on each sub-layer's output too (Peri-LN: sandwich norms)."""
    fields = _granite(c)
    fields["block"]["sandwich_norms"] = c.flag("use_post_norm", True)
    return fields
