"""ChatGLM3 as Kolors' text encoder (``model_type`` "chatglm", ``ChatGLMModel``: its remote code, also shipped in
diffusers' ``pipelines/kolors/text_encoder.py``, whose ``ChatGLMConfig`` gives the keys and defaults in
``library_keys.json``), read from ``text_encoder/config.json``.

The model is GLM's decoder (Zeng et al. 2022; ChatGLM3, THUDM 2023): a token table V × d; L pre-norm blocks of
RMSNorm, one fused q/k/v projection d → (H + 2G)·h (biased where ``add_qkv_bias``; G = ``multi_query_group_num``
key/value heads under ``multi_query_attention``, else H), rotary positions on half of each head (elementwise, no
product), causal attention over the S tokens (H query heads, each of width h = ``kv_channels``), an unbiased output
H·h → d, RMSNorm, a SwiGLU MLP d → 2F → F → d without biases; a final RMSNorm. Per block, 2·S·d·((H + 2G)·h + H·h +
3F) FLOP of projections and 4·S²·H·h of attention. These are the products of transformers' ``GlmModel`` (q, k, v
and gate/up split, the same sizes), so the counting is ``engine.llm``'s ``glm`` family's; ``ChatGLMModel`` also holds
the V × d ``output_layer`` that it does not run (``ChatGLMForConditionalGeneration`` runs it): held, not counted in
the FLOP. Kolors reads the hidden states (the second-to-last layer's for the U-Net's text, the last one's final
token as the pooled text), so every layer runs over its 256 padded tokens.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.media import LearnedValues
from .config_reader import ConfigReader
from .inputs import MediaInputs
from .model import ReadModel, StageBuilder
from .registry import reader

STANDARD_TOKENS = 256
"""KolorsPipeline's max_sequence_length: the prompt padded to 256 tokens."""

NEUTRAL = ("hidden_dropout", "classifier_dropout", "attention_dropout", "layernorm_epsilon", "bias_dropout_fusion",
           "apply_query_key_layer_scaling", "attention_softmax_in_fp32", "fp32_residual_connection",
           "apply_residual_connection_post_layernorm", "quantization_bit", "original_rope", "rope_ratio",
           "auto_map", "tie_word_embeddings", "vocab_size")
"""Keys that change no product and no weight of ``ChatGLMModel``: dropouts, norm epsilon, casts and fusions, the
attention's scaling, which sum the residual takes, the rotary base, the weight quantization of the generation class
(``ChatGLMModel`` does not quantize), ties (it has no output embeddings to tie), ``vocab_size`` (set from
``padded_vocab_size``)."""


def _glm_config(c: ConfigReader) -> dict:
    """The ChatGLM keys read → the ``glm`` family's keys of the same products."""
    c.require("rmsnorm", lambda v: v is True, "LayerNorm blocks (ChatGLM-6B's first version) are not counted")
    c.require("post_layer_norm", lambda v: v is True, "a model without its final norm is not counted")
    c.require("add_bias_linear", lambda v: v is False, "biased output and MLP projections are not counted")
    c.require("pre_seq_len", lambda v: v is None, "a P-tuning prefix encoder is not counted")
    c.require("prefix_projection", lambda v: v is False, "a P-tuning prefix encoder is not counted")
    c.neutral(*NEUTRAL)
    heads, head = c.size("num_attention_heads"), c.size("kv_channels")
    groups = c.size("multi_query_group_num")  # read either way: used only under multi_query_attention
    groups = groups if c.flag("multi_query_attention") else heads
    if heads % groups:
        raise c.error("multi_query_group_num", f"{groups} key/value groups do not divide {heads} heads")
    return {"model_type": "glm", "architectures": ["GlmModel"], "hidden_size": c.size("hidden_size"),
            "intermediate_size": c.size("ffn_hidden_size"), "num_hidden_layers": c.size("num_layers"),
            "num_attention_heads": heads, "num_key_value_heads": groups, "head_dim": head,
            "vocab_size": c.size("padded_vocab_size"), "attention_bias": c.flag("add_qkv_bias"),
            "max_position_embeddings": c.size("seq_length"), "tie_word_embeddings": False, "pad_token_id": 0}


@reader("chatglm", family="ChatGLM text encoder (Kolors)", library="transformers")
def read_chatglm(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    from ..llm.config import read_hf_config

    c = ConfigReader(data, "chatglm", source, library="transformers")
    names = c.raw("architectures") or ["ChatGLMModel"]
    if names != ["ChatGLMModel"]:
        raise c.error("architectures", "only ChatGLMModel (the hidden states, as Kolors runs it) is counted")
    glm = _glm_config(c)
    unused = c.finish()
    tokens = STANDARD_TOKENS if inputs.text_tokens is None else inputs.text_tokens
    if not 1 <= tokens <= glm["max_position_embeddings"]:
        raise InputError("text_tokens", f"{tokens:,} tokens: this text encoder takes 1 to its "
                                        f"{glm['max_position_embeddings']:,} positions (seq_length)")
    layers = list(read_hf_config(glm, source).architecture(tokens).layers)
    layers.append(LearnedValues(count=glm["vocab_size"] * glm["hidden_size"],
                                name="output_layer (held by ChatGLMModel, not run)"))
    stage = StageBuilder("text_encoder")
    stage.add("text_encoder", layers)
    notes = (f"{tokens} text tokens through {glm['num_hidden_layers']} layers (ChatGLMModel's hidden states; its "
             f"output layer's {glm['vocab_size'] * glm['hidden_size']:,} weights are held, not run)",)
    return ReadModel("chatglm", "ChatGLMModel", (stage.build([1], tokens),), {"text_tokens": tokens}, None, notes,
                     tuple(unused))
