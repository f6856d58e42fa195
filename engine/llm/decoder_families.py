"""More decoder-only families: readers built from the shared pieces of ``engine.llm.families``.

Most are the Llama block with a few differences, each written from the family's ``transformers``
modelling code (the class in ``architectures``, head included): norm kind and biases, fused or parallel
layouts, per-head query/key norms, sandwich or output norms, experts and shared experts. Keys that only
scale activations (Granite's multipliers, Cohere's ``logit_scale``) change neither parameters nor FLOP.
"""
from __future__ import annotations

import functools
import json

from engine.llm.family_parts import (
    NEUTRAL_KEYS,
    Family,
    Keys,
    modelling_keys,
    _decoder,
    _experts,
    _gemma_common,
    _gptj,
    _latent_attention,
    _layer_kinds,
    _learned_positions,
    _lm,
    _rms_swiglu,
    _shared_experts,
    _full_layers_at,
    _windows,
)
from engine.llm.state_space_families import _whole_defaults


def _head_dim_unused(fields: dict) -> dict:
    """Families whose attention is always d/H wide (``head_dim`` sets only the rotary width there)."""
    fields["block"].pop("head_size", None)
    return fields


def _floor_head_dim(fields: dict) -> dict:
    """Absent ``head_dim``: transformers' ``getattr(config, "head_dim", d // H)``, rounded down when H does not
    divide d (the attention is then H·⌊d/H⌋ wide)."""
    block, d = fields["block"], fields["d_model"]
    if block.get("head_size") is None and isinstance(d, int) and isinstance(block["heads"], int) and \
            0 < block["heads"] <= d:
        block["head_size"] = d // block["heads"]
    return fields


def _pattern_windows(c: Keys, fields: dict, default_period: int) -> dict:
    """Windows by ``layer_types``, else by ``sliding_window_pattern`` (a period, or a string such as
    "LLLG": G full, L sliding), else every ``default_period``-th layer full."""
    pattern = c.get("sliding_window_pattern")
    if isinstance(pattern, str) and c.data.get("layer_types") is None and c.data.get("sliding_window") is not None:
        if not pattern or set(pattern) - {"L", "G"}:
            raise c.error("sliding_window_pattern", "expected a period or a string of L (sliding) and G (full)")
        layers = fields["layers"]
        if isinstance(layers, int) and 1 <= layers <= 10_000:
            c.data = dict(c.data, layer_types=["full_attention" if pattern[i % len(pattern)] == "G" else
                                               "sliding_attention" for i in range(layers)])
        return _windows(c, fields, None)
    if isinstance(pattern, bool) or (pattern is not None and not isinstance(pattern, int)) or pattern == 0:
        pattern = None
    return _windows(c, fields, pattern or default_period)


# ---------------------------------------------------------------- GPT-style

def _gpt_neo(c: Keys) -> dict:
    """gpt_neo: GPT-2's layout (learned positions, LayerNorm, biased MLP) with q/k/v without biases and a
    biased output; ``attention_types`` alternates global and local (``window_size``) layers."""
    fields = {"layers": c.size("layers", "num_layers"), "d_model": c.size("d_model", "hidden_size"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": c.size("block.heads", "num_heads"),
                        "ff_size": c.size("block.ff_size", "intermediate_size", required=False),
                        "activation": c.activation("activation_function", default="gelu_new"),
                        "qkv_bias": False}}
    c.neutral("attention_layers", "embed_dropout", "resid_dropout")  # attention_layers: from attention_types
    types = c.get("attention_types", [[["global", "local"], fields["layers"] // 2 if isinstance(fields["layers"], int)
                                       else 1]])
    kinds = []
    try:
        for pattern, repeat in types:
            kinds += list(pattern) * int(repeat)
    except (TypeError, ValueError):
        raise c.error("attention_types", "expected [[[\"global\", \"local\"], n], …]") from None
    if isinstance(fields["layers"], int) and (len(kinds) != fields["layers"] or set(kinds) - {"global", "local"}):
        raise c.error("attention_types", f"expected {fields['layers']} layers of 'global' or 'local' in all")
    window = c.size("block.attention_window", "window_size", required=False, default=256)
    full = [i for i, kind in enumerate(kinds) if kind == "global"]
    if len(full) < len(kinds):
        fields = _full_layers_at(fields, window, full)
    return fields | {"learned_positions": _learned_positions(c, fields, "max_position_embeddings"),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _xglm(c: Keys) -> dict:
    """xglm (XGLM): pre-norm blocks with LayerNorms (γ, β), biased q/k/v/out and fc1/fc2 (``ffn_dim``,
    ``activation_function``), a final LayerNorm; sinusoidal positions (a buffer: no parameters) and an
    embedding scale (``scale_embedding``: no weight); a tied head by default. Cross-attention
    (``add_cross_attention``) is refused: it needs the encoder's length."""
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.neutral("scale_embedding", "is_encoder_decoder")  # is_encoder_decoder: the cache's kind only
    fields = {"layers": c.size("layers", "num_layers"), "d_model": c.size("d_model", "d_model"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": c.size("block.heads", "attention_heads"),
                        "ff_size": c.size("block.ff_size", "ffn_dim"),
                        "activation": c.activation("activation_function", default="gelu")}}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _biogpt(c: Keys) -> dict:
    """biogpt (BioGPT): pre-norm blocks with LayerNorms (γ, β), biased q/k/v/out and fc1/fc2 (``hidden_act``), a final
    LayerNorm; a learned position table of ``max_position_embeddings`` + 2 rows (its offset) and an embedding scale
    (``scale_embedding``: no weight); a tied head by default."""
    c.neutral("scale_embedding")
    fields = _decoder(c, gqa=False, activation=c.activation("hidden_act", default="gelu"))
    return fields | {"learned_positions": _learned_positions(c, fields, "max_position_embeddings", 2),
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _codegen(c: Keys) -> dict:
    """codegen: GPT-J's block (one norm, parallel attention and MLP, fused q/k/v and output without
    biases, a biased MLP) and an LM head with a bias."""
    c.neutral("n_ctx")
    return _gptj(c)


# ---------------------------------------------------------------- Llama-like

def _stablelm(c: Keys) -> dict:
    """stablelm: LayerNorm (γ, β), SwiGLU without biases, q/k/v biases (``use_qkv_bias``), a LayerNorm of
    its own per head on queries and keys (``qk_layernorm``), optionally parallel (one norm)."""
    parallel = c.flag("use_parallel_residual", False)
    fields = _decoder(c, norm="layernorm", gated=True, activation=c.activation("hidden_act", default="silu"),
                      qkv_bias=c.flag("use_qkv_bias", False), out_bias=False, ff_bias=False, parallel=parallel,
                      shared_norm=parallel, qk_norm="each_head" if c.flag("qk_layernorm", False) else "none")
    return _head_dim_unused(fields) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _cohere_common(c: Keys, qk_norm: bool) -> dict:
    c.neutral("logit_scale")
    bias = c.flag("attention_bias", False)
    fields = _decoder(c, norm="layernorm", norm_bias=False, gated=True, parallel=True, shared_norm=True,
                      activation=c.activation("hidden_act", default="silu"), qkv_bias=bias, out_bias=bias,
                      ff_bias=False, qk_norm="each_head" if qk_norm else "none")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _cohere(c: Keys) -> dict:
    """cohere (Command R, Aya): one LayerNorm without β feeding attention and MLP in parallel, SwiGLU,
    ``use_qk_norm``: a norm of its own per head (γ of H·Q and H_kv·Q); tied head by default."""
    return _cohere_common(c, c.flag("use_qk_norm", False))


def _vaultgemma(c: Keys) -> dict:
    """vaultgemma (VaultGemma): Gemma 2 without the norms on each sub-layer's output (pre-norms only); sliding
    windows on alternate layers."""
    c.neutral("hidden_act")
    fields = _gemma_common(c, ("hidden_activation",), sandwich_norms=False)
    return _windows(c, fields, 2)


def _cohere2(c: Keys) -> dict:
    """cohere2 (Command R7B, Command A): Cohere's block; three sliding-window layers in four."""
    return _pattern_windows(c, _cohere_common(c, False), 4)


COHERE_COMPASS_DEFAULTS = {"vocab_size": 256000, "hidden_size": 8192, "intermediate_size": 22528,
                           "num_hidden_layers": 40, "num_attention_heads": 64}
"""CohereCompassTextConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


def _cohere_compass_text(c: Keys) -> dict:
    """cohere_compass_text (the language model of Cohere's North/Compass checkpoints, also inside the
    ``cohere_compass`` wrapper): Command R7B's block (``_cohere_common``: one LayerNorm without β feeding attention
    and MLP in parallel, SwiGLU, no QK norms; tied head by default); ``sliding_window`` on the layers ``layer_types``
    marks "sliding_attention" (absent: every layer full — ``sliding_window_pattern`` is not read). ``head_dim`` as
    written (the config class sets ⌊d/H⌋ first, then the written key; null refused); a layer type whose ``rope_parameters`` entry is
    null runs without rotary positions (no parameters either way), a missing entry is refused (transformers cannot
    build it); ``pooling`` serves only the classification class. Absent sizes: CohereCompassTextConfig's
    defaults."""
    c.neutral("sliding_window_pattern", "pooling")
    # other projects' Compass configs carry these; transformers builds Command R7B's block whatever they say
    c.require("norm_type", lambda v: v == "layer_norm", "transformers' Cohere Compass builds LayerNorms")
    c.require("transformer_block_type", lambda v: v == "parallel", "transformers' Cohere Compass runs attention and "
                                                                   "MLP in parallel")
    c.require("mlp_bias", lambda v: v is False, "transformers' Cohere Compass MLP has no biases")
    _whole_defaults(c, COHERE_COMPASS_DEFAULTS, "CohereCompassTextConfig")
    if "head_dim" in c.data and c.data["head_dim"] is None:
        raise c.error("head_dim", "null: transformers' CohereCompassAttention cannot be built with it (absent: d/H)")
    fields = _floor_head_dim(_cohere_common(c, False))
    layers = _layer_count(fields)
    if layers and c.data.get("layer_types") is None:
        c.data = dict(c.data, layer_types=["full_attention"] * layers)
    if "sliding_window" not in c.data:
        c.data = dict(c.data, sliding_window=4096)  # CohereCompassTextConfig's default
    kinds = _layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention")) if layers else None
    fields = _windows(c, fields, None)
    rope = c.get("rope_parameters", {})
    if kinds:
        missing = [k for k in dict.fromkeys(kinds) if not isinstance(rope, dict) or k not in rope]
        if missing:
            raise c.error("rope_parameters", f"no entry for {missing[0]!r}: transformers' CohereCompassRotaryEmbedding "
                                             "needs one per layer type (null: no rotary positions) and cannot be "
                                             "built without it")
    return fields


def _granite(c: Keys) -> dict:
    """granite: the Llama block; its multipliers (embedding, residual, attention, logits) scale
    activations only."""
    c.neutral("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling")
    fields = _decoder(c, **_rms_swiglu(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _granitemoe(c: Keys) -> dict:
    """granitemoe: Granite with E experts of ``intermediate_size`` (fused gate/up), k per token, a router
    without bias."""
    c.neutral("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling")
    fields = _decoder(c, **_rms_swiglu(c))
    _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


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
    return _layer_windows(c, fields, lambda n: ["full_attention" if i % 4 == 0 else "sliding_attention"
                                                for i in range(n)])


def _granite_swa(c: Keys) -> dict:
    """granite_swa: ``_granite``'s block with ``_granite_windows``; tied head by default."""
    return _granite_windows(c, _granite(c)) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _granitemoe_swa(c: Keys) -> dict:
    """granitemoe_swa: ``_granitemoeshared``'s block with ``_granite_windows``."""
    return _granite_windows(c, _granitemoeshared(c))


def _hyperclovax(c: Keys) -> dict:
    """hyperclovax (HyperCLOVA X): Granite's block (``head_dim``, absent: d/H) with, where ``use_post_norm`` (default
    true), an RMSNorm on each sub-layer's output too (Peri-LN: sandwich norms)."""
    fields = _granite(c)
    fields["block"]["sandwich_norms"] = c.flag("use_post_norm", True)
    return fields


def _nanochat(c: Keys) -> dict:
    """nanochat: RMSNorms without a gain everywhere (the pre-norms, the final norm, the per-head norms of queries and
    keys), ``attention_bias`` on q/k/v/o, a plain up/down feed-forward without biases and ReLU² (``hidden_act``);
    ``final_logit_softcapping`` scales logits only."""
    c.neutral("final_logit_softcapping")
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head", gated=False, norm_affine=False))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _mellum(c: Keys) -> dict:
    """mellum (Mellum): Qwen3-MoE's attention (``attention_bias``, a per-head RMSNorm of queries and keys;
    ``head_dim``, absent: 128) and experts (``num_experts`` of ``moe_intermediate_size``, k per token, no shared
    expert); dense layers (a gated MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: none);
    ``sliding_window`` (absent: 1024) where ``layer_types`` says (absent: none). The multi-token-prediction layer
    (``num_mtp_layers``) is not built by transformers."""
    c.neutral("norm_topk_prob", "num_nextn_predict_layers", "mtp_layer_types", "mtp_mlp_layer_types")
    if "sliding_window" not in c.data:
        c.data = c.data | {"sliding_window": 1024}
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head"))
    if fields["block"]["head_size"] is None:
        fields["block"]["head_size"] = 128  # MellumConfig's default (not d/H)
    dense_ff = _experts(c, fields, ("num_local_experts",))
    layers = _layer_count(fields)
    if layers:
        windows = _layer_windows_each(c, layers, lambda i: False)
        _per_layer(fields, _merged(windows, _mlp_layers_each(c, layers, dense_ff, 0)))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _bitnet(c: Keys) -> dict:
    """bitnet (BitNet b1.58): the Llama block (``attention_bias`` on q/k/v/o; ``num_key_value_heads`` absent: 5, the
    config class's default) with Gemma's gated MLP (ReLU² by default, no biases) and BitNet's sub-norms: an RMSNorm
    of the attention's output (width d: the heads must span d) before the output projection and of act(gate)·up
    before the down projection. The ternary weights are trained as full-precision matrices: the count is the same."""
    if c.data.get("num_key_value_heads") is None:
        c.data = c.data | {"num_key_value_heads": 5}
    fields = _decoder(c, **_rms_swiglu(c, sub_norms=True))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    block, d = fields["block"], fields["d_model"]
    if block["head_size"] is not None and block["head_size"] * block["heads"] != d:
        raise c.error("head_dim", f"{block['head_size']} × {block['heads']} heads is not hidden_size {d} (BitNet's "
                                  "attention sub-norm has width hidden_size; transformers cannot run it)")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _diffllama(c: Keys) -> dict:
    """diffllama (DiffLlama): the Llama block with differential attention (two attention calls over the same
    queries and keys, one per half of the value heads, each repeated; four learned vectors λ of the head size; a
    gainless RMSNorm of each head's two outputs). ``num_key_value_heads`` must be even (transformers refuses
    others, and its default, null)."""
    c.neutral("lambda_std_dev")
    fields = _decoder(c, **_rms_swiglu(c, differential=True))
    kv = fields["block"]["kv_heads"]
    if kv is None or kv % 2:
        raise c.error("num_key_value_heads", f"{json.dumps(kv)} is not an even number (DiffLlama splits the values "
                                             "by key/value heads; transformers refuses it)")
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False) if c.reads("mlp_bias") else False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


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
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head", attention_output_gate=True, sandwich_norms=True,
                                       router_bias=True))
    block = fields["block"]
    if block["head_size"] is None:
        block["head_size"] = 128  # AfmoeConfig's default (not d/H)
    dense_ff = _experts(c, fields, ("num_experts",))
    _shared_experts(c, fields, "num_shared_experts", 2)
    layers = _layer_count(fields)
    if layers:
        period = c.size(None, "global_attn_every_n_layers", required=False, default=4)
        if period < 1:
            raise c.error("global_attn_every_n_layers", "must be at least 1")
        first = c.size(None, "num_dense_layers", required=False, default=1)
        windows = _layer_windows_each(c, layers, lambda i: bool((i + 1) % period))
        dense = [dict(_dense_mlp(dense_ff), router_bias=False) if i < first else {} for i in range(layers)]
        _per_layer(fields, _merged(windows, dense))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


