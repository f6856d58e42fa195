"""One trace measured: ``measure_trace(file)`` → ``TraceMeasurement`` (the steps' time split, the whole trace as
HTA splits it, the operator table with FLOP and roofline, HFU / MFU, host-side signs, bottlenecks, and the
figures a plan can be calibrated with).

Steps: ``step="all"`` (default) keeps every profiled step, the operator table then covers the whole trace;
``step=N`` keeps ``ProfilerStep#N`` and the operators whose host-side call starts inside its host window. A trace
without ``ProfilerStep`` annotations is measured as one step, "whole trace" (said in the notes). A trace with no
GPU events is a CPU trace: its operators and their FLOP are reported with their host time, said.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field

from ..errors import InputError
from .bottlenecks import Bottleneck, bottlenecks
from .calibration import Calibration, calibration
from .chip_match import ChipMatch, match_chip
from .host_signs import HostSigns, host_signs, sync_calls
from .kernel_kinds import COMPUTE, compute_family
from .op_flop import FORMULAS
from .op_join import column, join_ops
from .ops_table import OpRow, UnattributedKernel, build_ops
from .timeline import (
    StepWindow,
    WholeTrace,
    classify,
    repeated_steps,
    step_times,
    step_windows,
    whole_trace_times,
)
from .trace_stream import DEFAULT_MAX_BYTES, read_trace, source_name
from .trace_tables import TraceTables
from .utilization import ModelFlop, Utilization, utilization
from ..results import Result

SAME_STREAM_OVERLAP_US = 1.0
"""Kernels on one stream run one after another; an overlap above this says the trace's clock is off."""


@dataclass(frozen=True, slots=True)
class StepMeasure(Result):
    """One profiled step (ms; FLOP): the GPU-side split (``timeline``), the FLOP its operators executed
    (``op_flop``), computation by kind of arithmetic (``computation_by_family_ms``: each family's share of the
    computation kernels' summed time, applied to the computation time), and its host-side signs."""

    name: str
    total_ms: float | None
    busy_ms: float | None
    computation_ms: float | None
    exposed_comm_ms: float | None
    exposed_memcpy_ms: float | None
    idle_ms: float | None
    comm_ms: float | None
    memcpy_ms: float | None
    op_flop: float
    host_ms: float | None = None
    computation_by_family_ms: dict = field(default_factory=dict)
    host: HostSigns | None = None
    hfu: float | None = None


@dataclass(frozen=True, slots=True)
class TraceMeasurement(Result):
    """A trace measured (see the module docstring). ``device``: the GPU's name in the trace; ``chip``: the
    database chip it was matched to (None: unknown, name it); ``unattributed_kernel_time_us``: GPU time whose
    FLOP the trace cannot tell, its kernels named in ``unattributed_kernels``."""

    file: str
    device: str | None
    chip: str | None
    chip_name: str | None
    chip_match: str
    rank: int | None
    world_size: int | None
    gpu: bool
    steps: list[StepMeasure]
    whole_trace: WholeTrace | None
    ops: list[OpRow]
    unattributed_kernel_time_us: float
    unattributed_kernels: list[UnattributedKernel]
    utilization: Utilization
    bottlenecks: list[Bottleneck]
    calibration: Calibration
    notes: list[str]
    events: int
    ops_left_out: int = 0
    first_event_us: float | None = None
    """The trace clock's time of its first GPU event (or operator): how ranks' clocks are compared."""

    json_fields = ("file", "device", "chip", "chip_name", "chip_match", "rank", "world_size", "gpu", "steps",
                   "whole_trace", "ops", "unattributed_kernel_time_us", "unattributed_kernels", "hfu", "mfu",
                   "utilization", "bottlenecks", "calibration", "notes", "events", "ops_left_out")

    @property
    def hfu(self) -> float | None:
        return self.utilization.hfu

    @property
    def mfu(self) -> float | None:
        return self.utilization.mfu


