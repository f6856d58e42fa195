"""Prefill and decode FLOP, counted from the model's architecture (``engine.method1``), as transformers runs them.

**Prefill** of a prompt of P tokens: one forward pass over the P tokens with logits at the last position only
(``logits_to_keep=1``, what ``generate`` asks): F(P) − (P − 1)·2·d·V, F the architecture's forward FLOP
(matmul convention: QKᵀ and AV over all P² pairs, as ``FlopCounterMode`` counts eager attention). An
encoder–decoder model: the encoder over P tokens and the decoder's first token. ``kernel`` counts the unmasked
causal pairs only (P(P+1)/2, or within the window): what causal attention kernels compute, used for time.

**Decode** of one token with c tokens cached: every layer of the architecture is a polynomial in the length L,
f(L) = f₀ + a·L + b·L² (f₀: an encoder's work, and cross-attention keys and values, computed once; a: the
per-token projections, feed-forward and head; b: QKᵀ and AV per query–key pair). The decode step costs
a + b·k per layer, k the keys the new token attends to: c + 1, or min(c + 1, W) in a sliding window (transformers
keeps W − 1). The coefficients are read from the architecture at L = 1, 2, 3 and checked at L = 4.

- MLA in transformers keeps the latent and re-expands it every step (``kv_b_proj`` over all k cached positions:
  2·c·H·(Q + V) each); engines absorb W_UK and W_UV into the query and output instead
  (``absorbed``: per key 2·H·(2c + R), the absorbed projections per token equal in size to the one expansion).
- State-space mixers run their recurrent step (transformers' cached path), counted from their sizes:
  Mamba d→2I, I→R+2N, R→I, the read-out h·C (I·N) and I→d; Mamba-2 d→2I+2GN+H, the read-out (H·P·N) and I→d;
  Gated DeltaNet its projections (the delta rule's step is element-wise: no matrix product); LFM2 d→3d and d→d;
  lightning attention q/k/v, kᵀv and q·S (2·H·Q² MACs), its gate and output; the causal convolution over its K
  kept inputs and the new one, ``F.conv1d`` without padding: two outputs of C·K multiply-accumulates (the first
  discarded). The scans' element-wise updates are no matrix product (``FlopCounterMode`` counts none).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from functools import cached_property

from ..method1.architecture import evaluate
from .cache import cached_tokens
from .model_facts import MixerState, ModelFacts

_FIT = (1, 2, 3, 4)


def _by_index(facts: ModelFacts, arch) -> dict[int, int]:
    """Forward FLOP per top-level layer, state-space mixers left out."""
    out: dict[int, int] = {}
    for row in evaluate(arch).rows:
        out[row.index] = out.get(row.index, 0) + row.forward_flop
    for index, flop in facts.state_mixer_flop(arch).items():
        out[index] -= flop
    return out


def mixer_step_flop(m: MixerState) -> int:
    """FLOP of one state-space mixer's recurrent step (one token): its matrix products, and the convolution over
    the K kept inputs and the new one (two outputs of C·K multiply-accumulates, the first discarded, as
    transformers' ``causal_conv1d_update`` runs ``F.conv1d`` without padding)."""
    if m.kind == "mamba":
        macs = m.d * 2 * m.inner + m.inner * (m.dt_rank + 2 * m.state) + m.dt_rank * m.inner \
            + m.inner * m.state + m.inner * m.d
    elif m.kind == "mamba2":
        macs = m.d * (2 * m.inner + 2 * m.groups * m.state + m.heads) + m.inner * m.state + m.inner * m.d
    elif m.kind == "gated_deltanet" and m.channel_decay:  # Kimi: q, k, v, the low-rank gates, β, out
        i = m.inner
        macs = m.d * 3 * i + 2 * (m.d * m.state + m.state * i) + m.d * m.heads + i * m.d
    elif m.kind == "gated_deltanet":
        macs = m.d * (2 * m.groups * m.state + 2 * m.inner) + m.d * 2 * m.heads + m.inner * m.d
    elif m.kind == "short_conv":
        macs = m.d * 3 * m.d + m.d * m.d
    elif m.kind == "lightning":
        i = m.heads * m.head_size
        macs = m.d * 3 * i + 2 * m.heads * m.head_size ** 2 + m.d * i + i * m.d
    else:
        macs = 0
    return 2 * (macs + 2 * m.conv_channels * m.kernel)


@dataclass(frozen=True, slots=True)
class LayerPoly:
    """One top-level layer's forward FLOP as f₀ + a·L + b·L²; ``layer``: the decoder layer it is (or None)."""

    index: int
    f0: int
    a: int
    b: int
    layer: int | None


class ModelCounts:
    """Prefill and decode FLOP of one model (an encoder–decoder model: for ``memory`` encoder positions)."""

    def __init__(self, facts: ModelFacts, memory: int = 1):
        self.facts = facts
        self.memory = memory
        self._decode: dict[tuple[int, bool], int] = {}
        self._prefill: dict[tuple[int, bool], int] = {}

    def _arch(self, length: int, **kw):
        if self.facts.encoder_decoder:
            return self.facts.architecture(self.memory, length, **kw)
        return self.facts.architecture(length, **kw)

    @cached_property
    def polys(self) -> tuple[LayerPoly, ...]:
        """Per top-level layer: f(L) = f₀ + a·L + b·L², state-space mixers removed (counted by their step)."""
        values = [_by_index(self.facts, self._arch(n)) for n in _FIT]
        arch = self._arch(1)
        layer_of = {index: j for j, index in enumerate(self.facts.block_indices(arch))}
        out = []
        for index in values[0]:
            f1, f2, f3, f4 = (v.get(index, 0) for v in values)
            b2 = f3 - 2 * f2 + f1  # second difference = 2b
            b, rem = divmod(b2, 2)
            a = f2 - f1 - 3 * b
            f0 = f1 - a - b
            if rem or f0 + 4 * a + 16 * b != f4:
                raise ValueError(f"layer {index} is not quadratic in the length: {f1}, {f2}, {f3}, {f4}")
            out.append(LayerPoly(index, f0, a, b, layer_of.get(index)))
        return tuple(out)

    @cached_property
    def head_flop_per_position(self) -> int:
        arch = self._arch(1)
        heads = set(self.facts.head_indices(arch))
        return sum(p.a for p in self.polys if p.index in heads)

    @cached_property
    def last_position_only(self) -> frozenset[int]:
        """Top-level positions that a prefill runs at its last position only: the LM head (logits at the last
        position) and a trailing run of layers that read other layers' keys and values (Gemma 4's KV-shared
        layers: no later layer needs their keys, so transformers slices the sequence to the last position before
        them; one query against all P keys)."""
        if not self.facts.generative or self.facts.encoder_decoder:
            return frozenset()
        arch = self._arch(1)
        out = set(self.facts.head_indices(arch))
        blocks = self.facts.block_indices(arch)
        for j in range(len(self.facts.layers) - 1, -1, -1):
            if self.facts.layers[j].kind != "shared":
                break
            out.add(blocks[j])
        return frozenset(out)

    def prefill_flop(self, prompt: int, kernel: bool = False) -> int:
        """One prompt's prefill (logits at its last position). ``kernel``: attention over the unmasked causal
        pairs only."""
        key = (prompt, kernel)
        if key not in self._prefill:
            self._prefill[key] = self._prefill_flop(prompt, kernel)
        return self._prefill[key]

    def _prefill_flop(self, prompt: int, kernel: bool) -> int:
        if self.facts.encoder_decoder:
            return evaluate(self.facts.architecture(prompt, 1, causal_half=kernel)).forward_flop
        total = 0
        last = self.last_position_only
        for row in evaluate(self.facts.architecture(prompt, causal_half=kernel)).rows:
            if row.index not in last:
                total += row.forward_flop
        for poly in self.polys:
            if poly.index in last:  # one query against the P keys
                total += poly.a + poly.b * prompt
        return total

    def _keys(self, poly: LayerPoly, context: int) -> int:
        if poly.layer is None:
            return 0
        return cached_tokens(self.facts.layers[poly.layer], context) + 1

    def decode_flop(self, context: int, absorbed: bool = False) -> int:
        """One decoded token with ``context`` tokens cached, as transformers computes it (``absorbed``: MLA with
        its up-projections absorbed, as vLLM and SGLang run it)."""
        key = (context, absorbed)
        if key not in self._decode:
            self._decode[key] = self._decode_flop(context, absorbed)
        return self._decode[key]

    def _decode_flop(self, context: int, absorbed: bool) -> int:
        total = 0
        for poly in self.polys:
            keys = self._keys(poly, context)
            layer = self.facts.layers[poly.layer] if poly.layer is not None else None
            mla = layer.mla if layer is not None else None
            if mla is None:
                total += poly.a + poly.b * keys
                continue
            heads, q, r, v, c = mla
            if absorbed:  # per key 2·H·(Q + R + V) becomes 2·H·(2c + R) (an indexer's pairs stay); the absorbed
                # projections per token (2·H·Q·c + 2·H·c·V) replace the token's own expansion, of the same size
                total += poly.a + (poly.b - 2 * heads * (q + r + v) + 2 * heads * (2 * c + r)) * keys
            else:
                total += poly.a + poly.b * keys + 2 * c * heads * (q + v) * (keys - 1)
        for layer in self.facts.layers:
            if layer.mixer is not None:
                total += mixer_step_flop(layer.mixer)
        return total

    def decode_flop_sum(self, start: int, steps: int, absorbed: bool = False) -> int:
        """Σ over ``steps`` decoded tokens, the first with ``start`` tokens cached (exact: each layer's keys are
        linear in the context until its window is full, then constant)."""
        if steps <= 0:
            return 0
        if steps <= 4:
            return sum(self.decode_flop(start + i, absorbed) for i in range(steps))
        # decode_flop is piecewise linear in the context; the windows are its only breaks
        breaks = sorted({start, start + steps} | {layer.window - 1 for layer in self.facts.layers
                                                  if layer.window and start < layer.window - 1 < start + steps})
        total = 0
        for lo, hi in pairwise(breaks):
            n = hi - lo
            first, last = self.decode_flop(lo, absorbed), self.decode_flop(hi - 1, absorbed)
            total += (first + last) * n // 2 if n > 1 else first
        return total
