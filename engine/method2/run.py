"""Method 2: training FLOP = chips × training time × peak FLOP/s × utilization.

The peak is the DENSE peak of the number format the run trained in (tensor cores when used), from
``hardware_db.json``, a user-defined chip, a single custom peak, or, for unknown hardware, the mean
of the chips launched in a given year. ``HardwareSpec`` says which peak; ``HardwareRun`` adds the
chip count, time and utilization (and the cost/energy inputs ``engine.method2.costs`` reads).
"""

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..errors import InputError, PositiveFinite, parse_input, quoted
from .formats import is_tensor, peak_unit
from .hardware_db import Chip, HardwareDB, load_hardware_db
from .precision import (
    FormatPeak, Precision, SplitBasis, effective_peak_flop_per_s, format_of_peak_key, peak_key_label,
    requested_peak_key, select_format_peak,
)
from .unknown_hardware import HardwareClass, year_chip
from ..ranges import Factor, Interval, check_range, product_interval
from ..results import Result

from ..units import (PFS_DAY_FLOP, SECONDS_PER_DAY, SECONDS_PER_HOUR, flop_to_pfs_days, format_flop,
                          format_number, format_pf_days, format_time_amount, plural)

MAX_CHIPS = 1e9
"""More chips than the world's accelerators: a typo, not a run."""
MAX_DURATION = 1e12
"""Days, hours or chip-hours; 1e12 chip-hours is ~1,000× the largest run so far."""
MAX_PEAK = 1e21
"""FLOP/s per chip: a zettaFLOP/s chip is ~500× today's densest FP8 peak."""
Utilization = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
DurationUnit = Literal["days", "hours", "chip_hours", "gpu_days"]
DURATION_UNITS: tuple[str, ...] = ("days", "hours", "chip_hours", "gpu_days")

def _preset_or_number(value: object) -> object:
    """'openai-gpu' → 0.33 (a preset from the database, or a prior from the shipped reported
    utilizations, ``engine.method2.utilization_priors``); numbers and numeric text pass through."""
    if isinstance(value, str):
        text = value.strip()
        try:
            return float(text)
        except ValueError:
            pass
        db = load_hardware_db()
        try:
            return db.preset(text.lower()).utilization
        except InputError as exc:
            from .utilization_priors import prior_presets
            found = next((p for p in prior_presets(db) if p.id == text.lower()), None)
            if found is None:
                raise InputError("utilization", exc.reason + "; priors from reported runs: " + ", ".join(
                    f"{p.id} ({p.utilization:.2g})" for p in prior_presets(db))) from None
            return found.utilization
    return value


