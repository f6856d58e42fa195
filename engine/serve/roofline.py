"""Time per phase on a chip: a roofline of each forward pass, compute against memory traffic, plus tensor
parallelism's all-reduces.

For N chips (tensor parallel: weights, heads and FLOP split N ways), dense peak π of the format, bandwidth β,
efficiencies e_c, e_m (``engine.serve.engines``), a pass of F FLOP reading b bytes per chip takes
r(F, b) = max(F / (N·π·e_c), b / (β·e_m)), and the all-reduces of T tokens

    t_AR(T) = 2·L·(α + 2(N − 1)/N · T·d·2 bytes / (0.8·link))

(L layers, two all-reduces each — attention output and MLP output, Megatron-style — of the T tokens' 16-bit
activations; α the latency of one all-reduce, 0.8 the ring's share of the link: ``engine.serve.engines``, with the
nccl-tests figures they come from). Between the sublayers, each chip adds the residual and normalises the whole
hidden state of every token (tensor parallelism splits heads and FFN columns, not the residual stream):

    t_res(T) = T · 2·L · 4·d·2 bytes / (β·e_m)

(two points per block, after attention and after the MLP; four passes over d 16-bit values each: read the
sublayer's output and the residual, write the residual and the normalised input — vLLM's fused_add_rms_norm,
TensorRT-LLM's ResidualAdd and LayerNorm, unfused by default: ``reduce_fusion`` False). A mixture-of-experts layer
also moves each token's hidden state to its k experts' rows and back, on every chip:

    t_moe(T) = T · Σ over MoE layers (2 + 2k)·d·2 bytes / (β·e_m)

(TensorRT-LLM's expandInputRowsKernel reads the row and writes k copies; finalizeMoeRoutingKernel reads the k expert
outputs and writes one row: cpp/tensorrt_llm/kernels/mixtureOfExperts/moe_kernels.cu). The engines run a step's
kernels one after another on one stream and fuse no all-reduce into a GEMM by default
(``engine.serve.engines.SEQUENTIAL``), so the parts add up.

- prefill of B prompts of P tokens: FLOP = B·F_pf(P) over the unmasked causal pairs (what attention kernels
  compute); bytes = the weights once per chunk of the engine's token budget + the KV cache written;
  t = r(FLOP, bytes) + t_res(B·P) + t_moe(B·P) + t_AR(B·P) — at the engines' chunks its GEMMs and attention are both
  compute-bound (or, for a short prompt, the weights dominate and attention is negligible): one roofline for both;
- a decode step at batch B, c tokens cached, runs two kinds of kernels in sequence:

      t = r(B·F_dec(0), weights) + r(B·(F_dec(c) − F_dec(0)), B·cache(c)) + t_res(B) + t_moe(B)
                                                                            + t_AR(B)

  the projections, feed-forward and head (F_dec(0): the FLOP with one key; bytes: the weights — a mixture of experts:
  the experts the B tokens touch, E·(1 − (1 − k/E)^B) per layer; weight-only int8/int4 read at the measured fraction
  of the 16-bit kernel's bandwidth), then attention over the cached keys (the FLOP per key, MLA absorbed as engines
  run it; bytes: each sequence's kept keys and values, and state read and written). At large batches the GEMMs are
  compute-bound and attention memory-bound: one does not hide the other (LLM-Viewer's roofline sums its operators
  likewise: https://github.com/hahnyuan/LLM-Viewer, arXiv:2402.16363).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from functools import cached_property

from .cache import kv_read_elements, sequence_cache
from .counts import ModelCounts
from .engines import LINK_EFFICIENCY, Efficiency, Engine
from .formats import (
    ACTIVATION_BYTES,
    block_weight_bytes,
    table_weight_bytes,
)
from .model_facts import ModelFacts

GB = 1e9
RESIDUAL_PASSES = 4
"""Passes over the hidden state at each residual add + norm: read the sublayer's output and the residual, write the
residual and the normalised input (vLLM's fused_add_rms_norm kernel does exactly these four)."""
NO_LIMIT = 10**12
"""Sequences that fit when nothing is cached (an encoder): memory does not bound the batch."""


@dataclass(frozen=True)
class Hardware:
    """One chip's dense peak (FLOP/s, in the serving format), bandwidth and memory (bytes/s, bytes), the chips
    serving one model copy, and the link between them (bytes/s each way)."""

    peak: float
    bandwidth: float
    memory: float
    chips: int = 1
    link: float | None = None


def _kept(method):
    """A roofline's method whose result depends on its arguments alone (a roofline's model, chips and efficiencies
    are fixed): computed once per roofline for each argument — a serve sweep asks for the same contexts and token
    counts at every batch size (the same floats: nothing is computed another way)."""
    name = method.__name__

    @functools.wraps(method)
    def kept(self, *args):
        memo = self._kept.get(name)
        if memo is None:
            memo = self._kept[name] = {}
        if args not in memo:
            memo[args] = method(self, *args)
        return memo[args]

    return kept


class Roofline:
    def __init__(self, facts: ModelFacts, counts: ModelCounts, hw: Hardware, precision: str, weights: str | None,
                 kv_bytes: float, engine: Engine, eff: Efficiency):
        self.facts, self.counts, self.hw = facts, counts, hw
        self.precision, self.weights, self.kv_bytes = precision, weights, kv_bytes
        self.engine, self.eff = engine, eff
        self._kept: dict[str, dict[tuple, object]] = {}

    @_kept
    def kv_read(self, context: int) -> tuple[float, float]:
        """(KV elements, state elements) one chip reads per sequence per decode step at ``context``."""
        return kv_read_elements(self.facts, context, self.hw.chips)

    # ------------------------------------------------------------------ weights

    @cached_property
    def _bytes(self) -> tuple[float, float]:
        return block_weight_bytes(self.precision, self.weights), table_weight_bytes(self.precision, self.weights)

    @cached_property
    def weight_memory(self) -> float:
        """All weights, bytes (all chips together)."""
        w = self.facts.weights
        block, head = self._bytes
        return w.blocks * block + w.table * 2.0 + w.head * head

    @_kept
    def weight_read(self, tokens: float) -> float:
        """Weight bytes one forward pass over ``tokens`` tokens reads (all chips together): the dense weights, the
        experts those tokens touch, and the head (a tied head reads the token table)."""
        w = self.facts.weights
        block, head = self._bytes
        touched = 0.0
        for experts, k, params in self.facts.expert_layers:
            touched += experts * params * (1 - (1 - k / experts) ** tokens)
        head_bytes = w.head * head if w.head else w.table * 2.0
        return (w.blocks - w.experts) * block + touched * block + head_bytes

    # ------------------------------------------------------------------ memory

    @_kept
    def kv_per_sequence(self, tokens: int) -> float:
        """One sequence's cache on one chip, bytes."""
        memory = self.counts.memory if self.facts.encoder_decoder else 0
        return sequence_cache(self.facts, tokens, self.kv_bytes, ACTIVATION_BYTES, memory,
                              self.hw.chips).bytes_per_chip

    @cached_property
    def free_memory(self) -> float:
        """Per chip, the memory left for KV caches: the engine's share of the chip less its part of the weights."""
        return self.hw.memory * self.engine.memory_fraction - self.weight_memory / self.hw.chips

    def sequences_in_memory(self, tokens: int) -> int:
        """Sequences of ``tokens`` tokens whose caches fit beside the weights."""
        per = self.kv_per_sequence(tokens)
        if self.free_memory <= 0:
            return 0
        return 10**12 if per <= 0 else int(self.free_memory // per)

    # ------------------------------------------------------------------ time

    @_kept
    def _allreduce(self, tokens: float, passes: float = 1.0) -> float:
        n = self.hw.chips
        if n <= 1:
            return 0.0
        layers = max(len(self.facts.layers), 1)
        size = tokens * self.facts.d_model * ACTIVATION_BYTES
        link = (self.hw.link or 1e12) * LINK_EFFICIENCY
        return 2 * layers * (passes * self.eff.allreduce_s + 2 * (n - 1) / n * size / link)

    @_kept
    def residual_time(self, tokens: float) -> float:
        """t_res: the residual adds and norms of ``tokens`` tokens on one chip, 2·L·4·d·2 bytes each."""
        layers = max(len(self.facts.layers), 1)
        return tokens * 2 * layers * RESIDUAL_PASSES * self.facts.d_model * ACTIVATION_BYTES / (
            self.hw.bandwidth * self.eff.memory)

    @_kept
    def routing_time(self, tokens: float) -> float:
        """t_moe: ``tokens`` tokens' hidden states copied to their k experts' rows and gathered back, on one chip:
        (2 + 2k)·d·2 bytes per token and mixture-of-experts layer."""
        per_token = sum((2 + 2 * k) * self.facts.d_model * ACTIVATION_BYTES for _, k, _ in self.facts.expert_layers)
        return tokens * per_token / (self.hw.bandwidth * self.eff.memory)

    def _pass(self, flop: float, bytes_per_chip: float) -> float:
        n = self.hw.chips
        return max(flop / (n * self.hw.peak * self.eff.compute), bytes_per_chip / (self.hw.bandwidth * self.eff.memory))

    def prefill_time(self, batch: int, prompt: int) -> float:
        """B prompts of P tokens, run in chunks of the engine's token budget."""
        tokens = batch * prompt
        chunks = max(1, math.ceil(tokens / self.engine.token_budget))
        flop = batch * self.counts.prefill_flop(prompt, kernel=True)
        per_chunk = min(tokens, self.engine.token_budget)
        bytes_per_chip = (chunks * self.weight_read(per_chunk) / self.hw.chips
                          + batch * self.kv_per_sequence(prompt))
        return (self._pass(flop, bytes_per_chip) + self.residual_time(tokens) + self.routing_time(tokens)
                + self._allreduce(tokens, chunks))

    def step_time(self, batch: int, context: int, tokens_per_sequence: int = 1) -> float:
        """One decode step of ``batch`` sequences with ``context`` tokens cached, each adding
        ``tokens_per_sequence`` tokens (more than one: speculative decoding's verification)."""
        n = self.hw.chips
        tokens = batch * tokens_per_sequence
        dense, attention = self.step_flop(context)
        weights = self.weight_read(tokens) / self.eff.weight_only(self.weights) / n
        return (self._pass(tokens * dense, weights) + self._pass(tokens * attention, batch * self.cache_read(context))
                + self.residual_time(tokens) + self.routing_time(tokens) + self._allreduce(tokens))

    @_kept
    def step_flop(self, context: int) -> tuple[float, float]:
        """One decoded token's FLOP with ``context`` cached, in two parts: the projections, feed-forward and head
        (F_dec(0), one key) and attention over the rest of the keys (F_dec(c) − F_dec(0)); MLA absorbed."""
        dense = self.counts.decode_flop(0, absorbed=True)
        return dense, self.counts.decode_flop(context, absorbed=True) - dense

    @_kept
    def cache_read(self, context: int) -> float:
        """Bytes one sequence's decode step reads from its cache on one chip: kept keys and values, and state."""
        kv, state = self.kv_read(context)
        return kv * self.kv_bytes + state * ACTIVATION_BYTES

    def decode_time(self, batch: int, prompt: int, output: int) -> float:
        """The O − 1 decode steps after the prefill's first token (contexts P … P + O − 2), summed: each step is
        evaluated at up to 17 contexts and the sum taken by the trapezoid rule (exact while one bound holds)."""
        steps = output - 1
        if steps <= 0:
            return 0.0
        points = min(steps, 17)
        contexts = [prompt + round(i * (steps - 1) / max(points - 1, 1)) for i in range(points)]
        times = [self.step_time(batch, c) for c in contexts]
        if points == steps:
            return sum(times)
        total = 0.0
        for (c0, t0), (c1, t1) in zip(zip(contexts, times), zip(contexts[1:], times[1:])):
            total += (t0 + t1) / 2 * (c1 - c0)
        return total + (times[0] + times[-1]) / 2
