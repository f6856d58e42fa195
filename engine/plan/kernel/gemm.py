"""Matrix products and memory-bound work on one chip (``chip.KernelChip``) at the calibrated efficiencies.

- One (batched) GEMM M × N × K: max(2MNK / (P·η(M, N)), bytes / W), η(M, N) = η_max × rate × tiles / (waves ×
  SMs), the wave quantization of 256 × 128 output tiles over the chip's multiprocessors (NVIDIA, "Matrix
  Multiplication Background User's Guide", §"Wave quantization"; the tile an assumption on AMD chips), bytes =
  2(MK + KN + MN) (16-bit operands), W = η_mem × the memory bandwidth.
- The attention core with its scores stored (an unfused softmax): QKᵀ and AV per head as GEMMs over ``keys`` keys
  per query, their score bytes counted, forward and backward (3 × (s × d × keys) + (s × keys × d)); fused
  (``fused_attention_s``): the kernel's FLOP at its rate (the framework's kernel on the chip's architecture), no
  scores. A sliding window of W positions reads ⌈W/128⌉ + 1 FlashAttention key tiles per query tile (Dao et al.
  2022).
- Casts into a format below 16 bits (``quantize_s``): Transformer Engine's cast-transpose with delayed scaling, or
  dynamic scaling's amax pass and cast (torchao).
"""
from __future__ import annotations

import math

from .calibration import KernelCalibration
from .chip import KernelChip

TILE_M, TILE_N = 256, 128
BYTES = 2
"""16-bit activations and weights."""
FLASH_TILE = 128
"""Keys per FlashAttention tile (Dao et al. 2022; FlashAttention-2's 128-wide blocks)."""


def gemm_s(chip: KernelChip, cal: KernelCalibration, m: int, n: int, k: int, batch: int = 1,
           shape_class: str = "linear") -> float:
    """One (batched) GEMM: max(compute at the wave-quantized efficiency, bytes at the memory bandwidth)."""
    measured = cal.measured_rate(m, n, k, batch, chip.peak)
    if measured is not None:  # a shape the user's trace measured on this chip and format
        return 2 * m * n * k * batch / measured
    tiles = math.ceil(m / TILE_M) * math.ceil(n / TILE_N) * batch
    waves = math.ceil(tiles / chip.sms)
    eta = cal.gemm(shape_class) * chip.rate * tiles / (waves * chip.sms)
    compute = 2 * m * n * k * batch / (chip.peak * eta)
    memory = BYTES * (m * k + k * n + m * n) * batch / (chip.memory_bandwidth * cal.memory_bandwidth_fraction)
    return max(compute, memory)


def memory_s(chip: KernelChip, cal: KernelCalibration, nbytes: float) -> float:
    """Memory-bound work moving ``nbytes`` at W = η_mem × the memory bandwidth."""
    return nbytes / (chip.memory_bandwidth * cal.memory_bandwidth_fraction)


def window_keys(s: int, window: int) -> int:
    """Keys a query tile reads with a sliding window of ``window`` positions: ⌈W/128⌉ + 1 tiles, at most s."""
    return s if not window else min(s, (math.ceil(window / FLASH_TILE) + 1) * FLASH_TILE)


def attention_core_s(chip: KernelChip, cal: KernelCalibration, q: int, keys: int, head_dim: int,
                     batch: int) -> tuple[float, float]:
    """(forward, backward) of QKᵀ and AV for ``q`` queries over ``keys`` keys, ``batch`` heads × sequences."""
    fwd = (gemm_s(chip, cal, q, keys, head_dim, batch, "attention")
           + gemm_s(chip, cal, q, head_dim, keys, batch, "attention"))
    bwd = (3 * gemm_s(chip, cal, q, head_dim, keys, batch, "attention")
           + gemm_s(chip, cal, q, keys, head_dim, batch, "attention"))
    return fwd, bwd


def fused_attention_s(chip: KernelChip, cal: KernelCalibration, q: int, keys: int, head_dim: int, batch: int,
                      rate: float, causal: bool = True) -> tuple[float, float]:
    """(forward, backward) of a fused attention kernel (FlashAttention, cuDNN, SDPA) for ``q`` queries over ``keys``
    keys, ``batch`` heads × sequences: its FLOP — 4·q·keys·d forward (QKᵀ and AV), 2.5× that backward (five
    products: Dao 2023) — halved by a causal mask over the whole sequence (the masked tiles skipped), at ``rate``
    × the 16-bit dense peak; at least its bytes (Q, K, V read and O written, 16-bit; no scores)."""
    flop = 4 * q * keys * head_dim * batch * (0.5 if causal else 1.0)
    nbytes = BYTES * batch * (2 * q + 2 * keys) * head_dim
    fwd = max(flop / (chip.peak * rate), memory_s(chip, cal, nbytes))
    bwd = max(2.5 * flop / (chip.peak * rate), memory_s(chip, cal, 2 * nbytes))
    return fwd, bwd


def quantize_s(chip: KernelChip, cal: KernelCalibration, rows: float, widths: list[int],
               norm_fed: tuple[int, ...] = (), split: int = 1, amax: bool = False) -> float:
    """Casting ``rows`` × each of ``widths`` 16-bit operands into the linear layers' format (``chip`` the format's;
    0 when it is 16-bit), as Transformer Engine does with delayed scaling (the amax taken in the same pass): a
    cast-transpose reads 2 bytes per element and writes the row- and column-major copies the GEMMs need (Hopper's
    FP8 GEMMs take only the TN layout), 2 + 2q. An input a norm writes (``norm_fed``: TE's LayerNormLinear) leaves
    the norm in the format, q bytes where 2 were, on 1/``split`` of the rows under sequence parallelism, and is
    transposed for the weight gradient (q read, q written): 2q − (2 − q)/split, at least 0. Dynamic (current)
    scaling (``amax``: torchao's Float8Linear as torchtitan runs it) reads each 16-bit operand once more for its
    absolute maximum before the cast can start (its scale depends on it): + 2 per element, the norm's output
    included (written in 16 bits then: 2 + 2 + 2q)."""
    q = chip.quantized_bytes
    if not q:
        return 0.0
    if amax:
        per = [4 + 2 * q] * len(widths)
    else:
        per = [max(0.0, 2 * q - (2 - q) / split) if i in norm_fed else 2 + 2 * q for i in range(len(widths))]
    return memory_s(chip, cal, rows * sum(c * w for c, w in zip(per, widths)))
