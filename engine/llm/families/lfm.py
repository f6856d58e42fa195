"""Liquid's lineage: LFM2, LFM2-MoE and LFM3 — gated short convolutions between attention layers.
"""
from __future__ import annotations

import json
import math

from .keys import Keys
from .parts import (
    by_mixer_and_feed,
    by_pattern,
    layer_numbers,
    num_hidden_layers,
)
from .registry import lm_classes, register

LFM2_DEFAULTS = {"vocab_size": 65536, "hidden_size": 2560, "intermediate_size": 12288, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "conv_L_cache": 3, "block_multiple_of": 256}
"""Lfm2Config's defaults of the sizes."""


LFM2_MOE_DEFAULTS = {"vocab_size": 65536, "hidden_size": 2048, "intermediate_size": 7168, "moe_intermediate_size": 1792,
                     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "conv_L_cache": 3,
                     "num_dense_layers": 2, "num_experts_per_tok": 4, "num_experts": 32}
"""Lfm2MoeConfig's defaults of the sizes."""


LFM2_NOT_NULL = ("conv_bias", "block_auto_adjust_ff_dim", "block_ffn_dim_multiplier", "tie_word_embeddings",
                 "use_expert_bias")
"""Fields the config classes type without None: a null one is refused by transformers' strict validation."""


def _lfm2_sizes(c: Keys, defaults: dict, config_class: str, not_null: tuple[str, ...] = LFM2_NOT_NULL,
                legacy: bool = True) -> None:
    """Absent sizes: the config class's defaults; null ones refused (its fields are whole numbers, its flags
    ``not_null`` and the multiplier not null); with ``legacy``, the legacy ``tie_embedding`` (which the config
    class pops, and which then wins over ``tie_word_embeddings``) read as it."""
    for key in (*defaults, *not_null):
        if key in c.data and c.data[key] is None:
            raise c.error(key, f"null is not accepted (transformers' {config_class} requires a value)")
    data = {**defaults, **c.data}
    if not legacy:
        c.data = data
        return
    c.used.add("tie_embedding")
    if "tie_embedding" in data:
        tie = data.pop("tie_embedding")
        if not isinstance(tie, bool):
            raise c.error("tie_embedding", f"expected true or false, got {json.dumps(tie)[:40]}")
        data["tie_word_embeddings"] = tie
    c.data = data


