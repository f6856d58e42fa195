"""The pieces the family readers share, each public and written once: the decoder's size keys and the Llama block,
windows (by period, by pattern, per layer), experts and shared experts, latent attention, learned positions, the
per-layer helpers (``per_layer``, ``merged``, ``mlp_layers_each``…), Mamba-2's mixer keys and the hybrids' layer
placement (``placed``, ``by_pattern``), Gemma's common fields and the sparse stacks of encoder–decoder MoEs.
Every lineage module (``engine/llm/families/<lineage>.py``) imports from here and from ``keys``, never from another
lineage module.
"""
from __future__ import annotations

import functools
import json

from .keys import MAX_LAYERS, Keys


def decoder_fields(c: Keys, ff_key: str | None = "intermediate_size", gqa: bool = True, **block) -> dict:
    """num_hidden_layers, hidden_size, num_attention_heads, intermediate_size; with ``gqa``,
    num_key_value_heads and head_dim (families without them leave those keys unread, hence refused). ``ff_key``
    None: the family reads its feed-forward sizes itself (one per layer)."""
    heads = {"heads": c.size("block.heads", "num_attention_heads")}
    if gqa:
        heads |= {"kv_heads": c.size("block.kv_heads", "num_key_value_heads", required=False),
                  "head_size": c.size("block.head_size", "head_dim", required=False)}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": c.size("d_model", "hidden_size"),
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "max_position_embeddings", required=False),
            "block": heads | {"ff_size": c.size("block.ff_size", ff_key) if ff_key else None, **block}}


def llama_block(c: Keys, attention_bias: bool = False, act_keys=("hidden_act",), **block) -> dict:
    """The Llama block: RMSNorm, gated feed-forward (SiLU by default), no feed-forward biases; ``attention_bias``
    read where the family's transformers code reads it (Mistral's, Phi-3's and Qwen2's do not: inert there)."""
    bias = c.flag("attention_bias", attention_bias) if c.reads("attention_bias") else attention_bias
    return dict(norm="rmsnorm", gated=True, activation=c.activation(*act_keys, default="silu"),
                qkv_bias=bias, out_bias=bias, ff_bias=False) | block


def layer_kinds(c: Keys, key: str, layers, kinds: tuple[str, ...]) -> list[str] | None:
    """``key``'s list of one of ``kinds`` per layer (``layer_types``, ``mlp_layer_types``); absent: None."""
    types = c.get(key)
    if types is not None and (not isinstance(types, list) or len(types) != layers or not set(types) <= set(kinds)):
        raise c.error(key, f"expected {layers} entries of {' or '.join(repr(k) for k in kinds)}")
    return types


def sliding_windows(c: Keys, fields: dict, period: int | None) -> dict:
    """``sliding_window`` W on the layers ``layer_types`` marks "sliding_attention" (absent: transformers'
    default pattern, layer i full when (i + 1) is a multiple of ``period``); the full-attention layers become a
    group placed where they are (``at``: the cache a serving step keeps differs layer by layer)."""
    window = c.size("block.attention_window", "sliding_window", required=False)
    if window is None:
        c.neutral("layer_types")
        return fields
    layers = fields["layers"]
    types = layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention"))
    if types is None:
        if period and not (isinstance(layers, int) and 1 <= layers <= MAX_LAYERS):
            raise c.error("num_hidden_layers", f"expected 1 to {MAX_LAYERS} layers")  # before listing them
        full = [i for i in range(layers) if (i + 1) % period == 0] if period else []
    else:
        full = [i for i, kind in enumerate(types) if kind == "full_attention"]
    return full_layers_at(fields, window, full)


def full_layers_at(fields: dict, window: int, full: list[int]) -> dict:
    """Window W on the block; the layers ``full`` (0-based) without it, as a group placed at them."""
    fields["block"]["attention_window"] = window
    if len(full) == fields["layers"]:
        del fields["block"]["attention_window"]
    elif full:
        fields["first_layers"] = [{"layers": len(full), "block": dict(fields["block"], attention_window=None),
                                   "at": full}]
    return fields