LAGUNA_DEFAULTS = {"vocab_size": 100352, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 40,
                   "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "sliding_window": 512,
                   "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "num_experts_per_tok": 8,
                   "num_experts": 256, "max_position_embeddings": 131072}
"""LagunaConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


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
    _whole_defaults(c, LAGUNA_DEFAULTS, "LagunaConfig")
    gating = c.get("gating", True)
    per_head = gating is True or gating == "per-head"
    if not per_head and c.flag("attention_bias", False):
        raise c.error("gating", f"{json.dumps(gating)[:40]} with attention_bias true: the per-channel gate "
                                "projection has no bias while q would (not modelled)")
    gate = {"head_gate": True} if per_head else {"attention_output_gate": True}
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head", router_bias=True, gate_function="softplus", **gate))
    block = fields["block"]
    dense_ff = _experts(c, fields, ("num_experts",))
    if isinstance(block["experts"], int) and block["experts"] < 2:
        raise c.error("num_experts", f"{block['experts']}: a single expert is not modelled")
    shared = c.size(None, "shared_expert_intermediate_size")
    block["shared_ff_size"] = shared or None
    layers = _layer_count(fields)
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
    windows = _layer_windows_each(c, layers, lambda i: False)
    dense = [dict(change, router_bias=False) if change else {} for change in _mlp_layers_each(c, layers, dense_ff, 1)]
    _per_layer(fields, _merged(windows, dense, [{"heads": h} for h in heads]))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


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
    fields = _decoder(c, **_rms_swiglu(c))
    block = fields["block"]
    block |= {"out_bias": False, "value_size": c.size("block.value_size", "v_head_dim")}
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    layers = _layer_count(fields)
    if layers:
        types = _layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention"))
        if types is None:
            types = ["full_attention" if i == 0 or not (i + 1) % 6 else "sliding_attention" for i in range(layers)]
        window = c.size("block.attention_window", "sliding_window")
        kv = block["kv_heads"]
        if "sliding_attention" in types and block["heads"] % (2 * kv):
            raise c.error("num_key_value_heads", f"twice {kv} (a sliding layer's key/value heads) does not divide "
                                                 f"{block['heads']} heads (transformers cannot run it)")
        attention = [{"attention_window": window, "attention_sinks": True, "kv_heads": 2 * kv}
                     if t == "sliding_attention" else {"attention_window": None} for t in types]
        _per_layer(fields, _merged(attention, _mlp_layers_each(c, layers, dense_ff, 1)))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _phimoe(c: Keys) -> dict:
    """phimoe (Phi-3.5-MoE): LayerNorm (γ, β), q/k/v/o biases (``attention_bias``), E experts of
    ``intermediate_size``, an LM head with a bias (``lm_head_bias``); windows on every layer. Its router
    (transformers' ``sparsemixer``) picks 2 experts per token whatever ``num_experts_per_tok`` says: another
    value is refused."""
    c.neutral("input_jitter_noise")
    c.require("num_experts_per_tok", lambda v: v == 2, "Phi-3.5-MoE's router always sends each token to 2 "
                                                       "experts (transformers' sparsemixer ignores this key)")
    fields = _decoder(c, **_rms_swiglu(c, norm="layernorm"))
    _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    fields = _windows(c, fields, None)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False),
                     "head_bias": c.flag("lm_head_bias", False)}


def _glm4(c: Keys) -> dict:
    """glm4: biases on q/k/v only (``attention_bias``), fused gate/up (the same weights), a norm on each
    sub-layer's output besides the pre-norms; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    fields = _decoder(c, **_rms_swiglu(c, attention_bias=True, sandwich_norms=True))
    fields["block"]["out_bias"] = False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _smollm3(c: Keys) -> dict:
    """smollm3: the Llama block; rotary skipped on some layers (``no_rope_layers``: no parameters);
    windows only on the layers without rotary when ``use_sliding_window``."""
    c.neutral("no_rope_layers", "no_rope_layer_interval")
    fields = _decoder(c, **_rms_swiglu(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    if not c.flag("use_sliding_window", False):
        c.neutral("sliding_window", "layer_types")
    elif c.data.get("layer_types") is None:
        raise c.error("layer_types", "missing (with use_sliding_window, which layers slide)")
    else:
        fields = _windows(c, fields, None)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _exaone4(c: Keys) -> dict:
    """exaone4: norms on each sub-layer's output (before the residual add, as OLMo 2), a per-head RMSNorm of
    queries and keys; three sliding-window layers in four (``sliding_window_pattern``)."""
    fields = _decoder(c, **_rms_swiglu(c, attention_bias=False, norm_position="output", qk_norm="head"))
    if c.data.get("sliding_window") is None:
        c.neutral("sliding_window_pattern")
    fields = _pattern_windows(c, fields, 4)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


def _ernie4_5(c: Keys) -> dict:
    """ernie4_5: the Llama block, ``use_bias`` on every linear of the block; ``head_dim`` (default 128)
    must be given."""
    c.given("head_dim")
    bias = c.flag("use_bias", False)
    fields = _decoder(c, **_rms_swiglu(c, qkv_bias=bias, out_bias=bias, ff_bias=bias))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _olmo3(c: Keys) -> dict:
    """olmo3: OLMo 2's block (output norms, whole-width QK-norm); three sliding-window layers in four."""
    fields = _decoder(c, **_rms_swiglu(c, norm_position="output", qk_norm="width"))
    fields = _windows(c, fields, 4)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


def _olmoe(c: Keys) -> dict:
    """olmoe: pre-norm Llama block with a whole-width RMSNorm of queries and keys; E experts of
    ``intermediate_size``, k per token; ``clip_qkv`` clamps values only."""
    c.neutral("clip_qkv", "norm_topk_prob")
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="width"))
    _experts(c, fields, ("num_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _dense_first(c: Keys, fields: dict, sparse: list[bool], dense_ff: int) -> dict:
    """The layers that are not sparse (``sparse[i]`` false) become a first group of dense blocks (an MLP of
    ``dense_ff``); their order does not change the count."""
    dense = sparse.count(False)
    if dense:
        block = dict(fields["block"], experts=1, active_experts=1, ff_size=dense_ff, shared_ff_size=None,
                     router_bias=False)
        fields["first_layers"] = [{"layers": dense, "block": block}]
    return fields


def _glm4_moe(c: Keys) -> dict:
    """glm4_moe (GLM-4.5): GQA attention with q/k/v biases (``attention_bias``) and a per-head QK-norm
    (``use_qk_norm``); ``n_routed_experts`` of ``moe_intermediate_size``, k per token, ``n_shared_experts``
    shared ones; the first ``first_k_dense_replace`` layers dense; ``head_dim`` (absent: ⌊d/H⌋). The
    multi-token-prediction layers (``num_nextn_predict_layers``) are not built by transformers."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "num_nextn_predict_layers",
              "num_mtp_layers", "topk_method", "scoring_func")
    fields = _floor_head_dim(_decoder(c, **_rms_swiglu(c, qk_norm="head" if c.flag("use_qk_norm", False)
                                                        else "none")))
    fields["block"]["out_bias"] = False
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts", 1)
    layers = _layer_count(fields)
    if layers:
        first = c.size(None, "first_k_dense_replace", required=False, default=1)
        _dense_first(c, fields, [i >= first for i in range(layers)], dense_ff)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _ernie4_5_moe(c: Keys) -> dict:
    """ernie4_5_moe: ERNIE 4.5's block; layers ``moe_layer_start_index`` … ``moe_layer_end_index`` (every
    ``moe_layer_interval``-th) sparse: ``moe_num_experts`` of ``moe_intermediate_size``, ``moe_k`` per
    token, a learned score correction per expert (E parameters, counted as the router's bias) and
    ``moe_num_shared_experts`` × ``moe_intermediate_size`` shared; ``use_bias`` on every linear and the
    LM head; ``head_dim`` (absent: ⌊d/H⌋, unlike the dense ERNIE 4.5's 128)."""
    c.neutral("moe_norm_min", "num_mtp_layers", "moe_capacity", "moe_gate", "moe_use_aux_free")
    bias = c.flag("use_bias", False)
    fields = _floor_head_dim(_decoder(c, **_rms_swiglu(c, qkv_bias=bias, out_bias=bias, ff_bias=bias)))
    block = fields["block"]
    dense_ff = block["ff_size"]
    block |= {"experts": c.size("block.experts", "moe_num_experts"),
              "active_experts": c.size("block.active_experts", "moe_k"),
              "ff_size": c.size("block.ff_size", "moe_intermediate_size"), "router_bias": True,
              "ff_bias": False}  # the experts' weights have no biases whatever use_bias says
    shared = c.size(None, "moe_num_shared_experts", required=False, default=0)
    if shared:
        if bias:
            raise c.error("use_bias", "biases on the shared experts are not modelled")
        block["shared_ff_size"] = shared * block["ff_size"]
    layers = _layer_count(fields)
    if layers:
        start = c.size(None, "moe_layer_start_index", required=False, default=1)
        end = c.size(None, "moe_layer_end_index", required=False, default=-1)
        end = layers - 1 if end == -1 else end
        step = c.size(None, "moe_layer_interval", required=False, default=1)
        if step < 1:
            raise c.error("moe_layer_interval", "must be at least 1")
        _dense_first(c, fields, [(i + 1) % step == 0 and start <= i <= end for i in range(layers)], dense_ff)
        for group in fields.get("first_layers", []):
            group["block"]["ff_bias"] = bias
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True), "head_bias": bias}


def _llama4_text(c: Keys) -> dict:
    """llama4_text (Llama 4's language model): the Llama block; MoE layers (``moe_layers``, else every
    ``interleave_moe_layer_step``-th) with E experts of ``intermediate_size``, k per token and a shared
    expert of the same size; the other layers a dense MLP of ``intermediate_size_mlp``. The QK-norm is an
    L2 norm without parameters; chunked attention and skipped rotary change no matmul.

    transformers' ``Llama4TextMoe`` runs every expert on every token (inputs scaled by the router's
    scores, zero off the top k): the engine counts the k routed experts a token uses, as the model is
    meant to run (docs/llm.md)."""
    c.neutral("use_qk_norm", "no_rope_layers", "no_rope_layer_interval", "attention_chunk_size",
              "attn_temperature_tuning", "floor_scale", "attn_scale", "layer_types", "for_llm_compressor")
    c.given("head_dim")
    fields = _decoder(c, **_rms_swiglu(c))
    block = fields["block"]
    dense_ff = c.size(None, "intermediate_size_mlp")
    _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    block["shared_ff_size"] = block["ff_size"]
    if block["experts"] == 1:
        raise c.error("num_local_experts", "a Llama 4 MoE layer needs at least 2 experts")
    layers = _layer_count(fields)
    if layers:
        moe = c.get("moe_layers")
        if moe is None:
            step = c.size(None, "interleave_moe_layer_step", required=False, default=1)
            if step < 1:
                raise c.error("interleave_moe_layer_step", "must be at least 1")
            moe = list(range(step - 1, layers, step))
        else:
            c.neutral("interleave_moe_layer_step")
        if not isinstance(moe, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in moe):
            raise c.error("moe_layers", "expected a list of layer numbers")
        _dense_first(c, fields, [i in set(moe) for i in range(layers)], dense_ff)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


# ---------------------------------------------------------------- more Llama-like decoders

def _helium(c: Keys) -> dict:
    """helium: the Llama block; q/k/v biases only (``attention_bias``), an output projection d→d without
    one (so H·Q must equal d), ``mlp_bias`` on the feed-forward; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    bias = c.flag("attention_bias", False)
    fields = _decoder(c, **_rms_swiglu(c, qkv_bias=bias, out_bias=False, ff_bias=c.flag("mlp_bias", False)))
    block = fields["block"]
    if block["head_size"] is not None and block["head_size"] * block["heads"] != fields["d_model"]:
        raise c.error("head_dim", "heads × head_dim must equal hidden_size (Helium's output projection is d→d)")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _head_dim_written(c: Keys, why: str) -> None:
    """``head_dim`` must be written out, not null: the family's attention reads it as it stands (``why``: what
    transformers does without it)."""
    if c.data.get("head_dim") is None:
        raise c.error("head_dim", f"missing ({why}; write it out)")


def _ministral3(c: Keys) -> dict:
    """ministral3 (the language model of Ministral 3): the Mistral block (no biases); ``sliding_window`` W
    (null: full attention) on every layer; ``head_dim`` must be given (the config's default is 128, not d/H, and
    it refuses null)."""
    _head_dim_written(c, "transformers' Ministral 3 default is 128, not d/H")
    fields = _decoder(c, **_rms_swiglu(c))
    return _windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _ministral(c: Keys) -> dict:
    """ministral (Ministral 8B): the Mistral block (no biases); ``sliding_window`` W on the layers ``layer_types``
    marks sliding (absent: every layer); ``sliding_window`` (MinistralModel builds the sliding mask whatever the
    layers) and ``head_dim`` (the config's default, null, does not build) must be given."""
    _head_dim_written(c, "transformers' MinistralAttention cannot be built with its default, null")
    if c.data.get("sliding_window") is None:  # MinistralModel builds the sliding mask on every forward
        raise c.error("sliding_window", "missing (transformers' MinistralModel cannot run without it; full attention "
                                        "on a layer: \"full_attention\" in layer_types)")
    fields = _decoder(c, **_rms_swiglu(c))
    return _windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _arcee(c: Keys) -> dict:
    """arcee (AFM-4.5B): the Llama block (``attention_bias`` on q/k/v/o) with a plain up/down feed-forward
    (``mlp_bias``) and ReLU² (``hidden_act``, default relu2) instead of SwiGLU; absent ``head_dim``: d/H."""
    fields = _decoder(c, **_rms_swiglu(c, gated=False, ff_bias=c.flag("mlp_bias", False)))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _apertus(c: Keys) -> dict:
    """apertus: Llama's attention (``attention_bias`` on q/k/v/o) with a per-head RMSNorm of queries and keys; a
    plain up/down feed-forward without biases and xIELU (``hidden_act``, default xielu: two learned scalars per
    layer's MLP, α_p and α_n); the norms renamed (attention_layernorm, feedforward_layernorm), the same pre-norms."""
    fields = _decoder(c, **_rms_swiglu(c, gated=False, qk_norm="head"))
    fields["block"]["activation"] = c.activation("hidden_act", default="xielu")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _apertus1p5_text(c: Keys) -> dict:
    """apertus1p5_text (Apertus 1.5's language model, also inside its multimodal wrapper): Apertus's block; the
    token table keeps the full vocabulary V (text, visual and audio codes) while an untied LM head may be pruned to
    ``output_vocab_size`` O rows (d→O; null or V: the full head). A tied head is the table itself (transformers
    ties lm_head to embed_tokens whatever O: V logits)."""
    fields = _apertus(c)
    rows = c.size("head_vocab_size", "output_vocab_size", required=False)
    if rows is not None and not 1 <= rows <= fields["vocab_size"]:
        raise c.error("output_vocab_size", f"{rows} head rows: must be in [1, vocab_size] "
                                           f"({fields['vocab_size']}), as Apertus1p5TextConfig checks")
    if rows is not None and rows != fields["vocab_size"] and not fields["tied_embeddings"] \
            and c.cls.endswith("ForCausalLM"):  # the bare model has no head
        fields["head_vocab_size"] = rows
    return fields


def _hunyuan_v1_dense(c: Keys) -> dict:
    """hunyuan_v1_dense (Hunyuan 0.5B–7B): the Llama block (``attention_bias`` on q/k/v/o, no MLP biases) with a
    per-head RMSNorm of queries and keys (after the rotary embedding: no count difference); ``head_dim`` must be
    given (the config's default is null, which the attention cannot build)."""
    _head_dim_written(c, "transformers' HunYuan attention cannot be built with its default, null")
    c.neutral("eod_token_id")
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _one_per_layer(c: Keys, key: str, default: int) -> int:
    """A key HunYuan's router also takes as a list per layer (``moe_topk``): one number, or a list of the same
    number for every layer; different numbers by layer are refused."""
    value = c.data.get(key)
    if isinstance(value, list):
        c.used.add(key)
        if len(set(map(str, value))) != 1 or len(value) != c.data.get("num_hidden_layers"):
            raise c.error(key, "a list of different values by layer is not modelled (one value, or the same for "
                               "every layer)")
        c.data = dict(c.data, **{key: value[0]})
    return c.size(None, key, required=False, default=default)


def _hunyuan_v1_moe(c: Keys) -> dict:
    """hunyuan_v1_moe (Hunyuan-A13B): HunYuan's dense block with, on every layer, E experts of
    ``intermediate_size`` behind a router d→E without bias (``num_experts``), ``moe_topk`` per token (one number,
    or the same for every layer), and a shared MLP of ``intermediate_size`` beside them. One expert (E = 1: a router d→1 still built) is refused by name."""
    fields = _hunyuan_v1_dense(c)
    block = fields["block"]
    if isinstance(c.data.get("num_experts"), list):  # the router reads it by layer, the experts as one number
        raise c.error("num_experts", "a list by layer is not built by transformers (its experts read one number)")
    experts, k = c.size(None, "num_experts", required=False, default=1), _one_per_layer(c, "moe_topk", 1)
    if experts == 1:
        raise c.error("num_experts", "1 is not modelled (transformers still builds a router d→1 and the shared MLP)")
    block |= {"experts": experts, "active_experts": k, "shared_ff_size": block["ff_size"]}
    c.key_of |= {"block.experts": "num_experts", "block.active_experts": "moe_topk"}
    return fields


def _openai_gpt(c: Keys) -> dict:
    """openai-gpt (GPT-1): learned positions (``n_positions`` rows), post-norm blocks (LayerNorm after each
    residual add, none at the end), biased fused q/k/v, output and a 4·d MLP (``afn``), a tied LM head."""
    c.neutral("summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
              "summary_first_dropout", "predict_special_tokens", "n_special", "n_ctx")
    fields = {"layers": c.size("layers", "n_layer"), "d_model": c.size("d_model", "n_embd"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "n_positions", required=False),
              "block": {"heads": c.size("block.heads", "n_head"), "activation": c.activation("afn", default="gelu"),
                        "norm_position": "post"}}
    return fields | {"learned_positions": _learned_positions(c, fields, "n_positions"), "final_norm": False,
                     "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _seed_oss(c: Keys) -> dict:
    """seed_oss: the Llama block; ``attention_bias`` on q/k/v, ``attention_out_bias`` on the output,
    ``mlp_bias`` on the feed-forward; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    c.neutral("residual_dropout")
    bias = c.flag("attention_bias", True)
    fields = _decoder(c, **_rms_swiglu(c, qkv_bias=bias, out_bias=c.flag("attention_out_bias", False),
                                       ff_bias=c.flag("mlp_bias", False)))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _glm(c: Keys) -> dict:
    """glm (GLM-4 9B's first release): GLM-4's attention (q/k/v biases, an output without) and fused
    gate/up, without GLM-4's extra output norms; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    fields = _decoder(c, **_rms_swiglu(c, attention_bias=True))
    fields["block"]["out_bias"] = False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _layer_windows(c: Keys, fields: dict, default_types) -> dict:
    """``_windows``, where a file without ``layer_types`` gets transformers' default list
    (``default_types(layers)``) rather than a period."""
    layers = _layer_count(fields)
    if c.data.get("layer_types") is None and c.data.get("sliding_window") is not None and layers:
        full = [i for i, kind in enumerate(default_types(layers)) if kind == "full_attention"]
        fields = _windows(c, fields, None)
        return _full_layers_at(fields, fields["block"]["attention_window"], full)
    return _windows(c, fields, None)


def _cwm(c: Keys) -> dict:
    """cwm (Code World Model): the Llama block without attention biases; windows on the layers
    ``layer_types`` marks sliding (absent: all but every fourth layer from the first)."""
    fields = _decoder(c, **_rms_swiglu(c, ff_bias=c.flag("mlp_bias", False)))
    default = lambda n: ["full_attention" if i % 4 == 0 else "sliding_attention" for i in range(n)]  # noqa: E731
    return _layer_windows(c, fields, default) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _flex_olmo(c: Keys) -> dict:
    """flex_olmo: OLMo 2's layout (norms on each sub-layer's output, whole-width QK-norm) with OLMoE's
    experts (E of ``intermediate_size``, k per token)."""
    c.neutral("norm_topk_prob")
    fields = _decoder(c, **_rms_swiglu(c, norm_position="output", qk_norm="width"))
    _experts(c, fields, ("num_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


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
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="width"))
    _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


MINIMAX_M3_DEFAULTS = {"vocab_size": 200064, "hidden_size": 6144, "intermediate_size": 3072,
                      "dense_intermediate_size": 12288, "shared_intermediate_size": 3072, "num_hidden_layers": 60,
                      "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128, "num_local_experts": 128,
                      "num_experts_per_tok": 4, "index_n_heads": 4, "index_head_dim": 128, "index_block_size": 128}
"""MiniMaxM3VLTextConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""

MINIMAX_M3_LEGACY = {"index_n_heads": "sparse_num_index_heads", "index_head_dim": "sparse_index_dim",
                     "index_block_size": "sparse_block_size", "index_topk_blocks": "sparse_topk_blocks",
                     "index_local_blocks": "sparse_local_block"}
"""MiniMaxM3VLTextConfig: the checkpoint's ``sparse_attention_config`` keys that override the flat ones."""


def _minimax_m3_vl_text(c: Keys) -> dict:
    """minimax_m3_vl_text (MiniMax-M3's language model, also inside its VL wrapper): MiniMax-M2's GQA attention
    without biases, but a per-head RMSNorm of queries and keys (Gemma's 1 + γ: D each), partial rotary
    (``rotary_dim``: no parameters); on the layers ``layer_types`` marks "minimax_m3_sparse" an indexer (queries
    d→``index_n_heads``·``index_head_dim``, one key d→``index_head_dim``, their per-head norms) scores every
    query–key pair and picks key blocks that only mask the attention (no gradient reaches it). By
    ``mlp_layer_types`` (absent: all sparse) a dense SwiGLU-OAI MLP of ``dense_intermediate_size`` (gate and up in
    one d→2F matrix) or ``num_local_experts`` of ``intermediate_size``, k per token, behind a sigmoid router d→E
    without bias (its score correction a buffer), beside a shared expert of ``shared_intermediate_size`` (0: none).
    The checkpoint's ``sparse_attention_config`` (index sizes, ``sparse_attention_freq``) and ``moe_layer_freq``
    are read as MiniMaxM3VLTextConfig reads them. Absent sizes: its defaults."""
    c.neutral("hidden_act", "swiglu_alpha", "swiglu_limit", "routed_scaling_factor", "rotary_dim",
              "index_topk_blocks", "index_local_blocks", "scoring_func", "use_routing_bias", "num_mtp_modules",
              "num_nextn_predict_layers", "partial_rotary_factor")
    c.require("use_qk_norm", lambda v: v is True, "transformers' MiniMax-M3 always builds the per-head QK norms")
    c.require("qk_norm_type", lambda v: v == "per_head", "transformers' MiniMax-M3 norms each head (per_head)")
    c.require("n_shared_experts", lambda v: v == 1, "transformers' MiniMax-M3 builds one shared expert of "
                                                    "shared_intermediate_size")
    legacy = c.get("sparse_attention_config") or {}
    if not isinstance(legacy, dict):
        raise c.error("sparse_attention_config", "expected an object")
    c.data = dict(c.data, **{flat: legacy[old] for flat, old in MINIMAX_M3_LEGACY.items() if old in legacy})
    _whole_defaults(c, MINIMAX_M3_DEFAULTS, "MiniMaxM3VLTextConfig")
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head"))
    block = fields["block"]
    layers = _layer_count(fields)
    if not layers:
        return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
    key = "layer_types"
    kinds = c.get("layer_types")
    if kinds is None and "sparse_attention_freq" in legacy:
        key, freq = "sparse_attention_config", legacy["sparse_attention_freq"]
        kinds = ["minimax_m3_sparse" if f else "full_attention" for f in freq] if isinstance(freq, list) else freq
    kinds = ["full_attention"] * layers if kinds is None else kinds
    if not isinstance(kinds, list) or len(kinds) != layers or \
            not set(kinds) <= {"full_attention", "minimax_m3_sparse"}:
        raise c.error(key, f"expected {layers} entries of 'full_attention' or 'minimax_m3_sparse'")
    mlp_kinds = c.get("mlp_layer_types")
    if mlp_kinds is None and c.get("moe_layer_freq") is not None:
        freq = c.get("moe_layer_freq")
        if not isinstance(freq, list) or len(freq) != layers:
            raise c.error("moe_layer_freq", f"expected {layers} entries (1: sparse, 0: dense)")
        mlp_kinds = ["sparse" if f else "dense" for f in freq]
    c.data = dict(c.data, mlp_layer_types=["sparse"] * layers if mlp_kinds is None else mlp_kinds)
    sparse_attention = "minimax_m3_sparse" in kinds
    values = legacy.get("sparse_disable_index_value")
    if sparse_attention and values is not None and (not isinstance(values, list) or len(values) != layers or any(
            not values[i] for i, k in enumerate(kinds) if k == "minimax_m3_sparse")):
        raise c.error("sparse_attention_config.sparse_disable_index_value",
                      "an index-value path on a sparse layer (0) is not built by transformers' MiniMax-M3 (only 1 "
                      "on the sparse layers, one entry per layer)")
    if sparse_attention and legacy.get("use_sparse_attention") is False:
        raise c.error("sparse_attention_config.use_sparse_attention",
                      "false while layers are sparse: transformers builds their indexer all the same")
    if sparse_attention:
        heads, index_heads = block["heads"], c.size(None, "index_n_heads")
        if not index_heads or heads % index_heads:
            raise c.error("index_n_heads", f"must divide num_attention_heads ({heads}): each indexer head's block "
                                           "choice is repeated over a group of attention heads")
        if not c.size(None, "index_block_size"):
            raise c.error("index_block_size", "must be at least 1")
    else:
        c.neutral("index_n_heads", "index_head_dim", "index_block_size")
    dense_ff = c.size(None, "dense_intermediate_size")
    mlps = _mlp_layers_each(c, layers, dense_ff, 0)
    if all(mlps):  # no sparse layer
        c.neutral("num_local_experts", "num_experts_per_tok", "intermediate_size", "shared_intermediate_size")
        block |= _dense_mlp(dense_ff)
    else:
        _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
        if block["experts"] == 1:
            raise c.error("num_local_experts", "1: one routed expert behind a router d→1 is not modelled")
        shared = c.size(None, "shared_intermediate_size")
        block["shared_ff_size"] = shared or None
    index = {"indexer_heads": c.size("block.indexer_heads", "index_n_heads"),
             "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim")} if sparse_attention else {}
    no_index = {"indexer_heads": None, "indexer_head_size": None}
    attention = [index if k == "minimax_m3_sparse" else no_index for k in kinds]
    return _per_layer(fields, _merged(attention, mlps)) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


MINIMAX_KINDS = {"full_attention": 1, "linear_attention": 0}
"""MiniMax's ``layer_types`` and the remote code's ``attn_type_list`` values for them."""


def _minimax(c: Keys) -> dict:
    """minimax (MiniMax-Text-01, MiniMax-M1): each layer softmax attention (Mixtral's: GQA, no biases, ``sliding_window``
    W by mask only) or lightning attention (``engine.method1.lightning``: H heads of ``head_dim``, blocks of
    ``block_size``) by ``layer_types`` (absent: transformers' default, full on even layers, linear on odd ones),
    then E experts of ``intermediate_size``, k per token, behind a router without bias (Mixtral's). The residual
    is the norm's output, added back as α·residual + β·output (``*_alpha_factor``/``*_beta_factor``: the same
    parameters and products as a pre-norm block; the full convention counts the two scalings). The remote code's
    ``attn_type_list`` is read by nothing in transformers: accepted where it says what ``layer_types`` says, refused
    otherwise; its shared expert (``shared_intermediate_size``) is not built by transformers: refused."""
    c.neutral("full_attn_alpha_factor", "full_attn_beta_factor", "linear_attn_alpha_factor", "linear_attn_beta_factor",
              "mlp_alpha_factor", "mlp_beta_factor", "postnorm", "shared_moe_mode", "layernorm_full_attention_alpha",
              "layernorm_full_attention_beta", "layernorm_linear_attention_alpha", "layernorm_linear_attention_beta",
              "layernorm_mlp_alpha", "layernorm_mlp_beta")
    c.require("shared_intermediate_size", lambda v: v == 0, "transformers' MiniMax builds no shared expert")
    fields = _floor_head_dim(_decoder(c, **_rms_swiglu(c), residual_scales=True))
    _experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    layers = _layer_count(fields)
    types = c.get("layer_types")
    if types is None and layers:
        types = ["full_attention" if (i + 1) % 2 else "linear_attention" for i in range(layers)]
    if layers and (not isinstance(types, list) or len(types) != layers or not set(types) <= set(MINIMAX_KINDS)):
        raise c.error("layer_types", f"expected {layers} entries of 'full_attention' or 'linear_attention'")
    listed = c.get("attn_type_list")
    if listed is not None and layers and listed != [MINIMAX_KINDS[t] for t in types]:
        raise c.error("attn_type_list", "differs from the layer kinds transformers builds (layer_types"
                                        + (", absent: its default alternation" if c.data.get("layer_types") is None
                                           else "") + "); write layer_types")
    full = dict(fields["block"])
    window = c.size("block.attention_window", "sliding_window", required=False)
    if window is not None:
        full["attention_window"] = window
    lightning = dict(full, mixer="lightning", kv_heads=None, attention_window=None,
                     lightning_block_size=c.size("block.lightning_block_size", "block_size", required=False,
                                                 default=256))
    if layers:
        at = [i for i, t in enumerate(types) if t == "full_attention"]
        fields["block"] = full if len(at) == layers else lightning
        if at and len(at) < layers:
            fields["first_layers"] = [{"layers": len(at), "block": full, "at": at}]
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _nemotron(c: Keys) -> dict:
    """nemotron (Nemotron-4, Minitron): LayerNorm with γ and β (γ stored as 1 + w), ``attention_bias`` on
    q/k/v/o, a plain up/down feed-forward with ReLU² and ``mlp_bias``."""
    c.neutral("norm_eps")
    if c.data.get("num_key_value_heads") is None:
        raise c.error("num_key_value_heads", "missing (transformers' NemotronAttention needs it written out)")
    bias = c.flag("attention_bias", False)
    fields = _decoder(c, norm="layernorm", gated=False, activation=c.activation("hidden_act", default="relu2"),
                      qkv_bias=bias, out_bias=bias, ff_bias=c.flag("mlp_bias", False))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _persimmon(c: Keys) -> dict:
    """persimmon: LayerNorm, fused q/k/v and output with biases, a LayerNorm of d/H (γ, β) on queries and
    keys (``qk_layernorm``), a biased up/down feed-forward with ReLU²; attention d/H wide."""
    fields = _decoder(c, gqa=False, activation=c.activation("hidden_act", default="relu2"),
                      qk_norm="head" if c.flag("qk_layernorm", True) else "none")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _layer_count(fields: dict) -> int | None:
    """The number of layers if it is one the model accepts (else its own check names the key)."""
    layers = fields["layers"]
    return layers if isinstance(layers, int) and 1 <= layers <= 10_000 else None


def _nested(c: Keys, key: str) -> Keys:
    """The typed reads of a nested object (DBRX's ``attn_config``), its source named ``config.<key>``."""
    value = c.get(key, {})
    if not isinstance(value, dict):
        raise c.error(key, "expected an object")
    sub = Keys(value, f"{c.source}.{key}", c.lenient)
    sub.model_type = c.model_type
    return sub


def _nested_done(c: Keys, sub: Keys, key: str) -> None:
    """Every key of the nested object read, neutral, or not read by the family's transformers code (listed as
    not used); one transformers reads and the reader does not is refused (``lenient``: listed as left out)."""
    readers = modelling_keys().get(c.model_type, {})
    for name in sorted(k for k in sub.data if k not in sub.used and k not in NEUTRAL_KEYS):
        if name not in readers:
            c.unused.append(f"{key}.{name}")
        elif c.lenient:
            c.ignored.append(f"{key}.{name}")
        else:
            raise sub.error(name, f"transformers' {', '.join(readers[name])} read it, and this reader does not, so "
                                  "it may change the parameters or FLOP; read the file leniently to count without it")


def _dbrx(c: Keys) -> dict:
    """dbrx: LayerNorms without β; a fused q/k/v without bias (``attn_config.kv_n_heads`` key/value heads; the
    values clamped by ``clip_qkv``, no matmul) and an output d→d; ``ffn_config``: a router d→E without bias and
    E gated experts (w1, v1: d→F; w2: F→d; activation ``ffn_act_fn.name``), k per token; an untied LM head
    (transformers refuses a tied one)."""
    c.neutral("num_key_value_heads")  # DbrxConfig sets it from attn_config.kv_n_heads whatever the file says
    attn, ffn = _nested(c, "attn_config"), _nested(c, "ffn_config")
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
              "block": {"heads": heads, "kv_heads": attn.size("block.kv_heads", "kv_n_heads", required=False, default=1),
                        "ff_size": ffn.size("block.ff_size", "ffn_hidden_size", required=False, default=3584),
                        "experts": ffn.size("block.experts", "moe_num_experts", required=False, default=4),
                        "active_experts": ffn.size("block.active_experts", "moe_top_k", required=False, default=1),
                        "gated": True, "activation": activation, "norm": "layernorm", "norm_bias": False,
                        "qkv_bias": False, "out_bias": False, "ff_bias": False}}
    for sub, key in ((attn, "attn_config"), (ffn, "ffn_config")):
        c.key_of.update({f: f"{key}.{k}" for f, k in sub.key_of.items()})
        _nested_done(c, sub, key)
    if c.flag("tie_word_embeddings", False):
        raise c.error("tie_word_embeddings", "true is refused by transformers' DbrxConfig")
    return fields | {"tied_embeddings": False}


# ---------------------------------------------------------------- blocks that differ layer by layer

def _per_layer(fields: dict, changes: list[dict]) -> dict:
    """Blocks that differ by layer: ``changes[i]`` holds what layer i's block changes in ``fields["block"]`` (its
    window, a dense MLP in place of the experts). The layers like the last keep the main block; each other kind
    becomes a group on its own layers (``at``)."""
    base, main = fields["block"], changes[-1]
    fields["block"] = base | main
    kinds: dict[str, tuple[dict, list[int]]] = {}
    for i, change in enumerate(changes):
        if change != main:
            kinds.setdefault(json.dumps(change, sort_keys=True), (change, []))[1].append(i)
    if kinds:
        fields["first_layers"] = [{"layers": len(at), "block": base | change, "at": at}
                                  for change, at in kinds.values()]
    return fields


def _layer_windows_each(c: Keys, layers: int, default) -> list[dict]:
    """Each layer's window: ``sliding_window`` W where ``layer_types`` says "sliding_attention" (absent:
    where ``default(i)``), else none; without W none anywhere (``layer_types`` then changes nothing)."""
    window = c.size("block.attention_window", "sliding_window", required=False)
    types = _layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention"))
    if window is None:
        return [{"attention_window": None}] * layers
    sliding = [default(i) for i in range(layers)] if types is None else [t == "sliding_attention" for t in types]
    return [{"attention_window": window if s else None} for s in sliding]


def _dense_mlp(dense_ff) -> dict:
    """What a dense layer changes in a mixture-of-experts block: one MLP of ``dense_ff``, no shared expert."""
    return {"experts": 1, "active_experts": 1, "ff_size": dense_ff, "shared_ff_size": None}


def _mlp_layers_each(c: Keys, layers: int, dense_ff, first_dense: int) -> list[dict]:
    """Each layer's feed-forward by ``mlp_layer_types`` ("dense": an MLP of ``dense_ff``; absent: the first
    ``first_dense`` layers dense, the others sparse)."""
    types = _layer_kinds(c, "mlp_layer_types", layers, ("dense", "sparse"))
    dense = [i < first_dense for i in range(layers)] if types is None else [t == "dense" for t in types]
    return [_dense_mlp(dense_ff) if d else {} for d in dense]


def _merged(*per_layer: list[dict]) -> list[dict]:
    return [functools.reduce(lambda a, b: a | b, changes, {}) for changes in zip(*per_layer)]


def _dots1(c: Keys) -> dict:
    """dots1 (dots.llm1): Qwen3's attention (``attention_bias`` on q/k/v/o, a per-head RMSNorm of queries and keys;
    absent ``head_dim``: ⌊d/H⌋) and DeepSeek-V3's mixture of experts: ``n_routed_experts`` of
    ``moe_intermediate_size``, k per token, a router d→E without bias (its score correction a buffer),
    ``n_shared_experts`` × ``moe_intermediate_size`` shared; the first ``first_k_dense_replace`` layers dense
    (``intermediate_size``); ``sliding_window`` on the layers ``layer_types`` marks sliding (absent: from
    ``max_window_layers`` on)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob")
    fields = _floor_head_dim(_decoder(c, **_rms_swiglu(c, qk_norm="head")))
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts")  # the config's default, null, does not build
    layers = _layer_count(fields)
    if not layers:
        return fields
    first = c.size(None, "first_k_dense_replace", required=False, default=0)
    start = c.size(None, "max_window_layers", required=False, default=layers)
    windows = _layer_windows_each(c, layers, lambda i: i >= start)
    return _per_layer(fields, _merged(windows, _mlp_layers_each(c, layers, dense_ff, first))) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _exaone_moe(c: Keys) -> dict:
    """exaone_moe (K-EXAONE): EXAONE 4's attention (no biases, a per-head RMSNorm of queries and keys) in pre-norm
    blocks; sparse layers (``mlp_layer_types``, absent: all but the first ``first_k_dense_replace``) with
    ``num_experts`` of ``moe_intermediate_size``, k per token, a router d→E without bias (its score correction a
    buffer) and ``num_shared_experts`` × ``moe_intermediate_size`` shared, dense ones an MLP of
    ``intermediate_size``; windows by ``layer_types`` (absent: by ``sliding_window_pattern``, a period or a string
    of L and G)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "num_nextn_predict_layers")
    fields = _floor_head_dim(_decoder(c, **_rms_swiglu(c, qk_norm="head")))
    dense_ff = _experts(c, fields, ("num_experts",))
    _shared_experts(c, fields, "num_shared_experts", 1)
    layers = _layer_count(fields)
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
    windows = _layer_windows_each(c, layers, default)
    return _per_layer(fields, _merged(windows, _mlp_layers_each(c, layers, dense_ff, first))) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _glm4_moe_lite(c: Keys) -> dict:
    """glm4_moe_lite (GLM-4.7-Flash): DeepSeek-V3's multi-head latent attention with GLM-4.5's mixture of experts
    (``n_routed_experts`` of ``moe_intermediate_size``, k per token, ``n_shared_experts`` shared, a router without
    bias); dense layers (an MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: the first).
    ``q_lora_rank`` (default 768) must be written out (null: queries projected directly)."""
    c.neutral("num_key_value_heads", "routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob",
              "num_nextn_predict_layers", "topk_method")
    c.given("q_lora_rank")
    fields = _latent_attention(c, _decoder(c, gqa=False, **_rms_swiglu(c)))
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts", 1)
    layers = _layer_count(fields)
    if layers:
        _per_layer(fields, _mlp_layers_each(c, layers, dense_ff, 1))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


MINICPM5_MOE_DEFAULTS = {"vocab_size": 130560, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 28,
                         "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
                         "moe_intermediate_size": 512, "n_routed_experts": 160, "num_experts_per_tok": 16,
                         "max_position_embeddings": 524288}
"""MiniCPM5MoeConfig's defaults of the sizes (its docstring checkpoint, openbmb/MiniCPM5-15B-A2.5B)."""


def _minicpm5_moe(c: Keys) -> dict:
    """minicpm5_moe (MiniCPM5-MoE): Llama's GQA attention whose q projection also makes a sigmoid output gate
    (``q_gate_proj`` d→2·H·Q, query and gate per head; gate × output per channel before o), ``attention_bias`` on
    all four projections; ``head_dim`` absent 128 (null: ⌊d/H⌋), ``num_key_value_heads`` absent 2 (null: H), as
    MiniCPM5MoeConfig fills them (other absent sizes: its defaults too). DeepSeek-V3's experts: ``n_routed_experts`` of ``moe_intermediate_size``, k per
    token, a router d→E without bias (its score correction a buffer), ``n_shared_experts`` × ``moe_intermediate_size``
    shared; dense layers (an MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: the first
    ``first_k_dense_replace``, absent 1). ``use_gated_attention`` false is refused (transformers refuses it)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob")
    c.require("use_gated_attention", lambda v: v is not False, "MiniCPM5MoeConfig refuses attention without its "
                                                              "output gate")
    c.data = {**MINICPM5_MOE_DEFAULTS, **c.data}  # absent sizes (null head_dim: ⌊d/H⌋, null kv heads: H)
    fields = _floor_head_dim(_decoder(c, **_rms_swiglu(c, attention_output_gate=True)))
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts", 1)
    layers = _layer_count(fields)
    if layers:
        if c.data.get("mlp_layer_types") is None and "first_k_dense_replace" in c.data and \
                c.data["first_k_dense_replace"] is None:
            raise c.error("first_k_dense_replace", "null is not accepted (MiniCPM5MoeConfig compares the layer "
                                                   "numbers with it)")
        first = c.size(None, "first_k_dense_replace", required=False, default=1)
        _per_layer(fields, _mlp_layers_each(c, layers, dense_ff, first))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _latent_kv_heads(c: Keys, heads, default: int) -> None:
    """Latent attention makes keys and values for every head: ``num_key_value_heads`` (absent: the config class's
    ``default``) must equal the heads (transformers' repeat_kv fails on any other number)."""
    kv_heads = c.size(None, "num_key_value_heads", required=False, default=default)
    if kv_heads != heads:
        raise c.error("num_key_value_heads", f"{kv_heads} (absent: {default}) differs from num_attention_heads "
                                             f"{heads}: transformers' latent attention cannot run with it")


def _youtu(c: Keys) -> dict:
    """youtu (Youtu-LLM): DeepSeek-V3's multi-head latent attention (``attention_bias`` on the down- and output
    projections) in Llama's blocks with a dense gated MLP (no biases); tied head by default. ``q_lora_rank``
    (default 1536) must be written out (null: queries projected directly)."""
    c.neutral("head_dim", "embedding_initializer_range", "rope_interleave")
    c.given("q_lora_rank")
    fields = _latent_attention(c, _decoder(c, gqa=False, **_rms_swiglu(c)))
    _latent_kv_heads(c, fields["block"]["heads"], 16)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def _solar_open(c: Keys) -> dict:
    """solar_open (Solar Open): Llama's attention (``attention_bias`` on q/k/v, none on the output; ``head_dim``,
    absent: 128) and GLM-4.5's experts in every layer (``n_routed_experts`` of ``moe_intermediate_size``, k per
    token, ``n_shared_experts`` shared, a router without bias)."""
    # intermediate_size: SolarOpenMLP's default, but its only MLP (the shared experts) is given its size
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "intermediate_size")
    fields = _decoder(c, ff_key=None, **_rms_swiglu(c))
    block = fields["block"]
    if block["head_size"] is None:
        block["head_size"] = 128  # SolarOpenConfig's default (not d/H)
    block["out_bias"] = False
    _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts", 1)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _jais2(c: Keys) -> dict:
    """jais2 (Jais 2): the Llama block with LayerNorms (γ, β), ``attention_bias`` on q/k/v/o (default true) and a
    plain up/down feed-forward (``mlp_bias``, default true) with ReLU² (``hidden_act``)."""
    fields = _decoder(c, **_rms_swiglu(c, attention_bias=True, norm="layernorm", gated=False,
                                       ff_bias=c.flag("mlp_bias", True)))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _sparse_attention(c: Keys, heads_default: int, indexer_heads: int) -> tuple[dict, int]:
    """deepseek_v32, glm_moe_dsa: DeepSeek-V3's multi-head latent attention (``attention_bias`` on the down- and
    output projections) and experts (``n_routed_experts`` — or ``num_experts`` — of ``moe_intermediate_size``, k per
    token, ``n_shared_experts`` shared; dense layers by ``mlp_layer_types``, absent: the first
    ``first_k_dense_replace``), with DeepSeek sparse attention's lightning indexer (``index_n_heads`` heads of
    ``index_head_dim``, queries from the query latent: ``q_lora_rank`` must be a number). ``index_topk`` only masks:
    every query–key pair is still scored and attended. ``num_key_value_heads`` (absent: the config class's
    ``heads_default``) must equal the heads. (fields, the dense layers' feed-forward size)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "num_nextn_predict_layers",
              "topk_method", "scoring_func", "ep_size", "moe_layer_freq", "index_topk", "head_dim", "layer_types")
    c.given("q_lora_rank")
    fields = _latent_attention(c, _decoder(c, **_rms_swiglu(c)))
    block = fields["block"]
    _latent_kv_heads(c, block["heads"], heads_default)
    if not block["q_lora_rank"]:
        raise c.error("q_lora_rank", "must be a number (the lightning indexer reads the query latent)")
    block |= {"indexer_heads": c.size("block.indexer_heads", "index_n_heads", required=False, default=indexer_heads),
              "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim", required=False, default=128)}
    dense_ff = _experts(c, fields, ("num_experts", "n_routed_experts"))
    _shared_experts(c, fields, "n_shared_experts", 1)
    return fields, dense_ff


def _deepseek_v32(c: Keys) -> dict:
    """deepseek_v32 (DeepSeek-V3.2): ``_sparse_attention`` with an indexer in every layer."""
    fields, dense_ff = _sparse_attention(c, 128, 64)
    layers = _layer_count(fields)
    if layers:
        first = c.size(None, "first_k_dense_replace", required=False, default=3)
        _per_layer(fields, _mlp_layers_each(c, layers, dense_ff, first))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _glm_moe_dsa(c: Keys) -> dict:
    """glm_moe_dsa (GLM-5): ``_sparse_attention`` whose indexer runs only on the layers ``indexer_types`` marks
    "full" (absent: by ``index_topk_pattern``, F and S, or every ``index_topk_freq``-th layer from
    ``index_skip_topk_offset``); a "shared" layer reuses the previous one's selection and has no indexer."""
    fields, dense_ff = _sparse_attention(c, 64, 32)
    layers = _layer_count(fields)
    if not layers:
        return fields
    types, pattern = c.get("indexer_types"), c.get("index_topk_pattern")
    if types is None and pattern is not None:
        if isinstance(pattern, str) and not set(pattern) - {"F", "S"}:
            types = [{"F": "full", "S": "shared"}[p] for p in pattern]
        elif isinstance(pattern, list):
            types = pattern
        else:
            raise c.error("index_topk_pattern", "expected a string of F (full) and S (shared) or a list")
    key = "indexer_types" if c.data.get("indexer_types") is not None else "index_topk_pattern"
    if types is None:
        freq = max(c.size(None, "index_topk_freq", required=False, default=1), 1)
        offset = c.size(None, "index_skip_topk_offset", required=False, default=2)
        types = ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(layers)]
    else:
        c.neutral("index_topk_freq", "index_skip_topk_offset")
    indexers = _indexer_layers(c, key, types, layers, exact=False)
    first = c.size(None, "first_k_dense_replace", required=False, default=3)
    return _per_layer(fields, _merged(indexers, _mlp_layers_each(c, layers, dense_ff, first))) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _indexer_layers(c: Keys, key: str, types, layers: int, exact: bool) -> list[dict]:
    """Per-layer changes from an indexer pattern of "full" (the layer runs the indexer) and "shared" (it reuses the
    previous layer's selection: no indexer), one entry a layer (``exact``) or at least one (the rest cut)."""
    if (not isinstance(types, list) or len(types) < layers or (exact and len(types) != layers)
            or not set(types) <= {"full", "shared"}):
        raise c.error(key, f"expected {layers} entries of 'full' or 'shared'")
    if types[0] == "shared":
        raise c.error(key, "the first layer cannot share a previous layer's selection (transformers refuses it)")
    no_indexer = {"indexer_heads": None, "indexer_head_size": None}
    return [{} if t == "full" else no_indexer for t in types[:layers]]


