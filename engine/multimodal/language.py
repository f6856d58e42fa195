"""The language model of a multimodal checkpoint, read by the language-model reader (``engine.llm``) from its
``text_config`` and put after the image (or audio) tokens: its token table becomes a ``text_tokens`` layer, where
the T text tokens join the N tokens the projector made, and its blocks, final norm and head run over N + T
positions (the head at every position, as transformers computes the logits)."""
from __future__ import annotations

from engine.errors import InputError
from engine.llm.config import TransformerConfig, validate_transformer_config
from engine.method1.layers import Embedding
from engine.method1.media import TextTokens

STANDARD_PROMPT = 0
"""Text tokens beside the image tokens when none are given: the image alone (``--text-tokens`` adds the prompt)."""


BIDIRECTIONAL = "use_bidirectional_attention"
"""A text_config key that only changes the mask (PaliGemma's prefix attends both ways): every score is computed
whichever way it is masked, so the count is the same; the language-model reader refuses it for text models (where
a half-count of the causal triangle can be asked for), the multimodal readers take it."""


def language_model(data: dict, source: str = "config") -> TransformerConfig:
    """The ``TransformerConfig`` of ``data``'s ``text_config`` (its family's reader, the checkpoint's tie)."""
    from engine.llm.families.reading import read_language_model

    text = data.get("text_config")
    if isinstance(text, dict) and text.get(BIDIRECTIONAL):
        data = {**data, "text_config": {k: v for k, v in text.items() if k != BIDIRECTIONAL}}
    fields, key_of = read_language_model(data, source)
    return validate_transformer_config(fields, source, key_of)


def language_layers(config: TransformerConfig, image_tokens: int, text_tokens: int) -> list:
    """The language model's layers over ``image_tokens`` + ``text_tokens`` positions, the flow arriving as the
    image tokens ([N, d])."""
    if config.encoder is not None or config.embedding_size or config.tables_width or config.mobilebert:
        raise InputError("text_config", "this language model's layout (an encoder, narrow tables) is not counted "
                                        "inside a multimodal model")
    layers = list(config.architecture(config.sequence_length(image_tokens + text_tokens)).layers)
    if not isinstance(layers[0], Embedding):
        raise InputError("text_config", "this language model does not start with its token table")
    layers[0] = TextTokens(vocab_size=config.vocab_size, tokens=text_tokens, name="text tokens (token table)")
    return layers


def prompt_tokens(text_tokens: int | None) -> int:
    return STANDARD_PROMPT if text_tokens is None else text_tokens
