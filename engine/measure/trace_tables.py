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
from itertools import compress, repeat
from operator import attrgetter, is_, itemgetter

from .trace_fast import decode_tuples as _decode_tuples
from .trace_fast import decode_value as _decode_value

GPU_KINDS = {"kernel": 0, "gpu_memcpy": 1, "gpu_memset": 2}
"""The GPU work an event category stands for: 0 kernel, 1 memory copy, 2 memory set."""
RUNTIME_CATS = frozenset({"cuda_runtime", "cuda_driver", "hip_runtime"})
SYNC_NAMES = frozenset({"Event Sync", "Context Sync"})
"""Device-wide synchronisations that HTA counts with the GPU's events although their stream is -1."""
_NUMBERS = (int, float)
MAX_DIM = 2**62
"""A shape's size above this is not a real tensor: the operator's FLOP are not counted (said)."""


_CPU_OP, _KERNEL, _MEMCPY, _MEMSET, _RUNTIME, _USER, _GPU_USER, _TRACE, _OTHER, _NO_CAT, _SKIP = range(11)
_CAT_CODES = {"cpu_op": _CPU_OP, "kernel": _KERNEL, "gpu_memcpy": _MEMCPY, "gpu_memset": _MEMSET,
              **dict.fromkeys(RUNTIME_CATS, _RUNTIME), "user_annotation": _USER, "gpu_user_annotation": _GPU_USER,
              "Trace": _TRACE}
"""``add_events``' category codes: GPU work is kernel … memset in ``GPU_KINDS``' order (code − kernel = kind)."""
_CODES = {**_CAT_CODES, None: _NO_CAT}
_FIELDS = tuple(map(attrgetter, ("cat", "name", "ts", "dur", "args")))
_SHAPES = attrgetter("dims", "types", "concrete")
_PID, _TID = attrgetter("pid"), attrgetter("tid")
_STREAM = attrgetter("stream")
_CORRELATION = attrgetter("correlation")


MAX_TIME_US = 1e18
"""The latest start a trace's clock can hold (µs; 31,700 years — Kineto's clock counts from 1970, ~1.7·10¹⁵)."""
MAX_DURATION_US = 1e12
"""The longest event a profiler records (µs; 11.6 days): beyond it a duration is not a measurement, and the event is
left out as one without a number (a kernel of 10³⁰⁸ µs made every step's time absurd)."""
INT64 = (-2**63, 2**63)
"""The ids a column holds (64-bit integers): a stream or correlation id outside them is no id (-1), as a text one."""


def _int_or(value, default: int = -1) -> int:
    """An integer id (a stream, a correlation) as a 64-bit column keeps it; ``default`` for anything else."""
    return value if type(value) is int and INT64[0] <= value < INT64[1] else default


def _finite(value) -> bool:
    """A number a time column takes: finite once a float (an integer of 400 digits is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _timed(ts, dur) -> bool:
    """A start and a duration the tables take: finite numbers within ``MAX_TIME_US`` and ``MAX_DURATION_US``."""
    return _finite(ts) and _finite(dur) and -MAX_TIME_US <= ts <= MAX_TIME_US and dur <= MAX_DURATION_US


def _key(value):
    """A ``pid`` or ``tid`` as a thread's key: itself where it is a number, a text or null, else its ``repr`` (an
    array or an object in its place is no id, but it must not stop the reading)."""
    return value if value is None or type(value) in (int, float, str, bool) else repr(value)[:200]


def _put(column: array, values) -> None:
    """A numpy array's values appended to an ``array`` column of the same item size (``d``/``q``/``l``: 8 bytes,
    ``b``: 1)."""
    column.frombytes(values.astype({8: "<f8" if column.typecode == "d" else "<i8", 1: "i1"}[column.itemsize],
                                   copy=False).tobytes())


def _interned(values: list, ids: dict, intern) -> list:
    """Each value's id in ``ids``, new values interned by ``intern`` in the order they come (as one by one)."""
    out = list(map(ids.get, values))
    if None in out:
        for value, _ in _first_missing(values, out):
            intern(value)
        out = list(map(ids.get, values))
    return out


