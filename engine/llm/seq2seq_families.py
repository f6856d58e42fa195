"""Encoder–decoder families: T5's descendants (mT5, UMT5) and BART's (mBART, PLBart, MVP, Marian, M2M-100,
Pegasus, Blenderbot, Blenderbot-Small), read with the shared pieces of ``engine.llm.family_parts``.

BART's descendants differ only in where the norms sit (after each sub-layer's residual add, BART, Marian,
PLBart, Blenderbot-Small; or before each sub-layer with a final norm per stack, mBART, M2M-100, Pegasus,
Blenderbot), whether each stack normalises its embeddings, and their position tables: learned with 2 rows
more than ``max_position_embeddings`` (BART, mBART, PLBart, MVP) or exactly that many (Blenderbot); sinusoidal
tables held as ``nn.Embedding`` parameters (Marian, Pegasus: P·d parameters each, frozen but counted, as
``Σ numel`` counts them) or as buffers (M2M-100: no parameters). ``scale_embedding`` multiplies the
embeddings by √d: no parameters and no matmul FLOP.
"""
from __future__ import annotations

from engine.errors import quoted
from engine.llm.decoder_families import _nested, _nested_done
from engine.llm.family_parts import MAX_LAYERS, Family, Keys, _gemma_common, _windows

# ---------------------------------------------------------------- T5 and its descendants

_T5_FF = {"relu": ("relu", False), "gelu": ("gelu", False), "gated-gelu": ("gelu", True),
          "gated-silu": ("silu", True), "gated-relu": ("relu", True), "silu": ("silu", False)}


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


def _umt5(c: Keys) -> dict:
    """umt5: T5 v1.1's layout with a relative position bias table of its own in every layer's self-attention
    (buckets × H per layer, both stacks), not only in each stack's first."""
    return _t5(c) | {"relative_bias_each_layer": True}


def _sparse_groups(c: Keys, stack: dict, sparse: int, dense_block: dict, where: str) -> dict:
    """A stack whose blocks are mixture-of-experts except for ``layers − sparse`` dense ones (a first group)."""
    layers = stack["layers"]
    if not isinstance(layers, int) or not 0 <= sparse <= layers:
        return stack
    if sparse == 0:
        return dict(stack, block=dense_block)
    if sparse < layers:
        stack = dict(stack, first_layers=[{"layers": layers - sparse, "block": dense_block}])
    return stack


def _count_sparse(layers: object, is_sparse) -> int:
    if not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        return 0
    return sum(1 for i in range(layers) if is_sparse(i))


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

    def sparse_in(layers, step):
        if step is None or step <= 0:
            return 0
        return _count_sparse(layers, lambda i: i % step == 1 or step == 1)

    buckets = c.size("relative_buckets", "relative_attention_num_buckets", required=False, default=32)
    encoder = _sparse_groups(c, {"layers": enc_layers, "block": dict(sparse, causal=False), "relative_buckets": buckets},
                             sparse_in(enc_layers, enc_step), dict(dense, causal=False), "encoder")
    fields = _sparse_groups(c, {"layers": dec_layers, "block": sparse}, sparse_in(dec_layers, dec_step), dense, "")
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


def _t5_classes(prefix: str) -> dict[str, str]:
    return {f"{prefix}ForConditionalGeneration": "lm", f"{prefix}Model": "none", f"{prefix}EncoderModel": "none"}


# ---------------------------------------------------------------- T5Gemma: Gemma 2 as encoder and decoder

