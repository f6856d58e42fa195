"""The events array decoded in bulk: whole chunks of events at a time by msgspec's typed JSON decoder, into structs
holding only the fields the tables keep (``TraceTables.add_events``) — the shapes (``Input Dims``…) left as raw
JSON, decoded once per distinct text. A chunk ends where an event ends (``},`` then the next ``{``, in the file's
own spacing); a cut that falls inside a string or a nested value makes the chunk invalid JSON, and an earlier cut
is tried. Anything the typed decoder does not take — a field of another type (a string stream, a boolean time,
``NaN``), an unknown phase, a non-object event — leaves the rest of the array to the event-by-event reader
(``trace_stream``), which gives every message and rule as before: the fast path only ever reads what the slow one
would have read the same way. Without msgspec installed everything takes the event-by-event reader.
"""
from __future__ import annotations

import json
import os
import re
import stat
import zlib
from pathlib import Path

try:
    import msgspec
except ImportError:  # optional: the event-by-event reader does everything without it
    msgspec = None
try:  # ISA-L's inflate: the same gzip reading as zlib's (header, CRC and length checked), 2-3x faster
    from isal import isal_zlib as _inflate

    _INFLATE_ERRORS = (zlib.error, _inflate.error)
except ImportError:  # optional: zlib reads the same
    _inflate = zlib
    _INFLATE_ERRORS = (zlib.error,)

CHUNK_CHARS = 256 << 10
"""Characters of events decoded at once (256 Ki): memory is one chunk's text and its structs. Small on purpose: a
fresh process pays a page fault for each 4 KiB of memory it touches first (2 – 3 µs each on this project's machine),
and chunks this size reuse the same few hundred KiB where 8 Mi ones, or a text read whole, touch new memory
throughout (measured, first call in a fresh process: the 10 – 35 MB traces 18 – 24% faster than with 8 Mi chunks or
read whole; 128 Ki to 512 Ki alike)."""
CUT_TRIES = 16
"""Earlier cuts tried before a chunk is left to the event-by-event reader."""
WHOLE_BYTES = 4 << 20
"""A trace up to this size (4 MiB of JSON once unzipped) is read whole: the text in memory at once, decoded in one
call (``read_whole``); a larger one is streamed chunk by chunk (``CHUNK_CHARS``; measured on this project's traces:
1 – 2.6 MiB ones as fast either way, 10 – 35 MiB ones 18 – 24% faster streamed, and memory stays bounded)."""
BATCH_EVENTS = 16384
"""Events a whole file's list is handed on in at a time (``TraceTables.add_events``)."""
GATHER_EVENTS = 2048
"""Events of a streamed file's chunks gathered before they are handed on (a 256 Ki chunk holds ~1,000; measured
2,048 – 8,192 alike, 1 – 5% faster than one chunk at a time, 16,384 slower: more new memory touched)."""
_SEPARATOR = re.compile(r"\}[ \t\r\n]*,[ \t\r\n]*\{")

if msgspec is not None:
    from msgspec import UNSET, Raw, Struct, UnsetType, field

    class Args(Struct, gc=False):
        """The ``args`` the tables read; ``UNSET``: absent (``None``: JSON null)."""

        stream: int | str | None | UnsetType = UNSET
        correlation: int | str | None | UnsetType = UNSET
        dims: Raw = field(name="Input Dims", default=Raw())
        types: Raw = field(name="Input type", default=Raw())
        concrete: Raw = field(name="Concrete Inputs", default=Raw())

    class XEvent(Struct, tag_field="ph", tag="X", gc=False):
        """A complete event (``"ph": "X"``): the only phase the tables keep."""

        cat: str | None = None
        name: str | None = None
        pid: int | str | None = None
        tid: int | str | None = None
        ts: float | None = None
        dur: float | None = None
        args: Args | None = None

    def _other(tag: str) -> type:
        return type(f"Phase_{ord(tag)}", (Struct,), {}, tag_field="ph", tag=tag, gc=False)

    OTHER_PHASES = "BEiIbnestfPONDMRcC()"
    """Chrome trace phases other than X (Trace Event Format): counted, nothing else read."""
    import typing

    _EVENTS = list[typing.Union[(XEvent, *(_other(p) for p in OTHER_PHASES))]]
    _DECODER = msgspec.json.Decoder(_EVENTS)
    _ERRORS = (msgspec.DecodeError, msgspec.ValidationError)
    _TOP = msgspec.json.Decoder(dict[str, Raw])
    TOP_FIELDS = ("schemaVersion", "deviceProperties", "distributedInfo", "record_shapes", "with_stack", "with_flops",
                  "with_modules", "profile_memory", "traceName", "trace_id", "displayTimeUnit", "baseTimeNanoseconds",
                  "metadata", "cuda_runtime_version", "cuda_driver_version", "cupti_version", "hip_runtime_version",
                  "hip_driver_version", "roctracer_version", "INFO")
    """The top-level fields PyTorch's profiler (Kineto, CUDA and ROCm builds) writes beside ``traceEvents``."""
    _DOC = msgspec.json.Decoder(msgspec.defstruct(
        "Trace", [("traceEvents", _EVENTS),
                  *((key, Raw, Raw()) for key in TOP_FIELDS)], forbid_unknown_fields=True, gc=False))
    _GENERIC = msgspec.json.Decoder()
    _SCALAR = typing.Union[int, float, str, bool, None]
    _TUPLES = msgspec.json.Decoder(tuple[typing.Union[_SCALAR, tuple[typing.Union[_SCALAR, tuple[_SCALAR, ...]], ...]],
                                         ...]).decode
else:  # pragma: no cover - without msgspec
    XEvent = None
    _DECODER = None
    _ERRORS = ()


