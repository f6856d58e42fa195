"""Encoders beyond BERT's layout: DeBERTa (disentangled attention), ESM, RemBERT, MobileBERT (bottleneck blocks),
Nomic BERT, EuroBERT, GTE and Jina v3 (rotary post-norm), ModernBERT (encoder and decoder).
"""
from __future__ import annotations

import json

from .keys import MAX_LAYERS, Keys
from .parts import decoder_fields, learned_position_rows, llama_block
from .registry import register


@register("nomic_bert", {"NomicBertForMaskedLM": "mlm", "NomicBertModel": "none"})
def _nomic_bert(c: Keys) -> dict:
    """nomic_bert: BERT's post-norm blocks (LayerNorms with β) with rotary positions (no position table), q, k, v
    and output projections without biases (H·Q wide, Q = ``head_dim``, else d/H) and a gated feed-forward without
    biases (``hidden_act``, SiLU by default); token and token-type tables and a LayerNorm; BERT's masked-LM head.
    NomicBertModel has no pooler (its ``add_pooling_layer`` defaults to false)."""
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then keeps a "
                                                          "second, unused output bias; not modelled")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="silu"), causal=False,
                      norm_position="post", gated=True, qkv_bias=False, out_bias=False, ff_bias=False)
    fields["block"]["head_size"] = c.size("block.head_size", "head_dim", required=False)
    return fields | {"token_types": c.size("token_types", "type_vocab_size", required=False, default=2) or None,
                     "embedding_norm": True, "tied_embeddings": True, "final_norm": False}


@register("eurobert", {"EuroBertForMaskedLM": "lm", "EuroBertModel": "none"})
def _eurobert(c: Keys) -> dict:
    """eurobert: Llama's layout without the causal mask — RMSNorm pre-norm blocks, SwiGLU, rotary, grouped-query
    attention (``num_key_value_heads``, ``head_dim``), ``attention_bias`` on q/k/v/o, ``mlp_bias`` on the
    feed-forward and on the masked-LM head (d→V, tied by ``tie_word_embeddings``), a final norm."""
    c.neutral("classifier_pooling")
    fields = decoder_fields(c, **llama_block(c, causal=False))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "head_bias": fields["block"]["ff_bias"]}


@register("esm", {"EsmForMaskedLM": "mlm", "EsmModel": "pooler"})
def _esm(c: Keys) -> dict:
    """esm (ESM-1b, ESM-2): pre-norm blocks (LayerNorm before attention and before the feed-forward, biased q, k, v,
    output and feed-forward, GELU), ``emb_layer_norm_after`` as the final LayerNorm (always built and run), a token
    table and, by ``position_embedding_type``, a learned position table of ``max_position_embeddings`` rows
    ("absolute") or rotary positions over the whole head ("rotary", no parameters); ``emb_layer_norm_before``: a
    LayerNorm on the embeddings. No token types. The masked-LM head: dense d→d, GELU, LayerNorm, decoder d→V (tied
    by ``tie_word_embeddings``, else V·d of its own) and a bias V. EsmModel (also inside EsmForMaskedLM) holds the
    contact-prediction head, a regression over the L·H attention maps (L·H + 1 parameters) that only
    ``predict_contacts`` runs; EsmModel has BERT's pooler. ``token_dropout`` rescales the embeddings (no
    products); ``pad_token_id`` must be given (the positions are numbered from it); ESMFold (``is_folding_model``)
    is another class, refused."""
    c.neutral("token_dropout")
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.require("is_folding_model", lambda v: v is False, "ESMFold's folding trunk (EsmForProteinFolding) is not "
                                                        "modelled")
    c.neutral("esmfold_config", "vocab_list")  # dropped by EsmConfig unless is_folding_model
    if c.data.get("pad_token_id") is None:
        raise c.error("pad_token_id", "missing (EsmEmbeddings numbers the positions from the padding token; without "
                                      "one transformers cannot run the model)")
    kind = c.data.get("position_embedding_type", "absolute")  # null: transformers builds no positions at all
    c.used.add("position_embedding_type")
    if kind not in ("absolute", "rotary"):
        raise c.error("position_embedding_type", f"{json.dumps(kind)[:40]} is not supported (ESM builds a learned "
                                                 "table for \"absolute\" and rotary positions for \"rotary\")")
    fields = decoder_fields(c, gqa=False, activation="gelu", causal=c.flag("is_decoder", False), norm_position="pre")
    learned = learned_position_rows(c, fields, "max_position_embeddings") if kind == "absolute" else None
    return fields | {"learned_positions": learned, "embedding_norm": c.flag("emb_layer_norm_before", False),
                     "final_norm": True, "tied_embeddings": c.flag("tie_word_embeddings", True),
                     "contact_head": True}


