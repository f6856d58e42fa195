"""The hardware database (``hardware_db.json``): chips and their DENSE peak FLOP/s per number format.

One validated model reads the file; every figure the engine uses for method 2 comes through it.
A user-defined ``Chip`` (a name and a few peaks) goes wherever a database chip goes.
"""

import difflib
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (BaseModel, ConfigDict, Field, PrivateAttr, create_model, field_validator,
                      model_validator)

from ..shipped import read_shipped_json, shipped_data_error, shipped_file
from ..errors import InputError, PositiveFinite, parse_input, quoted
from .formats import PEAK_FORMATS, PEAK_KEYS, peak_unit  # noqa: F401 (peak_unit re-exported)

HARDWARE_DB_PATH = shipped_file("hardware_db.json")

# A tensor peak must be at least the vector peak of the SAME format (the reason tensor units exist).
_TENSOR_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (f.key, v.key) for f in PEAK_FORMATS for v in PEAK_FORMATS
    if f.stored and v.stored and f.tensor and not v.tensor and f.precision == v.precision)

ChipKind = Literal["gpu", "tpu", "cpu", "accelerator"]
Segment = Literal["data_center", "workstation", "consumer"]
"""Market class: data-centre accelerators vs workstation (Quadro/RTX A) and consumer (GeForce/Radeon) cards."""
PeakKey = Literal["fp64", "fp64_tensor", "fp32", "tf32_tensor", "fp16", "fp16_tensor", "bf16_tensor", "fp8_tensor",
                  "fp6_tensor", "fp4_tensor", "int8"]

_USUAL_ORDER = ("bf16_tensor", "fp16_tensor", "fp32", "fp16", "fp8_tensor", "int8")
_SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"
_DATE = r"^(19|20)\d\d-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$"


class _PeaksBase(BaseModel):
    """Dense peak throughput per number format, per chip (FLOP/s; OP/s for int8). Absent = lacking.
    One optional field per stored row of ``engine.method2.formats`` (``Peaks`` below)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="after")
    def _invariants(self):
        if not self.available():
            raise ValueError(f"a chip needs at least one peak ({', '.join(PEAK_KEYS)})")
        for tensor_key, vector_key in _TENSOR_PAIRS:
            tensor, vector = getattr(self, tensor_key), getattr(self, vector_key)
            if tensor is not None and vector is not None and tensor < vector:
                raise ValueError(f"{tensor_key} ({tensor:.4g}) is below {vector_key} ({vector:.4g}): "
                                 "a tensor peak is at least the non-tensor one")
        return self

    def get(self, peak_key: str) -> float | None:
        """The peak for ``peak_key`` (None when the chip lacks it or the key is not a peak key)."""
        return getattr(self, peak_key, None) if peak_key in PEAK_KEYS else None

    def available(self) -> dict[str, float]:
        """The peaks this chip has, in ``PEAK_KEYS`` order."""
        return {k: v for k in PEAK_KEYS if (v := getattr(self, k)) is not None}


Peaks = create_model("Peaks", __base__=_PeaksBase, __module__=__name__,
                     **{key: (PositiveFinite | None, None) for key in PEAK_KEYS})


KernelFormat = Literal["fp8", "fp6", "fp4"]
Architecture = Literal["ampere", "hopper", "blackwell", "cdna3", "cdna4"]


MatmulFormat = Literal["bf16", "fp8", "fp6", "fp4"]


class KernelFigures(BaseModel):
    """What the kernel step-time model (``engine.plan.kernel``) needs of a chip beyond its dense peaks and memory
    bandwidth: the multiprocessors a GEMM's output tiles are spread over (NVIDIA SMs, AMD compute units), its
    generation, and its maximum achievable matmul rate per format (a share of that format's dense peak, measured)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    multiprocessors: int = Field(ge=1, le=100_000, strict=True)
    architecture: Architecture = Field(description="the chip's generation: which attention kernels and rates apply")
    source: str = Field(min_length=1, max_length=400, description="where the multiprocessor count is printed")
    matmul_efficiency: dict[MatmulFormat, Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]] = Field(
        description="maximum achievable matmul FLOP/s ÷ the format's dense peak (bf16 required)")
    matmul_source: str = Field(min_length=1, max_length=700, description="where the matmul rates were measured")

    @model_validator(mode="after")
    def _bf16_rate(self):
        if "bf16" not in self.matmul_efficiency:
            raise ValueError("matmul_efficiency needs the BF16 rate")
        return self


