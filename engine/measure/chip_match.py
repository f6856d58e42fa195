"""The chip a trace ran on, from its ``deviceProperties`` (the GPU's name, memory, multiprocessors), matched to
``hardware_db.json``; the peak of an operator's number format on it.

A name is looked up as the database does (id, name or alias; vendor words, spaces and dashes ignored), after
dropping what drivers append: AMD's ``VF`` (a virtual function), NVIDIA's memory and board suffixes
(``NVIDIA H100 80GB HBM3`` → H100 SXM, the part with HBM3; ``NVIDIA A100-SXM4-80GB``). Some devices report a
generic name (ROCm: ``AMD Radeon Graphics``); those are matched by their fingerprint (architecture, compute
units, memory) in ``FINGERPRINTS``. A device that matches nothing is unknown: the user names the chip
(``--chip``, the page's chip box).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import InputError, parse_input
from ..method2.formats import FORMAT_BY_KEY
from ..method2.hardware_db import (
    HARDWARE_DB_PATH,
    Chip,
    HardwareDB,
    _lookup_key,
    find_in,
    load_hardware_db,
)
from ..method2.precision import FormatPeak, select_format_peak
from ..results import Result

_KEY_OR_CUT = bytes(b for b in range(256) if not (97 <= b <= 122 or 48 <= b <= 57 or b == 0))
"""What ``_lookup_key`` drops (every byte but a-z, 0-9; non-ASCII characters, as UTF-8, are bytes >= 128), the
separator between names kept."""
_SUFFIXES = (re.compile(r"\s+VF$", re.IGNORECASE),)
_NAMES = (
    # (pattern on the reported name, database id, why)
    (re.compile(r"H100.*(HBM3|SXM)", re.IGNORECASE), "nvidia-h100-sxm", "HBM3 memory: the SXM5 part"),
    (re.compile(r"H100.*PCIe", re.IGNORECASE), "nvidia-h100-pcie", "the PCIe card"),
    (re.compile(r"H100 NVL", re.IGNORECASE), "nvidia-h100-nvl", "the NVL card"),
    (re.compile(r"A100-PG509", re.IGNORECASE), "nvidia-a100-sxm4-40gb",
     "PG509 is NVIDIA's SXM4 A100 module (40 GB when the memory says so)"),
    (re.compile(r"A100.*SXM4?-?80", re.IGNORECASE), "nvidia-a100-sxm4-80gb", "SXM4, 80 GB"),
    (re.compile(r"A100.*PCIE.*80", re.IGNORECASE), "nvidia-a100-pcie-80gb", "PCIe, 80 GB"),
    (re.compile(r"A100.*PCIE", re.IGNORECASE), "nvidia-a100-pcie-40gb", "PCIe, 40 GB"),
    (re.compile(r"A100.*SXM", re.IGNORECASE), "nvidia-a100-sxm4-40gb", "SXM4, 40 GB"),
    (re.compile(r"V100.*PCIE", re.IGNORECASE), "nvidia-tesla-v100-pcie", "the PCIe card"),
    (re.compile(r"V100", re.IGNORECASE), "nvidia-tesla-v100-sxm2", "SXM2 (NVLink) V100"),
    (re.compile(r"H200", re.IGNORECASE), "nvidia-h200-sxm", "the H200"),
    (re.compile(r"GB200", re.IGNORECASE), "nvidia-gb200", "a GB200 Blackwell GPU"),
    (re.compile(r"\bB200", re.IGNORECASE), "nvidia-b200", "the B200"),
)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    vendor: str
    compute: tuple[int, int]
    multiprocessors: int
    memory_gib: tuple[float, float]
    chip_id: str
    share: float
    why: str


FINGERPRINTS = (
    Fingerprint("AMD", (9, 0), 104, (60, 68), "amd-instinct-mi250", 0.5,
                "gfx90a with 104 compute units and 64 GB: one of an MI250's two dies (half its peak)"),
    Fingerprint("AMD", (9, 0), 110, (60, 68), "amd-instinct-mi250x", 0.5,
                "gfx90a with 110 compute units and 64 GB: one of an MI250X's two dies (half its peak)"),
)
"""Devices that report a generic name, recognised by architecture, compute units and memory. An MI250(X) shows
each of its two dies as a device: ``share`` is the device's part of the package's peak."""


@dataclass(frozen=True, slots=True)
class ChipMatch(Result):
    """The database chip a device is (``chip``), its share of the chip's peaks (one die of two: 0.5), and how
    it was matched (``how``); ``chip`` None for an unknown device."""

    device: str
    chip: Chip | None
    share: float
    how: str

    def peak(self, fmt: str | None, matrix: bool) -> FormatPeak | None:
        """The dense peak the chip gives an operator computing in ``fmt`` (``matrix``: on its matrix units);
        formats the chip lacks fall back as ``engine.method2.formats`` says (flagged)."""
        if self.chip is None or fmt is None:
            return None
        precision = {"fp8": "fp8", "fp4": "fp4", "int8": "int8"}.get(fmt, fmt)
        tensor = matrix and precision != "fp32"
        if precision not in {f.precision for f in FORMAT_BY_KEY.values()}:
            return None
        try:
            peak = select_format_peak(self.chip.peaks, precision, tensor, chip_label=self.chip.name,
                                      allow_fallback=True)
        except InputError:
            return None
        if self.share != 1.0:
            return FormatPeak(precision=peak.precision, tensor_cores_requested=peak.tensor_cores_requested,
                              peak_key=peak.peak_key, peak_flop_per_s=peak.peak_flop_per_s * self.share,
                              unit=peak.unit, tensor_cores=peak.tensor_cores, fallback=peak.fallback)
        return peak

    @property
    def bandwidth_bytes_per_s(self) -> float | None:
        if self.chip is None or self.chip.memory_bandwidth_gb_s is None:
            return None
        return self.chip.memory_bandwidth_gb_s * 1e9 * self.share


def device_name(meta: dict) -> str | None:
    """The first GPU's name in ``deviceProperties`` (None when the trace has none: a CPU-only trace)."""
    props = meta.get("deviceProperties")
    if isinstance(props, list) and props and isinstance(props[0], dict):
        name = props[0].get("name")
        return str(name)[:120] if name is not None else None
    return None