HY_V4_DEFAULTS = {"vocab_size": 120832, "hidden_size": 2816, "intermediate_size": 6912, "moe_intermediate_size": 768,
                  "num_hidden_layers": 34, "num_attention_heads": 32, "max_position_embeddings": 262144,
                  "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "q_lora_rank": 1536,
                  "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
                  "index_head_dim": 128, "index_n_heads": 16, "hc_mult": 4}
"""HYV4Config's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


def _hy_v4(c: Keys) -> dict:
    """hy_v4 (Hy4): GLM-5's blocks — DeepSeek's multi-head latent attention (queries through ``q_lora_rank``;
    ``attention_bias`` on the down- and output projections) with DeepSeek sparse attention's lightning indexer
    (``index_n_heads`` of ``index_head_dim``) on the layers ``indexer_types`` marks "full" (absent: the first and
    every fourth from the second; a "shared" layer reuses the previous selection and has no indexer) — plus a sink
    per head and an output gate of its own (d→H·V, sigmoid, element-wise: ``latent_gate``); by ``mlp_layer_types``
    (absent: the first layer dense) a dense gated MLP of ``intermediate_size`` or ``n_routed_experts`` of
    ``moe_intermediate_size``, k per token, behind a router d→E without bias (its score correction a buffer), plus
    ``n_shared_experts`` × ``moe_intermediate_size`` shared; ``hc_mult`` independent hyper-connection streams
    around each sub-layer (weights N·d→2·N, no comb) and DeepSeek-V4's hyper head at the end. Absent sizes are
    HYV4Config's defaults; ``num_key_value_heads`` and ``head_dim`` are overwritten by it (not used)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "index_topk", "hc_magnitude",
              "hc_eps", "learnable_sink_init", "swiglu_limit", "num_key_value_heads", "head_dim")
    _whole_defaults(c, HY_V4_DEFAULTS, "HYV4Config")
    fields = _latent_attention(c, _decoder(c, gqa=False, **_rms_swiglu(c)))
    block = fields["block"]
    block |= {"attention_sinks": True, "latent_gate": True, "hyper_independent": True,
              "hyper_connections": c.size("block.hyper_connections", "hc_mult"),
              "indexer_heads": c.size("block.indexer_heads", "index_n_heads"),
              "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim")}
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    _shared_experts(c, fields, "n_shared_experts")
    if block["experts"] == 1:
        raise c.error("n_routed_experts", "one expert is not modelled (a router d→1 beside it)")
    layers = _layer_count(fields)
    if not layers:
        return fields
    kinds = c.get("layer_types")
    if kinds is not None and (not isinstance(kinds, list) or len(kinds) != layers
                              or set(kinds) != {"indexed_attention"}):
        raise c.error("layer_types", f"expected {layers} entries of 'indexed_attention' (HY-V4's only kind)")
    types = c.get("indexer_types")
    if types is None:
        types = ["full" if i == 0 or (i - 1) % 4 == 0 else "shared" for i in range(layers)]
    indexers = _indexer_layers(c, "indexer_types", types, layers, exact=True)
    return _per_layer(fields, _merged(indexers, _mlp_layers_each(c, layers, dense_ff, 1))) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


