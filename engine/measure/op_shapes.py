"""An operator's recorded arguments read as numbers: shapes (``Input Dims``), number formats (``Input type``)
and scalar values (``Concrete Inputs``, e.g. ``'[1, 1]'`` for a stride, ``'True'`` for ``is_causal``).

The profiler writes ``Input type`` as C++ type names (``c10::BFloat16``, ``float``, ``long int``); each maps to
the engine's number format (``engine.method2.formats``) and to its bytes per element.
"""
from __future__ import annotations

import math

from .trace_tables import MAX_DIM, OpSignature

DTYPES: dict[str, tuple[str | None, float]] = {
    "c10::BFloat16": ("bf16", 2), "c10::Half": ("fp16", 2), "float": ("fp32", 4), "double": ("fp64", 8),
    "c10::Float8_e4m3fn": ("fp8", 1), "c10::Float8_e5m2": ("fp8", 1), "c10::Float8_e4m3fnuz": ("fp8", 1),
    "c10::Float8_e5m2fnuz": ("fp8", 1), "c10::Float8_e8m0fnu": ("fp8", 1), "c10::Float4_e2m1fn_x2": ("fp4", 1),
    "signed char": ("int8", 1), "unsigned char": ("int8", 1), "c10::qint8": ("int8", 1),
    "c10::quint8": ("int8", 1), "short": (None, 2), "int": (None, 4), "long int": (None, 8),
    "long": (None, 8), "bool": (None, 1), "c10::complex<float>": ("fp32", 8),
    "c10::complex<double>": ("fp64", 16), "c10::complex<c10::Half>": ("fp16", 4),
}
"""Profiler type name → (number format, or None for integers and booleans; bytes per element)."""


class ShapeError(ValueError):
    """The recorded arguments do not make the operator's shapes (missing, wrong rank, or absurd sizes)."""


def dims(sig: OpSignature, i: int, rank: int | None = None) -> tuple[int, ...]:
    """Input ``i``'s shape, checked: whole numbers from 0 to 2⁶², of ``rank`` axes when given."""
    if sig.dims is None or i >= len(sig.dims):
        raise ShapeError(f"input {i} has no recorded shape")
    shape = sig.dims[i]
    if not isinstance(shape, tuple) or not all(type(d) is int and 0 <= d <= MAX_DIM for d in shape):
        raise ShapeError(f"input {i}'s shape {shape!r} is not a list of sizes from 0 to 2⁶²")
    if rank is not None and len(shape) != rank:
        raise ShapeError(f"input {i} has {len(shape)} axes, {rank} expected")
    return shape


def has_tensor(sig: OpSignature, i: int) -> bool:
    """Input ``i`` is a tensor with a shape (a bias that is present, not None)."""
    if sig.dims is None or i >= len(sig.dims) or not isinstance(sig.dims[i], tuple):
        return False
    kind = sig.types[i] if sig.types is not None and i < len(sig.types) else ""
    return bool(sig.dims[i]) or kind in DTYPES


def size(shape: tuple[int, ...]) -> int:
    n = math.prod(shape)
    if n > 2**63:
        raise ShapeError(f"a tensor of {n:.3g} elements")
    return n


def concrete(sig: OpSignature, i: int):
    """``Concrete Inputs[i]`` as a value: '[1, 1]' → [1, 1], 'True' → True, '2' → 2, '0.125' → 0.125, '' → None."""
    if sig.concrete is None or i >= len(sig.concrete):
        return None
    text = sig.concrete[i]
    if not isinstance(text, str):
        return text
    text = text.strip()
    if text in ("", "None"):
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith("[") and text.endswith("]"):
        items = [t.strip() for t in text[1:-1].split(",") if t.strip()]
        out = []
        for t in items:
            if t in ("True", "False"):
                out.append(t == "True")
            elif t.lstrip("-").isdigit() and len(t) < 20:
                out.append(int(t))
            else:
                return None
        return out
    if text.lstrip("-").isdigit() and len(text) < 20:
        return int(text)
    try:
        return float(text)
    except ValueError:
        return None


def int_list(sig: OpSignature, i: int, n: int, default: int) -> list[int]:
    """A list argument of ``n`` whole numbers (a stride, padding…), ``default`` each when not recorded."""
    value = concrete(sig, i)
    if value is None:
        return [default] * n
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    if isinstance(value, list) and value and all(type(v) is int for v in value):
        if len(value) == 1:
            return value * n
        if len(value) == n:
            return value
    raise ShapeError(f"argument {i} ({sig.concrete[i]!r}) is not {n} whole numbers")


def dtype_of(sig: OpSignature, i: int = 0) -> tuple[str | None, float]:
    """(number format, bytes per element) of input ``i`` (unknown types: (None, 0))."""
    if sig.types is None or i >= len(sig.types):
        return None, 0
    return DTYPES.get(sig.types[i], (None, 0))


def first_float_format(sig: OpSignature) -> str | None:
    """The number format of the first floating-point tensor input (what the operator computes in)."""
    if sig.types is None:
        return None
    for t in sig.types:
        fmt = DTYPES.get(t, (None, 0))[0]
        if fmt is not None:
            return fmt
    return None


_INTS = {int}


def tensor_bytes(sig: OpSignature) -> tuple[int, int]:
    """(bytes of every tensor input, bytes of the largest one): what an operator with no formula reads, and what
    an element-wise one writes."""
    if sig.dims is None or sig.types is None:
        return 0, 0
    total = largest = 0
    for shape, t in zip(sig.dims, sig.types):
        bpe = DTYPES.get(t, (None, 0))[1] if isinstance(t, str) else 0
        if not bpe or not isinstance(shape, tuple) or (shape and (set(map(type, shape)) != _INTS or min(shape) < 0
                                                                 or max(shape) > MAX_DIM)):
            continue  # not a shape of sizes 0 … MAX_DIM (each a plain int: the types tested before the bounds)
        n = int(math.prod(shape) * bpe)
        total += n
        largest = max(largest, n)
    return total, largest
