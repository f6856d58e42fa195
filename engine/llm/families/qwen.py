"""Qwen's lineage: Qwen2 (q/k/v biases), Qwen2-MoE (a gated shared expert), Qwen3 and Qwen3-MoE (per-head
query/key norms); their windows apply only from ``max_window_layers`` on and are refused.
"""
from __future__ import annotations

from .keys import MAX_LAYERS, Keys
from .parts import decoder_fields, dense_group, llama_block, read_experts
from .registry import lm_classes, register, register_alias


def _sparse_layers(c: Keys, fields: dict, dense_ff: int) -> dict:
    """Qwen-MoE: layer i is sparse unless listed in ``mlp_only_layers`` or (i+1) % decoder_sparse_step ≠ 0;
    the dense ones (an ``intermediate_size`` MLP) are a group on their own layers (``dense_group``)."""
    layers = fields["layers"]
    if not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        c.neutral("decoder_sparse_step", "mlp_only_layers")
        return fields  # the model's own check names num_hidden_layers (and no loop runs 10⁹ times)
    step = c.size(None, "decoder_sparse_step", required=False, default=1)
    if step < 1:
        raise c.error("decoder_sparse_step", "must be at least 1")
    only = c.get("mlp_only_layers", [])
    if not isinstance(only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in only):
        raise c.error("mlp_only_layers", "expected a list of layer numbers")
    only = set(only)
    sparse = [not (i in only or (i + 1) % step) for i in range(layers)]
    if not all(sparse):
        block = dict(fields["block"], experts=1, active_experts=1, ff_size=dense_ff, shared_ff_size=None,
                     shared_expert_gate=False, router_bias=False)
        fields.setdefault("first_layers", []).append(dense_group(block, sparse))
    return fields


def _no_sliding(c: Keys) -> None:
    """Qwen's windows apply only from ``max_window_layers`` on, which is not modelled: refuse them."""
    c.require("use_sliding_window", lambda v: v is False, "Qwen windows only the layers from "
                                                          "max_window_layers on; a per-layer window is not modelled")
    c.neutral("sliding_window", "max_window_layers", "layer_types")


@register("qwen2", lm_classes("Qwen2"))
def _qwen2(c: Keys) -> dict:
    """qwen2: q/k/v biases only (Qwen2Attention)."""
    _no_sliding(c)
    fields = decoder_fields(c, **llama_block(c, qkv_bias=True))
    fields["block"] |= {"qkv_bias": True, "out_bias": False}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("qwen2_moe", lm_classes("Qwen2Moe"))
def _qwen2_moe(c: Keys) -> dict:
    """qwen2_moe: E routed experts of ``moe_intermediate_size``, a shared expert of
    ``shared_expert_intermediate_size`` behind a sigmoid gate; q/k/v biases (``qkv_bias``)."""
    _no_sliding(c)
    c.neutral("norm_topk_prob")
    c.given("shared_expert_intermediate_size")
    bias = c.flag("qkv_bias", True)
    fields = decoder_fields(c, **llama_block(c))
    fields["block"] |= {"qkv_bias": bias, "out_bias": False}
    dense_ff = read_experts(c, fields, ("num_experts",))
    # transformers builds the shared expert and its gate whatever the size: 0 is refused by the field's check
    fields["block"] |= {"shared_ff_size": c.size("block.shared_ff_size", "shared_expert_intermediate_size"),
                        "shared_expert_gate": True}
    return _sparse_layers(c, fields, dense_ff) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("qwen3", lm_classes("Qwen3"))
def _qwen3(c: Keys, head_dim_default: bool = False) -> dict:
    """qwen3: the Llama block with a per-head RMSNorm of queries and keys. Qwen3Config's head_dim defaults to
    128 (not d/H), so it must be given; Qwen3-MoE's attention takes d/H when it is absent
    (``getattr(config, "head_dim", hidden_size // num_attention_heads)``), as ``decoder_fields`` does."""
    _no_sliding(c)
    if not head_dim_default:
        c.given("head_dim")
    fields = decoder_fields(c, **llama_block(c, qk_norm="head"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("qwen3_moe", lm_classes("Qwen3Moe"))
def _qwen3_moe(c: Keys) -> dict:
    fields = _qwen3(c, head_dim_default=True)
    c.neutral("norm_topk_prob")
    dense_ff = read_experts(c, fields, ("num_experts", "num_local_experts"))
    return _sparse_layers(c, fields, dense_ff)


# The text towers of Qwen's vision-language models: their decoders are Qwen2's and Qwen3's (multimodal rotary
# positions change no product); transformers builds them as bare text models (the wrapper adds the LM head).
register_alias("qwen2_vl_text", "qwen2", classes={"Qwen2VLTextModel": "none"})
register_alias("qwen2_5_vl_text", "qwen2", classes={"Qwen2_5_VLTextModel": "none"})
register_alias("qwen3_vl_text", "qwen3", classes={"Qwen3VLTextModel": "none"})
register_alias("qwen3_vl_moe_text", "qwen3_moe", classes={"Qwen3VLMoeTextModel": "none"})
# The thinkers' text towers of Qwen2.5-Omni and Qwen3-Omni: Qwen2's and Qwen3-MoE's decoders, bare text models.
register_alias("qwen2_5_omni_text", "qwen2", classes={"Qwen2_5OmniThinkerTextModel": "none"})
register_alias("qwen3_omni_moe_text", "qwen3_moe", classes={"Qwen3OmniMoeThinkerTextModel": "none"})
