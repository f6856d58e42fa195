"""A mixture-of-experts block in the kernel model (``engine.plan.kernel_model``'s GEMMs and bandwidths), for
the published MoE run it is checked on; plans of MoE models still use the constant-efficiency model.

Per micro-batch of b sequences of s tokens on a rank (t = 1, fused attention), per block:
- attention: QKV (bs × (H + 2·H_kv)·d_h × h), output (bs × h × H·d_h), QKᵀ and AV (b·H batches);
- router: bs × E × h; experts, routing balanced (the published benchmarks force it): each of the E/ep local
  experts gets M_e = bs·k·ep/E tokens (k routed per token, from the ep ranks of its group): FC1
  (M_e × 2f × h, gated) and FC2 (M_e × h × f) as batched GEMMs; backward their data and weight gradients;
- memory-bound: norms and residuals 22 bytes per bsh, the gated activation 4 per bs·k·f, the token
  permutation (dispatch and combine, read and write) 8 per bs·k·h; backward 2×;
- all-to-all: dispatch and combine move bs·k·h·2 bytes × (ep − 1)/ep each, forward, and twice that backward,
  over NVLink when ep ≤ 8, not overlapped (Megatron-Core's default);
- gradients: the dense parameters all-reduced over d, the experts' over d/ep (expert data parallel).
Not modelled: sliding-window attention (counted as full), attention sinks, grouped-GEMM and permutation
kernel overheads, load imbalance.
"""
from __future__ import annotations

from engine.plan.kernel_model import (
    BYTES,
    ETA_MEMORY,
    ETA_NETWORK,
    OPTIMIZER_BYTES_PER_PARAM,
    KernelChip,
    gemm_s,
)


def moe_step_s(chip: KernelChip, *, layers: int, h: int, heads: int, kv_heads: int, head_dim: int, s: int, vocab: int,
               dense_params: float, expert_params: float, experts: int, top_k: int, f: int, p: int, d: int, ep: int,
               b: int, global_batch: int, v: int = 1, intra_gb_s: float = 450, inter_gb_s: float = 50,
               chips_per_node: int = 8) -> dict:
    """One step's seconds by part (``step_s`` their sum) for a gated-expert MoE transformer at t = 1."""
    m = global_batch // (d * b)
    bs = b * s
    w = chip.memory_bandwidth * ETA_MEMORY
    linear = [((heads + 2 * kv_heads) * head_dim, h), (h, heads * head_dim)]
    fwd = sum(gemm_s(chip, bs, n, k) for n, k in linear)
    fwd += gemm_s(chip, s, s, head_dim, b * heads) + gemm_s(chip, s, head_dim, s, b * heads)
    bwd = sum(gemm_s(chip, bs, k, n) + gemm_s(chip, k, n, bs) for n, k in linear)
    bwd += 3 * gemm_s(chip, s, head_dim, s, b * heads) + gemm_s(chip, s, s, head_dim, b * heads)
    fwd += gemm_s(chip, bs, experts, h)
    bwd += gemm_s(chip, bs, h, experts) + gemm_s(chip, h, experts, bs)
    m_e, local = bs * top_k * ep // experts, experts // ep
    fwd += gemm_s(chip, m_e, 2 * f, h, local) + gemm_s(chip, m_e, h, f, local)
    bwd += (gemm_s(chip, m_e, h, 2 * f, local) + gemm_s(chip, h, 2 * f, m_e, local)
            + gemm_s(chip, m_e, f, h, local) + gemm_s(chip, f, h, m_e, local))
    memory = (22 * bs * h + 4 * bs * top_k * f + 8 * bs * top_k * h) * BYTES / 2 / w
    link = (intra_gb_s if ep <= chips_per_node else inter_gb_s) * 1e9 * ETA_NETWORK
    all_to_all = 2 * bs * top_k * h * BYTES * (ep - 1) / ep / link
    blocks = layers / p
    logits = gemm_s(chip, bs, vocab, h) * 3 + 8 * bs * vocab / w if vocab else 0.0
    stage = blocks * (fwd + bwd + 3 * memory + 3 * all_to_all) + logits
    net = inter_gb_s * 1e9 * ETA_NETWORK
    d_e = d // ep
    parts = {
        "gemm_s": m * (blocks * (fwd + bwd) + logits) - m * 8 * bs * vocab / w,
        "memory_bound_s": m * blocks * 3 * memory + m * 8 * bs * vocab / w,
        "all_to_all_s": m * blocks * 3 * all_to_all,
        "bubble_s": (p - 1) / v * stage,
        "pp_comm_s": 2 * v * m * bs * h * BYTES / net if p > 1 else 0.0,
        "dp_comm_s": (2 * (d - 1) / d * dense_params / p * BYTES / net if d > 1 else 0.0)
        + (2 * (d_e - 1) / d_e * expert_params / (p * ep) * BYTES / net if d_e > 1 else 0.0),
        "optimizer_s": (dense_params / p + expert_params / (p * ep)) * OPTIMIZER_BYTES_PER_PARAM / w,
    }
    parts["step_s"] = sum(parts.values())
    return parts
