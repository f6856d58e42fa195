"""MiniMax's lineage: MiniMax-Text-01 (lightning attention between softmax layers), MiniMax-M3's text model (a block
indexer).
"""
from __future__ import annotations

from .keys import Keys, whole_defaults
from .parts import (
    decoder_fields,
    dense_mlp,
    floor_head_dim,
    layer_count,
    llama_block,
    merged,
    mlp_layers_each,
    per_layer,
    read_experts,
)
from .registry import lm_classes, register

MINIMAX_M3_DEFAULTS = {"vocab_size": 200064, "hidden_size": 6144, "intermediate_size": 3072,
                      "dense_intermediate_size": 12288, "shared_intermediate_size": 3072, "num_hidden_layers": 60,
                      "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128, "num_local_experts": 128,
                      "num_experts_per_tok": 4, "index_n_heads": 4, "index_head_dim": 128, "index_block_size": 128}
"""MiniMaxM3VLTextConfig's defaults of the sizes the reader reads (a null one is refused, as the config class does)."""


MINIMAX_M3_LEGACY = {"index_n_heads": "sparse_num_index_heads", "index_head_dim": "sparse_index_dim",
                     "index_block_size": "sparse_block_size", "index_topk_blocks": "sparse_topk_blocks",
                     "index_local_blocks": "sparse_local_block"}
"""MiniMaxM3VLTextConfig: the checkpoint's ``sparse_attention_config`` keys that override the flat ones."""


@register("minimax_m3_vl_text", lm_classes("MiniMaxM3VL", bare="MiniMaxM3VLTextModel"))
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
    whole_defaults(c, MINIMAX_M3_DEFAULTS, "MiniMaxM3VLTextConfig")
    fields = decoder_fields(c, **llama_block(c, qk_norm="head"))
    block = fields["block"]
    layers = layer_count(fields)
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
    mlps = mlp_layers_each(c, layers, dense_ff, 0)
    if all(mlps):  # no sparse layer
        c.neutral("num_local_experts", "num_experts_per_tok", "intermediate_size", "shared_intermediate_size")
        block |= dense_mlp(dense_ff)
    else:
        read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
        if block["experts"] == 1:
            raise c.error("num_local_experts", "1: one routed expert behind a router d→1 is not modelled")
        shared = c.size(None, "shared_intermediate_size")
        block["shared_ff_size"] = shared or None
    index = {"indexer_heads": c.size("block.indexer_heads", "index_n_heads"),
             "indexer_head_size": c.size("block.indexer_head_size", "index_head_dim")} if sparse_attention else {}
    no_index = {"indexer_heads": None, "indexer_head_size": None}
    attention = [index if k == "minimax_m3_sparse" else no_index for k in kinds]
    return per_layer(fields, merged(attention, mlps)) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


MINIMAX_KINDS = {"full_attention": 1, "linear_attention": 0}
"""MiniMax's ``layer_types`` and the remote code's ``attn_type_list`` values for them."""


@register("minimax", lm_classes("MiniMax"))
def _minimax(c: Keys) -> dict:
    """minimax (MiniMax-Text-01, MiniMax-M1): each layer softmax attention (Mixtral's: GQA, no biases,
    ``sliding_window``
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
    fields = floor_head_dim(decoder_fields(c, **llama_block(c), residual_scales=True))
    read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    layers = layer_count(fields)
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
