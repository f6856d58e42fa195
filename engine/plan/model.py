"""What planning needs to know of a model, read from a method-1 architecture (any kinds).

Transformer blocks are described by (s, h, a) for the activation formulas; every other layer by the
number of output values it keeps per example. Blocks are the unit a pipeline splits; their heads the
unit tensor parallelism splits.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError, quoted
from ..method1.architecture import Architecture, ArchitectureResult, evaluate
from ..results import Result

MAX_SEQ_LEN = 10_000_000
"""The longest training sequence a plan takes, in tokens."""


def checked_seq_len(value, shown: str | None = None) -> int | None:
    """``value`` when it is None or a whole number of tokens from 1 to ``MAX_SEQ_LEN``; else an ``InputError`` on
    ``seq_len`` showing ``shown`` (the value as the user typed it; default: the value, quoted). The one check of
    the command line's ``--seq-len`` and the API's ``seq_len``."""
    if value is not None and (type(value) is not int or not 1 <= value <= MAX_SEQ_LEN):
        raise InputError("seq_len", f"{shown or quoted(value)} is not a whole number from 1 to {MAX_SEQ_LEN:,}")
    return value


@dataclass(frozen=True, slots=True)
class PlanModel(Result):
    """Parameters, FLOP and shapes of one model trained on examples (sequences) of ``seq_len`` tokens."""

    params: int
    """Every parameter (all experts)."""
    active_params: int
    expert_params: int
    """Parameters inside mixture-of-experts feed-forwards (split by expert parallelism)."""
    experts: int
    """E experts per MoE block (1 = dense)."""
    forward_flop: float
    """Forward FLOP per example (a whole sequence)."""
    attention_core_flop: float
    """Forward FLOP per example of QKᵀ and AV: what selective recomputation runs again."""
    blocks: int
    """Transformer blocks (0 for other architectures)."""
    d_model: int
    heads: int
    kv_heads: int
    attention_width: int
    """d_attn = H·Q (heads × head size)."""
    seq_len: int
    """s: tokens per example (1 for an example that is not a sequence)."""
    other_layers: int
    """Layers other than transformer blocks."""
    other_activation_values: int
    """Output values per example that the non-block layers keep for the backward pass."""
    ff_size: int = 0
    """F: the blocks' feed-forward width (per expert)."""
    gated: bool = False
    """Gated feed-forward (three matrices)."""
    vocab: int = 0
    """V of a language-model head (0: none)."""
    trainable_params: int | None = None
    """Parameters that train (None: all): gradients and optimizer states are kept for these only (LoRA)."""
    active_experts: int = 1
    """k: experts routed per token (mixture of experts)."""
    shared_ff_size: int = 0
    """Width of an always-active shared expert (0: none)."""
    window: int = 0
    """W of the sliding-window blocks (0: none)."""
    windowed_blocks: int = 0
    """Blocks with sliding-window attention."""
    latent_attention: bool = False
    """Multi-head latent attention (compressed keys and values)."""
    params_before_blocks: int = 0
    """Parameters of the layers before the first block (the embeddings): the first pipeline stage holds them."""
    params_after_blocks: int = 0
    """Parameters of the layers after the last block (final norm, an untied head): the last stage holds them."""
    tied_head_params: int = 0
    """V·E of a head tied to the token table (counted once, with the embedding): with p > 1 the last stage keeps a
    copy of it for the output layer."""

    @property
    def trainable_fraction(self) -> float:
        """Trainable / all parameters: the share of gradients and optimizer states kept."""
        if self.trainable_params is None or not self.params:
            return 1.0
        return self.trainable_params / self.params

    @property
    def pipeline_units(self) -> int:
        """What pipeline stages split: the blocks of a transformer, else the layers."""
        return self.blocks or self.other_layers

    @property
    def dense_params(self) -> int:
        return self.params - self.expert_params

    @property
    def tokens_per_example(self) -> int:
        return self.seq_len


def plan_model(arch: Architecture, result: ArchitectureResult | None = None) -> PlanModel:
    """A ``PlanModel`` from an architecture (evaluated here unless ``result`` is given, matmul convention)."""
    if result is None:
        result = evaluate(arch, "matmul")
    if result.error is not None:
        raise result.error
    blocks = heads = kv_heads = d_model = seq_len = other_layers = experts = width = ff_size = vocab = 0
    gated = latent = False
    tied = 0
    other_values = expert_params = active = shared = window = windowed = 0
    attention_core = 0.0
    shapes: dict[int, list[int]] = {}
    params_at: dict[int, int] = {}
    for row in result.rows:
        shapes.setdefault(row.index, row.output_shape)
        params_at[row.index] = params_at.get(row.index, 0) + row.params
        if row.part.startswith("experts ") or row.part == "router":
            expert_params += row.params if row.part != "router" else 0
        if "QKᵀ" in row.part or row.part.endswith("values AV"):
            attention_core += row.forward_flop
    steps = arch.input.sequence_length or 1
    for index, layer in enumerate(arch.layers):
        shape = shapes.get(index)
        if shape is None:
            continue
        if layer.type == "transformer_block":
            h, h_kv, q = layer.attention_sizes(shape[-1])
            if blocks and (shape[-1], h) != (d_model, heads):
                raise InputError(f"layers[{index}]", "planning needs identical transformer blocks "
                                                     f"(d_model {shape[-1]}, {h} heads differs from the first)")
            blocks += 1
            d_model, heads, kv_heads, seq_len, width = shape[-1], h, h_kv, shape[0], h * q
            experts = max(experts, layer.experts)
            active = max(active, layer.active_experts or 0)
            shared = max(shared, layer.shared_ff_size or 0)
            latent = latent or layer.kv_lora_rank is not None
            if layer.attention_window:
                window, windowed = layer.attention_window, windowed + 1
            ff_size, gated = layer.ff_size or 4 * shape[-1], layer.gated
        else:
            other_layers += 1
            other_values += math.prod(shape)
            if layer.type == "lm_head":
                vocab = layer.vocab_size
                if layer.tied:  # the token table's E = d − (own rows) columns, V rows
                    width_in = (shapes.get(index - 1) or [d_model])[-1]
                    tied = vocab * (width_in - (layer.own_rows or 0))
    at = [i for i, layer in enumerate(arch.layers) if layer.type == "transformer_block"]
    before = sum(v for i, v in params_at.items() if at and i < at[0])
    after = sum(v for i, v in params_at.items() if at and i > at[-1])
    return PlanModel(params=result.params, active_params=result.active_params, expert_params=expert_params,
                     experts=experts or 1, forward_flop=float(result.forward_flop),
                     attention_core_flop=attention_core, blocks=blocks, d_model=d_model, heads=heads,
                     kv_heads=kv_heads, attention_width=width, seq_len=seq_len or steps, other_layers=other_layers,
                     other_activation_values=other_values, ff_size=ff_size, gated=gated, vocab=vocab,
                     trainable_params=result.trainable_params if result.trainable_params < result.params else None,
                     active_experts=active or 1, shared_ff_size=shared, window=window, windowed_blocks=windowed,
                     latent_attention=latent, params_before_blocks=before, params_after_blocks=after,
                     tied_head_params=tied)