@register("rembert", {"RemBertForMaskedLM": "mlm", "RemBertForCausalLM": "mlm", "RemBertModel": "pooler"})
def _rembert(c: Keys) -> dict:
    """rembert: BERT's post-norm blocks over decoupled embeddings — word, learned position and token-type tables of
    width ``input_embedding_size`` E and their LayerNorm, always projected E→d (biased ``embedding_hidden_mapping_in``,
    even when E = d); the masked-LM head of width ``output_embedding_size`` O: dense d→O, activation, LayerNorm of O,
    a decoder O→V with a bias, never tied (the classes name no tied weights: ``tie_word_embeddings`` is inert).
    RemBertForCausalLM runs the same head (causal with ``is_decoder``, the same count); RemBertModel has BERT's
    pooler. Cross-attention (``add_cross_attention``) is refused."""
    # embedding_size: only waives the attention's check that H divides d (TransformerConfig refuses H ∤ d by name)
    c.neutral("classifier_dropout_prob", "tie_word_embeddings", "embedding_size")
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"),
                      causal=c.flag("is_decoder", False), norm_position="post")
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "token_types": c.size("token_types", "type_vocab_size", required=False, default=2) or None,
                     "tables_width": c.size("tables_width", "input_embedding_size", required=False, default=256),
                     "head_width": c.size("head_width", "output_embedding_size", required=False, default=1664),
                     "embedding_norm": True, "tied_embeddings": False, "final_norm": False}


def _rotary_post_norm(c: Keys, **block) -> dict:
    """JinaEmbeddingsV3's and GTE's layout: BERT's post-norm blocks (a LayerNorm after each residual add) with rotary
    positions over the head (no position table), biased q, k, v and output projections H·Q wide (Q = ``head_dim``,
    absent: d/H; null: transformers fails), a token table, a token-type table and a LayerNorm; the masked-LM head
    dense d→d, GELU (whatever ``hidden_act``), LayerNorm, decoder d→V with a bias."""
    if "head_dim" in c.data and c.data["head_dim"] is None:
        raise c.error("head_dim", "null (the attention reads getattr(config, \"head_dim\", d/H): transformers "
                                  "fails; leave it out for d/H)")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"), causal=False,
                      norm_position="post", **block)
    fields["block"]["head_size"] = c.size("block.head_size", "head_dim", required=False)
    return fields | {"token_types": c.size("token_types", "type_vocab_size", required=False, default=1) or None,
                     "embedding_norm": True, "final_norm": False, "head_activation": "gelu"}


