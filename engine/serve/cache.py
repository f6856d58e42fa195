"""The KV cache (and constant state) one sequence keeps, layer by layer, as transformers builds it.

Per layer, for a sequence of T tokens (an encoder–decoder model: T decoder tokens over M encoder positions):

- full attention (MHA, GQA, MQA): T · H_kv · (Q + V) elements (keys and values);
- sliding window W: min(T, W − 1) · H_kv · (Q + V) — transformers keeps the last W − 1 tokens
  (``DynamicSlidingWindowLayer``), the new token makes the W keys a query sees;
- multi-head latent attention (DeepSeek-V2/V3, MLA): T · (c + R) — the normed latent and the rotary key, as
  vLLM and SGLang store it (``kv_lora_rank + qk_rope_head_dim``) and as transformers 5 caches it (``kv_nope``,
  ``k_rot``); DeepSeek-V3.2's indexer adds D_I per token (its ``indexer_keys``);
- a layer reading another layer's keys and values (Gemma 4's shared KV): nothing;
- state-space layers (Mamba, Mamba-2, Gated DeltaNet, LFM2's short convolution, lightning attention): a constant
  state, the convolution's last K inputs (channels × K) and the recurrent state (Mamba I·N, Mamba-2 H·P·N,
  Gated DeltaNet H·d_k·d_v, lightning H·Q²), whatever T;
- cross-attention (encoder–decoder): M · H_kv · 2Q, kept once per sequence.

Bytes: keys, values and latents in the KV precision (BF16/FP16 2 bytes, FP8 1, FP4 0.5 plus an FP8 scale per 16
elements); constant states in the model's activation precision (2 bytes: engines keep Mamba states in the model
dtype by default). Tensor parallelism over N chips splits heads: a chip keeps ⌈H_kv/N⌉ of the H_kv heads (a
single latent is replicated), 1/N of a state.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..results import Result
from .model_facts import CacheLayer, ModelFacts


def cached_tokens(layer: CacheLayer, tokens: int) -> int:
    """Tokens whose keys and values ``layer`` keeps after ``tokens`` tokens: all, or the last W − 1."""
    if layer.window is not None and layer.cache_window and tokens >= layer.window:
        return layer.window - 1
    return tokens


def layer_elements(layer: CacheLayer, tokens: int, memory: int = 0) -> tuple[int, int]:
    """(KV elements, state elements) ``layer`` keeps for a sequence of ``tokens`` tokens (and ``memory`` encoder
    positions for cross-attention)."""
    return layer.per_token * cached_tokens(layer, tokens) + layer.cross_per_position * memory, layer.state


def chip_share(layer: CacheLayer, chips: int) -> float:
    """The fraction of ``layer``'s keys and values one of ``chips`` tensor-parallel chips keeps."""
    if chips <= 1 or layer.kv_heads <= 1:
        return 1.0
    return math.ceil(layer.kv_heads / chips) / layer.kv_heads


@dataclass(frozen=True, slots=True)
class LayerCache(Result):
    """One layer's cache for one sequence: its kind, the tokens kept, elements and bytes (whole model, one chip
    = ``bytes × share``)."""

    layer: int
    kind: str
    label: str
    tokens_kept: int
    kv_elements: int
    state_elements: int
    bytes: float


@dataclass(frozen=True, slots=True)
class SequenceCache(Result):
    """The cache of one sequence of ``tokens`` tokens: per layer, and in total (all chips together), with the
    bytes per token while every layer still keeps every token (``bytes_per_token``) and the constant state."""

    tokens: int
    kv_bytes_per_element: float
    state_bytes_per_element: float
    layers: tuple[LayerCache, ...]
    bytes_per_token: float
    state_bytes: float
    bytes_per_chip: float

    json_fields = ("tokens", "bytes_per_token", "bytes", "kv_bytes", "state_bytes", "bytes_per_chip",
                   "kv_bytes_per_element", "layers")

    @property
    def bytes(self) -> float:
        return sum(layer.bytes for layer in self.layers)

    @property
    def kv_bytes(self) -> float:
        return self.bytes - self.state_bytes


def sequence_cache(facts: ModelFacts, tokens: int, kv_bytes: float, state_bytes: float = 2.0, memory: int = 0,
                   chips: int = 1) -> SequenceCache:
    """The cache of one sequence of ``tokens`` tokens (``memory`` encoder positions) at ``kv_bytes`` per key/value
    element and ``state_bytes`` per state element, and one chip's part of it over ``chips`` chips."""
    rows, per_chip = [], 0.0
    for layer in facts.layers:
        kv, state = layer_elements(layer, tokens, memory)
        size = kv * kv_bytes + state * state_bytes
        kept = cached_tokens(layer, tokens) if layer.per_token else 0
        rows.append(LayerCache(layer.index, layer.kind, layer.label, kept, kv, state, size))
        per_chip += kv * kv_bytes * chip_share(layer, chips) + state * state_bytes / chips
    per_token = sum(layer.per_token for layer in facts.layers) * kv_bytes
    state = sum(layer.state for layer in facts.layers) * state_bytes
    return SequenceCache(tokens, kv_bytes, state_bytes, tuple(rows), per_token, state, per_chip)


def kv_read_elements(facts: ModelFacts, context: int, chips: int = 1) -> tuple[float, float]:
    """(KV elements, state elements) one chip reads for one sequence in one decode step at ``context`` cached
    tokens: each layer's kept keys and values (and its state, read and written)."""
    kv = sum(layer.per_token * cached_tokens(layer, context) * chip_share(layer, chips) for layer in facts.layers)
    state = sum(2 * layer.state for layer in facts.layers) / chips
    return kv, state
