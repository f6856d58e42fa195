"""The bulk reader (engine/measure/trace_fast.py: a file read whole, or whole chunks of events, by msgspec's typed
decoder) keeps exactly what the event-by-event reader keeps: every table equal, event for event, on every reference
trace and on traces made to trip it (a cut inside a string, small chunks, fields of unexpected types) — where it
cannot take the file or a chunk, the event-by-event reader takes the rest, with its own rules and messages."""
from __future__ import annotations

import json
from dataclasses import fields

import pytest

from engine.errors import InputError
from engine.measure import trace_fast
from engine.measure.example import EXAMPLE_TRACE
from engine.measure.trace_stream import read_trace
from engine.measure.trace_tables import TraceTables

pytestmark = pytest.mark.skipif(not trace_fast.available(), reason="msgspec is not installed")
COMPARED = [f.name for f in fields(TraceTables) if not f.name.startswith("_raw")]


@pytest.fixture(params=["whole", "chunks"])
def reader(request, monkeypatch):
    """The bulk reader reading the file whole (``read_whole``) or in chunks (``WHOLE_BYTES`` 0: streamed)."""
    if request.param == "chunks":
        monkeypatch.setattr(trace_fast, "WHOLE_BYTES", 0)
    return request.param


def both(source) -> tuple[TraceTables, TraceTables, dict, dict]:
    slow, fast = TraceTables(), TraceTables()
    meta_slow = read_trace(source, slow.add)
    meta_fast = read_trace(source, fast.add, on_batch=fast.add_events)
    return slow, fast, meta_slow, meta_fast


def assert_same(slow: TraceTables, fast: TraceTables) -> None:
    for name in COMPARED:
        assert getattr(slow, name) == getattr(fast, name), name


def _reference_traces(shared_dir):
    folder = shared_dir / "data" / "traces"
    if not folder.is_dir():
        pytest.skip("../shared/data/traces is not here")
    return sorted(folder.glob("*.json.gz")) + sorted(folder.glob("tracelens/*/*.json.gz"))


def test_every_reference_trace_reads_the_same(shared_dir, reader):
    for path in _reference_traces(shared_dir) + [EXAMPLE_TRACE]:
        slow, fast, meta_slow, meta_fast = both(path)
        assert_same(slow, fast)
        assert meta_slow == meta_fast
        assert fast._raw_sigs or not slow.sigs, f"{path.name}: the bulk reader did not take it"


def _doc(events: list[dict], indent=None) -> bytes:
    return json.dumps({"schemaVersion": 1, "traceEvents": events, "traceName": "t"}, indent=indent).encode()


def _events(n: int = 300) -> list[dict]:
    out = []
    for i in range(n):
        out.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10.0 * i, "dur": 5,
                    "args": {"External id": i, "Input Dims": [[4, 8], [8, 16]], "Input type": ["float", "float"]}})
        out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2,
                    "ts": 10.0 * i + 1, "dur": 2, "args": {"correlation": i}})
        out.append({"ph": "X", "cat": "kernel", "name": "gemm}, {\"ph\": \"X\"", "pid": 0, "tid": 7,
                    "ts": 10.0 * i + 3, "dur": 4, "args": {"stream": 7, "correlation": i}})
        out.append({"ph": "f", "id": i, "pid": 0, "tid": 7, "ts": 10.0 * i + 3, "cat": "ac2g", "name": "ac2g"})
    out.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7, "ts": 0,
                "dur": 4000, "args": {}})
    return out


@pytest.mark.parametrize("indent", [None, 2, 8])
def test_small_chunks_and_cuts_inside_strings(monkeypatch, indent):
    """Chunks of 2 KiB: many cuts, some inside a kernel name holding '}, {' — each refused and an earlier taken."""
    monkeypatch.setattr(trace_fast, "WHOLE_BYTES", 0)
    monkeypatch.setattr(trace_fast, "CHUNK_CHARS", 2048)
    data = _doc(_events(), indent)
    slow, fast, _, _ = both(data)
    assert_same(slow, fast)
    assert len(fast.g_ts) == 300 and fast._raw_sigs