class HardwareSpec(BaseModel):
    """Which peak: a chip (id/alias), a user-defined chip, one custom peak, or the year's mean;
    the number format (or a mixed split), tensor cores, and whether a missing format may fall back."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip: str | None = Field(None, max_length=120, description="database chip id or alias")
    custom_chip: Chip | None = Field(None, description="a user-defined chip (name + peaks)")
    peak_flop_per_s: Annotated[float, Field(gt=0, le=MAX_PEAK, allow_inf_nan=False)] | None = Field(
        None, description="one custom DENSE peak per chip, for the format the run used")
    year: int | None = Field(None, ge=2008, le=2100,
                             description="unknown hardware: the trend peak of that year's chips of hardware_class")
    hardware_class: HardwareClass = Field("data_center", description="for year: 'data_center' accelerators or "
                                                                       "'workstation_consumer' cards")
    precision: Precision | None = Field(None, description="number format the run trained in (default: the "
                                                          "chip's default_format, e.g. BF16 tensor on an A100)")
    tensor_cores: bool = True
    mixed_precision: dict[Precision, float] | None = Field(
        None, description="fraction of the run per format, e.g. {'bf16': 0.9, 'fp32': 0.1}; sums to 1")
    split_basis: SplitBasis = Field("work", description="'work': fractions of the FLOP; 'time': of the time")
    allow_fallback: bool = Field(False, description="use the nearest available peak (flagged) when the "
                                                    "chip lacks the format, instead of an error")

    @model_validator(mode="after")
    def _one_hardware_and_a_valid_split(self):
        given = [name for name in ("chip", "custom_chip", "peak_flop_per_s", "year")
                 if getattr(self, name) is not None]
        if len(given) != 1:
            raise InputError("chip", "give exactly one of chip, custom_chip, peak_flop_per_s or year"
                             + (f" (got {', '.join(given)})" if given else ""))
        if self.mixed_precision is not None:
            self._check_split()
        return self

    def _check_split(self) -> None:
        split = self.mixed_precision
        if not split:
            raise InputError("mixed_precision", "give at least one format with its fraction")
        for fmt, fraction in split.items():
            if not (math.isfinite(fraction) and 0 < fraction <= 1):
                raise InputError(f"mixed_precision.{fmt}", f"fraction must be in (0, 1], got {fraction}")
        total = math.fsum(split.values())
        if abs(total - 1) > 1e-6:
            raise InputError("mixed_precision", f"fractions must sum to 1, got {total:.6g}")
        if self.peak_flop_per_s is not None:
            raise InputError("mixed_precision", "a single custom peak has one format; give a chip or a "
                             "custom_chip with per-format peaks for a mixed split")
        if self.precision is not None and self.precision not in split:
            raise InputError("precision", f"{quoted(self.precision)} is not in mixed_precision; leave precision "
                             "out when giving a split")

    @property
    def formats(self) -> dict[str, float]:
        """Format → fraction: the split, or the one format with fraction 1 (fp32 when none is given)."""
        return dict(self.mixed_precision) if self.mixed_precision else {self.precision or "fp32": 1.0}


class UtilizationInputs(BaseModel):
    """Utilization in (0, 1] (a number or a preset id such as 'openai-gpu'), and an optional range."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    utilization: Utilization = Field(description="fraction of peak achieved over the run, or a preset id; left "
                                                 "out (or 'reported') in a run: the median of reported runs "
                                                 "like it, with its 90% range")
    utilization_low: Utilization | None = None
    utilization_high: Utilization | None = None

    @field_validator("utilization", "utilization_low", "utilization_high", mode="before")
    @classmethod
    def _presets(cls, value):
        return _preset_or_number(value)

    @model_validator(mode="after")
    def _ordered_range(self):
        if self.utilization_low is not None and self.utilization_low > self.utilization:
            raise InputError("utilization_low", f"{self.utilization_low:g} is above utilization "
                             f"{self.utilization:g}")
        if self.utilization_high is not None and self.utilization_high < self.utilization:
            raise InputError("utilization_high", f"{self.utilization_high:g} is below utilization "
                             f"{self.utilization:g}")
        return self


