"""Which peak a run uses: number format, tensor cores, fallbacks, mixed splits, unknown hardware.

The seed (precision step): the FLOP of a run in several formats is A × count1 + B × count2, with A
and B the per-format rates. Here A, B are the chip's dense peaks per format and count1, count2 the
time spent in each; ``effective_peak_flop_per_s`` turns a split into the one peak that gives the
same FLOP.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import InputError, quoted
from .formats import FORMAT_BY_KEY, ONE_FIGURE, PRECISIONS, is_tensor, peak_key, peak_unit
from .hardware_db import Peaks
from ..results import Result

Precision = Literal[PRECISIONS]  # type: ignore[valid-type]  # the formats of engine.method2.formats
SplitBasis = Literal["work", "time"]


def requested_peak_key(precision: str, tensor_cores: bool) -> str:
    """The peak key a format asks for: 'bf16' + tensor cores → 'bf16_tensor' (``engine.method2.formats``).

    fp32 is the vector-unit figure whatever ``tensor_cores`` says (tensor-core FP32 is TF32: choose
    tf32), and int8 is stored as one figure. 'tf32', 'bf16', 'fp8' without tensor cores name no
    stored peak, so they are unavailable (or fall back) on every chip.
    """
    key = peak_key(precision, tensor_cores)
    if key is None:
        raise InputError("precision", f"unsupported format {quoted(precision)}; choose one of "
                         f"{', '.join(PRECISIONS)}")
    return key


@dataclass(frozen=True, slots=True, kw_only=True)
class FormatPeak(Result):
    """The peak one format of a run uses, and how it was chosen."""

    precision: str
    tensor_cores_requested: bool
    peak_key: str
    peak_flop_per_s: float
    unit: str
    tensor_cores: bool
    fraction: float = 1.0
    fallback: str | None = None
    """A sentence when the requested format was not available and another peak was used."""


def select_format_peak(peaks: Peaks, precision: str, tensor_cores: bool, *, chip_label: str,
                       allow_fallback: bool = False, field: str = "precision") -> FormatPeak:
    """The dense peak for ``precision`` (and tensor cores) on a chip, or an explicit fallback.

    Without ``allow_fallback`` a missing format is ``InputError(field, …)`` naming what the chip has.
    """
    wanted = requested_peak_key(precision, tensor_cores)
    value = peaks.get(wanted)
    if value is not None:
        return FormatPeak(precision=precision, tensor_cores_requested=tensor_cores, peak_key=wanted,
                          peak_flop_per_s=value, unit=peak_unit(wanted),
                          tensor_cores=is_tensor(wanted))
    has = ", ".join(peaks.available()) or "no peaks"
    mode = ("" if precision in ONE_FIGURE  # one stored figure: tensor cores do not choose it
            else " with tensor cores" if tensor_cores else " without tensor cores")
    if not allow_fallback:
        hint = ""
        if tensor_cores and peaks.get(precision) is not None:
            hint = f"; it has a non-tensor {precision} peak: turn tensor cores off"
        elif not tensor_cores and peaks.get(f"{precision}_tensor") is not None:
            hint = f"; it has a {precision} tensor-core peak: turn tensor cores on"
        raise InputError(field, f"{chip_label} has no {precision} peak{mode} (it has: {has}){hint}; "
                         "choose another format, or set allow_fallback (CLI: --allow-fallback) to use the "
                         "nearest peak, flagged")
    for key in FORMAT_BY_KEY[wanted].fallbacks:
        value = peaks.get(key)
        if value is not None:
            note = (f"{chip_label} has no {precision} peak{mode}: used its {key} peak "
                    f"{value:.4g} {peak_unit(key)} instead (fallback)")
            return FormatPeak(precision=precision, tensor_cores_requested=tensor_cores, peak_key=key,
                              peak_flop_per_s=value, unit=peak_unit(key),
                              tensor_cores=is_tensor(key), fallback=note)
    raise InputError(field, f"{chip_label} has no {precision} peak{mode} and no fallback for it "
                     f"(it has: {has})")


def effective_peak_flop_per_s(parts: list[tuple[float, float]], basis: SplitBasis = "work") -> float:
    """One peak for a run split across formats: ``parts`` = [(fraction, peak FLOP/s), …].

    basis 'time' (fractions of wall-clock time τ_i): the seed's A × count1 + B × count2 directly,
        P_eff = Σ τ_i · P_i.
    basis 'work' (fractions of the FLOP f_i, the usual way a split is known, e.g. "90% of the FLOP
        are BF16 matmuls"): format i takes time f_i·W / P_i, so P_eff = W / Σ t_i = 1 / Σ (f_i / P_i),
        the harmonic mean. Averaging peaks arithmetically here would overstate the slow format's speed.
    """
    if not parts:
        raise InputError("mixed_precision", "no formats given")
    if basis == "time":
        return sum(fraction * peak for fraction, peak in parts)
    if basis == "work":
        return 1.0 / sum(fraction / peak for fraction, peak in parts)
    raise InputError("split_basis", f"unknown basis {quoted(basis)}; choose 'work' or 'time'")


def peak_key_label(key: str) -> str:
    """'bf16_tensor' → 'BF16 tensor' (the formats table's label)."""
    row = FORMAT_BY_KEY.get(key)
    return row.label if row else key


def format_of_peak_key(key: str) -> tuple[str, bool]:
    """The (precision, tensor cores) that ask for ``key``: 'bf16_tensor' → ('bf16', True)."""
    row = FORMAT_BY_KEY.get(key)
    if row is None:
        raise InputError("precision", f"unknown peak key {quoted(key)}")
    return row.precision, row.tensor
