"""One transformer block's work on one rank for one micro-batch, and the head's: attention, then a dense or an
experts feed-forward — GEMMs timed by shape (``gemm``), memory-bound work at the bandwidth, and the bytes its
collectives move (timed by the step, ``comm``).

Per micro-batch of b sequences, q query rows per rank (s/cp with context parallelism), h hidden, a heads and
H_kv key/value heads of d_h, t tensor-parallel ranks (Megatron-LM's layer, Narayanan et al. 2021 §3):

- Attention: QKV (bq × (a + 2·H_kv)·d_h/t × h), output (bq × h × a·d_h/t); backward the data and weight gradients
  of each (2× the forward); the core fused (``gemm.fused_attention_s``: the framework's kernel at its rate on the
  chip, causal — the default) or, with its scores stored, QKᵀ and AV as GEMMs per head with their score bytes
  (``gemm.attention_core_s``) and the softmax's and dropout's traffic; sliding-window blocks over their window's key
  tiles; on the 16-bit chip.
- Dense feed-forward: FC1 (bq × f/t × h; 2f/t gated: gate and up), FC2 (bq × h × f/t).
- Experts feed-forward (Megatron-Core's MoE layer, expert tensor parallelism 1): router T × E × h (T = bs/t tokens
  after sequence parallelism); each local expert's FC1 (M_e × 2f × h gated) and FC2 (M_e × h × f) its own GEMM
  with its own wave quantization (Transformer Engine's GroupedLinear), M_e = ⌈c·T·k·ep/E⌉ tokens (c the capacity
  factor: the busiest rank's load ÷ the mean); a shared expert as a dense feed-forward split t ways.
- Memory-bound work (bytes per element, forward; backward 2×), at η_mem × the bandwidth: norms and residuals 22
  per bq·h (÷t with sequence parallelism: Korthikanti et al. 2022 §4.2.2); the dense branch (Megatron-LM's GPT
  layer, as validated): bias-GeLU 4 per bq·f/t (a gated activation 6: gate and up read, one written), and
  without a fused attention kernel the scale-mask-softmax 4 and dropout 5 per score (b·a/t·q·s); the experts
  branch (Megatron-Core's MoE layer): rotary embedding 4 per query/key value, the gated activation 6 per c·T·k·f
  (4 ungated), permutation and un-permutation 8 per c·T·k·h, router 4 per T·E. Casts into a format below 16
  bits (``gemm.quantize_s``): each linear layer's input forward (QKV's and the dense FC1's written by the norm)
  and output gradient backward; with dynamic scaling
  (``Behaviour.dynamic_scaling``: torchao) each after an amax pass, and the dense block's weights cast in every
  forward (not once a step).
- Recomputation: full runs the block's forward again (its all-to-alls and tensor-parallel collectives included);
  alternate, every other block's (half of full's); ops (PyTorch's op-level checkpointing as torchtitan sets it)
  every other linear layer's product and the element-wise work; selective, in the dense branch the attention core
  (QKᵀ, softmax, dropout, AV), in the experts branch the norms and the expert activation (Megatron's
  ``recompute_modules=["layernorm", "moe_act"]``).
- Element-wise work run as separate eager PyTorch kernels: its bytes × the calibration's ``elementwise_traffic``
  (``Behaviour.elementwise_traffic``; 1 where fused).
- Collectives: tensor parallelism per block and branch (each gather and scatter with the linear product AsyncTP
  overlaps it with, ``_tp_pairs``), 1 all-reduce of b·q·h·2 bytes forward and 1 backward —
  with sequence parallelism an all-gather + reduce-scatter each (the same bytes) and one more gather backward —,
  and one more forward with full recomputation; the experts' dispatch and combine all-to-all, forward and backward
  (4 of c·T·k·h·2 bytes; 6 with full recomputation); context parallelism's K/V chunk ring.
- Head (the last stage): logits bq × V/t × h forward and 2× backward on the 16-bit chip, cross-entropy 8 bytes per
  logit (× the element-wise traffic of an eager framework).
- The rank's update (``update_work``): the optimizer's bytes per parameter of the rank's share of the states at
  the bandwidth, and the weights cast once into a format below 16 bits.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .calibration import KernelCalibration
from .chip import KernelHardware
from .frameworks import Behaviour
from .gemm import (
    BYTES,
    attention_core_s,
    fused_attention_s,
    gemm_s,
    memory_s,
    quantize_s,
    window_keys,
)
from ..layout import Layout
from ..model import PlanModel
from ...results import Result


@dataclass(frozen=True, slots=True)
class ExpertSettings(Result):
    """How a mixture of experts runs: the busiest rank's routed tokens ÷ the mean, the dispatcher ("alltoall" or
    "flex": once per node), and whether the all-to-all hides behind another micro-batch's compute."""

    capacity_factor: float = 1.0
    dispatcher: str = "alltoall"
    overlap_a2a: bool = False