class EnergyInputs(BaseModel):
    """Overrides for cost, energy and CO2 (None: the chip's figure or the database default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    price_usd_per_chip_hour: Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)] | None = None
    tdp_w: Annotated[float, Field(gt=0, le=1e7, allow_inf_nan=False)] | None = None
    pue: float | None = Field(None, ge=1, le=5, allow_inf_nan=False)
    grid_kg_co2_per_kwh: float | None = Field(None, ge=0, le=5, allow_inf_nan=False)
    place: str | None = Field(None, max_length=60, description="where the chips ran: a country or cloud region "
                              "of grid_intensity.csv ('fr', 'aws-us-east-1', …), for the grid's CO2 per kWh")
    provider: str | None = Field(None, max_length=40, description="whose data centre: a provider of pue.csv "
                                 "('google', 'meta', 'aws', 'microsoft', 'average'), for the PUE")

    @field_validator("place", "provider")
    @classmethod
    def _known(cls, value, info):
        if value is None:
            return None
        from .places import grid_place, provider_pue
        return (grid_place if info.field_name == "place" else provider_pue)(value).id


class HardwareRun(EnergyInputs, UtilizationInputs, HardwareSpec):
    """A run for method 2: the hardware and format, chip count, duration and utilization.

    duration_unit 'days'/'hours' is wall-clock time (chip_count required); 'chip_hours'/'gpu_days'
    is accumulated chip time (the seed's GPU-days: 5 days on 4 GPUs = 20 GPU-days).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip_count: Annotated[float, Field(gt=0, le=MAX_CHIPS, allow_inf_nan=False)] | None = Field(
        None, description="number of chips (GPUs, TPU chips…)")

    @model_validator(mode="before")
    @classmethod
    def _reported_default(cls, data):
        """No utilization (or 'reported'): the median of reported runs like this one, with its 90% range
        (``engine.method2.default_utilization``) unless a range is given."""
        if not isinstance(data, dict):
            return data
        given = data.get("utilization")
        if given is not None and not (isinstance(given, str) and given.strip().lower() == "reported"):
            return data
        from .default_utilization import default_for_run
        found = default_for_run(data.get("chip"), data.get("chip_count"))
        out = {**data, "utilization": found.utilization}
        if data.get("utilization_low") is None and data.get("utilization_high") is None:
            out.update(utilization_low=found.low, utilization_high=found.high)
        return out
    duration: Annotated[float, Field(gt=0, le=MAX_DURATION, allow_inf_nan=False)]
    duration_unit: DurationUnit = "days"
    chip_count_low: PositiveFinite | None = Field(None, description="range: fewest chips (90% interval)")
    chip_count_high: PositiveFinite | None = None
    duration_low: PositiveFinite | None = Field(None, description="range: shortest time, same unit (90% interval)")
    duration_high: PositiveFinite | None = None

    @model_validator(mode="after")
    def _count_for_wall_clock(self):
        if self.duration_unit in ("days", "hours") and self.chip_count is None:
            raise InputError("chip_count", f"needed with wall-clock time ('{self.duration_unit}'); or give "
                             "the time as chip_hours / gpu_days")
        if (self.chip_count_low or self.chip_count_high) and self.chip_count is None:
            raise InputError("chip_count", "a chip-count range needs the chip count itself")
        check_range("chip_count", self.chip_count, self.chip_count_low, self.chip_count_high)
        check_range("duration", self.duration, self.duration_low, self.duration_high)
        return self

    def factors(self) -> list[Factor]:
        """The uncertain inputs of C = chips × time × peak × u (the peak's band is added by the estimate)."""
        found = []
        for name, point, low, high in (
                ("utilization", self.utilization, self.utilization_low, self.utilization_high),
                ("duration", self.duration, self.duration_low, self.duration_high),
                ("chip_count", self.chip_count, self.chip_count_low, self.chip_count_high)):
            if name == "chip_count" and self.duration_unit not in ("days", "hours"):
                continue  # chip-time units already count the chips
            if low is not None or high is not None:
                found.append(Factor(name, point, low if low is not None else point,
                                    high if high is not None else point))
        return found

    @property
    def chip_seconds(self) -> float:
        """Accumulated chip time in seconds."""
        per_unit = {"days": SECONDS_PER_DAY, "hours": SECONDS_PER_HOUR, "chip_hours": SECONDS_PER_HOUR,
                    "gpu_days": SECONDS_PER_DAY}[self.duration_unit]
        count = self.chip_count if self.duration_unit in ("days", "hours") else 1.0
        return count * self.duration * per_unit

    @property
    def wall_clock_hours(self) -> float | None:
        """Wall-clock time, when it is known (given, or chip time ÷ chip count)."""
        if self.duration_unit in ("days", "hours"):
            return self.duration * (24.0 if self.duration_unit == "days" else 1.0)
        if self.chip_count is None:
            return None
        return self.chip_seconds / SECONDS_PER_HOUR / self.chip_count


@dataclass(frozen=True, slots=True, kw_only=True)
class PeakUsed(Result):
    """The per-chip peak an estimate used, stated in full: value, format(s), tensor cores, fallbacks."""

    hardware_kind: Literal["chip", "custom_chip", "custom_peak", "year_trend"]
    hardware_name: str
    chip_id: str | None
    peak_flop_per_s: float
    unit: str
    precision: str
    tensor_cores: bool
    parts: list[FormatPeak]
    split_basis: SplitBasis | None
    fallback_used: bool
    fallbacks: list[str]
    notes: list[str]
    assumed_format: str | None = None
    """Set when no format was given: the chip's default, e.g. 'BF16 tensor'."""
    peak_low_flop_per_s: float | None = None
    peak_high_flop_per_s: float | None = None
    """Unknown hardware: the 90% band of the year's trend peak."""

    def describe(self) -> str:
        """The format(s) in words, each with the units that ran it: 'BF16 on tensor cores', or for a split
        'mixed (fractions of the work): BF16 70% on tensor cores (989.4 TFLOP/s), FP32 30% on vector units
        (66.9 TFLOP/s)'."""
        def units(part: FormatPeak) -> str:
            return "tensor cores" if part.tensor_cores else "vector units"

        def name(part: FormatPeak) -> str:
            return part.precision.upper()

        if self.split_basis is None:
            part = self.parts[0]
            return f"{name(part)} on {units(part)}" + (" (fallback)" if part.fallback else "")
        return (f"mixed (fractions of the {self.split_basis}): "
                + ", ".join(f"{name(p)} {100 * p.fraction:.4g}% on {units(p)} "
                            f"({format_number(p.peak_flop_per_s / 1e12)} T{p.unit})" for p in self.parts))


