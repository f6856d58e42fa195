"""A transformer block written in the first, flat shape (scenario version 1: 92 fields side by side) → the block in
parts (``mixer``, ``feed_forward``, ``norms`` and the block-wide fields). ``engine.scenario`` applies it to old links
and files; the family readers (``engine.llm.families``) write a block's fields by their flat names and are read
through it too, so that a reader says ``"kv_heads"`` and the block holds ``mixer.kv_heads``.

What the old block accepted opens to the same figures: each field goes to its part; fields the chosen mixer never
read (a Mamba block's ``heads``, which the first shape required) are dropped; any other field the new parts have no
place for is kept where it was, so that validation refuses it by name, as the old checks refused it.
"""
from __future__ import annotations

FLAT_DEFAULTS: dict[str, object] = {
    "kv_heads": None, "head_size": None, "ff_size": None, "gated": False, "activation": "gelu", "causal": True,
    "causal_count": "full", "attention_window": None, "cross_attention_length": None, "idle_cross_attention": None,
    "local_radius": None, "global_block_size": None, "norm": "layernorm", "norm_position": "pre", "norm_affine": True,
    "norm_bias": True, "sandwich_norms": False, "qk_norm": "none", "parallel": False, "shared_norm": False,
    "qkv_bias": True, "key_bias": True, "out_bias": True, "ff_bias": True, "down_bias": "same",
    "attention_sinks": False, "kv_lora_rank": None, "q_lora_rank": None, "rope_head_size": None,
    "value_head_size": None, "indexer_heads": None, "indexer_head_size": None, "experts": 1, "active_experts": 1,
    "router_bias": False, "shared_ff_size": None, "shared_expert_gate": False, "zero_experts": None,
    "latent_scales": False, "mixer": "attention", "compress_rate": None, "output_groups": None, "output_rank": None,
    "hyper_connections": None, "hyper_independent": False, "hyper_sinkhorn_iterations": 20,
    "lightning_block_size": None, "residual_scales": False, "feed_forward": True, "ssm_inner_size": None,
    "ssm_state_size": None, "ssm_conv_kernel": None, "ssm_dt_rank": None, "ssm_bias": False, "ssm_conv_bias": True,
    "ssm_norms": False, "ssm_heads": None, "ssm_groups": None, "ssm_chunk_size": None, "ssm_decay": "head",
    "attention_output_gate": False, "head_gate": False, "rope_key_norm": False, "latent_rescale": False,
    "latent_gate": False, "gate_function": "sigmoid", "ssm_gated_norm": True, "ssm_out_bias": "same",
    "ssm_beside": False, "mup_multipliers": False, "attention_experts": False, "expert_output_bias": False,
    "attention_norm": True, "shared_weights": False, "lora": None, "shared_block": None, "disentangled": None,
    "input_convolution": None, "kv_source": None, "values_from_keys": False, "value_norm": False, "value_size": None,
    "sub_norms": False, "differential": False, "per_layer_input_size": None, "altup_inputs": None,
    "laurel_rank": None, "expert_branch_norms": False,
}
"""The first shape's fields and their defaults (``heads``, required, had none)."""

BLOCK = ("type", "name", "trainable", "parallel", "cross_attention_length", "idle_cross_attention", "residual_scales",
         "mup_multipliers", "shared_weights", "lora", "input_convolution", "per_layer_input_size", "altup_inputs",
         "laurel_rank")
NORMS = {"norm": "kind", "norm_position": "position", "norm_affine": "affine", "norm_bias": "bias",
         "sandwich_norms": "sandwich", "shared_norm": "shared", "attention_norm": "mixer_norm",
         "sub_norms": "sub_norms"}
FEED_FORWARD = {"ff_size": "size", "gated": "gated", "activation": "activation", "ff_bias": "bias",
                "down_bias": "down_bias"}
EXPERTS = {"experts": "count", "active_experts": "active", "router_bias": "router_bias",
           "shared_ff_size": "shared_size", "shared_expert_gate": "shared_gate", "zero_experts": "zero",
           "expert_output_bias": "output_bias", "expert_branch_norms": "branch_norms"}
HYPER = {"hyper_connections": "streams", "hyper_independent": "independent",
         "hyper_sinkhorn_iterations": "sinkhorn_iterations"}
_CAUSAL = {"heads": "heads", "head_size": "head_size", "causal": "causal", "causal_count": "causal_count",
           "attention_window": "window", "attention_sinks": "sinks"}
