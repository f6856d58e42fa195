"""Mamba's lineage: Mamba and Falcon-Mamba (the selective scan), Mamba-2 (grouped heads, the chunked scan), and the
hybrids that place attention layers among Mamba-2 ones: Bamba, Granite-MoE-Hybrid, Nemotron-H, Jamba, Falcon-H1.
"""
from __future__ import annotations

import math

from .keys import Keys
from .parts import (
    by_pattern,
    decoder_fields,
    layer_numbers,
    llama_block,
    mamba2_block,
    placed,
)
from .registry import lm_classes, register


@register("mamba", lm_classes("Mamba"))
@register("falcon_mamba", lm_classes("FalconMamba"))
def _mamba(c: Keys) -> dict:
    """mamba, falcon_mamba: ``num_hidden_layers`` blocks of RMSNorm + mixer: inner width I =
    ``intermediate_size`` (absent: ``expand``·d, which the config class computes; a value the file gives wins,
    as transformers sets the file's keys after computing it), ``state_size`` N, ``conv_kernel`` K,
    ``time_step_rank`` R ("auto": ⌈d/16⌉), ``use_bias`` on the in/out projections, ``use_conv_bias``; a tied
    head by default. Falcon-Mamba's extra RMS norms of Δ, B and C have no parameters."""
    c.neutral("residual_in_fp32", "time_step_scale", "time_step_min", "time_step_max", "time_step_init_scheme",
              "time_step_floor", "rescale_prenorm_residual", "use_mambapy", "use_associative_scan", "layer_types",
              "mixer_rms_eps", "use_falcon_mambapy")
    d = c.size("d_model", "hidden_size")
    expand = c.get("expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, (int, float)) or not 0 < expand <= 1_000:
        raise c.error("expand", "expected a positive number (the inner width is expand × hidden_size)")
    rank = c.get("time_step_rank", "auto")
    if rank == "auto":
        rank = math.ceil(d / 16) if isinstance(d, int) else None
    else:
        rank = c.size("block.ssm_dt_rank", "time_step_rank")
    block = {"heads": 1, "mixer": "mamba", "feed_forward": False, "norm": "rmsnorm",
             "activation": c.activation("hidden_act", default="silu"),
             "ssm_inner_size": c.size("block.ssm_inner_size", "intermediate_size", required=False,
                                      default=int(expand * d) if isinstance(d, int) else d),
             "ssm_state_size": c.size("block.ssm_state_size", "state_size"),
             "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "conv_kernel"),
             "ssm_dt_rank": rank, "ssm_bias": c.flag("use_bias", False), "ssm_conv_bias": c.flag("use_conv_bias", True)}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": d,
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "block": block, "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _expand(c: Keys, d) -> int:
    """I = ⌊expand·d⌋, as transformers' mixers compute it."""
    expand = c.get("expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, (int, float)) or not 0 < expand <= 1_000:
        raise c.error("expand", "expected a positive number (the inner width is expand × hidden_size)")
    return int(expand * d) if isinstance(d, int) else d


@register("mamba2", lm_classes("Mamba2"))
def _mamba2(c: Keys) -> dict:
    """mamba2: ``num_hidden_layers`` blocks of RMSNorm + Mamba-2's mixer: I = ``expand``·d = ``num_heads`` ×
    ``head_dim``, ``state_size`` N, ``n_groups`` G, ``conv_kernel`` K, ``chunk_size`` Q; an untied head by
    default. ``time_step_rank`` is stored by transformers and used by nothing (Mamba-2 has no Δ projection)."""
    c.neutral("residual_in_fp32", "time_step_rank", "time_step_min", "time_step_max", "time_step_floor",
              "time_step_limit", "rescale_prenorm_residual", "layer_types")
    d = c.size("d_model", "hidden_size")
    block = {"heads": 1, "feed_forward": False, "norm": "rmsnorm",
             "activation": c.activation("hidden_act", default="silu"), **mamba2_block(c, d, _expand(c, d))}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": d,
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "block": block, "tied_embeddings": c.flag("tie_word_embeddings", False)}


def _mamba2_of(attention_block: dict, mixer: dict) -> dict:
    """A state-space block with the attention block's norms and feed-forward."""
    drop = ("heads", "kv_heads", "head_size", "qkv_bias", "out_bias", "attention_window")
    return {k: v for k, v in attention_block.items() if k not in drop} | {"heads": 1} | mixer


@register("bamba", lm_classes("Bamba"))
def _bamba(c: Keys) -> dict:
    """bamba: Llama's attention block (RMSNorm, GQA, ``attention_bias``, gated MLP with ``mlp_bias``) on the
    layers ``attn_layer_indices`` lists, Mamba-2's mixer (``mamba_*`` keys; ``mamba_d_head`` "auto": I/H)
    before the same MLP on the others; an untied head by default."""
    c.neutral("num_logits_to_keep", "z_loss_coefficient", "time_step_limit", "layer_types")
    fields = decoder_fields(c, **llama_block(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    attention = fields["block"]
    fields["block"] = _mamba2_of(attention, _mamba2_keys(c, fields["d_model"]))
    placed(fields, attention, layer_numbers(c, "attn_layer_indices", fields["layers"]))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _mamba2_keys(c: Keys, d) -> dict:
    """Mamba-2's mixer under the ``mamba_*`` keys Bamba and Granite 4 hybrids write (``mamba_d_head`` "auto": I/H)."""
    expand = c.get("mamba_expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, int) or not 0 < expand <= 1_000:
        raise c.error("mamba_expand", "expected a positive whole number (the inner width is mamba_expand × "
                                      "hidden_size)")
    return mamba2_block(c, d, expand * d if isinstance(d, int) else d, num_heads="mamba_n_heads",
                        head_dim="mamba_d_head", state_size="mamba_d_state", n_groups="mamba_n_groups",
                        conv_kernel="mamba_d_conv", chunk_size="mamba_chunk_size", use_bias="mamba_proj_bias",
                        use_conv_bias="mamba_conv_bias")


def _types(c: Keys, layers, known: dict[str, str], default: str) -> list[str]:
    """``layer_types`` (transformers' legacy names remapped: "mamba" → "linear_attention", "attention" →
    "full_attention"), each one of ``known``; absent: every layer ``default``."""
    types = c.get("layer_types")
    if not isinstance(layers, int) or not 1 <= layers <= 10_000:
        return []
    if types is None:
        return [default] * layers
    legacy = {"mamba": "linear_attention", "attention": "full_attention"}
    if not isinstance(types, list) or len(types) != layers or \
            not all(isinstance(t, str) and legacy.get(t, t) in known for t in types):
        raise c.error("layer_types", f"expected {layers} entries of {', '.join(repr(k) for k in known)}")
    return [known[legacy.get(t, t)] for t in types]


@register("granitemoehybrid", lm_classes("GraniteMoeHybrid"))
def _granitemoehybrid(c: Keys) -> dict:
    """granitemoehybrid (Granite 4.0 H): each layer Mamba-2's mixer or Llama's attention (``layer_types``; absent:
    all Mamba-2), then E experts of ``intermediate_size`` (fused gate/up, a router without bias) beside a shared
    gated MLP of ``shared_intermediate_size``, or that MLP alone when ``num_local_experts`` is 0; multipliers
    scale activations only; rotary or no position embedding (no parameters)."""
    c.neutral("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling",
              "position_embedding_type", "time_step_limit")
    fields = decoder_fields(c, **llama_block(c))
    block = fields["block"]
    shared = c.size("block.shared_ff_size", "shared_intermediate_size")
    experts = c.size("block.experts", "num_local_experts", required=False, default=8)
    if experts == 1:
        raise c.error("num_local_experts", "1 expert behind a router beside the shared MLP is not modelled")
    if experts:
        block |= {"experts": experts, "active_experts": c.size("block.active_experts", "num_experts_per_tok"),
                  "shared_ff_size": shared}
    else:
        c.neutral("num_experts_per_tok")
        block["ff_size"] = shared
    mamba = _mamba2_of(block, _mamba2_keys(c, fields["d_model"]))
    types = _types(c, fields["layers"], {"linear_attention": "mamba", "full_attention": "attention"},
                   "linear_attention")
    fields["block"] = mamba
    placed(fields, block, [i for i, t in enumerate(types) if t == "attention"])
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


NEMOTRON_H_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
"""``hybrid_override_pattern``'s letters (transformers' NemotronHConfig._pattern_to_list)."""


NEMOTRON_H_LEGACY = {"n_groups": "mamba_n_groups", "conv_kernel": "mamba_d_conv", "use_conv_bias": "mamba_conv_bias",
                     "chunk_size": "mamba_chunk_size", "expand": "mamba_expand", "time_step_min": "mamba_dt_min",
                     "time_step_max": "mamba_dt_max", "time_step_limit": "mamba_dt_limit",
                     "time_step_floor": "mamba_dt_init_floor"}
"""The older names NemotronHConfig still takes (key → old name)."""


@register("nemotron_h", lm_classes("NemotronH"))
def _nemotron_h(c: Keys) -> dict:
    """nemotron_h: each layer one norm and one mixer, by ``layers_block_type`` (or ``hybrid_override_pattern``:
    M Mamba-2, * attention, - MLP, E MoE; absent both: transformers' four layers M E * -), whose length is the
    layer count (``num_hidden_layers`` is ignored, as transformers ignores it). Mamba-2 of I = ``mamba_num_heads``
    × ``mamba_head_dim``; attention without biases, ``head_dim`` wide; MLP up/down (``mlp_hidden_act``, squared ReLU
    by default; ``mlp_bias``); absent ``head_dim``: NemotronHConfig's 128 (Hub files write ``attention_head_dim``, which
    transformers does not read); MoE: E non-gated experts of ``moe_intermediate_size``, k per token, a router without
    bias, a shared MLP of ``moe_shared_expert_intermediate_size``. The multi-token-prediction layers
    (``num_nextn_predict_layers``) are not built by transformers, nor counted; an untied head always (transformers
    ties nothing here)."""
    data = dict(c.data)
    for key, old in NEMOTRON_H_LEGACY.items():
        if data.get(key) is None and data.get(old) is not None:
            data[key] = data.pop(old)
            c.renamed[key] = old
        c.used.add(old)
    c.data = data
    c.neutral("num_logits_to_keep", "use_mamba_kernels", "time_step_min", "time_step_max", "time_step_limit",
              "time_step_floor", "mamba_ssm_cache_dtype", "routed_scaling_factor", "n_group", "topk_group",
              "norm_topk_prob", "moe_shared_expert_overlap", "num_nextn_predict_layers", "mtp_layers_block_type",
              "mtp_hybrid_override_pattern", "num_hidden_layers", "rescale_prenorm_residual", "residual_in_fp32",
              "expand", "tie_word_embeddings", "sliding_window")
    c.require("moe_latent_size", lambda v: False, "the experts' latent projections are not modelled")
    types = c.get("layers_block_type")
    pattern = c.get("hybrid_override_pattern")
    if types is None and pattern is not None:
        if not isinstance(pattern, str) or not pattern or set(pattern) - set(NEMOTRON_H_PATTERN):
            raise c.error("hybrid_override_pattern", "expected a string of M, *, - and E (one letter per layer)")
        types = [NEMOTRON_H_PATTERN[x] for x in pattern]
    if types is None:
        types = ["linear_attention", "moe", "full_attention", "mlp"]
    legacy = {"mamba": "linear_attention", "attention": "full_attention"}
    if not isinstance(types, list) or not 1 <= len(types) <= 10_000 or \
            not all(isinstance(t, str) and legacy.get(t, t) in NEMOTRON_H_PATTERN.values() for t in types):
        raise c.error("layers_block_type", "expected a list of 'linear_attention', 'full_attention', 'mlp' and 'moe'")
    types = [legacy.get(t, t) for t in types]
    d = c.size("d_model", "hidden_size")
    if "linear_attention" in types:
        heads, head_dim = c.size("block.ssm_heads", "mamba_num_heads"), c.size(None, "mamba_head_dim")
        inner = heads * head_dim if isinstance(heads, int) and isinstance(head_dim, int) else heads
    else:
        c.neutral("mamba_num_heads", "mamba_head_dim")
    norm = {"norm": "rmsnorm", "heads": 1, "feed_forward": False}
    mlp_act = c.activation("mlp_hidden_act", default="relu2")
    kinds = {  # each read only where a layer is of that kind (its keys are inert otherwise)
        "linear_attention": (lambda: norm | {"activation": c.activation("mamba_hidden_act", default="silu")}
                             | mamba2_block(c, d, inner, num_heads="mamba_num_heads", head_dim="mamba_head_dim",
                                            state_size="ssm_state_size", use_bias="use_bias"),
                             ("mamba_hidden_act", "ssm_state_size", "n_groups", "conv_kernel", "chunk_size",
                              "use_bias", "use_conv_bias")),
        "full_attention": (lambda: norm | {"heads": c.size("block.heads", "num_attention_heads"),
                                           "kv_heads": c.size("block.kv_heads", "num_key_value_heads"),
                                           "head_size": c.size("block.head_size", "head_dim", required=False,
                                                               default=128),
                                           "qkv_bias": False, "out_bias": False},
                           ("num_attention_heads", "num_key_value_heads", "head_dim")),
        "mlp": (lambda: norm | {"mixer": "none", "feed_forward": True, "gated": False, "activation": mlp_act,
                                "ff_size": c.size("block.ff_size", "intermediate_size"),
                                "ff_bias": c.flag("mlp_bias", False)},
                ("intermediate_size",)),
        "moe": (lambda: norm | {"mixer": "none", "feed_forward": True, "gated": False, "activation": mlp_act,
                                "ff_bias": False, "ff_size": c.size("block.ff_size", "moe_intermediate_size"),
                                "experts": c.size("block.experts", "n_routed_experts"),
                                "active_experts": c.size("block.active_experts", "num_experts_per_tok"),
                                "shared_ff_size": c.size("block.shared_ff_size",
                                                         "moe_shared_expert_intermediate_size")},
                ("moe_intermediate_size", "n_routed_experts", "num_experts_per_tok",
                 "moe_shared_expert_intermediate_size")),
    }
    blocks = {}
    for kind, (read, keys) in kinds.items():
        if kind in types:
            blocks[kind] = read()
        else:
            c.neutral(*keys)
    if "moe" in types and c.flag("mlp_bias", False):
        raise c.error("mlp_bias", "true is not supported with MoE layers (their shared MLP then has biases, "
                                  "which is not modelled)")
    fields = {"layers": len(types), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": False}
    return by_pattern(fields, blocks, types)


def _period(c: Keys, period_key: str, offset_key: str, period: int, offset: int) -> tuple[int, int]:
    """(period, offset) of a layer pattern ``i % period == offset``; the config class requires offset < period."""
    p = c.size(None, period_key, required=False, default=period)
    o = c.size(None, offset_key, required=False, default=offset)
    if p < 1:
        raise c.error(period_key, "expected 1 or more")
    if not 0 <= o < p:
        raise c.error(offset_key, f"expected 0 to {p - 1} (less than {period_key} {p}, as JambaConfig requires)")
    return p, o


@register("jamba", lm_classes("Jamba"))
def _jamba(c: Keys) -> dict:
    """jamba: ``num_hidden_layers`` layers, each RMSNorm + a mixer, then RMSNorm + a feed-forward. The mixer is
    attention where i mod ``attn_layer_period`` = ``attn_layer_offset`` (Llama's without biases or rotary
    embeddings: no position terms at all; ``head_dim`` if the file gives one, else d/H; absent
    ``num_key_value_heads``: JambaConfig's 8), Mamba's elsewhere (I = ``mamba_expand``·d,
    ``mamba_d_state`` N, ``mamba_d_conv`` K, ``mamba_dt_rank`` R ("auto": ⌈d/16⌉), ``mamba_proj_bias``,
    ``mamba_conv_bias``, and RMS norms with gains on Δ, B and C: R + 2N parameters). The feed-forward is a
    mixture of ``num_experts`` gated experts of ``intermediate_size`` (k = ``num_experts_per_tok``, a router
    without bias, weights not renormalised) where i mod ``expert_layer_period`` = ``expert_layer_offset`` and
    E > 1, a gated MLP of the same size elsewhere; ``hidden_act`` throughout; an untied head by default."""
    c.neutral("use_mamba_kernels", "use_mambapy", "use_associative_scan", "num_logits_to_keep",
              "calc_logits_for_entire_prompt")
    for key in ("layers_block_type", "layer_types", "layers_num_experts"):  # JambaConfig's properties
        c.require(key, lambda v: False, "JambaConfig derives it from attn_layer_period/offset and "
                                        "expert_layer_period/offset, and transformers cannot load a file that sets it")
    if "num_key_value_heads" not in c.data:  # JambaConfig's default
        c.data = {**c.data, "num_key_value_heads": 8}
    elif c.data["num_key_value_heads"] is None:
        raise c.error("num_key_value_heads", "null: JambaConfig requires a whole number (transformers cannot load it)")
    fields = decoder_fields(c, **llama_block(c))
    d, layers = fields["d_model"], fields["layers"]
    if not isinstance(layers, int) or not 1 <= layers <= 10_000:
        raise c.error("num_hidden_layers", "expected 1 to 10,000 layers")
    attention = fields["block"]
    expand = c.get("mamba_expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, int) or not 0 < expand <= 1_000:
        raise c.error("mamba_expand", "expected a positive whole number (the inner width is mamba_expand × "
                                      "hidden_size)")
    rank = c.get("mamba_dt_rank", "auto")
    rank = math.ceil(d / 16) if rank == "auto" and isinstance(d, int) else c.size("block.ssm_dt_rank",
                                                                                   "mamba_dt_rank")
    mamba = _mamba2_of(attention, {
        "mixer": "mamba", "ssm_inner_size": expand * d if isinstance(d, int) else d,
        "ssm_state_size": c.size("block.ssm_state_size", "mamba_d_state", required=False, default=16),
        "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "mamba_d_conv", required=False, default=4),
        "ssm_dt_rank": rank, "ssm_bias": c.flag("mamba_proj_bias", False),
        "ssm_conv_bias": c.flag("mamba_conv_bias", True), "ssm_norms": True})
    a_period, a_offset = _period(c, "attn_layer_period", "attn_layer_offset", 8, 4)
    e_period, e_offset = _period(c, "expert_layer_period", "expert_layer_offset", 2, 1)
    experts = c.size("block.experts", "num_experts", required=False, default=16)
    active = c.size("block.active_experts", "num_experts_per_tok", required=False, default=2)
    moe = {"experts": experts, "active_experts": active}
    blocks = {("attention", False): attention, ("attention", True): attention | moe,
              ("mamba", False): mamba, ("mamba", True): mamba | moe}
    types = [("attention" if i % a_period == a_offset else "mamba",
              isinstance(experts, int) and experts > 1 and i % e_period == e_offset) for i in range(layers)]
    if any(moe for _, moe in types) and isinstance(active, int) and not 1 <= active <= experts:
        raise c.error("num_experts_per_tok", f"expected 1 to num_experts ({experts}) experts per token")
    return by_pattern(fields, blocks, types) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


FALCON_H1_MULTIPLIERS = ("lm_head_multiplier", "embedding_multiplier", "mlp_multipliers", "key_multiplier",
                         "attention_out_multiplier", "attention_in_multiplier", "ssm_multipliers", "ssm_in_multiplier",
                         "ssm_out_multiplier")
"""Falcon-H1's µP multipliers: element-wise scalings, whatever their values (no parameters, no products)."""


FALCON_H1_DEFAULTS = {"num_key_value_heads": 8, "mamba_d_ssm": 1024, "mamba_n_heads": 128, "mamba_d_head": "auto",
                      "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4, "mamba_chunk_size": 256}
"""FalconH1Config's defaults for keys a file may leave out (a null ``num_key_value_heads``: H; a null
``mamba_d_ssm``: ``mamba_expand``·d)."""


@register("falcon_h1", lm_classes("FalconH1"))
def _falcon_h1(c: Keys) -> dict:
    """falcon_h1: ``num_hidden_layers`` layers, each RMSNorm, then attention (Llama's: GQA, rotary, q/k/v/o biases
    per ``attention_bias``; ``head_dim`` where the file writes one, else d/H) and Mamba-2's mixer side by side on
    that normed input, their outputs added to the stream; then RMSNorm and the gated MLP (``intermediate_size``,
    ``mlp_bias``, ``hidden_act``). The mixer: I = ``mamba_d_ssm`` (null: ``mamba_expand``·d) in ``mamba_n_heads``
    heads of ``mamba_d_head`` ("auto": I/H), ``mamba_d_state`` N, ``mamba_n_groups`` G, ``mamba_d_conv`` K,
    ``mamba_chunk_size`` Q, ``mamba_proj_bias`` on the in projection, ``projectors_bias`` on the out projection,
    ``mamba_conv_bias``, the gated RMS norm only with ``mamba_rms_norm`` (I parameters); the µP multipliers are
    element-wise (counted in ``full`` only; the embedding's and the LM head's are not counted there); an untied head
    by default. The original checkpoints' ``mamba_use_mlp`` and ``attn_layer_indices`` are read by nothing in
    transformers, which builds attention, Mamba-2 and the MLP in every layer: true and null accepted (inert), other
    values refused by name."""
    c.neutral(*FALCON_H1_MULTIPLIERS, "num_logits_to_keep", "mamba_norm_before_gate", "time_step_limit",
              "time_step_min", "time_step_max", "time_step_floor", "use_mamba_kernels")
    c.require("layers_block_type", lambda v: False, "FalconH1Config derives it (every layer 'hybrid'), and "
                                                    "transformers cannot load a file that sets it")  # or layer_types
    c.require("mamba_use_mlp", lambda v: v is True, "transformers builds the MLP in every layer whatever it says, "
                                                    "the checkpoint's own code would not; not modelled")
    c.require("attn_layer_indices", lambda v: False, "transformers builds attention in every layer whatever it says, "
                                                     "the checkpoint's own code only on the listed ones; not modelled")
    c.data = {**FALCON_H1_DEFAULTS, **c.data}  # absent keys: FalconH1Config's defaults (mamba_d_ssm null: expand·d)
    fields = decoder_fields(c, **llama_block(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    d = fields["d_model"]
    ssm = c.size("block.ssm_inner_size", "mamba_d_ssm", required=False)
    if ssm is None:
        expand = c.get("mamba_expand", 2)
        if isinstance(expand, bool) or not isinstance(expand, int) or not 0 < expand <= 1_000:
            raise c.error("mamba_expand", "expected a positive whole number (the inner width is mamba_expand × "
                                          "hidden_size when mamba_d_ssm is null)")
        ssm = expand * d if isinstance(d, int) else d
    else:
        c.neutral("mamba_expand")
    mixer = mamba2_block(c, d, ssm, num_heads="mamba_n_heads", head_dim="mamba_d_head", state_size="mamba_d_state",
                         n_groups="mamba_n_groups", conv_kernel="mamba_d_conv", chunk_size="mamba_chunk_size",
                         use_bias="mamba_proj_bias", use_conv_bias="mamba_conv_bias")
    del mixer["mixer"]
    fields["block"] |= mixer | {"ssm_beside": True, "mup_multipliers": True,
                                "ssm_gated_norm": c.flag("mamba_rms_norm", False),
                                "ssm_out_bias": "bias" if c.flag("projectors_bias", False) else "none"}
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
