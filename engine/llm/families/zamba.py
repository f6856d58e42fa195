"""Zamba's lineage: Mamba layers with a shared attention block used every few layers (Zamba: one block; Zamba2:
two, with per-use adapters).
"""
from __future__ import annotations

import math

from .keys import Keys
from .parts import mamba2_block, placed
from .registry import lm_classes, register

ZAMBA2_LAYERS = ["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7 + ["linear_attention"] * 4 + \
    ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"] + ["linear_attention"] * 2
"""Zamba2Config's ``layers_block_type`` when the file gives none (54 layers)."""


ZAMBA2_MIXER_DEFAULTS = {"mamba_d_state": 64, "mamba_d_conv": 4, "mamba_ngroups": 1, "chunk_size": 256}
"""Zamba2Config's defaults of the mixer's sizes."""


@register("zamba2", lm_classes("Zamba2"))
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
    of its own, with the adapters of every use of it, the others' idle). The derived keys Zamba2Config writes
    (``attention_head_dim``, ``mamba_headdim``,
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
    fields = {"layers": layers, "d_model": d,
              "vocab_size": c.size("vocab_size", "vocab_size", required=False, default=32000),
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
        placed(fields, block | {"shared_block": shared_use}, at)
    return fields


@register("zamba", lm_classes("Zamba"))
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
