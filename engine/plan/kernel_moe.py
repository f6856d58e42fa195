"""A mixture-of-experts transformer step in the kernel model (``engine.plan.kernel_model``'s GEMMs and
bandwidths), as Megatron-Core runs it: attention split t ways, the experts split ep ways with an
all-to-all token dispatcher (expert tensor parallelism 1, the NeMo/Megatron Bridge recipes' setting).

Per micro-batch of b sequences of s tokens, per block, on one rank (T = b·s/t tokens after sequence
parallelism, E experts, k routed per token, E/ep local experts, f the expert width, h hidden, H heads and
H_kv key/value heads of d_h):
- attention GEMMs: QKV (b·s × (H + 2·H_kv)·d_h/t × h), output (b·s × h × H·d_h/t); the core QKᵀ and AV as in
  the dense model (s × s per head as GEMMs, fused: no softmax traffic), on the 16-bit peak. A sliding-window
  layer (GPT-OSS alternates them, window W) sees W keys per query: FlashAttention's 128-key tiles, ⌈W/128⌉ + 1
  of them per query tile (Dao et al. 2022); attention sinks (GPT-OSS) add one logit per head and row: nothing
  measurable.
- router: T × E × h; top-k and softmax 4 bytes per T·E.
- experts: M_e = ⌈c · T·k·ep/E⌉ tokens per local expert (c: the busiest rank's load ÷ the mean; 1 with
  routing forced balanced, as NVIDIA's performance recipes do: ``moe_router_force_load_balancing``). Each
  local expert's FC1 (M_e × 2f × h, gated) and FC2 (M_e × h × f) is its own GEMM with its own wave
  quantization — Transformer Engine's GroupedLinear loops over the experts' GEMMs — and backward its data
  and weight gradients (K = M_e: small experts give short, wave-bound GEMMs).
- memory-bound (bytes per element in 16 bits, forward; backward 2×): norms and residuals 22 per T·h,
  rotary embedding 4 per query/key value, the gated activation 6 per c·T·k·f (4 ungated), token permutation
  and un-permutation 8 per c·T·k·h, router 4 per T·E; ``recompute="selective"`` runs the norms and the expert
  activation once more (Megatron's ``recompute_modules=["layernorm", "moe_act"]``);
  ``"full"`` the block's forward GEMMs, memory-bound work and its two all-to-alls again.
- casts into a format below 16 bits (``kernel_model.quantize_s``): attention's inputs (QKV's from its norm),
  the shared and routed experts' inputs (c·T·k × h into FC1, × f into FC2) forward, every linear layer's
  output gradient backward, the weights once a step.
- all-to-all: dispatch and combine each move c·T·k·h·2 bytes × (ep − 1)/ep forward and the same backward
  (the backward of one is the other), over NVLink for the peers inside the node and the scale-out link for
  the others, the slower of the two. The expert-parallel group is ep consecutive ranks whatever t is:
  Megatron-Core builds the expert groups apart from the attention groups ("MoE parallel folding"), ranks
  ordered tp-cp-ep-dp-pp with tp = the expert tensor-parallel size, 1 here (megatron/core/parallel_state.py,
  ``RankGenerator`` for ``expert_decoder_rank_generator``), so min(ep, chips per node) of the group share a
  node. ``overlap_a2a`` hides it behind another micro-batch's GEMMs (Megatron's ``moe_a2a_overlap``), only
  the excess exposed.
- tensor parallelism (t > 1, sequence parallel): attention's all-gather + reduce-scatter forward, the same
  and one more gather backward (2.5 all-reduces of b·s·h·2 bytes); the experts need none.
- pipeline, logits, bubble and sends as in the dense model; gradients: the dense parameters reduced over d,
  the experts' over t·d/ep (expert data parallel), each through the NICs of its members in a node at once
  (``dp_gb_s``), overlapped with the last micro-batch's backward (``overlap_grad_reduce``, on in the recipes);
  the optimizer step 34 bytes per parameter of the rank's shard (distributed optimizer).
- dispatcher: NCCL's all-to-all sends one copy of a token per remote expert; Megatron-Core's flex dispatcher
  (DeepEP, HybridEP) sends it once to each other node it needs (``all_to_all_s``, ``remote_nodes_per_token``).
The attention core is timed as the dense model times it (``gemm_s`` of the s × s products, the validated
convention). Not modelled: the dispatcher's host synchronisation and kernel-launch gaps (the recipes
capture the router and dispatcher in CUDA graphs on newer chips for this reason), a capacity
factor that drops tokens.
"""
from __future__ import annotations

