"""What a chip gives the kernels: its dense peak for the linear layers' format and for 16-bit work, its memory
bandwidth, its multiprocessors and its maximum achievable matmul rate per format — all read from
``hardware_db.json`` (the chip's ``kernel`` figures with their sources) — and its links (``interconnects.json``). A
chip without kernel figures, or without a dense peak for
the plan's format, has no ``KernelHardware``: its plans take the constant-efficiency model, and say so."""
from __future__ import annotations

from dataclasses import dataclass

from ...method2.hardware_db import load_hardware_db
from ..interconnects import Interconnect
from ...results import Result

GEMM_FORMATS = {"bf16": "bf16_tensor", "fp16": "fp16_tensor", "fp8": "fp8_tensor", "fp6": "fp6_tensor",
                "fp4": "fp4_tensor"}
"""The plan's format → the hardware database's dense tensor peak its linear layers run at. Attention's
products and the logits stay 16-bit (Transformer Engine quantizes the linear layers only; its default keeps
dot-product attention in BF16)."""

FORMAT_BYTES = {"fp8": 1.0, "fp6": 0.75 + 1 / 32, "fp4": 0.5 + 1 / 16}
"""q, bytes per element of a linear layer's operand quantized into the format, its scales included: FP8 one
(a scale per tensor); MXFP6 six bits and an 8-bit scale per 32 elements (OCP Microscaling Formats v1.0); NVFP4
four bits and an FP8 scale per 16 elements (NVIDIA, "Introducing NVFP4", 2025)."""


@dataclass(frozen=True, slots=True)
class KernelChip(Result):
    """A chip as one number format sees it: dense peak (FLOP/s), memory bandwidth (bytes/s), multiprocessors."""

    peak: float
    memory_bandwidth: float
    sms: int
    rate: float = 1.0
    """The format's GEMM rate relative to the calibration chip's (η_max was fitted on A100s): the chip's maximum
    achievable matmul share of the format's peak ÷ the A100's BF16 share (``REFERENCE_MATMUL``)."""
    quantized_bytes: float = 0.0
    """q, bytes per element of an operand quantized into the format (``FORMAT_BYTES``); 0: 16-bit, no cast."""


@dataclass(frozen=True, slots=True)
class KernelHardware(Result):
    """The chips a plan's kernels run on: ``core`` the 16-bit figures (attention's products, the logits,
    memory-bound work), ``linear`` the linear layers' format; and the links between chips."""

    chip_id: str
    core: KernelChip
    linear: KernelChip
    link: Interconnect
    architecture: str = "hopper"
    """The chip's generation (its kernel figures): which attention kernels and rates apply."""

    @property
    def inter_gb_s(self) -> float:
        """The scale-out link per chip (the within-node figure where none is on file)."""
        return self.link.inter_gb_s or self.link.intra_gb_s


REFERENCE_MATMUL = 0.869
"""The A100 SXM's maximum achievable BF16 matmul share of its peak (271.2 of 312 TFLOP/s, the MAMF table cited in
hardware_db.json): η_max was fitted on A100 runs, so a chip's GEMMs run at η_max × its own share ÷ this one."""


def matmul_share(chip, precision: str) -> float:
    """The chip's maximum achievable matmul share for ``precision``: its own where measured, else FP8's for FP6
    and FP4, else BF16's (the chip's ``matmul_source`` says which)."""
    rates = chip.kernel.matmul_efficiency
    fmt = "bf16" if precision in ("bf16", "fp16") else precision
    return rates.get(fmt) or (rates.get("fp8") if fmt in ("fp6", "fp4") else None) or rates["bf16"]


def kernel_chip(chip_id: str, precision: str = "bf16") -> KernelChip | None:
    """The chip's dense peak for ``precision``, memory bandwidth and multiprocessors, or None where the database
    has no kernel figures for it or no dense peak for the format."""
    chip = load_hardware_db().find(chip_id)
    if chip is None or chip.kernel is None:
        return None
    peak = chip.peaks.get(GEMM_FORMATS.get(precision, ""))
    if not peak:
        return None
    return KernelChip(peak, chip.memory_bandwidth_gb_s * 1e9, chip.kernel.multiprocessors,
                      matmul_share(chip, precision) / REFERENCE_MATMUL, FORMAT_BYTES.get(precision, 0.0))


def kernel_hardware(chip_id: str, precision: str, link: Interconnect) -> KernelHardware | None:
    """The 16-bit and the format's figures of ``chip_id`` with ``link``, or None where either is missing."""
    core, linear = kernel_chip(chip_id, "bf16"), kernel_chip(chip_id, precision)
    if core is None or linear is None:
        return None
    return KernelHardware(chip_id, core, linear, link, load_hardware_db().find(chip_id).kernel.architecture)


def kernel_chips() -> tuple[str, ...]:
    """The database's chips with kernel figures, in its order."""
    return tuple(c.id for c in load_hardware_db().chips if c.kernel is not None)
