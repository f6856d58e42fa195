"""Mixture-of-experts decoders of their own: DBRX, JetMoE (experts of attention too), MiniMax-M2, AFMoE, Dots1,
EXAONE-MoE, MiniCPM5-MoE, Solar Open, GPT-OSS, Laguna, MiMo-V2-Flash and HY-V3 — routed experts, shared experts,
dense first layers, per-layer windows.
"""
from __future__ import annotations

import json

from .keys import Keys, nested_done, whole_defaults
from .parts import (
    decoder_fields,
    dense_mlp,
    floor_head_dim,
    layer_count,
    layer_kinds,
    layer_windows_each,
    llama_block,
    merged,
    mlp_layers_each,
    per_layer,
    read_experts,
    read_shared_experts,
    sliding_windows,
)
from .registry import lm_classes, register


@register("gpt_oss", lm_classes("GptOss"))
def _gpt_oss(c: Keys) -> dict:
    """gpt_oss: biased q/k/v/o, a learned sink per head, a biased router, E experts with biases
    (interleaved gate/up: the same weights as gate + up); sliding windows on alternate layers."""
    c.neutral("swiglu_limit", "swiglu_alpha", "initial_context_length", "experts_per_token")
    c.given("head_dim")
    fields = decoder_fields(c, **llama_block(c, attention_bias=True, attention_sinks=True))
    read_experts(c, fields, ("num_local_experts", "num_experts"), ff_key="intermediate_size")
    fields["block"] |= {"ff_bias": True, "router_bias": True}
    return sliding_windows(c, fields, 2) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("afmoe", lm_classes("Afmoe"))
def _afmoe(c: Keys) -> dict:
    """afmoe (Trinity, AFMoE): attention with a per-head RMSNorm of queries and keys and a sigmoid output gate
    (its own projection d→H·Q, as wide as the queries); an RMSNorm before and after each sub-layer (sandwich norms);
    the first ``num_dense_layers`` layers a gated MLP of ``intermediate_size``, the others ``num_experts`` of
    ``moe_intermediate_size`` (k per token, a router without bias whose ``expert_bias``, E values that never train,
    is counted as its bias) and ``num_shared_experts`` × ``moe_intermediate_size`` shared; ``sliding_window``
    (absent: 1024) where ``layer_types`` says (absent: all but every ``global_attn_every_n_layers``-th);
    ``head_dim`` absent: 128. ``mup_enabled`` and ``route_scale`` scale activations only."""
    c.neutral("mup_enabled", "route_scale")
    c.require("attention_bias", lambda v: v is False, "the output gate's projection has no bias while q/k/v/o "
                                                      "would: not modelled")
    if "sliding_window" not in c.data:
        c.data = c.data | {"sliding_window": 1024}
    fields = decoder_fields(c, **llama_block(c, qk_norm="head", attention_output_gate=True, sandwich_norms=True,
                                       router_bias=True))
    block = fields["block"]
    if block["head_size"] is None:
        block["head_size"] = 128  # AfmoeConfig's default (not d/H)
    dense_ff = read_experts(c, fields, ("num_experts",))
    read_shared_experts(c, fields, "num_shared_experts", 2)
    layers = layer_count(fields)
    if layers:
        period = c.size(None, "global_attn_every_n_layers", required=False, default=4)
        if period < 1:
            raise c.error("global_attn_every_n_layers", "must be at least 1")
        first = c.size(None, "num_dense_layers", required=False, default=1)
        windows = layer_windows_each(c, layers, lambda i: bool((i + 1) % period))
        dense = [dict(dense_mlp(dense_ff), router_bias=False) if i < first else {} for i in range(layers)]
        per_layer(fields, merged(windows, dense))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


LAGUNA_DEFAULTS = {"vocab_size": 100352, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 40,
                   "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "sliding_window": 512,
                   "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "num_experts_per_tok": 8,
                   "num_experts": 256, "max_position_embeddings": 131072}