PER_NODE_DISPATCHERS = frozenset({"flex"})
"""Megatron-Core's flex dispatcher (DeepEP or HybridEP backend) sends a token once per node."""


@dataclass(frozen=True, slots=True)
class BlockWork(Result):
    """One block on one rank for one micro-batch: seconds by phase, and what its collectives move."""

    fwd_gemm_s: float
    bwd_gemm_s: float
    re_gemm_s: float
    fwd_memory_s: float
    bwd_memory_s: float
    re_memory_s: float
    attention_s: float
    """The attention core's forward (products and softmax): what context parallelism's ring hides under."""
    tp_all_reduces: float
    """Tensor-parallel traffic in all-reduces of ``act_bytes`` (gathers and scatters counted as halves)."""
    act_bytes: float
    """b·q·h·2: one micro-batch's activations on a rank."""
    kv_ring_bytes: float
    """Context parallelism: the K and V chunks a rank passes in the forward ((cp − 1) steps)."""
    a2a_bytes: float
    """Experts: one all-to-all's bytes per rank (the capacity factor included)."""
    a2a_count: int
    per_node: tuple[int, int] | None
    """(E, k) where the dispatcher sends a token once per node."""
    tp_pairs: tuple[tuple[float, float], ...] = ()
    """Dense blocks: each tensor-parallel gather or scatter (half an all-reduce of ``act_bytes``) as (count, the
    forward seconds of the linear product it feeds or comes from) — what AsyncTP overlaps it with (``_tp_pairs``)."""

    @property
    def gemm_s(self) -> float:
        return self.fwd_gemm_s + self.bwd_gemm_s + self.re_gemm_s

    @property
    def memory_s(self) -> float:
        return self.fwd_memory_s + self.bwd_memory_s + self.re_memory_s


@dataclass(frozen=True, slots=True)
class StageWork(Result):
    """A block's work and the head's (on the last stage), per micro-batch."""

    block: BlockWork
    head_gemm_s: float
    head_memory_s: float


def _linear(layers: list[tuple[int, int]], hw: KernelHardware, cal: KernelCalibration, rows: int,
            shape_class: str = "linear") -> tuple[float, float]:
    """(forward, backward) of linear layers given as (N, K) on ``rows`` rows: y = x·W, then dX and dW."""
    g = hw.linear
    fwd = sum(gemm_s(g, cal, rows, n, k, 1, shape_class) for n, k in layers)
    bwd = sum(gemm_s(g, cal, rows, k, n, 1, shape_class) + gemm_s(g, cal, k, n, rows, 1, shape_class)
              for n, k in layers)
    return fwd, bwd


def _tp_all_reduces(sp: bool, recompute: str) -> float:
    """One branch's tensor-parallel traffic in all-reduces: forward and backward 1 each, the backward's extra
    gather under sequence parallelism (half), the recomputed forward's 1 with full recomputation (½ with
    alternate blocks)."""
    return 2 + (0.5 if sp else 0.0) + {"full": 1.0, "alternate": 0.5}.get(recompute, 0.0)


def _tp_pairs(g_in: float, g_out: float, sp: bool, recompute: str) -> list[tuple[float, float]]:
    """One branch's gathers and scatters, each with the product it overlaps under AsyncTP / tp_comm_overlap: the
    gather before the first product (``g_in``, e.g. QKV or FC1) and the scatter after the second (``g_out``, the
    output projection or FC2) forward; backward the gradient's gather before the second's data gradient and the
    scatter after the first's (each as long as its forward), with sequence parallelism the input gathered again
    for the first's weight gradient; the recomputed forward's pair with full (½ with alternate) recomputation.
    Counts sum to 2 × ``_tp_all_reduces``."""
    again = {"full": 1.0, "alternate": 0.5}.get(recompute, 0.0)
    pairs = [(2.0 + again, g_in), (2.0 + again, g_out)]
    if sp:
        pairs.append((1.0, g_in))
    return pairs