@pytest.mark.parametrize("odd", [
    {"ts": True}, {"ts": "12"}, {"dur": None}, {"pid": 1.5}, {"name": 7}, {"cat": 3}, {"args": [1]},
    {"args": {"stream": "7", "correlation": 3}}, {"args": {"stream": 1.5}}, {"ph": "Z"}, {"ph": None},
])
def test_unexpected_types_fall_back_to_the_event_by_event_reader(monkeypatch, odd, reader):
    monkeypatch.setattr(trace_fast, "CHUNK_CHARS", 4096)
    events = _events(200)
    events[350] = {**events[350], **odd}  # inside the second half of the file
    slow, fast, _, _ = both(_doc(events, 2))
    assert_same(slow, fast)


@pytest.mark.parametrize("args", [
    {"stream": 7, "correlation": 3}, {"correlation": 2**64}, {"correlation": -2**63 - 1}, {"stream": None},
    {"stream": "7"}, {"correlation": -1}, {"Input Dims": None, "Input type": ["float"]},
    {"Input type": ["float", "int"]},
])
def test_operators_with_odd_args_read_as_one_by_one(monkeypatch, args, reader):
    """An operator (``cpu_op``) carrying a stream or a correlation is HTA's GPU work or host event; ids past 64
    bits, null or text, and shapes without ``Input Dims``: every table equal to the event-by-event reader's."""
    monkeypatch.setattr(trace_fast, "CHUNK_CHARS", 4096)
    events = _events(200)
    for i in (348, 352):  # two operators, inside the second half of the file
        events[i] = {**events[i], "args": {**{k: v for k, v in events[i]["args"].items() if k not in args
                                                and not (k == "Input Dims" and "Input type" in args)}, **args}}
    slow, fast, _, _ = both(_doc(events, 2))
    assert_same(slow, fast)


@pytest.mark.parametrize("gather", [1, 50, 2048])
def test_gathered_chunks_reach_the_tables_in_file_order(monkeypatch, gather):
    """Streamed, the chunks' events are handed on ``gather`` at a time; where the typed decoder refuses an event
    after many chunks (past the reader's first 1 MiB block), what is gathered reaches the tables before the
    event-by-event reader's events: every table equal, event for event, to the event-by-event reader's."""
    monkeypatch.setattr(trace_fast, "WHOLE_BYTES", 0)
    monkeypatch.setattr(trace_fast, "CHUNK_CHARS", 4096)
    monkeypatch.setattr(trace_fast, "GATHER_EVENTS", gather)
    events = _events(2000)
    events[7000] = {**events[7000], "ts": "12"}
    data = _doc(events, 2)
    assert data.index(b'"ts": "12"') > 1 << 20
    batches = []
    fast = TraceTables()
    read_trace(data, fast.add, on_batch=lambda b: (batches.append(len(b)), fast.add_events(b)))
    slow = TraceTables()
    read_trace(data, slow.add)
    assert_same(slow, fast)
    assert 6000 < sum(batches) < 7001 and len(batches) > 2  # most events in bulk, the rest one by one


def test_non_finite_and_non_object_events(monkeypatch, reader):
    monkeypatch.setattr(trace_fast, "CHUNK_CHARS", 4096)
    text = _doc(_events(100), 2).decode()
    text = text.replace('"ts": 500.0', '"ts": NaN', 1).replace('"ts": 700.0', '"ts": 1e400', 1)
    text = text.replace('{\n      "ph": "f",\n      "id": 50', '17, {\n      "ph": "f",\n      "id": 50', 1)
    slow, fast, _, _ = both(text.encode())
    assert_same(slow, fast)
    assert fast.malformed == 2


