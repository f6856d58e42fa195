"""GLM's lineage: GLM, GLM-4 (sandwich norms), GLM-4-MoE (dense first layers, shared experts) and its aliases.
"""
from __future__ import annotations

from engine.llm.families.keys import Keys
from engine.llm.families.parts import (
    decoder_fields,
    dense_first,
    floor_head_dim,
    layer_count,
    llama_block,
    read_experts,
    read_shared_experts,
)
from engine.llm.families.registry import lm_classes, register, register_alias


@register("glm4", lm_classes("Glm4"))
def _glm4(c: Keys) -> dict:
    """glm4: biases on q/k/v only (``attention_bias``), fused gate/up (the same weights), a norm on each
    sub-layer's output besides the pre-norms; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    fields = decoder_fields(c, **llama_block(c, attention_bias=True, sandwich_norms=True))
    fields["block"]["out_bias"] = False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("glm4_moe", lm_classes("Glm4Moe"))
def _glm4_moe(c: Keys) -> dict:
    """glm4_moe (GLM-4.5): GQA attention with q/k/v biases (``attention_bias``) and a per-head QK-norm
    (``use_qk_norm``); ``n_routed_experts`` of ``moe_intermediate_size``, k per token, ``n_shared_experts``
    shared ones; the first ``first_k_dense_replace`` layers dense; ``head_dim`` (absent: ⌊d/H⌋). The
    multi-token-prediction layers (``num_nextn_predict_layers``) are not built by transformers."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "num_nextn_predict_layers",
              "num_mtp_layers", "topk_method", "scoring_func")
    fields = floor_head_dim(decoder_fields(c, **llama_block(c, qk_norm="head" if c.flag("use_qk_norm", False)
                                                        else "none")))
    fields["block"]["out_bias"] = False
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts", 1)
    layers = layer_count(fields)
    if layers:
        first = c.size(None, "first_k_dense_replace", required=False, default=1)
        dense_first(c, fields, [i >= first for i in range(layers)], dense_ff)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("glm", lm_classes("Glm"))
def _glm(c: Keys) -> dict:
    """glm (GLM-4 9B's first release): GLM-4's attention (q/k/v biases, an output without) and fused
    gate/up, without GLM-4's extra output norms; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    fields = decoder_fields(c, **llama_block(c, attention_bias=True))
    fields["block"]["out_bias"] = False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


# Types transformers defines as a config of their own on GLM-4-MoE's classes, with their config classes' defaults
register_alias("param2moe", "glm4_moe", defaults={"head_dim": 64, "n_shared_experts": 2, "tie_word_embeddings": True,
                                                  "use_qk_norm": True})
register_alias("sarvam_moe", "glm4_moe", defaults={"head_dim": 64, "num_key_value_heads": 4, "use_qk_norm": True})



def _glm_vision_text(c: Keys, qkv_bias: bool, head_dim_key: bool) -> dict:
    """GLM-4's block (fused gate/up, output norms) as the vision-language models' text towers build it: q/k/v biases
    fixed (``attention_bias`` is their vision tower's key), heads of ``head_dim`` or d/H."""
    c.neutral("attention_bias")
    if not head_dim_key:
        c.neutral("head_dim")
        c.data = {k: v for k, v in c.data.items() if k != "head_dim"}
    fields = floor_head_dim(decoder_fields(c, **llama_block(c, sandwich_norms=True)))
    fields["block"]["qkv_bias"], fields["block"]["out_bias"] = qkv_bias, False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("glm4v_text", {"Glm4vTextModel": "none"})
def _glm4v_text(c: Keys) -> dict:
    """glm4v_text (GLM-4.1V's text tower): GLM-4's block with q/k/v biases and heads of d/H (``head_dim`` is not
    read); multimodal rotary positions change no product; a bare text model (the wrapper adds the LM head)."""
    return _glm_vision_text(c, qkv_bias=True, head_dim_key=False)


@register("glm_ocr_text", {"GlmOcrTextModel": "none"})
def _glm_ocr_text(c: Keys) -> dict:
    """glm_ocr_text (GLM-OCR's text tower): GLM-4V's block without q/k/v biases; ``head_dim`` (absent: d/H)."""
    return _glm_vision_text(c, qkv_bias=False, head_dim_key=True)


# GLM-4.5V's text tower: GLM-4-MoE's decoder (q/k/v biases by ``attention_bias``, true by default), a bare text model
register_alias("glm4v_moe_text", "glm4_moe", defaults={"attention_bias": True},
               classes={"Glm4vMoeTextModel": "none"})
