"""A measurement's summary ⇄ a share link's ``?m=`` token: the figures travel, never the trace.

The summary is a subset of ``TraceMeasurement``'s JSON view, under the same keys (so the page shows a shared
summary with the same views): the file and device names, the chip, every step's split (at most
``MAX_STEPS``), HFU and MFU with the peak, the heaviest operators (at most ``MAX_OPS``) and the bottlenecks.
Token: ``m1.`` + base64url(zlib(compact JSON)); decoding is bounded (link length, inflated size) and ends in
pydantic validation (``MeasureSummary``), so a crafted link can only give a one-line message.
"""
from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError, parse_input

QUERY_KEY = "m"
VERSION = "m1"
MAX_LINK_CHARS = 12_000
MAX_INFLATED = 200_000
MAX_STEPS, MAX_OPS, MAX_BOTTLENECKS = 20, 12, 8
LINK_BOUNDS = "HFU and MFU up to 10,000%, a step up to 10⁹ ms"
"""The figures a summary carries, in words (``MeasureSummary``'s bounds: a crafted link can claim no more)."""
Text = Annotated[str, Field(max_length=300)]
Ms = Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False)] | None
Count = Annotated[float, Field(ge=0, le=1e40, allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StepLine(_Model):
    name: Text
    total_ms: Ms = None
    busy_ms: Ms = None
    computation_ms: Ms = None
    exposed_comm_ms: Ms = None
    exposed_memcpy_ms: Ms = None
    idle_ms: Ms = None
    comm_ms: Ms = None
    memcpy_ms: Ms = None
    op_flop: Count = 0
    computation_by_family_ms: dict[Annotated[str, Field(max_length=40)], Annotated[float, Field(ge=0, le=1e9)]] = \
        Field(default_factory=dict, max_length=8)


class OpLine(_Model):
    name: Text
    input_dims: Text
    dtype: Annotated[str, Field(max_length=20)] | None = None
    calls: Annotated[int, Field(ge=0, le=10**12)]
    flop_per_call: Count | None = None
    kernel_time_us: Annotated[float, Field(ge=0, le=1e15, allow_inf_nan=False)]
    tflops_per_s: Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False)] | None = None
    bound: Annotated[str, Field(pattern="^(compute|memory)$")] | None = None


class BottleneckLine(_Model):
    finding: Text
    remedy: Text
    share: Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False)] = 0


class MeasureSummary(_Model):
    """What a share link carries of a measured run (see the module docstring)."""

    file: Text
    device: Text | None = None
    chip: Text | None = None
    chip_name: Text | None = None
    gpu: bool = True
    hfu: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    mfu: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    peak: Text | None = None
    steps: list[StepLine] = Field(default_factory=list, max_length=MAX_STEPS)
    ops: list[OpLine] = Field(default_factory=list, max_length=MAX_OPS)
    bottlenecks: list[BottleneckLine] = Field(default_factory=list, max_length=MAX_BOTTLENECKS)
    unattributed_kernel_time_us: Annotated[float, Field(ge=0, le=1e15, allow_inf_nan=False)] = 0


def summary_of(result: dict) -> MeasureSummary:
    """The summary of a measurement's JSON view (``TraceMeasurement.as_dict()``)."""
    u = result.get("utilization") or {}
    ops = [{"name": o["name"][:300], "input_dims": json.dumps(o["input_dims"])[:300], "dtype": o["dtype"],
            "calls": o["calls"], "flop_per_call": o["flop_per_call"], "kernel_time_us": o["kernel_time_us"],
            "tflops_per_s": o["tflops_per_s"], "bound": o["bound"]} for o in result["ops"][:MAX_OPS]]
    steps = [{k: s.get(k) for k in StepLine.model_fields if k in s} for s in result["steps"][:MAX_STEPS]]
    for s in steps:
        s["name"] = str(s["name"])[:300]
        s["computation_by_family_ms"] = dict(list((s.get("computation_by_family_ms") or {}).items())[:8])
    return parse_input(MeasureSummary, {
        "file": str(result["file"])[:300], "device": (result.get("device") or None) and str(result["device"])[:300],
        "chip": result.get("chip"), "chip_name": result.get("chip_name"), "gpu": bool(result.get("gpu", True)),
        "hfu": result.get("hfu"), "mfu": result.get("mfu"), "peak": u.get("peak"), "steps": steps, "ops": ops,
        "bottlenecks": [{k: b[k][:300] if isinstance(b[k], str) else b[k] for k in ("finding", "remedy", "share")}
                        for b in result.get("bottlenecks", [])[:MAX_BOTTLENECKS]],
        "unattributed_kernel_time_us": result.get("unattributed_kernel_time_us") or 0}, source="summary")


def encode_summary(summary: MeasureSummary) -> str:
    raw = json.dumps(summary.model_dump(mode="json", exclude_defaults=True), separators=(",", ":"),
                     ensure_ascii=False).encode("utf-8")
    return f"{VERSION}." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def decode_summary(token: str) -> MeasureSummary:
    """A ``?m=`` token → ``MeasureSummary``; every failure an ``InputError`` on the field ``link``."""
    if not isinstance(token, str) or not token:
        raise InputError("link", "empty")
    if len(token) > MAX_LINK_CHARS:
        raise InputError("link", f"too long ({len(token):,} characters; at most {MAX_LINK_CHARS:,})")
    version, _, body = token.partition(".")
    if version != VERSION or not body:
        raise InputError("link", "not a FLOPscope measurement link")
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)), MAX_INFLATED + 1)
        if len(raw) > MAX_INFLATED or inflater.unconsumed_tail or not inflater.eof or inflater.unused_data:
            raise InputError("link", "damaged or too large (was it cut or edited?)")
        data = json.loads(raw.decode("utf-8"))
    except InputError:
        raise
    except (binascii.Error, ValueError, zlib.error, RecursionError):
        raise InputError("link", "damaged (it does not decode; was it cut or edited?)") from None
    if not isinstance(data, dict):
        raise InputError("link", "damaged (not a measurement summary)")
    return parse_input(MeasureSummary, data, source="link")
