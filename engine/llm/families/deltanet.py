"""Gated DeltaNet's lineage: hybrids of linear attention (the gated delta rule) and softmax attention — Qwen3-Next,
Qwen3.5 (dense and MoE), Kimi Linear (Kimi Delta Attention, a decay per channel) and OLMo Hybrid.
"""
from __future__ import annotations

from .keys import Keys, whole_defaults
from .parts import by_mixer_and_feed, by_pattern, num_hidden_layers
from .registry import lm_classes, register


def _linear_full(c: Keys, types, layers: int) -> list[str]:
    """``types``, checked: ``layers`` entries of "linear_attention" or "full_attention"."""
    if not isinstance(types, list) or len(types) != layers or \
            not all(t in ("linear_attention", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries (num_hidden_layers) of 'linear_attention' or "
                                     "'full_attention'")
    return types


QWEN3_NEXT_DEFAULTS = {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 48,
                       "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
                       "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                       "linear_num_key_heads": 16, "linear_num_value_heads": 32, "moe_intermediate_size": 512,
                       "shared_expert_intermediate_size": 512, "num_experts_per_tok": 10, "num_experts": 512}
"""Qwen3NextConfig's defaults of the sizes (a file without one is built with these)."""


DELTANET_CHUNK = 64
"""The chunk length of transformers' ``torch_chunk_gated_delta_rule`` (its default; no config key sets it)."""


@register("qwen3_next", lm_classes("Qwen3Next"))
def _qwen3_next(c: Keys) -> dict:
    """qwen3_next (Qwen3-Next): each layer by ``layer_types`` (absent: "full_attention" where (i + 1) is a multiple
    of ``full_attention_interval``, 4 by default; "linear_attention" elsewhere) RMSNorm + a mixer, then RMSNorm +
    a feed-forward. "linear_attention": Gated DeltaNet (``state_space.gated_deltanet``) of ``linear_num_value_heads``
    H value heads of ``linear_value_head_dim``, ``linear_num_key_heads`` G query/key heads of
    ``linear_key_head_dim``, a convolution of ``linear_conv_kernel_dim`` (``hidden_act``), chunks of 64.
    "full_attention": gated attention — q projection d→2·H·Q (queries and an output gate), Qwen3's per-head q/k
    RMS norms, ``attention_bias`` on q/k/v/o. Feed-forward: layer i is a mixture of ``num_experts`` gated experts
    of ``moe_intermediate_size`` (k = ``num_experts_per_tok``, a router without bias) beside a shared expert of
    ``shared_expert_intermediate_size`` behind a sigmoid gate, unless i is in ``mlp_only_layers``, ``num_experts``
    is 0 or (i + 1) % ``decoder_sparse_step`` ≠ 0: then a gated MLP of ``intermediate_size``. Norms are
    zero-centred (γ stored as w, applied as 1 + w: d parameters, as any RMSNorm); partial rotary embeddings have
    no parameters. Absent sizes: Qwen3NextConfig's defaults. The multi-token-prediction layer is not built by
    transformers, nor counted."""
    def sparse(layers: int) -> list[bool]:
        experts = c.size("block.experts", "num_experts")
        step = c.size(None, "decoder_sparse_step", required=False, default=1)
        if not isinstance(step, int) or step < 1:
            raise c.error("decoder_sparse_step", "must be at least 1")
        only = c.get("mlp_only_layers", [])
        if not isinstance(only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in only):
            raise c.error("mlp_only_layers", "expected a list of layer numbers")
        return [bool(experts) and i not in only and (i + 1) % step == 0 for i in range(layers)]

    c.neutral("norm_topk_prob")
    return _qwen3_hybrid(c, QWEN3_NEXT_DEFAULTS, "Qwen3NextConfig", sparse)


QWEN3_5_DEFAULTS = {"vocab_size": 248320, "hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 32,
                    "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 256,
                    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                    "linear_num_key_heads": 16, "linear_num_value_heads": 32}
"""Qwen3_5TextConfig's defaults of the sizes (Qwen3.5 dense)."""


QWEN3_5_MOE_DEFAULTS = {"vocab_size": 248320, "hidden_size": 2048, "num_hidden_layers": 40, "num_attention_heads": 16,
                        "num_key_value_heads": 2, "head_dim": 256, "linear_conv_kernel_dim": 4,
                        "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_num_key_heads": 16,
                        "linear_num_value_heads": 32, "moe_intermediate_size": 512,
                        "shared_expert_intermediate_size": 512, "num_experts_per_tok": 8, "num_experts": 256}
"""Qwen3_5MoeTextConfig's defaults of the sizes (Qwen3.5 MoE)."""


QWEN3_NEXT_ONLY = ("decoder_sparse_step", "mlp_only_layers", "norm_topk_prob")
"""Qwen3-Next's feed-forward placement keys, which Qwen3.5's config classes delete and its layers do not read."""


@register("qwen3_5_text", lm_classes("Qwen3_5", bare="Qwen3_5TextModel"))
def _qwen3_5(c: Keys) -> dict:
    """qwen3_5_text (Qwen3.5 dense, ``Qwen3_5ForCausalLM``; a published checkpoint's ``text_config``): Qwen3-Next's
    layers (``_qwen3_next``: ``layer_types`` or ``full_attention_interval``, Gated DeltaNet, gated attention), with
    a gated MLP of ``intermediate_size`` in every layer. transformers' Qwen3.5 splits the Gated DeltaNet in
    projections (``in_proj_qkv`` + ``in_proj_z``, ``in_proj_b`` + ``in_proj_a``): the same widths, parameters and
    products as Qwen3-Next's fused ones. Its multimodal rotary sections (``mrope_section``, ``mrope_interleaved``)
    change no count. Expert keys are not read by the dense model (inert). Absent sizes: Qwen3_5TextConfig's
    defaults."""
    c.neutral(*QWEN3_NEXT_ONLY, "num_experts", "num_experts_per_tok", "moe_intermediate_size",
              "shared_expert_intermediate_size")
    return _qwen3_hybrid(c, QWEN3_5_DEFAULTS, "Qwen3_5TextConfig", lambda layers: [False] * layers)


@register("qwen3_5_moe_text", lm_classes("Qwen3_5Moe", bare="Qwen3_5MoeTextModel"))
def _qwen3_5_moe(c: Keys) -> dict:
    """qwen3_5_moe_text (Qwen3.5 MoE, ``Qwen3_5MoeForCausalLM``; a published checkpoint's ``text_config``): as
    ``_qwen3_5``, with Qwen3-Next's mixture in every layer — ``num_experts`` gated experts of
    ``moe_intermediate_size`` (k = ``num_experts_per_tok``; the router, without bias, always renormalises the top
    k) beside a shared expert of ``shared_expert_intermediate_size`` behind a sigmoid gate. ``intermediate_size``,
    ``decoder_sparse_step`` and ``mlp_only_layers`` are not read by this model (inert). Absent sizes:
    Qwen3_5MoeTextConfig's defaults."""
    c.neutral(*QWEN3_NEXT_ONLY, "intermediate_size")

    def sparse(layers: int) -> list[bool]:
        experts = c.size("block.experts", "num_experts")
        if isinstance(experts, int) and experts < 1:
            raise c.error("num_experts", "expected 2 or more (every Qwen3.5 MoE layer routes to experts)")
        return [True] * layers

    return _qwen3_hybrid(c, QWEN3_5_MOE_DEFAULTS, "Qwen3_5MoeTextConfig", sparse)


def _qwen3_hybrid(c: Keys, defaults: dict, config_class: str, sparse) -> dict:
    """Qwen3-Next's and Qwen3.5's layers (``_qwen3_next``): sizes from ``defaults`` (``config_class``'s) where the
    file has none; ``sparse(layers)`` says which layers hold the mixture of experts, the others a gated MLP."""
    c.neutral("full_attention_interval", "partial_rotary_factor", "use_sliding_window", "sliding_window",
              "max_window_layers", "mtp_num_hidden_layers", "mtp_use_dedicated_embeddings")
    c.require("attn_output_gate", lambda v: v is True, "transformers builds the output gate of every attention "
                                                       "layer whatever it says; a model without it is not modelled")
    whole_defaults(c, defaults, config_class)
    layers = num_hidden_layers(c)
    types = c.get("layer_types")
    if types is None:
        interval = c.size(None, "full_attention_interval", required=False, default=4)
        if not isinstance(interval, int) or interval < 1:
            raise c.error("full_attention_interval", "expected 1 or more")
        types = ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(layers)]
    types = _linear_full(c, types, layers)
    d = c.size("d_model", "hidden_size")
    act = c.activation("hidden_act", default="silu")
    norm = {"norm": "rmsnorm", "heads": 1, "gated": True, "activation": act, "ff_bias": False}
    mixers = {}
    if "linear_attention" in types:
        v_heads = c.size("block.ssm_heads", "linear_num_value_heads")
        k_heads = c.size("block.ssm_groups", "linear_num_key_heads")
        v_dim = c.size(None, "linear_value_head_dim")
        if all(isinstance(v, int) and v > 0 for v in (v_heads, k_heads)) and v_heads % k_heads:
            raise c.error("linear_num_value_heads", f"{v_heads} value heads must be a multiple of the {k_heads} "
                                                    "key heads (linear_num_key_heads), as transformers' Gated "
                                                    "DeltaNet splits them")
        mixers["linear_attention"] = norm | {
            "mixer": "gated_deltanet", "ssm_heads": v_heads, "ssm_groups": k_heads,
            "ssm_inner_size": v_heads * v_dim if isinstance(v_heads, int) and isinstance(v_dim, int) else v_dim,
            "ssm_state_size": c.size("block.ssm_state_size", "linear_key_head_dim"),
            "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "linear_conv_kernel_dim"),
            "ssm_chunk_size": DELTANET_CHUNK}
    else:
        c.neutral("linear_num_value_heads", "linear_num_key_heads", "linear_value_head_dim", "linear_key_head_dim",
                  "linear_conv_kernel_dim")
    if "full_attention" in types:
        bias = c.flag("attention_bias", False)
        mixers["full_attention"] = norm | {
            "heads": c.size("block.heads", "num_attention_heads"),
            "kv_heads": c.size("block.kv_heads", "num_key_value_heads"),
            "head_size": c.size("block.head_size", "head_dim"), "qk_norm": "head", "attention_output_gate": True,
            "qkv_bias": bias, "out_bias": bias}
    else:
        c.neutral("num_attention_heads", "num_key_value_heads", "head_dim", "attention_bias")
    sparse = sparse(layers)
    feed = {}
    if any(sparse):
        experts = c.size("block.experts", "num_experts")
        if experts == 1:
            raise c.error("num_experts", "1 expert behind a router beside the shared expert is not modelled")
        feed["moe"] = {"experts": experts, "active_experts": c.size("block.active_experts", "num_experts_per_tok"),
                       "ff_size": c.size("block.ff_size", "moe_intermediate_size"),
                       "shared_ff_size": c.size("block.shared_ff_size", "shared_expert_intermediate_size"),
                       "shared_expert_gate": True}
    else:
        c.neutral("num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size")
    if not all(sparse):
        feed["mlp"] = {"ff_size": c.size("block.ff_size", "intermediate_size")}
    else:
        c.neutral("intermediate_size")
    kinds = [f"{t} {'moe' if s else 'mlp'}" for t, s in zip(types, sparse)]
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": c.flag("tie_word_embeddings", False)}
    return by_mixer_and_feed(fields, mixers, feed, kinds)


