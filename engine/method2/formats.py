"""Number formats as data: one row per peak a run can ask for. Every other module reads this table.

A run names a format (``precision``: fp64 … int8) and whether the matrix units ran it (``tensor``:
tensor cores, TPU MXUs, AMD matrix cores, Gaudi MMEs); the pair selects one row's ``key``. Rows with
``stored`` are the peaks ``hardware_db.json`` may hold per chip; the others (BF16 on vector units,
say) are formats no datasheet prints, reachable only through ``fallbacks`` — the formats the
arithmetic would really run in on a chip that lacks the row, never a lower precision.
"""
from __future__ import annotations

from typing import NamedTuple


class PeakFormat(NamedTuple):
    key: str
    """The peak's key: ``bf16_tensor``."""
    precision: str
    """The number format a run names: ``bf16``."""
    tensor: bool
    """Run on matrix units (tensor cores, MXUs, matrix cores, MMEs) rather than vector units."""
    bytes_per_value: float
    label: str
    units: str
    """What executes it, in words."""
    stored: bool
    """A peak a chip in ``hardware_db.json`` may carry."""
    fallbacks: tuple[str, ...] = ()
    unit: str = "FLOP/s"


PEAK_FORMATS: tuple[PeakFormat, ...] = (
    PeakFormat("fp64", "fp64", False, 8, "FP64", "vector units", True),
    PeakFormat("fp64_tensor", "fp64", True, 8, "FP64 tensor", "matrix units", True, ("fp64",)),
    PeakFormat("fp32", "fp32", False, 4, "FP32", "vector units", True),
    PeakFormat("tf32_tensor", "tf32", True, 4, "TF32 tensor", "matrix units", True, ("fp32",)),
    PeakFormat("tf32", "tf32", False, 4, "TF32 (no tensor cores)", "vector units", False, ("fp32",)),
    PeakFormat("fp16", "fp16", False, 2, "FP16 (no tensor cores)", "vector units", True, ("fp32",)),
    PeakFormat("fp16_tensor", "fp16", True, 2, "FP16 tensor", "matrix units", True,
               ("bf16_tensor", "fp16", "fp32")),
    PeakFormat("bf16", "bf16", False, 2, "BF16 (no tensor cores)", "vector units", False, ("fp16", "fp32")),
    PeakFormat("bf16_tensor", "bf16", True, 2, "BF16 tensor", "matrix units", True,
               ("fp16_tensor", "fp16", "fp32")),
    PeakFormat("fp8", "fp8", False, 1, "FP8 (no tensor cores)", "vector units", False, ("fp16", "fp32")),
    PeakFormat("fp8_tensor", "fp8", True, 1, "FP8 tensor", "matrix units", True,
               ("fp16_tensor", "bf16_tensor", "fp16", "fp32")),
    # Blackwell and CDNA 4 microscaling formats (OCP MX: MXFP6, MXFP4; NVIDIA's NVFP4): 6- and 4-bit
    # elements with a shared scale per block of 32 (16 for NVFP4). A chip without them upcasts to FP8.
    PeakFormat("fp6", "fp6", False, 0.75, "FP6 (no tensor cores)", "vector units", False, ("fp16", "fp32")),
    PeakFormat("fp6_tensor", "fp6", True, 0.75, "FP6 tensor (MXFP6)", "matrix units", True,
               ("fp8_tensor", "fp16_tensor", "bf16_tensor", "fp16", "fp32")),
    PeakFormat("fp4", "fp4", False, 0.5, "FP4 (no tensor cores)", "vector units", False, ("fp16", "fp32")),
    PeakFormat("fp4_tensor", "fp4", True, 0.5, "FP4 tensor (MXFP4 / NVFP4)", "matrix units", True,
               ("fp6_tensor", "fp8_tensor", "fp16_tensor", "bf16_tensor", "fp16", "fp32")),
    PeakFormat("int8", "int8", False, 1, "INT8 (OP/s)",
               "one figure: the chip's fastest integer path (its tensor cores where it has them)", True,
               unit="OP/s"),
)
FORMAT_BY_KEY: dict[str, PeakFormat] = {f.key: f for f in PEAK_FORMATS}
PEAK_KEYS: tuple[str, ...] = tuple(f.key for f in PEAK_FORMATS if f.stored)
"""The peaks a chip may have, in display order."""
PRECISIONS: tuple[str, ...] = tuple(dict.fromkeys(f.precision for f in PEAK_FORMATS))
"""The number formats a run may name."""
ONE_FIGURE: frozenset[str] = frozenset(p for p in PRECISIONS
                                       if sum(f.precision == p for f in PEAK_FORMATS) == 1)
"""Formats stored as one figure whatever the units (fp32: tensor-core FP32 is TF32; int8)."""


def peak_key(precision: str, tensor_cores: bool) -> str | None:
    """The row a run asks for: ('bf16', True) → 'bf16_tensor'; None for an unknown format."""
    if precision in ONE_FIGURE:
        return precision
    key = f"{precision}_tensor" if tensor_cores else precision
    return key if key in FORMAT_BY_KEY else None


def peak_unit(key: str) -> str:
    """'OP/s' for integer formats, 'FLOP/s' otherwise."""
    row = FORMAT_BY_KEY.get(key)
    return row.unit if row else "FLOP/s"


def is_tensor(key: str) -> bool:
    row = FORMAT_BY_KEY.get(key)
    return bool(row and row.tensor)