import math

from engine.plan.kernel_model import (
    BYTES,
    ETA_MEMORY,
    ETA_NETWORK,
    OPTIMIZER_BYTES_PER_PARAM,
    KernelChip,
    KernelStep,
    dp_gb_s,
    framework_overlaps_pp,
    gemm_s,
    kernel_chip,
    kernel_chip_for,
    pipeline_sends_s,
    quantize_s,
)

FLASH_TILE = 128
"""Keys per FlashAttention tile (Dao et al. 2022; FlashAttention-2's 128-wide blocks)."""


def window_keys(s: int, window: int) -> int:
    """Keys a query tile reads with a sliding window of ``window`` positions: ⌈W/128⌉ + 1 tiles, at most s."""
    return s if not window else min(s, (math.ceil(window / FLASH_TILE) + 1) * FLASH_TILE)


def _core(chip: KernelChip, s: int, keys: int, head_dim: int, batch: int) -> tuple[float, float]:
    """(forward, backward) of QKᵀ and AV over ``keys`` keys per query, ``batch`` heads × sequences."""
    fwd = gemm_s(chip, s, keys, head_dim, batch) + gemm_s(chip, s, head_dim, keys, batch)
    bwd = 3 * gemm_s(chip, s, head_dim, keys, batch) + gemm_s(chip, s, keys, head_dim, batch)
    return fwd, bwd


PER_NODE_DISPATCHERS = frozenset({"flex"})
"""Megatron-Core's flex dispatcher (DeepEP or HybridEP backend) sends a token once per node (``all_to_all_s``)."""


def remote_nodes_per_token(experts: int, top_k: int, ep: int, in_node: int) -> float:
    """Expected number of other nodes a token's top-k experts (uniform, distinct) fall on: each of the
    ⌈ep/in_node⌉ − 1 other nodes holds E·in_node/ep experts and is hit unless all k picks miss it,
    1 − C(E − E_node, k)/C(E, k)."""
    nodes = math.ceil(ep / in_node)
    on_node = experts * in_node // ep
    miss = math.comb(experts - on_node, top_k) / math.comb(experts, top_k) if experts - on_node >= top_k else 0.0
    return (nodes - 1) * (1 - miss)