def _gemma2_stack(c: Keys, key: str) -> tuple[Keys, dict]:
    """One stack of T5Gemma (``encoder`` or ``decoder``, a T5GemmaModuleConfig): Gemma 2's layers read as Gemma 2's
    (sandwich norms, GeGLU, head_dim, sliding windows on alternate layers)."""
    if c.data.get(key) is None:
        raise c.error(key, "missing (the stack's sizes)")
    sub = _nested(c, key)
    # is_decoder, cross_attention_hidden_size: T5GemmaConfig sets them per stack whatever the file says; the
    # stacks' tie_word_embeddings: the top-level one ties the head
    sub.neutral("is_decoder", "cross_attention_hidden_size", "tie_word_embeddings", "model_type", "dropout_rate",
                "is_encoder_decoder")
    fields = _windows(sub, _gemma_common(sub, ("hidden_activation",), sandwich_norms=True), 2)
    return sub, fields


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
    _nested_done(c, enc_keys, "encoder")
    tied = c.flag("tie_word_embeddings", True)
    if alone:
        c.neutral("decoder")
        return {"layers": enc["layers"], "d_model": enc["d_model"], "vocab_size": enc["vocab_size"],
                "context_length": enc["context_length"], "block": encoder_block, "tied_embeddings": tied,
                "final_norm": True}
    dec_keys, fields = _gemma2_stack(c, "decoder")
    _nested_done(c, dec_keys, "decoder")
    for sub, key in ((enc_keys, "encoder"), (dec_keys, "decoder")):
        c.key_of.update({f if key == "decoder" else f"encoder.{f}": f"{key}.{k}" for f, k in sub.key_of.items()})
    return fields | {"encoder": {"layers": enc["layers"], "block": encoder_block, "final_norm": True},
                     "tied_embeddings": tied, "decoder_token_table": True, "final_norm": True}


# ---------------------------------------------------------------- BART and its descendants

LEARNED, SINUSOIDAL_PARAMETER, SINUSOIDAL_BUFFER = "learned", "sinusoidal parameter", "sinusoidal buffer"


def _bart_layout(c: Keys, *, norm_position: str, embedding_norm: bool, positions: str, offset: int = 0,
                 vocab_key: str = "vocab_size") -> dict:
    """A BART-like model: shared token table; per stack a position table (``positions``: learned, of
    max_position_embeddings + ``offset`` rows, or sinusoidal, a frozen parameter of max_position_embeddings rows
    or a buffer), optionally a LayerNorm on the embeddings; blocks with biases, normed ``post`` (no final norm)
    or ``pre`` (a final LayerNorm per stack); the LM head tied to the table (``final_logits_bias`` is a buffer)."""
    c.neutral("scale_embedding", "num_hidden_layers", "is_encoder_decoder", "extra_pos_embeddings")
    act = c.activation("activation_function", default="gelu")
    d = c.size("d_model", "d_model")
    context = c.size("context_length", "max_position_embeddings")
    rows = context + offset if positions in (LEARNED, SINUSOIDAL_PARAMETER) and isinstance(context, int) else None
    final = norm_position == "pre"
    common = {"activation": act, "norm_position": norm_position}
    tied = c.flag("tie_word_embeddings", True)
    return {"layers": c.size("layers", "decoder_layers"), "d_model": d,
            "vocab_size": c.size("vocab_size", vocab_key), "context_length": context,
            "learned_positions": rows, "embedding_norm": embedding_norm, "final_norm": final,
            "block": {"heads": c.size("block.heads", "decoder_attention_heads"),
                      "ff_size": c.size("block.ff_size", "decoder_ffn_dim"), **common},
            "encoder": {"layers": c.size("encoder.layers", "encoder_layers"), "learned_positions": rows,
                        "embedding_norm": embedding_norm, "final_norm": final,
                        "block": {"heads": c.size("encoder.block.heads", "encoder_attention_heads"),
                                  "ff_size": c.size("encoder.block.ff_size", "encoder_ffn_dim"), "causal": False,
                                  **common}},
            # untied: transformers 5 gives each stack its own token table beside `shared` (and an lm_head)
            "tied_embeddings": tied, "stack_token_tables": not tied}


def _bart(c: Keys) -> dict:
    """bart, plbart: learned positions (+2 rows), embedding LayerNorms, post-norm blocks, no final norms."""
    return _bart_layout(c, norm_position="post", embedding_norm=True, positions=LEARNED, offset=2)


def _mvp(c: Keys) -> dict:
    """mvp: BART's layout; its prompts (``use_prompt``: a prompt encoder per layer) are not modelled."""
    c.require("use_prompt", lambda v: v is False, "MVP's per-layer prompts are not modelled")
    c.neutral("prompt_length", "prompt_mid_dim")  # read only with use_prompt
    return _bart(c)


def _mbart(c: Keys) -> dict:
    """mbart: learned positions (+2 rows), embedding LayerNorms, pre-norm blocks, a final LayerNorm per stack."""
    return _bart_layout(c, norm_position="pre", embedding_norm=True, positions=LEARNED, offset=2)


def _blenderbot(c: Keys) -> dict:
    """blenderbot: learned positions (max_position_embeddings rows), pre-norm blocks, final LayerNorms."""
    return _bart_layout(c, norm_position="pre", embedding_norm=False, positions=LEARNED)