def read_experts(c: Keys, fields: dict, experts_keys: tuple[str, ...], ff_key: str = "moe_intermediate_size") -> dict:
    """A mixture-of-experts block: E, k, the expert size (replacing the dense one)."""
    block = fields["block"]
    block["experts"] = c.size("block.experts", *experts_keys)
    block["active_experts"] = c.size("block.active_experts", "num_experts_per_tok")
    dense_ff = block["ff_size"]
    block["ff_size"] = c.size("block.ff_size", ff_key)
    return dense_ff


def read_shared_experts(c: Keys, fields: dict, key: str, default: int | None = None) -> None:
    """``key`` shared experts (absent: ``default``; None: the key is required), each as wide as the routed ones:
    the block's F_s = n·F (after ``read_experts`` has set F); 0 shared: none."""
    block = fields["block"]
    shared = c.size(None, key, required=default is None, default=default)
    if shared:
        block["shared_ff_size"] = shared * block["ff_size"]


def latent_attention(c: Keys, fields: dict, value_default=None) -> dict:
    """DeepSeek's multi-head latent attention in place of the block's: ``qk_nope_head_dim`` Q, ``qk_rope_head_dim``
    R, ``v_head_dim`` V (absent: ``value_default``, where the family has one), ``kv_lora_rank`` c, ``q_lora_rank``
    c_q (null: queries projected directly)."""
    block = fields["block"]
    block["kv_heads"] = None
    block["head_size"] = c.size("block.head_size", "qk_nope_head_dim")
    block |= {"kv_lora_rank": c.size("block.kv_lora_rank", "kv_lora_rank"),
              "q_lora_rank": c.size("block.q_lora_rank", "q_lora_rank", required=False),
              "rope_head_size": c.size("block.rope_head_size", "qk_rope_head_dim"),
              "value_head_size": c.size("block.value_head_size", "v_head_dim", required=value_default is None,
                                        default=value_default)}
    return fields


def learned_position_rows(c: Keys, fields: dict, key: str, offset: int = 0):
    """The rows of a learned position table: the context length (+ an offset), which must be given."""
    if fields["context_length"] is None:
        raise c.error(key, "missing (the length of the learned position table)")
    return fields["context_length"] + offset


def gemma_fields(c: Keys, act_keys, **block) -> dict:
    """Gemma: RMSNorm (γ stored as 1 + w: d parameters), GeGLU, tied embeddings by default; head_dim is a
    key of its own (256 in Gemma's config class, not d/H), so it must be given."""
    fields = decoder_fields(c, **llama_block(c, act_keys=act_keys, **block))
    if fields["block"]["head_size"] is None:
        raise c.error("head_dim", "missing (Gemma's head size is not d/H)")
    if block and isinstance(fields["d_model"], int) and fields["d_model"] % fields["block"]["heads"]:
        # Gemma2Config/Gemma3TextConfig refuse it, although head_dim sets the attention width
        raise c.error("num_attention_heads", f"{fields['block']['heads']} heads do not divide hidden_size "
                                             f"{fields['d_model']} (transformers refuses such a Gemma 2/3 config)")
    c.neutral("query_pre_attn_scalar", "attn_logit_softcapping", "final_logit_softcapping")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


def floor_head_dim(fields: dict) -> dict:
    """Absent ``head_dim``: transformers' ``getattr(config, "head_dim", d // H)``, rounded down when H does not
    divide d (the attention is then H·⌊d/H⌋ wide)."""
    block, d = fields["block"], fields["d_model"]
    if block.get("head_size") is None and isinstance(d, int) and isinstance(block["heads"], int) and \
            0 < block["heads"] <= d:
        block["head_size"] = d // block["heads"]
    return fields


