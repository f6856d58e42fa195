"""BERT's lineage: BERT, RoBERTa and their descendants with BERT's post-norm encoder blocks and masked-LM head
(XLM-R, CamemBERT, Data2Vec, ELECTRA, ERNIE, ALBERT, RoFormer, BERT-generation, the pre-norm RoBERTa and
Megatron-BERT), and DistilBERT and MPNet.
"""
from __future__ import annotations

from .keys import Keys
from .parts import decoder_fields, learned_position_rows
from .registry import register


def _bert_classes(prefix: str) -> dict[str, str]:
    """``{prefix}ForMaskedLM`` → masked-LM head, ``{prefix}Model`` → the pooler."""
    return {f"{prefix}ForMaskedLM": "mlm", f"{prefix}Model": "pooler"}


@register("bert", {"BertForMaskedLM": "mlm", "BertModel": "pooler"})
@register("roberta", {"RobertaForMaskedLM": "mlm", "RobertaModel": "pooler"})
@register("xlm-roberta", {"XLMRobertaForMaskedLM": "mlm", "XLMRobertaModel": "pooler"})
@register("camembert", {"CamembertForMaskedLM": "mlm", "CamembertModel": "pooler"})
@register("data2vec-text", _bert_classes("Data2VecText"))
def _bert(c: Keys, token_types: int = 2) -> dict:
    """bert, roberta: word + learned position + token-type tables and a LayerNorm; post-norm encoder
    blocks with biases; the masked-LM head (dense, activation, LayerNorm, tied decoder with a bias) or,
    for the bare model, the pooler. ``token_types``: the family's default ``type_vocab_size``."""
    c.require("is_decoder", lambda v: v is False, "BERT as a decoder is not modelled")
    c.require("is_encoder_decoder", lambda v: v is False, "BERT inside an encoder-decoder is not modelled")
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder: transformers then "
                                                          "keeps a second, unused output bias; not modelled")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"), causal=False,
                      norm_position="post")
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "token_types": c.size("token_types", "type_vocab_size", required=False,
                                           default=token_types) or None,
                     "embedding_norm": True, "tied_embeddings": True, "final_norm": False}


@register("distilbert", {"DistilBertForMaskedLM": "mlm", "DistilBertModel": "none"})
def _distilbert(c: Keys) -> dict:
    """distilbert: BERT's post-norm encoder block without token types or pooler (``dim``, ``n_layers``,
    ``n_heads``, ``hidden_dim``); the position table is a parameter even when sinusoidal (frozen)."""
    c.neutral("sinusoidal_pos_embds", "qa_dropout", "seq_classif_dropout", "tie_weights_")
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder is not modelled")
    fields = {"layers": c.size("layers", "n_layers"), "d_model": c.size("d_model", "dim"),
              "vocab_size": c.size("vocab_size", "vocab_size"),
              "context_length": c.size("context_length", "max_position_embeddings", required=False),
              "block": {"heads": c.size("block.heads", "n_heads"), "ff_size": c.size("block.ff_size", "hidden_dim"),
                        "activation": c.activation("activation", default="gelu"), "causal": False,
                        "norm_position": "post"}}
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "embedding_norm": True, "tied_embeddings": True, "final_norm": False}


@register("mpnet", {"MPNetForMaskedLM": "mlm", "MPNetModel": "pooler"})
def _mpnet(c: Keys) -> dict:
    """mpnet: BERT's block and masked-LM head, no token types, a learned position table and a relative
    position bias (``relative_attention_num_buckets`` × H) shared by the layers."""
    c.require("tie_word_embeddings", lambda v: v is True, "an untied masked-LM decoder is not modelled")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"), causal=False,
                      norm_position="post")
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "relative_buckets": c.size("relative_buckets", "relative_attention_num_buckets",
                                                required=False, default=32),
                     "embedding_norm": True, "tied_embeddings": True, "final_norm": False}


@register("electra", {"ElectraForPreTraining": "discriminator", "ElectraForMaskedLM": "mlm",
                                 "ElectraModel": "none"})
def _electra(c: Keys) -> dict:
    """electra: BERT's encoder with tables of width ``embedding_size`` E and, when E ≠ d, a projection E→d;
    the discriminator head (d→d, activation, d→1) or the generator's masked-LM head (d→E, GELU,
    LayerNorm, tied decoder with a bias)."""
    c.neutral("summary_type", "summary_use_proj", "summary_activation", "summary_last_dropout")
    fields = _bert(c)
    width = c.size("tables_width", "embedding_size", required=False, default=128)
    if width != fields["d_model"]:
        fields["tables_width"] = width
    return fields