KIMI_LINEAR_DEFAULTS = {"vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216,
                        "moe_intermediate_size": 1024, "num_hidden_layers": 27, "num_attention_heads": 32,
                        "num_key_value_heads": 32, "num_shared_experts": 1, "kv_lora_rank": 512,
                        "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128, "num_expert_group": 1,
                        "topk_group": 1, "num_experts_per_token": 8, "num_experts": 256, "linear_head_dim": 128,
                        "linear_num_heads": 32, "linear_conv_kernel_dim": 4}
"""KimiLinearConfig's defaults of the sizes (the keys under the names its ``attribute_map`` stores them by:
``num_experts`` for num_local_experts, ``num_experts_per_token``, ``num_shared_experts``, ``num_expert_group``)."""


KIMI_LINEAR_ATTN = {"head_dim": "linear_head_dim", "num_heads": "linear_num_heads",
                    "short_conv_kernel_size": "linear_conv_kernel_dim"}
"""``linear_attn_config``'s sizes (as the published checkpoint writes them) → the KimiLinearConfig field each sets."""


def _kimi_linear_types(c: Keys, layers: int) -> list[str]:
    """Kimi Linear's layer kinds as KimiLinearConfig builds them: ``layer_types``; absent, from
    ``linear_attn_config``'s 1-based ``full_attn_layers`` and ``kda_layers`` when it has both (every layer listed
    once); otherwise "full_attention" where i > 0 and i % 4 == 0."""
    types = c.get("layer_types")
    if types is not None:
        return _linear_full(c, types, layers)
    attn = c.get("linear_attn_config") or {}
    if "full_attn_layers" in attn and "kda_layers" in attn:
        full, kda = attn["full_attn_layers"], attn["kda_layers"]
        for key, value in (("full_attn_layers", full), ("kda_layers", kda)):
            if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                      and 1 <= i <= layers for i in value):
                raise c.error("linear_attn_config", f"{key}: expected a list of 1-based layer numbers from 1 to "
                                                    f"{layers}")
        if set(full) & set(kda) or set(full) | set(kda) != set(range(1, layers + 1)):
            raise c.error("linear_attn_config", f"full_attn_layers and kda_layers must list each of the {layers} "
                                                "layers once (1-based); transformers builds no mask for a layer "
                                                "in neither")
        return ["full_attention" if i + 1 in full else "linear_attention" for i in range(layers)]
    return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(layers)]


