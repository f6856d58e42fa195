"""The published quick formulas for a transformer's training compute, each with its source.

All count matrix multiplications only (the ``matmul`` convention) and take backward = 2 × forward.
Symbols: N non-embedding parameters (active ones for a mixture of experts), D training tokens,
n_layer = L layers, d_model = h, H heads of size Q (d_attn = H·Q), T = n_ctx = s sequence length,
V vocabulary.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..results import Result


class ModelShape(NamedTuple):
    """What the formulas need to know of a model and its run."""

    non_embedding_params: int
    """N: for a mixture of experts, the parameters one token goes through."""
    all_params: int
    """Every parameter one token goes through, embeddings included."""
    layers: int
    d_model: int
    heads: int
    head_size: int
    kv_heads: int
    ff_size: int
    gated: bool
    experts: int
    vocab_size: int
    seq_len: int
    tokens: float
    attention_window: int | None = None
    """W of sliding-window attention (Mistral), None for full attention."""
    encoder_decoder: bool = False
    """T5, BART: N and n_layer cover both stacks; D is counted in encoder tokens."""


@dataclass(frozen=True)
class Formula:
    key: str
    label: str
    source: str
    assumptions: str
    training_flop: Callable[[ModelShape], float]
    caveats: Callable[[ModelShape], list[str]] = lambda m: []
    """Where this model breaks the formula's assumptions."""


def _stack_caveats(m: ModelShape) -> list[str]:
    if m.encoder_decoder:
        return ["assumes a decoder-only model; here an encoder and a decoder (N covers both, and each "
                "training token is counted once although it passes through one stack only)"]
    return []


def _window_caveats(m: ModelShape) -> list[str]:
    """The attention terms below take every token to see the whole context."""
    notes = _stack_caveats(m)
    if m.attention_window and m.attention_window < m.seq_len:
        notes.append(f"attends over the whole context T = {m.seq_len}; this model's sliding window lets a "
                     f"token see at most W = {m.attention_window} positions")
    return notes


def _megatron_caveats(m: ModelShape) -> list[str]:
    notes = _window_caveats(m)
    if m.heads * m.head_size != m.d_model:
        notes.append(f"assumes H·Q = h; here {m.heads}·{m.head_size} ≠ {m.d_model}")
    if m.kv_heads != m.heads:
        notes.append(f"assumes multi-head attention; here {m.kv_heads} key/value heads for {m.heads} query heads")
    if m.gated:
        notes.append("assumes two feed-forward matrices; a gated feed-forward has three")
    if m.ff_size != 4 * m.d_model:
        notes.append(f"assumes a feed-forward size of 4h = {4 * m.d_model}; here {m.ff_size}")
    if m.experts > 1:
        notes.append("assumes a dense model; h² terms count every expert as if it ran")
    return notes


def _megatron(m: ModelShape) -> float:
    """72·B·s·l·h²·(1 + s/(6h) + V/(12·h·l)) per iteration of B sequences of s tokens: D/s sequences."""
    s, h, l = m.seq_len, m.d_model, m.layers
    sequences = m.tokens / s  # = B × iterations
    return 72 * sequences * s * l * h * h * (1 + s / (6 * h) + m.vocab_size / (12 * h * l))


FORMULAS: tuple[Formula, ...] = (
    Formula("kaplan_6nd", "6ND (Kaplan)",
            "Kaplan et al. 2020, 'Scaling Laws for Neural Language Models', §2.1 — https://arxiv.org/abs/2001.08361",
            "C ≈ 6·N·D: forward 2N per token, backward twice that; N excludes the vocabulary and position "
            "embeddings; attention over the context and the output layer are left out.",
            lambda m: 6 * m.non_embedding_params * m.tokens, _stack_caveats),
    Formula("total_params_6nd", "6ND, N with embeddings",
            "The rule behind published totals: GPT-3 175B 3.14e23 (Brown et al. 2020, App. D — "
            "https://arxiv.org/abs/2005.14165), Llama 3.1 405B 3.8e25 (Dubey et al. 2024 — "
            "https://arxiv.org/abs/2407.21783)",
            "C ≈ 6·N·D with N every parameter a token goes through, embeddings included; no attention term.",
            lambda m: 6 * m.all_params * m.tokens, _stack_caveats),
    Formula("kaplan_6n_attention", "6N + attention (Kaplan)",
            "Kaplan et al. 2020, Table 1 — https://arxiv.org/abs/2001.08361",
            "Forward per token 2N + 2·n_layer·n_ctx·d_attn, × 3 for training: the context term equals QKᵀ "
            "and AV over the causal half only (PaLM's below counts all of them).",
            lambda m: (6 * m.non_embedding_params + 6 * m.layers * m.seq_len * m.heads * m.head_size) * m.tokens,
            _window_caveats),
    Formula("palm_6n_12lhqt", "6N + 12·L·H·Q·T (PaLM)",
            "Chowdhery et al. 2022, 'PaLM', App. B (model FLOPs) — https://arxiv.org/abs/2204.02311",
            "Per token 6N + 12·L·H·Q·T: the weight matmuls, and QKᵀ and AV over the full T×T "
            "(as FlopCounterMode counts them); N non-embedding here.",
            lambda m: (6 * m.non_embedding_params + 12 * m.layers * m.heads * m.head_size * m.seq_len) * m.tokens,
            _window_caveats),
    Formula("megatron_72bslh2", "72·B·s·l·h²·(1 + s/6h + V/12hl) (Megatron-LM)",
            "Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large Transformer Models', §6 "
            "(model FLOPs) — https://arxiv.org/abs/2205.05198; Narayanan et al. 2021, eq. (3), prints the count "
            "with full recomputation, 96·B·s·l·h²·(1 + s/6h + V/16lh) — https://arxiv.org/abs/2104.04473",
            "Per iteration of B sequences of s tokens, without activation recomputation (with it, one more "
            "forward of the blocks: 96·B·s·l·h²·(1 + s/6h + V/16lh)): "
            "here B × iterations = D / s. Assumes multi-head attention with H·Q = h, a 4h two-matrix "
            "feed-forward, and counts the logits layer (V) but no biases or norms.",
            _megatron, _megatron_caveats),
)


@dataclass(frozen=True, slots=True)
class FormulaResult(Result):
    """One formula's training compute for this model and run, beside the detailed count."""

    key: str
    label: str
    source: str
    assumptions: str
    training_flop: float
    vs_detailed_percent: float | None
    """(formula − detailed) / detailed × 100."""
    caveats: list[str]


def formula_results(model: ModelShape, detailed_flop: float | None = None) -> list[FormulaResult]:
    """Every formula for this model and run, with its difference from the detailed count."""
    results = []
    for f in FORMULAS:
        flop = f.training_flop(model)
        diff = (flop - detailed_flop) / detailed_flop * 100 if detailed_flop else None
        results.append(FormulaResult(f.key, f.label, f.source, f.assumptions, flop, diff, f.caveats(model)))
    return results
