"""Operators joined to their GPU work: which operator's call each kernel belongs to, and which calls count FLOP.

1. Nesting: on each host thread, an operator (or a launch call) that starts before another ends is inside it
   (events sorted by thread, start, longer first; TraceLens's ``build_host_call_stack_tree``).
2. Counting: walking down from the outermost operator, the first one with a FLOP formula (``op_flop.FORMULAS``)
   counts, and nothing beneath it counts again — as FlopCounterMode sees one dispatched operator
   (``aten::convolution``, not the ``aten::_convolution`` and ``cudnn_convolution`` it calls). A composite
   operator (``leaf_only``: ``aten::linear``, ``aten::matmul``…) counts only when the trace shows no operator
   beneath it.
3. Kernels: a kernel (memcpy, memset) names its launch call by ``correlation``; the launch sits inside the
   operator that made it. Its row is the counted operator above it if any, else the innermost dispatcher
   operator (``aten::relu`` → its ``aten::clamp_min``), else none (GPU work no operator launched).

Sorting, the launch calls' operators (after the operators' walk: the last operator before a launch or its first
ancestor still open) and the correlation join run in numpy over the trace's arrays (no Python object per event),
so a trace of millions of operators joins in bounded memory.
"""
from __future__ import annotations

import re
from array import array
from dataclasses import dataclass

from .op_flop import FORMULAS
from .trace_tables import TraceTables
from ..results import Result

LIFT_OPS = 1 << 18
"""Operators up to which their parents are found in numpy (``_parents``: log₂ n arrays of n floats, 38 MB at this
bound); above, the walk's stack in Python."""
LIST_EVENTS = 1_000_000
"""Host events (operators + launch calls) up to which the nesting walk reads Python lists (about 100 bytes an
event); above, compact arrays (24 bytes an event) keep a 1 GB trace's memory bounded."""
_DISPATCHER = re.compile(r"^[A-Za-z_]\w*::[\w.]+\Z")
_NOT_OPS = ("autograd::", "torch::", "profiler::")


def is_dispatcher_op(name: str) -> bool:
    """``aten::mm``, ``c10d::allreduce_``, ``vllm::rms_norm``: an operator of PyTorch's dispatcher (not an
    autograd node or an annotation)."""
    return bool(_DISPATCHER.match(name)) and not name.startswith(_NOT_OPS)


@dataclass(frozen=True, slots=True)
class OpJoin(Result):
    """For each operator call: its parent, whether it counts FLOP (``counted``), the call whose row its kernels
    join (``row``, -1: none); for each GPU event: its row call (-1: none) and its launch call (-1: none)."""

    parent: array
    counted: array
    row: array
    kernel_row: array
    launch_of_kernel: array
    launch_op: array


def column(values: array, dtype):
    """A table's column as a numpy array over its buffer (no copy); an empty one of ``dtype`` when it is empty."""
    import numpy as np

    return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)


def _array(kind: str, values) -> array:
    out = array(kind)
    out.frombytes(values.tobytes())
    return out


def _launch_calls(order, n_ops: int, thread, start) -> tuple:
    """Each launch call (index among the launches), its start, and the last operator before it in the walk's order
    on its thread (-1: none) — the innermost operator that may still be open at it (``_launch_ops``)."""
    import numpy as np

    is_op = order < n_ops
    where = np.arange(len(order), dtype=np.int64)
    last_op = np.maximum.accumulate(np.where(is_op, where, -1))[~is_op]
    calls = order[~is_op]
    cand = np.where(last_op >= 0, order[np.maximum(last_op, 0)], -1)
    if n_ops:
        cand[(cand >= 0) & (thread[np.maximum(cand, 0)] != thread[calls])] = -1
    return calls - n_ops, start[calls], cand


def _launch_ops(n_rt: int, calls, ts, cand, ends, parent) -> array:
    """Each launch call's innermost open operator, in numpy: the operators open at a launch are the last operator
    before it (``_launch_calls``) and that one's ancestors, so the answer is the first of them, going up, that ends
    after the launch starts — what the walk's stack holds once it has popped the ended ones."""
    import numpy as np

    up = np.frombuffer(parent, dtype=np.int64) if len(parent) else np.zeros(0, np.int64)
    while True:
        live = np.nonzero(cand >= 0)[0]
        ended = live[ends[cand[live]] <= ts[live]]
        if not len(ended):
            break
        cand[ended] = up[cand[ended]]
    out = np.full(n_rt, -1, dtype=np.int64)
    out[calls] = cand
    return _array("l", out)