class Chip(BaseModel):
    """One chip: identity, memory, power, dense peaks per format, an indicative price, sources.

    A user-defined chip needs only ``name`` and ``peaks``; database chips also carry a source.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field("custom", pattern=_SLUG, max_length=80)
    name: str = Field(min_length=1, max_length=120)
    aliases: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(default_factory=list,
                                                                             max_length=20)
    vendor: str = Field("custom", max_length=60)
    kind: ChipKind = "accelerator"
    segment: Segment = "data_center"
    release_date: str | None = Field(None, pattern=_DATE, description="YYYY-MM-DD or YYYY-MM (launch)")
    memory_gb: PositiveFinite | None = None
    memory_bandwidth_gb_s: PositiveFinite | None = None
    tdp_w: Annotated[float, Field(gt=0, le=1e7, allow_inf_nan=False)] | None = None
    peaks: Peaks
    sparse_tensor_cores: bool = Field(False, description="2:4 sparse products at twice the dense rate (NVIDIA Ampere "
                                                         "and later, AMD CDNA 3); the peaks stay dense")
    default_format: PeakKey | None = Field(
        None, description="the peak a run on this chip is assumed to use when no format is given: what such "
                          "chips trained in (FP32 before tensor cores, FP16 tensor on V100/T4-era parts, BF16 "
                          "tensor on A100/H100/TPU)")
    price_usd_per_hour: Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)] | None = Field(
        None, description="INDICATIVE rental price per chip-hour; see price_basis")
    price_basis: str | None = Field(None, max_length=400)
    source: list[Annotated[str, Field(min_length=1, max_length=400)]] = Field(default_factory=list,
                                                                             max_length=10)
    notes: str = Field("", max_length=2000)
    kernel: KernelFigures | None = Field(None, description="the kernel step-time model's figures (multiprocessors, "
                                                           "measured format rates), with their sources")

    @model_validator(mode="after")
    def _kernel_has_its_inputs(self):
        if self.kernel is not None and (self.memory_bandwidth_gb_s is None or self.peaks.get("bf16_tensor") is None):
            raise ValueError("kernel figures need the chip's memory bandwidth and its dense BF16 tensor peak")
        return self

    @model_validator(mode="after")
    def _default_format_is_a_peak(self):
        if self.default_format is not None and self.peaks.get(self.default_format) is None:
            raise ValueError(f"default_format '{self.default_format}' is not one of this chip's peaks "
                             f"({', '.join(self.peaks.available())})")
        return self

    @property
    def usual_format(self) -> str | None:
        """The peak key assumed when a run names no format: ``default_format``, else (a user-defined chip)
        its BF16 tensor, FP16 tensor, FP32, FP16, FP8 tensor or INT8 peak, the first it has."""
        if self.default_format:
            return self.default_format
        available = self.peaks.available()
        return next((k for k in _USUAL_ORDER if k in available), next(iter(available), None))

    @model_validator(mode="after")
    def _price_has_basis(self):
        if self.price_usd_per_hour is not None and self.id != "custom" and not self.price_basis:
            raise ValueError("price_usd_per_hour needs a price_basis (what the indicative price is)")
        return self

    @property
    def release_year(self) -> int | None:
        return int(self.release_date[:4]) if self.release_date else None

    def summary(self) -> dict:
        """The fields a chip list shows (id, name, release date, vendor, kind, dense peaks…)."""
        return {
            "id": self.id, "name": self.name, "vendor": self.vendor, "kind": self.kind,
            "release_date": self.release_date, "aliases": list(self.aliases),
            "memory_gb": self.memory_gb, "memory_bandwidth_gb_s": self.memory_bandwidth_gb_s,
            "tdp_w": self.tdp_w, "peaks_flop_per_s": self.peaks.available(), "segment": self.segment,
            "default_format": self.default_format,
            "price_usd_per_hour": self.price_usd_per_hour, "price_basis": self.price_basis,
        }


class UtilizationPreset(BaseModel):
    """A published utilization assumption, with where it comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=_SLUG)
    label: str
    utilization: float = Field(gt=0, le=1, allow_inf_nan=False)
    applies_to: str
    source: str
    url: str


