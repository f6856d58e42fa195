"""A profiler trace read as a stream: the top-level fields (``deviceProperties``, ``distributedInfo``…) and one
event at a time, in bounded memory, whatever order the file puts them in.

A PyTorch profiler / Kineto trace is Chrome-trace JSON: an object whose ``traceEvents`` array holds the events
(or, in Chrome's "array format", the bare array). Traces run to 1 GB, so the file is never held whole: it is read
in blocks of ``BLOCK_CHARS`` characters (gunzipped on the fly when it starts with gzip's magic bytes), and each
value is decoded by the standard library's C scanner (``json.JSONDecoder.raw_decode``) where it starts in the
block; a value cut by the block's end is decoded again once the next block is in. Memory is one block plus the
largest single event (at most ``MAX_VALUE_CHARS``). Every failure is one ``InputError`` naming the file.
"""
from __future__ import annotations

import codecs
import gzip
import io
import json
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ..errors import InputError
from ..json_text import int_or_infinite
from ..safe_text import valid_unicode

try:  # ISA-L's gzip reading: the same members, checks and errors as gzip.GzipFile's, about 3x faster
    from isal import igzip as _igzip
    from isal import isal_zlib as _isal_zlib

    _GZIP_ERRORS: tuple = (zlib.error, gzip.BadGzipFile, _isal_zlib.error)
except ImportError:  # optional: the standard library reads the same
    _igzip = None
    _GZIP_ERRORS = (zlib.error, gzip.BadGzipFile)

BLOCK_CHARS = 1 << 20
"""Characters read per block (1 Mi)."""
MAX_VALUE_CHARS = 64 << 20
"""The largest single value (one event, or one top-level field) accepted: 64 Mi characters."""
DEFAULT_MAX_BYTES = 4 << 30
"""Uncompressed bytes read at most (4 GiB) unless the caller sets its own bound (the dashboard's is smaller)."""
_NOT_WS = re.compile(r"[^ \t\n\r]")
"""The next character that is not JSON whitespace: found by the C scanner (a character-by-character loop read a
file padded with gigabytes of spaces at 14 MB/s)."""
_DECODER = json.JSONDecoder()
_BIG = json.JSONDecoder(parse_int=int_or_infinite)
"""Where ``_DECODER`` meets an integer past Python's 4,300-digit limit (a ``ValueError``): the same reading, such
integers infinite."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A surrogate written as an escape (``\\ud800``): a pair decodes to one character, a lone one to a surrogate."""


def _valid_strings(value):
    """``value`` with each lone surrogate in its strings (keys too) replaced by U+FFFD (``valid_unicode``): names
    reach reports, files and the page, none of which can write one."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, list):
        return [_valid_strings(v) for v in value]
    if isinstance(value, dict):
        return {valid_unicode(k): _valid_strings(v) for k, v in value.items()}
    return value


def source_name(source) -> str:
    """The file's name for messages: a path's name, an upload's ``name``, else 'trace'."""
    if isinstance(source, (str, Path)):  # a name of bytes that are not UTF-8 holds surrogates (os.fsdecode)
        return valid_unicode(Path(source).name[:120]) or "trace"
    return valid_unicode(str(getattr(source, "name", "") or "trace")[:120])