@register("kimi_linear", lm_classes("KimiLinear"))
def _kimi_linear(c: Keys) -> dict:
    """kimi_linear (Kimi Linear, ``KimiLinearForCausalLM``): each layer by ``layer_types`` (``_kimi_linear_types``)
    RMSNorm + a mixer, then RMSNorm + a feed-forward. "linear_attention": Kimi Delta Attention (a Gated DeltaNet
    mixer with a per-channel decay, ``state_space.kimi_delta``) of ``linear_num_heads`` H heads of
    ``linear_head_dim`` D (``linear_attn_config``'s ``num_heads`` / ``head_dim`` / ``short_conv_kernel_size`` win
    over those keys, as in KimiLinearConfig), a convolution of ``linear_conv_kernel_dim`` (``hidden_act``), chunks
    of 64. "full_attention": DeepSeek's multi-head latent attention without rotary positions (no parameters or
    products either way; ``attention_bias`` on the q/kv down-projections and o). Feed-forward by
    ``mlp_layer_types`` (absent: "dense" on the first ``first_k_dense_replace`` layers, 1 by default): "sparse" —
    ``num_experts`` gated experts of ``moe_intermediate_size`` (k = ``num_experts_per_token``; a sigmoid router
    d→E without bias, grouped top-k: ``num_expert_group`` / ``topk_group`` choose, count nothing) beside
    ``num_shared_experts`` × ``moe_intermediate_size`` shared; "dense" — a gated MLP of ``intermediate_size``.
    The head is never tied (transformers' class ties nothing, whatever ``tie_word_embeddings`` says). Absent sizes:
    KimiLinearConfig's defaults. The config's ``head_dim`` is overwritten by ``qk_rope_head_dim`` (inert)."""
    c.neutral("head_dim", "tie_word_embeddings", "routed_scaling_factor", "moe_renormalize", "rope_parameters",
              "output_router_logits", "pretraining_tp", "first_k_dense_replace")
    for key in KIMI_LINEAR_DEFAULTS:
        if key in c.data and c.data[key] is None and key not in ("num_key_value_heads", "topk_group",
                                                                 "num_experts_per_token"):
            raise c.error(key, "null is not accepted (transformers' KimiLinearConfig requires a whole number)")
    attn = c.get("linear_attn_config")
    if attn is not None:
        if not isinstance(attn, dict):
            raise c.error("linear_attn_config", "expected an object")
        other = sorted(set(attn) - set(KIMI_LINEAR_ATTN) - {"full_attn_layers", "kda_layers"})
        if other:
            raise c.error("linear_attn_config", f"{other[0]} is not read by transformers' KimiLinearConfig, which "
                                                "would build the layer without it; not modelled")
        c.data = {**c.data, **{field: attn[key] for key, field in KIMI_LINEAR_ATTN.items() if key in attn}}
    c.data = {**KIMI_LINEAR_DEFAULTS, **{k: v for k, v in c.data.items() if v is not None or
                                         k not in ("num_key_value_heads", "topk_group", "num_experts_per_token")}}
    layers = num_hidden_layers(c)
    types = _kimi_linear_types(c, layers)
    ff_types = c.get("mlp_layer_types")
    if ff_types is None:
        first = c.size(None, "first_k_dense_replace", required=False, default=1)
        ff_types = ["dense" if i < first else "sparse" for i in range(layers)]
    elif not isinstance(ff_types, list) or len(ff_types) != layers or not set(ff_types) <= {"dense", "sparse"}:
        raise c.error("mlp_layer_types", f"expected {layers} entries (num_hidden_layers) of 'dense' or 'sparse'")
    d = c.size("d_model", "hidden_size")
    act = c.activation("hidden_act", default="silu")
    norm = {"norm": "rmsnorm", "heads": 1, "gated": True, "activation": act, "ff_bias": False}
    mixers = {}
    if "linear_attention" in types:
        heads, dim = c.size("block.ssm_heads", "linear_num_heads"), c.size("block.ssm_state_size", "linear_head_dim")
        mixers["linear_attention"] = norm | {
            "mixer": "gated_deltanet", "ssm_decay": "channel", "ssm_heads": heads, "ssm_groups": heads,
            "ssm_inner_size": heads * dim if isinstance(heads, int) and isinstance(dim, int) else dim,
            "ssm_state_size": dim, "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "linear_conv_kernel_dim"),
            "ssm_chunk_size": DELTANET_CHUNK}
    else:
        c.neutral("linear_num_heads", "linear_head_dim", "linear_conv_kernel_dim")
    if "full_attention" in types:
        heads = c.size("block.heads", "num_attention_heads")
        kv = c.size(None, "num_key_value_heads", required=False, default=heads)
        if kv != heads:
            raise c.error("num_key_value_heads", f"{kv} differs from num_attention_heads {heads}: transformers' "
                                                 "latent attention repeats its H key heads by H / kv, which does "
                                                 "not run")
        bias = c.flag("attention_bias", False)
        mixers["full_attention"] = norm | {
            "heads": heads, "kv_heads": None, "head_size": c.size("block.head_size", "qk_nope_head_dim"),
            "kv_lora_rank": c.size("block.kv_lora_rank", "kv_lora_rank"),
            "q_lora_rank": c.size("block.q_lora_rank", "q_lora_rank", required=False),
            "rope_head_size": c.size("block.rope_head_size", "qk_rope_head_dim"),
            "value_head_size": c.size("block.value_head_size", "v_head_dim"), "qkv_bias": bias, "out_bias": bias}
    else:
        c.neutral("num_attention_heads", "num_key_value_heads", "qk_nope_head_dim", "kv_lora_rank", "q_lora_rank",
                  "qk_rope_head_dim", "v_head_dim", "attention_bias")
    feed = {}
    if "sparse" in ff_types:
        experts = c.size("block.experts", "num_experts")
        k = c.size("block.active_experts", "num_experts_per_token")
        groups = c.size(None, "num_expert_group")
        chosen = c.size(None, "topk_group")
        if isinstance(experts, int) and isinstance(groups, int) and (groups < 1 or experts % groups
                                                                     or experts // groups < 2):
            raise c.error("num_expert_group", f"{groups} groups must divide the {experts} experts (num_experts) "
                                              "into groups of 2 or more, as transformers' router takes the top 2 "
                                              "of each")
        if isinstance(chosen, int) and isinstance(groups, int) and not 1 <= chosen <= groups:
            raise c.error("topk_group", f"expected 1 to num_expert_group ({groups})")
        if isinstance(k, int) and isinstance(experts, int) and isinstance(chosen, int) and \
                isinstance(groups, int) and not 1 <= k <= experts // groups * chosen:
            raise c.error("num_experts_per_token", f"expected 1 to the {experts // groups * chosen} experts of "
                                                   "the chosen groups")
        ff = c.size("block.ff_size", "moe_intermediate_size")
        shared = c.size(None, "num_shared_experts")
        feed["sparse"] = {"experts": experts, "active_experts": k, "ff_size": ff,
                          "shared_ff_size": shared * ff if isinstance(shared, int) and shared and isinstance(ff, int)
                          else None}
    else:
        c.neutral("num_experts", "num_experts_per_token", "moe_intermediate_size", "num_shared_experts",
                  "num_expert_group", "topk_group")
    if "dense" in ff_types:
        feed["dense"] = {"ff_size": c.size("block.ff_size", "intermediate_size")}
    else:
        c.neutral("intermediate_size")
    kinds = [f"{t} {f}" for t, f in zip(types, ff_types)]
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "model_max_length", required=False),
              "tied_embeddings": False}
    return by_mixer_and_feed(fields, mixers, feed, kinds)