@register("gte", {"GteForMaskedLM": "mlm", "GteModel": "none"})
def _gte(c: Keys) -> dict:
    """gte (GTE embedding encoders, transformers' native port): JinaEmbeddingsV3's post-norm rotary blocks with a
    gated feed-forward (``hidden_act``(gate)·up, gate and up d→F without bias, down F→d with one: block
    ``down_bias``); ``type_vocab_size`` 0 builds no token-type table (gte-base-en-v1.5). GteForMaskedLM's head has
    one bias V (the decoder's own), tied by ``tie_word_embeddings`` (untied: V·d more); GteModel has no pooler
    unless built for sequence classification."""
    return _rotary_post_norm(c, gated=True, ff_bias=False, down_bias="bias") | \
        {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("jina_embeddings_v3", {"JinaEmbeddingsV3ForMaskedLM": "mlm",
                                                       "JinaEmbeddingsV3Model": "pooler"})
def _jina_embeddings_v3(c: Keys) -> dict:
    """jina_embeddings_v3 (transformers' native JinaEmbeddingsV3, XLM-RoBERTa's tables without the position table):
    post-norm rotary blocks with BERT's feed-forward (biased fc1 d→F, ``hidden_act``, fc2 F→d). Its task LoRA
    adapters are not part of the class: transformers builds none (the remote-code model's ``lora_adaptations``,
    ``lora_rank``… are read by nothing transformers builds, so they are listed as not used and count 0 parameters and
    0 FLOP); train adapters with the LoRA fine-tuning setting. JinaEmbeddingsV3Model has BERT's pooler; the masked-LM
    decoder is tied (untied: transformers keeps a second, unused bias; refused)."""
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then keeps a "
                                                          "second, unused output bias; not modelled")
    if c.data.get("type_vocab_size") == 0:
        raise c.error("type_vocab_size", "0: JinaEmbeddingsV3 builds an empty token-type table and looks token type 0 "
                                         "up in it (transformers fails)")
    return _rotary_post_norm(c) | {"tied_embeddings": True}


@register("mobilebert", {"MobileBertForMaskedLM": "mlm", "MobileBertModel": "none"})
def _mobilebert(c: Keys) -> dict:
    """mobilebert: a token table of width ``embedding_size`` E, each position's embedding and its two neighbours'
    (``trigram_input``) projected 3E→d (E→d without; E = d: built, not run), learned positions and token types d
    wide, a norm; ``num_hidden_layers`` bottleneck blocks (``engine.method1.mobilebert.BottleneckBlock``: with
    ``use_bottleneck`` the input bottleneck d→b = ``intra_bottleneck_size``, ``key_query_shared_bottleneck``'s second
    one for queries and keys, ``use_bottleneck_attention``, attention of H heads of b/H, ``num_feedforward_networks``
    feed-forwards b→F→b, the output bottleneck b→d), every projection biased; norms ``normalization_type`` "no_norm"
    (γ·x + β) or "layer_norm". The masked-LM head: dense d→d, ``hidden_act``, a LayerNorm, the decoder d→V reading the
    tied E-wide token table and d − E rows of its own, one bias V. MobileBertModel's pooler: d→d and tanh with
    ``classifier_activation`` (without: the first position as it is, no parameters)."""
    c.neutral("true_hidden_size")  # recomputed by MobileBertConfig from use_bottleneck
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then keeps a "
                                                          "second, unused output bias; not modelled")
    activation = c.activation("hidden_act", default="relu")
    if activation not in ("relu", "gelu", "silu", "sigmoid", "tanh"):
        raise c.error("hidden_act", f"{json.dumps(c.data.get('hidden_act'))[:40]} is not supported in MobileBERT's "
                                    "blocks (relu, gelu, silu, sigmoid, tanh are)")
    norm = c.get("normalization_type", "no_norm")
    if norm not in ("no_norm", "layer_norm"):
        raise c.error("normalization_type", f"{json.dumps(norm)[:40]}: transformers knows \"no_norm\" and "
                                            "\"layer_norm\" only")
    fields = decoder_fields(c, gqa=False, activation=activation, causal=False, norm_position="post")
    d, heads = fields["d_model"], fields["block"]["heads"]
    bottleneck = c.flag("use_bottleneck", True)
    width = c.size(None, "intra_bottleneck_size", required=False, default=128) if bottleneck else d
    if not bottleneck:
        c.neutral("intra_bottleneck_size", "key_query_shared_bottleneck", "use_bottleneck_attention")
    shared = c.flag("key_query_shared_bottleneck", True)
    attention = c.flag("use_bottleneck_attention", False)
    if isinstance(width, int) and isinstance(heads, int) and heads > 0 and width % heads:
        raise c.error("num_attention_heads", f"{heads} heads do not divide the block's width {width} "
                                             "(transformers' attention output would not be that wide)")
    if bottleneck and not shared and not attention and width != d:
        raise c.error("key_query_shared_bottleneck", f"false with use_bottleneck_attention false: queries and keys "
                                                     f"read the d = {d} wide input through {width} wide projections "
                                                     "(transformers fails)")
    token_width = c.size(None, "embedding_size", required=False, default=128)
    if c.cls.endswith("ForMaskedLM") and isinstance(d, int) and token_width > d:
        raise c.error("embedding_size", f"{token_width} > hidden_size {d}: the masked-LM head's rows of its own "
                                        "(d − E) would be negative (transformers fails)")
    types = c.size("token_types", "type_vocab_size", required=False, default=2)
    if types == 0:
        raise c.error("type_vocab_size", "0: MobileBERT builds an empty token-type table and looks token type 0 up "
                                         "in it (transformers fails)")
    block = {"heads": heads, "bottleneck": width if bottleneck else None, "shared_bottleneck": shared,
             "bottleneck_attention": attention, "ff_size": fields["block"]["ff_size"],
             # range-checked by the block's own field (1 to 1,000), its error named by this key
             "feed_forwards": c.size("mobilebert.block.feed_forwards", "num_feedforward_networks", required=False,
                                     default=4),
             "activation": activation, "norm": norm}
    fields["block"]["head_size"] = width // heads if isinstance(width, int) and isinstance(heads, int) and heads \
        else None
    pooler = c.flag("classifier_activation", True) and c.cls == "MobileBertModel"
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "token_types": types, "embedding_norm": False, "tied_embeddings": True, "final_norm": False,
                     "pooler": pooler,
                     "mobilebert": {"token_width": token_width, "trigram": c.flag("trigram_input", True),
                                    "norm": norm, "block": block}}


