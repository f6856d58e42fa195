"""Latent-attention decoders with routing of their own: Tencent HY-V4 (independent hyper-connections, a gate on
the latent attention), rednote dots3 (per-layer attention kinds) and Meituan LongCat-Flash (zero-computation
experts, two sub-layers per layer).
"""
from __future__ import annotations

import json

from .keys import Keys, whole_defaults
from .parts import (
    decoder_fields,
    dense_mlp,
    indexer_layers,
    latent_attention,
    latent_kv_heads,
    layer_count,
    llama_block,
    merged,
    mlp_layers_each,
    per_layer,
    read_experts,
    read_shared_experts,
)
from .registry import lm_classes, register

HY_V4_DEFAULTS = {"vocab_size": 120832, "hidden_size": 2816, "intermediate_size": 6912, "moe_intermediate_size": 768,
                  "num_hidden_layers": 34, "num_attention_heads": 32, "max_position_embeddings": 262144,
                  "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "q_lora_rank": 1536,
                  "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
                  "index_head_dim": 128, "index_n_heads": 16, "hc_mult": 4}
"""HYV4Config's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


@register("hy_v4", lm_classes("HYV4"))
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
    whole_defaults(c, HY_V4_DEFAULTS, "HYV4Config")
    fields = latent_attention(c, decoder_fields(c, gqa=False, **llama_block(c)))
    block = fields["block"]
    block |= {"attention_sinks": True, "latent_gate": True, "hyper_independent": True,
              "hyper_connections": c.size("block.hyper_connections", "hc_mult"),
              "indexer_heads": c.size("block.indexer_heads", "index_n_heads"),
              "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim")}
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts")
    if block["experts"] == 1:
        raise c.error("n_routed_experts", "one expert is not modelled (a router d→1 beside it)")
    layers = layer_count(fields)
    if not layers:
        return fields
    kinds = c.get("layer_types")
    if kinds is not None and (not isinstance(kinds, list) or len(kinds) != layers
                              or set(kinds) != {"indexed_attention"}):
        raise c.error("layer_types", f"expected {layers} entries of 'indexed_attention' (HY-V4's only kind)")
    types = c.get("indexer_types")
    if types is None:
        types = ["full" if i == 0 or (i - 1) % 4 == 0 else "shared" for i in range(layers)]
    indexers = indexer_layers(c, "indexer_types", types, layers, exact=True)
    return per_layer(fields, merged(indexers, mlp_layers_each(c, layers, dense_ff, 1))) | \
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


@register("dots3_note_text", lm_classes("Dots3Note", bare="Dots3NoteTextModel"))
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
    whole_defaults(c, DOTS3_DEFAULTS, "Dots3NoteTextConfig")
    fields = latent_attention(c, decoder_fields(c, gqa=False, **llama_block(c)))
    block = fields["block"]
    block |= {"rope_key_norm": True, "latent_rescale": True, "head_gate": True}
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    shared = c.size(None, "n_shared_experts")
    if shared < 1:
        raise c.error("n_shared_experts", "at least one shared expert (Dots3NoteTextConfig refuses none)")
    block["shared_ff_size"] = shared * c.size(None, "shared_experts_intermediate_size")
    layers = layer_count(fields)
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
        mlp = [{} if s else dense_mlp(dense_ff) for s in sparse]
    else:
        c.neutral("first_k_dense_replace", "moe_layer_freq")
        mlp = mlp_layers_each(c, layers, dense_ff, 0)
    return per_layer(fields, merged(attention, windows, mlp)) | \
        {"tied_embeddings": c.flag("tie_word_embeddings", False)}


LONGCAT_DEFAULTS = {"vocab_size": 131072, "hidden_size": 6144, "num_attention_heads": 64, "ffn_hidden_size": 12288,
                    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                    "head_dim": 64, "v_head_dim": 128, "moe_topk": 12, "n_routed_experts": 512,
                    "zero_expert_num": 256, "expert_ffn_hidden_size": 2048, "max_position_embeddings": 131072}
"""LongcatFlashConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


@register("longcat_flash", lm_classes("LongcatFlash"))
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
    whole_defaults(c, LONGCAT_DEFAULTS, "LongcatFlashConfig")
    c.data = {**c.data, "num_hidden_layers": sub_layers}
    c.require("router_bias", lambda v: v is False, "transformers builds the router's bias and never adds it")
    fields = latent_attention(c, decoder_fields(c, gqa=False, ff_key="ffn_hidden_size", **llama_block(c)))
    c.key_of["layers"] = layers_key
    block = fields["block"]
    latent_kv_heads(c, block["heads"], block["heads"])
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
    dense = dense_mlp(dense_ff) | {"zero_experts": None}
    layers = layer_count(fields)
    if layers:
        per_layer(fields, [{} if i % 2 == 0 else dense for i in range(layers)])
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