DOTS3_DEFAULTS = {"vocab_size": 152064, "hidden_size": 5120, "intermediate_size": 13824, "moe_intermediate_size": 1536,
                  "num_hidden_layers": 46, "num_attention_heads": 128, "max_position_embeddings": 524288,
                  "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "q_lora_rank": 1024,
                  "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                  "index_head_dim": 128, "index_n_heads": 64, "shared_experts_intermediate_size": 1536}
"""Dots3NoteTextConfig's defaults (with DeepseekV32Config's) of the sizes the reader reads."""
DOTS3_LAYER_KEYS = ("num_attention_heads", "num_key_value_heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
                    "qk_rope_head_dim", "v_head_dim", "head_dim", "index_n_heads", "index_head_dim")
"""The keys a Dots 3 ``per_layer_config`` entry may override (its attention's, and its indexer's)."""
DOTS3_SWA = {"num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 1024, "kv_lora_rank": 1024,
             "head_dim": 256, "qk_nope_head_dim": 192, "v_head_dim": 128}
"""The sliding layers' attention where the file has no ``per_layer_config`` (``swa_<key>`` sets each; the rotary
part ``swa_qk_rope_head_dim``, absent: head_dim − qk_nope_head_dim)."""


def _dots3_layer_types(c: Keys, layers: int) -> list[str]:
    """Dots3NoteTextConfig's layer kinds: ``layer_types``, else "indexed_attention" on the first two and every
    fourth from the second, "sliding_attention" elsewhere (``use_sliding_window`` false: none); ``use_dsa`` (absent:
    true without ``per_layer_config``) renames full ↔ indexed attention."""
    c.used.update(("use_dsa", "use_sliding_window"))
    use_dsa = c.data.get("use_dsa", None if "per_layer_config" in c.data else True)
    types = c.get("layer_types")
    if types is None:
        full = "full_attention" if use_dsa is False else "indexed_attention"
        sliding = c.data.get("use_sliding_window", True)
        types = [full if not sliding or i < 2 or i % 4 == 1 else "sliding_attention" for i in range(layers)]
    kinds = ("indexed_attention", "sliding_attention", "full_attention")
    if not isinstance(types, list) or len(types) != layers or not set(types) <= set(kinds):
        raise c.error("layer_types", f"expected {layers} entries of {', '.join(repr(k) for k in kinds)}")
    if use_dsa is not None:
        old, new = ("full_attention", "indexed_attention") if use_dsa else ("indexed_attention", "full_attention")
        types = [new if t == old else t for t in types]
    return types


def _dots3_layer_attention(c: Keys, layers: int, types: list[str]) -> list[dict]:
    """Each layer's attention sizes: the file's, overridden by ``per_layer_config`` (as transformers writes it:
    layer number → the keys that differ), or without it DOTS3_SWA (and ``swa_*``) on the sliding layers."""
    given = c.get("per_layer_config")
    swa = {k: c.data.get(f"swa_{k}", v) for k, v in DOTS3_SWA.items()}
    swa["qk_rope_head_dim"] = c.data.get("swa_qk_rope_head_dim", None)
    c.used.update(f"swa_{k}" for k in swa)
    if given is None:
        if swa["qk_rope_head_dim"] is None and all(isinstance(swa[k], int) for k in ("head_dim", "qk_nope_head_dim")):
            swa["qk_rope_head_dim"] = swa["head_dim"] - swa["qk_nope_head_dim"]
        given = {i: swa for i, t in enumerate(types) if t == "sliding_attention"}
    if not isinstance(given, dict):
        raise c.error("per_layer_config", "expected an object of layer number → overrides")
    overrides: dict[int, dict] = {}
    for key, value in given.items():
        try:
            layer = int(key)
        except (TypeError, ValueError):
            raise c.error("per_layer_config", f"{str(key)[:20]!r} is not a layer number") from None
        if not 0 <= layer < layers or not isinstance(value, dict):
            raise c.error("per_layer_config", f"{str(key)[:20]}: expected a layer number below {layers} and an "
                                              "object of overrides")
        other = sorted(set(value) - set(DOTS3_LAYER_KEYS) - {"rms_norm_eps", "attention_dropout"})
        if other:
            raise c.error(f"per_layer_config.{key}.{other[0]}", "a per-layer override of this key is not modelled "
                                                                f"(modelled: {', '.join(DOTS3_LAYER_KEYS)})")
        overrides[layer] = value
    c.used.update(DOTS3_LAYER_KEYS)
    out = []
    for i in range(layers):
        merged = {k: c.data.get(k) for k in DOTS3_LAYER_KEYS} | overrides.get(i, {})
        where = f"per_layer_config.{i}." if i in overrides else ""
        for name in DOTS3_LAYER_KEYS:
            if name == "head_dim":  # the rotary fraction's denominator only: no count
                continue
            v = merged[name]
            if name == "num_key_value_heads" and v is None:
                v = merged[name] = merged["num_attention_heads"]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise c.error(where + name if name in overrides.get(i, {}) else name,
                              f"expected a whole number ≥ 1, got {json.dumps(v)[:20]} (layer {i})")
        if merged["num_key_value_heads"] != merged["num_attention_heads"]:
            raise c.error("num_key_value_heads", f"layer {i}: must equal num_attention_heads (Dots3NoteTextConfig "
                                                 "refuses other values)")
        change = {"heads": merged["num_attention_heads"], "q_lora_rank": merged["q_lora_rank"],
                  "kv_lora_rank": merged["kv_lora_rank"], "head_size": merged["qk_nope_head_dim"],
                  "rope_head_size": merged["qk_rope_head_dim"], "value_head_size": merged["v_head_dim"]}
        if types[i] == "indexed_attention":
            if merged["qk_rope_head_dim"] > merged["index_head_dim"]:
                raise c.error("index_head_dim", f"below qk_rope_head_dim (layer {i}): Dots3NoteTextConfig refuses it")
            change |= {"indexer_heads": merged["index_n_heads"], "indexer_head_size": merged["index_head_dim"]}
        else:
            change |= {"indexer_heads": None, "indexer_head_size": None}
        out.append(change)
    return out


def _dots3_note_text(c: Keys) -> dict:
    """dots3_note_text (dots.3 note's language model, also inside its multimodal wrapper ``dots3_note``): DeepSeek's
    multi-head latent attention (queries through ``q_lora_rank``, ``attention_bias`` on the down- and output
    projections) whose normed latents are rescaled (√(d/c_q), √(d/c): ``latent_rescale``), whose shared rotary key is
    RMS-normed (γ of R: ``rope_key_norm``), with a sigmoid gate per head (d→H: ``head_gate``); by layer kind
    (``_dots3_layer_types``) DeepSeek sparse attention's lightning indexer (``index_n_heads`` of ``index_head_dim``)
    on "indexed_attention" layers, a window of ``sliding_window`` (absent: ``sliding_window_size``, 512) on
    "sliding_attention" layers, whose attention has sizes of its own (``per_layer_config``, ``_dots3_layer_attention``);
    by ``mlp_layer_types`` (absent: dense below ``first_k_dense_replace``, 1, and where ``moe_layer_freq`` skips) a
    dense gated MLP of ``intermediate_size`` or ``n_routed_experts`` of ``moe_intermediate_size``, k per token, behind a
    router d→E without bias (its score correction a buffer), plus ``n_shared_experts`` ×
    ``shared_experts_intermediate_size`` shared (at least one: Dots3NoteTextConfig refuses none)."""
    c.neutral("routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob", "index_topk", "head_dim",
              "scoring_func", "topk_method", "num_nextn_predict_layers", "swa_rope_theta", "ep_size",
              "mlp_bias")  # mlp_bias: only the vision tower's MLP reads it (checked: the same count)
    if "moe_shared_expert_intermediate_size" in c.data:  # Dots3NoteTextConfig's other name for it
        c.used.add("moe_shared_expert_intermediate_size")
        c.data = dict(c.data, shared_experts_intermediate_size=c.data["moe_shared_expert_intermediate_size"])
    if "num_key_value_heads" not in c.data:  # DeepseekV32Config's default 128 (null: the heads)
        c.data = dict(c.data, num_key_value_heads=128)
    _whole_defaults(c, DOTS3_DEFAULTS, "Dots3NoteTextConfig")
    fields = _latent_attention(c, _decoder(c, gqa=False, **_rms_swiglu(c)))
    block = fields["block"]
    block |= {"rope_key_norm": True, "latent_rescale": True, "head_gate": True}
    dense_ff = _experts(c, fields, ("n_routed_experts",))
    shared = c.size(None, "n_shared_experts")
    if shared < 1:
        raise c.error("n_shared_experts", "at least one shared expert (Dots3NoteTextConfig refuses none)")
    block["shared_ff_size"] = shared * c.size(None, "shared_experts_intermediate_size")
    layers = _layer_count(fields)
    if not layers:
        return fields
    types = _dots3_layer_types(c, layers)
    attention = _dots3_layer_attention(c, layers, types)
    window = c.size(None, "sliding_window", "sliding_window_size", required=False, default=512)
    windows = [{"attention_window": window if t == "sliding_attention" else None} for t in types]
    if c.data.get("mlp_layer_types") is None:
        first = c.size(None, "first_k_dense_replace", required=False, default=1)
        freq = c.get("moe_layer_freq", 1)
        if isinstance(freq, list) and len(freq) >= layers:
            sparse = [i >= first and bool(freq[i]) for i in range(layers)]
        elif isinstance(freq, int) and not isinstance(freq, bool) and freq >= 1:
            sparse = [i >= first and i % freq == 0 for i in range(layers)]
        else:
            raise c.error("moe_layer_freq", f"expected a whole number ≥ 1 or a list of {layers} flags")
        mlp = [{} if s else _dense_mlp(dense_ff) for s in sparse]
    else:
        c.neutral("first_k_dense_replace", "moe_layer_freq")
        mlp = _mlp_layers_each(c, layers, dense_ff, 0)
    return _per_layer(fields, _merged(attention, windows, mlp)) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


LONGCAT_DEFAULTS = {"vocab_size": 131072, "hidden_size": 6144, "num_attention_heads": 64, "ffn_hidden_size": 12288,
                    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                    "head_dim": 64, "v_head_dim": 128, "moe_topk": 12, "n_routed_experts": 512,
                    "zero_expert_num": 256, "expert_ffn_hidden_size": 2048, "max_position_embeddings": 131072}
"""LongcatFlashConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


def _longcat_flash(c: Keys) -> dict:
    """longcat_flash (LongCat-Flash): each of the ``num_layers`` layers holds two sub-layers (transformers'
    ``num_hidden_layers`` is 2 × ``num_layers``; a file's ``num_hidden_layers`` sets ``num_layers`` to its half), read
    as two blocks: (1) DeepSeek-V3's multi-head latent attention (queries through ``q_lora_rank``, LoRA scalings:
    ``latent_scales``), a dense gated MLP of ``ffn_hidden_size`` and, on the same normed input, the shortcut mixture of
    experts — ``n_routed_experts`` of ``expert_ffn_hidden_size``, ``moe_topk`` k per token, a router d→E+Z scoring
    ``zero_expert_num`` Z zero-computation experts too (``zero_experts``) — whose output joins the stream after the
    second sub-layer (the same products as adding it here, as the MLP of block 1 is the engine's shared expert);
    (2) latent attention and a dense MLP. ``attention_bias`` on the down- and output projections. Zero experts: a
    pick of one is sent by transformers to the real expert ⌊(i − E)·E/Z⌋ at weight 0, so every token runs k real
    experts in FlopCounterMode's count (forward and backward), whatever the routing; x·Σw is element-wise."""
    c.neutral("routed_scaling_factor")
    for key in ("num_layers", "num_hidden_layers"):
        if key in c.data and c.data[key] is None:
            raise c.error(key, "null is not accepted (transformers' LongcatFlashConfig requires a whole number)")
    if c.data.get("num_hidden_layers") is not None:  # transformers sets num_layers to its half
        sub_layers = c.size(None, "num_hidden_layers")
        if sub_layers % 2:
            raise c.error("num_hidden_layers", f"{sub_layers} is odd (each LongCat layer holds two sub-layers; "
                                               "transformers would build the half, rounded down)")
        given = c.size(None, "num_layers", required=False)
        if given is not None and 2 * given != sub_layers:
            raise c.error("num_layers", f"{given} disagrees with num_hidden_layers {sub_layers} (two sub-layers a "
                                        "layer; transformers keeps num_hidden_layers' half)")
        layers_key = "num_hidden_layers"
    else:
        layers_key = "num_layers"
        sub_layers = 2 * c.size(None, "num_layers", required=False, default=28)
    _whole_defaults(c, LONGCAT_DEFAULTS, "LongcatFlashConfig")
    c.data = {**c.data, "num_hidden_layers": sub_layers}
    c.require("router_bias", lambda v: v is False, "transformers builds the router's bias and never adds it")
    fields = _latent_attention(c, _decoder(c, gqa=False, ff_key="ffn_hidden_size", **_rms_swiglu(c)))
    c.key_of["layers"] = layers_key
    block = fields["block"]
    _latent_kv_heads(c, block["heads"], block["heads"])
    for key in ("q_lora_rank", "kv_lora_rank"):
        if c.size(None, key) < 1:
            raise c.error(key, "must be at least 1 (the LoRA scaling divides by it)")
    rope = block["rope_head_size"]
    if isinstance(rope, int) and rope % 2:
        raise c.error("qk_rope_head_dim", f"{rope} is odd (the interleaved rotary pairs its channels)")
    if c.size(None, "head_dim") != rope:
        raise c.error("head_dim", f"{c.size(None, 'head_dim')} differs from qk_rope_head_dim {rope} (transformers "
                                  "sizes the rotary table by head_dim; it must equal the rotary part)")
    qk = c.size(None, "qk_head_dim", required=False)
    if qk is not None and qk != block["head_size"] + rope:
        raise c.error("qk_head_dim", f"{qk} differs from qk_nope_head_dim + qk_rope_head_dim "
                                     f"{block['head_size'] + rope} (transformers' split of the queries fails)")
    experts, k = c.size("block.experts", "n_routed_experts"), c.size("block.active_experts", "moe_topk")
    if experts < 2:
        raise c.error("n_routed_experts", f"{experts}: one routed expert is not modelled")
    if k > experts:
        raise c.error("moe_topk", f"{k} is more than n_routed_experts {experts} (picks beyond the real experts are "
                                  "not modelled)")
    zero = c.size(None, "zero_expert_num")
    dense_ff = block["ff_size"]
    block |= {"experts": experts, "active_experts": k, "ff_size": c.size("block.ff_size", "expert_ffn_hidden_size"),
              "shared_ff_size": dense_ff, "zero_experts": zero or None, "latent_scales": True}
    dense = _dense_mlp(dense_ff) | {"zero_experts": None}
    layers = _layer_count(fields)
    if layers:
        _per_layer(fields, [{} if i % 2 == 0 else dense for i in range(layers)])
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


HY_V3_DEFAULTS = {"vocab_size": 120832, "hidden_size": 4096, "intermediate_size": 13312, "num_hidden_layers": 80,
                  "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "moe_intermediate_size": 1536,
                  "max_position_embeddings": 131072}
HY_V3_EXPERTS = {"num_experts": 192, "num_experts_per_tok": 8, "num_shared_experts": 1}
"""HYV3Config's defaults of the sizes the reader reads: whole numbers, and the experts' (null accepted by the
config class, not by the experts transformers builds from them)."""


def _hy_v3(c: Keys) -> dict:
    """hy_v3 (Hy3): Qwen3's attention (GQA, a per-head RMSNorm of queries and keys, ``attention_bias`` on q/k/v/o),
    and by ``mlp_layer_types`` (absent: the first layer dense, the others sparse) a dense gated MLP of
    ``intermediate_size`` (``mlp_bias``) or ``num_experts`` experts of ``moe_intermediate_size``, k per token, behind
    a sigmoid router d→E without bias (its score correction a buffer), beside ``num_shared_experts`` ×
    ``moe_intermediate_size`` shared (none: transformers' HYV3MLP falls back to ``intermediate_size``, 0 being
    falsy). Absent sizes: HYV3Config's defaults. Refused by name: a null size, ``mlp_bias`` with sparse layers (a
    biased shared expert beside unbiased experts), one expert (a router d→1 is not modelled)."""
    c.neutral("router_scaling_factor", "enable_moe_fp32_combine")
    _whole_defaults(c, HY_V3_DEFAULTS, "HYV3Config")
    fields = _decoder(c, **_rms_swiglu(c, qk_norm="head"))
    block = fields["block"]
    mlp_bias = c.flag("mlp_bias", False)
    layers = _layer_count(fields)
    if not layers:
        return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
    types = _layer_kinds(c, "mlp_layer_types", layers, ("dense", "sparse"))
    sparse = [i > 0 for i in range(layers)] if types is None else [t == "sparse" for t in types]
    dense = _dense_mlp(block["ff_size"]) | {"ff_bias": mlp_bias}
    if any(sparse):
        for key in HY_V3_EXPERTS:
            if key in c.data and c.data[key] is None:
                raise c.error(key, "null: transformers' HYV3MoE cannot be built with it (the model has sparse "
                                   "layers)")
        c.data = {**HY_V3_EXPERTS, **c.data}
        _experts(c, fields, ("num_experts",))
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
    return _per_layer(fields, [{} if s else dense for s in sparse]) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


V4_DEFAULTS = {"vocab_size": 129280, "hidden_size": 4096, "moe_intermediate_size": 2048, "num_hidden_layers": 43,
               "num_attention_heads": 64, "head_dim": 512, "q_lora_rank": 1024, "num_experts_per_tok": 6,
               "n_routed_experts": 256, "max_position_embeddings": 1048576, "hc_mult": 4, "hc_sinkhorn_iters": 20,
               "o_groups": 8, "o_lora_rank": 1024, "index_n_heads": 64, "index_head_dim": 128}
"""DeepseekV4Config's defaults of the sizes the reader reads (whole numbers: a null one is refused, as the config
class refuses it)."""
V4_KINDS = ("sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention")
V4_RATIOS = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
"""DeepSeek-V4's layer kinds, and the legacy ``compress_ratios`` entries transformers maps onto them."""


def _deepseek_v4(c: Keys) -> dict:
    """deepseek_v4 (DeepSeek-V4): each layer DeepSeek-V4's attention (``mixer="compressed"``: queries through
    ``q_lora_rank``, one key/value head of ``head_dim`` that is also the values, a sink per head, the grouped output
    projection of ``o_groups`` × ``o_lora_rank``) over the L positions plus, by ``layer_types`` (absent: two
    heavily compressed layers, then compressed sparse and heavily compressed alternating; the legacy
    ``compress_ratios`` 0/4/128 name them too), ⌊L/m⌋ compressed entries (``compress_rates``, m; legacy
    ``compress_rate_csa`` / ``compress_rate_hca``), with the lightning indexer (``index_n_heads`` of
    ``index_head_dim``) on the compressed sparse layers; ``hc_mult`` hyper-connection streams around each
    sub-layer and at the end; every layer's feed-forward ``n_routed_experts`` of ``moe_intermediate_size``, k per
    token, behind a router d→E without bias (hash-routed or top-k: the same products), plus one shared expert.
    ``sliding_window`` and ``index_topk`` only mask; transformers reads neither ``num_key_value_heads`` nor
    ``n_shared_experts`` (one of each whatever they say: listed as not used). Refused by name: ``mlp_bias`` true (a
    biased shared expert beside unbiased experts is not modelled), heads whose width ``o_groups`` does not divide."""
    c.neutral("scoring_func", "routed_scaling_factor", "hc_eps", "swiglu_limit", "sliding_window", "index_topk")
    _whole_defaults(c, V4_DEFAULTS, "DeepseekV4Config")
    fields = _decoder(c, gqa=False, ff_key=None, **_rms_swiglu(c))
    block = fields["block"]
    if c.flag("mlp_bias", False):
        raise c.error("mlp_bias", "true is not modelled (a biased shared expert beside the unbiased experts)")
    block |= {"mixer": "compressed", "attention_sinks": True, "qkv_bias": False, "out_bias": False,
              "head_size": c.size("block.head_size", "head_dim", required=False, default=512),
              "q_lora_rank": c.size("block.q_lora_rank", "q_lora_rank", required=False, default=1024),
              "output_groups": c.size("block.output_groups", "o_groups", required=False, default=8),
              "output_rank": c.size("block.output_rank", "o_lora_rank", required=False, default=1024),
              "hyper_connections": c.size("block.hyper_connections", "hc_mult", required=False, default=4),
              "hyper_sinkhorn_iterations": c.size("block.hyper_sinkhorn_iterations", "hc_sinkhorn_iters",
                                                  required=False, default=20),
              "experts": c.size("block.experts", "n_routed_experts", required=False, default=256),
              "active_experts": c.size("block.active_experts", "num_experts_per_tok", required=False, default=6),
              "ff_size": c.size("block.ff_size", "moe_intermediate_size", required=False, default=2048)}
    block["shared_ff_size"] = block["ff_size"]
    heads_width = block["heads"] * block["head_size"] if all(
        isinstance(block[k], int) for k in ("heads", "head_size", "output_groups")) else None
    if heads_width is not None and block["output_groups"] and heads_width % block["output_groups"]:
        raise c.error("o_groups", f"{block['output_groups']} groups do not divide the heads' width "
                                  f"{block['heads']} × {block['head_size']} (transformers' grouped output projection "
                                  "cannot run)")
    rates = c.get("compress_rates")  # absent: DeepseekV4Config's; given, only what it holds
    if rates is not None and (not isinstance(rates, dict) or set(rates) - set(V4_KINDS[1:])):
        raise c.error("compress_rates", f"expected an object of {V4_KINDS[1]} and {V4_KINDS[2]} rates")
    rates = dict(rates) if rates is not None else {"compressed_sparse_attention": 4,
                                                    "heavily_compressed_attention": 128}
    for kind, legacy in zip(V4_KINDS[1:], ("compress_rate_csa", "compress_rate_hca")):
        if c.get(legacy) is not None:
            rates[kind] = c.get(legacy)
    layers = _layer_count(fields)
    if not layers:
        return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
    _layer_kinds(c, "mlp_layer_types", layers, ("hash_moe", "moe"))  # hash-routed or top-k: the same products
    types = _layer_kinds(c, "layer_types", layers, V4_KINDS)
    ratios = c.get("compress_ratios")
    if types is None and ratios is not None:
        if not isinstance(ratios, list) or len(ratios) < layers or not all(
                not isinstance(r, bool) and r in V4_RATIOS for r in ratios):
            raise c.error("compress_ratios", f"expected {layers} entries (or more) of 0, 4 or 128")
        types = [V4_RATIOS[r] for r in ratios[:layers]]
    if types is None:
        types = [V4_KINDS[2]] * min(layers, 2) + [V4_KINDS[1] if i % 2 else V4_KINDS[2] for i in range(layers - 2)]
    changes = []
    for kind in types:
        change = {"compress_rate": None, "indexer_heads": None, "indexer_head_size": None}
        if kind != "sliding_attention":
            legacy = "compress_rate_csa" if kind == V4_KINDS[1] else "compress_rate_hca"
            key = legacy if c.data.get(legacy) is not None else "compress_rates"
            if kind not in rates:
                raise c.error("compress_rates", f"no rate for {kind}, which layer {len(changes)} is (transformers' "
                                                "compressor cannot be built)")
            rate = rates[kind]
            if isinstance(rate, bool) or not isinstance(rate, int) or rate < 1:
                raise c.error(key, f"{kind}'s rate must be a whole number from 1, got {json.dumps(rate)[:40]}")
            change["compress_rate"] = rate
        if kind == "compressed_sparse_attention":
            change |= {"indexer_heads": c.size("block.indexer_heads", "index_n_heads", required=False, default=64),
                       "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim", required=False,
                                                   default=128)}
        changes.append(change)
    c.neutral("index_n_heads", "index_head_dim")  # read, or not used by the layers this model has
    return _per_layer(fields, changes) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _cohere2_moe(c: Keys) -> dict:
    """cohere2_moe: Cohere 2's parallel block (one input norm feeding attention and the feed-forward: an RMSNorm
    when ``rms_norm_eps`` is set, else a LayerNorm without β; the final norm the same), ``attention_bias`` on
    q/k/v/o; sparse layers ``num_experts`` of ``intermediate_size`` behind a router d→E without bias, k per token,
    and ``num_shared_experts`` × ``intermediate_size`` shared (summed with or averaged into the routed output: no
    matmul); dense layers (``mlp_layer_types``, absent: the first ``first_k_dense_replace``) an MLP of
    ``prefix_dense_intermediate_size`` (null: ``intermediate_size``); windows by ``layer_types`` (absent: every ``sliding_window_pattern``-th
    layer full, counted from the first sparse one; ``prefix_dense_sliding_window_pattern`` among the dense ones).
    ``head_dim`` (default 128) must be written out."""
    c.neutral("logit_scale", "shared_expert_combination_strategy", "expert_selection_fn", "norm_topk_prob")
    c.given("head_dim")
    bias = c.flag("attention_bias", False)
    norm = "rmsnorm" if c.get("rms_norm_eps") is not None else "layernorm"
    fields = _decoder(c, norm=norm, norm_bias=False, gated=True, parallel=True, shared_norm=True,
                      activation=c.activation("hidden_act", default="silu"), qkv_bias=bias, out_bias=bias,
                      ff_bias=False)
    dense_ff = _experts(c, fields, ("num_experts",), ff_key="intermediate_size")
    prefix_ff = c.size(None, "prefix_dense_intermediate_size", required=False)
    dense_ff = dense_ff if prefix_ff is None else prefix_ff
    _shared_experts(c, fields, "num_shared_experts", 0)
    layers = _layer_count(fields)
    if not layers:
        return fields
    first = c.size(None, "first_k_dense_replace", required=False, default=0)
    mlp = _mlp_layers_each(c, layers, dense_ff, first)
    prefix = c.size(None, "prefix_dense_sliding_window_pattern", required=False, default=1)
    period = c.size(None, "sliding_window_pattern", required=False, default=4)
    if min(prefix, period) < 1:
        raise c.error("sliding_window_pattern" if period < 1 else "prefix_dense_sliding_window_pattern",
                      "must be at least 1")
    windows = _layer_windows_each(c, layers, lambda i: (i + 1) % prefix != 0 if i < first else
                                  (i - first + 1) % period != 0)
    return _per_layer(fields, _merged(windows, mlp)) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


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


def _minicpm3(c: Keys) -> dict:
    """minicpm3 (MiniCPM3): DeepSeek-V2's multi-head latent attention (``attention_bias`` on the down-projections
    and the output; ``v_head_dim`` absent: ⌊d/H⌋) with the Llama MLP (``mlp_bias``); its scalings of the
    embeddings, residuals and logits (``scale_emb``, ``scale_depth``, ``dim_model_base``) change no weight and no
    matmul; a tied head by default. ``q_lora_rank`` (default 768) must be written out (null: queries projected
    directly)."""
    c.neutral("scale_emb", "scale_depth", "dim_model_base", "num_key_value_heads", "head_dim")
    c.given("q_lora_rank")
    fields = _decoder(c, gqa=False, **_rms_swiglu(c, ff_bias=c.flag("mlp_bias", False)))
    d, heads = fields["d_model"], fields["block"]["heads"]
    value = d // heads if isinstance(d, int) and isinstance(heads, int) and 0 < heads <= d else None
    return _latent_attention(c, fields, value) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


CLASS_SHARING = {
    "exaone": ("llama", {"num_key_value_heads": 8}),
    "internlm3": ("llama", {"num_key_value_heads": 2, "head_dim": 128}),
    "iquestcoder": ("llama", {"num_key_value_heads": 8, "head_dim": 128}),
    "param2moe": ("glm4_moe", {"head_dim": 64, "n_shared_experts": 2, "tie_word_embeddings": True,
                               "use_qk_norm": True}),
    "sarvam_moe": ("glm4_moe", {"head_dim": 64, "num_key_value_heads": 4, "use_qk_norm": True}),
    "sarvam_mla": ("deepseek_v3", {"first_k_dense_replace": 1, "q_lora_rank": None}),
}
"""Types transformers defines as a config of their own on another family's classes (``ExaoneConfig`` builds
``LlamaForCausalLM``): (that family, the defaults of the type's config class that differ from the family's, for
the keys its reader does not require). Read by that family's reader, against the keys its modelling code reads."""


def shared_class_families(families: dict[str, Family]) -> dict[str, Family]:
    """``CLASS_SHARING``'s types as registry entries: the family's reader, the type's own defaults filled in
    where the file leaves a key out."""
    def reader(base: Family, defaults: dict):
        def read(c: Keys) -> dict:
            c.data = {k: v for k, v in defaults.items() if k not in c.data} | c.data
            return base.reader(c)
        return read

    return {t: Family(reader(families[base], defaults), families[base].classes, families[base].aliases)
            for t, (base, defaults) in CLASS_SHARING.items()}


GEMMA4_LAYER_KEYS = ("head_dim", "num_key_value_heads")
"""The keys a Gemma 4 ``per_layer_config`` entry may override (what its config class writes there)."""


def _gemma4_layer_overrides(c: Keys, layers: int, types: list[str]) -> dict[int, dict]:
    """Layer → {head_dim, num_key_value_heads} overrides: ``per_layer_config`` as the file writes it (transformers
    writes it), else Gemma4TextConfig's own: ``global_head_dim`` (default 512) on the full-attention layers, and
    ``num_global_key_value_heads`` there too with ``attention_k_eq_v``."""
    given = c.get("per_layer_config")
    if given is None:
        head = c.size(None, "global_head_dim", required=False, default=512)
        kv = c.size(None, "num_global_key_value_heads", required=False) if c.flag("attention_k_eq_v", False) else None
        c.neutral("num_global_key_value_heads")
        override = {"head_dim": head} | ({"num_key_value_heads": kv} if kv is not None else {})
        return {i: override for i, t in enumerate(types) if t == "full_attention"}
    c.neutral("global_head_dim", "num_global_key_value_heads")  # transformers reads them only without it
    if not isinstance(given, dict):
        raise c.error("per_layer_config", "expected an object of layer number → overrides")
    out: dict[int, dict] = {}
    for key, value in given.items():
        try:
            layer = int(key)
        except (TypeError, ValueError):
            raise c.error("per_layer_config", f"{str(key)[:20]!r} is not a layer number") from None
        if not 0 <= layer < layers:
            raise c.error("per_layer_config", f"layer {layer} is not one of the {layers} layers")
        if not isinstance(value, dict):
            raise c.error("per_layer_config", f"layer {layer}: expected an object of overrides")
        other = sorted(set(value) - set(GEMMA4_LAYER_KEYS))
        if other:
            raise c.error(f"per_layer_config.{key}.{other[0]}", "a per-layer override of this key is not modelled "
                                                                f"(modelled: {', '.join(GEMMA4_LAYER_KEYS)})")
        for name, v in value.items():
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise c.error(f"per_layer_config.{key}.{name}", f"expected a whole number ≥ 1, got {str(v)[:20]}")
        out[layer] = value
    for kind in set(types):  # one rotary table per layer type: transformers refuses overrides that differ
        if len({tuple(sorted(out.get(i, {}).items())) for i, t in enumerate(types) if t == kind}) > 1:
            raise c.error("per_layer_config", f"the {kind} layers have different overrides (transformers refuses)")
    return out


def _gemma4_kv_sources(c: Keys, layers: int, types: list[str]) -> list[int | None]:
    """Per layer, the earlier layer whose keys and values it reuses (None: its own): the last
    ``num_kv_shared_layers`` layers, each reading those of the last unshared layer of its type
    (``Gemma4TextConfig.kv_sharing_modes``)."""
    shared = c.size(None, "num_kv_shared_layers", required=False, default=0)
    if not 0 <= shared < layers:
        raise c.error("num_kv_shared_layers", f"{shared}: expected 0 to {layers - 1} (the first layer makes its own "
                                              "keys and values; transformers' forward fails when none does)")
    first = layers - shared
    if shared and set(types[:first]) != set(types):
        raise c.error("num_kv_shared_layers", "a layer type that shares keys and values has no earlier layer making "
                                              "them (transformers refuses)")
    source = {kind: max(i for i in range(first) if types[i] == kind) for kind in set(types)} if shared else {}
    return [source[types[i]] if i >= first else None for i in range(layers)]


def _gemma4_text(c: Keys, unified: bool = False) -> dict:
    """gemma4_text (Gemma 4's language model; Gemma4ForCausalLM, Gemma4TextModel): Gemma 3's block (RMS norms with
    a gain, four per layer; GeGLU; per-head query and key norms) with a norm without gain on the values, attention
    scaled by 1. Sliding layers (``layer_types``; default: every sixth full, the last always full) of ``head_dim``
    and ``num_key_value_heads``; full layers of the ``per_layer_config`` sizes (``global_head_dim``,
    ``num_global_key_value_heads``), their values the keys' projection with ``attention_k_eq_v``. The last
    ``num_kv_shared_layers`` layers reuse the keys and values of an earlier layer of their type (no k/v
    projections, no key norm), with a 2F MLP with ``use_double_wide_mlp``. ``hidden_size_per_layer_input`` P > 0:
    per-layer embeddings (a V_p × N·P table, a projection d→N·P and a norm of P) and per layer a gate d→P, a
    projection P→d and a norm. ``enable_moe_block``: E experts of ``moe_intermediate_size`` (k per token) beside
    the dense MLP, with norms of their own and a router with two scales. Logit softcapping has no matmul.
    ``unified`` (gemma4_unified_text): the same without per-layer embeddings or experts (its config class has
    neither; their keys are inert), a window of 1024 by default."""
    c.neutral("final_logit_softcapping", "sliding_window_pattern", "hidden_act")
    c.require("use_bidirectional_attention", lambda v: v in ("vision", None),
              "'all' makes every layer bidirectional with a halved window; not modelled")
    fields = _decoder(c, **_rms_swiglu(c, act_keys=("hidden_activation",), sandwich_norms=True, qk_norm="head",
                                       value_norm=True))
    block = fields["block"]
    block["activation"] = c.activation("hidden_activation", default="gelu_pytorch_tanh")
    if block["head_size"] is None:
        raise c.error("head_dim", "missing (Gemma's head size is not d/H)")
    fields["tied_embeddings"] = c.flag("tie_word_embeddings", True)
    window = c.size(None, "sliding_window", required=False, default=1024 if unified else None)
    if unified:  # Gemma4UnifiedTextConfig has no per-layer embeddings nor experts: those keys are left unread
        ple, ple_vocab, moe = 0, None, False
    else:
        ple = c.size(None, "hidden_size_per_layer_input", required=False, default=256)
        ple_vocab = c.size(None, "vocab_size_per_layer_input", required=False, default=262_144)
        moe = c.flag("enable_moe_block", False)
    if moe:
        experts = c.size(None, "num_experts", required=False)
        top_k = c.size(None, "top_k_experts", required=False)
        size = c.size(None, "moe_intermediate_size", required=False)
        for key, value in (("num_experts", experts), ("top_k_experts", top_k), ("moe_intermediate_size", size)):
            if value is None:
                raise c.error(key, "missing (enable_moe_block builds experts of it; transformers fails without it)")
        if experts < 2:
            raise c.error("num_experts", f"{experts}: experts beside the dense MLP are modelled from 2 on")
        if not 1 <= top_k <= experts:
            raise c.error("top_k_experts", f"{top_k}: expected 1 to num_experts ({experts})")
        block |= {"experts": experts, "active_experts": top_k, "expert_branch_norms": True}
    elif not unified:
        c.neutral("num_experts", "top_k_experts", "moe_intermediate_size")
    double = c.flag("use_double_wide_mlp", False)
    k_eq_v = c.flag("attention_k_eq_v", False)
    layers = _layer_count(fields)
    if layers is None:
        c.neutral("layer_types", "per_layer_config", "global_head_dim", "num_global_key_value_heads",
                  "num_kv_shared_layers")
        return fields
    types = c.get("layer_types")
    if types is None:
        types = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)]
    if not isinstance(types, list) or len(types) != layers or \
            not all(t in ("sliding_attention", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries of 'sliding_attention' or 'full_attention'")
    types = types[:-1] + ["full_attention"]  # Gemma4TextConfig forces the last layer to full attention
    overrides = _gemma4_layer_overrides(c, layers, types)
    sources = _gemma4_kv_sources(c, layers, types)
    if ple:
        fields["per_layer_inputs"] = {"vocab_size": ple_vocab, "size": ple}
    blocks = []
    for i, kind in enumerate(types):
        own = dict(block)
        own["head_size"] = overrides.get(i, {}).get("head_dim", block["head_size"])
        own["kv_heads"] = overrides.get(i, {}).get("num_key_value_heads", block["kv_heads"])
        ff = block["ff_size"] * (2 if double and sources[i] is not None else 1)
        if moe:
            own |= {"shared_ff_size": ff, "ff_size": size}
        else:
            own["ff_size"] = ff
        own |= {"kv_source": sources[i], "values_from_keys": k_eq_v and kind == "full_attention",
                "per_layer_input_size": ple or None,
                "attention_window": window if kind == "sliding_attention" else None}
        blocks.append(own)
    return _per_layer(fields, blocks)


def _gemma4_unified_text(c: Keys) -> dict:
    """gemma4_unified_text (the language model of Gemma 4's unified checkpoints; Gemma4UnifiedForCausalLM,
    Gemma4UnifiedTextModel): Gemma 4's decoder (``_gemma4_text``: layer types, per_layer_config sizes, values from
    keys, shared keys and values, the double-wide MLP) without per-layer embeddings or experts; sliding window
    1024 by default."""
    return _gemma4_text(c, unified=True)


def _gemma3n_text(c: Keys) -> dict:
    """gemma3n_text (Gemma 3n's language model; Gemma3nForCausalLM, Gemma3nTextModel): Gemma 3's block (four norms,
    GeGLU, per-head query and key norms) with a value norm without gain, attention scaled by 1, windows on the
    ``layer_types`` sliding layers (default: every fifth full); ``intermediate_size`` one for all layers or one per
    layer; the last ``num_kv_shared_layers`` layers reuse the keys and values of the last unshared layer of their type
    (as Gemma 4); per-layer embeddings of ``hidden_size_per_layer_input`` (as Gemma 4's); AltUp over
    ``altup_num_inputs`` streams (per layer: predict and correct, TransformerBlock.altup_inputs; N − 1 projections
    into and out of the streams); LAuReL of ``laurel_rank`` beside attention. Activation sparsity
    (``activation_sparsity_pattern``: a Gaussian top-k of the gate, means and deviations) and the coefficient clip
    change no matmul; AltUp's output scale exists whether ``altup_correct_scale`` uses it or not."""
    c.neutral("final_logit_softcapping", "activation_sparsity_pattern", "altup_coef_clip", "altup_correct_scale",
              "hidden_act", "rope_local_base_freq")
    fields = _decoder(c, ff_key=None, **_rms_swiglu(c, act_keys=("hidden_activation",), sandwich_norms=True,
                                                    qk_norm="head", value_norm=True))
    block = fields["block"]
    block["activation"] = c.activation("hidden_activation", default="gelu_pytorch_tanh")
    if block["head_size"] is None:
        raise c.error("head_dim", "missing (Gemma's head size is not d/H)")
    d, heads = fields["d_model"], block["heads"]
    if isinstance(d, int) and isinstance(heads, int) and heads > 0 and d % heads:
        raise c.error("num_attention_heads", f"{heads} heads do not divide hidden_size {d} (transformers refuses "
                                             "such a Gemma 3n config)")
    fields["tied_embeddings"] = c.flag("tie_word_embeddings", True)
    window = c.size(None, "sliding_window", required=False)
    ple = c.size(None, "hidden_size_per_layer_input", required=False, default=256)
    streams = c.size(None, "altup_num_inputs", required=False, default=4)
    active = c.size(None, "altup_active_idx", required=False, default=0)
    if isinstance(streams, int) and not 0 <= active < streams:
        raise c.error("altup_active_idx", f"{active}: expected a stream below altup_num_inputs ({streams})")
    laurel = c.size(None, "laurel_rank", required=False, default=64)
    fields["per_layer_inputs"] = {"vocab_size": c.size(None, "vocab_size_per_layer_input", required=False,
                                                       default=262_144), "size": ple}
    fields["altup_streams"] = streams
    layers = _layer_count(fields)
    sizes = c.get("intermediate_size", 16_384)
    if not isinstance(sizes, list):
        block["ff_size"] = sizes = c.size("block.ff_size", "intermediate_size", required=False, default=16_384)
    if layers is None:
        c.neutral("layer_types", "num_kv_shared_layers")
        return fields
    if not isinstance(sizes, list):
        sizes = [sizes] * layers
    elif len(sizes) != layers or not all(isinstance(f, int) and not isinstance(f, bool) and f >= 1 for f in sizes):
        raise c.error("intermediate_size", f"expected one size or a list of {layers} whole numbers ≥ 1")
    types = c.get("layer_types")
    if types is None:
        types = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(layers)]
    if not isinstance(types, list) or len(types) != layers or \
            not all(t in ("sliding_attention", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries of 'sliding_attention' or 'full_attention'")
    sources = _gemma4_kv_sources(c, layers, types)
    blocks = [dict(block, ff_size=sizes[i], kv_source=sources[i], per_layer_input_size=ple, altup_inputs=streams,
                   laurel_rank=laurel, attention_window=window if kind == "sliding_attention" else None)
              for i, kind in enumerate(types)]
    return _per_layer(fields, blocks)


DECODER_FAMILIES: dict[str, Family] = {
    "gpt_neo": Family(_gpt_neo, _lm("GPTNeo")),
    "codegen": Family(_codegen, _lm("CodeGen")),
    "stablelm": Family(_stablelm, _lm("StableLm")),
    "cohere": Family(_cohere, _lm("Cohere")),
    "cohere2": Family(_cohere2, _lm("Cohere2")),
    "granite": Family(_granite, _lm("Granite")),
    "granitemoe": Family(_granitemoe, _lm("GraniteMoe")),
    "phimoe": Family(_phimoe, _lm("Phimoe"), {"PhiMoEForCausalLM": "PhimoeForCausalLM"}),
    "glm4": Family(_glm4, _lm("Glm4")),
    "smollm3": Family(_smollm3, _lm("SmolLM3")),
    "exaone4": Family(_exaone4, _lm("Exaone4")),
    "ernie4_5": Family(_ernie4_5, _lm("Ernie4_5")),
    "olmo3": Family(_olmo3, _lm("Olmo3")),
    "olmoe": Family(_olmoe, _lm("Olmoe")),
    "glm4_moe": Family(_glm4_moe, _lm("Glm4Moe")),
    "ernie4_5_moe": Family(_ernie4_5_moe, _lm("Ernie4_5_Moe")),
    "llama4_text": Family(_llama4_text, _lm("Llama4", bare="Llama4TextModel")),
    "helium": Family(_helium, _lm("Helium")),
    "seed_oss": Family(_seed_oss, _lm("SeedOss")),
    "glm": Family(_glm, _lm("Glm")),
    "cwm": Family(_cwm, _lm("Cwm")),
    "flex_olmo": Family(_flex_olmo, _lm("FlexOlmo")),
    "nemotron": Family(_nemotron, _lm("Nemotron")),
    "minimax_m2": Family(_minimax_m2, _lm("MiniMaxM2")),
    "cohere_compass_text": Family(_cohere_compass_text, _lm("CohereCompass", bare="CohereCompassTextModel")),
    "minimax_m3_vl_text": Family(_minimax_m3_vl_text, _lm("MiniMaxM3VL", bare="MiniMaxM3VLTextModel")),
    "minimax": Family(_minimax, _lm("MiniMax")),
    "persimmon": Family(_persimmon, _lm("Persimmon")),
    "dbrx": Family(_dbrx, _lm("Dbrx")),
    "ministral3": Family(_ministral3, _lm("Ministral3")),
    "ministral": Family(_ministral, _lm("Ministral")),
    "arcee": Family(_arcee, _lm("Arcee")),
    "apertus": Family(_apertus, _lm("Apertus")),
    "apertus1p5_text": Family(_apertus1p5_text, _lm("Apertus1p5Text")),
    "hy_v4": Family(_hy_v4, _lm("HYV4")),
    "dots3_note_text": Family(_dots3_note_text, _lm("Dots3Note", bare="Dots3NoteTextModel")),
    "vaultgemma": Family(_vaultgemma, _lm("VaultGemma")),
    "hunyuan_v1_dense": Family(_hunyuan_v1_dense, _lm("HunYuanDenseV1")),
    "hunyuan_v1_moe": Family(_hunyuan_v1_moe, _lm("HunYuanMoEV1")),
    "granitemoeshared": Family(_granitemoeshared, _lm("GraniteMoeShared")),
    "dots1": Family(_dots1, _lm("Dots1")),
    "exaone_moe": Family(_exaone_moe, _lm("ExaoneMoe")),
    "glm4_moe_lite": Family(_glm4_moe_lite, _lm("Glm4MoeLite")),
    "minicpm5_moe": Family(_minicpm5_moe, _lm("MiniCPM5Moe"), {"MiniCPM5MoEForCausalLM": "MiniCPM5MoeForCausalLM"}),
    "minicpm3": Family(_minicpm3, _lm("MiniCPM3")),
    "deepseek_v32": Family(_deepseek_v32, _lm("DeepseekV32")),
    "glm_moe_dsa": Family(_glm_moe_dsa, _lm("GlmMoeDsa")),
    "deepseek_v4": Family(_deepseek_v4, _lm("DeepseekV4")),
    "hy_v3": Family(_hy_v3, _lm("HYV3")),
    "youtu": Family(_youtu, _lm("Youtu")),
    "solar_open": Family(_solar_open, _lm("SolarOpen")),
    "jais2": Family(_jais2, _lm("Jais2")),
    "longcat_flash": Family(_longcat_flash, _lm("LongcatFlash")),
    "laguna": Family(_laguna, _lm("Laguna")),
    "granite_swa": Family(_granite_swa, _lm("GraniteSWA")),
    "granitemoe_swa": Family(_granitemoe_swa, _lm("GraniteMoeSWA")),
    "hyperclovax": Family(_hyperclovax, _lm("HyperCLOVAX")),
    "nanochat": Family(_nanochat, _lm("NanoChat")),
    "mellum": Family(_mellum, _lm("Mellum")),
    "bitnet": Family(_bitnet, _lm("BitNet")),
    "diffllama": Family(_diffllama, _lm("DiffLlama")),
    "afmoe": Family(_afmoe, _lm("Afmoe")),
    "mimo_v2_flash": Family(_mimo_v2_flash, _lm("MiMoV2Flash")),
    "biogpt": Family(_biogpt, _lm("BioGpt")),
    "cohere2_moe": Family(_cohere2_moe, _lm("Cohere2Moe")),
    "xglm": Family(_xglm, _lm("XGLM")),
    "jetmoe": Family(_jetmoe, _lm("JetMoe")),
    "openai-gpt": Family(_openai_gpt, {"OpenAIGPTLMHeadModel": "lm", "OpenAIGPTModel": "none"}),
    "gemma4_text": Family(_gemma4_text, _lm("Gemma4", bare="Gemma4TextModel")),
    "gemma3n_text": Family(_gemma3n_text, _lm("Gemma3n", bare="Gemma3nTextModel")),
    "gemma4_unified_text": Family(_gemma4_unified_text, _lm("Gemma4Unified", bare="Gemma4UnifiedTextModel")),
}
"""``model_type`` → reader, for the families of this module (merged into ``FAMILIES``)."""