def test_broken_json_is_the_same_one_line(monkeypatch, reader):
    monkeypatch.setattr(trace_fast, "CHUNK_CHARS", 4096)
    text = _doc(_events(100), 2).decode()
    cut = text[:len(text) // 2]
    messages = []
    for on_batch in (None, TraceTables().add_events):
        with pytest.raises(InputError) as err:
            read_trace(cut.encode(), TraceTables().add, on_batch=on_batch)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "cut short" in messages[0]


@pytest.mark.parametrize("odd", [b"\xef\xbb\xbf", b"\xff", "é".encode(), b'"traceEvents": [], ', b"NaN"])
def test_the_whole_file_reader_leaves_odd_files_to_the_streaming_reader(odd):
    """A byte-order mark, text that is not UTF-8, two event lists, a NaN outside the events: the same tables and top
    fields, or the same one-line message, as the event-by-event reader gives."""
    text = _doc(_events(20))
    if odd == b"\xef\xbb\xbf":
        text = odd + text
    elif odd == b"NaN":
        text = text.replace(b'"schemaVersion": 1', b'"schemaVersion": NaN')
    else:
        text = text.replace(b'"traceName": "t"', b'"traceName": "' + odd + b'"') if odd[:1] != b'"' else \
            text.replace(b'{"schemaVersion"', b"{" + odd + b'"schemaVersion"')
    outcomes = []
    for on_batch in (None, TraceTables().add_events):
        tables = TraceTables()
        try:
            meta = read_trace(text, tables.add, on_batch=tables.add_events if on_batch else None)
            outcomes.append(({k: str(v) for k, v in meta.items()}, [getattr(tables, n) for n in COMPARED]))
        except InputError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


def test_the_nesting_walk_is_the_same_over_arrays(monkeypatch):
    """Above ``LIST_EVENTS`` host events the operator walk reads compact arrays (a 1 GB trace's memory): the same
    join as over lists."""
    from engine.measure import op_join

    tables = TraceTables()
    read_trace(EXAMPLE_TRACE, tables.add, on_batch=tables.add_events)
    lists = op_join.join_ops(tables)
    monkeypatch.setattr(op_join, "LIST_EVENTS", 0)
    arrays = op_join.join_ops(tables)
    for name in ("parent", "counted", "row", "kernel_row", "launch_of_kernel", "launch_op"):
        assert getattr(lists, name) == getattr(arrays, name), name


@pytest.mark.parametrize("damage", ["none", "truncated", "corrupt", "bad crc", "trailing member"])
def test_gzip_inflate_by_isal_and_by_zlib_is_the_same(shared_dir, monkeypatch, damage):
    """The whole-file reader inflates with ISA-L where installed: the same text as zlib's gzip reading, and None
    (left to the streaming reader's one-line message) for every gzip file zlib refuses."""
    import gzip
    import zlib

    path = _reference_traces(shared_dir)[0]
    raw = path.read_bytes()
    raw = {"none": raw, "truncated": raw[:len(raw) // 2], "corrupt": raw[:100] + bytes(50) + raw[150:],
           "bad crc": raw[:-8] + b"\0\0\0\0" + raw[-4:], "trailing member": raw + gzip.compress(b"{}")}[damage]
    texts = [trace_fast._whole_bytes(raw, 1 << 26)]
    monkeypatch.setattr(trace_fast, "_inflate", zlib)
    monkeypatch.setattr(trace_fast, "_INFLATE_ERRORS", (zlib.error,))
    texts.append(trace_fast._whole_bytes(raw, 1 << 26))
    assert texts[0] == texts[1]
    assert (texts[1] == gzip.decompress(raw)) if damage == "none" else texts[1] is None


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "bad crc", "trailing garbage", "trailing zeros",
                                    "trailing member"])