def _open(source) -> BinaryIO:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    if isinstance(source, (str, Path)):
        if not str(source).strip():
            raise InputError("trace", "no file named: give the trace's path")
        path = Path(source)
        if not path.is_file():
            raise InputError(source_name(source), "no such file" if not path.exists() else "not a file")
        try:
            return open(path, "rb")
        except OSError as exc:
            raise InputError(source_name(source), f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if hasattr(source, "read"):
        try:
            if hasattr(source, "seek"):
                source.seek(0)
            probe = source.read(0)
        except (ValueError, OSError) as exc:  # a closed file
            raise InputError(source_name(source), f"cannot be read ({str(exc)[:80] or type(exc).__name__})") from None
        if not isinstance(probe, bytes):
            raise InputError(source_name(source), "a file opened as text: open it in binary mode ('rb'), or give "
                                                  "its path")
        return source
    raise InputError("trace", f"a file path or bytes is needed, not {type(source).__name__}")


def _size(source) -> int | None:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return len(source)
    if isinstance(source, (str, Path)):
        try:
            return Path(source).stat().st_size
        except OSError:
            return None
    size = getattr(source, "size", None)
    return size if isinstance(size, int) else None


def over_bound(name: str, size: float, max_bytes: int, unzipped: bool = False) -> str:
    """Why a file over the bound is refused, and (under the tool's own bound: the dashboard's) how to run the
    command line on it, which streams a trace up to its own bound (``DEFAULT_MAX_BYTES``: 4 GiB of text)."""
    what = f"{'over ' if unzipped else ''}{size / 1e9:.1f} GB{' once unzipped' if unzipped else ''}"
    if max_bytes < DEFAULT_MAX_BYTES:
        return (f"{what}, over the {max_bytes / 2**20:,.0f} MB this reads here; run it on your machine: "
                f"python -m engine trace {name} (the command line streams traces up to "
                f"{DEFAULT_MAX_BYTES / 2**30:.3g} GiB of text)")
    return f"{what}, over the {max_bytes / 2**30:.3g} GiB bound"


def _grown(buf: str, pos: int) -> int:
    """Characters to read when a value starting at ``pos`` goes on past the text read so far: as many again as it
    holds (at least a block), so that a value read again after each block costs its length a few times over, not
    its length squared over the block — but no more than takes it one block past ``MAX_VALUE_CHARS``, where it is
    refused."""
    held = len(buf) - pos
    return max(BLOCK_CHARS, min(held, MAX_VALUE_CHARS + BLOCK_CHARS - held))


class _Text:
    """The file's text, block by block (gunzipped when it is gzip), counted against ``max_bytes``."""

    def __init__(self, source, max_bytes: int):
        self.name = source_name(source)
        self.raw = _open(source)
        self.max_bytes = max_bytes
        head = self.raw.read(2)
        self.raw.seek(0) if hasattr(self.raw, "seek") else None
        self.gz = head == b"\x1f\x8b"
        size = _size(source)
        if size is not None and size > max_bytes:
            raise InputError(self.name, over_bound(self.name, size, max_bytes))
        self.stream = (_igzip.IGzipFile if _igzip is not None else gzip.GzipFile)(fileobj=self.raw, mode="rb") \
            if self.gz else self.raw
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.read_bytes = 0
        self.first = True

    def block(self, want: int = BLOCK_CHARS) -> str:
        """The next block of text, ``want`` bytes read ('' at the end)."""
        try:
            data = self.stream.read(want)
        except (EOFError, *_GZIP_ERRORS) as exc:
            cut = isinstance(exc, EOFError) and self._cut_short()
            raise InputError(self.name, "the .gz file is cut short (truncated): download or copy it again" if cut
                             else "not a readable gzip file (corrupt)") from None
        except OSError as exc:
            raise InputError(self.name, f"cannot be read ({exc.strerror or type(exc).__name__})") from None
        self.read_bytes += len(data)
        if self.read_bytes > self.max_bytes:
            raise InputError(self.name, over_bound(self.name, self.read_bytes, self.max_bytes, unzipped=self.gz))
        if self.first:
            self.first = False
            if data[:3] == b"\xef\xbb\xbf":
                data = data[3:]
            if b"\x00" in data[:4096]:
                raise InputError(self.name, "not a JSON trace (binary data; a profiler trace is JSON text, "
                                            "optionally gzipped: *.pt.trace.json or *.json.gz)")
        try:
            return self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise InputError(self.name, "not a JSON trace (not UTF-8 text)") from None

    def _cut_short(self) -> bool:
        """Whether the standard library's gzip reading too ends the file early (``EOFError``): ISA-L's also says
        so of bytes after the last member that are not a gzip header, which the standard library calls corrupt.
        Read again from the start, so that the message reads the same whichever inflates it."""
        if _igzip is None or not isinstance(self.stream, _igzip.IGzipFile) or not hasattr(self.raw, "seek"):
            return True
        try:
            self.raw.seek(0)
            with gzip.GzipFile(fileobj=self.raw, mode="rb") as again:
                while again.read(BLOCK_CHARS):
                    pass
        except EOFError:
            return True
        except (zlib.error, gzip.BadGzipFile):
            return False
        except OSError:
            return True
        return True

    def close(self) -> None:
        try:
            self.raw.close()
        except OSError:  # closing what was read: nothing to report
            pass


class _Reader:
    """A cursor over the text: whitespace skipped, single characters and whole JSON values taken."""

    def __init__(self, text: _Text):
        self.text = text
        self.buf = ""
        self.pos = 0
        self.eof = False

    @property
    def name(self) -> str:
        return self.text.name

    def _more(self, want: int = BLOCK_CHARS) -> bool:
        if self.eof:
            return False
        block = self.text.block(want)
        if not block:
            self.eof = True
            return False
        self.buf = self.buf[self.pos:] + block
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end of the text)."""
        while True:
            buf = self.buf
            m = _NOT_WS.search(buf, self.pos)
            if m is not None:
                self.pos = m.start()
                return buf[self.pos]
            self.pos = len(buf)
            if not self._more():
                return ""

    def take(self, expected: str, where: str) -> None:
        c = self.peek()
        if c != expected:
            self.fail(f"expected '{expected}' {where}, found {repr(c) if c else 'the end of the file'}")
        self.pos += 1

    def value(self):
        """The JSON value that starts here (a number is taken only once a character after it is in)."""
        decoder = _DECODER
        while True:
            self.peek()
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > MAX_VALUE_CHARS:
                    self.fail(f"one value is over {MAX_VALUE_CHARS >> 20} Mi characters ({exc.msg.lower()})")
                if self._more(_grown(self.buf, self.pos)):
                    continue
                self.fail(f"cut short: {exc.msg.lower()}" if exc.pos >= len(self.buf) - 64 else
                          f"not valid JSON ({exc.msg.lower()})")
            except ValueError:  # an integer past Python's 4,300 digits: read again, such integers infinite
                decoder = _BIG
                continue
            except RecursionError:
                self.fail("not valid JSON (nested too deeply)")
            if end >= len(self.buf) and not self.eof and self._more():
                continue
            if _SURROGATE_ESCAPE.search(self.buf, self.pos, end):
                value = _valid_strings(value)
            self.pos = end
            return value

    def fail(self, reason: str):
        where = self.text.read_bytes
        raise InputError(self.name, f"{reason} (near byte {where:,} of the "
                                    f"{'unzipped ' if self.text.gz else ''}text)")


def read_trace(source, on_event: Callable[[dict], None], *, max_bytes: int = DEFAULT_MAX_BYTES,
               on_batch: Callable[[list], None] | None = None) -> dict:
    """Stream the trace in ``source`` (a path, bytes or a binary file): ``on_event(event)`` for each element of
    ``traceEvents`` that is an object, in file order — or, given ``on_batch``, ``on_batch(structs)`` for whole chunks
    of them where the bulk decoder takes them (``trace_fast``: typed structs, in file order too), ``on_event`` for
    the rest; returns the other top-level fields (``deviceProperties``, ``distributedInfo``…). A file that is not a
    JSON object holding a ``traceEvents`` array (or a bare array of events) is an ``InputError`` naming the file."""
    if on_batch is not None:
        from . import trace_fast

        whole = trace_fast.read_whole(source, min(max_bytes, trace_fast.WHOLE_BYTES))
        if whole is not None:
            meta, events = whole
            step = trace_fast.BATCH_EVENTS
            for start in range(0, len(events), step):  # in batches: each one's columns stay in the CPU's caches
                on_batch(events[start:start + step])
            return meta
        on_batch, on_event, flush = _gathered(on_batch, on_event, trace_fast.GATHER_EVENTS)
    text = _Text(source, max_bytes)
    reader = _Reader(text)
    try:
        meta = _read(reader, on_event, on_batch)
    finally:
        text.close()
    if on_batch is not None:
        flush()
    return meta


def _gathered(on_batch, on_event, size: int) -> tuple:
    """``on_batch`` handed the chunks' events gathered ``size`` at a time (a small chunk's events alone would pay the
    tables' per-batch costs many times), ``on_event`` after what is gathered (file order kept), and the flush."""
    pending: list = []

    def flush() -> None:
        if pending:
            events = pending[0] if len(pending) == 1 else [e for chunk in pending for e in chunk]
            pending.clear()
            on_batch(events)

    def batch(events: list) -> None:
        pending.append(events)
        if sum(map(len, pending)) >= size:
            flush()

    def event(e: dict) -> None:
        flush()
        on_event(e)

    return batch, event, flush