def _parents(ops_order, thread, start, ends):
    """Each operator's parent (-1: none) with no Python step per operator. In the walk's order, the operators the
    stack holds at a call are all earlier ones on its thread that end after it starts (a pop needs a start at or
    past an end, and starts only grow), and its top is the latest of them: the parent is the last earlier operator
    on the thread whose end exceeds the call's start — found for every call at once by a descent over running
    maxima of the ends over windows of 2^l calls."""
    import numpy as np

    n = len(ops_order)
    parent = np.full(n, -1, dtype=np.int64)
    if not n:
        return parent
    th, x = thread[ops_order], start[ops_order]
    levels = [ends[ops_order]]
    while (1 << len(levels)) <= n:
        w, prev = 1 << (len(levels) - 1), levels[-1]
        nxt = prev.copy()
        np.maximum(prev[w:], prev[:-w], out=nxt[w:])
        levels.append(nxt)
    at = np.arange(n, dtype=np.int64) - 1  # the last candidate position of each call
    for l in range(len(levels) - 1, -1, -1):
        live = np.nonzero(at >= 0)[0]
        skip = live[levels[l][at[live]] <= x[live]]
        at[skip] -= 1 << l
    first_of_thread = np.searchsorted(th, th, side="left")
    found = at >= first_of_thread
    parent[ops_order[found]] = ops_order[at[found]]
    return parent


def _walk(ops_order, starts, ends, threads, parent, children, walk) -> None:
    """The operators' nesting by a stack per thread (``parent``, ``children`` and ``walk`` filled in)."""
    stack: list[int] = [-1]  # -1 at the bottom: no operator
    push, pop, keep = stack.append, stack.pop, walk.append
    current = None
    reach = float("inf")  # the end of the innermost open operator
    for k in ops_order:
        th = threads[k]
        if th != current:
            del stack[1:]
            current = th
            reach = float("inf")
        ts = starts[k]
        if ts >= reach:
            while len(stack) > 1 and ts >= ends[stack[-1]]:
                pop()
            reach = ends[stack[-1]] if len(stack) > 1 else float("inf")
        top = stack[-1]
        parent[k] = top
        if top >= 0:
            children[top] += 1
        keep(k)
        push(k)
        reach = ends[k]


def _kinds(t: TraceTables, n_ops: int):
    """Each operator call's kind: 0 nothing, 1 a FLOP formula, 2 a leaf-only formula, 3 a dispatcher operator."""
    import numpy as np

    kind = np.zeros(len(t.sigs), dtype=np.int8)
    for s, sig in enumerate(t.sigs):
        f = FORMULAS.get(sig.name)
        kind[s] = (2 if f.leaf_only else 1) if f is not None else 3 if is_dispatcher_op(sig.name) else 0
    return kind[column(t.o_sig, np.int64)] if n_ops else np.zeros(0, np.int8)


def _rows(parent, children, kind) -> tuple:
    """(counted, row) of every call, by pointer doubling up the parents (log₂ depth steps): a call with a formula
    counts unless an operator above it counts (``leaf_only``: only with no operator beneath); its row is the
    outermost counting call above it or itself, else the nearest dispatcher operator or formula call up from it
    (-1: none) — the walk's rules, top down."""
    import numpy as np

    n = len(parent)
    me = np.arange(n, dtype=np.int64)
    own = (kind == 1) | ((kind == 2) & (children == 0))
    outermost = np.where(own, me, -1)  # over the chain from a call up to (not including) up
    nearest = np.where(kind > 0, me, parent)  # the nearest named call at or above, once every link is followed
    up = parent.copy()
    while True:
        live = np.nonzero(up >= 0)[0]
        if not len(live):
            break
        above = up[live]
        higher = outermost[above]
        outermost[live] = np.where(higher >= 0, higher, outermost[live])
        up[live] = up[above]
    while True:
        live = np.nonzero(nearest >= 0)[0]
        moving = live[nearest[nearest[live]] != nearest[live]]
        if not len(moving):
            break
        nearest[moving] = nearest[nearest[moving]]
    counted = own & (outermost == me)
    return counted, np.where(outermost >= 0, outermost, nearest)