def _blenderbot_small(c: Keys) -> dict:
    """blenderbot-small: learned positions (max_position_embeddings rows), embedding LayerNorms, post-norm."""
    return _bart_layout(c, norm_position="post", embedding_norm=True, positions=LEARNED)


def _pegasus(c: Keys) -> dict:
    """pegasus: sinusoidal position tables held as parameters, pre-norm blocks, final LayerNorms."""
    return _bart_layout(c, norm_position="pre", embedding_norm=False, positions=SINUSOIDAL_PARAMETER)


def _m2m_100(c: Keys) -> dict:
    """m2m_100: sinusoidal positions in a buffer (no parameters), pre-norm blocks, final LayerNorms."""
    return _bart_layout(c, norm_position="pre", embedding_norm=False, positions=SINUSOIDAL_BUFFER)


def _bigbird_pegasus(c: Keys) -> dict:
    """bigbird_pegasus with ``attention_type`` "original_full": Pegasus' pre-norm layout with learned positions
    (P rows), q/k/v/out biases per ``use_bias`` and a final LayerNorm per stack (named layernorm_embedding).
    BigBird's block-sparse attention (the default) is refused: transformers runs it, or falls back to full
    attention, depending on the sequence length."""
    c.require("attention_type", lambda v: v == "original_full", "BigBird's block-sparse attention is not modelled; "
                                                                "set original_full for full attention")
    c.neutral("block_size", "num_random_blocks")  # block-sparse only
    c.neutral("is_decoder")  # BigBirdPegasusSelfAttention stores it and never uses it
    fields = _bart_layout(c, norm_position="pre", embedding_norm=False, positions=LEARNED)
    bias = c.flag("use_bias", False)
    for block in (fields["block"], fields["encoder"]["block"]):
        block.update(qkv_bias=bias, out_bias=bias)
    return fields


def _marian(c: Keys) -> dict:
    """marian: sinusoidal position tables held as parameters, post-norm blocks, no embedding or final norms;
    one table shared by source and target (``share_encoder_decoder_embeddings``; separate vocabularies are
    not modelled)."""
    c.require("share_encoder_decoder_embeddings", lambda v: v is True,
              "separate source and target token tables are not modelled")
    vocab = c.data.get("vocab_size")
    c.require("decoder_vocab_size", lambda v: v == vocab, "a target vocabulary unlike the source's is not modelled")
    return _bart_layout(c, norm_position="post", embedding_norm=False, positions=SINUSOIDAL_PARAMETER)


def _nllb_moe(c: Keys) -> dict:
    """nllb-moe: M2M-100's layout (sinusoidal positions in a buffer, pre-norm, final LayerNorms) whose layers i with
    (i + 1) % step == 0 (``encoder_sparse_step``, ``decoder_sparse_step``) are mixtures of ``num_experts`` biased
    feed-forwards behind a router d→E (``router_bias``), top-2 routing: the engine counts the 2 experts a token is
    routed to (docs/llm.md: transformers 5.25's NllbMoeExperts runs every token–expert pair through an expert)."""
    c.neutral("expert_capacity", "router_dtype", "router_ignore_padding_tokens", "second_expert_policy",
              "normalize_router_prob_before_dropping", "batch_prioritized_routing",
              "moe_eval_capacity_token_fraction", "moe_token_dropout")
    fields = _m2m_100(c)
    for stack, step_key, ff_key in ((fields["encoder"], "encoder_sparse_step", "encoder_ffn_dim"),
                                    (fields, "decoder_sparse_step", "decoder_ffn_dim")):
        step = c.size(None, step_key, required=False, default=4)
        dense = stack["block"]
        sparse = dict(dense, experts=c.size("block.experts", "num_experts", required=False, default=128),
                      active_experts=2, router_bias=c.flag("router_bias", False))
        count = _count_sparse(stack["layers"], lambda i: (i + 1) % step == 0) if step > 0 else 0
        grouped = _sparse_groups(c, dict(stack, block=sparse), count, dense, "")
        stack.update(grouped)
    return fields


