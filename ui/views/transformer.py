"""The transformer panel's rule for the training tokens D, without Streamlit: the field holds the tokens of the
config on screen — a library entry's published count (with its source), or nothing until the user enters D —
never the previous model's (picking Llama 3.1 70B after BERT once kept BERT's 1.28e11 tokens: 6.16e22 FLOP shown
instead of about 7.2e24)."""
from __future__ import annotations

import hashlib

from engine.errors import InputError

UNKNOWN = "tokens unknown: enter D"
"""The empty field's placeholder."""


def config_identity(source: str, key: object) -> str:
    """Which config the panel shows: ``library:<id>``, ``upload:<file id>``, ``paste:<hash of the text>``,
    ``hub:<model id>``. A new identity resets D (an edited text is another config)."""
    if source == "paste" and isinstance(key, (str, bytes)):
        data = key.encode() if isinstance(key, str) else key
        return f"paste:{hashlib.sha256(data).hexdigest()[:16]}"
    return f"{source}:{key}"


def own_tokens(training_tokens: float | None) -> float | None:
    """The tokens D that go with a config: its library entry's published count, else none (to be entered)."""
    return float(training_tokens) if training_tokens else None


def tokens_caption(training_tokens: float | None, source: str | None) -> str:
    """Where D comes from, beside the field."""
    if training_tokens:
        return f"D = {training_tokens:.3g} tokens, as published: {source}"
    return "No published token count for this model: enter D, the tokens it trained on."


def required_tokens(tokens: float | None) -> float:
    """D as entered (checked with the run: 0 is 'must be greater than 0'), or one line saying it is needed when
    the field is empty (a count is never built from another model's D)."""
    if tokens is None:
        raise InputError("Training tokens D", "unknown for this model: enter D (the tokens it trained on) to build "
                                              "its layers and training compute")
    return tokens
