"""Signs on the host side of a step: a GPU idle while the CPU launches, many short kernels, waits for data,
synchronisations.

- launch-bound idle: a gap in the GPU's timeline whose next kernel's launch call had not returned when the gap
  opened — the GPU waited for the CPU to hand it work (the gap counts whole);
- short kernels: kernels under ``SHORT_KERNEL_US`` (10 µs), whose launch costs about as much as their run;
- synchronisations: launch-API calls that block the host (``*Synchronize``, blocking ``cudaMemcpy``/``hipMemcpy``);
- data loading: host time in annotations or operators naming a ``DataLoader`` inside the step's host window.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import pairwise

from .trace_tables import TraceTables
from ..results import Result

SHORT_KERNEL_US = 10.0


@dataclass(frozen=True, slots=True)
class HostSigns(Result):
    """A step's host-side signs (µs; counts)."""

    kernels: int
    short_kernels: int
    launch_idle_us: float
    sync_calls: int
    sync_us: float
    dataloader_us: float


def _is_sync(name: str) -> bool:
    return "Synchronize" in name or name in ("cudaMemcpy", "hipMemcpy", "cuMemcpyDtoH_v2", "cudaStreamWaitEvent")


def sync_calls(t: TraceTables) -> list[tuple[float, float]]:
    """(start, duration) of every blocking launch-API call, in start order."""
    names = {i for i, n in enumerate(t.names) if _is_sync(n)}
    return sorted((t.r_ts[j], t.r_dur[j]) for j in range(len(t.r_ts)) if t.r_name[j] in names)


def host_signs(t: TraceTables, events: list[int], merged: tuple, launch_of_kernel, cpu_window,
               syncs: list[tuple[float, float]]) -> HostSigns:
    """The signs of a step: ``events`` its GPU events, ``merged`` their union, ``cpu_window`` (start, end) on the
    host (None when not recorded), ``syncs`` the trace's ``sync_calls``."""
    g_ts, g_dur, g_kind = t.g_ts, t.g_dur, t.g_kind
    kernels = [g for g in events if g_kind[g] == 0]
    short = sum(1 for g in kernels if g_dur[g] < SHORT_KERNEL_US)
    starts = sorted((g_ts[g], g) for g in events)
    keys = [s for s, _ in starts]
    idle = 0.0
    for a, b in pairwise(merged):
        gap_open, gap_close = a[1], b[0]
        i = bisect_left(keys, gap_close)
        if i < len(starts):
            j = launch_of_kernel[starts[i][1]]
            if j >= 0 and t.r_ts[j] + t.r_dur[j] > gap_open:
                idle += gap_close - gap_open
    sync_calls, sync_us, loader = 0, 0.0, 0.0
    if cpu_window is not None:
        lo, hi = cpu_window
        for ts, dur in syncs[bisect_left(syncs, (lo, -1.0)):]:
            if ts >= hi:
                break
            sync_calls += 1
            sync_us += dur
        loader = sum(min(d, hi - ts) for ts, d in t.loader if lo <= ts < hi)
    return HostSigns(len(kernels), short, idle, sync_calls, sync_us, loader)