def _hardware(spec: HardwareSpec, db: HardwareDB) -> tuple[str, Chip, dict | None]:
    if spec.chip is not None:
        return "chip", db.chip(spec.chip), None
    if spec.custom_chip is not None:
        return "custom_chip", spec.custom_chip, None
    chip, trends = year_chip(db, spec.year, spec.hardware_class)
    return "year_trend", chip, trends


def resolve_peak(spec: HardwareSpec | Mapping, db: HardwareDB | None = None) -> PeakUsed:
    """The per-chip peak for ``spec``: one format's dense peak, or a mixed split's effective peak.

    With no format given, the chip's ``default_format`` (what such chips trained in) is used and
    named in ``assumed_format``.
    """
    spec = parse_input(HardwareSpec, spec)
    notes: list[str] = []
    if spec.peak_flop_per_s is not None:
        precision = spec.precision or "fp32"
        # the same rule as for a chip: fp32 and int8 are not chosen by the tensor-core switch
        tensor = is_tensor(requested_peak_key(precision, spec.tensor_cores))
        part = FormatPeak(precision=precision, tensor_cores_requested=spec.tensor_cores, peak_key="custom",
                          peak_flop_per_s=spec.peak_flop_per_s, unit=peak_unit(precision),
                          tensor_cores=tensor)
        notes.append("custom peak used as given: it should be the DENSE peak of the format the run "
                     "used (NVIDIA prints tensor figures with sparsity, 2× too high)")
        return PeakUsed(hardware_kind="custom_peak", hardware_name="custom peak", chip_id=None,
                        peak_flop_per_s=spec.peak_flop_per_s, unit=part.unit, precision=precision,
                        tensor_cores=tensor, parts=[part], split_basis=None,
                        fallback_used=False, fallbacks=[], notes=notes)
    db = db or load_hardware_db()
    kind, chip, trends = _hardware(spec, db)
    mixed = spec.mixed_precision is not None
    assumed = None
    if mixed or spec.precision is not None:
        formats = [(precision, fraction, spec.tensor_cores) for precision, fraction in spec.formats.items()]
    else:
        key = chip.usual_format
        precision, tensor = format_of_peak_key(key)
        formats = [(precision, 1.0, tensor)]
        assumed = peak_key_label(key)
        notes.append(f"assumed {assumed}, the usual training format of {chip.name}; choose a number format to "
                     "change it")
    parts: list[FormatPeak] = []
    for precision, fraction, tensor_cores in formats:
        part = select_format_peak(chip.peaks, precision, tensor_cores, chip_label=chip.name,
                                  allow_fallback=spec.allow_fallback,
                                  field=f"mixed_precision.{precision}" if mixed else "precision")
        parts.append(replace(part, fraction=fraction))
        if precision == "fp32" and tensor_cores and not assumed:
            notes.append("fp32 uses the vector-unit peak: tensor-core FP32 is TF32 (choose tf32)")
        if precision == "int8":
            notes.append("int8 is one stored figure, in OP/s (tensor cores where the chip has them)")
    low = high = None
    if trends is not None:
        for part in parts:
            notes.append(trends[part.peak_key].describe())
        if not mixed:
            low, high = trends[parts[0].peak_key].low_flop_per_s, trends[parts[0].peak_key].high_flop_per_s
    peak = (effective_peak_flop_per_s([(p.fraction, p.peak_flop_per_s) for p in parts], spec.split_basis)
            if mixed else parts[0].peak_flop_per_s)
    if mixed:
        notes.append("mixed split: " + ("harmonic combination of the peaks, weighted by fraction of the "
                                        "FLOP" if spec.split_basis == "work" else
                                        "peaks weighted by fraction of the time (A × t1 + B × t2)"))
    fallbacks = [p.fallback for p in parts if p.fallback]
    units = {p.unit for p in parts}
    return PeakUsed(
        hardware_kind=kind, hardware_name=chip.name, chip_id=chip.id if kind == "chip" else None,
        peak_flop_per_s=peak, unit=units.pop() if len(units) == 1 else "FLOP/s and OP/s",
        precision="mixed" if mixed else parts[0].precision,
        tensor_cores=all(p.tensor_cores for p in parts), parts=parts,
        split_basis=spec.split_basis if mixed else None, fallback_used=bool(fallbacks),
        fallbacks=fallbacks, notes=list(dict.fromkeys(notes)), assumed_format=assumed,
        peak_low_flop_per_s=low, peak_high_flop_per_s=high)