"""LagunaConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


@register("laguna", lm_classes("Laguna"))
def _laguna(c: Keys) -> dict:
    """laguna (Poolside Laguna): attention with a per-head RMSNorm of queries and keys, ``attention_bias`` on
    q/k/v/o, ``head_dim`` (absent: 128), heads per layer (``num_attention_heads_per_layer``, absent: all
    ``num_attention_heads``) and a softplus output gate from the attention's input (``gating`` true or "per-head": d→H,
    one per head, block field ``head_gate``; any other value: d→H·Q, one per channel, ``attention_output_gate``),
    without bias; ``sliding_window`` (absent: 512) where ``layer_types`` says (absent: none); dense layers (a gated
    MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: the first), the others ``num_experts`` of
    ``moe_intermediate_size`` (k per token, a sigmoid router d→E without bias whose score correction, E values that
    never train, is a parameter: counted as its bias) beside a gated shared expert of
    ``shared_expert_intermediate_size``. The routed scaling and the router's logit softcapping are element-wise."""
    c.neutral("moe_routed_scaling_factor", "moe_router_logit_softcapping")
    c.require("moe_apply_router_weight_on_input", lambda v: v is False,
              "transformers' Laguna raises NotImplementedError for it")
    whole_defaults(c, LAGUNA_DEFAULTS, "LagunaConfig")
    gating = c.get("gating", True)
    per_head = gating is True or gating == "per-head"
    if not per_head and c.flag("attention_bias", False):
        raise c.error("gating", f"{json.dumps(gating)[:40]} with attention_bias true: the per-channel gate "
                                "projection has no bias while q would (not modelled)")
    gate = {"head_gate": True} if per_head else {"attention_output_gate": True}
    fields = decoder_fields(c, **llama_block(c, qk_norm="head", router_bias=True, gate_function="softplus", **gate))
    block = fields["block"]
    dense_ff = read_experts(c, fields, ("num_experts",))
    if isinstance(block["experts"], int) and block["experts"] < 2:
        raise c.error("num_experts", f"{block['experts']}: a single expert is not modelled")
    shared = c.size(None, "shared_expert_intermediate_size")
    block["shared_ff_size"] = shared or None
    layers = layer_count(fields)
    if not layers:
        return fields
    kv = block["kv_heads"]
    heads = c.get("num_attention_heads_per_layer")
    if heads is None:
        heads = [block["heads"]] * layers
    elif not isinstance(heads, list) or len(heads) != layers or not all(
            isinstance(h, int) and not isinstance(h, bool) and h >= 1 for h in heads):
        raise c.error("num_attention_heads_per_layer", f"expected {layers} whole numbers of heads (one per layer)")
    if any(isinstance(kv, int) and kv >= 1 and h % kv for h in heads):
        raise c.error("num_attention_heads_per_layer" if c.data.get("num_attention_heads_per_layer") is not None
                      else "num_attention_heads", f"{heads[0] if len(set(heads)) == 1 else heads} heads: each layer's "
                                                  f"heads must be a multiple of num_key_value_heads {kv} "
                                                  "(transformers' repeat_kv fails otherwise)")
    windows = layer_windows_each(c, layers, lambda i: False)
    dense = [dict(change, router_bias=False) if change else {} for change in mlp_layers_each(c, layers, dense_ff, 1)]
    per_layer(fields, merged(windows, dense, [{"heads": h} for h in heads]))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("mimo_v2_flash", lm_classes("MiMoV2Flash"))
def _mimo_v2_flash(c: Keys) -> dict:
    """mimo_v2_flash (MiMo-V2-Flash): attention with values of their own size (``v_head_dim`` V, absent 128; queries
    and keys ``head_dim`` Q, absent 192; block field ``value_size``), ``attention_bias`` on q/k/v, none on the
    output; the layers ``layer_types`` marks sliding (absent: all but the first and every sixth) have twice the
    key/value heads, a sink logit per head and ``sliding_window`` (absent: 129, or ``sliding_window_size`` + 1);
    DeepSeek-V3's routed experts without a shared one (``n_routed_experts`` of ``moe_intermediate_size``, k per
    token), dense layers (a gated MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: the first).
    ``attention_value_scale`` scales activations only."""
    c.neutral("attention_value_scale", "routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob",
              "n_shared_experts", "first_k_dense_replace", "num_nextn_predict_layers", "use_qk_norm")
    window = c.size(None, "sliding_window_size", required=False)
    if window is not None:
        c.data = c.data | {"sliding_window": window + 1}
    elif "sliding_window" not in c.data:
        c.data = c.data | {"sliding_window": 129}
    for key, default in (("head_dim", 192), ("num_key_value_heads", 4), ("v_head_dim", 128)):
        if c.data.get(key) is None:
            c.data = c.data | {key: default}
    fields = decoder_fields(c, **llama_block(c))
    block = fields["block"]
    block |= {"out_bias": False, "value_size": c.size("block.value_size", "v_head_dim")}
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    layers = layer_count(fields)
    if layers:
        types = layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention"))
        if types is None:
            types = ["full_attention" if i == 0 or not (i + 1) % 6 else "sliding_attention" for i in range(layers)]
        window = c.size("block.attention_window", "sliding_window")
        kv = block["kv_heads"]
        if "sliding_attention" in types and block["heads"] % (2 * kv):
            raise c.error("num_key_value_heads", f"twice {kv} (a sliding layer's key/value heads) does not divide "
                                                 f"{block['heads']} heads (transformers cannot run it)")
        attention = [{"attention_window": window, "attention_sinks": True, "kv_heads": 2 * kv}
                     if t == "sliding_attention" else {"attention_window": None} for t in types]
        per_layer(fields, merged(attention, mlp_layers_each(c, layers, dense_ff, 1)))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("minimax_m2", lm_classes("MiniMaxM2"))
