"""OLMo's lineage: OLMo (norms without γ), OLMo 2 and 3 (norms on the sub-layers' outputs, QK norms over the
whole projection, windows), OLMoE and FlexOlmo (experts).
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


@register("olmo", lm_classes("Olmo"))
def _olmo(c: Keys) -> dict:
    """olmo: LayerNorm without parameters (OlmoLayerNorm), SwiGLU; ``clip_qkv`` clamps values only."""
    c.neutral("clip_qkv")
    fields = decoder_fields(c, **llama_block(c, norm="layernorm", norm_affine=False, norm_bias=False))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("olmo2", lm_classes("Olmo2"))
def _olmo2(c: Keys) -> dict:
    """olmo2: RMSNorm on each sub-layer's output (before the residual add), RMSNorm of the whole query and
    key projections."""
    fields = decoder_fields(c, **llama_block(c, norm_position="output", qk_norm="width"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


@register("olmo3", lm_classes("Olmo3"))
def _olmo3(c: Keys) -> dict:
    """olmo3: OLMo 2's block (output norms, whole-width QK-norm); three sliding-window layers in four."""
    fields = decoder_fields(c, **llama_block(c, norm_position="output", qk_norm="width"))
    fields = sliding_windows(c, fields, 4)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


@register("olmoe", lm_classes("Olmoe"))
def _olmoe(c: Keys) -> dict:
    """olmoe: pre-norm Llama block with a whole-width RMSNorm of queries and keys; E experts of
    ``intermediate_size``, k per token; ``clip_qkv`` clamps values only."""
    c.neutral("clip_qkv", "norm_topk_prob")
    fields = decoder_fields(c, **llama_block(c, qk_norm="width"))
    read_experts(c, fields, ("num_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("flex_olmo", lm_classes("FlexOlmo"))
def _flex_olmo(c: Keys) -> dict:
    """flex_olmo: OLMo 2's layout (norms on each sub-layer's output, whole-width QK-norm) with OLMoE's
    experts (E of ``intermediate_size``, k per token)."""
    c.neutral("norm_topk_prob")
    fields = decoder_fields(c, **llama_block(c, norm_position="output", qk_norm="width"))
    read_experts(c, fields, ("num_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}