class OneChip:
    """The database read for the one chip a trace needs: ``hardware_db.json``'s chips by their ids, and by all their
    names (``HardwareDB.find``'s rules; that index built on the first lookup that is not an exact id), the chip
    found validated by the database's chip model (``Chip``) — a trace needs one chip, not 121 validated. A name it
    does not hold goes to the whole database (``load_hardware_db``), whose message names the nearest chips."""

    def __init__(self, path=HARDWARE_DB_PATH):
        self.chips, self.names = _read_db(path)
        self.ids = {chip_id: i for i, (chip_id, _, _) in enumerate(self.names) if isinstance(chip_id, str)}
        self.index: dict[str, int] | None = None
        self.valid: dict[int, Chip] = {}

    def _index(self) -> dict[str, int]:
        if self.index is None:
            named = [(n, i) for i, (chip_id, name, aliases) in enumerate(self.names)
                     for n in (chip_id, name, *(aliases or ())) if isinstance(n, str)]
            text = "\x00".join(n for n, _ in named)
            keys = text.lower().encode("utf-8", "surrogatepass").translate(None, _KEY_OR_CUT).decode("ascii").split(
                "\x00")  # every name's _lookup_key in one pass
            if len(keys) != len(named):  # a name holding the separator: one at a time
                keys = [_lookup_key(n) for n, _ in named]
            self.index = {key: i for key, (_, i) in zip(keys, named)}
        return self.index

    def find(self, name: str) -> Chip | None:
        i = self.ids.get(name)  # an exact id is its chip's own key (the database's names are unique)
        if i is None:
            i = find_in(self._index(), name)
        if i is None:
            return None
        if i not in self.valid:
            entry = self.chips[i]
            if not isinstance(entry, dict):  # its raw JSON, decoded now that it is wanted
                import msgspec

                entry = msgspec.json.decode(entry)
            self.valid[i] = parse_input(Chip, entry, source=f"hardware_db.chips.{i}")
        return self.valid[i]

    def chip(self, name: str) -> Chip:
        found = self.find(name) if isinstance(name, str) and name.strip() else None
        return found if found is not None else load_hardware_db().chip(name)


