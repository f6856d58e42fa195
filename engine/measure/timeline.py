"""Where the time went: each profiled step as TraceLens splits it, and the whole trace as HTA does.

A step (``step_times``) is the GPU-side ``ProfilerStep#N`` window (the host-side one is longer: it includes the
launches ahead of the GPU): the kernels, memory copies and memory sets that start inside it (without a GPU-side
annotation: those launched inside the host-side window). With C, M, X the unions of the computation,
communication and memcpy intervals and A the union of all (``kernel_kinds.step_class``):

    total = end of the last − start of the first;  busy = |A|;  computation = |C|;
    exposed communication = |M − C|;  exposed memcpy = |X − C − M|;  idle = total − busy.

The whole trace (``whole_trace_times``) follows HTA 0.5.0's ``get_temporal_breakdown``: the events with a
stream (kernels, copies, sets, syncs), without the last profiled iteration's (when there are several), start
rounded up and end rounded down to whole µs (HTA's ``round_down_time_stamps``); span = end of the last − start
of the first; idle = span − |union|; compute = |union of the computation kernels| (``kernel_kinds.hta_class``);
non-compute = span − compute − idle.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import intervals as iv
from .kernel_kinds import (
    COMMUNICATION,
    COMPUTE,
    MEMCPY,
    hta_class,
    step_class,
)
from .trace_tables import StepMark, TraceTables
from ..results import Result


@dataclass(frozen=True, slots=True)
class StepWindow(Result):
    """A profiled step: its number, the host-side window and (when recorded) the GPU-side one, in µs."""

    name: str
    number: int
    cpu_start: float | None
    cpu_end: float | None
    gpu_start: float | None
    gpu_end: float | None


def repeated_steps(t: TraceTables) -> dict[int, int]:
    """Step numbers annotated more than once on one side (host or GPU) → how many times (``step_windows`` keeps the
    longest)."""
    counts: dict[tuple[int, bool], int] = {}
    for mark in t.steps:
        counts[mark.number, mark.gpu] = counts.get((mark.number, mark.gpu), 0) + 1
    out: dict[int, int] = {}
    for (number, _), k in sorted(counts.items()):
        if k > 1:
            out[number] = max(out.get(number, 0), k)
    return out


def step_windows(t: TraceTables) -> list[StepWindow]:
    """Every ``ProfilerStep#N`` of the trace, host and GPU sides paired by N, in order."""
    by_number: dict[int, dict[str, StepMark]] = {}
    for mark in t.steps:
        side = "gpu" if mark.gpu else "cpu"
        kept = by_number.setdefault(mark.number, {})
        if side not in kept or mark.dur > kept[side].dur:
            kept[side] = mark
    out = []
    for number in sorted(by_number):
        m = by_number[number]
        cpu, gpu = m.get("cpu"), m.get("gpu")
        out.append(StepWindow(f"ProfilerStep#{number}", number,
                              cpu.ts if cpu else None, cpu.ts + cpu.dur if cpu else None,
                              gpu.ts if gpu else None, gpu.ts + gpu.dur if gpu else None))
    return out


@dataclass(frozen=True, slots=True)
class StepTimes(Result):
    """A step's GPU time split (µs): what the module docstring defines; ``events`` the GPU events counted."""

    total_us: float
    busy_us: float
    computation_us: float
    exposed_comm_us: float
    exposed_memcpy_us: float
    idle_us: float
    comm_us: float
    memcpy_us: float
    events: int
    start_us: float
    end_us: float
    merged: tuple


def step_times(t: TraceTables, indices: list[int], classes: list[str]) -> StepTimes | None:
    """The breakdown of the GPU events ``indices`` (``classes[g]``: ``kernel_kinds.step_class`` per event)."""
    if not indices:
        return None
    g_ts, g_dur = t.g_ts, t.g_dur
    spans = {COMPUTE: [], COMMUNICATION: [], MEMCPY: []}
    every = []
    for g in indices:
        span = (g_ts[g], g_ts[g] + g_dur[g])
        spans[classes[g]].append(span)
        every.append(span)
    comp, comm, memcpy = (iv.merge(spans[k]) for k in (COMPUTE, COMMUNICATION, MEMCPY))
    merged = iv.merge(every)
    total = merged[-1][1] - merged[0][0]
    busy = iv.length(merged)
    exposed_comm = iv.length(iv.subtract(comp, comm))
    exposed_memcpy = iv.length(iv.subtract(comm, iv.subtract(comp, memcpy)))
    return StepTimes(total, busy, iv.length(comp), exposed_comm, exposed_memcpy, total - busy, iv.length(comm),
                     iv.length(memcpy), len(indices), merged[0][0], merged[-1][1], tuple(merged))