@register("roformer", {"RoFormerForMaskedLM": "mlm", "RoFormerModel": "none"})
def _roformer(c: Keys) -> dict:
    """roformer: BERT's post-norm blocks and masked-LM head with rotary positions in place of the position table
    (``rotary_value``: the values rotated too, element-wise); token and token-type tables of width
    ``embedding_size`` E projected E→d when E ≠ d, and the head's dense d→E, as ELECTRA's; the rotary positions
    read a sinusoidal table of ``max_position_embeddings`` rows × d/H, a parameter that never trains. No pooler."""
    c.neutral("rotary_value")
    fields = _bert(c)
    width = c.size("tables_width", "embedding_size", required=False, default=fields["d_model"])
    if width != fields["d_model"]:
        fields["tables_width"] = width
    return fields | {"rotary_table": fields.pop("learned_positions"), "learned_positions": None}


@register("bert-generation", {"BertGenerationDecoder": "lm", "BertGenerationEncoder": "none"})
def _bert_generation(c: Keys) -> dict:
    """bert-generation: BERT's post-norm blocks (causal with ``is_decoder``, the same count) over word and learned
    position tables and a LayerNorm (no token types); BertGenerationDecoder's head is the tied decoder d→V with a
    bias, no transform; BertGenerationEncoder has no pooler. Cross-attention (``add_cross_attention``) is refused."""
    c.require("add_cross_attention", lambda v: v is False, "cross-attention needs the encoder's length")
    c.require("is_encoder_decoder", lambda v: v is False, "BertGeneration inside an encoder-decoder is not modelled")
    c.require("tie_word_embeddings", lambda v: v is True, "an untied decoder: transformers then keeps a second, "
                                                          "unused output bias; not modelled")
    fields = decoder_fields(c, gqa=False, activation=c.activation("hidden_act", default="gelu"),
                      causal=c.flag("is_decoder", False), norm_position="post")
    return fields | {"learned_positions": learned_position_rows(c, fields, "max_position_embeddings"),
                     "embedding_norm": True, "tied_embeddings": True, "head_bias": True, "final_norm": False}


def _bert_pre_norm(embedding_norm: bool, token_types: int = 2):
    """A BERT reader for pre-norm blocks ending in a final LayerNorm (RoBERTa-PreLayerNorm, XLM-RoBERTa-XL,
    Megatron-BERT), with or without the LayerNorm on the embeddings; ``token_types``: the default table rows."""
    def read(c: Keys) -> dict:
        fields = _bert(c, token_types)
        fields["block"]["norm_position"] = "pre"
        return fields | {"embedding_norm": embedding_norm, "final_norm": True}
    return read


@register("ernie", _bert_classes("Ernie"))
def _ernie(c: Keys) -> dict:
    """ernie: BERT's layout; ERNIE 3.0's task-type table (``use_task_id``) is not modelled."""
    c.require("use_task_id", lambda v: v is False, "a task-type table added to the embeddings is not modelled")
    c.neutral("task_type_vocab_size")
    return _bert(c)


@register("albert", {"AlbertForMaskedLM": "mlm", "AlbertModel": "pooler"})
def _albert(c: Keys) -> dict:
    """albert: BERT's post-norm blocks; tables of width ``embedding_size`` E always projected E→d (a biased
    ``embedding_hidden_mapping_in``, even when E = d); ``num_hidden_layers`` L runs of ``num_hidden_groups`` G
    shared groups of ``inner_group_num`` blocks (layer i runs group ⌊i / (L/G)⌋): G·inner blocks of weights,
    L·inner blocks of FLOP; the masked-LM head maps d→E (activation, LayerNorm, tied decoder with a bias)."""
    c.neutral("classifier_dropout_prob")
    fields = _bert(c)
    fields["tables_width"] = c.size("tables_width", "embedding_size", required=False, default=128)
    groups = c.size("shared_groups", "num_hidden_groups", required=False, default=1)
    if isinstance(groups, int) and isinstance(fields["layers"], int) and groups > fields["layers"]:
        raise c.error("num_hidden_groups", f"{groups} groups for {fields['layers']} layers: groups no layer runs "
                                           "are not modelled")
    return fields | {"shared_groups": groups,
                     "group_blocks": c.size("group_blocks", "inner_group_num", required=False, default=1)}


register("roberta-prelayernorm", _bert_classes("RobertaPreLayerNorm"))(_bert_pre_norm(True))
register("xlm-roberta-xl", _bert_classes("XLMRobertaXL"))(_bert_pre_norm(False, token_types=1))
register("megatron-bert", _bert_classes("MegatronBert"))(_bert_pre_norm(False))