@register("olmo_hybrid", lm_classes("OlmoHybrid"))
def _olmo_hybrid(c: Keys) -> dict:
    """olmo_hybrid (OLMo Hybrid, ``OlmoHybridForCausalLM``): each layer by ``layer_types`` (absent: "full_attention"
    where i % 4 == 3, the last layer if none is; OlmoHybridConfig refuses all of one kind). "full_attention": OLMo 2's
    layer — attention (GQA, ``attention_bias`` on q/k/v/o, RMS norms over the whole q and k projections) and the gated
    MLP, each sub-layer's output RMS-normed before the residual add. "linear_attention": a pre-norm layer of Gated
    DeltaNet (``state_space.gated_deltanet``: Qwen3-Next's maths; q, k d→G·d_k, v and the gate d→H·d_v, β and a
    d→H each, one convolution over q, k, v, the SiLU-gated norm) then the gated MLP. G = ``linear_num_key_heads``
    and H = ``linear_num_value_heads`` (absent: the attention heads), d_k = ``linear_key_head_dim`` (absent:
    int(0.75·d/G)), d_v = ``linear_value_head_dim`` (absent: 2·d_k). β × 2 (``linear_allow_neg_eigval``) is
    element-wise (not in any count); the initialisation keys count nothing."""
    c.neutral("linear_a_log_min", "linear_a_log_max", "linear_dt_min", "linear_dt_max", "linear_dt_init_floor",
              "linear_allow_neg_eigval", "rope_parameters", "rope_scaling", "rope_theta")
    defaults = {"vocab_size": 100352, "hidden_size": 3840, "intermediate_size": 11008, "num_hidden_layers": 32,
                "num_attention_heads": 30, "linear_conv_kernel_dim": 4}
    whole_defaults(c, defaults, "OlmoHybridConfig")
    layers = num_hidden_layers(c)
    types = c.get("layer_types")
    if types is None:
        types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(layers)]
        if "full_attention" not in types:
            types[-1] = "full_attention"
    types = _linear_full(c, types, layers)
    if len(set(types)) < 2:
        raise c.error("layer_types", "OlmoHybridConfig expects at least one 'linear_attention' and one "
                                     "'full_attention' layer")
    d = c.size("d_model", "hidden_size")
    heads = c.size("block.heads", "num_attention_heads")
    ff = c.size("block.ff_size", "intermediate_size")
    act = c.activation("hidden_act", default="silu")
    k_heads = c.size("block.ssm_groups", "linear_num_key_heads", required=False, default=heads)
    v_heads = c.size("block.ssm_heads", "linear_num_value_heads", required=False, default=heads)
    if all(isinstance(v, int) and v > 0 for v in (v_heads, k_heads)) and v_heads % k_heads:
        raise c.error("linear_num_value_heads", f"{v_heads} value heads must be a multiple of the {k_heads} key "
                                                "heads (linear_num_key_heads), as transformers' Gated DeltaNet "
                                                "repeats them")
    dk = c.size("block.ssm_state_size", "linear_key_head_dim", required=False,
                default=int(0.75 * d / k_heads) if isinstance(d, int) and isinstance(k_heads, int) and k_heads
                else None)
    dv = c.size(None, "linear_value_head_dim", required=False, default=2 * dk if isinstance(dk, int) else None)
    bias = c.flag("attention_bias", False)
    attention = {"norm": "rmsnorm", "gated": True, "activation": act, "ff_bias": False, "ff_size": ff,
                 "heads": heads, "kv_heads": c.size("block.kv_heads", "num_key_value_heads", required=False,
                                                     default=heads),
                 "qkv_bias": bias, "out_bias": bias, "norm_position": "output", "qk_norm": "width"}
    linear = {"norm": "rmsnorm", "gated": True, "activation": act, "ff_bias": False, "ff_size": ff, "heads": 1,
              "mixer": "gated_deltanet", "ssm_heads": v_heads, "ssm_groups": k_heads,
              "ssm_inner_size": v_heads * dv if isinstance(v_heads, int) and isinstance(dv, int) else dv,
              "ssm_state_size": dk, "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "linear_conv_kernel_dim"),
              "ssm_chunk_size": DELTANET_CHUNK}
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}
    return by_pattern(fields, {"full_attention": attention, "linear_attention": linear}, types)