def classify(t: TraceTables) -> list[str]:
    """``step_class`` of every GPU event (names classified once each)."""
    cache: dict[int, dict[int, str]] = {}
    out = []
    for kind, name_id in zip(t.g_kind, t.g_name):
        per_kind = cache.setdefault(kind, {})
        c = per_kind.get(name_id)
        if c is None:
            c = per_kind[name_id] = step_class(kind, t.names[name_id])
        out.append(c)
    return out


@dataclass(frozen=True, slots=True)
class WholeTrace(Result):
    """The whole trace's GPU time as HTA 0.5.0 splits it (µs; see the module docstring): ``span_us`` from the
    first GPU event's start to the last one's end, ``idle_us`` with no GPU event running, ``compute_us`` under
    a computation kernel, ``non_compute_us`` the rest (communication, memory, syncs and their overlaps)."""

    span_us: float
    idle_us: float
    compute_us: float
    non_compute_us: float
    events: int
    last_step_left_out: bool


def _hta_merge_length(starts, ends) -> tuple[float, float, float]:
    """HTA's ``merge_kernel_intervals`` over rows (start, end), in numpy: sorted by start, a row opens a new group
    when it starts after every earlier row's end; a group is (its first start, its latest end). Returns (first
    start, last group's end, Σ group end − group start)."""
    import numpy as np

    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    opens = np.empty(len(s), dtype=bool)
    opens[0] = True
    opens[1:] = s[1:] > reach[:-1]
    first = np.nonzero(opens)[0]
    group_end = np.maximum.reduceat(e, first)
    return float(s[0]), float(group_end[-1]), float((group_end - s[first]).sum())


def _among(values, sorted_ids):
    """``values`` found in ``sorted_ids`` (sorted), by binary search (``np.isin`` without its ``np.unique``, whose
    first call imports ``numpy.ma``)."""
    import numpy as np

    if not len(sorted_ids):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_ids, values), len(sorted_ids) - 1)
    return sorted_ids[at] == values


def whole_trace_times(t: TraceTables) -> WholeTrace | None:
    """HTA's temporal breakdown of this trace (None when it has no GPU events)."""
    import numpy as np

    n = len(t.h_ts)
    if not n:
        return None
    ts = np.frombuffer(t.h_ts, dtype=np.float64)
    dur = np.frombuffer(t.h_dur, dtype=np.float64)
    keep = np.ones(n, dtype=bool)
    filtered = len(t.hta_step_names) > 1
    if filtered:
        last = t.hta_last_step_start
        c_corr = np.frombuffer(t.c_corr, dtype=np.int64) if len(t.c_corr) else np.zeros(0, np.int64)
        c_ts = np.frombuffer(t.c_ts, dtype=np.float64) if len(t.c_ts) else np.zeros(0)
        early = np.sort(c_corr[c_ts < last])
        gpu_side = np.frombuffer(t.h_gpu_side, dtype=np.int8).astype(bool)
        keep = np.where(gpu_side, _among(np.frombuffer(t.h_corr, dtype=np.int64), early), ts < last)
    if not keep.any():
        return None
    starts = np.ceil(ts[keep])
    ends = np.floor(ts[keep] + dur[keep])
    name_of = np.frombuffer(t.h_name, dtype=np.int64)[keep]
    is_compute = np.zeros(len(t.names), dtype=bool)  # each name present classified once
    for i in np.nonzero(np.bincount(name_of, minlength=len(t.names)))[0].tolist():
        is_compute[i] = hta_class(t.names[i]) == "COMPUTATION"
    compute = is_compute[name_of]
    first, last_end, run = _hta_merge_length(starts, ends)
    span = last_end - first
    busy_compute = _hta_merge_length(starts[compute], ends[compute])[2] if compute.any() else 0.0
    idle = span - run
    return WholeTrace(span, idle, busy_compute, span - busy_compute - idle, int(keep.sum()), filtered)
