"""DeepSeek's lineage: multi-head latent attention (V2, V3 and their descendants MiniCPM3, Youtu, GLM-4-MoE-Lite),
sparse attention's lightning indexer (V3.2, GLM-MoE-DSA) and V4's compressed attention with hyper-connections.
"""
from __future__ import annotations

import json

from .keys import Keys, whole_defaults
from .parts import (
    decoder_fields,
    indexer_layers,
    latent_attention,
    latent_kv_heads,
    layer_count,
    layer_kinds,
    llama_block,
    merged,
    mlp_layers_each,
    per_layer,
    read_experts,
    read_shared_experts,
)
from .registry import lm_classes, register, register_alias


@register("deepseek_v2", lm_classes("DeepseekV2"))
@register("deepseek_v3", lm_classes("DeepseekV3"))
def _deepseek(c: Keys) -> dict:
    """deepseek_v2, deepseek_v3: multi-head latent attention; routed experts (``n_routed_experts``, k per
    token, ``moe_intermediate_size``) plus ``n_shared_experts`` shared ones; the first
    ``first_k_dense_replace`` layers dense (``intermediate_size``)."""
    # moe_layer_freq: transformers makes every layer after the first k sparse whatever it says (inert)
    if c.reads("mlp_bias"):  # DeepSeek-V2's MLPs take it; V3's do not
        c.require("mlp_bias", lambda v: v is False, "feed-forward biases are not modelled for DeepSeek")
    c.neutral("num_key_value_heads", "head_dim", "qk_head_dim", "topk_method", "n_group", "topk_group",
              "routed_scaling_factor", "scoring_func", "norm_topk_prob", "ep_size", "num_nextn_predict_layers")
    c.given("q_lora_rank", "first_k_dense_replace", "n_shared_experts")
    fields = latent_attention(c, decoder_fields(c, **llama_block(c)))
    block = fields["block"]
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts", 0)
    first = c.size(None, "first_k_dense_replace", required=False, default=0)
    if first:
        dense = dict(block, experts=1, active_experts=1, ff_size=dense_ff, shared_ff_size=None)
        fields["first_layers"] = [{"layers": min(first, fields["layers"]), "block": dense}]
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("glm4_moe_lite", lm_classes("Glm4MoeLite"))
def _glm4_moe_lite(c: Keys) -> dict:
    """glm4_moe_lite (GLM-4.7-Flash): DeepSeek-V3's multi-head latent attention with GLM-4.5's mixture of experts
    (``n_routed_experts`` of ``moe_intermediate_size``, k per token, ``n_shared_experts`` shared, a router without
    bias); dense layers (an MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: the first).
    ``q_lora_rank`` (default 768) must be written out (null: queries projected directly)."""
    c.neutral("num_key_value_heads", "routed_scaling_factor", "n_group", "topk_group", "norm_topk_prob",
              "num_nextn_predict_layers", "topk_method")
    c.given("q_lora_rank")
    fields = latent_attention(c, decoder_fields(c, gqa=False, **llama_block(c)))
    dense_ff = read_experts(c, fields, ("n_routed_experts",))
    read_shared_experts(c, fields, "n_shared_experts", 1)
    layers = layer_count(fields)
    if layers:
        per_layer(fields, mlp_layers_each(c, layers, dense_ff, 1))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("youtu", lm_classes("Youtu"))
