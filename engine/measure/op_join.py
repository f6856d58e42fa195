"""Operators joined to their GPU work: which operator's call each kernel belongs to, and which calls count FLOP.

1. Nesting: on each host thread, an operator (or a launch call) that starts before another ends is inside it
   (events sorted by start, longer first; TraceLens's ``build_host_call_stack_tree``).
2. Counting: walking down from the outermost operator, the first one with a FLOP formula (``op_flop.FORMULAS``)
   counts, and nothing beneath it counts again — as FlopCounterMode sees one dispatched operator
   (``aten::convolution``, not the ``aten::_convolution`` and ``cudnn_convolution`` it calls). A composite
   operator (``leaf_only``: ``aten::linear``, ``aten::matmul``…) counts only when the trace shows no operator
   beneath it.
3. Kernels: a kernel (memcpy, memset) names its launch call by ``correlation``; the launch sits inside the
   operator that made it. Its row is the counted operator above it if any, else the innermost dispatcher
   operator (``aten::relu`` → its ``aten::clamp_min``), else none (GPU work no operator launched).
"""
from __future__ import annotations

import re
from array import array
from dataclasses import dataclass

from engine.measure.op_flop import FORMULAS
from engine.measure.trace_tables import TraceTables
from engine.results import Result

_DISPATCHER = re.compile(r"^[A-Za-z_]\w*::[\w.]+$")
_NOT_OPS = ("autograd::", "torch::", "profiler::")


def is_dispatcher_op(name: str) -> bool:
    """``aten::mm``, ``c10d::allreduce_``, ``vllm::rms_norm``: an operator of PyTorch's dispatcher (not an
    autograd node or an annotation)."""
    return bool(_DISPATCHER.match(name)) and not name.startswith(_NOT_OPS)


@dataclass(frozen=True, slots=True)
class OpJoin(Result):
    """For each operator call: its parent, whether it counts FLOP (``counted``), the call whose row its kernels
    join (``row``, -1: none); for each GPU event: its row call (-1: none) via its launch."""

    parent: array
    counted: array
    row: array
    kernel_row: array
    launch_of_kernel: array
    launch_op: array


def join_ops(t: TraceTables) -> OpJoin:
    n_ops, n_rt = len(t.o_ts), len(t.r_ts)
    parent = array("l", [-1]) * n_ops
    launch_op = array("l", [-1]) * n_rt
    children = array("l", [0]) * n_ops
    by_thread: dict[int, list[tuple[float, float, int]]] = {}
    for i in range(n_ops):
        by_thread.setdefault(t.o_thread[i], []).append((t.o_ts[i], -t.o_dur[i], i))
    for j in range(n_rt):  # launches as leaves: encoded as -(j + 1)
        by_thread.setdefault(t.r_thread[j], []).append((t.r_ts[j], -t.r_dur[j], -(j + 1)))
    order: list[int] = []  # ops, parents before children
    o_ts, o_dur = t.o_ts, t.o_dur
    for items in by_thread.values():
        items.sort()
        stack: list[int] = []  # op indices
        for ts, neg_dur, k in items:
            while stack and ts >= o_ts[stack[-1]] + o_dur[stack[-1]]:
                stack.pop()
            top = stack[-1] if stack else -1
            if k < 0:
                launch_op[-k - 1] = top
                continue
            parent[k] = top
            if top >= 0:
                children[top] += 1
            order.append(k)
            stack.append(k)
    sigs, o_sig = t.sigs, t.o_sig
    counted = array("b", [0]) * n_ops
    row = array("l", [-1]) * n_ops
    under = array("l", [-1]) * n_ops  # the counted call above (or self), -1: none
    for k in order:
        p = parent[k]
        above = under[p] if p >= 0 else -1
        if above >= 0:
            under[k] = above
            row[k] = above
            continue
        name = sigs[o_sig[k]].name
        f = FORMULAS.get(name)
        if f is not None and (not f.leaf_only or children[k] == 0):
            counted[k] = 1
            under[k] = k
            row[k] = k
        elif is_dispatcher_op(name):
            row[k] = k
        else:
            row[k] = row[p] if p >= 0 else -1
    # kernels → launches by correlation id
    corr_to_launch: dict[int, int] = {}
    for j in range(n_rt):
        c = t.r_corr[j]
        if c >= 0:
            corr_to_launch[c] = j
    n_g = len(t.g_ts)
    kernel_row = array("l", [-1]) * n_g
    launch_of_kernel = array("l", [-1]) * n_g
    for g in range(n_g):
        j = corr_to_launch.get(t.g_corr[g], -1)
        launch_of_kernel[g] = j
        if j >= 0:
            op = launch_op[j]
            kernel_row[g] = row[op] if op >= 0 else -1
    return OpJoin(parent, counted, row, kernel_row, launch_of_kernel, launch_op)
