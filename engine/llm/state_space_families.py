"""State-space families: Mamba, Falcon-Mamba and Mamba-2, whose blocks are a norm and a selective-scan mixer
(no attention, no feed-forward), the hybrids placing such layers among attention layers by the config's pattern
(Bamba, Granite 4.0 H, Nemotron-H, Zamba, Zamba2, Jamba, Falcon-H1) and Qwen3-Next and Qwen3.5 (Gated DeltaNet's
linear attention), read with the shared pieces of ``engine.llm.family_parts``."""
from __future__ import annotations

import json
import math

from engine.llm.family_parts import MAX_LAYERS, Family, Keys, _decoder, _lm, _rms_swiglu


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
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "block": block, "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _expand(c: Keys, d) -> int:
    """I = ⌊expand·d⌋, as transformers' mixers compute it."""
    expand = c.get("expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, (int, float)) or not 0 < expand <= 1_000:
        raise c.error("expand", "expected a positive number (the inner width is expand × hidden_size)")
    return int(expand * d) if isinstance(d, int) else d


def mamba2_block(c: Keys, d, inner, prefix: str = "", **keys) -> dict:
    """A Mamba-2 mixer's fields: ``{prefix}`` keys for heads, head size, state size N, groups G, conv width K,
    chunk length Q, biases (``keys`` renames one: Bamba's ``mamba_d_state`` …); the heads must tile I."""
    name = {k: keys.get(k, prefix + k) for k in ("num_heads", "head_dim", "state_size", "n_groups", "conv_kernel",
                                                 "chunk_size", "use_bias", "use_conv_bias")}
    heads = c.size("block.ssm_heads", name["num_heads"])
    head_dim = c.get(name["head_dim"])
    if head_dim == "auto" and isinstance(heads, int) and isinstance(inner, int) and heads > 0:
        head_dim = inner // heads  # Bamba's "auto": I // H
    else:
        head_dim = c.size(None, name["head_dim"])
    if all(isinstance(v, int) for v in (heads, head_dim, inner)) and heads * head_dim != inner:
        raise c.error(name["head_dim"], f"{name['num_heads']} × {name['head_dim']} = {heads * head_dim} must equal "
                                        f"the inner width {inner} (expand × hidden_size), as transformers requires")
    groups = c.size("block.ssm_groups", name["n_groups"])
    if isinstance(groups, int) and isinstance(heads, int) and groups > 0 and heads % groups:
        raise c.error(name["n_groups"], f"{groups} groups must divide the {heads} heads")
    state, chunk = (c.size("block.ssm_state_size", name["state_size"]),
                    c.size("block.ssm_chunk_size", name["chunk_size"]))
    for key, value in ((name["state_size"], state), (name["chunk_size"], chunk)):
        if value == 1:  # transformers then runs the scan's products over a length-1 axis as element-wise work
            raise c.error(key, "1 is not counted: with a single value the scan's matrix products become "
                               "element-wise multiplications in transformers' code; use 2 or more")
    return {"mixer": "mamba2", "ssm_inner_size": inner, "ssm_heads": heads, "ssm_groups": groups,
            "ssm_state_size": state,
            "ssm_conv_kernel": c.size("block.ssm_conv_kernel", name["conv_kernel"]),
            "ssm_chunk_size": chunk,
            "ssm_bias": c.flag(name["use_bias"], False), "ssm_conv_bias": c.flag(name["use_conv_bias"], True)}


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


# ---------------------------------------------------------------- hybrids: state-space layers and attention layers

def _num_hidden_layers(c: Keys) -> int:
    """``num_hidden_layers``, a whole number from 1 to ``MAX_LAYERS`` (the hybrids build a kind per layer)."""
    layers = c.size("layers", "num_hidden_layers")
    if not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        raise c.error("num_hidden_layers", f"expected 1 to {MAX_LAYERS} layers")
    return layers


def _whole_defaults(c: Keys, defaults: dict, config_class: str) -> None:
    """Absent sizes: ``defaults`` (``config_class``'s); a null one refused, as the config class's whole-number
    fields refuse it."""
    for key in defaults:
        if key in c.data and c.data[key] is None:
            raise c.error(key, f"null is not accepted (transformers' {config_class} requires a whole number)")
    c.data = {**defaults, **c.data}


def _linear_full(c: Keys, types, layers: int) -> list[str]:
    """``types``, checked: ``layers`` entries of "linear_attention" or "full_attention"."""
    if not isinstance(types, list) or len(types) != layers or \
            not all(t in ("linear_attention", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries (num_hidden_layers) of 'linear_attention' or "
                                     "'full_attention'")
    return types


def _layer_numbers(c: Keys, key: str, layers) -> list[int]:
    """A list of 0-based layer numbers (transformers tests ``i in list`` for i < layers: larger ones select
    nothing)."""
    value = c.get(key) or []
    if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in value):
        raise c.error(key, "expected a list of layer numbers")
    return sorted({i for i in value if isinstance(layers, int) and 0 <= i < layers})


def _placed(fields: dict, block: dict, at: list[int]) -> dict:
    """``block`` on the layers ``at`` (the main block on the rest); all of them: the main block."""
    layers = fields["layers"]
    if isinstance(layers, int) and len(at) == layers:
        fields["block"] = block
    elif at:
        fields.setdefault("first_layers", []).append({"layers": len(at), "block": block, "at": at})
    return fields


def _mamba2_of(attention_block: dict, mixer: dict) -> dict:
    """A state-space block with the attention block's norms and feed-forward."""
    drop = ("heads", "kv_heads", "head_size", "qkv_bias", "out_bias", "attention_window")
    return {k: v for k, v in attention_block.items() if k not in drop} | {"heads": 1} | mixer


def _bamba(c: Keys) -> dict:
    """bamba: Llama's attention block (RMSNorm, GQA, ``attention_bias``, gated MLP with ``mlp_bias``) on the
    layers ``attn_layer_indices`` lists, Mamba-2's mixer (``mamba_*`` keys; ``mamba_d_head`` "auto": I/H)
    before the same MLP on the others; an untied head by default."""
    c.neutral("num_logits_to_keep", "z_loss_coefficient", "time_step_limit", "layer_types")
    fields = _decoder(c, **_rms_swiglu(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    attention = fields["block"]
    fields["block"] = _mamba2_of(attention, _mamba2_keys(c, fields["d_model"]))
    _placed(fields, attention, _layer_numbers(c, "attn_layer_indices", fields["layers"]))
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


def _granitemoehybrid(c: Keys) -> dict:
    """granitemoehybrid (Granite 4.0 H): each layer Mamba-2's mixer or Llama's attention (``layer_types``; absent:
    all Mamba-2), then E experts of ``intermediate_size`` (fused gate/up, a router without bias) beside a shared
    gated MLP of ``shared_intermediate_size``, or that MLP alone when ``num_local_experts`` is 0; multipliers
    scale activations only; rotary or no position embedding (no parameters)."""
    c.neutral("embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling",
              "position_embedding_type", "time_step_limit")
    fields = _decoder(c, **_rms_swiglu(c))
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
    _placed(fields, block, [i for i, t in enumerate(types) if t == "attention"])
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _by_pattern(fields: dict, blocks: dict[str, dict], types: list[str]) -> dict:
    """Layer i is ``blocks[types[i]]``: the most frequent kind is the main block, the others are placed."""
    main = max(blocks, key=types.count)
    fields["block"] = blocks[main]
    for kind, block in blocks.items():
        if kind != main and kind in types:
            _placed(fields, block, [i for i, t in enumerate(types) if t == kind])
    return fields



def _by_mixer_and_feed(fields: dict, mixers: dict[str, dict], feed: dict[str, dict], kinds: list[str]) -> dict:
    """Layer i is mixer × feed-forward ``kinds[i]`` (``"<mixer> <feed>"``): each combination the layers use is a
    block of both parts, placed by ``_by_pattern``."""
    blocks = {f"{t} {f}": mixers[t] | feed[f] for t in mixers for f in feed if f"{t} {f}" in kinds}
    return _by_pattern(fields, blocks, kinds)

NEMOTRON_H_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
"""``hybrid_override_pattern``'s letters (transformers' NemotronHConfig._pattern_to_list)."""
NEMOTRON_H_LEGACY = {"n_groups": "mamba_n_groups", "conv_kernel": "mamba_d_conv", "use_conv_bias": "mamba_conv_bias",
                     "chunk_size": "mamba_chunk_size", "expand": "mamba_expand", "time_step_min": "mamba_dt_min",
                     "time_step_max": "mamba_dt_max", "time_step_limit": "mamba_dt_limit",
                     "time_step_floor": "mamba_dt_init_floor"}
"""The older names NemotronHConfig still takes (key → old name)."""


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
    return _by_pattern(fields, blocks, types)


ZAMBA2_LAYERS = ["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7 + ["linear_attention"] * 4 + \
    ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"] + ["linear_attention"] * 2
"""Zamba2Config's ``layers_block_type`` when the file gives none (54 layers)."""
ZAMBA2_MIXER_DEFAULTS = {"mamba_d_state": 64, "mamba_d_conv": 4, "mamba_ngroups": 1, "chunk_size": 256}
"""Zamba2Config's defaults of the mixer's sizes."""


def _zamba2(c: Keys) -> dict:
    """zamba2: ``layers_block_type`` (absent: Zamba2Config's 54), whose length must be ``num_hidden_layers``: each
    layer RMSNorm + Mamba-2's mixer (I = ``mamba_expand``·d in ``n_mamba_heads`` heads, ``mamba_d_state`` N,
    ``mamba_ngroups`` G, ``mamba_d_conv`` K, ``chunk_size`` Q; ``add_bias_linear`` on the in/out projections; the
    convolution always has a bias: ``use_conv_bias`` is read by nothing). A "hybrid" layer first runs one of
    ``num_mem_blocks`` M shared blocks (use j runs block j mod M; each block's weights counted at its first use) on
    [x, embeddings]: RMSNorm(2d), attention of H = ``num_attention_heads`` heads of Q = 2d // H reading 2d, output
    H·Q→d, RMSNorm(d), gated MLP d→F→d (``intermediate_size``, absent 4d; ``hidden_act``; ``add_bias_linear``),
    each use with its own adapters of rank ``adapter_rank`` beside gate/up (and q, k, v with
    ``use_shared_attention_adapter``) and its own projection d→d, added to the Mamba layer's input before its norm;
    a tied head by default (transformers ties the shared blocks only then: untied, each use has a copy of its block
    of its own, with the adapters of every use of it, the others' idle). The derived keys Zamba2Config writes (``attention_head_dim``, ``mamba_headdim``,
    ``hybrid_layer_ids`` …) are recomputed by it from these, hence inert."""
    c.neutral("time_step_min", "time_step_max", "time_step_floor", "use_mamba_kernels", "use_mem_eff_path",
              "use_conv_bias", "use_mem_rope", "num_logits_to_keep", "attention_hidden_size", "attention_head_dim",
              "mamba_headdim", "kv_channels", "num_query_groups", "hybrid_layer_ids")
    types = c.get("layers_block_type")
    layers = c.size("layers", "num_hidden_layers", required=False, default=54)
    types = list(ZAMBA2_LAYERS) if types is None else types
    _zamba_kinds(c, types, layers)
    d = c.size("d_model", "hidden_size", required=False, default=2560)
    if not isinstance(d, int):
        raise c.error("hidden_size", "expected a whole number")
    expand = c.get("mamba_expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, int) or not 0 < expand <= 1_000:
        raise c.error("mamba_expand", "expected a positive whole number (the inner width is mamba_expand × "
                                      "hidden_size)")
    inner, heads = expand * d, c.size("block.ssm_heads", "n_mamba_heads", required=False, default=8)
    if isinstance(heads, int) and heads > 0 and inner % heads:
        raise c.error("n_mamba_heads", f"{heads} heads do not divide the inner width {inner} (mamba_expand × "
                                       "hidden_size), which transformers' scan needs")
    c.data = {**ZAMBA2_MIXER_DEFAULTS, **{k: v for k, v in c.data.items() if v is not None},
              "mamba_headdim": "auto", "n_mamba_heads": heads}  # Zamba2Config computes I // H
    bias = c.flag("add_bias_linear", False)
    mixer = mamba2_block(c, d, inner, num_heads="n_mamba_heads", head_dim="mamba_headdim",
                         state_size="mamba_d_state", n_groups="mamba_ngroups", conv_kernel="mamba_d_conv",
                         chunk_size="chunk_size", use_bias="add_bias_linear", use_conv_bias="use_conv_bias")
    block = {"heads": 1, "feed_forward": False, "norm": "rmsnorm", "activation": "silu", **mixer,
             "ssm_bias": bias, "ssm_conv_bias": True}
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size", required=False, default=32000),
              "context_length": 16384 if c.flag("use_long_context", False) else
              c.size("context_length", "max_position_embeddings", required=False, default=4096),
              "block": block, "tied_embeddings": c.flag("tie_word_embeddings", True)}
    uses = [i for i, t in enumerate(types) if t == "hybrid"]
    if not uses:
        c.neutral("num_attention_heads", "num_key_value_heads", "intermediate_size", "hidden_act",
                  "num_mem_blocks", "adapter_rank", "use_shared_attention_adapter")
        return fields
    h, h_kv = _shared_heads(c, d, 32)
    adapters = c.flag("use_shared_attention_adapter", False)
    if adapters and (h_kv != h or (2 * d) % h):
        raise c.error("use_shared_attention_adapter", "true needs num_key_value_heads = num_attention_heads and "
                                                      "heads dividing 2·hidden_size (the adapters' outputs are 2d "
                                                      "wide, added to q, k and v)")
    mem = c.size("num_mem_blocks", "num_mem_blocks", required=False, default=1)
    if not isinstance(mem, int) or mem < 1:
        raise c.error("num_mem_blocks", "expected 1 or more shared blocks")
    shared = {"heads": h, "kv_heads": h_kv, "head_size": 2 * d // h, "norm": "rmsnorm", "gated": True,
              "activation": c.activation("hidden_act", default="gelu"), "qkv_bias": False, "out_bias": False,
              "ff_size": c.size("block.ff_size", "intermediate_size", required=False, default=4 * d),
              "ff_bias": bias}
    use = {"adapter_rank": c.size("adapter_rank", "adapter_rank", required=False, default=128),
           "attention_adapters": adapters}
    return _shared_uses(fields, shared, use, uses, mem)


def _zamba_kinds(c: Keys, types, layers) -> None:
    """Zamba's ``layers_block_type``: "linear_attention" (or legacy "mamba") and "hybrid" entries, as many as
    ``num_hidden_layers`` (the config classes require it)."""
    if not isinstance(types, list) or not 1 <= len(types) <= 10_000 or \
            not all(t in ("mamba", "linear_attention", "hybrid") for t in types):
        raise c.error("layers_block_type", "expected a list of 'linear_attention' (or 'mamba') and 'hybrid'")
    if layers != len(types):
        raise c.error("num_hidden_layers", f"{layers} layers but {len(types)} entries in layers_block_type "
                                           "(transformers requires them equal)")


def _shared_heads(c: Keys, d: int, default: int, kv_default: int | None = None) -> tuple:
    """(H, H_kv) of a shared attention block reading 2d (absent H_kv: the config class's, or H)."""
    h = c.size("block.heads", "num_attention_heads", required=False, default=default)
    h_kv = c.size("block.kv_heads", "num_key_value_heads", required=False, default=kv_default or h)
    if not isinstance(h, int) or not 0 < h <= 2 * d:
        raise c.error("num_attention_heads", f"expected 1 to {2 * d} heads (the head size is 2·hidden_size // heads)")
    if isinstance(h_kv, int) and h_kv > 0 and h % h_kv:
        raise c.error("num_key_value_heads", f"{h_kv} key/value heads must divide the {h} heads")
    return h, h_kv


def _shared_uses(fields: dict, shared: dict, use: dict, uses: list[int], blocks: int) -> dict:
    """The main block with one use of a shared block on each of the layers ``uses``: use j runs block j mod M,
    whose weights count at its first use. transformers ties the shared blocks only with ``tie_word_embeddings``:
    untied, every use builds a copy of its block of its own, holding the adapters of every use of that block
    (``idle_adapters``: those of the others, where ``use`` has adapters)."""
    block, groups = fields["block"], {}
    for j, at in enumerate(uses):
        if fields["tied_embeddings"]:
            key = (j >= blocks, 0)
        else:  # use j's copy of block j mod M holds the adapters of all that block's uses
            key = (False, len(range(j % blocks, len(uses), blocks)) - 1 if use.get("adapter_rank") else 0)
        groups.setdefault(key, []).append(at)
    for (reused, idle), at in groups.items():
        shared_use = use | {"block": shared | {"shared_weights": reused}} | ({"idle_adapters": idle} if idle else {})
        _placed(fields, block | {"shared_block": shared_use}, at)
    return fields


def _zamba(c: Keys) -> dict:
    """zamba (Zamba v1): ``layers_block_type`` (absent: two Mamba layers, a hybrid one, then a hybrid layer where
    i mod ``attn_layer_period`` = ``attn_layer_offset`` among the rest), as many as ``num_hidden_layers``; each
    layer RMSNorm + Mamba's mixer (I = ``mamba_expand``·d split into ``n_mamba_heads`` heads, each with x and Δ
    projections of its own: the same sizes and products as one head of I; ``mamba_d_state`` N, ``mamba_d_conv`` K,
    ``mamba_dt_rank`` R ("auto": ⌈d/16⌉), ``mamba_proj_bias``, ``mamba_conv_bias``, ``hidden_mamba_act``). A "hybrid"
    layer first runs the one shared block (Zamba2's, without adapters: RMSNorm of ``attention_hidden_size`` = 2d,
    attention of heads of ``attention_head_dim`` (absent 2d // H), gated MLP of ``intermediate_size`` without
    biases, ``hidden_act``), then its own projection d→d; a tied head by default. transformers ties the shared
    block only with ``tie_word_embeddings``: untied, each use has a block of its own (counted so); tied with one
    hybrid layer, it does not build (refused)."""
    c.neutral("time_step_min", "time_step_max", "time_step_floor", "use_mamba_kernels", "use_associative_scan",
              "num_logits_to_keep")
    d = c.size("d_model", "hidden_size", required=False, default=3712)
    if not isinstance(d, int):
        raise c.error("hidden_size", "expected a whole number")
    layers = c.size("layers", "num_hidden_layers", required=False, default=76)
    types = c.get("layers_block_type")
    if types is None and isinstance(layers, int) and 3 <= layers <= 10_000:
        period = c.size(None, "attn_layer_period", required=False, default=6)
        offset = c.size(None, "attn_layer_offset", required=False, default=4)
        if not isinstance(period, int) or period < 1:
            raise c.error("attn_layer_period", "expected 1 or more")
        types = ["mamba", "mamba", "hybrid"] + ["hybrid" if i % period == offset else "mamba"
                                                for i in range(layers - 3)]
    else:
        c.neutral("attn_layer_period", "attn_layer_offset")
    _zamba_kinds(c, types, layers)
    expand = c.get("mamba_expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, int) or not 0 < expand <= 1_000:
        raise c.error("mamba_expand", "expected a positive whole number (the inner width is mamba_expand × "
                                      "hidden_size)")
    heads = c.size(None, "n_mamba_heads", required=False, default=2)
    if not isinstance(heads, int) or heads < 1 or expand * d % heads:
        raise c.error("n_mamba_heads", f"expected a divisor of the inner width {expand * d} (mamba_expand × "
                                       "hidden_size), as ZambaConfig requires")
    rank = c.get("mamba_dt_rank", "auto")
    rank = math.ceil(d / 16) if rank == "auto" else c.size("block.ssm_dt_rank", "mamba_dt_rank")
    block = {"heads": 1, "mixer": "mamba", "feed_forward": False, "norm": "rmsnorm",
             "activation": c.activation("hidden_mamba_act", default="silu"), "ssm_inner_size": expand * d,
             "ssm_state_size": c.size("block.ssm_state_size", "mamba_d_state", required=False, default=16),
             "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "mamba_d_conv", required=False, default=4),
             "ssm_dt_rank": rank, "ssm_bias": c.flag("mamba_proj_bias", False),
             "ssm_conv_bias": c.flag("mamba_conv_bias", True)}
    fields = {"layers": layers, "d_model": d,
              "vocab_size": c.size("vocab_size", "vocab_size", required=False, default=32000),
              "context_length": c.size("context_length", "max_position_embeddings", required=False, default=4096),
              "block": block, "tied_embeddings": c.flag("tie_word_embeddings", True)}
    uses = [i for i, t in enumerate(types) if t == "hybrid"]
    if not uses:
        c.neutral("num_attention_heads", "num_key_value_heads", "intermediate_size", "hidden_act",
                  "attention_head_dim", "attention_hidden_size")
        return fields
    if len(uses) == 1 and fields["tied_embeddings"]:
        raise c.error("layers_block_type", "one 'hybrid' layer with tie_word_embeddings true: transformers' ZambaModel "
                                           "does not build it (its pattern tying the shared block finds no other use)")
    h, h_kv = _shared_heads(c, d, 16, 16)
    width = c.size(None, "attention_hidden_size", required=False, default=2 * d)
    if width != 2 * d:
        raise c.error("attention_hidden_size", f"only 2·hidden_size = {2 * d} is built: the shared block reads the "
                                               "hidden state and the embeddings side by side")
    shared = {"heads": h, "kv_heads": h_kv, "norm": "rmsnorm", "gated": True, "qkv_bias": False, "out_bias": False,
              "head_size": c.size("block.head_size", "attention_head_dim", required=False, default=2 * d // h),
              "activation": c.activation("hidden_act", default="gelu"),
              "ff_size": c.size("block.ff_size", "intermediate_size", required=False, default=14848),
              "ff_bias": False}
    return _shared_uses(fields, shared, {}, uses, 1)


def _period(c: Keys, period_key: str, offset_key: str, period: int, offset: int) -> tuple[int, int]:
    """(period, offset) of a layer pattern ``i % period == offset``; the config class requires offset < period."""
    p = c.size(None, period_key, required=False, default=period)
    o = c.size(None, offset_key, required=False, default=offset)
    if p < 1:
        raise c.error(period_key, "expected 1 or more")
    if not 0 <= o < p:
        raise c.error(offset_key, f"expected 0 to {p - 1} (less than {period_key} {p}, as JambaConfig requires)")
    return p, o


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
    fields = _decoder(c, **_rms_swiglu(c))
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
    return _by_pattern(fields, blocks, types) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}

QWEN3_NEXT_DEFAULTS = {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 48,
                       "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
                       "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                       "linear_num_key_heads": 16, "linear_num_value_heads": 32, "moe_intermediate_size": 512,
                       "shared_expert_intermediate_size": 512, "num_experts_per_tok": 10, "num_experts": 512}
"""Qwen3NextConfig's defaults of the sizes (a file without one is built with these)."""
DELTANET_CHUNK = 64
"""The chunk length of transformers' ``torch_chunk_gated_delta_rule`` (its default; no config key sets it)."""


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
    _whole_defaults(c, defaults, config_class)
    layers = _num_hidden_layers(c)
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
    return _by_mixer_and_feed(fields, mixers, feed, kinds)


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
    layers = _num_hidden_layers(c)
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
    return _by_mixer_and_feed(fields, mixers, feed, kinds)


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
    _whole_defaults(c, defaults, "OlmoHybridConfig")
    layers = _num_hidden_layers(c)
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
    return _by_pattern(fields, {"full_attention": attention, "linear_attention": linear}, types)


FALCON_H1_MULTIPLIERS = ("lm_head_multiplier", "embedding_multiplier", "mlp_multipliers", "key_multiplier",
                         "attention_out_multiplier", "attention_in_multiplier", "ssm_multipliers", "ssm_in_multiplier",
                         "ssm_out_multiplier")
"""Falcon-H1's µP multipliers: element-wise scalings, whatever their values (no parameters, no products)."""


FALCON_H1_DEFAULTS = {"num_key_value_heads": 8, "mamba_d_ssm": 1024, "mamba_n_heads": 128, "mamba_d_head": "auto",
                      "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4, "mamba_chunk_size": 256}
"""FalconH1Config's defaults for keys a file may leave out (a null ``num_key_value_heads``: H; a null
``mamba_d_ssm``: ``mamba_expand``·d)."""


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
    fields = _decoder(c, **_rms_swiglu(c))
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


# ---------------------------------------------------------------- LFM2: gated short convolutions among attention layers

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
        at = set(_layer_numbers(c, "full_attn_idxs", layers))
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
        c.neutral("num_attention_heads", "num_key_value_heads", "head_dim", *(["sliding_window"] if attention is not None else []))
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
        raise c.error(key, f"the MLP width comes to {ff} after block_auto_adjust_ff_dim's adjustment; expected 1 or more")
    return ff


def _lfm2(c: Keys) -> dict:
    """lfm2 (Liquid AI's LFM2, ``Lfm2ForCausalLM``): each layer RMSNorm, then a gated short convolution
    (``state_space.short_conv``: in projection d→3d, B·x, causal depthwise convolution of width ``conv_L_cache``,
    C·(conv), out projection d→d) or GQA attention with per-head RMS norms of q and k, by ``layer_types`` (absent:
    attention on the layers ``full_attn_idxs`` lists, all of them when it is absent or null); then RMSNorm and a
    gated SiLU MLP without biases of Lfm2MLP's width (``_lfm2_ff_size``). The final norm is transformers'
    ``embedding_norm``; a tied head by default. Absent sizes: Lfm2Config's defaults."""
    c.neutral("norm_eps")
    _lfm2_sizes(c, LFM2_DEFAULTS, "Lfm2Config")
    layers = _num_hidden_layers(c)
    types = _lfm2_layers(c, layers, legacy=True)
    d = c.size("d_model", "hidden_size")
    block = {"norm": "rmsnorm", "gated": True, "activation": "silu", "ff_bias": False, "ff_size": _lfm2_ff_size(c)}
    fields = {"layers": layers, "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "tied_embeddings": c.flag("tie_word_embeddings", True)}
    return _by_pattern(fields, _lfm2_mixers(c, types, d, block), types)


def _lfm2_moe(c: Keys) -> dict:
    """lfm2_moe (LFM2-8B-A1B, ``Lfm2MoeForCausalLM``): LFM2's layers (``_lfm2``; ``layer_types`` required, as
    transformers cannot build the model without it), the first ``num_dense_layers`` with a gated MLP of
    ``intermediate_size`` (no width adjustment: the block_* keys are not read), the others ``num_experts`` gated
    experts of ``moe_intermediate_size``, k = ``num_experts_per_tok``, behind a router d→E without bias (sigmoid
    scores; the expert bias is a buffer, not a parameter, and only steers the choice). Absent sizes:
    Lfm2MoeConfig's defaults."""
    c.neutral("use_expert_bias", "routed_scaling_factor", "norm_topk_prob", "norm_eps")
    _lfm2_sizes(c, LFM2_MOE_DEFAULTS, "Lfm2MoeConfig")
    layers = _num_hidden_layers(c)
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
    return _by_mixer_and_feed(fields, mixers, feed, kinds)


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


def _lfm3(c: Keys) -> dict:
    """lfm3 (Liquid AI's LFM3, ``Lfm3ForCausalLM``): LFM2's layers (``_lfm2``) by ``layer_types`` ("conv",
    "sliding_attention" with the window ``sliding_window``, "full_attention"; absent: ``_lfm3_layers``), attention
    of ``head_dim`` (default 128, not d/H) with ``attention_bias`` on q, k, v and o and, with ``use_attention_gate``,
    a gate per head (g_proj d→H, sigmoid, before o); ``use_sandwich_norm``: an RMSNorm on the mixer's and the MLP's
    outputs too; a gated SiLU MLP of ``intermediate_size`` as written (no width adjustment: the block_* keys are
    not read). Rotary settings (partial, per layer kind) change no product. Absent sizes: Lfm3Config's defaults."""
    c.neutral("norm_eps")
    _lfm2_sizes(c, LFM3_DEFAULTS, "Lfm3Config", LFM3_NOT_NULL, legacy=False)
    layers = _num_hidden_layers(c)
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
    return _by_pattern(fields, _lfm2_mixers(c, types, d, block, attention), types)


STATE_SPACE_FAMILIES: dict[str, Family] = {
    "mamba": Family(_mamba, _lm("Mamba")),
    "falcon_mamba": Family(_mamba, _lm("FalconMamba")),
    "mamba2": Family(_mamba2, _lm("Mamba2")),
    "bamba": Family(_bamba, _lm("Bamba")),
    "granitemoehybrid": Family(_granitemoehybrid, _lm("GraniteMoeHybrid")),
    "nemotron_h": Family(_nemotron_h, _lm("NemotronH")),
    "zamba": Family(_zamba, _lm("Zamba")),
    "zamba2": Family(_zamba2, _lm("Zamba2")),
    "jamba": Family(_jamba, _lm("Jamba")),
    "falcon_h1": Family(_falcon_h1, _lm("FalconH1")),
    "qwen3_next": Family(_qwen3_next, _lm("Qwen3Next")),
    "qwen3_5_text": Family(_qwen3_5, _lm("Qwen3_5", bare="Qwen3_5TextModel")),
    "qwen3_5_moe_text": Family(_qwen3_5_moe, _lm("Qwen3_5Moe", bare="Qwen3_5MoeTextModel")),
    "lfm2": Family(_lfm2, _lm("Lfm2")),
    "lfm2_moe": Family(_lfm2_moe, _lm("Lfm2Moe")),
    "lfm3": Family(_lfm3, _lm("Lfm3")),
    "kimi_linear": Family(_kimi_linear, _lm("KimiLinear")),
    "olmo_hybrid": Family(_olmo_hybrid, _lm("OlmoHybrid")),
}
"""``model_type`` → reader, for the families of this module (merged into ``FAMILIES``)."""
