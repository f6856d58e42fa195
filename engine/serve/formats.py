"""Number formats for serving: what each stores and which dense peak it runs at.

- ``precision`` (bf16, fp16, fp8, fp4): the format the matrix products run in (weights and activations: FP8 and FP4
  are weight-activation quantization, W8A8 / W4A4), at the chip's dense tensor peak of that format. As NVIDIA's
  Model Optimizer and vLLM quantize them, only the transformer blocks' linear layers take FP8/FP4; the token table
  and the LM head stay 16-bit.
- ``weights`` (int8, int4): weight-only quantization on top of the precision (W8A16, W4A16): weights stored in
  fewer bytes (int4 with a 16-bit scale and zero point per group of 128: 4.25 bits) and dequantized to the
  precision for the product: bytes change, FLOP and the peak do not. As gpt-fast and torchao apply it, every
  linear layer is quantized, the LM head included.
- ``kv_precision`` (bf16, fp16, fp8, fp4): keys and values as stored (FP4: 4 bits + an FP8 scale per 16 values,
  NVFP4's layout, 4.5 bits).
"""
from __future__ import annotations

from typing import Literal, NamedTuple

Precision = Literal["bf16", "fp16", "fp8", "fp4"]
WeightOnly = Literal["int8", "int4"]


class ServeFormat(NamedTuple):
    name: str
    peak_key: str
    bytes: float
    label: str


FORMATS: dict[str, ServeFormat] = {
    "bf16": ServeFormat("bf16", "bf16_tensor", 2.0, "BF16"),
    "fp16": ServeFormat("fp16", "fp16_tensor", 2.0, "FP16"),
    "fp8": ServeFormat("fp8", "fp8_tensor", 1.0, "FP8"),
    "fp4": ServeFormat("fp4", "fp4_tensor", 0.5625, "FP4 (4 bits + an FP8 scale per 16)"),
}
WEIGHT_ONLY_BYTES: dict[str, float] = {"int8": 1.0, "int4": 0.53125}
"""int8: one byte and a per-channel scale (negligible); int4: 4 bits + a 16-bit scale and zero point per 128."""
ACTIVATION_BYTES = 2.0
"""Activations between layers, all-reduced by tensor parallelism, and state-space states: 16-bit."""


def block_weight_bytes(precision: str, weights: str | None) -> float:
    """Bytes per parameter of the transformer blocks' linear layers."""
    if weights is not None:
        return WEIGHT_ONLY_BYTES[weights]
    return FORMATS[precision].bytes


def table_weight_bytes(precision: str, weights: str | None) -> float:
    """Bytes per parameter of the token table and the LM head: 16-bit, unless weight-only quantization covers
    the head (the table is then read row by row only)."""
    if weights is not None:
        return WEIGHT_ONLY_BYTES[weights]
    return 2.0