@register("modernbert", {"ModernBertForMaskedLM": "mlm", "ModernBertModel": "none"})
def _modernbert(c: Keys) -> dict:
    """modernbert: rotary positions (no table), one LayerNorm on the embeddings, pre-norm blocks (the first
    without an attention norm) with a fused q/k/v projection, a GeGLU feed-forward (``Wi`` d→2F, ``Wo`` F→d),
    LayerNorms without β unless ``norm_bias``, no biases unless ``attention_bias``/``mlp_bias``; a final norm;
    the masked-LM head: dense d→d (``classifier_bias``), ``classifier_activation``, LayerNorm, tied decoder
    with a bias (``decoder_bias``). Local (sliding-window) layers mask the scores of a full L×L product in
    transformers' eager attention, so ``layer_types``, ``local_attention`` and ``global_attn_every_n_layers``
    change no count."""
    c.neutral("global_attn_every_n_layers", "local_attention", "layer_types", "sliding_window", "global_rope_theta",
              "local_rope_theta", "classifier_pooling", "classifier_dropout", "sparse_prediction",
              "sparse_pred_ignore_index", "reference_compile", "repad_logits_with_grad", "deterministic_flash_attn",
              "initializer_cutoff_factor", "mlp_dropout", "norm_eps")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_activation", default="gelu"), causal=False,
                      gated=True, norm_bias=c.flag("norm_bias", False), qkv_bias=c.flag("attention_bias", False),
                      ff_bias=c.flag("mlp_bias", False))
    fields["block"]["out_bias"] = fields["block"]["qkv_bias"]
    first = dict(fields["block"], attention_norm=False)
    return fields | {"first_layers": [{"layers": 1, "block": first}], "embedding_norm": True, "final_norm": True,
                     "tied_embeddings": c.flag("tie_word_embeddings", True),
                     "head_dense_bias": c.flag("classifier_bias", False),
                     "head_activation": c.activation("classifier_activation", default="gelu"),
                     "decoder_bias": c.flag("decoder_bias", True)}


@register("modernbert-decoder", {"ModernBertDecoderForCausalLM": "mlm",
                                                       "ModernBertDecoderModel": "none"})