def _pairs_interned(firsts, seconds, ids: dict, intern) -> object:
    """``_interned`` of the pairs ``zip(firsts, seconds)`` (a thread's (pid, tid)) without a tuple per event: each
    side numbered by its distinct values, a pair by a · |B| + b, and only each distinct pair's first place looked
    up (new pairs interned in the order they first come, as one by one)."""
    import numpy as np

    n = len(firsts)
    side_a, side_b = list(set(firsts)), list(set(seconds))
    if len(side_a) * len(side_b) > 4 * n + 1024:  # many distinct values: one tuple each is cheaper
        return _interned(list(zip(firsts, seconds)), ids, intern)
    code_a = {v: i for i, v in enumerate(side_a)}
    code_b = {v: i for i, v in enumerate(side_b)}
    pair = np.fromiter(map(code_a.__getitem__, firsts), np.int64, n) * len(side_b) + \
        np.fromiter(map(code_b.__getitem__, seconds), np.int64, n)
    first = np.full(len(side_a) * len(side_b), n, dtype=np.int64)
    np.minimum.at(first, pair, np.arange(n, dtype=np.int64))
    present = np.nonzero(first < n)[0]
    lut = np.zeros(len(first), dtype=np.int64)
    for p in present[np.argsort(first[present], kind="stable")].tolist():
        key = (side_a[p // len(side_b)], side_b[p % len(side_b)])
        i = ids.get(key)
        lut[p] = intern(key) if i is None else i
    return lut[pair]


def _first_missing(values: list, found: list) -> list[tuple]:
    """(value, position) of each distinct value whose ``found`` is None, at its first position, in order."""
    missing = list(map(is_, found, repeat(None)))
    values, places = list(compress(values, missing)), list(compress(range(len(found)), missing))
    first = dict(zip(reversed(values), reversed(places)))  # the earliest position of each is written last
    return sorted(first.items(), key=itemgetter(1))


def _stream_value(stream) -> int:
    """HTA's stream of an event from its ``args["stream"]`` (a typed struct's field): ``int(stream)``, -1 where
    absent or not a number (``_hta``)."""
    if type(stream) is int:
        return _int_or(stream)
    if stream is None or not isinstance(stream, str):
        return -1
    try:
        return _int_or(int(stream))
    except (TypeError, ValueError, OverflowError):
        return -1


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
    """Lists as tuples, at every depth (a flat list in one C call)."""
    if not isinstance(value, list):
        return value
    if list in set(map(type, value)):
        return tuple([_tuple(v) for v in value])
    return tuple(value)


def _step_number(name: str) -> int | None:
    head, sep, tail = name.partition("#")
    if head.strip() != "ProfilerStep" or not sep:
        return None
    tail = tail.strip()
    return int(tail) if tail.isdigit() and len(tail) < 19 else None  # a 64-bit number


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
    _raw_sigs: dict[tuple, int] = field(default_factory=dict)
    """Raw JSON of an operator's shapes (``add_events``) → its signature."""
    _raw_parts: dict[bytes, tuple] = field(default_factory=dict)
    """Raw JSON of one shape field → (its value, as tuples, its repr): each text decoded once, whichever operator
    and other fields it comes with."""
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
        """The id of (name, shapes): one per distinct ``repr`` of the three shape values, their lists as tuples."""
        dims, types, concrete = (_tuple(args.get(k)) for k in ("Input Dims", "Input type", "Concrete Inputs"))
        key = (name, repr((dims, types, concrete))) if dims is not None else (name,)
        i = self._sig_ids.get(key)
        if i is None:
            i = self._sig_ids[key] = len(self.sigs)
            self.sigs.append(OpSignature(name, *(v if isinstance(v, tuple) else None for v in (dims, types, concrete))))
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
        if type(ts) not in _NUMBERS or type(dur) not in _NUMBERS or not _timed(ts, dur):
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
            self.o_thread.append(self.thread_id((_key(e.get("pid")), _key(e.get("tid")))))
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
            self.g_stream.append(_int_or(stream))
            self.g_corr.append(_int_or(corr))
            self.first_ts = min(self.first_ts, ts)
            self.last_ts = max(self.last_ts, ts + dur)
            return
        if cat in RUNTIME_CATS:
            corr = args.get("correlation")
            self.r_ts.append(ts)
            self.r_dur.append(dur if dur > 0 else 0.0)
            self.r_thread.append(self.thread_id((_key(e.get("pid")), _key(e.get("tid")))))
            self.r_corr.append(_int_or(corr))
            self.r_name.append(self.name_id(name))
            return
        if cat == "user_annotation" or cat == "gpu_user_annotation":
            self._annotation(cat, name, ts, dur)

    def add_events(self, events: list) -> None:
        """``add`` for a chunk of typed structs (``trace_fast``: the complete events' fields, the others' phase
        alone) — the same rules, applied in numpy over the chunk's columns (each field read out by C-level
        ``attrgetter``); names, threads and shapes are interned in file order (the tables equal ``add``'s, event
        for event)."""
        import numpy as np

        from .trace_fast import UNSET, XEvent, no_args

        self.events += len(events)
        xs = [e for e in events if type(e) is XEvent and e.cat != "python_function"]  # Python's calls: dropped
        if not xs:
            return
        n = len(xs)
        cats, names, ts, dur, args = (list(map(get, xs)) for get in _FIELDS)
        if None in args:
            empty = no_args()  # an absent ``args``: every field absent, as ``add`` reads ``{}``
            args = [a if a is not None else empty for a in args]
        ts = np.array(ts, dtype=np.float64)  # None (absent, null) → NaN: malformed
        dur = np.array(dur, dtype=np.float64)
        ok = np.isfinite(ts) & np.isfinite(dur) & (np.abs(ts) <= MAX_TIME_US) & (dur <= MAX_DURATION_US)
        code = np.fromiter(map(_CODES.get, cats, repeat(_OTHER, n)), dtype=np.int8, count=n)
        self.malformed += int((~ok).sum())
        code[~ok] = _SKIP
        if None in names:
            names = ["None" if v is None else v for v in names]
        cpu = code == _CPU_OP
        gpu = (code >= _KERNEL) & (code <= _MEMSET)
        runtime = code == _RUNTIME
        # HTA's reading: operators with a stream or correlation (or a ProfilerStep name), every other categorised
        # event but the profiler's own span; then the GPU work and launches (a stream and a correlation are read
        # for those rows alone: the GPU work and launches are among them)
        idx = np.nonzero(cpu)[0].tolist()
        cpu_names = list(map(names.__getitem__, idx))
        distinct_cpu = set(cpu_names)
        steps_named = {v for v in distinct_cpu if v.startswith("ProfilerStep")}
        cpu_args = list(map(args.__getitem__, idx))
        cpu_hta = [i for i, s, c, v in zip(idx, map(_STREAM, cpu_args), map(_CORRELATION, cpu_args), cpu_names)
                   if s is not UNSET or c is not UNSET or v in steps_named]
        hta = (code != _SKIP) & (code != _NO_CAT) & (code != _TRACE) & ~cpu
        if cpu_hta:
            hta[cpu_hta] = True
        negative = gpu & (dur < 0)
        if negative.any():
            self.negative.extend((names[i], float(ts[i]), float(dur[i])) for i in np.nonzero(negative)[0].tolist())
            gpu &= ~negative
        h_idx = np.nonzero(hta)[0]
        h_list = h_idx.tolist()
        h_args = list(map(args.__getitem__, h_list))
        streams = list(map(_STREAM, h_args))
        h_corr = np.array(list(map(_int_or, map(_CORRELATION, h_args))), dtype=np.int64)
        h_stream = np.array(list(map(_int_or, streams)), dtype=np.int64)
        stream = np.full(n, -1, dtype=np.int64)  # the GPU work's own: a text stream is -1 there
        stream[h_idx] = h_stream
        corr = np.full(n, -1, dtype=np.int64)
        corr[h_idx] = h_corr
        if str in set(map(type, streams)):  # HTA's int() of a text stream
            h_stream = np.array([_stream_value(v) for v in streams], dtype=np.int64)
        h_names = list(map(names.__getitem__, h_list))
        sync = np.fromiter(map(SYNC_NAMES.__contains__, h_names), dtype=bool, count=len(h_names))
        gpu_side = ((h_stream >= 0) & (h_corr >= 0)) | sync
        on_stream = h_stream != -1
        # names interned in file order: an event's HTA row and its GPU or launch row share its name
        need_name = gpu | runtime
        need_name[h_idx[on_stream]] = True
        name_of = np.full(n, -1, dtype=np.int64)
        wanted = np.nonzero(need_name)[0]
        name_of[wanted] = _interned(list(map(names.__getitem__, wanted.tolist())), self._name_ids, self.name_id)
        if len(h_idx):
            keep = h_idx[on_stream]
            _put(self.h_ts, ts[keep])
            _put(self.h_dur, dur[keep])
            _put(self.h_corr, h_corr[on_stream])
            _put(self.h_name, name_of[keep])
            _put(self.h_gpu_side, gpu_side[on_stream].astype(np.int8))
            host = ~gpu_side
            with_corr = host & (h_corr >= 0)
            _put(self.c_corr, h_corr[with_corr])
            _put(self.c_ts, ts[h_idx[with_corr]])
            host_list = h_idx[host].tolist()
            if any("ProfilerStep" in v for v in set(map(names.__getitem__, host_list))):
                for i in host_list:
                    if "ProfilerStep" in names[i]:
                        self.hta_step_names.add(names[i])
                        self.hta_last_step_start = max(self.hta_last_step_start, float(ts[i]))
        # threads interned in file order (operators and launches)
        thread_of = np.full(n, -1, dtype=np.int64)
        wanted = np.nonzero(cpu | runtime)[0]
        if len(wanted):
            on = list(map(xs.__getitem__, wanted.tolist()))
            pids, tids = list(map(_PID, on)), list(map(_TID, on))
            if len(wanted) > 1:
                thread_of[wanted] = _pairs_interned(pids, tids, self._thread_ids, self.thread_id)
            else:
                thread_of[wanted] = _interned([(pids[0], tids[0])], self._thread_ids, self.thread_id)
        # operators
        if idx:
            _put(self.o_ts, ts[cpu])
            _put(self.o_dur, np.maximum(dur[cpu], 0.0))
            _put(self.o_thread, thread_of[cpu])
            raw_sigs = self._raw_sigs
            # (name, the three shape fields' raw JSON joined by a NUL byte, never inside valid JSON text: msgspec
            # refuses a raw control character; b"\x00…" where ``Input Dims`` is absent)
            keys = list(zip(cpu_names, map(b"\x00".join, map(_SHAPES, cpu_args))))
            sig_of = list(map(raw_sigs.get, keys))
            if None in sig_of:  # new shapes, decoded once each, in the order they first come
                for k, _ in _first_missing(keys, sig_of):
                    raw_sigs[k] = self._sig_of_parts(k)
                sig_of = list(map(raw_sigs.get, keys))
            self.o_sig.extend(sig_of)
        # GPU work
        g = np.nonzero(gpu)[0]
        if len(g):
            _put(self.g_ts, ts[g])
            _put(self.g_dur, dur[g])
            _put(self.g_kind, (code[g] - _KERNEL).astype(np.int8))
            _put(self.g_name, name_of[g])
            _put(self.g_stream, stream[g])
            _put(self.g_corr, corr[g])
            self.first_ts = min(self.first_ts, float(ts[g].min()))
            self.last_ts = max(self.last_ts, float((ts[g] + dur[g]).max()))
        # launches
        rr = np.nonzero(runtime)[0]
        if len(rr):
            _put(self.r_ts, ts[rr])
            _put(self.r_dur, np.maximum(dur[rr], 0.0))
            _put(self.r_thread, thread_of[rr])
            _put(self.r_corr, corr[rr])
            _put(self.r_name, name_of[rr])
        # data-loader waits (operators and annotations) and steps, in file order
        marks = [i for i in idx if "DataLoader" in names[i]] if any("DataLoader" in v for v in distinct_cpu) else []
        marks += np.nonzero((code == _USER) | (code == _GPU_USER))[0].tolist()
        for i in sorted(marks):
            if code[i] != _CPU_OP:
                self._annotation(cats[i], names[i], float(ts[i]), float(dur[i]))
            elif "DataLoader" in names[i]:
                self.loader.append((float(ts[i]), float(max(dur[i], 0.0))))

    def _part(self, raw: bytes) -> tuple:
        """One shape field's raw JSON (b'': absent) → (its value with lists as tuples, that value where it is a list
        (else None), its ``repr``): straight to tuples where it is an array of scalars at most three deep."""
        got = self._raw_parts.get(raw)
        if got is None:
            value = _decode_tuples(raw) if raw else None
            if value is None and raw:
                value = _tuple(_decode_value(raw))
            got = self._raw_parts[raw] = (value, value if isinstance(value, tuple) else None, repr(value))
        return got

    def _sig_of_parts(self, key: tuple) -> int:
        """``sig_id`` for (name, raw dims, raw types and raw concrete inputs joined by a NUL byte; b'': absent): the
        same key, ``repr`` of the three values, put together from each field's own (decoded once per distinct
        text)."""
        name, raw = key
        parts = raw.split(b"\x00")
        (dims, dims_t, dims_r), (types, types_t, types_r), (concrete, concrete_t, concrete_r) = map(self._part, parts)
        if dims is None:  # a null "Input Dims": as sig_id reads it (an absent field and a null one alike: None)
            return self.sig_id(name, {"Input Dims": None, "Input type": types, "Concrete Inputs": concrete})
        sig_key = (name, f"({dims_r}, {types_r}, {concrete_r})")
        i = self._sig_ids.get(sig_key)
        if i is None:
            i = self._sig_ids[sig_key] = len(self.sigs)
            self.sigs.append(OpSignature(name, dims_t, types_t, concrete_t))
        return i

    def _annotation(self, cat: str, name: str, ts: float, dur: float) -> None:
        if "DataLoader" in name and cat == "user_annotation":
            self.loader.append((float(ts), float(max(dur, 0.0))))
        if name.startswith("ProfilerStep"):
            number = _step_number(name)
            if number is not None:
                self.steps.append(StepMark(name, number, float(ts), float(max(dur, 0.0)), cat == "gpu_user_annotation"))

    def _hta(self, name: str, ts: float, dur: float, args: dict) -> None:
        """HTA 0.5.0's reading (``hta.common.trace``): an event with an integer stream other than -1 is GPU work
        (its own ``stream`` column); the GPU side of the correlation join is stream ≥ 0 with correlation ≥ 0, or a
        device-wide sync; every other event is host side, and the latest host-side ``ProfilerStep`` start bounds
        the iterations kept."""
        stream = args.get("stream", -1)
        try:
            stream = _int_or(int(stream))
        except (TypeError, ValueError, OverflowError):
            stream = -1
        corr = _int_or(args.get("correlation", -1))
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
