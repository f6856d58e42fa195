"""T5's lineage: T5, mT5, UMT5, LongT5, Switch Transformers and T5Gemma (Gemma 2's layers in both stacks).
"""
from __future__ import annotations

from ...errors import quoted
from .keys import Keys, nested_done
from .parts import (
    gemma_fields,
    sliding_windows,
    sparse_groups,
)
from .registry import register


def _t5_classes(prefix: str) -> dict[str, str]:
    return {f"{prefix}ForConditionalGeneration": "lm", f"{prefix}Model": "none", f"{prefix}EncoderModel": "none"}


_T5_FF = {"relu": ("relu", False), "gelu": ("gelu", False), "gated-gelu": ("gelu", True),
          "gated-silu": ("silu", True), "gated-relu": ("relu", True), "silu": ("silu", False)}


@register("t5", {"T5ForConditionalGeneration": "lm", "T5Model": "none", "T5EncoderModel": "none"})
@register("mt5", _t5_classes("MT5"))
def _t5(c: Keys) -> dict:
    """t5, mt5: shared token table, T5LayerNorm (RMS, γ only), no biases anywhere, attention width H·d_kv,
    a relative position bias table (buckets × H) in each stack's first layer, final norms on both stacks;
    ``feed_forward_proj`` relu (T5) or gated-gelu (T5 v1.1, Flan-T5, mT5)."""
    # is_decoder: T5Model and T5ForConditionalGeneration give each stack its own copy of the config
    # (is_decoder false for the encoder, true for the decoder), so the file's value is not read
    c.neutral("dense_act_fn", "is_gated_act", "relative_attention_max_distance", "scale_decoder_outputs",
              "n_positions", "is_encoder_decoder", "is_decoder")
    proj = c.get("feed_forward_proj", "relu")
    if proj not in _T5_FF:
        raise c.error("feed_forward_proj", f"{quoted(proj)} is not one of {', '.join(_T5_FF)}")
    act, gated = _T5_FF[proj]
    heads = c.size("block.heads", "num_heads")
    block = {"heads": heads, "head_size": c.size("block.head_size", "d_kv"), "ff_size": c.size("block.ff_size", "d_ff"),
             "gated": gated, "activation": act, "norm": "rmsnorm", "qkv_bias": False, "out_bias": False,
             "ff_bias": False}
    layers = c.size("encoder.layers", "num_layers")
    buckets = c.size("relative_buckets", "relative_attention_num_buckets", required=False, default=32)
    if c.cls.endswith("EncoderModel"):  # the shared table and the encoder stack, ending in its norm; no decoder
        c.neutral("num_decoder_layers")
        return {"layers": layers, "d_model": c.size("d_model", "d_model"),
                "vocab_size": c.size("vocab_size", "vocab_size"),
                "context_length": c.size("context_length", "n_positions", required=False),
                "relative_buckets": buckets, "block": dict(block, causal=False), "final_norm": True,
                "tied_embeddings": c.flag("tie_word_embeddings", True)}
    return {"layers": c.size("layers", "num_decoder_layers", "num_layers"),
            "d_model": c.size("d_model", "d_model"), "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": c.size("context_length", "n_positions", required=False),
            "relative_buckets": buckets, "block": block,
            "encoder": {"layers": layers, "block": dict(block, causal=False), "relative_buckets": buckets},
            "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("umt5", _t5_classes("UMT5"))
def _umt5(c: Keys) -> dict:
    """umt5: T5 v1.1's layout with a relative position bias table of its own in every layer's self-attention
    (buckets × H per layer, both stacks), not only in each stack's first."""
    return _t5(c) | {"relative_bias_each_layer": True}


def _switch_step(c: Keys, layers: object, sparse_key: str, step_key: str) -> int | None:
    """SwitchTransformersConfig: step = layers // num_sparse (num_sparse 0: step = layers), unless the file
    writes the step itself (transformers then keeps the file's)."""
    given = c.size(None, step_key, required=False)
    n_sparse = c.size(None, sparse_key, required=False, default=3)
    if given is not None:
        return given
    if not isinstance(layers, int):
        return None
    return layers // n_sparse if n_sparse > 0 else layers


@register("switch_transformers", _t5_classes("SwitchTransformers"))
def _switch_transformers(c: Keys) -> dict:
    """switch_transformers: T5's layout (RMS norms, no biases, H·d_kv attention, a relative bias table in each
    stack's first layer) with a ``dense_act_fn`` feed-forward; in each stack the layers i with i % step == 1 (every
    layer when step is 1) are mixtures of ``num_experts`` such feed-forwards behind a top-1 router d→E
    (``router_bias``). transformers runs each token through its one expert (tokens past ``expert_capacity`` per
    expert are dropped, which the count does not model: it counts every token once)."""
    c.neutral("relative_attention_max_distance", "is_encoder_decoder", "is_decoder", "expert_capacity",
              "router_dtype", "router_ignore_padding_tokens", "add_router_probs", "add_cross_attention")
    heads = c.size("block.heads", "num_heads")
    dense = {"heads": heads, "head_size": c.size("block.head_size", "d_kv"), "ff_size": c.size("block.ff_size", "d_ff"),
             "activation": c.activation("dense_act_fn", default="relu"), "norm": "rmsnorm", "qkv_bias": False,
             "out_bias": False, "ff_bias": False}
    sparse = dict(dense, experts=c.size("block.experts", "num_experts", required=False, default=8),
                  active_experts=1, router_bias=c.flag("router_bias", False))
    enc_layers = c.size("encoder.layers", "num_layers", required=False, default=12)
    dec_layers = c.size("layers", "num_decoder_layers", required=False) or enc_layers
    enc_step = _switch_step(c, enc_layers, "num_sparse_encoder_layers", "encoder_sparse_step")
    dec_step = _switch_step(c, dec_layers, "num_sparse_decoder_layers", "decoder_sparse_step")

    def sparse_in(step):
        """Switch's sparse layers: i % step == 1 (every layer with a step of 1; none without a step)."""
        return lambda i: step is not None and step > 0 and (i % step == 1 or step == 1)

    buckets = c.size("relative_buckets", "relative_attention_num_buckets", required=False, default=32)
    encoder = sparse_groups(c, {"layers": enc_layers, "block": dict(sparse, causal=False), "relative_buckets": buckets},
                             sparse_in(enc_step), dict(dense, causal=False), "encoder")
    fields = sparse_groups(c, {"layers": dec_layers, "block": sparse}, sparse_in(dec_step), dense, "")
    tied = c.flag("tie_word_embeddings", True)
    fields |= {"d_model": c.size("d_model", "d_model", required=False, default=768),
               "vocab_size": c.size("vocab_size", "vocab_size", required=False, default=32128),
               "relative_buckets": buckets, "encoder": encoder, "tied_embeddings": tied,
               # untied: transformers 5 gives each stack its own token table beside `shared` (and an lm_head)
               "stack_token_tables": not tied}
    if c.cls == "SwitchTransformersEncoderModel":
        c.require("tie_word_embeddings", lambda v: v is True, "the encoder's own token table beside the shared one "
                                                              "is not modelled for the encoder alone")
        del fields["stack_token_tables"]
        return {k: v for k, v in fields.items() if k not in ("encoder", "first_layers", "block", "layers")} | \
            {"layers": enc_layers, "block": encoder["block"], "final_norm": True,
             "first_layers": encoder.get("first_layers", [])}
    return fields


@register("longt5", _t5_classes("LongT5"))
def _longt5(c: Keys) -> dict:
    """longt5: T5 v1.1's layout whose encoder attends locally (``encoder_attention_type`` "local": blocks of
    ``local_radius`` + 1 positions, each query scoring its block and the two beside it) or, "transient-global",
    also to ⌊L/``global_block_size``⌋ normed block sums of its input (a LayerNorm γ per layer, a second relative
    bias table in the first layer); the decoder is T5's."""
    kind = c.get("encoder_attention_type", "local")
    if kind not in ("local", "transient-global"):
        raise c.error("encoder_attention_type", f"{quoted(kind)} is not 'local' or 'transient-global'")
    fields = _t5(c)
    encoder = fields["encoder"] if "encoder" in fields else fields
    local = {"local_radius": c.size("block.local_radius", "local_radius", required=False, default=127)}
    if kind == "transient-global":
        if "encoder" not in fields:
            raise c.error("encoder_attention_type", "transient-global attention is modelled with the decoder "
                                                    "(LongT5ForConditionalGeneration, LongT5Model), not for the "
                                                    "encoder alone")
        local["global_block_size"] = c.size("block.global_block_size", "global_block_size", required=False,
                                            default=16)
        encoder["relative_bias_tables"] = 2
    else:
        c.neutral("global_block_size")
    encoder["block"] = dict(encoder["block"], **local)
    return fields


def _gemma2_stack(c: Keys, key: str) -> tuple[Keys, dict]:
    """One stack of T5Gemma (``encoder`` or ``decoder``, a T5GemmaModuleConfig): Gemma 2's layers read as Gemma 2's
    (sandwich norms, GeGLU, head_dim, sliding windows on alternate layers)."""
    if c.data.get(key) is None:
        raise c.error(key, "missing (the stack's sizes)")
    sub = c.nested(key)
    # is_decoder, cross_attention_hidden_size: T5GemmaConfig sets them per stack whatever the file says; the
    # stacks' tie_word_embeddings: the top-level one ties the head
    sub.neutral("is_decoder", "cross_attention_hidden_size", "tie_word_embeddings", "model_type", "dropout_rate",
                "is_encoder_decoder")
    fields = sliding_windows(sub, gemma_fields(sub, ("hidden_activation",), sandwich_norms=True), 2)
    return sub, fields


@register("t5gemma", _t5_classes("T5Gemma"))
def _t5gemma(c: Keys) -> dict:
    """t5gemma: an encoder and a decoder of Gemma 2 layers (``encoder``, ``decoder``), the decoder's with a
    cross-attention between sandwich norms (q d→H·Q, k and v from the encoder's width →H_kv·Q, output H·Q→d), each
    stack a token table of its own and a final norm; the head tied to the decoder's table
    (``tie_word_embeddings`` at the top). Encoder and decoder of different widths or vocabularies (T5Gemma 9B-2B)
    are refused: the engine's encoder shares the decoder's d."""
    c.neutral("dropout_rate", "classifier_dropout_rate", "vocab_size")  # vocab_size: the stacks' own are read
    # T5GemmaForConditionalGeneration sets is_encoder_decoder itself; T5GemmaModel refuses false, the encoder alone true
    alone = c.cls == "T5GemmaEncoderModel"
    if c.cls != "T5GemmaForConditionalGeneration":
        c.require("is_encoder_decoder", lambda v: v is not alone, f"transformers' {c.cls} refuses it")
        if alone and c.data.get("is_encoder_decoder") is None:
            raise c.error("is_encoder_decoder", "missing (T5GemmaEncoderModel needs it false)")
    else:
        c.neutral("is_encoder_decoder")
    enc_keys, enc = _gemma2_stack(c, "encoder")
    for name, field in (("hidden_size", "d_model"), ("vocab_size", "vocab_size")):
        if not alone and isinstance(c.data.get("decoder"), dict) and \
                c.data["decoder"].get(name) != enc_keys.data.get(name):
            raise enc_keys.error(name, f"differs from decoder.{name} (an encoder unlike the decoder is not modelled)")
    encoder_block = dict(enc["block"], causal=False)
    encoder_block.pop("attention_window", None)  # a window on bidirectional layers: masked, not skipped
    nested_done(c, enc_keys, "encoder")
    tied = c.flag("tie_word_embeddings", True)
    if alone:
        c.neutral("decoder")
        return {"layers": enc["layers"], "d_model": enc["d_model"], "vocab_size": enc["vocab_size"],
                "context_length": enc["context_length"], "block": encoder_block, "tied_embeddings": tied,
                "final_norm": True}
    dec_keys, fields = _gemma2_stack(c, "decoder")
    nested_done(c, dec_keys, "decoder")
    for sub, key in ((enc_keys, "encoder"), (dec_keys, "decoder")):
        c.key_of.update({f if key == "decoder" else f"encoder.{f}": f"{key}.{k}" for f, k in sub.key_of.items()})
    return fields | {"encoder": {"layers": enc["layers"], "block": encoder_block, "final_norm": True},
                     "tied_embeddings": tied, "decoder_token_table": True, "final_norm": True}
