"""A transformer training step from its kernels: every GEMM by its shape, the memory-bound operations at the
chip's bandwidth, the tensor-parallel collectives, the pipeline schedule and the optimizer step.

Per micro-batch of b sequences of s tokens, per block, on a rank holding 1/t of each layer (h hidden, a heads
of size d = h/a, f = 4h feed-forward; Megatron-LM's layer, Narayanan et al. 2021 §3):

- GEMMs (M × N × K, batch): QKV (bs × (H + 2·H_kv)·d/t × h; 3h/t with multi-head attention), QKᵀ (s × s × d, b·a/t), AV (s × d × s, b·a/t), projection
  (bs × h × h/t), FC1 (bs × f/t × h; 2f/t gated: gate and up), FC2 (bs × h × f/t); backward: the data and weight gradients of each
  (2× the forward). One GEMM takes max(2MNK / (P·η(M, N)), bytes / W): η(M, N) = η_max × tiles / (waves ×
  SMs), the wave quantization of 128 × 128 output tiles over the chip's multiprocessors (NVIDIA, "Matrix
  Multiplication Background User's Guide", §"Wave quantization"); bytes = 2(MK + KN + MN).
- Memory-bound operations at W = η_mem × memory bandwidth (bytes per element, forward; backward 2×): layer
  norms 4 per bsh (two), fused scale-mask-softmax 4 and attention dropout 5 per score (b·a/t·s²), bias-dropout-
  residual 7 per bsh (two), bias-GeLU 4 per bs·f/t; the norms, dropouts and residuals are split t ways with
  sequence parallelism (Korthikanti et al. 2022 §4.2.2), replicated without.
- Casts (a format below 16 bits, ``quantize_s``): each linear layer's input forward and output gradient
  backward, 2 + 2q bytes per element (read once, written row- and column-major), QKV's and FC1's inputs
  written by the norm in the format and transposed, 2q − (2 − q)/t; the weights once a step.
- Recomputation: full runs each block's forward again; selective runs QKᵀ, softmax, dropout and AV again.
- Tensor parallelism: per block 2 all-reduces of bsh·2 bytes forward and 2 backward (2 more with full
  recomputation) — with sequence parallelism each becomes an all-gather + reduce-scatter (the same bytes),
  and the backward gathers its input once more (Korthikanti §4.2.2) — each 2(t−1)/t × bytes / (η_net × link)
  for an all-reduce, half that for a gather or a scatter, not overlapped.
- Logits on the last stage: bs × V/t × h forward and 2× backward, cross-entropy 8 bytes per logit.
- Pipeline (1F1B, v interleaved chunks): step = (m + (p − 1)/v) × T_stage, T_stage the slowest stage's time
  per micro-batch (its L/p blocks, with the logits on the last); p2p sends of bsh·2/t bytes (scatter-gather)
  between nodes, 2·v per micro-batch, overlapped with the next chunk's compute under the interleaved schedule
  where the framework does so by default (``pipeline_sends_s``).
- Data parallelism: the 16-bit gradients' ring all-reduce over d (NVLink when the group's t·cp·d ranks fit in
  a node, else the scale-out link of each of the node's members at once — ``dp_gb_s``), not overlapped
  (Megatron-LM 2021–22); the optimizer step reads and writes
  34 bytes per parameter (Adam: FP32 master, m, v, gradient, the 16-bit copy, the gradient-norm read) at W, on
  1/(d·cp) of them from ZeRO 1.
- ZeRO 2: a reduce-scatter in every micro-batch's backward and one gather of the weights after the step;
  ZeRO 3: per micro-batch a gather in the forward, another in the backward and a reduce-scatter (one each:
  G = (n−1)/n × 2 bytes × parameters per rank / link), prefetched layer by layer under compute: exposed
  max(0, G − T_fwd) + max(0, 2G − T_bwd) + 2G/L (Rajbhandari et al. 2020, §7.2.2: 1.5× an all-reduce's bytes).

- Other chips and formats (``kernel_step_for``): the chip's dense peak for the format (FP8/FP6/FP4 for the
  linear layers, at the format's measured rate where there is one: ``MEASURED_FORMAT_RATE``; attention's
  products and the logits 16-bit), memory bandwidth and links; fused attention on every chip after the A100
  (FlashAttention: no softmax traffic over the scores; QKᵀ and AV stay GEMMs with their score bytes, a
  convention 1.5–2.9× slower than the fused kernel measured, which long-context runs show: docs/plan.md); the
  DP reduction overlaps the last micro-batch's backward (exposed: max(0, DP − backward of one micro-batch's stage)) where the convention's
  framework does by default. Checked, not fitted, on NVIDIA's NeMo / Megatron Bridge runs
  (``engine.plan.validation_h100``, ``engine.plan.validation_chips``).
- Context parallelism (cp): per rank b·s/cp tokens in the linear layers and memory-bound work, (s/cp) × s
  attention scores; the K/V ring (cp − 1 chunks forward, K, V, dK, dV backward) exposed only beyond the
  attention it overlaps with; gradients reduced over d·cp ranks (Megatron-Core context parallelism).

η_mem and η_net are physical ceilings from sources: streaming kernels reach about 85% of the HBM bandwidth;
NCCL's all-reduce bus bandwidth on DGX A100 NVLink is about 230 of 300 GB/s (nccl-tests). η_max, the one
number calibrated, is 0.74: the value on a 0.02 grid from 0.70 to 0.86 with the smallest median error on the
CALIBRATION runs only (Narayanan et al. 2021, Table 1: ten GPT models 1.7B–1T on A100s), below the best-shape
maximum achievable matmul rate (about 86% of the A100's peak) because it also absorbs what the model does
not list (launch gaps, unfused small kernels). The VALIDATION runs (Korthikanti et al. 2022, Table 5: 22B,
175B, 530B, 1T, full and selective recomputation) played no part in it (``engine.plan.validation``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine.results import Result

ETA_GEMM = 0.74
"""Calibrated on Narayanan et al. 2021 Table 1 only (see the module's docstring)."""
ETA_MEMORY = 0.85
ETA_NETWORK = 0.75
TILE_M, TILE_N = 256, 128
OPTIMIZER_BYTES_PER_PARAM = 34
BYTES = 2  # 16-bit activations and weights


@dataclass(frozen=True, slots=True)
class KernelChip(Result):
    """What the kernel model needs of a chip: dense 16-bit peak, memory bandwidth, multiprocessors."""

    peak: float
    memory_bandwidth: float
    sms: int
    rate: float = 1.0
    """The format's measured GEMM rate relative to η_max × ``peak`` (``MEASURED_FORMAT_RATE``); 1 elsewhere."""
    quantized_bytes: float = 0.0
    """q, bytes per element of an operand quantized into the format (``FORMAT_BYTES``); 0: 16-bit, no cast."""


A100 = KernelChip(312e12, 2039e9, 108)
H100 = KernelChip(989.4e12, 3350e9, 132)
MULTIPROCESSORS = {
    "nvidia-a100-sxm4-80gb": (108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs"),
    "nvidia-a100-sxm4-40gb": (108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs"),
    "nvidia-h100-sxm": (132, "NVIDIA H100 Tensor Core GPU Architecture whitepaper: 132 SMs (SXM5)"),
    "nvidia-h200-sxm": (132, "the H100 SXM's GH100 with HBM3e (NVIDIA H200 page): 132 SMs"),
    "nvidia-b200": (148, "Chips and Cheese, 'Nvidia's B200: Keeping the CUDA Juggernaut Rolling' (2025): 2 dies × 74 "
                         "enabled SMs = 148"),
    "nvidia-gb200": (148, "the B200's Blackwell GPU (Chips and Cheese, 2025): 148 SMs"),
    "nvidia-b300": (160, "NVIDIA, 'Inside NVIDIA Blackwell Ultra' (2025): 160 SMs"),
    "nvidia-gb300": (160, "NVIDIA, 'Inside NVIDIA Blackwell Ultra' (2025): 160 SMs"),
    "amd-instinct-mi300x": (304, "AMD Instinct MI300X data sheet: 304 compute units"),
    "amd-instinct-mi325x": (304, "AMD Instinct MI325X data sheet: 304 compute units"),
    "amd-instinct-mi355x": (256, "AMD Instinct MI355X brochure: 256 compute units"),
}
"""Multiprocessors (SMs, or AMD compute units) per chip; peaks and memory bandwidth come from the hardware
database (dense, per format), the links from ``interconnects.json``."""
MEGATRON_2022_CHIPS = frozenset({"nvidia-a100-sxm4-80gb", "nvidia-a100-sxm4-40gb"})
"""Chips whose plans keep Megatron-LM 2021–22's kernels (unfused softmax, no overlap of the gradient
reduction): the measured A100 runs the model was calibrated and validated on. Every later chip takes the fused
attention the frameworks measured on it use (cuDNN / FlashAttention through Transformer Engine or PyTorch's
scaled_dot_product_attention)."""
GEMM_FORMATS = {"bf16": "bf16_tensor", "fp16": "fp16_tensor", "fp8": "fp8_tensor", "fp6": "fp6_tensor",
                "fp4": "fp4_tensor"}
"""The plan's format → the hardware database's dense tensor peak its linear layers run at. Attention's
products and the logits stay 16-bit (Transformer Engine quantizes the linear layers only; its default keeps
dot-product attention in BF16)."""


MEASURED_FORMAT_RATE = {("nvidia-h100-sxm", "fp8"): 0.89, ("nvidia-h200-sxm", "fp8"): 0.89}
"""GEMM rate of a format relative to η_max × its dense peak, where it was measured: FP8 on Hopper, 0.89 — the
median of model ÷ measured time over seven Llama 3 linear layers (b·s = 16,384) on one H200, cuBLAS E4M3
through ``torch._scaled_mm``: 60–66% of the FP8 peak, 1.72–1.98× BF16, where BF16 matches η_max
(``tools/gpu_format_gemms.py``, docs/plan.md). The H100 SXM has the H200's SMs, clocks and power limit."""


FORMAT_BYTES = {"fp8": 1.0, "fp6": 0.75 + 1 / 32, "fp4": 0.5 + 1 / 16}
"""q, bytes per element of a linear layer's operand quantized into the format, its scales included: FP8 one
(a scale per tensor); MXFP6 six bits and an 8-bit scale per 32 elements (OCP Microscaling Formats v1.0); NVFP4
four bits and an FP8 scale per 16 elements (NVIDIA, "Introducing NVFP4", 2025)."""


def quantize_s(chip: KernelChip, rows: float, widths: list[int], norm_fed: tuple[int, ...] = (),
               split: int = 1) -> float:
    """Casting ``rows`` × each of ``widths`` 16-bit operands into the linear layers' format (``chip`` the GEMM
    chip; 0 when it is 16-bit), as Transformer Engine does with delayed scaling (the amax taken in the same
    pass): a cast-transpose reads 2 bytes per element and writes the row- and column-major copies the GEMMs
    need (Hopper's FP8 GEMMs take only the TN layout), 2 + 2q. An input a norm writes (``norm_fed``: QKV and
    FC1, TE's LayerNormLinear) leaves the norm in the format, q bytes where 2 were, on 1/``split`` of the rows
    under sequence parallelism, and is transposed for the weight gradient (q read, q written):
    2q − (2 − q)/split, at least 0."""
    q = chip.quantized_bytes
    if not q:
        return 0.0
    per = [max(0.0, 2 * q - (2 - q) / split) if i in norm_fed else 2 + 2 * q for i in range(len(widths))]
    return rows * sum(c * w for c, w in zip(per, widths)) / (chip.memory_bandwidth * ETA_MEMORY)


def kernel_chip(chip_id: str, precision: str = "bf16") -> KernelChip | None:
    """The chip's peak for ``precision``, memory bandwidth and multiprocessors, or None where a figure is
    missing."""
    from engine.method2.hardware_db import load_hardware_db

    sms = MULTIPROCESSORS.get(chip_id)
    chip = load_hardware_db().find(chip_id) if sms else None
    peak = chip.peaks.get(GEMM_FORMATS.get(precision, "")) if chip is not None else None
    if chip is None or not peak or not chip.memory_bandwidth_gb_s:
        return None
    return KernelChip(peak, chip.memory_bandwidth_gb_s * 1e9, sms[0],
                      MEASURED_FORMAT_RATE.get((chip_id, precision), 1.0), FORMAT_BYTES.get(precision, 0.0))


def gemm_s(chip: KernelChip, m: int, n: int, k: int, batch: int = 1) -> float:
    """One (batched) GEMM: max(compute at the wave-quantized efficiency, bytes at the memory bandwidth)."""
    tiles = math.ceil(m / TILE_M) * math.ceil(n / TILE_N) * batch
    waves = math.ceil(tiles / chip.sms)
    eta = ETA_GEMM * chip.rate * tiles / (waves * chip.sms)
    compute = 2 * m * n * k * batch / (chip.peak * eta)
    memory = BYTES * (m * k + k * n + m * n) * batch / (chip.memory_bandwidth * ETA_MEMORY)
    return max(compute, memory)


@dataclass(frozen=True, slots=True)
class KernelStep(Result):
    """One step's time by parts (seconds) and the model FLOP it does."""

    gemm_s: float
    memory_bound_s: float
    tp_comm_s: float
    bubble_s: float
    pp_comm_s: float
    dp_comm_s: float
    optimizer_s: float
    model_flop: float
    chips: int
    peak: float
    cp_comm_s: float = 0.0
    """Context parallelism's key/value ring exchange, where attention does not hide it."""
    ep_comm_s: float = 0.0
    """Expert parallelism's dispatch and combine all-to-all (``engine.plan.kernel_moe``)."""

    @property
    def step_s(self) -> float:
        return (self.gemm_s + self.memory_bound_s + self.tp_comm_s + self.bubble_s + self.pp_comm_s
                + self.dp_comm_s + self.optimizer_s + self.cp_comm_s + self.ep_comm_s)

    @property
    def mfu(self) -> float:
        return self.model_flop / (self.step_s * self.chips * self.peak)


def _weights(h: int, a: int, f: int, t: int, kv: int, gated: bool) -> list[tuple[int, int]]:
    """(N, K) of the block's weight GEMMs per rank: QKV (H + 2·H_kv heads), output, FC1 (gate + up when
    gated), FC2."""
    hd = h // a
    return [((a + 2 * kv) * hd // t, h), (h, a * hd // t), ((2 if gated else 1) * f // t, h), (h, f // t)]


def _block_forward(chip: KernelChip, b: int, s: int, h: int, a: int, f: int, t: int, sp: bool, kv: int = 0,
                   gated: bool = False, fused_attention: bool = False, q: int = 0,
                   core_chip: KernelChip | None = None) -> tuple[float, float, float]:
    """(GEMM s, memory-bound s, attention-core s — GEMMs and softmax/dropout) of one block's forward; q query
    rows per rank (s/cp with context parallelism, else s); the attention products on ``core_chip`` (16-bit)
    when the linear layers run in another format."""
    q = q or s
    bs, hd, heads = b * q, h // a, b * a // t
    c = core_chip or chip
    core = gemm_s(c, q, s, hd, heads) + gemm_s(c, q, hd, s, heads)
    gemms = sum(gemm_s(chip, bs, n, k) for n, k in _weights(h, a, f, t, kv or a, gated)) + core
    w = chip.memory_bandwidth * ETA_MEMORY
    split = t if sp else 1
    scores = heads * q * s
    # bytes per element counted for 16-bit values; a fused attention kernel (FlashAttention, Dao et al. 2022)
    # keeps the scores on chip: no softmax traffic (QKᵀ and AV keep their GEMM bytes: the checked convention)
    softmax = 0.0 if fused_attention else (4 + 5) * scores * BYTES / 2 / w
    memory = ((2 * 4 + 2 * 7) * bs * h / split + 4 * bs * f / t) * BYTES / 2 / w + softmax
    return gemms, memory, core + softmax


def _weight_backward(chip: KernelChip, b: int, s: int, h: int, a: int, f: int, t: int, kv: int = 0,
                     gated: bool = False, q: int = 0, core_chip: KernelChip | None = None) -> float:
    """Data and weight gradients of the block's GEMMs (the transposed shapes)."""
    q = q or s
    bs, hd, heads = b * q, h // a, b * a // t
    c = core_chip or chip
    total = 0.0
    for n, k in _weights(h, a, f, t, kv or a, gated):
        total += gemm_s(chip, bs, k, n) + gemm_s(chip, k, n, bs)
    total += 2 * gemm_s(c, q, hd, s, heads) + gemm_s(c, q, s, hd, heads) + gemm_s(c, q, hd, s, heads)
    return total


def kernel_step(chip: KernelChip, *, layers: int, h: int, a: int, s: int, vocab: int, params: float, t: int, p: int,
                d: int, b: int, global_batch: int, v: int = 1, recompute: str = "full", sp: bool = False,
                intra_gb_s: float = 300, inter_gb_s: float = 25, chips_per_node: int = 8,
                f: int | None = None, kv_heads: int = 0, gated: bool = False,
                model_flop: float | None = None, fused_attention: bool = False, overlap_dp: bool = False,
                gemm_chip: KernelChip | None = None, cp: int = 1, zero: int = 0,
                core_chip: KernelChip | None = None, overlap_pp: bool = False) -> KernelStep:
    """One training step of a GPT-style model (see the module's formulas)."""
    f = f or 4 * h
    m = global_batch // (d * b)
    g = gemm_chip or chip
    q = s // cp
    fwd_gemm, fwd_mem, core = _block_forward(g, b, s, h, a, f, t, sp, kv_heads, gated, fused_attention, q,
                                             core_chip)
    bwd_gemm = _weight_backward(g, b, s, h, a, f, t, kv_heads, gated, q, core_chip)
    # the linear layers' inputs cast into their format forward (QKV's and FC1's by the norm), their output
    # gradients backward; the weights once a step (``quantize_s``)
    weights = _weights(h, a, f, t, kv_heads or a, gated)
    bwd_mem = 2 * fwd_mem + quantize_s(g, b * q, [n for n, _ in weights])
    fwd_mem += quantize_s(g, b * q, [k for _, k in weights], (0, 2), t if sp else 1)
    if recompute == "full":
        re_gemm, re_mem = fwd_gemm, fwd_mem
    elif recompute == "selective":
        re_gemm, re_mem = core, 0.0
    else:
        re_gemm = re_mem = 0.0
    per_block_gemm = fwd_gemm + bwd_gemm + re_gemm
    per_block_mem = fwd_mem + bwd_mem + re_mem

    link = (intra_gb_s if t <= chips_per_node else inter_gb_s) * 1e9 * ETA_NETWORK
    act = b * q * h * BYTES
    reduce = 2 * (t - 1) / t * act / link if t > 1 else 0.0
    if sp:  # all-gather + reduce-scatter = one all-reduce's bytes; the backward gathers once more (×2 blocks)
        per_block_tp = (2 + 2 + 1) * reduce if recompute != "full" else (2 + 2 + 2 + 1) * reduce
    else:
        per_block_tp = (2 + 2 + (2 if recompute == "full" else 0)) * reduce
    blocks = layers / p
    per_block_cp = 0.0
    if cp > 1:  # ring: cp − 1 steps pass each rank's K and V chunk forward, K, V, dK, dV backward, under attention
        cp_link = (intra_gb_s if t * cp <= chips_per_node else inter_gb_s) * 1e9 * ETA_NETWORK
        kv_bytes = (cp - 1) * 2 * b * q * (kv_heads or a) * (h // a) // t * BYTES
        per_block_cp = max(0.0, kv_bytes / cp_link - core) + max(0.0, 2 * kv_bytes / cp_link - 2 * core)
    logits = (gemm_s(chip, b * q, vocab // t, h) * 3 + 8 * b * q * vocab / t / (chip.memory_bandwidth * ETA_MEMORY)
              if vocab else 0.0)
    stage = blocks * (per_block_gemm + per_block_mem + per_block_tp + per_block_cp) + logits
    # ranks in Megatron's order (tensor, context, data, pipeline outermost): a data-parallel group spans t·cp·d
    # consecutive ranks, two neighbouring pipeline stages 2·t·cp·d; within a node they talk over NVLink
    n_dp = d * cp  # gradients are reduced over the data- and context-parallel ranks
    pp_link = (intra_gb_s if 2 * t * n_dp <= chips_per_node else inter_gb_s) * 1e9 * ETA_NETWORK
    fwd_stage = blocks * (fwd_gemm + fwd_mem)
    bwd_stage = blocks * (bwd_gemm + bwd_mem + re_gemm + re_mem)
    pp = pipeline_sends_s(act / t / pp_link, v, m, fwd_stage, bwd_stage, overlap_pp) if p > 1 else 0.0
    params_chip = params / (t * p)
    dp_link = dp_gb_s(t, n_dp, intra_gb_s, inter_gb_s, chips_per_node) * 1e9 * ETA_NETWORK
    shard = (n_dp - 1) / n_dp * params_chip * BYTES / dp_link if n_dp > 1 else 0.0  # one gather or scatter
    dp = zero_stage = 0.0
    if zero == 3 and n_dp > 1:
        # every micro-batch gathers the weights in the forward and again in the backward, and reduce-scatters
        # the gradients; each layer's gather is prefetched under the previous layer's compute (DeepSpeed's
        # overlap_comm, FSDP's forward/backward prefetch): the first gather and last scatter stay exposed
        zero_stage = (max(0.0, shard - fwd_stage) + max(0.0, 2 * shard - bwd_stage)
                      + (shard + shard) / max(blocks, 1))
    elif zero == 2 and n_dp > 1:
        # gradients reduce-scattered during every micro-batch's backward (overlapped where the framework
        # does), the updated weights gathered once after the optimizer step
        zero_stage = max(0.0, shard - bwd_stage) if overlap_dp else shard
        dp = shard
    else:
        dp = 2 * shard  # all-reduce (ZeRO 1: reduce-scatter + all-gather, the same bytes)
        if overlap_dp:  # bucketed reduction during the last micro-batch's backward (--overlap-grad-reduce)
            dp = max(0.0, dp - bwd_stage)
    stage += zero_stage
    dp += m * zero_stage
    bubble = (p - 1) / v * stage
    # the optimizer step reads and writes its states: each data-parallel rank its 1/n_dp share from ZeRO 1
    optimizer = (params_chip / (n_dp if zero >= 1 else 1) * OPTIMIZER_BYTES_PER_PARAM
                 / (chip.memory_bandwidth * ETA_MEMORY))
    # model FLOP (Korthikanti et al. 2022): 72·B·s·l·h²·(1 + s/6h + V/12hl) for f = 4h
    if model_flop is None:
        model_flop = 72 * global_batch * s * layers * h * h * (1 + s / (6 * h) + vocab / (12 * h * layers))
    gemm_total = m * blocks * per_block_gemm + m * logits
    mem_total = m * blocks * per_block_mem + quantize_s(g, params_chip, [1])
    return KernelStep(gemm_s=gemm_total, memory_bound_s=mem_total, tp_comm_s=m * blocks * per_block_tp,
                      bubble_s=bubble, pp_comm_s=pp, dp_comm_s=dp, optimizer_s=optimizer, model_flop=model_flop,
                      chips=t * p * d * cp, peak=g.peak, cp_comm_s=m * blocks * per_block_cp)


def dp_gb_s(t: int, n_dp: int, intra_gb_s: float, inter_gb_s: float, chips_per_node: int) -> float:
    """Bandwidth per rank of a data-parallel reduction over n_dp ranks spaced t apart: NVLink when the group
    fits in a node; else NCCL splits the operation over NVLink and runs one ring per NIC, so the node's
    g = min(n_dp, N/t) members of the group send through g NICs at once (NVIDIA/nccl issue 601): g × the
    scale-out link, at most NVLink."""
    if t * n_dp <= chips_per_node:
        return intra_gb_s
    return min(intra_gb_s, inter_gb_s * max(1, min(n_dp, chips_per_node // t)))


def pipeline_sends_s(send_s: float, v: int, m: int, fwd_stage: float, bwd_stage: float, overlap: bool) -> float:
    """The pipeline's activation and gradient sends, one each per micro-batch and model chunk (2·v·m of
    ``send_s``). With the interleaved schedule (v > 1) Megatron overlaps each with the next chunk's forward or
    backward (``--overlap-p2p-communication``, on by default there and forced off without interleaving:
    megatron/training/arguments.py); only what outlasts that chunk's compute (``fwd_stage``/v, ``bwd_stage``/v
    per micro-batch) is exposed."""
    if not (overlap and v > 1):
        return 2 * v * m * send_s
    return v * m * (max(0.0, send_s - fwd_stage / v) + max(0.0, send_s - bwd_stage / v))


def framework_overlaps_pp(convention: str, chip_id: str) -> bool:
    """Whether the plan's framework overlaps the interleaved schedule's sends with compute by default: Megatron
    Core (the Megatron and FSDP conventions' runs) does; Megatron-LM 2021–22's A100 runs predate it; DeepSpeed's
    pipeline engine does not interleave."""
    return chip_id not in MEGATRON_2022_CHIPS and convention in ("megatron", "fsdp")


def framework_overlaps_dp(convention: str, zero: int, chip_id: str) -> bool:
    """Whether the framework of the plan's convention overlaps the gradient reduction with the backward pass
    by default: Megatron Core (NeMo's recipes, ``--overlap-grad-reduce``) and FSDP (reduce-scatter in the
    backward hooks, on their own stream) do; DeepSpeed only at ZeRO 3 (``overlap_comm`` defaults to true for
    stage 3, false below). Plans on the A100 keep Megatron-LM 2021–22's (no overlap), which its measured runs
    used."""
    if chip_id in MEGATRON_2022_CHIPS:
        return zero == 3
    return convention in ("megatron", "fsdp") or zero == 3


def kernel_step_for(model, layout, options, chip_id: str, link) -> KernelStep | None:
    """The kernel model for a plan (a ``PlanModel`` on a ``Layout``), or None where it does not apply: a chip
    without its multiprocessor count or the format's peak, or a model that is not a stack of identical dense
    blocks with H·Q = d (a mixture of experts: ``engine.plan.kernel_moe.moe_kernel_step_for``; latent
    attention).

    The linear layers run at the format's dense peak (FP8, FP6 and FP4 through Transformer Engine's recipes),
    attention's products and the logits at the 16-bit peak. After the A100 (whose measured runs are
    Megatron-LM 2021–22's), attention is fused (no softmax traffic) and the gradient reduction overlaps the
    backward where the framework of the plan's convention does so by default (``framework_overlaps_dp``).
    ZeRO 2–3 add their gathers and scatters (``kernel_step``)."""
    chip = kernel_chip_for(model, layout, options, chip_id)
    if chip is None or model.experts > 1 or model.attention_width != model.d_model:
        return None
    gemm_chip = kernel_chip(chip_id, options.precision)
    fused = chip_id not in MEGATRON_2022_CHIPS
    inter = link.inter_gb_s or link.intra_gb_s
    return kernel_step(chip, layers=model.blocks, h=model.d_model, a=model.heads, s=model.seq_len,
                       vocab=model.vocab, params=model.params, t=layout.tp, p=layout.pp, d=layout.dp,
                       b=layout.micro_batch, global_batch=layout.global_batch, v=layout.virtual_stages,
                       recompute=options.recompute, sp=layout.sequence_parallel, intra_gb_s=link.intra_gb_s,
                       inter_gb_s=inter, chips_per_node=link.chips_per_node, f=model.ff_size or 4 * model.d_model,
                       kv_heads=model.kv_heads, gated=model.gated,
                       model_flop=3 * model.forward_flop * layout.global_batch, fused_attention=fused,
                       overlap_dp=framework_overlaps_dp(options.convention, options.zero, chip_id),
                       gemm_chip=gemm_chip, core_chip=chip, zero=options.zero, cp=getattr(layout, "cp", 1),
                       overlap_pp=framework_overlaps_pp(options.convention, chip_id))


def kernel_chip_for(model, layout, options, chip_id: str) -> KernelChip | None:
    """The chip's 16-bit figures where the kernel model applies to the plan at all (a transformer without
    latent attention, a format whose dense peak the chip has, a chip with its multiprocessor count here, a
    global batch); else None."""
    chip = kernel_chip(chip_id, "bf16")
    if (chip is None or kernel_chip(chip_id, options.precision) is None or not model.blocks
            or getattr(model, "latent_attention", False) or layout.global_batch is None):
        return None
    return chip