def _read(r: _Reader, on_event, on_batch=None) -> dict:
    first = r.peek()
    if first == "[":  # Chrome's array format: the events alone
        _events(r, on_event, on_batch)
        return {}
    if first != "{":
        if first == "":
            r.fail("empty file")
        raise InputError(r.name, "not a JSON trace (a profiler trace is a JSON object with 'traceEvents'; "
                                 f"this starts with {first!r})")
    r.pos += 1
    meta: dict = {}
    seen_events = False
    if r.peek() == "}":
        r.pos += 1
    else:
        while True:
            key = r.value()
            if not isinstance(key, str):
                r.fail("not valid JSON (an object key that is not text)")
            r.take(":", f"after the key {key[:40]!r}")
            if key == "traceEvents":
                if r.peek() != "[":
                    raise InputError(r.name, "'traceEvents' is not a list of events")
                _events(r, on_event, on_batch)
                seen_events = True
            else:
                meta[key] = r.value()
            c = r.peek()
            if c == ",":
                r.pos += 1
                continue
            if c == "}":
                r.pos += 1
                break
            r.fail(f"expected ',' or '}}' after the field {key[:40]!r}, found "
                   f"{repr(c) if c else 'the end of the file (cut short)'}")
    if r.peek():
        r.fail("text after the end of the trace object")
    if not seen_events:
        raise InputError(r.name, "no 'traceEvents' list: not a PyTorch profiler trace (export one with "
                                 "prof.export_chrome_trace or tensorboard_trace_handler)")
    return meta


