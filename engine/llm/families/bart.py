"""BART's lineage: BART and its descendants (mBART, PLBART, MVP, Marian, M2M-100, NLLB-MoE, Pegasus, BigBird-Pegasus,
Blenderbot, Blenderbot-Small, FSMT), the text decoders of Whisper and TrOCR, and XLM/FlauBERT.
"""
from __future__ import annotations

from .keys import Keys
from .parts import sparse_groups
from .registry import register

LEARNED, SINUSOIDAL_PARAMETER, SINUSOIDAL_BUFFER = "learned", "sinusoidal parameter", "sinusoidal buffer"


def _seq2seq(prefix: str, lm: str | None = None) -> dict[str, str]:
    return {lm or f"{prefix}ForConditionalGeneration": "lm", f"{prefix}Model": "none"}



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


@register("bart", {"BartForConditionalGeneration": "lm", "BartModel": "none"})
@register("plbart", _seq2seq("PLBart"))
def _bart(c: Keys) -> dict:
    """bart, plbart: learned positions (+2 rows), embedding LayerNorms, post-norm blocks, no final norms."""
    return _bart_layout(c, norm_position="post", embedding_norm=True, positions=LEARNED, offset=2)


@register("mvp", _seq2seq("Mvp"))
def _mvp(c: Keys) -> dict:
    """mvp: BART's layout; its prompts (``use_prompt``: a prompt encoder per layer) are not modelled."""
    c.require("use_prompt", lambda v: v is False, "MVP's per-layer prompts are not modelled")
    c.neutral("prompt_length", "prompt_mid_dim")  # read only with use_prompt
    return _bart(c)


@register("mbart", _seq2seq("MBart"))
def _mbart(c: Keys) -> dict:
    """mbart: learned positions (+2 rows), embedding LayerNorms, pre-norm blocks, a final LayerNorm per stack."""
    return _bart_layout(c, norm_position="pre", embedding_norm=True, positions=LEARNED, offset=2)


@register("blenderbot", _seq2seq("Blenderbot"))
def _blenderbot(c: Keys) -> dict:
    """blenderbot: learned positions (max_position_embeddings rows), pre-norm blocks, final LayerNorms."""
    return _bart_layout(c, norm_position="pre", embedding_norm=False, positions=LEARNED)


@register("blenderbot-small", _seq2seq("BlenderbotSmall"))
def _blenderbot_small(c: Keys) -> dict:
    """blenderbot-small: learned positions (max_position_embeddings rows), embedding LayerNorms, post-norm."""
    return _bart_layout(c, norm_position="post", embedding_norm=True, positions=LEARNED)


@register("pegasus", _seq2seq("Pegasus"))
def _pegasus(c: Keys) -> dict:
    """pegasus: sinusoidal position tables held as parameters, pre-norm blocks, final LayerNorms."""
    return _bart_layout(c, norm_position="pre", embedding_norm=False, positions=SINUSOIDAL_PARAMETER)


@register("m2m_100", _seq2seq("M2M100"))
def _m2m_100(c: Keys) -> dict:
    """m2m_100: sinusoidal positions in a buffer (no parameters), pre-norm blocks, final LayerNorms."""
    return _bart_layout(c, norm_position="pre", embedding_norm=False, positions=SINUSOIDAL_BUFFER)


@register("bigbird_pegasus", _seq2seq("BigBirdPegasus"))
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


@register("marian", _seq2seq("Marian", "MarianMTModel"))
def _marian(c: Keys) -> dict:
    """marian: sinusoidal position tables held as parameters, post-norm blocks, no embedding or final norms;
    one table shared by source and target (``share_encoder_decoder_embeddings``; separate vocabularies are
    not modelled)."""
    c.require("share_encoder_decoder_embeddings", lambda v: v is True,
              "separate source and target token tables are not modelled")
    vocab = c.data.get("vocab_size")
    c.require("decoder_vocab_size", lambda v: v == vocab, "a target vocabulary unlike the source's is not modelled")
    return _bart_layout(c, norm_position="post", embedding_norm=False, positions=SINUSOIDAL_PARAMETER)


@register("nllb-moe", _seq2seq("NllbMoe"))
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
        grouped = sparse_groups(c, dict(stack, block=sparse), lambda i, step=step: step > 0 and (i + 1) % step == 0,
                                dense, "")
        stack.update(grouped)
    return fields


@register("fsmt", {"FSMTForConditionalGeneration": "lm", "FSMTModel": "lm"})
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


@register("whisper", {"WhisperForCausalLM": "lm"})
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
    return {"layers": c.size("layers", "decoder_layers"), "d_model": d,
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": context, "learned_positions": context,
            "block": {"heads": c.size("block.heads", "decoder_attention_heads"),
                      "ff_size": c.size("block.ff_size", "decoder_ffn_dim"),
                      "activation": c.activation("activation_function", default="gelu"), "key_bias": False,
                      "idle_cross_attention": d},
            "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("trocr", {"TrOCRForCausalLM": "lm"})
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
    return {"layers": c.size("layers", "decoder_layers"), "d_model": d,
            "vocab_size": c.size("vocab_size", "vocab_size"),
            "context_length": context,
            "learned_positions": context + 2 if learned and isinstance(context, int) else None,
            "embedding_norm": c.flag("layernorm_embedding", True),
            "block": {"heads": c.size("block.heads", "decoder_attention_heads"),
                      "ff_size": c.size("block.ff_size", "decoder_ffn_dim"), "norm_position": "post",
                      "activation": c.activation("activation_function", default="gelu"),
                      "idle_cross_attention": c.size("block.idle_cross_attention", "cross_attention_hidden_size",
                                                     required=False) or d},
            "tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("xlm", {"XLMWithLMHeadModel": "lm", "XLMModel": "none"})
@register("flaubert", {"FlaubertWithLMHeadModel": "lm", "FlaubertModel": "none"})
def _xlm(c: Keys) -> dict:
    """xlm, flaubert: learned positions (P rows), a language table (``n_langs`` rows, read as a token-type table: added
    only when languages are given, no matmul) where n_langs > 1 and ``use_lang_emb``, an embedding LayerNorm;
    BERT's post-norm blocks with biases (Flaubert's ``pre_norm`` refused: transformers cannot run it), feed-forward
    4·d with GELU (``gelu_activation``) or ReLU, causal per ``causal`` (the same count); the LM head is a
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