def pattern_windows(c: Keys, fields: dict, default_period: int) -> dict:
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
        return sliding_windows(c, fields, None)
    if isinstance(pattern, bool) or (pattern is not None and not isinstance(pattern, int)) or pattern == 0:
        pattern = None
    return sliding_windows(c, fields, pattern or default_period)


def dense_group(block: dict, sparse: list[bool]) -> dict:
    """The group of dense blocks on the layers that are not sparse (``sparse[i]`` false), where transformers puts
    them (``at``; a first group where they lead): the forward and full-training counts do not depend on the order,
    the backward of a fine-tune that trains the last layers (or adapters on some projections) does."""
    at = [i for i, s in enumerate(sparse) if not s]
    return {"layers": len(at), "block": block} | ({} if at == list(range(len(at))) else {"at": at})


def dense_first(c: Keys, fields: dict, sparse: list[bool], dense_ff: int) -> dict:
    """The layers that are not sparse (``sparse[i]`` false) become a group of dense blocks (an MLP of ``dense_ff``)
    on their own layers (``dense_group``)."""
    if sparse.count(False):
        block = dict(fields["block"], experts=1, active_experts=1, ff_size=dense_ff, shared_ff_size=None,
                     router_bias=False)
        fields["first_layers"] = [dense_group(block, sparse)]
    return fields


def layer_windows(c: Keys, fields: dict, default_types) -> dict:
    """``sliding_windows``, where a file without ``layer_types`` gets transformers' default list
    (``default_types(layers)``) rather than a period."""
    layers = layer_count(fields)
    if c.data.get("layer_types") is None and c.data.get("sliding_window") is not None and layers:
        full = [i for i, kind in enumerate(default_types(layers)) if kind == "full_attention"]
        fields = sliding_windows(c, fields, None)
        return full_layers_at(fields, fields["block"]["attention_window"], full)
    return sliding_windows(c, fields, None)


def layer_count(fields: dict) -> int | None:
    """The number of layers if it is one the model accepts (else its own check names the key)."""
    layers = fields["layers"]
    return layers if isinstance(layers, int) and 1 <= layers <= 10_000 else None


def per_layer(fields: dict, changes: list[dict]) -> dict:
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


def layer_windows_each(c: Keys, layers: int, default) -> list[dict]:
    """Each layer's window: ``sliding_window`` W where ``layer_types`` says "sliding_attention" (absent:
    where ``default(i)``), else none; without W none anywhere (``layer_types`` then changes nothing)."""
    window = c.size("block.attention_window", "sliding_window", required=False)
    types = layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention"))
    if window is None:
        return [{"attention_window": None}] * layers
    sliding = [default(i) for i in range(layers)] if types is None else [t == "sliding_attention" for t in types]
    return [{"attention_window": window if s else None} for s in sliding]


def dense_mlp(dense_ff) -> dict:
    """What a dense layer changes in a mixture-of-experts block: one MLP of ``dense_ff``, no shared expert."""
    return {"experts": 1, "active_experts": 1, "ff_size": dense_ff, "shared_ff_size": None}


def mlp_layers_each(c: Keys, layers: int, dense_ff, first_dense: int) -> list[dict]:
    """Each layer's feed-forward by ``mlp_layer_types`` ("dense": an MLP of ``dense_ff``; absent: the first
    ``first_dense`` layers dense, the others sparse)."""
    types = layer_kinds(c, "mlp_layer_types", layers, ("dense", "sparse"))
    dense = [i < first_dense for i in range(layers)] if types is None else [t == "dense" for t in types]
    return [dense_mlp(dense_ff) if d else {} for d in dense]


def merged(*per_layer: list[dict]) -> list[dict]:
    return [functools.reduce(lambda a, b: a | b, changes, {}) for changes in zip(*per_layer)]


