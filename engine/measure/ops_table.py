"""The per-operator table: one row per operator name and recorded shape, its calls, FLOP, kernel time, achieved
throughput, bytes and roofline bound; and the GPU time whose FLOP the trace cannot tell (named).

A call's kernel time is the union of the intervals of the GPU work it launched (kernels, memsets, copies: all
of its subtree, as TraceLens sums it), so a call's overlapping kernels count once; a row's is the sum over its
calls. Achieved FLOP/s = FLOP per call × calls ÷ kernel time. Bytes per call: inputs read once + output written
once (``op_flop``; an operator without a formula: its tensor inputs + its largest input, as an element-wise
operator writes). Bound: ``roofline.bound``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import intervals as iv
from .chip_match import ChipMatch
from .kernel_kinds import COMMUNICATION, looks_like_matrix_product
from .op_flop import OpCost, op_cost
from .op_join import OpJoin, is_dispatcher_op
from .op_shapes import ShapeError, first_float_format, tensor_bytes
from .roofline import bound
from .trace_tables import TraceTables
from ..results import Result

MAX_ROWS = 2000
"""Rows kept (the heaviest by kernel time, then host time): a trace of a million distinct shapes stays readable."""


@dataclass(frozen=True, slots=True)
class OpRow(Result):
    """One operator name with one recorded shape, over the calls selected (see the module docstring).

    ``flop_per_call``: the matmul convention (FlopCounterMode's), None where no formula applies; ``bias_flop_per_call``
    and ``masked_flop_per_call``: the bias adds a fuller convention adds, and causal attention's skipped half
    (inside ``flop_per_call``); ``host_time_us``: the calls' own durations on the host."""

    name: str
    input_dims: list
    dtype: str | None
    calls: int
    flop_per_call: int | None
    kernel_time_us: float
    tflops_per_s: float | None
    bytes: int
    bound: str | None
    family: str
    flop_per_byte: float | None = None
    bias_flop_per_call: int = 0
    masked_flop_per_call: int = 0
    host_time_us: float = 0.0
    peak_key: str | None = None
    kernels: list[str] = field(default_factory=list)
    gemm: list[int] | None = None
    """A matrix product's [batch, M, N, K]."""

    json_omit_default = frozenset({"bias_flop_per_call", "masked_flop_per_call", "gemm"})


@dataclass(frozen=True, slots=True)
class UnattributedKernel(Result):
    """GPU work whose FLOP the trace cannot tell: a kernel name, its time, and why."""

    name: str
    time_us: float
    why: str


@dataclass(frozen=True, slots=True)
class OpsResult(Result):
    """The table's rows, each counted signature's FLOP per call (``flop_of_sig``), the unattributed GPU work, and
    shapes that did not fit."""

    rows: list[OpRow]
    flop_of_sig: dict[int, int]
    unattributed: list[UnattributedKernel]
    unattributed_us: float
    shape_problems: list[str]
    rows_left_out: int


def _family(name: str, cost: OpCost | None) -> str:
    if cost is not None:
        return cost.family
    return "normalisation" if "norm" in name else "element-wise & other"


def _dims_json(dims) -> list:
    if dims is None:
        return []
    return [list(_dims_json(d)) if isinstance(d, tuple) else d for d in dims]


def build_ops(t: TraceTables, join: OpJoin, selection, chip: ChipMatch, classes: list[str],
              step_events=None) -> OpsResult:
    """The table over the operator calls in ``selection`` (a boolean numpy mask over the trace's operators; None:
    all); GPU work no operator launched counts as unattributed where it runs in ``step_events`` (a boolean mask over
    the GPU events; None: all). Grouping runs in numpy: no Python object per call."""
    import numpy as np

    n_ops, n_sigs = len(t.o_ts), len(t.sigs)
    o_sig = np.frombuffer(t.o_sig, dtype=np.int64) if n_ops else np.zeros(0, np.int64)
    counted = (np.frombuffer(join.counted, dtype=np.int8) if n_ops else np.zeros(0, np.int8)).astype(bool)
    row = np.frombuffer(join.row, dtype=np.int64) if n_ops else np.zeros(0, np.int64)
    is_row = counted | (row == np.arange(n_ops))
    if not t.has_gpu and n_ops:  # a CPU trace: each call's host time once (counted calls and outermost operators)
        parent = np.frombuffer(join.parent, dtype=np.int64)
        dispatcher = np.array([is_dispatcher_op(sig.name) for sig in t.sigs], dtype=bool)
        outer = (parent < 0) | ~dispatcher[o_sig[np.maximum(parent, 0)]]
        is_row &= counted | outer
    chosen = is_row if selection is None else is_row & selection
    calls_of = np.bincount(o_sig[chosen], minlength=n_sigs)
    counted_of = np.bincount(o_sig[chosen & counted], minlength=n_sigs)
    host_of = np.bincount(o_sig[chosen], weights=np.frombuffer(t.o_dur, dtype=np.float64)[chosen] if n_ops else None,
                          minlength=n_sigs)
    problems: dict[str, str] = {}
    costs: dict[int, OpCost] = {}
    for s in np.nonzero(counted_of)[0].tolist():
        sig = t.sigs[s]
        try:
            costs[s] = op_cost(sig)
        except (ShapeError, ArithmeticError, TypeError, ValueError) as exc:
            problems.setdefault(sig.name, f"{sig.name}: FLOP not counted ({str(exc)[:120]})")

    g_ts, g_dur, names = t.g_ts, t.g_dur, t.names
    kernel_us: dict[int, float] = {}
    kernel_names: dict[int, dict[str, float]] = {}
    unattributed: dict[tuple[str, str], float] = {}
    n_g = len(g_ts)
    if n_g:
        kr = np.frombuffer(join.kernel_row, dtype=np.int64)
        useful = np.array([c != COMMUNICATION for c in classes], dtype=bool) & \
            (np.frombuffer(t.g_kind, dtype=np.int8) != 1)
        mine = useful & (kr >= 0)
        if selection is not None:
            mine &= selection[np.maximum(kr, 0)]
        idx = np.nonzero(mine)[0]
        idx = idx[np.lexsort((np.frombuffer(g_ts, dtype=np.float64)[idx], kr[idx]))]
        call, spans = -1, []
        sig_of_call = o_sig.tolist()
        g_name = t.g_name

        def close(call, spans):
            s = sig_of_call[call]
            span = spans[0][1] - spans[0][0] if len(spans) == 1 else iv.length(iv.merge(spans))  # one: its own length
            kernel_us[s] = kernel_us.get(s, 0.0) + span

        for g, c in zip(idx.tolist(), kr[idx].tolist()):
            if c != call:
                if spans:
                    close(call, spans)
                call, spans = c, []
            ts, dur = g_ts[g], g_dur[g]
            spans.append((ts, ts + dur))
            per = kernel_names.get(sig_of_call[c])
            if per is None:
                per = kernel_names[sig_of_call[c]] = {}
            n = names[g_name[g]]
            per[n] = per.get(n, 0.0) + dur
        if spans:
            close(call, spans)
        lost = useful & (kr < 0)
        if step_events is not None:
            lost &= step_events
        launch = np.frombuffer(join.launch_of_kernel, dtype=np.int64)
        launched = launch.tolist()
        for g in np.nonzero(lost)[0].tolist():
            why = ("no launch call in the trace joins it (no correlation id match)" if launched[g] < 0
                   else "launched outside any operator")
            key = (names[t.g_name[g]], why)
            unattributed[key] = unattributed.get(key, 0.0) + g_dur[g]

    rows: list[OpRow] = []
    peaks: dict[tuple, object] = {}

    def peak_of(fmt, matrix):
        key = (fmt, matrix)
        if key not in peaks:
            peaks[key] = chip.peak(fmt, matrix)
        return peaks[key]

    for s in np.nonzero(calls_of)[0].tolist():
        sig = t.sigs[s]
        cost = costs.get(s)
        k_us = kernel_us.get(s, 0.0)
        if t.has_gpu and not (k_us > 0 or (cost is not None and cost.flop > 0)):
            continue
        per_names = kernel_names.get(s, {})
        fmt = cost.fmt if cost is not None else first_float_format(sig)
        if cost is not None:
            traffic = cost.bytes
        else:
            read, largest = tensor_bytes(sig)
            traffic = read + largest
        matrix = cost is not None and cost.flop > 0
        tf32 = fmt == "fp32" and any("tf32" in n.lower() for n in per_names)
        peak = peak_of("tf32" if tf32 else fmt, matrix)
        flop = cost.flop if cost is not None else None
        n_calls = int(counted_of[s]) if cost is not None else int(calls_of[s])
        tflops = flop * n_calls / k_us / 1e6 if flop is not None and k_us > 0 else None
        intensity = flop / traffic if flop is not None and traffic > 0 else None
        if cost is None and is_dispatcher_op(sig.name) and not sig.name.startswith("aten::"):
            for n, us in per_names.items():
                key = (n, f"launched by {sig.name}, an operator with no FLOP formula")
                unattributed[key] = unattributed.get(key, 0.0) + us
        elif cost is None:
            for n, us in per_names.items():
                if looks_like_matrix_product(n):
                    key = (n, (f"a matrix-product kernel under {sig.name}, which has no FLOP formula "
                               "(FlopCounterMode counts it as 0 too)"))
                    unattributed[key] = unattributed.get(key, 0.0) + us
        rows.append(OpRow(
            name=sig.name, input_dims=_dims_json(sig.dims), dtype=fmt, calls=n_calls, flop_per_call=flop,
            kernel_time_us=k_us, tflops_per_s=tflops, bytes=int(traffic),
            bound=bound(flop or 0, traffic, peak, chip) if k_us > 0 or not t.has_gpu else None,
            family=_family(sig.name, cost), flop_per_byte=intensity,
            bias_flop_per_call=cost.bias_flop if cost else 0, masked_flop_per_call=cost.masked_flop if cost else 0,
            host_time_us=float(host_of[s]), peak_key=peak.peak_key if peak else None,
            kernels=[n for n, _ in sorted(per_names.items(), key=lambda kv: -kv[1])[:3]],
            gemm=list(cost.gemm) if cost is not None and cost.gemm else None))
    rows.sort(key=lambda r: (-r.kernel_time_us, -(r.flop_per_call or 0) * r.calls, -r.host_time_us, r.name))
    left_out = max(0, len(rows) - MAX_ROWS)
    items = sorted(((us, name, why) for (name, why), us in unattributed.items()), reverse=True)
    return OpsResult(rows[:MAX_ROWS], {s: c.flop for s, c in costs.items()},
                     [UnattributedKernel(name, us, why) for us, name, why in items[:50]],
                     sum(us for us, _, _ in items), sorted(problems.values()), left_out)