def _read_tables(source, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[dict, TraceTables]:
    """The trace's top-level fields and its kept events (``trace_tables``)."""
    tables = TraceTables()
    meta = read_trace(source, tables.add, max_bytes=max_bytes, on_batch=tables.add_events)
    return meta, tables


def overlapping_kernels(t: TraceTables) -> int:
    """Kernels that start more than ``SAME_STREAM_OVERLAP_US`` before the latest end of the earlier kernels on their
    stream (by start, then end). In numpy per stream (a running maximum of the ends); one by one where there are
    many streams."""
    import numpy as np

    kernel = column(t.g_kind, np.int8) == 0
    stream = column(t.g_stream, np.int64)[kernel]
    start = column(t.g_ts, np.float64)[kernel]
    end = start + column(t.g_dur, np.float64)[kernel]
    order = np.lexsort((end, start, stream))
    stream, start, end = stream[order], start[order], end[order]
    cuts = [0, *(np.flatnonzero(stream[1:] != stream[:-1]) + 1).tolist(), len(stream)]
    if len(cuts) > 66:  # many streams: one by one
        overlapping = 0
        for a, b in zip(cuts, cuts[1:]):
            reach = float("-inf")
            for s, e in zip(start[a:b].tolist(), end[a:b].tolist()):
                if s < reach - SAME_STREAM_OVERLAP_US:
                    overlapping += 1
                reach = max(reach, e)
        return overlapping
    overlapping = 0
    for a, b in zip(cuts, cuts[1:]):
        if b - a > 1:
            reach = np.maximum.accumulate(end[a:b - 1])
            overlapping += int(np.count_nonzero(start[a + 1:b] < reach - SAME_STREAM_OVERLAP_US))
    return overlapping


def _check(name: str, t: TraceTables) -> list[str]:
    """The trace's own faults: negative durations refuse it; a stream whose kernels overlap is noted."""
    if t.negative:
        first = t.negative[0]
        raise InputError(name, f"{len(t.negative):,} GPU events have a negative duration (first: "
                               f"{first[0][:60]!r}, {first[2]:g} µs): the trace is corrupt")
    notes = []
    overlapping = overlapping_kernels(t)
    if overlapping:
        notes.append(f"{overlapping:,} kernels start more than {SAME_STREAM_OVERLAP_US:g} µs before the previous "
                     "kernel on their stream ends: the trace's clock is suspect; busy time counts their union once")
    if t.malformed:
        notes.append(f"{t.malformed:,} events without a start and a duration a trace can hold (finite numbers of µs, "
                     "a duration under 10¹² µs) were left out")
    return notes


def measure_trace(source, *, step: str | int = "all", chip: str | None = None, model: ModelFlop | None = None,
                  max_bytes: int = DEFAULT_MAX_BYTES, tables: tuple[dict, TraceTables] | None = None,
                  db=None) -> TraceMeasurement:
    """Measure the trace in ``source`` (a path, bytes or a binary file; see the module docstring). ``chip``
    overrides the device's name; ``model`` gives MFU. Python's cyclic garbage collector is paused meanwhile (and
    restored): the tables are arrays and the events acyclic structs, so its passes over a large trace's
    short-lived objects would find nothing to free and cost a third of the time."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _measure(source, step, chip, model, max_bytes, tables, db)
    finally:
        if paused:
            gc.enable()


def _measure(source, step, chip, model, max_bytes, tables, db) -> TraceMeasurement:
    name = source_name(source)
    meta, t = tables if tables is not None else _read_tables(source, max_bytes)
    if t.events == 0 or (not t.has_gpu and not len(t.o_ts)):
        raise InputError(name, "no events with a start and a duration: an empty trace (was the profiler's "
                               "schedule active when it was exported?)")
    notes = _check(name, t)
    match = match_chip(meta, chip, db)
    if match.chip is None and t.has_gpu:
        notes.append(f"unknown chip ({match.how}): HFU, MFU and the roofline need it — pass --chip or choose it")
    join = join_ops(t)
    classes = classify(t)
    windows = step_windows(t)
    if step != "all":
        wanted = [w for w in windows if str(w.number) == str(step)]
        if not wanted:
            known = ", ".join(str(w.number) for w in windows[:12]) or "none"
            raise InputError("--step", f"{name} has no ProfilerStep#{str(step)[:40]} (its steps: {known})")
        windows = wanted
    if not windows:
        odd = sorted(t.hta_step_names)
        notes.append(f"{odd[0][:60]}: not a step number (a whole number under 10¹⁹): the whole trace is measured as "
                     "one step" if odd else
                     "no ProfilerStep annotation: the whole trace is measured as one step (profile with "
                     "torch.profiler.schedule and call prof.step() each iteration to get steps)")
    if not t.has_gpu:
        notes.append("no GPU events: a CPU trace — its operators and their FLOP are reported with their host time")

    import numpy as np

    n_ops = len(t.o_ts)
    g_start = np.frombuffer(t.g_ts, dtype=np.float64) if t.has_gpu else np.zeros(0)
    g_order = np.argsort(g_start, kind="stable")
    g_sorted = g_start[g_order]
    o_start = np.frombuffer(t.o_ts, dtype=np.float64) if n_ops else np.zeros(0)
    o_order = np.argsort(o_start, kind="stable")
    o_sorted = o_start[o_order]
    o_sig = np.frombuffer(t.o_sig, dtype=np.int64) if n_ops else np.zeros(0, np.int64)
    counted = (np.frombuffer(join.counted, dtype=np.int8) if n_ops else np.zeros(0, np.int8)).astype(bool)
    syncs = sync_calls(t)
    launch_of = np.frombuffer(join.launch_of_kernel, dtype=np.int64) if t.has_gpu else np.zeros(0, np.int64)
    r_start = np.frombuffer(t.r_ts, dtype=np.float64) if len(t.r_ts) else np.zeros(1)
    launch_ts = np.where(launch_of >= 0, r_start[np.maximum(launch_of, 0)], np.nan)

    def gpu_events(w: StepWindow) -> list[int]:
        if w.gpu_start is not None:
            lo, hi = np.searchsorted(g_sorted, [w.gpu_start, w.gpu_end], side="left")
            return g_order[lo:hi].tolist()
        if w.cpu_start is None:
            return g_order.tolist()
        launched = launch_ts[g_order]  # NaN: no launch call
        return g_order[(launched >= w.cpu_start) & (launched < w.cpu_end)].tolist()

    def op_calls(w: StepWindow | None):
        """The operator calls whose host-side start is in the step's host window (all: None)."""
        if w is None or w.cpu_start is None:
            return None
        lo, hi = np.searchsorted(o_sorted, [w.cpu_start, w.cpu_end], side="left")
        return o_order[lo:hi]

    def mask(calls) -> object:
        if calls is None:
            return None
        out = np.zeros(n_ops, dtype=bool)
        out[calls] = True
        return out

    selection = windows or [StepWindow("whole trace", -1, None, None, None, None)]
    chosen = None if step == "all" else op_calls(selection[0])
    step_events = None
    if windows and t.has_gpu:
        step_events = np.zeros(len(t.g_ts), dtype=bool)
        for w in windows:
            step_events[gpu_events(w)] = True
    ops = build_ops(t, join, mask(chosen), match, classes, step_events)
    notes.extend(ops.shape_problems)

    def flop_of(calls) -> float:
        """The FLOP of the counted calls among ``calls`` (all: None), summed exactly (Python integers)."""
        sigs = o_sig[counted] if calls is None else o_sig[calls][counted[calls]]
        per_sig = np.bincount(sigs, minlength=len(t.sigs))
        return float(sum(int(per_sig[s]) * f for s, f in ops.flop_of_sig.items()))

    family_of_call: dict[int, str] = {}
    family_of_sig: dict[int, str] = {}

    def family(call: int) -> str:
        f = family_of_call.get(call)
        if f is None:
            s = t.o_sig[call]
            f = family_of_sig.get(s)
            if f is None:
                name = t.sigs[s].name
                formula = FORMULAS.get(name)
                f = formula.family if formula is not None else ("normalisation" if "norm" in name
                                                                else "element-wise & other")
                family_of_sig[s] = f
            family_of_call[call] = f
        return f

    steps: list[StepMeasure] = []
    flop_total = 0.0
    time_total = 0.0
    for w in selection:
        calls = op_calls(w) if w.number >= 0 else chosen
        op_flop = flop_of(calls)
        host_ms = (w.cpu_end - w.cpu_start) / 1000 if w.cpu_start is not None else None
        events = gpu_events(w) if t.has_gpu else []
        times = step_times(t, events, classes) if t.has_gpu else None
        if times is None:
            if t.has_gpu:
                notes.append(f"{w.name}: no GPU events inside it")
            if host_ms is not None:
                total_s = host_ms / 1000
            else:
                parent = np.frombuffer(join.parent, dtype=np.int64) if n_ops else np.zeros(0, np.int64)
                total_s = float(np.frombuffer(t.o_dur, dtype=np.float64)[parent < 0].sum()) / 1e6 if n_ops else 0.0
            steps.append(StepMeasure(w.name, total_s * 1000 if not t.has_gpu else None, None, None, None, None,
                                     None, None, None, op_flop, host_ms))
            if not t.has_gpu:
                flop_total += op_flop
                time_total += total_s
            continue
        fam: dict[str, float] = {}
        for g in events:
            if classes[g] != COMPUTE:
                continue
            r = join.kernel_row[g]
            f = family(r) if r >= 0 else compute_family(t.names[t.g_name[g]])
            fam[f] = fam.get(f, 0.0) + t.g_dur[g]
        summed = sum(fam.values()) or 1.0
        by_family = {k: times.computation_us * v / summed / 1000 for k, v in sorted(fam.items(), key=lambda kv: -kv[1])}
        signs = host_signs(t, events, times.merged, join.launch_of_kernel,
                           (w.cpu_start, w.cpu_end) if w.cpu_start is not None else None, syncs)
        steps.append(StepMeasure(w.name, times.total_us / 1000, times.busy_us / 1000, times.computation_us / 1000,
                                 times.exposed_comm_us / 1000, times.exposed_memcpy_us / 1000, times.idle_us / 1000,
                                 times.comm_us / 1000, times.memcpy_us / 1000, op_flop, host_ms, by_family, signs))
        flop_total += op_flop
        time_total += times.total_us / 1e6
    measured = [s for s in steps if s.total_ms is not None]
    n = max(1, len(measured))
    flop_by_peak: dict[str, tuple[float, float]] = {}
    for row in ops.rows:
        if row.flop_per_call and row.peak_key:
            peak = match.peak(_precision_of(row.peak_key), True)
            if peak is not None:
                f, _ = flop_by_peak.get(row.peak_key, (0.0, peak.peak_flop_per_s))
                flop_by_peak[row.peak_key] = (f + row.flop_per_call * row.calls, peak.peak_flop_per_s)
    util = utilization(time_total / n, flop_total / n, flop_by_peak, match, model)
    steps = [_with_hfu(s, util) for s in steps]
    info = meta.get("distributedInfo") if isinstance(meta.get("distributedInfo"), dict) else {}
    rank = info.get("rank") if type(info.get("rank")) is int else None
    world = info.get("world_size") if type(info.get("world_size")) is int else None
    whole = whole_trace_times(t)
    notes.extend(_doubts(t, match, util, whole))
    cal = calibration(steps, ops.rows, match, util)
    result = TraceMeasurement(
        file=name, device=match.device or None, chip=match.chip.id if match.chip else None,
        chip_name=match.chip.name if match.chip else None, chip_match=match.how, rank=rank, world_size=world,
        gpu=t.has_gpu, steps=steps, whole_trace=whole, ops=ops.rows,
        unattributed_kernel_time_us=ops.unattributed_us, unattributed_kernels=ops.unattributed, utilization=util,
        bottlenecks=[], calibration=cal, notes=notes, events=t.events, ops_left_out=ops.rows_left_out,
        first_event_us=t.first_ts if t.has_gpu else (min(t.o_ts) if len(t.o_ts) else None))
    return _with_bottlenecks(result)


def _doubts(t: TraceTables, match: ChipMatch, util: Utilization, whole: WholeTrace | None) -> list[str]:
    """What the figures cannot be taken for without a word: an HFU or MFU above 100%, no HFU on a known chip, step
    numbers annotated twice, whole-trace figures below nothing."""
    notes = _above_the_peak(util)
    if match.chip is not None and util.peak_flop_per_s is None and util.executed_flop_per_step > 0:
        notes.append(_no_format(t))
    repeated = repeated_steps(t)
    if repeated:
        shown = ", ".join(f"#{n} {k} times" for n, k in list(repeated.items())[:4])
        notes.append(f"step annotations repeat their numbers (ProfilerStep {shown}): the longest of each is "
                     "measured — several runs in one trace?")
    if whole is not None and (whole.compute_us < 0 or whole.non_compute_us < 0 or whole.idle_us > whole.span_us):
        notes.append(f"whole trace: compute {whole.compute_us:,.0f} µs, non-compute {whole.non_compute_us:,.0f} µs, "
                     f"idle {whole.idle_us:,.0f} of {whole.span_us:,.0f} µs — HTA's split, which these figures follow, "
                     "rounds each event inward to whole µs, so events shorter than 1 µs count below nothing; the "
                     "steps' figures are not rounded")
    return notes


def _no_format(t: TraceTables) -> str:
    """Why there is no HFU on a known chip: no counted operator's recorded ``Input type`` names a number format."""
    from .op_shapes import first_float_format

    seen: list[str] = []
    for sig in t.sigs:
        if sig.name in FORMULAS and sig.types and first_float_format(sig) is None:
            text = ", ".join(str(v)[:30] for v in sig.types[:3])
            if text not in seen:
                seen.append(text)
    types = "; ".join(f"[{s}]" for s in seen[:3]) or "none recorded"
    return (f"no HFU or MFU: the operators' number format is not known from their recorded 'Input type' ({types}), "
            "so the chip's peak for it cannot be chosen (float, half, c10::BFloat16 and the FP8 types are known)")


def _above_the_peak(util: Utilization) -> list[str]:
    """What an HFU or MFU above 100% says: more FLOP than the chip's dense peak allows in the measured time."""
    notes = []
    if util.hfu is not None and util.hfu > 1:
        notes.append(f"HFU {100 * util.hfu:,.4g}% is above 100%: the operators' recorded shapes give more FLOP than the "
                     "chip's dense peak allows in the measured step — a shape recorded wrong, kernels that overlap, "
                     "or another chip (name it)")
    if util.mfu is not None and util.mfu > 1:
        notes.append(f"MFU {100 * util.mfu:,.4g}% is above 100%: the model's FLOP per step are more than the chip can "
                     "compute in the measured step — give the FLOP of one step of one rank (not the whole run), "
                     "and the trace's batch")
    return notes


def _precision_of(peak_key: str) -> str:
    from ..method2.formats import FORMAT_BY_KEY
    return FORMAT_BY_KEY[peak_key].precision


def _with_hfu(s: StepMeasure, util: Utilization) -> StepMeasure:
    if util.peak_flop_per_s is None or not s.total_ms:
        return s
    from dataclasses import replace
    return replace(s, hfu=s.op_flop / (s.total_ms / 1000 * util.peak_flop_per_s))


def _with_bottlenecks(m: TraceMeasurement) -> TraceMeasurement:
    from dataclasses import replace
    return replace(m, bottlenecks=bottlenecks(m))


def chip_match_of(meta: dict, chip: str | None = None) -> ChipMatch:
    return match_chip(meta, chip)