def _modernbert_decoder(c: Keys) -> dict:
    """modernbert-decoder: ModernBERT's layout with causal attention (q, k, v apart: the same weights as fused)
    and its head (dense, activation, LayerNorm, tied decoder) on every position. ``layer_types`` (else every
    ``global_attn_every_n_layers``-th layer from 0 full) windows the others to ``local_attention`` // 2 positions
    (transformers' ``sliding_window``), which counts with ``causal_count`` "half" only; the full-attention layers
    become first groups (layer 0, without an attention norm, then the others), as the other windowed families'."""
    c.neutral("sliding_window", "global_attn_every_n_layers")
    fields = _modernbert(c)
    fields["block"]["causal"] = True
    fields["first_layers"][0]["block"]["causal"] = True
    layers = fields["layers"]
    local = c.size(None, "local_attention", required=False, default=128)
    if not local:
        raise c.error("local_attention", "must be a positive number of positions (transformers' window is "
                                         "local_attention // 2)")
    types = c.get("layer_types")
    if isinstance(layers, int) and 1 <= layers <= MAX_LAYERS:
        if types is None:
            every = c.data.get("global_attn_every_n_layers", 3)
            if isinstance(every, bool) or not isinstance(every, int) or every < 1:
                raise c.error("global_attn_every_n_layers", "expected a whole number of at least 1")
            types = ["sliding_attention" if i % every else "full_attention" for i in range(layers)]
        if not isinstance(types, list) or len(types) != layers or \
                not set(types) <= {"sliding_attention", "full_attention"}:
            raise c.error("layer_types", f"expected {layers} entries of 'sliding_attention' or 'full_attention'")
        window = local // 2
        first = fields["first_layers"][0]["block"]
        if types[0] == "sliding_attention":
            first["attention_window"] = window
        full = types[1:].count("full_attention")
        if full == layers - 1:
            return fields
        if full:
            fields["first_layers"].append({"layers": full, "block": dict(fields["block"])})
        fields["block"]["attention_window"] = window
    return fields


def _att_types(c: Keys, key: str) -> tuple[str, ...]:
    """DeBERTa's ``pos_att_type``: a list, or a string of terms joined by "|" (lower-cased, as the config class
    does); the position terms transformers computes, c2p and p2c (other entries it ignores: inert)."""
    value = c.get(key, [])
    if isinstance(value, str):
        value = [x.strip() for x in value.lower().split("|")]
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise c.error(key, f"expected a list of position terms (c2p, p2c) or a string like \"c2p|p2c\", "
                           f"got {json.dumps(value)[:40]}")
    return tuple(t for t in ("c2p", "p2c") if t in value)