def _fsmt(c: Keys) -> dict:
    """fsmt (fairseq's WMT19 translators): BART's post-norm layout without embedding or final norms; sinusoidal
    position tables held as frozen parameters of P + pad_token_id + 1 rows per stack; tied (``tie_word_embeddings``),
    the encoder's table, the decoder's and the output projection are one, else three (encoder and decoder tables of
    their own, an output projection d→V); FSMTModel too ends in that projection (FSMTDecoder holds it). Source and
    target vocabularies that differ are refused (the engine's tables share one V)."""
    c.neutral("langs", "src_vocab_size")  # src_vocab_size: checked equal to the target's below
    pad = c.data.get("pad_token_id", 1)
    if not isinstance(pad, int) or isinstance(pad, bool) or pad < 0:
        raise c.error("pad_token_id", "the sinusoidal tables' rows are P + pad_token_id + 1: a whole number is needed")
    c.require("src_vocab_size", lambda v: v == c.data.get("tgt_vocab_size", 42024),
              "a source vocabulary unlike the target's is not modelled")
    fields = _bart_layout(c, norm_position="post", embedding_norm=False, positions=SINUSOIDAL_PARAMETER,
                          offset=pad + 1, vocab_key="tgt_vocab_size")
    tied = c.flag("tie_word_embeddings", False)  # FSMTConfig's default: untied
    return fields | {"tied_embeddings": tied, "stack_token_tables": False, "decoder_token_table": not tied}


# ---------------------------------------------------------------- decoders of encoder–decoder models, run alone

