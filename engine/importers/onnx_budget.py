"""Bounds on importing a graph: a CPU-time budget checked as the import goes, and the dashboard's node cap.

The dashboard counts an upload in the session's script thread: a graph under the upload cap may hold hundreds
of thousands of nodes (a 7.9 MB chain of 199,999 ``Relu`` took 39 s and 540 MB before these bounds).
``Budget.check`` looks at ``time.thread_time`` — the script thread's own CPU time, so other sessions' work on
the same server does not use this one's budget — every ``EVERY`` nodes of each pass (reading, ordering, shape
inference node by node, the count), and ``Budget.ahead`` refuses before onnx's whole-graph shape inference
(one C++ call that cannot be stopped) when its expected time does not fit what is left. The CLI counts on the
user's machine without a budget (``None``), up to ``onnx_graph.MAX_NODES``.
"""
from __future__ import annotations

import time

from ..errors import InputError

EVERY = 256
"""Nodes between two looks at the clock (a look costs ~0.1 µs; a node 5-70 µs)."""
DASHBOARD_BUDGET_S = 2.0
"""CPU seconds one import may take in the dashboard (reading, checking, inferring and counting)."""
DASHBOARD_MAX_NODES = 50_000
"""Most nodes the dashboard reads: whole-graph shape inference keeps every value's type (~1.2 KB a node: 230 MB
for 200,000 nodes, 60 MB for 50,000) before the budget can be looked at again."""
INFER_S_PER_NODE = 6e-6
"""onnx.shape_inference.infer_shapes's CPU time per node, measured on a chain of 200,000 (0.94 s; bench/)."""
CLI_HINT = ": python -m engine flops --onnx FILE counts it on your own machine"


class Budget:
    """``check(done, stage, total)`` raises one ``InputError`` on ``source`` once ``seconds`` of this thread's CPU
    are spent (``seconds=None``: never)."""

    def __init__(self, seconds: float | None, source: str, hint: str = CLI_HINT):
        self.seconds, self.source, self.hint = seconds, source[:200], hint
        self.deadline = None if seconds is None else time.thread_time() + seconds

    def _refuse(self, done: int, stage: str, total: int):
        return InputError(self.source, f"importing it takes more than {self.seconds:g} s of CPU here (stopped in "
                                       f"{stage} at node {done:,} of {total:,}){self.hint}")

    def check(self, done: int, stage: str, total: int) -> None:
        if self.deadline is None or done % EVERY or time.thread_time() <= self.deadline:
            return
        raise self._refuse(done, stage, total)

    def ahead(self, seconds: float, stage: str, total: int) -> None:
        """Refuse now if a step that cannot be stopped is expected to take ``seconds`` and they are not left."""
        if self.deadline is not None and time.thread_time() + seconds > self.deadline:
            raise self._refuse(0, stage, total)
