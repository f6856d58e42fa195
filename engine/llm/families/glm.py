"""GLM's lineage: GLM, GLM-4 (sandwich norms), GLM-4-MoE (dense first layers, shared experts) and its aliases.
"""
from __future__ import annotations

from .keys import Keys
from .parts import (
    decoder_fields,
    dense_first,
    floor_head_dim,
    layer_count,
    llama_block,
    read_experts,
    read_shared_experts,
)
from .registry import lm_classes, register, register_alias


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