_SEPARATOR = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")


def _events(r: _Reader, on_event, on_batch=None) -> None:
    """The events array, from its '[' to its ']': whole chunks by the bulk decoder where ``on_batch`` is given and
    it takes them (``trace_fast``), then event by event — the C scanner decodes an event where it starts, a
    compiled pattern takes the separator after it."""
    r.take("[", "at the start of the events")
    if r.peek() == "]":
        r.pos += 1
        return
    if on_batch is not None:
        from . import trace_fast

        if trace_fast.available():
            trace_fast.events_in_chunks(r, on_batch)
    scan, sep, surrogate = _DECODER.scan_once, _SEPARATOR.match, _SURROGATE_ESCAPE.search
    while True:
        buf, pos = r.buf, r.pos
        try:
            event, end = scan(buf, pos)
        except (StopIteration, json.JSONDecodeError):
            event = None
        except ValueError:  # an integer past Python's 4,300 digits: this event read with such integers infinite
            try:
                event, end = _BIG.scan_once(buf, pos)
            except (StopIteration, ValueError):
                event = None
        except RecursionError:
            r.fail("not valid JSON (nested too deeply)")
        if event is None:
            if _NOT_WS.match(buf, pos) is None and r.peek():  # blanks before the event: skipped, then read
                continue
            if len(buf) - pos > MAX_VALUE_CHARS or r.eof or not r._more(_grown(buf, pos)):
                r.value()  # at the end, or an event over the bound: says what is wrong where
            r.peek()
            continue
        if end >= len(buf) and not r.eof and r._more():  # a number may go on in the next block
            continue
        m = sep(buf, end)
        if m is not None and (m.end() < len(buf) or r.eof):
            after, next_pos = m.group(1), m.end()
        else:  # whitespace to the block's end: skipped block by block, the event not read again
            r.pos = end
            after = r.peek()
            if after not in (",", "]"):
                r.fail("expected ',' or ']' between events, found "
                       f"{repr(after) if after else 'the end of the file (cut short)'}")
            r.pos += 1
            r.peek()  # and the blanks after it
            next_pos = r.pos
        if type(event) is dict:
            if surrogate(buf, pos, end):
                event = _valid_strings(event)
            on_event(event)
        r.pos = next_pos
        if after == "]":
            return
