"""The per-operator table: one row per operator name and recorded shape, its calls, FLOP, kernel time, achieved
throughput, bytes and roofline bound; and the GPU time whose FLOP the trace cannot tell (named).

A call's kernel time is the union of the intervals of the GPU work it launched (kernels, memsets, copies: all
of its subtree, as TraceLens sums it), so a call's overlapping kernels count once; a row's is the sum over its
calls. Achieved FLOP/s = FLOP per call × calls ÷ kernel time. Bytes per call: inputs read once + output written
once (``op_flop``; an operator without a formula: its tensor inputs + its largest input, as an element-wise
operator writes). Bound: ``roofline.bound``.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from engine.measure import intervals as iv
from engine.measure.chip_match import ChipMatch
from engine.measure.kernel_kinds import COMMUNICATION, looks_like_matrix_product
from engine.measure.op_flop import FORMULAS, OpCost, op_cost
from engine.measure.op_join import OpJoin, is_dispatcher_op
from engine.measure.op_shapes import ShapeError, first_float_format, tensor_bytes
from engine.measure.roofline import bound
from engine.measure.trace_tables import TraceTables
from engine.results import Result

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
    """The table's rows, the FLOP of each counted call, the unattributed GPU work, and shapes that did not fit."""

    rows: list[OpRow]
    flop_by_call: dict[int, int]
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


def build_ops(t: TraceTables, join: OpJoin, calls: list[int], chip: ChipMatch, classes: list[str],
              step_events: set[int] | None = None) -> OpsResult:
    """The table over the operator calls ``calls`` (indices into the trace's operators); GPU work no selected call
    launched counts as unattributed when it runs in ``step_events`` (all of it when None)."""
    selected = set(calls)
    costs: dict[int, OpCost | None] = {}
    problems: dict[str, str] = {}

    def cost_of(sig_id: int) -> OpCost | None:
        if sig_id in costs:
            return costs[sig_id]
        sig = t.sigs[sig_id]
        cost = None
        if sig.name in FORMULAS:
            try:
                cost = op_cost(sig)
            except (ShapeError, ArithmeticError, TypeError, ValueError) as exc:
                problems.setdefault(sig.name, f"{sig.name}: FLOP not counted ({str(exc)[:120]})")
        costs[sig_id] = cost
        return cost

    kernels_of: dict[int, list[int]] = defaultdict(list)
    unattributed: dict[tuple[str, str], float] = defaultdict(float)
    g_ts, g_dur = t.g_ts, t.g_dur
    for g, row_call in enumerate(join.kernel_row):
        if classes[g] == COMMUNICATION or t.g_kind[g] == 1:
            continue
        if row_call >= 0:
            if row_call in selected:
                kernels_of[row_call].append(g)
            continue
        if step_events is not None and g not in step_events:
            continue
        if join.launch_of_kernel[g] < 0:
            why = "no launch call in the trace joins it (no correlation id match)"
        else:
            why = "launched outside any operator"
        unattributed[(t.names[t.g_name[g]], why)] += g_dur[g]

    flop_by_call: dict[int, int] = {}
    groups: dict[int, list[int]] = defaultdict(list)
    for k in calls:
        if join.counted[k] or join.row[k] == k:
            groups[t.o_sig[k]].append(k)
    rows: list[OpRow] = []
    for sig_id, members in groups.items():
        sig = t.sigs[sig_id]
        cost = cost_of(sig_id) if any(join.counted[k] for k in members) else None
        kernel_us = 0.0
        names: dict[str, float] = defaultdict(float)
        for k in members:
            ks = kernels_of.get(k, ())
            if ks:
                kernel_us += iv.length(iv.merge((g_ts[g], g_ts[g] + g_dur[g]) for g in ks))
                for g in ks:
                    names[t.names[t.g_name[g]]] += g_dur[g]
            if cost is not None and join.counted[k]:
                flop_by_call[k] = cost.flop
        host_us = sum(t.o_dur[k] for k in members)
        if not (kernel_us > 0 or (cost is not None and cost.flop > 0)):
            outermost = all(join.parent[k] < 0 or not is_dispatcher_op(t.sigs[t.o_sig[join.parent[k]]].name)
                            for k in members)
            if t.has_gpu or not outermost:  # GPU traces: only GPU work; CPU traces: each call's time once
                continue
        fmt = cost.fmt if cost is not None else first_float_format(sig)
        if cost is not None:
            traffic = cost.bytes
        else:
            read, largest = tensor_bytes(sig)
            traffic = read + largest
        matrix = cost is not None and cost.flop > 0
        tf32 = fmt == "fp32" and any("tf32" in n.lower() for n in names)
        peak = chip.peak("tf32" if tf32 else fmt, matrix)
        flop = cost.flop if cost is not None else None
        n_calls = len(members)
        tflops = flop * n_calls / kernel_us / 1e6 if flop is not None and kernel_us > 0 else None
        intensity = flop / traffic if flop is not None and traffic > 0 else None
        if cost is None and is_dispatcher_op(sig.name) and not sig.name.startswith("aten::"):
            for n, us in names.items():
                unattributed[(n, f"launched by {sig.name}, an operator with no FLOP formula")] += us
        elif cost is None:
            for n, us in names.items():
                if looks_like_matrix_product(n):
                    unattributed[(n, f"a matrix-product kernel under {sig.name}, which has no FLOP formula "
                                     "(FlopCounterMode counts it as 0 too)")] += us
        rows.append(OpRow(
            name=sig.name, input_dims=_dims_json(sig.dims), dtype=fmt, calls=n_calls, flop_per_call=flop,
            kernel_time_us=kernel_us, tflops_per_s=tflops, bytes=int(traffic),
            bound=bound(flop or 0, traffic, peak, chip) if kernel_us > 0 or not t.has_gpu else None,
            family=_family(sig.name, cost), flop_per_byte=intensity,
            bias_flop_per_call=cost.bias_flop if cost else 0, masked_flop_per_call=cost.masked_flop if cost else 0,
            host_time_us=host_us, peak_key=peak.peak_key if peak else None,
            kernels=[n for n, _ in sorted(names.items(), key=lambda kv: -kv[1])[:3]],
            gemm=list(cost.gemm) if cost is not None and cost.gemm else None))
    rows.sort(key=lambda r: (-r.kernel_time_us, -(r.flop_per_call or 0) * r.calls, -r.host_time_us, r.name))
    left_out = max(0, len(rows) - MAX_ROWS)
    items = sorted(((us, name, why) for (name, why), us in unattributed.items()), reverse=True)
    return OpsResult(rows[:MAX_ROWS], flop_by_call,
                     [UnattributedKernel(name, us, why) for us, name, why in items[:50]],
                     sum(us for us, _, _ in items), sorted(problems.values()), left_out)