def _whisper(c: Keys) -> dict:
    """whisper, as WhisperForCausalLM: Whisper's text decoder alone — a learned position table of
    ``max_target_positions`` rows, pre-norm blocks (k projection without a bias), a final LayerNorm, the head tied to
    the token table; each layer holds its cross-attention (d→d projections and a LayerNorm), which runs only on an
    encoder's output: counted as parameters, no FLOP. The audio encoder's keys are not read: WhisperForCausalLM
    builds no encoder."""
    c.neutral("encoder_layers", "encoder_attention_heads", "encoder_ffn_dim", "num_mel_bins", "max_source_positions",
              "scale_embedding", "is_encoder_decoder", "use_weighted_layer_sum", "classifier_proj_size",
              "apply_spec_augment", "mask_time_prob", "mask_time_length", "mask_time_min_masks", "mask_feature_prob",
              "mask_feature_length", "mask_feature_min_masks", "median_filter_width", "suppress_tokens",
              "begin_suppress_tokens")
    d = c.size("d_model", "d_model")
    context = c.size("context_length", "max_target_positions")
    return {"layers": c.size("layers", "decoder_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": context, "learned_positions": context,
            "block": {"heads": c.size("block.heads", "decoder_attention_heads"),
                      "ff_size": c.size("block.ff_size", "decoder_ffn_dim"),
                      "activation": c.activation("activation_function", default="gelu"), "key_bias": False,
                      "idle_cross_attention": d},
            "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _trocr(c: Keys) -> dict:
    """trocr, as TrOCRForCausalLM (the text decoder of the OCR model): BART's post-norm blocks with biases, learned
    positions of ``max_position_embeddings`` + 2 rows (``use_learned_position_embeddings``; else sinusoidal values
    computed on the fly: no parameters), an embedding LayerNorm (``layernorm_embedding``), no final norm, the head tied;
    each layer holds a cross-attention over an image encoder's ``cross_attention_hidden_size``-wide output (d when
    null) that runs only on such an output: parameters, no FLOP."""
    c.neutral("scale_embedding", "is_decoder", "is_encoder_decoder")  # TrOCRForCausalLM sets both flags itself
    d = c.size("d_model", "d_model")
    context = c.size("context_length", "max_position_embeddings")
    learned = c.flag("use_learned_position_embeddings", True)
    return {"layers": c.size("layers", "decoder_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": context,
            "learned_positions": context + 2 if learned and isinstance(context, int) else None,
            "embedding_norm": c.flag("layernorm_embedding", True),
            "block": {"heads": c.size("block.heads", "decoder_attention_heads"),
                      "ff_size": c.size("block.ff_size", "decoder_ffn_dim"), "norm_position": "post",
                      "activation": c.activation("activation_function", default="gelu"),
                      "idle_cross_attention": c.size("block.idle_cross_attention", "cross_attention_hidden_size",
                                                     required=False) or d},
            "tied_embeddings": c.flag("tie_word_embeddings", True)}


# ---------------------------------------------------------------- XLM: the encoder of fairseq's cross-lingual models

def _xlm(c: Keys) -> dict:
    """xlm, flaubert: learned positions (P rows), a language table (``n_langs`` rows, read as a token-type table: added
    only when languages are given, no matmul) where n_langs > 1 and ``use_lang_emb``, an embedding LayerNorm;
    BERT's post-norm blocks with biases (Flaubert's ``pre_norm`` refused: transformers cannot run it), feed-forward 4·d with GELU (``gelu_activation``) or ReLU, causal per ``causal`` (the same count); the LM head is a
    biased d→V tied to the token table. Adaptive softmax (``asm``) is refused."""
    c.require("asm", lambda v: v is False, "the adaptive-softmax output is not modelled")
    c.neutral("asm_cutoffs", "asm_div_value", "sinusoidal_embeddings", "is_encoder", "embed_init_std", "unk_index",
              "mask_index", "bos_index", "eos_index", "pad_index", "lang_id", "start_n_top", "end_n_top",
              "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
              "summary_first_dropout", "id2lang", "lang2id", "n_words")
    d = c.size("d_model", "emb_dim")
    context = c.size("context_length", "max_position_embeddings")
    langs = c.size("token_types", "n_langs", required=False, default=1)
    own_table = c.flag("use_lang_emb", True)
    # FlaubertModel's pre-norm branch indexes its cache by layer (cache[i]), which transformers 5.25 cannot run
    c.require("pre_norm", lambda v: v is False, "transformers' FlaubertModel cannot run its pre-norm layers (it "
                                                "indexes its cache by layer): no reference to count against")
    return {"layers": c.size("layers", "n_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": context, "learned_positions": context,
            "token_types": langs if isinstance(langs, int) and langs > 1 and own_table else None,
            "embedding_norm": True, "final_norm": False,
            "block": {"heads": c.size("block.heads", "n_heads"), "ff_size": 4 * d if isinstance(d, int) else None,
                      "activation": "gelu" if c.flag("gelu_activation", True) else "relu",
                      "norm_position": "post", "causal": c.flag("causal", False)},
            "tied_embeddings": c.flag("tie_word_embeddings", True), "head_bias": True}


def _seq2seq(prefix: str, lm: str | None = None) -> dict[str, str]:
    return {lm or f"{prefix}ForConditionalGeneration": "lm", f"{prefix}Model": "none"}


SEQ2SEQ_FAMILIES: dict[str, Family] = {
    "mt5": Family(_t5, _t5_classes("MT5")),
    "umt5": Family(_umt5, _t5_classes("UMT5")),
    "longt5": Family(_longt5, _t5_classes("LongT5")),
    "mbart": Family(_mbart, _seq2seq("MBart")),
    "plbart": Family(_bart, _seq2seq("PLBart")),
    "mvp": Family(_mvp, _seq2seq("Mvp")),
    "marian": Family(_marian, _seq2seq("Marian", "MarianMTModel")),
    "m2m_100": Family(_m2m_100, _seq2seq("M2M100")),
    "pegasus": Family(_pegasus, _seq2seq("Pegasus")),
    "blenderbot": Family(_blenderbot, _seq2seq("Blenderbot")),
    "blenderbot-small": Family(_blenderbot_small, _seq2seq("BlenderbotSmall")),
    "bigbird_pegasus": Family(_bigbird_pegasus, _seq2seq("BigBirdPegasus")),
    "switch_transformers": Family(_switch_transformers, _t5_classes("SwitchTransformers")),
    "nllb-moe": Family(_nllb_moe, _seq2seq("NllbMoe")),
    "t5gemma": Family(_t5gemma, _t5_classes("T5Gemma")),
    "whisper": Family(_whisper, {"WhisperForCausalLM": "lm"}),
    "fsmt": Family(_fsmt, {"FSMTForConditionalGeneration": "lm", "FSMTModel": "lm"}),  # the decoder holds the head
    "trocr": Family(_trocr, {"TrOCRForCausalLM": "lm"}),
    "xlm": Family(_xlm, {"XLMWithLMHeadModel": "lm", "XLMModel": "none"}),
    "flaubert": Family(_xlm, {"FlaubertWithLMHeadModel": "lm", "FlaubertModel": "none"}),
}
"""``model_type`` → reader, for the families of this module (merged into ``FAMILIES``; t5 and bart are
registered in ``engine.llm.families``)."""