def _minimax_m2(c: Keys) -> dict:
    """minimax_m2 (MiniMax-M2, M2.1): pre-norm GQA attention without biases, an RMSNorm of the whole query and
    key projections (γ of H·Q and H_kv·Q: ``qk_norm_type`` "per_layer"), partial rotary (``rotary_dim``: no
    parameters); every layer E experts of ``intermediate_size`` (k per token) behind a router d→E without bias,
    scored by a sigmoid plus ``e_score_correction_bias`` (a buffer: no parameters). The multi-token-prediction
    modules (``use_mtp``, ``num_mtp_modules``, ``mtp_transformer_layers``) are not built by transformers. The
    published file's MiniMax-specific switches are read where they could describe another model than the one
    transformers builds: a lightning-attention layer (0 in ``attn_type_list``), no or per-head QK norms, a shared
    expert (``shared_intermediate_size``) are refused by name. ``head_dim`` (default 128) must be given."""
    if c.data.get("head_dim") is None:
        raise c.error("head_dim", "missing (transformers' MiniMax-M2 default is 128, not d/H; write it out)")
    c.neutral("scoring_func", "use_routing_bias", "use_mtp", "num_mtp_modules", "mtp_transformer_layers")
    c.require("attn_type_list", lambda v: isinstance(v, list) and all(t == 1 for t in v),
              "transformers' MiniMax-M2 builds softmax attention (1) on every layer; lightning attention (0) is "
              "MiniMax-Text-01's (model_type minimax)")
    c.require("use_qk_norm", lambda v: v is True, "transformers' MiniMax-M2 always builds the QK norms")
    c.require("qk_norm_type", lambda v: v == "per_layer", "transformers' MiniMax-M2 norms the whole query and key "
                                                           "projections (per_layer)")
    c.require("shared_intermediate_size", lambda v: v == 0, "transformers' MiniMax-M2 builds no shared expert")
    fields = decoder_fields(c, **llama_block(c, qk_norm="width"))
    read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("dbrx", lm_classes("Dbrx"))