def _lfm2_layers(c: Keys, layers: int, legacy: bool) -> list[str]:
    """``layer_types`` ("conv" or "full_attention", one per layer); without it (Lfm2Config only, ``legacy``):
    attention on the layers ``full_attn_idxs`` lists (absent or null: every layer), convolutions elsewhere."""
    types = c.get("layer_types")
    if types is None and legacy:
        listed = c.data.get("full_attn_idxs")
        c.used.add("full_attn_idxs")
        if listed is None:
            return ["full_attention"] * layers
        at = set(layer_numbers(c, "full_attn_idxs", layers))
        return ["full_attention" if i in at else "conv" for i in range(layers)]
    c.neutral("full_attn_idxs")
    if types is None:
        raise c.error("layer_types", "missing (transformers' Lfm2MoeModel cannot be built without a kind per layer)")
    if not isinstance(types, list) or len(types) != layers or not all(t in ("conv", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries (num_hidden_layers) of 'conv' or 'full_attention'")
    return types


def _lfm2_mixers(c: Keys, types: list[str], d, block: dict, attention: dict | None = None) -> dict[str, dict]:
    """The kinds of layer: the gated short convolution (``conv_L_cache`` K, ``conv_bias`` on its in and out
    projections and its convolution) and GQA attention with RMS norms of the queries and keys per head (no biases;
    ``head_dim`` where the file writes one, else ⌊d/H⌋ as transformers computes it); ``attention``: what LFM3's
    attention changes in it (biases, the gate per head), on its "full_attention" and "sliding_attention" layers
    (the latter with the window ``sliding_window``)."""
    mixers = {}
    if "conv" in types:
        bias = c.flag("conv_bias", False)
        mixers["conv"] = block | {"heads": 1, "mixer": "short_conv", "ssm_bias": bias, "ssm_conv_bias": bias,
                                  "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "conv_L_cache")}
    else:
        c.neutral("conv_bias", "conv_L_cache")
    if any(t in types for t in ("full_attention", "sliding_attention")):
        heads = c.size("block.heads", "num_attention_heads")
        if "head_dim" in c.data and c.data["head_dim"] is None:
            raise c.error("head_dim", "null is not accepted (transformers' attention reads it as the head size)")
        head = c.size("block.head_size", "head_dim", required=False)
        if head is None and isinstance(d, int) and isinstance(heads, int) and heads > 0:
            head = d // heads
        kv = c.size("block.kv_heads", "num_key_value_heads")
        if attention is not None and isinstance(heads, int) and isinstance(kv, int) and kv > 0 and heads % kv:
            raise c.error("num_key_value_heads", f"{kv} does not divide the {heads} query heads (transformers repeats "
                                                 "each key/value head for a whole group)")
        full = block | {"heads": heads, "kv_heads": kv, "head_size": head, "qk_norm": "head", "qkv_bias": False,
                        "out_bias": False} | (attention or {})
        if "full_attention" in types:
            mixers["full_attention"] = full
        if "sliding_attention" in types:
            if "sliding_window" in c.data and c.data["sliding_window"] is None:
                raise c.error("sliding_window", "null with 'sliding_attention' layers (transformers cannot make "
                                                "their mask without a window)")
            mixers["sliding_attention"] = full | {
                "attention_window": c.size("block.attention_window", "sliding_window")}
        elif attention is not None:
            c.neutral("sliding_window")
    else:
        c.neutral("num_attention_heads", "num_key_value_heads", "head_dim",
                  *(["sliding_window"] if attention is not None else []))
    return mixers


def _lfm2_ff_size(c: Keys):
    """Lfm2MLP's width: F = ``intermediate_size`` (the legacy ``block_ff_dim`` wins, as Lfm2Config pops it); with
    ``block_auto_adjust_ff_dim`` F = ⌊2F/3⌋, then ⌊``block_ffn_dim_multiplier``·F⌋ rounded up to a multiple of
    ``block_multiple_of`` (transformers' own arithmetic, floats included; Lfm2Config refuses a null multiplier, whose
    branch in Lfm2MLP skips the rounding)."""
    key = "block_ff_dim" if c.data.get("block_ff_dim") is not None else "intermediate_size"
    if "block_ff_dim" in c.data and c.data["block_ff_dim"] is None:
        raise c.error("block_ff_dim", "null is not accepted (Lfm2Config would take it as intermediate_size)")
    c.neutral("block_ff_dim", "intermediate_size")  # the one not read is overridden
    ff = c.size(None, key)
    if not c.flag("block_auto_adjust_ff_dim", True):
        c.neutral("block_ffn_dim_multiplier", "block_multiple_of")
        return ff
    ff = int(2 * ff / 3)
    multiplier = c.get("block_ffn_dim_multiplier", 1.0)
    if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)) or not math.isfinite(multiplier):
        raise c.error("block_ffn_dim_multiplier", f"expected a number, got {json.dumps(multiplier)[:40]}")
    of = c.size(None, "block_multiple_of")
    if of < 1:
        raise c.error("block_multiple_of", "expected 1 or more (the MLP width is rounded up to a multiple of it)")
    ff = int(multiplier * ff)
    ff = of * ((ff + of - 1) // of)
    if ff < 1:
        raise c.error(key, f"the MLP width comes to {ff} after block_auto_adjust_ff_dim's adjustment; expected 1 or "
                           "more")
    return ff


@register("lfm2", lm_classes("Lfm2"))
def _lfm2(c: Keys) -> dict:
    """lfm2 (Liquid AI's LFM2, ``Lfm2ForCausalLM``): each layer RMSNorm, then a gated short convolution
    (``state_space.short_conv``: in projection d→3d, B·x, causal depthwise convolution of width ``conv_L_cache``,
    C·(conv), out projection d→d) or GQA attention with per-head RMS norms of q and k, by ``layer_types`` (absent:
    attention on the layers ``full_attn_idxs`` lists, all of them when it is absent or null); then RMSNorm and a
    gated SiLU MLP without biases of Lfm2MLP's width (``_lfm2_ff_size``). The final norm is transformers'
    ``embedding_norm``; a tied head by default. Absent sizes: Lfm2Config's defaults."""
    c.neutral("norm_eps")
    _lfm2_sizes(c, LFM2_DEFAULTS, "Lfm2Config")
    layers = num_hidden_layers(c)
    types = _lfm2_layers(c, layers, legacy=True)
    d = c.size("d_model", "hidden_size")
    block = {"norm": "rmsnorm", "gated": True, "activation": "silu", "ff_bias": False, "ff_size": _lfm2_ff_size(c)}
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": c.flag("tie_word_embeddings", True)}
    return by_pattern(fields, _lfm2_mixers(c, types, d, block), types)


@register("lfm2_moe", lm_classes("Lfm2Moe"))
def _lfm2_moe(c: Keys) -> dict:
    """lfm2_moe (LFM2-8B-A1B, ``Lfm2MoeForCausalLM``): LFM2's layers (``_lfm2``; ``layer_types`` required, as
    transformers cannot build the model without it), the first ``num_dense_layers`` with a gated MLP of
    ``intermediate_size`` (no width adjustment: the block_* keys are not read), the others ``num_experts`` gated
    experts of ``moe_intermediate_size``, k = ``num_experts_per_tok``, behind a router d→E without bias (sigmoid
    scores; the expert bias is a buffer, not a parameter, and only steers the choice). Absent sizes:
    Lfm2MoeConfig's defaults."""
    c.neutral("use_expert_bias", "routed_scaling_factor", "norm_topk_prob", "norm_eps")
    _lfm2_sizes(c, LFM2_MOE_DEFAULTS, "Lfm2MoeConfig")
    layers = num_hidden_layers(c)
    types = _lfm2_layers(c, layers, legacy=False)
    d = c.size("d_model", "hidden_size")
    dense = c.size(None, "num_dense_layers")
    sparse = [i >= dense for i in range(layers)]
    block = {"norm": "rmsnorm", "gated": True, "activation": "silu", "ff_bias": False}
    feed = {}
    if any(sparse):
        experts = c.size("block.experts", "num_experts")
        if isinstance(experts, int) and experts < 2:
            raise c.error("num_experts", "expected 2 or more (a router over one expert is not modelled)")
        feed["moe"] = {"experts": experts, "active_experts": c.size("block.active_experts", "num_experts_per_tok"),
                       "ff_size": c.size("block.ff_size", "moe_intermediate_size")}
    else:
        c.neutral("num_experts", "num_experts_per_tok", "moe_intermediate_size")
    if not all(sparse):
        feed["mlp"] = {"ff_size": c.size("block.ff_size", "intermediate_size")}
    else:
        c.neutral("intermediate_size")
    mixers = _lfm2_mixers(c, types, d, block)
    kinds = [f"{t} {'moe' if s else 'mlp'}" for t, s in zip(types, sparse)]
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": c.flag("tie_word_embeddings", True)}
    return by_mixer_and_feed(fields, mixers, feed, kinds)


LFM3_DEFAULTS = {"vocab_size": 128000, "hidden_size": 2048, "intermediate_size": 7680, "num_hidden_layers": 24,
                 "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 128, "conv_L_cache": 7}
"""Lfm3Config's defaults of the sizes (``head_dim`` 128 whatever d/H is)."""


LFM3_NOT_NULL = ("conv_bias", "tie_word_embeddings", "use_sandwich_norm", "use_attention_gate", "attention_bias")
"""Lfm3Config's flags typed without None (refused null by its strict validation)."""


LFM3_KINDS = ("conv", "sliding_attention", "full_attention")


def _lfm3_layers(c: Keys, layers: int) -> list[str]:
    """``layer_types``, one of ``LFM3_KINDS`` per layer; absent or null: Lfm3Config's pattern, full attention where
    i % 4 == 2, sliding attention where i % 4 == 0 after the first layer, convolutions elsewhere."""
    types = c.get("layer_types")
    if types is None:
        return ["full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i > 0 else "conv"
                for i in range(layers)]
    if not isinstance(types, list) or len(types) != layers or not all(t in LFM3_KINDS for t in types):
        raise c.error("layer_types", f"expected {layers} entries (num_hidden_layers) of "
                                     f"{', '.join(repr(k) for k in LFM3_KINDS)}")
    return types


@register("lfm3", lm_classes("Lfm3"))
def _lfm3(c: Keys) -> dict:
    """lfm3 (Liquid AI's LFM3, ``Lfm3ForCausalLM``): LFM2's layers (``_lfm2``) by ``layer_types`` ("conv",
    "sliding_attention" with the window ``sliding_window``, "full_attention"; absent: ``_lfm3_layers``), attention
    of ``head_dim`` (default 128, not d/H) with ``attention_bias`` on q, k, v and o and, with ``use_attention_gate``,
    a gate per head (g_proj d→H, sigmoid, before o); ``use_sandwich_norm``: an RMSNorm on the mixer's and the MLP's
    outputs too; a gated SiLU MLP of ``intermediate_size`` as written (no width adjustment: the block_* keys are
    not read). Rotary settings (partial, per layer kind) change no product. Absent sizes: Lfm3Config's defaults."""
    c.neutral("norm_eps")
    _lfm2_sizes(c, LFM3_DEFAULTS, "Lfm3Config", LFM3_NOT_NULL, legacy=False)
    layers = num_hidden_layers(c)
    types = _lfm3_layers(c, layers)
    d = c.size("d_model", "hidden_size")
    block = {"norm": "rmsnorm", "gated": True, "activation": "silu", "ff_bias": False,
             "ff_size": c.size("block.ff_size", "intermediate_size"),
             "sandwich_norms": c.flag("use_sandwich_norm", True)}
    bias = c.flag("attention_bias", False)
    attention = {"qkv_bias": bias, "out_bias": bias, "head_gate": c.flag("use_attention_gate", True)}
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": c.flag("tie_word_embeddings", True)}
    return by_pattern(fields, _lfm2_mixers(c, types, d, block, attention), types)