def _core(hw: KernelHardware, cal: KernelCalibration, behaviour: Behaviour, q: int, keys: int, hd: int,
          heads: int, whole: bool) -> tuple[float, float]:
    """(forward, backward) of the attention core over ``keys`` keys: fused at the framework's rate (causal over
    the whole sequence where ``whole``), or as GEMMs with their scores."""
    if behaviour.fused_attention:
        return fused_attention_s(hw.core, cal, q, keys, hd, heads, behaviour.attention_rate, causal=whole)
    return attention_core_s(hw.core, cal, q, keys, hd, heads)


def stage_work(model: PlanModel, layout: Layout, recompute: str, hw: KernelHardware, behaviour: Behaviour,
               experts: ExpertSettings, cal: KernelCalibration) -> StageWork:
    """A block's and the head's work per micro-batch (see the module's formulas)."""
    b, s, t, cp = layout.micro_batch, model.seq_len, layout.tp, layout.cp
    q = s // cp
    h, a = model.d_model, model.heads
    kv = model.kv_heads or a
    hd = model.attention_width // a
    bq, heads = b * q, b * a // t
    sp = behaviour.sequence_parallel
    split = t if sp else 1
    g, c = hw.linear, hw.core

    # attention: linear layers, the core (windowed blocks over their key tiles), norms and residuals
    attention = [((a + 2 * kv) * hd // t, h), (h, a * hd // t)]
    fwd_gemm, bwd_gemm = _linear(attention, hw, cal, bq)
    pairs = _tp_pairs(*(gemm_s(g, cal, bq, n, k) for n, k in attention), sp, recompute)
    core_f, core_b = _core(hw, cal, behaviour, q, s, hd, heads, True)
    if model.windowed_blocks and model.window:
        share = min(model.windowed_blocks, model.blocks) / model.blocks
        keys = window_keys(s, model.window)
        win_f, win_b = _core(hw, cal, behaviour, q, keys, hd, heads, keys == s)
        core_f, core_b = (1 - share) * core_f + share * win_f, (1 - share) * core_b + share * win_b
    fwd_gemm, bwd_gemm = fwd_gemm + core_f, bwd_gemm + core_b
    softmax = 0.0 if behaviour.fused_attention else memory_s(c, cal, (4 + 5) * heads * q * s * BYTES / 2)
    elements = 22 * bq * h / split  # two norms (4 each) and two bias-dropout-residuals (7 each)
    dyn = behaviour.dynamic_scaling
    cast_f = quantize_s(g, cal, bq, [h, a * hd // t], (0,), split, dyn)
    cast_b = quantize_s(g, cal, bq, [n for n, _ in attention], amax=dyn)
    tp = _tp_all_reduces(sp, recompute)
    re_gemm = re_mem = 0.0
    a2a_bytes, a2a_count, per_node = 0.0, 0, None
    f = model.ff_size or 4 * h
    up = (2 if model.gated else 1) * f

    if model.experts <= 1:  # dense feed-forward
        ffn = [(up // t, h), (h, f // t)]
        ffn_f, ffn_b = _linear(ffn, hw, cal, bq)
        pairs += _tp_pairs(*(gemm_s(g, cal, bq, n, k) for n, k in ffn), sp, recompute)
        fwd_gemm, bwd_gemm = fwd_gemm + ffn_f, bwd_gemm + ffn_b
        elements += (6 if model.gated else 4) * bq * f / t  # SwiGLU: gate and up read, one written; bias-GeLU 4
        cast_f += quantize_s(g, cal, bq, [h, f // t], (0,), split, dyn)
        cast_b += quantize_s(g, cal, bq, [n for n, _ in ffn], amax=dyn)
        if dyn:  # each weight cast in every forward: its amax (2), the cast (2 read, q written), the transpose (q)
            cast_f += quantize_s(g, cal, 1, [n * k for n, k in attention + ffn], amax=True)
        tp += _tp_all_reduces(sp, recompute)
        if recompute == "selective":  # the attention core: QKᵀ, softmax, dropout, AV
            re_gemm, re_mem = core_f, softmax
        elif recompute == "ops":  # every other linear layer's product (the attention's output kept)
            re_gemm = (fwd_gemm - core_f) / 2
    else:  # experts feed-forward
        e, k, ep = model.experts, model.active_experts, layout.ep
        tokens = b * s / t
        routed = experts.capacity_factor * tokens * k
        pairs = []  # AsyncTP over the experts' branch is not modelled: the block's products hide its collectives
        shared = model.shared_ff_size
        if shared:
            sh = [((2 if model.gated else 1) * shared // t, h), (h, shared // t)]
            sh_f, sh_b = _linear(sh, hw, cal, bq)
            fwd_gemm, bwd_gemm = fwd_gemm + sh_f, bwd_gemm + sh_b
            cast_f += quantize_s(g, cal, bq, [h, shared // t])
            cast_b += quantize_s(g, cal, bq, [n for n, _ in sh])
        rt = math.ceil(tokens)
        fwd_gemm += gemm_s(g, cal, rt, e, h)
        bwd_gemm += gemm_s(g, cal, rt, h, e) + gemm_s(g, cal, h, e, rt)
        local = max(1, e // ep)
        m_e = max(1, math.ceil(experts.capacity_factor * tokens * k * ep / e))
        exp_f, exp_b = _linear([(up, h), (h, f)], hw, cal, m_e, "experts")
        fwd_gemm, bwd_gemm = fwd_gemm + local * exp_f, bwd_gemm + local * exp_b
        act = (6 if model.gated else 4) * routed * f
        elements += 4 * b * s * (a + kv) * hd / t + act + 8 * routed * h + 4 * tokens * e  # rotary, act, permute
        cast_f += quantize_s(g, cal, routed, [h, f])
        cast_b += quantize_s(g, cal, routed, [up, h])
        a2a_bytes, a2a_count = experts.capacity_factor * tokens * k * h * BYTES, 4
        per_node = (e, k) if experts.dispatcher in PER_NODE_DISPATCHERS else None
        if recompute == "selective":  # the norms and the expert activation
            re_mem = memory_s(c, cal, (8 * tokens * h + act) * BYTES / 2)

    memory = memory_s(c, cal, elements * behaviour.elementwise_traffic * BYTES / 2) + softmax
    fwd_mem, bwd_mem = memory + cast_f, 2 * memory + cast_b
    if recompute == "full":
        re_gemm, re_mem = fwd_gemm, fwd_mem
    elif recompute == "alternate":
        re_gemm, re_mem = fwd_gemm / 2, fwd_mem / 2
    elif recompute == "ops":
        re_mem = fwd_mem
    if recompute in ("full", "alternate") and model.experts > 1:
        a2a_count += 2 if recompute == "full" else 1
    kv_ring = (cp - 1) * 2 * b * q * kv * hd // t * BYTES if cp > 1 else 0.0
    block = BlockWork(fwd_gemm, bwd_gemm, re_gemm, fwd_mem, bwd_mem, re_mem, core_f + softmax, tp, bq * h * BYTES,
                      kv_ring, a2a_bytes, a2a_count, per_node, tuple(pairs))
    vocab = model.vocab
    head_gemm = 3 * gemm_s(c, cal, bq, vocab // t, h) if vocab else 0.0
    head_memory = memory_s(c, cal, 8 * bq * vocab / t * behaviour.elementwise_traffic) if vocab else 0.0
    return StageWork(block, head_gemm, head_memory)


def update_work(hw: KernelHardware, cal: KernelCalibration, state_params: float, rank_params: float,
                update_bytes: float) -> tuple[float, float]:
    """(optimizer step, weight casts) of a rank: ``update_bytes`` per parameter of its ``state_params`` (its share
    of the optimizer states), and its ``rank_params`` weights cast once into the linear layers' format."""
    return (memory_s(hw.core, cal, state_params * update_bytes),
            quantize_s(hw.linear, cal, rank_params, [1]))