def decode_tuples(raw) -> tuple | None:
    """A raw JSON array of scalars nested at most three deep (a shape field: ``[[1, 141], []]``) decoded straight
    to nested tuples — what ``decode_value`` then ``trace_tables._tuple`` give — or None for anything else (an
    object, a deeper array, not an array, ``NaN``, ``1e400``, a lone surrogate): the caller then takes that route."""
    try:
        return _TUPLES(raw)
    except _ERRORS:
        return None


def decode_value(raw) -> object:
    """One raw JSON value decoded as the standard library decodes it: by msgspec (faster), or by ``json.loads``
    where msgspec refuses what the standard library takes (``NaN``, ``1e400``, a lone surrogate); an integer past
    Python's 4,300-digit limit is infinite (``json_text.int_or_infinite``)."""
    try:
        return _GENERIC.decode(raw)
    except _ERRORS:
        from ..json_text import int_or_infinite  # an integer past Python's 4,300 digits: infinite

        return json.loads(bytes(raw), parse_int=int_or_infinite)


def no_args():
    """The ``args`` of an event that has none: every field absent."""
    return Args()


def available() -> bool:
    return _DECODER is not None


def _whole_bytes(source, limit: int) -> bytes | None:
    """The text of ``source`` (a path, bytes, or a seekable binary file) when it is at most ``limit`` bytes once
    unzipped, else None; None too for anything the streaming reader must judge (a gzip file cut short, corrupt,
    of several members)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
    elif isinstance(source, (str, Path)):
        try:
            info = os.stat(source)
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:  # a pipe or a device: the reader's "not a
                return None                                              # file"; gzip's text is larger than its file
            with open(source, "rb") as f:
                raw = f.read(limit + 1)
        except OSError:
            return None
    elif hasattr(source, "read") and hasattr(source, "seek"):
        size = getattr(source, "size", None)
        if not isinstance(size, int) or size > limit:
            return None
        source.seek(0)
        raw = source.read(limit + 1)
        source.seek(0)
        if not isinstance(raw, bytes):
            return None
    else:
        return None
    if raw[:2] != b"\x1f\x8b":
        return raw if len(raw) <= limit else None
    if int.from_bytes(raw[-4:], "little") > limit:  # gzip's last field: the text's size modulo 2^32, a lower bound
        return None
    unzip = _inflate.decompressobj(31)  # gzip: header and trailer (CRC, length) checked
    try:
        text = unzip.decompress(raw, limit + 1)
    except _INFLATE_ERRORS:
        return None
    if len(text) > limit or not unzip.eof or unzip.unused_data:
        return None
    return text


def read_whole(source, limit: int) -> tuple[dict, list] | None:
    """The whole trace in ``source`` decoded at once — (its top-level fields but ``traceEvents``, the events as
    ``decode_chunk`` types them) — when its text is at most ``limit`` bytes and all of it is what the typed decoder
    takes: a JSON object whose one ``traceEvents`` field holds the events. Anything else is None: the streaming
    reader then reads it with its own rules and messages. The other fields are decoded as the streaming reader
    decodes them (``decode_value``: the standard library's values)."""
    if _DECODER is None:
        return None
    text = _whole_bytes(source, limit)
    if text is None or text[:3] == b"\xef\xbb\xbf" or b"\x00" in text[:4096] or text.count(b'"traceEvents"') != 1:
        return None
    try:
        if not text.isascii():
            text.decode("utf-8")  # the streaming reader's check, in skipped fields too
        try:  # one pass where the top-level fields are Kineto's own
            doc = _DOC.decode(text)
            top = {key: raw for key in TOP_FIELDS if len(raw := getattr(doc, key))}
            events = doc.traceEvents
        except msgspec.ValidationError as exc:
            if "unknown field" not in str(exc):
                return None
            top = _TOP.decode(text)  # another field: each field's text, then the events
            events = _DECODER.decode(top.pop("traceEvents"))
        meta = {key: decode_value(raw) for key, raw in top.items()}
    except (*_ERRORS, KeyError, ValueError, RecursionError):
        return None
    return meta, events


def decode_chunk(text: str) -> list | None:
    """The events of ``text`` (one or more whole events separated by commas), or None where they are not all
    typed as expected (or not valid JSON)."""
    try:
        return _DECODER.decode(f"[{text}]")  # one copy (two with "[" + text + "]")
    except _ERRORS:
        return None


def separator(buf: str, start: int) -> str | None:
    """The file's separator between two events (``},`` and ``{`` in its own spacing: Kineto's two-space indent,
    json.dump's with or without an indent), as it first appears after ``start``."""
    m = _SEPARATOR.search(buf, start, start + (1 << 20))
    return m.group() if m else None


def events_in_chunks(r, on_batch) -> bool:
    """Decode the events after ``r``'s position (just past ``[`` or a ``,``) chunk by chunk into ``on_batch(list)``
    until what is left is the array's last events; then False, ``r`` at the next event's start, for the
    event-by-event reader to finish (the end of the array, or whatever the typed decoder would not take)."""
    sep = None
    while True:
        while len(r.buf) - r.pos < CHUNK_CHARS and r._more(CHUNK_CHARS):
            pass
        buf, pos = r.buf, r.pos
        if sep is None:
            sep = separator(buf, pos)
            if sep is None:
                return False
        hi = len(buf)
        for _ in range(CUT_TRIES):
            i = buf.rfind(sep, pos, hi)
            if i < 0:
                return False
            events = decode_chunk(buf[pos:i + 1])
            if events is not None:
                break
            hi = i  # the cut was inside a value (or past the array's end): an earlier one
        else:
            return False
        on_batch(events)
        r.pos = i + len(sep) - 1  # at the next event's '{'