def _read_db(path) -> tuple[list, list]:
    """``hardware_db.json``'s chips as (each chip's entry, each chip's (id, name, aliases)). By
    msgspec where it is installed: each chip kept as its raw JSON and only its names decoded (a trace needs one
    chip's figures); anything msgspec refuses, and any file that is not an object with a list of chip objects, goes
    to ``read_shipped_json`` (the standard library, and its messages)."""
    from ..shipped import read_shipped_json

    try:
        if _Names is None:
            raise ImportError("msgspec")
        chips = _DECODE_TOP(path.read_bytes())["chips"]
        names = _DECODE_NAMES(chips)
        if names:
            return _DECODE_RAWS(chips), [(n.id, n.name, n.aliases) for n in names]
    except (ImportError, OSError, ValueError, KeyError):
        pass
    data = read_shipped_json(path, {"chips": list})
    chips = data["chips"]
    return chips, [(e.get("id"), e.get("name"), e.get("aliases")) if isinstance(e, dict) else (None, None, None)
                   for e in chips]


try:
    import msgspec as _msgspec

    class _Names(_msgspec.Struct):
        """A chip entry's names (its other fields skipped)."""

        id: object = None
        name: object = None
        aliases: object = None

    # the decoders' types resolved once, as trace_fast's are (a decoder holds no data)
    _DECODE_TOP = _msgspec.json.Decoder(dict[str, _msgspec.Raw]).decode
    _DECODE_NAMES = _msgspec.json.Decoder(list[_Names]).decode
    _DECODE_RAWS = _msgspec.json.Decoder(list[_msgspec.Raw]).decode
except ImportError:  # pragma: no cover - msgspec is optional here
    _Names = None


@lru_cache(maxsize=1)
def _one_chip() -> OneChip:
    """The database file read once per process (its first trace pays for it)."""
    return OneChip()


def match_chip(meta: dict, chip: str | None = None, db: HardwareDB | None = None) -> ChipMatch:
    """The chip of a trace: ``chip`` when the user names one (an unknown name is an ``InputError('--chip', …)``),
    else the device's name, then its fingerprint; else an unknown chip."""
    db = db or _one_chip()
    device = device_name(meta) or ""
    if chip:
        return ChipMatch(device, db.chip(chip), 1.0, "named by you")
    if not device:
        return ChipMatch(device, None, 1.0, "the trace names no GPU")
    name = device
    for suffix in _SUFFIXES:
        name = suffix.sub("", name)
    for pattern, chip_id, why in _NAMES:
        if pattern.search(name):
            return ChipMatch(device, db.chip(chip_id), 1.0, f"'{device}': {why}")
    found = db.find(name)
    if found is not None:
        return ChipMatch(device, found, 1.0, f"'{device}' is the database's {found.name}")
    props = meta["deviceProperties"][0]
    vendor = "AMD" if "AMD" in device.upper() or props.get("warpSize") == 64 else "NVIDIA"
    compute = (props.get("computeMajor"), props.get("computeMinor"))
    sms = props.get("numSms")
    mem = props.get("totalGlobalMem")
    gib = mem / 2**30 if isinstance(mem, (int, float)) else -1
    for fp in FINGERPRINTS:
        if fp.vendor == vendor and compute == fp.compute and sms == fp.multiprocessors \
                and fp.memory_gib[0] <= gib <= fp.memory_gib[1]:
            return ChipMatch(device, db.chip(fp.chip_id), fp.share, f"'{device}': {fp.why}")
    return ChipMatch(device, None, 1.0, f"'{device}' is not in the chip database: name the chip")
