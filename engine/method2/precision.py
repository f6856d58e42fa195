"""Which peak a run uses: number format, tensor cores, fallbacks, mixed splits, unknown hardware.

The seed (precision step): the FLOP of a run in several formats is A × count1 + B × count2, with A
and B the per-format rates. Here A, B are the chip's dense peaks per format and count1, count2 the
time spent in each; ``effective_peak_flop_per_s`` turns a split into the one peak that gives the
same FLOP.
"""
from __future__ import annotations

import statistics
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.errors import InputError, quoted
from engine.method2.formats import FORMAT_BY_KEY, ONE_FIGURE, PEAK_KEYS, PRECISIONS, is_tensor, peak_key, peak_unit
from engine.method2.hardware_db import Chip, HardwareDB, Peaks

Precision = Literal["fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"]
assert Precision.__args__ == PRECISIONS, "the formats of engine.method2.formats"
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


class FormatPeak(BaseModel):
    """The peak one format of a run uses, and how it was chosen."""

    model_config = ConfigDict(frozen=True)
    precision: str
    tensor_cores_requested: bool
    peak_key: str
    peak_flop_per_s: float
    unit: str
    tensor_cores: bool
    fraction: float = 1.0
    fallback: str | None = None
    """A sentence when the requested format was not available and another peak was used."""
    averaged_chips: list[dict] | None = None
    """For the unknown-hardware fallback: the chips whose peaks were averaged (id, name, date, peak)."""


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


class YearMeanPeak(BaseModel):
    """The unknown-hardware fallback: the mean peak of the chips launched in a year, for one format."""

    model_config = ConfigDict(frozen=True)
    year: int
    peak_key: str
    mean_peak_flop_per_s: float
    median_peak_flop_per_s: float
    chip_count: int
    chips: list[dict]


def year_mean_peak(db: HardwareDB, year: int, peak_key: str) -> YearMeanPeak | None:
    """Mean ``peak_key`` over the database's accelerators launched in ``year`` (Epoch's suggestion:
    the average peak of that year's hardware); None when no chip of that year has the format.

    CPUs are left out: the fallback is for unknown accelerators.
    """
    rows = [(chip, value) for chip in db.chips_released_in(year)
            if (value := chip.peaks.get(peak_key)) is not None]
    if not rows:
        return None
    values = [value for _, value in rows]
    return YearMeanPeak(
        year=year, peak_key=peak_key, mean_peak_flop_per_s=statistics.fmean(values),
        median_peak_flop_per_s=statistics.median(values), chip_count=len(rows),
        chips=[{"id": c.id, "name": c.name, "release_date": c.release_date, "peak_flop_per_s": v}
               for c, v in rows])


def year_mean_chip(db: HardwareDB, year: int) -> tuple[Chip, dict[str, YearMeanPeak]]:
    """A stand-in chip whose peak per format is the mean over ``year``'s accelerators, and the means.

    Built without validation: means over different sets of chips need not keep the tensor ≥
    non-tensor invariant, and the stand-in is never stored.
    """
    means = {key: m for key in PEAK_KEYS if (m := year_mean_peak(db, year, key)) is not None}
    if not means:
        years = sorted({c.release_year for c in db.chips if c.kind != "cpu" and c.release_year})
        raise InputError("year", f"no accelerator launched in {year} is in the database; years with "
                         f"chips: {', '.join(map(str, years))}")
    peaks = Peaks.model_construct(**{key: m.mean_peak_flop_per_s for key, m in means.items()})
    chip = Chip.model_construct(id="custom", name=f"mean of {year} accelerators", aliases=[],
                                vendor="various", kind="accelerator", release_date=str(year),
                                memory_gb=None, memory_bandwidth_gb_s=None, tdp_w=None, peaks=peaks,
                                price_usd_per_hour=None, price_basis=None, source=[], notes="")
    return chip, means