def test_gzip_streamed_by_isal_and_by_zlib_says_the_same(shared_dir, monkeypatch, damage, tmp_path):
    """The streaming reader inflates with ISA-L's gzip reading where installed: on a damaged file the same one line
    as the standard library's (ISA-L calls bytes after the last member that are not a gzip header the end of the
    file; the standard library, and so this reader, calls them corrupt), and the same trace on an intact one."""
    import gzip

    from engine.measure import trace_stream
    from engine.measure.measurement import measure_trace

    raw = _reference_traces(shared_dir)[0].read_bytes()
    raw = {"truncated": raw[:len(raw) // 2], "corrupt": raw[:100] + bytes(50) + raw[150:],
           "bad crc": raw[:-8] + b"\0\0\0\0" + raw[-4:], "trailing garbage": raw + b"garbage!",
           "trailing zeros": raw + bytes(10), "trailing member": raw + gzip.compress(b" ")}[damage]
    (tmp_path / "t.json.gz").write_bytes(raw)
    monkeypatch.setattr(trace_fast, "WHOLE_BYTES", 0)  # streamed

    def said(source):
        try:
            return measure_trace(source).events
        except InputError as exc:
            return str(exc)

    got = [said(tmp_path / "t.json.gz"), said(raw)]
    monkeypatch.setattr(trace_stream, "_igzip", None)
    assert got == [said(tmp_path / "t.json.gz"), said(raw)]
    expected = {"truncated": "cut short", "corrupt": "corrupt", "bad crc": "corrupt", "trailing garbage": "corrupt"}
    assert expected[damage] in got[0] if damage in expected else isinstance(got[0], int)


def test_threads_interned_by_pairs_as_one_by_one():
    """(pid, tid) pairs numbered without a tuple per event: the same ids, in first-come order, as one by one —
    integers, texts and nulls mixed."""
    from engine.measure import trace_tables

    pids = [7, 7, "7", None, 7, 3, "7", 3, None] * 3
    tids = [1, 2, 1, 1, 1, 2, 1, 2, None] * 3
    ids_one, ids_pairs = {1: 0}, {1: 0}
    one = trace_tables._interned(list(zip(pids, tids)), ids_one, lambda key: ids_one.setdefault(key, len(ids_one)))
    pairs = trace_tables._pairs_interned(pids, tids, ids_pairs, lambda key: ids_pairs.setdefault(key, len(ids_pairs)))
    assert list(pairs) == one and list(ids_pairs) == list(ids_one)


def test_parents_and_launch_calls_are_those_of_a_stack_walk():
    """Operators' parents and launch calls' operators found in numpy (``op_join._parents``, ``_launch_ops``), and
    by the Python walk over lists and over arrays: the same as one stack walk over every host event sorted by
    thread, start, longer first — on random overlapping, touching, zero-length and equal-start calls, three
    threads."""
    import random

    from engine.measure import op_join

    rng = random.Random(36)
    tables = TraceTables()
    for i in range(3000):
        ts, dur = rng.choice([rng.randint(0, 400), rng.random() * 400]), rng.choice([0, 1, 5, 30, rng.random() * 80])
        cat = "cpu_op" if rng.random() < 0.6 else "cuda_runtime"
        tables.add({"ph": "X", "cat": cat, "name": "aten::mm" if cat == "cpu_op" else "cudaLaunchKernel",
                    "pid": 1, "tid": rng.randint(1, 3), "ts": ts, "dur": dur, "args": {"correlation": i}})
    n_ops = len(tables.o_ts)
    events = [(tables.o_thread[k], tables.o_ts[k], -tables.o_dur[k], k, True) for k in range(n_ops)] + \
        [(tables.r_thread[k], tables.r_ts[k], -tables.r_dur[k], n_ops + k, False) for k in range(len(tables.r_ts))]
    expected, parents, stack, current = {}, {}, [], None
    for th, ts, _, k, is_op in sorted(events):
        if th != current:
            stack, current = [], th
        while stack and ts >= tables.o_ts[stack[-1]] + tables.o_dur[stack[-1]]:
            stack.pop()
        if is_op:
            parents[k] = stack[-1] if stack else -1
            stack.append(k)
        else:
            expected[k - n_ops] = stack[-1] if stack else -1
    assert sum(p >= 0 for p in parents.values()) > 100 and sum(p >= 0 for p in expected.values()) > 100
    for name, limit in (("LIFT_OPS", op_join.LIFT_OPS), ("LIFT_OPS", 0), ("LIST_EVENTS", 0)):
        saved = getattr(op_join, name)
        setattr(op_join, name, limit)
        try:
            got = op_join.join_ops(tables)
        finally:
            setattr(op_join, name, saved)
        assert list(got.launch_op) == [expected[k] for k in range(len(tables.r_ts))], (name, limit)
        assert list(got.parent) == [parents[k] for k in range(n_ops)], (name, limit)


def test_overlapping_kernels_counted_in_numpy_as_one_by_one():
    """Kernels that start over 1 µs before the latest end of the earlier kernels on their stream: counted per
    stream in numpy (``measurement.overlapping_kernels``) as a walk over each stream's (start, end) pairs sorted counts
    them — random starts, durations, kinds and streams (few, and many: the one-by-one branch)."""
    import random

    from engine.measure.measurement import overlapping_kernels

    def walk(t):
        by_stream = {}
        for g in range(len(t.g_ts)):
            if t.g_kind[g] == 0:
                by_stream.setdefault(t.g_stream[g], []).append((t.g_ts[g], t.g_ts[g] + t.g_dur[g]))
        count = 0
        for spans in by_stream.values():
            reach = float("-inf")
            for s, e in sorted(spans):
                count += s < reach - 1.0
                reach = max(reach, e)
        return count

    rng = random.Random(36)
    for _ in range(300):
        t, streams = TraceTables(), rng.choice([1, 2, 5, 100])
        for _ in range(rng.randint(0, 80)):
            t.g_ts.append(rng.choice([0.0, 1.0, 2.5, rng.uniform(0, 50)]))
            t.g_dur.append(rng.choice([0.0, 0.5, 3.0, rng.uniform(0, 20)]))
            t.g_kind.append(rng.choice([0, 0, 1, 2]))
            t.g_stream.append(rng.randrange(streams) - 1)
        assert overlapping_kernels(t) == walk(t)


@pytest.mark.parametrize("raw", [b"[[1, 141], []]", b"[1.0, -0.0, 1e5, 1E-5, 0.1, -0]", b"[true, false, null]",
                                 b'["a\\u00e9\\n", "\\ud83d\\ude00", ""]', b"[123456789012345678901234567890]",
                                 b"[-9223372036854775809, 18446744073709551615]", b"[[[1, 2], [3]], []]", b"[[]]",
                                 b"[]", b"[[[[1]]]]", b'[{"a": [1]}]', b"[1e400]", b'["\\ud800"]', b"null", b'"abc"',
                                 b"[5e-324, 1.7976931348623157e308, 12345678901234567890.0]"])
def test_shape_fields_decoded_to_tuples_as_decoded_then_converted(raw):
    """A shape field decoded straight to tuples (``decode_tuples``) is what the standard route gives — decoded
    (``decode_value``, the standard library's values), then lists made tuples — value, types and ``repr`` alike; or
    None, and the standard route is taken (objects, deeper arrays, what msgspec refuses, non-arrays)."""
    def as_tuples(value):
        return tuple(as_tuples(v) for v in value) if isinstance(value, list) else value

    want = as_tuples(trace_fast.decode_value(raw))
    got = trace_fast.decode_tuples(raw)
    deep = raw in (b"[[[[1]]]]", b'[{"a": [1]}]', b"[1e400]", b'["\\ud800"]', b"null", b'"abc"')
    assert got is None if deep else (repr(got) == repr(want) and got == want)