def _deberta(version: int):
    """deberta (v1) and deberta-v2 (v2, v3): BERT's post-norm blocks with disentangled attention
    (``TransformerBlock.disentangled``) when ``relative_attention``: a table of 2S relative-position embeddings
    (S = ``max_relative_positions``, else ``max_position_embeddings``; v2: ``position_buckets`` when set), and per
    layer the position terms ``pos_att_type`` lists (c2p, p2c) through projections of their own or, v2's
    ``share_att_key``, through the layer's q and k. v1 reads the 2·min(L, S) middle rows, a fused q/k/v projection
    without a key bias, a c2p projection without bias; v2 all 2S rows, biased q, k, v. Tables of width
    ``embedding_size`` E (token, position when ``position_biased_input``, token type when ``type_vocab_size`` > 0),
    projected E→d without bias before the embedding LayerNorm. v2: ``norm_rel_ebd`` "layer_norm" (a LayerNorm over
    the table) and ``conv_kernel_size`` K > 0 (a convolution beside the first layer). The masked-LM head:
    ``legacy`` d→E, activation, LayerNorm, tied decoder with a bias; else d→d and the same over the token table
    (E = d only). DebertaModel has no pooler."""
    def read(c: Keys) -> dict:
        c.neutral("pooler_hidden_size", "pooler_dropout", "pooler_hidden_act", "cls_dropout")
        if version == 1:
            c.require("talking_head", lambda v: v is False, "talking-head projections H→H over the L×L scores "
                                                            "are not modelled")
        fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"), causal=False,
                          norm_position="post")
        d, heads = fields["d_model"], fields["block"]["heads"]
        if version == 2:
            head_size = c.size(None, "attention_head_size", required=False)
            if head_size is not None and isinstance(d, int) and isinstance(heads, int) and head_size * heads != d:
                raise c.error("attention_head_size", f"{head_size} × {heads} heads ≠ hidden_size {d}: transformers' "
                                                     "output projection is d→d and cannot read H·Q values")
        width = c.size("tables_width", "embedding_size", required=False, default=d)
        legacy = c.flag("legacy", True)
        if legacy:
            c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then "
                                                                  "keeps a second, unused output bias; not modelled")
        else:
            c.neutral("tie_word_embeddings")  # the head multiplies by the token table itself
            if c.cls.endswith("ForMaskedLM") and width != d:
                raise c.error("legacy", f"false with embedding_size {width} ≠ hidden_size {d}: the head multiplies "
                                        "d-wide states by the E-wide token table (transformers fails)")
        positions = c.flag("position_biased_input", True)
        learned = learned_position_rows(c, fields, "max_position_embeddings") if positions else None
        fields |= {"learned_positions": learned,
                   "token_types": c.size("token_types", "type_vocab_size", required=False, default=0) or None,
                   "embedding_norm": True, "tied_embeddings": True, "final_norm": False}
        if width != d:
            fields |= {"tables_width": width, "tables_projection_first": True}
        block = fields["block"]
        if version == 1:
            block["key_bias"] = False  # in_proj has no bias; q_bias and v_bias are parameters of their own
        if version == 2:
            norms = c.get("norm_rel_ebd", "none")
            if not isinstance(norms, str):
                raise c.error("norm_rel_ebd", f"expected a string (\"layer_norm\" or \"none\"), got "
                                              f"{json.dumps(norms)[:40]}")
            fields["relative_table_norm"] = "layer_norm" in [x.strip() for x in norms.lower().split("|")]
            kernel = c.size(None, "conv_kernel_size", required=False, default=0)
            if kernel > 0:
                if kernel % 2 == 0:
                    raise c.error("conv_kernel_size", f"{kernel} is even: the convolution's output is one position "
                                                      "short of the residual it is added to (transformers fails)")
                groups = c.size(None, "conv_groups", required=False, default=1)
                if groups < 1 or (isinstance(d, int) and d % groups):
                    raise c.error("conv_groups", f"{groups} groups must divide hidden_size {d}")
                conv = {"kernel": kernel, "groups": groups, "activation": c.activation("conv_act", default="tanh")}
                fields["first_layers"] = [{"layers": 1, "block": dict(block, input_convolution=conv)}]
            else:
                c.neutral("conv_groups", "conv_act")
        if not c.flag("relative_attention", False):
            c.neutral("pos_att_type", "max_relative_positions", *(("position_buckets", "share_att_key")
                                                                  if version == 2 else ()))
            return fields
        span = c.size(None, "max_relative_positions", required=False, default=-1)
        if span < 1:
            span = learned_position_rows(c, fields, "max_position_embeddings")
        shared = False
        if version == 2:
            buckets = c.size(None, "position_buckets", required=False, default=-1)
            span = buckets if buckets > 0 else span
            shared = c.flag("share_att_key", False)
        terms = _att_types(c, "pos_att_type")
        spec = {"span": span, "clip": version == 1, "terms": terms, "shared_projections": shared,
                "position_key_bias": version == 2}
        block["disentangled"] = spec
        for group in fields.get("first_layers", []):
            group["block"]["disentangled"] = spec
        return fields | {"relative_table": 2 * span}
    return read


register("deberta", {"DebertaForMaskedLM": "mlm", "DebertaModel": "none"})(_deberta(1))
register("deberta-v2", {"DebertaV2ForMaskedLM": "mlm", "DebertaV2Model": "none"})(_deberta(2))