def _dbrx(c: Keys) -> dict:
    """dbrx: LayerNorms without β; a fused q/k/v without bias (``attn_config.kv_n_heads`` key/value heads; the
    values clamped by ``clip_qkv``, no matmul) and an output d→d; ``ffn_config``: a router d→E without bias and
    E gated experts (w1, v1: d→F; w2: F→d; activation ``ffn_act_fn.name``), k per token; an untied LM head
    (transformers refuses a tied one)."""
    c.neutral("num_key_value_heads")  # DbrxConfig sets it from attn_config.kv_n_heads whatever the file says
    attn, ffn = c.nested("attn_config"), c.nested("ffn_config")
    attn.neutral("attn_pdrop", "clip_qkv", "rope_theta")
    if attn.data.get("rope_theta") is None:  # DbrxAttention reads attn_config.rope_theta, which has no default
        raise attn.error("rope_theta", "missing (transformers' DbrxAttention cannot be built without it)")
    if attn.data.get("clip_qkv") is None:  # DbrxAttention clamps q/k/v to ±clip_qkv: None cannot run
        raise attn.error("clip_qkv", "missing (transformers' DbrxAttention clamps with it and cannot run without it)")
    # hidden_size: DbrxConfig sets it to d_model; the jitter, loss weight and weight normalisation scale values
    ffn.neutral("hidden_size", "moe_jitter_eps", "moe_loss_weight", "moe_normalize_expert_weights", "model_type")
    attn.neutral("model_type")
    act = ffn.get("ffn_act_fn", {"name": "silu"})
    if not isinstance(act, dict) or set(act) - {"name"}:
        raise ffn.error("ffn_act_fn", "expected {\"name\": …} (other settings are not modelled)")
    activation = Keys(act, f"{ffn.source}.ffn_act_fn").activation("name", default="silu")
    heads = c.size("block.heads", "n_heads", required=False, default=16)
    fields = {"layers": c.size("layers", "n_layers", required=False, default=24),
              "d_model": c.size("d_model", "d_model", required=False, default=2048),
              "vocab_size": c.size("vocab_size", "vocab_size", required=False, default=32000),
              "context_length": c.size("context_length", "max_seq_len", required=False, default=2048),
              "block": {"heads": heads,
                        "kv_heads": attn.size("block.kv_heads", "kv_n_heads", required=False, default=1),
                        "ff_size": ffn.size("block.ff_size", "ffn_hidden_size", required=False, default=3584),
                        "experts": ffn.size("block.experts", "moe_num_experts", required=False, default=4),
                        "active_experts": ffn.size("block.active_experts", "moe_top_k", required=False, default=1),
                        "gated": True, "activation": activation, "norm": "layernorm", "norm_bias": False,
                        "qkv_bias": False, "out_bias": False, "ff_bias": False}}
    for sub, key in ((attn, "attn_config"), (ffn, "ffn_config")):
        c.key_of.update({f: f"{key}.{k}" for f, k in sub.key_of.items()})
        nested_done(c, sub, key)
    if c.flag("tie_word_embeddings", False):
        raise c.error("tie_word_embeddings", "true is refused by transformers' DbrxConfig")
    return fields | {"tied_embeddings": False}


@register("dots1", lm_classes("Dots1"))
def _dots1(c: Keys) -> dict:
    """dots1 (dots.llm1): Qwen3's attention (``attention_bias`` on q/k/v/o, a per-head RMSNorm of queries and keys;
    absent ``head_dim``: ⌊d/H⌋) and DeepSeek-V3's mixture of experts: ``n_routed_experts`` of
    ``moe_intermediate_size``, k per token, a router d→E without bias (its score correction a buffer),
    ``n_shared_experts`` × ``moe_intermediate_size`` shared; the first ``first_k_dense_replace`` layers dense
    (``intermediate_size``); ``sliding_window`` on the layers ``layer_types`` marks sliding (absent: from
    ``max_window_layers`` on)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob")
    fields = floor_head_dim(decoder_fields(c, **llama_block(c, qk_norm="head")))
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts")  # the config's default, null, does not build
    layers = layer_count(fields)
    if not layers:
        return fields
    first = c.size(None, "first_k_dense_replace", required=False, default=0)
    start = c.size(None, "max_window_layers", required=False, default=layers)
    windows = layer_windows_each(c, layers, lambda i: i >= start)
    return per_layer(fields, merged(windows, mlp_layers_each(c, layers, dense_ff, first))) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("exaone_moe", lm_classes("ExaoneMoe"))
def _exaone_moe(c: Keys) -> dict:
    """exaone_moe (K-EXAONE): EXAONE 4's attention (no biases, a per-head RMSNorm of queries and keys) in pre-norm
    blocks; sparse layers (``mlp_layer_types``, absent: all but the first ``first_k_dense_replace``) with
    ``num_experts`` of ``moe_intermediate_size``, k per token, a router d→E without bias (its score correction a
    buffer) and ``num_shared_experts`` × ``moe_intermediate_size`` shared, dense ones an MLP of
    ``intermediate_size``; windows by ``layer_types`` (absent: by ``sliding_window_pattern``, a period or a string
    of L and G)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "num_nextn_predict_layers")
    fields = floor_head_dim(decoder_fields(c, **llama_block(c, qk_norm="head")))
    dense_ff = read_experts(c, fields, ("num_experts",))
    read_shared_experts(c, fields, "num_shared_experts", 1)
    layers = layer_count(fields)
    if not layers:
        return fields
    pattern = c.get("sliding_window_pattern", 4)
    if isinstance(pattern, str) and pattern and not set(pattern) - {"L", "G"}:
        default = lambda i: pattern[i % len(pattern)] == "L"  # noqa: E731
    elif isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 0:
        default = lambda i: (i + 1) % pattern != 0  # noqa: E731
    elif c.data.get("layer_types") is None and c.data.get("sliding_window") is not None:
        raise c.error("sliding_window_pattern", "expected a period or a string of L (sliding) and G (full)")
    else:
        default = None
    first = c.size(None, "first_k_dense_replace", required=False, default=1)
    windows = layer_windows_each(c, layers, default)
    return per_layer(fields, merged(windows, mlp_layers_each(c, layers, dense_ff, first))) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


