"""The external reference for serving: transformers' own generation step, on the meta device.

``serve_reference(config, prompt)`` builds the model class the config names (``tests/llm/hf_reference.build``: meta
device, eager attention, the experts run as ``batched_mm``), runs the prefill of ``prompt`` tokens with
``use_cache=True`` and ``logits_to_keep=1`` (what ``generate`` does; a class without the argument computes every
position's logits), then one decode step of one token with the cache it returned, each under ``FlopCounterMode``,
and reads the cache transformers built, layer by layer: Σ numel of its keys, values, indexer keys, convolution and
recurrent states (MiniMax's lightning states), and for an encoder–decoder model its cross-attention cache.
"""
from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

from tests.llm import hf_reference


@dataclass(frozen=True)
class ServeReference:
    prefill_flop: int
    decode_flop: int
    cache_elements: tuple[int, ...]
    """Per decoder layer, after the prefill and the decoded token (prompt + 1 tokens)."""
    logits_to_keep: bool


def _numel(t) -> int:
    import torch

    return t.numel() if isinstance(t, torch.Tensor) else 0


def layer_elements(layer) -> int:
    """Elements one cache layer holds (a tensor aliased as both keys and values counted once)."""
    total = _numel(getattr(layer, "keys", None))
    values = getattr(layer, "values", None)
    if values is not getattr(layer, "keys", None):
        total += _numel(values)
    total += _numel(getattr(layer, "indexer_keys", None))
    for name in ("conv_states", "recurrent_states"):
        states = getattr(layer, name, None)
        if isinstance(states, dict):
            total += sum(_numel(t) for t in states.values())
    return total


def cache_elements(cache) -> tuple[int, ...]:
    if hasattr(cache, "self_attention_cache"):  # encoder–decoder: self + cross per layer
        own = cache_elements(cache.self_attention_cache)
        cross = cache_elements(cache.cross_attention_cache)
        return tuple(a + b for a, b in zip(own, cross))
    out = [layer_elements(layer) for layer in cache.layers]
    linear = getattr(cache, "linear_cache", None)  # MiniMax's lightning states
    if linear is not None:
        for i, state in enumerate(linear):
            if i < len(out):
                out[i] += _numel(state)
            else:
                out.append(_numel(state))
    return tuple(out)


def serve_reference(config: dict, prompt: int) -> ServeReference:
    import torch
    from tests.meta_memo import flop_counter

    from engine.importers.torch_count import _meta_masks  # noqa: PLC2701 (the counter's own meta masks)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hf_reference.build(config)
    for p in model.parameters():
        p.requires_grad_(False)
    params = inspect.signature(model.forward).parameters
    keep = "logits_to_keep" in params
    extra = {"logits_to_keep": 1} if keep else {}
    ids = torch.zeros(1, prompt, dtype=torch.long, device="meta")
    one = torch.zeros(1, 1, dtype=torch.long, device="meta")
    first = {"input_ids": ids, "use_cache": True, **extra}
    if model.config.is_encoder_decoder:
        first["decoder_input_ids"] = one
    with torch.no_grad(), _meta_masks("meta", []), flop_counter() as counter:
        out = model(**first)
    prefill = counter.get_total_flops()
    cache = out.cache if getattr(out, "cache", None) is not None else out.past_key_values
    step = {"use_cache": True, **extra}
    step["cache" if "cache" in params else "past_key_values"] = cache
    if model.config.is_encoder_decoder:
        step |= {"decoder_input_ids": one, "encoder_outputs": (out.encoder_last_hidden_state,)}
    else:
        step["input_ids"] = one
    with torch.no_grad(), _meta_masks("meta", []), flop_counter() as counter:
        out = model(**step)
    cache = out.cache if getattr(out, "cache", None) is not None else out.past_key_values
    return ServeReference(prefill, counter.get_total_flops(), cache_elements(cache), keep)