_MAMBA2 = {"ssm_inner_size": "inner_size", "ssm_state_size": "state_size", "ssm_conv_kernel": "conv_kernel",
           "ssm_heads": "heads", "ssm_groups": "groups", "ssm_chunk_size": "chunk_size", "ssm_bias": "bias",
           "ssm_conv_bias": "conv_bias", "ssm_gated_norm": "gated_norm", "ssm_out_bias": "out_bias",
           "activation": "activation"}
MIXER_FIELDS: dict[str, dict[str, str]] = {
    "attention": _CAUSAL | {k: k for k in (
        "kv_heads", "local_radius", "global_block_size", "qk_norm", "qkv_bias", "key_bias", "out_bias", "head_gate",
        "gate_function", "kv_source", "values_from_keys", "value_norm", "value_size", "differential", "disentangled",
        "indexer_heads", "indexer_head_size", "attention_experts")} | {"attention_output_gate": "output_gate"},
    "latent": _CAUSAL | {k: k for k in (
        "kv_lora_rank", "q_lora_rank", "rope_head_size", "value_head_size", "qkv_bias", "out_bias", "indexer_heads",
        "indexer_head_size", "rope_key_norm", "head_gate", "gate_function")} | {
        "latent_scales": "scales", "latent_rescale": "rescale", "latent_gate": "gate"},
    "compressed": {k: k for k in ("heads", "head_size", "q_lora_rank", "output_groups", "output_rank",
                                  "compress_rate", "indexer_heads", "indexer_head_size")} | {
        "attention_window": "window", "attention_sinks": "sinks"},
    "lightning": {"heads": "heads", "head_size": "head_size", "lightning_block_size": "block_size",
                  "activation": "activation"},
    "mamba": {"ssm_inner_size": "inner_size", "ssm_state_size": "state_size", "ssm_conv_kernel": "conv_kernel",
              "ssm_dt_rank": "dt_rank", "ssm_bias": "bias", "ssm_conv_bias": "conv_bias", "ssm_norms": "norms"},
    "mamba2": _MAMBA2,
    "gated_deltanet": {k: v for k, v in _MAMBA2.items() if v not in ("bias", "conv_bias", "gated_norm", "out_bias")}
    | {"ssm_decay": "decay"},
    "short_conv": {"ssm_conv_kernel": "conv_kernel", "ssm_bias": "bias", "ssm_conv_bias": "conv_bias"},
    "none": {},
}
"""Per mixer kind: a flat field → the mixer's field."""

_READ_NOWHERE = {"heads", "kv_heads", "head_size", "causal", "causal_count", "qkv_bias", "key_bias", "out_bias",
                 "attention_sinks", "gate_function"}
INERT: dict[str, frozenset[str]] = {
    kind: frozenset(_READ_NOWHERE | {"attention_window", "qk_norm"} | {
        f for f in FLAT_DEFAULTS if f.startswith("ssm_") and f not in ("ssm_norms", "ssm_decay", "ssm_beside")})
    for kind in ("mamba", "mamba2", "gated_deltanet", "short_conv", "none")} | {
    "lightning": frozenset(_READ_NOWHERE | {f for f in FLAT_DEFAULTS if f.startswith("ssm_")
                                            and f not in ("ssm_norms", "ssm_decay", "ssm_beside")}),
    "compressed": frozenset({"kv_heads", "causal", "causal_count", "qkv_bias", "key_bias", "out_bias"}
                            | {f for f in FLAT_DEFAULTS if f.startswith("ssm_")
                               and f not in ("ssm_norms", "ssm_decay", "ssm_beside")}),
    "attention": frozenset(f for f in FLAT_DEFAULTS if f.startswith("ssm_")
                           and f not in ("ssm_norms", "ssm_decay", "ssm_beside")),
    "latent": frozenset({"kv_heads"} | {f for f in FLAT_DEFAULTS if f.startswith("ssm_")
                                        and f not in ("ssm_norms", "ssm_decay", "ssm_beside")}),
}
"""Per mixer kind: the flat fields the first shape accepted and that kind never read (dropped, whatever their value;
a compressed block's one key/value head: ``kv_heads`` 1 or none)."""


def mixer_kind(flat: dict) -> str:
    """The part a flat block's mixer becomes: its ``mixer`` (attention with ``kv_lora_rank``: latent)."""
    kind = flat.get("mixer", "attention")
    if kind == "attention" and flat.get("kv_lora_rank") is not None:
        return "latent"
    return kind