@dataclass(frozen=True, slots=True, kw_only=True)
class Method2Estimate(Result):
    """Training FLOP by method 2 (whole run), with every input it used; ``peak`` states the per-chip peak
    (value, format, tensor cores, fallbacks) and is not copied here."""

    training_flop: float
    pfs_days: float
    training_flop_low: float | None
    training_flop_high: float | None
    pfs_days_low: float | None
    pfs_days_high: float | None
    chip_count: float | None
    chip_hours: float
    wall_clock_hours: float | None
    utilization: float
    utilization_low: float | None
    utilization_high: float | None
    peak: PeakUsed
    formula: str
    interval: Interval | None = None
    """90% interval from the ranges given (utilization, time, chips, the unknown-hardware peak band)."""
    costs: Result | None = None
    """Cost, energy and CO₂ of the run (a ``costs.CostEstimate``), where asked for (the Python API's
    ``estimate_hardware``); left out of the JSON view when absent."""
    json_omit_default: ClassVar[frozenset[str]] = frozenset({"costs"})


def _time_text(run: HardwareRun) -> str:
    if run.duration_unit in ("days", "hours"):
        return f"{plural(run.chip_count, 'chip')} × {format_time_amount(run.duration, run.duration_unit)}"
    return format_time_amount(run.duration, run.duration_unit)


def estimate_method2(run: HardwareRun | Mapping, db: HardwareDB | None = None) -> Method2Estimate:
    """C = chips × time × peak × utilization, with a 90% interval when any input is a range
    (``engine.ranges.product_interval``: exact for a product)."""
    run = parse_input(HardwareRun, run)
    peak = resolve_peak(run, db)
    chip_peak_flop = run.chip_seconds * peak.peak_flop_per_s  # FLOP at 100% utilization

    flop = chip_peak_flop * run.utilization
    if not math.isfinite(chip_peak_flop):  # a custom chip's peak near the float limit
        raise InputError("hardware", f"chips × time × peak is beyond {sys.float_info.max:.2g} FLOP; check the "
                                     "peak, the chip count and the time")
    factors = run.factors()
    if peak.peak_low_flop_per_s and peak.peak_high_flop_per_s:
        factors.append(Factor("peak (unknown hardware)", peak.peak_flop_per_s, peak.peak_low_flop_per_s,
                              peak.peak_high_flop_per_s, "peak_flop_per_s"))
    interval = product_interval(flop, factors) if factors else None
    low, high = (interval.low, interval.high) if interval else (None, None)
    formula = (f"{_time_text(run)} = {format_flop(run.chip_seconds, 'chip-s', 4)} × "
               f"{format_flop(peak.peak_flop_per_s, peak.unit, 4)} × {run.utilization:g} = {format_flop(flop)} = "
               f"{format_pf_days(flop / PFS_DAY_FLOP)}")
    return Method2Estimate(
        training_flop=flop, pfs_days=flop_to_pfs_days(flop), training_flop_low=low, training_flop_high=high,
        pfs_days_low=None if low is None else flop_to_pfs_days(low),
        pfs_days_high=None if high is None else flop_to_pfs_days(high),
        chip_count=run.chip_count, chip_hours=run.chip_seconds / SECONDS_PER_HOUR,
        wall_clock_hours=run.wall_clock_hours, utilization=run.utilization,
        utilization_low=run.utilization_low, utilization_high=run.utilization_high,
        peak=peak, formula=formula, interval=interval)