def latent_kv_heads(c: Keys, heads, default: int) -> None:
    """Latent attention makes keys and values for every head: ``num_key_value_heads`` (absent: the config class's
    ``default``) must equal the heads (transformers' repeat_kv fails on any other number)."""
    kv_heads = c.size(None, "num_key_value_heads", required=False, default=default)
    if kv_heads != heads:
        raise c.error("num_key_value_heads", f"{kv_heads} (absent: {default}) differs from num_attention_heads "
                                             f"{heads}: transformers' latent attention cannot run with it")


def indexer_layers(c: Keys, key: str, types, layers: int, exact: bool) -> list[dict]:
    """Per-layer changes from an indexer pattern of "full" (the layer runs the indexer) and "shared" (it reuses the
    previous layer's selection: no indexer), one entry a layer (``exact``) or at least one (the rest cut)."""
    if (not isinstance(types, list) or len(types) < layers or (exact and len(types) != layers)
            or not set(types) <= {"full", "shared"}):
        raise c.error(key, f"expected {layers} entries of 'full' or 'shared'")
    if types[0] == "shared":
        raise c.error(key, "the first layer cannot share a previous layer's selection (transformers refuses it)")
    no_indexer = {"indexer_heads": None, "indexer_head_size": None}
    return [{} if t == "full" else no_indexer for t in types[:layers]]


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


def num_hidden_layers(c: Keys) -> int:
    """``num_hidden_layers``, a whole number from 1 to ``MAX_LAYERS`` (the hybrids build a kind per layer)."""
    layers = c.size("layers", "num_hidden_layers")
    if not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        raise c.error("num_hidden_layers", f"expected 1 to {MAX_LAYERS} layers")
    return layers


def layer_numbers(c: Keys, key: str, layers) -> list[int]:
    """A list of 0-based layer numbers (transformers tests ``i in list`` for i < layers: larger ones select
    nothing)."""
    value = c.get(key) or []
    if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in value):
        raise c.error(key, "expected a list of layer numbers")
    return sorted({i for i in value if isinstance(layers, int) and 0 <= i < layers})


def placed(fields: dict, block: dict, at: list[int]) -> dict:
    """``block`` on the layers ``at`` (the main block on the rest); all of them: the main block."""
    layers = fields["layers"]
    if isinstance(layers, int) and len(at) == layers:
        fields["block"] = block
    elif at:
        fields.setdefault("first_layers", []).append({"layers": len(at), "block": block, "at": at})
    return fields


def by_pattern(fields: dict, blocks: dict[str, dict], types: list[str]) -> dict:
    """Layer i is ``blocks[types[i]]``: the most frequent kind is the main block, the others are placed."""
    main = max(blocks, key=types.count)
    fields["block"] = blocks[main]
    for kind, block in blocks.items():
        if kind != main and kind in types:
            placed(fields, block, [i for i, t in enumerate(types) if t == kind])
    return fields


def by_mixer_and_feed(fields: dict, mixers: dict[str, dict], feed: dict[str, dict], kinds: list[str]) -> dict:
    """Layer i is mixer × feed-forward ``kinds[i]`` (``"<mixer> <feed>"``): each combination the layers use is a
    block of both parts, placed by ``by_pattern``."""
    blocks = {f"{t} {f}": mixers[t] | feed[f] for t in mixers for f in feed if f"{t} {f}" in kinds}
    return by_pattern(fields, blocks, kinds)


def sparse_groups(c: Keys, stack: dict, is_sparse, dense_block: dict, where: str) -> dict:
    """A stack whose blocks are mixture-of-experts on the layers ``is_sparse(i)`` names, dense on the others (a
    group on their own layers: ``dense_group``)."""
    layers = stack["layers"]
    if not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        return stack
    sparse = [bool(is_sparse(i)) for i in range(layers)]
    if not any(sparse):
        return dict(stack, block=dense_block)
    if not all(sparse):
        stack = dict(stack, first_layers=[dense_group(dense_block, sparse)])
    return stack