def field_path(name: str, kind: str, has_experts: bool = True) -> str:
    """Where flat field ``name`` of a block whose mixer is ``kind`` lives now (relative to the block)."""
    if name in NORMS:
        return f"norms.{NORMS[name]}"
    if isinstance(kind, str) and name in MIXER_FIELDS.get(kind, {}):
        return f"mixer.{MIXER_FIELDS[kind][name]}"
    if name in FEED_FORWARD:
        return f"feed_forward.{FEED_FORWARD[name]}"
    if name in EXPERTS:
        return f"feed_forward.experts.{EXPERTS[name]}"
    if name in HYPER:
        return "hyper.streams" if name == "hyper_connections" else f"hyper.{HYPER[name]}"
    if kind == "attention" and name in _MAMBA2:
        return f"mixer.beside.{_MAMBA2[name]}"
    return name


def is_flat(block: object) -> bool:
    """Whether a decoded transformer block is in the first shape (its mixer a name, or no part at all)."""
    return isinstance(block, dict) and not any(isinstance(block.get(k), dict) for k in ("mixer", "norms")) \
        and not isinstance(block.get("feed_forward"), dict)


def block_from_flat(flat: dict) -> dict:
    """The block in parts of a block in the first shape (a decoded JSON object; anything else is returned as it is,
    for validation to name)."""
    if not is_flat(flat):
        return flat
    left = {k: v for k, v in flat.items() if k not in BLOCK}
    out = {k: flat[k] for k in BLOCK if k in flat}
    kind = mixer_kind(flat)
    left.pop("mixer", None)
    if not isinstance(kind, str) or kind not in MIXER_FIELDS:  # not a mixer of the first shape: validation names it
        return out | left | {"mixer": {"kind": kind}}
    out["norms"] = {new: left.pop(old) for old, new in NORMS.items() if old in left}
    mixer = {"kind": kind} if kind != "attention" else {}
    for old, new in MIXER_FIELDS[kind].items():
        if old == "activation":  # the old block's (its default included): the feed-forward reads it too
            mixer[new] = flat.get("activation", FLAT_DEFAULTS["activation"])
        elif old in left:
            mixer[new] = left.pop(old)
    if kind == "attention" and left.get("ssm_beside") is True:  # Falcon-H1: Mamba-2 beside the attention
        left.pop("ssm_beside")
        mixer["beside"] = {new: flat.get(old, FLAT_DEFAULTS[old]) if old == "activation" else left.pop(old)
                           for old, new in _MAMBA2.items() if old in left or old == "activation"}
    elif left.get("ssm_beside") is False:
        left.pop("ssm_beside")
    out["mixer"] = mixer
    feed = left.pop("feed_forward", True)
    ff = {new: left.pop(old) for old, new in FEED_FORWARD.items() if old in left}
    experts = {new: left.pop(old) for old, new in EXPERTS.items() if old in left}
    experts = {new: value for (old, new), value in zip(EXPERTS.items(), [experts.get(n, FLAT_DEFAULTS[o])
               for o, n in EXPERTS.items()]) if value != FLAT_DEFAULTS[old]}  # a dense block's defaults: no mixture
    if feed is False:
        out["feed_forward"] = None
        ff.pop("down_bias", None) if ff.get("down_bias", "same") == "same" else left.update(down_bias=ff["down_bias"])
    else:
        if feed is not True:
            left["feed_forward"] = feed  # not a yes or no: validation names it
        if experts:
            ff["experts"] = experts
        if ff:
            out["feed_forward"] = ff
    hyper = {new: left.pop(old) for old, new in HYPER.items() if old in left}
    if hyper.get("streams") is not None:
        out["hyper"] = hyper
    else:
        left.update({old: hyper[new] for old, new in HYPER.items()
                     if new in hyper and hyper[new] != FLAT_DEFAULTS[old]})
    if isinstance(flat.get("shared_block"), dict):
        left.pop("shared_block")
        use = dict(flat["shared_block"])
        if isinstance(use.get("block"), dict):
            use["block"] = block_from_flat({"type": "transformer_block", **use["block"]})
            use["block"].pop("type")
        out["shared_block"] = use
    inert = INERT.get(kind, frozenset())
    for name, value in left.items():  # what the new parts have no place for: dropped when it was never read
        if name in inert or (name in FLAT_DEFAULTS and value == FLAT_DEFAULTS[name]):
            continue
        out[name] = value
    return {k: v for k, v in out.items() if v != {} or k == "mixer"}


def key_of_parts(key_of: dict[str, str], blocks: dict[str, dict]) -> dict[str, str]:
    """A reader's field → key map (``block.kv_heads`` → ``num_key_value_heads``) with each block field at its new
    place (``block.mixer.kv_heads``); ``blocks``: the flat blocks by their path (``block``, ``encoder.block``)."""
    out = {}
    for field, key in key_of.items():
        path, _, name = field.rpartition(".")
        if path in blocks:
            flat = blocks[path]
            field = f"{path}.{field_path(name, mixer_kind(flat))}"
        out[field] = key
    return out