class EnergyDefaults(BaseModel):
    """Defaults for energy and CO2, each with its source."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pue: float = Field(ge=1, allow_inf_nan=False)
    pue_source: str
    grid_kg_co2_per_kwh: float = Field(ge=0, allow_inf_nan=False)
    grid_source: str


_NOT_KEY = re.compile(r"[^a-z0-9]")


def _lookup_key(text: str) -> str:
    """Case, spaces, dashes and brackets do not matter in a chip name: 'H100-SXM' == 'h100 sxm'."""
    return _NOT_KEY.sub("", text.lower())


_VENDOR_PREFIXES = ("nvidia", "google", "amd", "intel", "habana", "tesla", "geforce", "instinct", "cloud")


def find_in(index: dict, name: str):
    """What ``index`` (lookup key → chip) holds for ``name``: its key, else the key without vendor words
    ('NVIDIA Tesla V100' → 'V100'); None when neither is there."""
    key = _lookup_key(name)
    if key in index:
        return index[key]
    for prefix in _VENDOR_PREFIXES:
        if key.startswith(prefix) and key[len(prefix):]:
            key = key[len(prefix):]
            if key in index:
                return index[key]
    return None


class HardwareDB(BaseModel):
    """The whole database: conventions, energy defaults, utilization presets and chips."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    schema_version: Literal[1]
    description: str
    conventions: list[str]
    defaults: EnergyDefaults
    utilization_presets: list[UtilizationPreset]
    chips: list[Chip] = Field(min_length=1)
    _lookup_index: dict[str, Chip] | None = PrivateAttr(default=None)

    @field_validator("chips")
    @classmethod
    def _chips_sourced_and_unique(cls, chips: list[Chip]) -> list[Chip]:
        ids = [chip.id for chip in chips]
        if len(ids) != len(set(ids)):
            raise ValueError(f"chip ids must be unique: {sorted({i for i in ids if ids.count(i) > 1})}")
        owner: dict[str, str] = {}
        for chip in chips:
            if not chip.source:
                raise ValueError(f"{chip.id}: every database chip needs a source (datasheet link)")
            if chip.id == "custom":
                raise ValueError("'custom' is reserved for user-defined chips")
            if chip.release_date is None:
                raise ValueError(f"{chip.id}: every database chip needs a release_date")
            for name in (chip.id, chip.name, *chip.aliases):
                key = _lookup_key(name)
                if owner.get(key, chip.id) != chip.id:
                    raise ValueError(f"'{name}' names both {owner[key]} and {chip.id}")
                owner[key] = chip.id
        return chips

    @field_validator("utilization_presets")
    @classmethod
    def _unique_presets(cls, presets: list[UtilizationPreset]) -> list[UtilizationPreset]:
        ids = [p.id for p in presets]
        if len(ids) != len(set(ids)):
            raise ValueError("utilization preset ids must be unique")
        return presets

    def _index(self) -> dict[str, Chip]:
        if self._lookup_index is None:  # built once per instance (the model is frozen)
            self._lookup_index = {_lookup_key(name): chip for chip in self.chips
                                  for name in (chip.id, chip.name, *chip.aliases)}
        return self._lookup_index

    def find(self, name: str) -> Chip | None:
        """The chip called ``name`` (id, name or alias; case, spaces and dashes ignored), or None."""
        return find_in(self._index(), name)

    def chip(self, name: str, year: int | None = None) -> Chip:
        """The chip called ``name``, or ``InputError('chip', …)`` with the nearest names (and, given the
        ``year`` of the run, the chips launched in the two years before it)."""
        if not isinstance(name, str) or not name.strip():
            raise InputError("chip", "give a chip id or name (see `python -m engine chips`)")
        found = self.find(name)
        if found is not None:
            return found
        parts = [p.strip() for p in name.split(",") if p.strip()]
        if len(parts) > 1:
            named = "; ".join(f"{quoted(p)} → {c.id}" if (c := self.find(p)) else f"{quoted(p)} (unknown)"
                              for p in parts[:6])
            raise InputError("chip", f"several chip types ({named}): method 2 needs one type and its count; "
                                     "estimate each part separately and add them")
        raise InputError("chip", self.unknown_chip_message(name, year))

    def unknown_chip_message(self, name: str, year: int | None = None) -> str:
        """'unknown chip 'X'; …' with the nearest ids by name and, given a year, by launch date."""
        index = self._index()
        key = _lookup_key(name)[:MATCHED_CHARS]  # difflib is quadratic in the length (docs/performance.md)
        close = difflib.get_close_matches(key, list(index), n=6, cutoff=0.6)
        ids = list(dict.fromkeys(index[c].id for c in close))[:3]
        hint = f" (did you mean {', '.join(ids)}?)" if ids else ""
        text = f"unknown chip {quoted(name)}; see `python -m engine chips` for the ids{hint}"
        if year is not None:
            recent = [c for c in self.chips if c.kind != "cpu" and c.release_year is not None
                      and year - 2 <= c.release_year <= year]
            recent.sort(key=lambda c: -max(difflib.SequenceMatcher(None, key, _lookup_key(n)).ratio()
                                           for n in (c.id, c.name, *c.aliases)))
            if recent:
                text += f"; launched {year - 2}–{year}: {', '.join(c.id for c in recent[:3])}"
        return text

    def preset(self, preset_id: str) -> UtilizationPreset:
        for preset in self.utilization_presets:
            if preset.id == preset_id:
                return preset
        known = ", ".join(f"{p.id} ({p.utilization:g})" for p in self.utilization_presets)
        raise InputError("utilization", f"unknown preset {quoted(preset_id)}; presets: {known}")


MATCHED_CHARS = 80
"""How much of an unknown chip's name is compared with the known ones (the longest known name is far shorter)."""


@lru_cache(maxsize=8)
def _load(path_text: str) -> HardwareDB:
    path = Path(path_text)
    data = read_shipped_json(path, {"chips": list})
    try:
        return parse_input(HardwareDB, data, source="hardware_db")
    except InputError as exc:
        raise shipped_data_error(path, exc) from None


def load_hardware_db(path: str | Path | None = None) -> HardwareDB:
    """The validated hardware database (``hardware_db.json`` at the repository root by default), cached."""
    return _load(str(Path(path).resolve() if path is not None else HARDWARE_DB_PATH))