def join_ops(t: TraceTables) -> OpJoin:
    import numpy as np

    n_ops, n_rt = len(t.o_ts), len(t.r_ts)
    thread = np.concatenate([column(t.o_thread, np.int64), column(t.r_thread, np.int64)])
    start = np.concatenate([column(t.o_ts, np.float64), column(t.r_ts, np.float64)])
    longer = -np.concatenate([column(t.o_dur, np.float64), column(t.r_dur, np.float64)])
    order = np.lexsort((longer, start, thread))
    del longer
    small = n_ops + n_rt <= LIST_EVENTS
    ends = column(t.o_ts, np.float64) + column(t.o_dur, np.float64)
    launches = _launch_calls(order, n_ops, thread, start)
    ops_sorted = order[order < n_ops].astype(np.int64)
    del order
    if small and n_ops <= LIFT_OPS:  # the operators' parents, then what counts, in numpy (``_parents``, ``_rows``)
        found = _parents(ops_sorted, thread[:n_ops], start[:n_ops], ends)
        del thread, start, ops_sorted
        counted, row = _rows(found, np.bincount(found[found >= 0], minlength=n_ops), _kinds(t, n_ops))
        parent = _array("l", found)
        launch_op = _launch_ops(n_rt, *launches, ends, parent)
        return _joined(t, parent, _array("b", counted.astype(np.int8)), _array("l", row), launch_op)
    else:  # a stack per thread over Python lists up to LIST_EVENTS, compact arrays above (memory)
        parent = [-1] * n_ops if small else array("l", [-1]) * n_ops
        children = [0] * n_ops if small else array("l", [0]) * n_ops
        walk = [] if small else array("l")
        seq = (lambda a: a.tolist()) if small else (lambda a: _array("d" if a.dtype.kind == "f" else "q", a))
        ops_order, starts, ends_seq, threads = seq(ops_sorted), seq(start[:n_ops]), seq(ends), seq(thread[:n_ops])
        del ops_sorted, thread, start
        _walk(ops_order, starts, ends_seq, threads, parent, children, walk)
        del ops_order, threads, starts, ends_seq
    if small:
        parent = array("l", parent)
    launch_op = _launch_ops(n_rt, *launches, ends, parent)
    del launches
    sigs, o_sig = t.sigs, t.o_sig
    counted = [0] * n_ops if small else array("b", [0]) * n_ops
    row = [-1] * n_ops if small else array("l", [-1]) * n_ops
    under = [-1] * n_ops if small else array("l", [-1]) * n_ops  # the counted call above (or self), -1: none
    if small:
        o_sig = o_sig.tolist()
    kind_of_sig: dict[int, int] = {}  # 0 nothing, 1 formula, 2 leaf-only formula, 3 dispatcher operator
    for k in walk:
        p = parent[k]
        above = under[p] if p >= 0 else -1
        if above >= 0:
            under[k] = above
            row[k] = above
            continue
        s = o_sig[k]
        kind = kind_of_sig.get(s)
        if kind is None:
            name = sigs[s].name
            f = FORMULAS.get(name)
            kind = kind_of_sig[s] = (2 if f.leaf_only else 1) if f is not None else 3 if is_dispatcher_op(name) else 0
        if kind == 1 or (kind == 2 and children[k] == 0):
            counted[k] = 1
            under[k] = k
            row[k] = k
        elif kind:
            row[k] = k
        else:
            row[k] = row[p] if p >= 0 else -1
    del walk, under
    if small:
        counted, row = array("b", counted), array("l", row)
    return _joined(t, parent, counted, row, launch_op)


def _joined(t: TraceTables, parent: array, counted: array, row: array, launch_op: array) -> OpJoin:
    """The join finished: kernels → launch calls by correlation id (sorted ids, binary search) → operators → rows."""
    import numpy as np

    n_ops, n_rt = len(t.o_ts), len(t.r_ts)
    # kernels → launches by correlation id (sorted ids, binary search)
    r_corr = column(t.r_corr, np.int64)
    g_corr = column(t.g_corr, np.int64)
    by_corr = np.argsort(r_corr, kind="stable")
    sorted_corr = r_corr[by_corr]
    at = np.searchsorted(sorted_corr, g_corr)
    inside = np.minimum(at, max(len(sorted_corr) - 1, 0))
    found = (g_corr >= 0) & (at < len(sorted_corr))
    if len(sorted_corr):
        found &= sorted_corr[inside] == g_corr
    launch = np.where(found, by_corr[inside] if len(by_corr) else -1, -1).astype(np.int64)
    ops_of_launch = column(launch_op, np.int64)
    rows = column(row, np.int64)
    op = np.where(launch >= 0, ops_of_launch[np.maximum(launch, 0)] if n_rt else -1, -1)
    kernel_row = np.where(op >= 0, rows[np.maximum(op, 0)] if n_ops else -1, -1).astype(np.int64)
    return OpJoin(parent, counted, row, _array("l", kernel_row), _array("l", launch), launch_op)