MINICPM5_MOE_DEFAULTS = {"vocab_size": 130560, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 28,
                         "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
                         "moe_intermediate_size": 512, "n_routed_experts": 160, "num_experts_per_tok": 16,
                         "max_position_embeddings": 524288}
"""MiniCPM5MoeConfig's defaults of the sizes (its docstring checkpoint, openbmb/MiniCPM5-15B-A2.5B)."""


@register("minicpm5_moe", lm_classes("MiniCPM5Moe"), class_aliases={"MiniCPM5MoEForCausalLM": "MiniCPM5MoeForCausalLM"})
def _minicpm5_moe(c: Keys) -> dict:
    """minicpm5_moe (MiniCPM5-MoE): Llama's GQA attention whose q projection also makes a sigmoid output gate
    (``q_gate_proj`` d→2·H·Q, query and gate per head; gate × output per channel before o), ``attention_bias`` on
    all four projections; ``head_dim`` absent 128 (null: ⌊d/H⌋), ``num_key_value_heads`` absent 2 (null: H), as
    MiniCPM5MoeConfig fills them (other absent sizes: its defaults too). DeepSeek-V3's experts: ``n_routed_experts``
    of ``moe_intermediate_size``, k per
    token, a router d→E without bias (its score correction a buffer), ``n_shared_experts`` × ``moe_intermediate_size``
    shared; dense layers (an MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: the first
    ``first_k_dense_replace``, absent 1). ``use_gated_attention`` false is refused (transformers refuses it)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob")
    c.require("use_gated_attention", lambda v: v is not False, "MiniCPM5MoeConfig refuses attention without its "
                                                              "output gate")
    c.data = {**MINICPM5_MOE_DEFAULTS, **c.data}  # absent sizes (null head_dim: ⌊d/H⌋, null kv heads: H)
    fields = floor_head_dim(decoder_fields(c, **llama_block(c, attention_output_gate=True)))
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts", 1)
    layers = layer_count(fields)
    if layers:
        if c.data.get("mlp_layer_types") is None and "first_k_dense_replace" in c.data and \
                c.data["first_k_dense_replace"] is None:
            raise c.error("first_k_dense_replace", "null is not accepted (MiniCPM5MoeConfig compares the layer "
                                                   "numbers with it)")
        first = c.size(None, "first_k_dense_replace", required=False, default=1)
        per_layer(fields, mlp_layers_each(c, layers, dense_ff, first))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("solar_open", lm_classes("SolarOpen"))
def _solar_open(c: Keys) -> dict:
    """solar_open (Solar Open): Llama's attention (``attention_bias`` on q/k/v, none on the output; ``head_dim``,
    absent: 128) and GLM-4.5's experts in every layer (``n_routed_experts`` of ``moe_intermediate_size``, k per
    token, ``n_shared_experts`` shared, a router without bias)."""
    # intermediate_size: SolarOpenMLP's default, but its only MLP (the shared experts) is given its size
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "intermediate_size")
    fields = decoder_fields(c, ff_key=None, **llama_block(c))
    block = fields["block"]
    if block["head_size"] is None:
        block["head_size"] = 128  # SolarOpenConfig's default (not d/H)
    block["out_bias"] = False
    read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts", 1)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


HY_V3_DEFAULTS = {"vocab_size": 120832, "hidden_size": 4096, "intermediate_size": 13312, "num_hidden_layers": 80,
                  "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "moe_intermediate_size": 1536,
                  "max_position_embeddings": 131072}


HY_V3_EXPERTS = {"num_experts": 192, "num_experts_per_tok": 8, "num_shared_experts": 1}
"""HYV3Config's defaults of the sizes the reader reads: whole numbers, and the experts' (null accepted by the
config class, not by the experts transformers builds from them)."""


@register("hy_v3", lm_classes("HYV3"))
def _hy_v3(c: Keys) -> dict:
    """hy_v3 (Hy3): Qwen3's attention (GQA, a per-head RMSNorm of queries and keys, ``attention_bias`` on q/k/v/o),
    and by ``mlp_layer_types`` (absent: the first layer dense, the others sparse) a dense gated MLP of
    ``intermediate_size`` (``mlp_bias``) or ``num_experts`` experts of ``moe_intermediate_size``, k per token, behind
    a sigmoid router d→E without bias (its score correction a buffer), beside ``num_shared_experts`` ×
    ``moe_intermediate_size`` shared (none: transformers' HYV3MLP falls back to ``intermediate_size``, 0 being
    falsy). Absent sizes: HYV3Config's defaults. Refused by name: a null size, ``mlp_bias`` with sparse layers (a
    biased shared expert beside unbiased experts), one expert (a router d→1 is not modelled)."""
    c.neutral("router_scaling_factor", "enable_moe_fp32_combine")
    whole_defaults(c, HY_V3_DEFAULTS, "HYV3Config")
    fields = decoder_fields(c, **llama_block(c, qk_norm="head"))
    block = fields["block"]
    mlp_bias = c.flag("mlp_bias", False)
    layers = layer_count(fields)
    if not layers:
        return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
    types = layer_kinds(c, "mlp_layer_types", layers, ("dense", "sparse"))
    sparse = [i > 0 for i in range(layers)] if types is None else [t == "sparse" for t in types]
    dense = dense_mlp(block["ff_size"]) | {"ff_bias": mlp_bias}
    if any(sparse):
        for key in HY_V3_EXPERTS:
            if key in c.data and c.data[key] is None:
                raise c.error(key, "null: transformers' HYV3MoE cannot be built with it (the model has sparse "
                                   "layers)")
        c.data = {**HY_V3_EXPERTS, **c.data}
        read_experts(c, fields, ("num_experts",))
        if block["experts"] == 1:
            raise c.error("num_experts", "1: one routed expert behind a router d→1 is not modelled")
        if mlp_bias:
            raise c.error("mlp_bias", "true with sparse layers is not modelled (a biased shared expert beside "
                                      "the unbiased experts)")
        shared = c.size(None, "num_shared_experts")
        block["shared_ff_size"] = shared * block["ff_size"] if shared else dense["ff_size"]
        block["ff_bias"] = False
    else:
        c.neutral(*HY_V3_EXPERTS, "moe_intermediate_size")
        block |= dense
    return per_layer(fields, [{} if s else dense for s in sparse]) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("jetmoe", lm_classes("JetMoe"))
def _jetmoe(c: Keys) -> dict:
    """jetmoe (JetMoE): pre-norm RMSNorm blocks (the norms' eps fixed); a mixture of attention heads — a router
    d→E without bias, the q projection as E experts d→H_kv·Q (``num_key_value_heads`` × ``kv_channels``) and the
    output as E experts H_kv·Q→d, ``num_experts_per_tok`` k per token (H = k·H_kv query heads; the file's
    ``num_attention_heads`` is set from them), one k/v projection d→2·H_kv·Q, a bias d on the combined output —
    then a mixture of experts of the same E and k: a router without bias, E gated experts (fused d→2F, F→d) of
    ``intermediate_size``, a bias d on the combined output. One expert (E = 1) is refused by name."""
    c.neutral("num_attention_heads", "aux_loss_coef")  # JetMoeConfig sets the heads to H_kv·k whatever the file says
    kv, k = c.size("block.kv_heads", "num_key_value_heads"), c.size("block.active_experts", "num_experts_per_tok")
    experts = c.size("block.experts", "num_local_experts")
    if experts == 1:
        raise c.error("num_local_experts", "1 is not modelled (transformers still builds the routers d→1)")
    fields = {"layers": c.size("layers", "num_hidden_layers"), "d_model": c.size("d_model", "hidden_size"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": kv * k if isinstance(kv, int) and isinstance(k, int) else kv, "kv_heads": kv,
                        "head_size": c.size("block.head_size", "kv_channels"),
                        "ff_size": c.size("block.ff_size", "intermediate_size"), "experts": experts,
                        "active_experts": k, "gated": True,
                        "activation": c.activation("activation_function", default="silu"), "norm": "rmsnorm",
                        "qkv_bias": False, "out_bias": False, "ff_bias": False, "attention_experts": True,
                        "expert_output_bias": True}}
    c.key_of["block.heads"] = "num_key_value_heads"
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}
