"""What a trace keeps once read: compact tables of the events that matter, built one event at a time.

Kept (each as columns of ``array`` values, names and shapes interned once): GPU work (``kernel``,
``gpu_memcpy``, ``gpu_memset``: start, duration, stream, correlation), the host's launch calls (``cuda_runtime``,
``cuda_driver``: start, duration, thread, correlation), the operators (``cpu_op``: start, duration, thread, and
one signature per distinct name + ``Input Dims`` + ``Input type`` + ``Concrete Inputs``), the ``ProfilerStep#N``
annotations (host and GPU side), and what HTA's whole-trace breakdown reads (every event with an integer
``stream``, and the correlation ids of host-side events). Python-function events, flows and instants are
dropped as they stream past. A 1 GB trace's tables take tens of MB.
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

GPU_KINDS = {"kernel": 0, "gpu_memcpy": 1, "gpu_memset": 2}
"""The GPU work an event category stands for: 0 kernel, 1 memory copy, 2 memory set."""
RUNTIME_CATS = frozenset({"cuda_runtime", "cuda_driver", "hip_runtime"})
SYNC_NAMES = frozenset({"Event Sync", "Context Sync"})
"""Device-wide synchronisations that HTA counts with the GPU's events although their stream is -1."""
_NUMBERS = (int, float)
MAX_DIM = 2**62
"""A shape's size above this is not a real tensor: the operator's FLOP are not counted (said)."""


@dataclass(frozen=True, slots=True)
class OpSignature:
    """One distinct operator call shape: its name and its recorded ``Input Dims``, ``Input type`` and
    ``Concrete Inputs`` (lists as the trace has them; None where the trace lacks them)."""

    name: str
    dims: tuple | None
    types: tuple | None
    concrete: tuple | None


@dataclass(slots=True)
class StepMark:
    """A ``ProfilerStep#N`` annotation: its number, start and duration (µs), and which side recorded it."""

    name: str
    number: int
    ts: float
    dur: float
    gpu: bool


def _tuple(value):
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    return value


def _step_number(name: str) -> int | None:
    head, sep, tail = name.partition("#")
    if head.strip() != "ProfilerStep" or not sep:
        return None
    tail = tail.strip()
    return int(tail) if tail.isdigit() and len(tail) < 12 else None