def _youtu(c: Keys) -> dict:
    """youtu (Youtu-LLM): DeepSeek-V3's multi-head latent attention (``attention_bias`` on the down- and output
    projections) in Llama's blocks with a dense gated MLP (no biases); tied head by default. ``q_lora_rank``
    (default 1536) must be written out (null: queries projected directly)."""
    c.neutral("head_dim", "embedding_initializer_range", "rope_interleave")
    c.given("q_lora_rank")
    fields = latent_attention(c, decoder_fields(c, gqa=False, **llama_block(c)))
    latent_kv_heads(c, fields["block"]["heads"], 16)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


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
    fields = latent_attention(c, decoder_fields(c, **llama_block(c)))
    block = fields["block"]
    latent_kv_heads(c, block["heads"], heads_default)
    if not block["q_lora_rank"]:
        raise c.error("q_lora_rank", "must be a number (the lightning indexer reads the query latent)")
    block |= {"indexer_heads": c.size("block.indexer_heads", "index_n_heads", required=False, default=indexer_heads),
              "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim", required=False, default=128)}
    dense_ff = read_experts(c, fields, ("num_experts", "n_routed_experts"))
    read_shared_experts(c, fields, "n_shared_experts", 1)
    return fields, dense_ff


@register("deepseek_v32", lm_classes("DeepseekV32"))
def _deepseek_v32(c: Keys) -> dict:
    """deepseek_v32 (DeepSeek-V3.2): ``_sparse_attention`` with an indexer in every layer."""
    fields, dense_ff = _sparse_attention(c, 128, 64)
    layers = layer_count(fields)
    if layers:
        first = c.size(None, "first_k_dense_replace", required=False, default=3)
        per_layer(fields, mlp_layers_each(c, layers, dense_ff, first))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("glm_moe_dsa", lm_classes("GlmMoeDsa"))
def _glm_moe_dsa(c: Keys) -> dict:
    """glm_moe_dsa (GLM-5): ``_sparse_attention`` whose indexer runs only on the layers ``indexer_types`` marks
    "full" (absent: by ``index_topk_pattern``, F and S, or every ``index_topk_freq``-th layer from
    ``index_skip_topk_offset``); a "shared" layer reuses the previous one's selection and has no indexer."""
    fields, dense_ff = _sparse_attention(c, 64, 32)
    layers = layer_count(fields)
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
    indexers = indexer_layers(c, key, types, layers, exact=False)
    first = c.size(None, "first_k_dense_replace", required=False, default=3)
    return per_layer(fields, merged(indexers, mlp_layers_each(c, layers, dense_ff, first))) | \
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


@register("deepseek_v4", lm_classes("DeepseekV4"))
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
    whole_defaults(c, V4_DEFAULTS, "DeepseekV4Config")
    fields = decoder_fields(c, gqa=False, ff_key=None, **llama_block(c))
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
    layers = layer_count(fields)
    if not layers:
        return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}
    layer_kinds(c, "mlp_layer_types", layers, ("hash_moe", "moe"))  # hash-routed or top-k: the same products
    types = layer_kinds(c, "layer_types", layers, V4_KINDS)
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
    return per_layer(fields, changes) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("minicpm3", lm_classes("MiniCPM3"))
def _minicpm3(c: Keys) -> dict:
    """minicpm3 (MiniCPM3): DeepSeek-V2's multi-head latent attention (``attention_bias`` on the down-projections
    and the output; ``v_head_dim`` absent: ⌊d/H⌋) with the Llama MLP (``mlp_bias``); its scalings of the
    embeddings, residuals and logits (``scale_emb``, ``scale_depth``, ``dim_model_base``) change no weight and no
    matmul; a tied head by default. ``q_lora_rank`` (default 768) must be written out (null: queries projected
    directly)."""
    c.neutral("scale_emb", "scale_depth", "dim_model_base", "num_key_value_heads", "head_dim")
    c.given("q_lora_rank")
    fields = decoder_fields(c, gqa=False, **llama_block(c, ff_bias=c.flag("mlp_bias", False)))
    d, heads = fields["d_model"], fields["block"]["heads"]
    value = d // heads if isinstance(d, int) and isinstance(heads, int) and 0 < heads <= d else None
    return latent_attention(c, fields, value) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


# A type transformers defines as a config of its own on DeepSeek-V3's classes, with its config class's defaults
register_alias("sarvam_mla", "deepseek_v3", defaults={"first_k_dense_replace": 1, "q_lora_rank": None})