def all_to_all_s(nbytes: float, ep: int, stride: int, intra_gb_s: float, inter_gb_s: float,
                 chips_per_node: int, per_node: tuple[int, int] | None = None) -> float:
    """One all-to-all of ``nbytes`` per rank over ep ranks spaced ``stride`` apart (the expert
    tensor-parallel size: 1 in the expert groups Megatron-Core builds with expert tensor parallelism 1): the
    in-node share on NVLink, the rest on the scale-out link, whichever takes longer. ``per_node`` = (E, k):
    DeepEP's and HybridEP's dispatchers send a token once to each other node it needs and fan it out there
    over NVLink (DeepEP's normal kernels; Hybrid-EP's RDMA buffer holds tokens × (nodes − 1) × hidden,
    DeepEP docs/Hybrid-EP_Implementation.md §4.2): the scale-out bytes are ``nbytes``/k × the expected other
    nodes per token (``remote_nodes_per_token``) instead of one copy per remote expert."""
    if ep <= 1:
        return 0.0
    in_node = max(1, min(ep, chips_per_node // stride))
    near = (in_node - 1) / ep * nbytes / (intra_gb_s * 1e9 * ETA_NETWORK)
    far_bytes = (ep - in_node) / ep * nbytes
    if per_node is not None:
        experts, top_k = per_node
        far_bytes = nbytes / top_k * remote_nodes_per_token(experts, top_k, ep, in_node)
    return max(near, far_bytes / (inter_gb_s * 1e9 * ETA_NETWORK))


def moe_step_s(chip: KernelChip, *, layers: int, h: int, heads: int, kv_heads: int, head_dim: int, s: int, vocab: int,
               dense_params: float, expert_params: float, experts: int, top_k: int, f: int, p: int, d: int, ep: int,
               b: int, global_batch: int, v: int = 1, t: int = 1, intra_gb_s: float = 450, inter_gb_s: float = 50,
               chips_per_node: int = 8, gated: bool = True, window: int = 0, windowed_layers: int = 0,
               shared_f: int = 0, recompute: str = "none", overlap_a2a: bool = False,
               imbalance: float = 1.0, gemm_chip: KernelChip | None = None, overlap_pp: bool = False,
               dispatcher: str = "alltoall") -> dict:
    """One step's seconds by part (``step_s`` their sum) for a mixture-of-experts transformer (see the
    module's formulas)."""
    g = gemm_chip or chip
    m = global_batch // (d * b)
    bs = b * s
    tokens = bs / t  # per rank in the expert layer (sequence parallel)
    w = chip.memory_bandwidth * ETA_MEMORY
    linear = [((heads + 2 * kv_heads) * head_dim // t, h), (h, heads * head_dim // t)]
    if shared_f:
        linear += [((2 if gated else 1) * shared_f // t, h), (h, shared_f // t)]
    fwd = sum(gemm_s(g, bs, n, k) for n, k in linear)
    bwd = sum(gemm_s(g, bs, k, n) + gemm_s(g, k, n, bs) for n, k in linear)
    full_f, full_b = _core(chip, s, s, head_dim, b * heads // t)
    win_f, win_b = _core(chip, s, window_keys(s, window), head_dim, b * heads // t)
    share = min(windowed_layers, layers) / layers if layers else 0.0
    fwd += (1 - share) * full_f + share * win_f
    bwd += (1 - share) * full_b + share * win_b
    rt = math.ceil(tokens)
    fwd += gemm_s(g, rt, experts, h)
    bwd += gemm_s(g, rt, h, experts) + gemm_s(g, h, experts, rt)
    local = max(1, experts // ep)
    m_e = max(1, math.ceil(imbalance * tokens * top_k * ep / experts))
    up = (2 if gated else 1) * f
    fwd += local * (gemm_s(g, m_e, up, h) + gemm_s(g, m_e, h, f))
    bwd += local * (gemm_s(g, m_e, h, up) + gemm_s(g, h, up, m_e) + gemm_s(g, m_e, f, h) + gemm_s(g, f, h, m_e))
    act = (6 if gated else 4) * imbalance * tokens * top_k * f
    norms = 22 * tokens * h
    memory = (norms + 4 * bs * (heads + kv_heads) * head_dim / t + act + 8 * imbalance * tokens * top_k * h
              + 4 * tokens * experts) * BYTES / 2 / w
    # casts into the linear layers' format (``quantize_s``): attention's inputs (QKV's from its norm) and the
    # shared and routed experts' inputs forward, every linear layer's output gradient backward
    routed = imbalance * tokens * top_k
    cast_f = (quantize_s(g, bs, [k for _, k in linear], (0,), t)
              + quantize_s(g, routed, [h, f]))
    cast_b = quantize_s(g, bs, [n for n, _ in linear]) + quantize_s(g, routed, [up, h])
    fwd_mem, bwd_mem = memory + cast_f, 2 * memory + cast_b  # one block's memory-bound work, casts included
    one_a2a = imbalance * all_to_all_s(tokens * top_k * h * BYTES, ep, 1, intra_gb_s, inter_gb_s, chips_per_node,
                                       (experts, top_k) if dispatcher in PER_NODE_DISPATCHERS else None)
    a2a = 4 * one_a2a
    if recompute == "full":  # the block's forward again, its dispatch and combine included
        re_gemm, re_mem = fwd, fwd_mem
        a2a += 2 * one_a2a
    elif recompute == "selective":  # the norms and the expert activation (Megatron's recompute_modules)
        re_gemm, re_mem = 0.0, (8 * tokens * h + act) * BYTES / 2 / w
    else:
        re_gemm = re_mem = 0.0
    if overlap_a2a:
        a2a = max(0.0, a2a - (fwd + bwd + re_gemm))
    reduce = 2 * (t - 1) / t * bs * h * BYTES / (intra_gb_s * 1e9 * ETA_NETWORK) if t > 1 else 0.0
    tp = 2.5 * reduce
    blocks = layers / p
    logits = gemm_s(chip, bs, vocab // t, h) * 3 + 8 * bs * vocab / t / w if vocab else 0.0
    per_block = fwd + bwd + re_gemm + fwd_mem + bwd_mem + re_mem + a2a + tp
    stage = blocks * per_block + logits
    net = inter_gb_s * 1e9 * ETA_NETWORK
    d_e = max(1, t * d // ep)
    dense_chip, expert_chip = dense_params / (t * p), expert_params / (p * ep)
    # dense gradients over d ranks spaced t apart, the experts' over d_e ranks spaced ep apart (MoE parallel
    # folding), each through the NICs of the group's members in a node at once (``dp_gb_s``)
    dense_net = dp_gb_s(t, d, intra_gb_s, inter_gb_s, chips_per_node) * 1e9 * ETA_NETWORK
    expert_net = dp_gb_s(ep, d_e, intra_gb_s, inter_gb_s, chips_per_node) * 1e9 * ETA_NETWORK
    dp = ((2 * (d - 1) / d * dense_chip * BYTES / dense_net if d > 1 else 0.0)
          + (2 * (d_e - 1) / d_e * expert_chip * BYTES / expert_net if d_e > 1 else 0.0))
    dp = max(0.0, dp - blocks * (bwd + bwd_mem))  # overlapped with the last micro-batch's backward
    parts = {
        "gemm_s": m * (blocks * (fwd + bwd + re_gemm) + logits) - m * 8 * bs * vocab / t / w,
        "memory_bound_s": (m * blocks * (fwd_mem + bwd_mem + re_mem) + m * 8 * bs * vocab / t / w
                           + quantize_s(g, dense_chip + expert_chip, [1])),
        "all_to_all_s": m * blocks * a2a,
        "tp_comm_s": m * blocks * tp,
        "bubble_s": (p - 1) / v * stage,
        "pp_comm_s": pipeline_sends_s(bs * h * BYTES / t / net, v, m, blocks * (fwd + fwd_mem),
                                      blocks * (bwd + bwd_mem + re_gemm + re_mem), overlap_pp) if p > 1 else 0.0,
        "dp_comm_s": dp,
        "optimizer_s": (dense_chip / d + expert_chip / d_e) * OPTIMIZER_BYTES_PER_PARAM / w,
    }
    parts["step_s"] = sum(parts.values())
    return parts


def moe_kernel_step_for(model, layout, options, chip_id: str, link, capacity_factor: float = 1.0,
                        dispatcher: str = "alltoall", overlap_a2a: bool = False) -> KernelStep | None:
    """``moe_step_s`` for a plan of a mixture of experts (a ``PlanModel`` on a ``Layout``) as a ``KernelStep``,
    or None where the kernel model does not apply (``kernel_chip_for``; a dense model; context parallelism):
    routing balanced unless ``capacity_factor`` > 1 (the busiest rank's load ÷ the mean), the dispatch by
    ``dispatcher`` ("alltoall" or "flex": once per node), hidden behind another micro-batch's compute with
    ``overlap_a2a``; selective recomputation is the norms and the expert
    activation (the MoE recipes' ``recompute_modules``), full the block's forward."""
    chip = kernel_chip_for(model, layout, options, chip_id)
    if chip is None or model.experts <= 1 or getattr(layout, "cp", 1) > 1 or options.zero > 1:
        return None  # ZeRO 2–3's gathers are modelled for dense blocks only (``kernel_model.kernel_step``)
    gemm_chip = kernel_chip(chip_id, options.precision) if options.precision not in ("bf16", "fp16") else None
    heads = model.heads
    parts = moe_step_s(chip, layers=model.blocks, h=model.d_model, heads=heads, kv_heads=model.kv_heads or heads,
                       head_dim=model.attention_width // heads, s=model.seq_len, vocab=model.vocab,
                       dense_params=model.dense_params, expert_params=model.expert_params, experts=model.experts,
                       top_k=model.active_experts, f=model.ff_size or 4 * model.d_model, p=layout.pp, d=layout.dp,
                       ep=layout.ep, b=layout.micro_batch, global_batch=layout.global_batch,
                       v=layout.virtual_stages, t=layout.tp, intra_gb_s=link.intra_gb_s,
                       inter_gb_s=link.inter_gb_s or link.intra_gb_s, chips_per_node=link.chips_per_node,
                       gated=model.gated, window=model.window, windowed_layers=model.windowed_blocks,
                       shared_f=model.shared_ff_size, imbalance=capacity_factor, recompute=options.recompute,
                       gemm_chip=gemm_chip, overlap_pp=framework_overlaps_pp(options.convention, chip_id),
                       dispatcher=dispatcher, overlap_a2a=overlap_a2a)
    return KernelStep(gemm_s=parts["gemm_s"], memory_bound_s=parts["memory_bound_s"], tp_comm_s=parts["tp_comm_s"],
                      bubble_s=parts["bubble_s"], pp_comm_s=parts["pp_comm_s"], dp_comm_s=parts["dp_comm_s"],
                      optimizer_s=parts["optimizer_s"], model_flop=3 * model.forward_flop * layout.global_batch,
                      chips=layout.chips, peak=(gemm_chip or chip).peak, ep_comm_s=parts["all_to_all_s"])