@dataclass
class TraceTables:
    """The kept events of one trace file (see the module docstring). Filled by ``add`` (an event) then frozen in
    use; times in µs as the trace writes them."""

    names: list[str] = field(default_factory=list)
    _name_ids: dict[str, int] = field(default_factory=dict)
    threads: list[tuple] = field(default_factory=list)
    _thread_ids: dict[tuple, int] = field(default_factory=dict)
    sigs: list[OpSignature] = field(default_factory=list)
    _sig_ids: dict[tuple, int] = field(default_factory=dict)
    # GPU work
    g_ts: array = field(default_factory=lambda: array("d"))
    g_dur: array = field(default_factory=lambda: array("d"))
    g_kind: array = field(default_factory=lambda: array("b"))
    g_name: array = field(default_factory=lambda: array("l"))
    g_stream: array = field(default_factory=lambda: array("q"))
    g_corr: array = field(default_factory=lambda: array("q"))
    # launches (runtime and driver calls)
    r_ts: array = field(default_factory=lambda: array("d"))
    r_dur: array = field(default_factory=lambda: array("d"))
    r_thread: array = field(default_factory=lambda: array("l"))
    r_corr: array = field(default_factory=lambda: array("q"))
    r_name: array = field(default_factory=lambda: array("l"))
    # operators
    o_ts: array = field(default_factory=lambda: array("d"))
    o_dur: array = field(default_factory=lambda: array("d"))
    o_thread: array = field(default_factory=lambda: array("l"))
    o_sig: array = field(default_factory=lambda: array("l"))
    # HTA's view: events with an integer stream, and host-side correlation ids
    h_ts: array = field(default_factory=lambda: array("d"))
    h_dur: array = field(default_factory=lambda: array("d"))
    h_corr: array = field(default_factory=lambda: array("q"))
    h_name: array = field(default_factory=lambda: array("l"))
    h_gpu_side: array = field(default_factory=lambda: array("b"))
    c_corr: array = field(default_factory=lambda: array("q"))
    c_ts: array = field(default_factory=lambda: array("d"))
    hta_step_names: set = field(default_factory=set)
    hta_last_step_start: float = -math.inf
    steps: list[StepMark] = field(default_factory=list)
    loader: list[tuple[float, float]] = field(default_factory=list)
    """Host time spent waiting for the next batch (annotations and operators naming a DataLoader)."""
    negative: list[tuple[str, float, float]] = field(default_factory=list)
    malformed: int = 0
    bad_shapes: int = 0
    events: int = 0
    first_ts: float = math.inf
    last_ts: float = -math.inf

    def name_id(self, name: str) -> int:
        i = self._name_ids.get(name)
        if i is None:
            i = self._name_ids[name] = len(self.names)
            self.names.append(name)
        return i

    def thread_id(self, key: tuple) -> int:
        i = self._thread_ids.get(key)
        if i is None:
            i = self._thread_ids[key] = len(self.threads)
            self.threads.append(key)
        return i

    def sig_id(self, name: str, args: dict) -> int:
        dims, types, concrete = args.get("Input Dims"), args.get("Input type"), args.get("Concrete Inputs")
        key = (name, repr((dims, types, concrete))) if dims is not None else (name,)
        i = self._sig_ids.get(key)
        if i is None:
            i = self._sig_ids[key] = len(self.sigs)
            self.sigs.append(OpSignature(name, _tuple(dims) if isinstance(dims, list) else None,
                                         _tuple(types) if isinstance(types, list) else None,
                                         _tuple(concrete) if isinstance(concrete, list) else None))
        return i

    def add(self, e: dict) -> None:
        """Keep what is used of one trace event (anything else is dropped here)."""
        self.events += 1
        if e.get("ph") != "X":
            return
        cat = e.get("cat")
        if cat == "python_function":
            return
        ts, dur = e.get("ts"), e.get("dur")
        if type(ts) not in _NUMBERS or type(dur) not in _NUMBERS or not math.isfinite(ts) or not math.isfinite(dur):
            self.malformed += 1
            return
        name = e.get("name")
        if type(name) is not str:
            name = str(name)
        args = e.get("args")
        if type(args) is not dict:
            args = {}
        if cat == "cpu_op":
            if "stream" in args or "correlation" in args or name.startswith("ProfilerStep"):
                self._hta(name, ts, dur, args)
            if "DataLoader" in name:
                self.loader.append((float(ts), float(max(dur, 0.0))))
            self.o_ts.append(ts)
            self.o_dur.append(dur if dur > 0 else 0.0)
            self.o_thread.append(self.thread_id((e.get("pid"), e.get("tid"))))
            self.o_sig.append(self.sig_id(name, args))
            return
        if cat != "Trace" and type(cat) is str:
            self._hta(name, ts, dur, args)
        kind = GPU_KINDS.get(cat)
        if kind is not None:
            if dur < 0:
                self.negative.append((name, ts, dur))
                return
            stream = args.get("stream")
            corr = args.get("correlation")
            self.g_ts.append(ts)
            self.g_dur.append(dur)
            self.g_kind.append(kind)
            self.g_name.append(self.name_id(name))
            self.g_stream.append(stream if type(stream) is int else -1)
            self.g_corr.append(corr if type(corr) is int else -1)
            self.first_ts = min(self.first_ts, ts)
            self.last_ts = max(self.last_ts, ts + dur)
            return
        if cat in RUNTIME_CATS:
            corr = args.get("correlation")
            self.r_ts.append(ts)
            self.r_dur.append(dur if dur > 0 else 0.0)
            self.r_thread.append(self.thread_id((e.get("pid"), e.get("tid"))))
            self.r_corr.append(corr if type(corr) is int else -1)
            self.r_name.append(self.name_id(name))
            return
        if cat == "user_annotation" or cat == "gpu_user_annotation":
            if "DataLoader" in name and cat == "user_annotation":
                self.loader.append((float(ts), float(max(dur, 0.0))))
            if name.startswith("ProfilerStep"):
                number = _step_number(name)
                if number is not None:
                    self.steps.append(StepMark(name, number, float(ts), float(max(dur, 0.0)),
                                               cat == "gpu_user_annotation"))

    def _hta(self, name: str, ts: float, dur: float, args: dict) -> None:
        """HTA 0.5.0's reading (``hta.common.trace``): an event with an integer stream other than -1 is GPU work
        (its own ``stream`` column); the GPU side of the correlation join is stream ≥ 0 with correlation ≥ 0, or a
        device-wide sync; every other event is host side, and the latest host-side ``ProfilerStep`` start bounds
        the iterations kept."""
        stream = args.get("stream", -1)
        try:
            stream = int(stream)
        except (TypeError, ValueError, OverflowError):
            stream = -1
        corr = args.get("correlation", -1)
        corr = corr if type(corr) is int else -1
        gpu_side = (stream >= 0 and corr >= 0) or name in SYNC_NAMES
        if stream != -1:
            self.h_ts.append(ts)
            self.h_dur.append(dur)
            self.h_corr.append(corr)
            self.h_name.append(self.name_id(name))
            self.h_gpu_side.append(1 if gpu_side else 0)
        if not gpu_side:
            if corr >= 0:
                self.c_corr.append(corr)
                self.c_ts.append(ts)
            if "ProfilerStep" in name:
                self.hta_step_names.add(name)
                self.hta_last_step_start = max(self.hta_last_step_start, ts)

    @property
    def has_gpu(self) -> bool:
        return len(self.g_ts) > 0
