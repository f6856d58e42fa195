"""The graph of an ``.onnx`` file without its weights' values, read at the protobuf wire level.

A model exported with its weights inside (``torch.onnx.export`` writes ResNet-18 as 46.7 MB) is mostly the
``raw_data`` of its initializers, which a count never reads. ``graph_bytes`` walks the file's top-level fields
and its graph's fields without parsing them (each is a tag, then a varint, a fixed-size value or a length and
that many bytes), copies every field but the values of large initializers, and counts the graph's nodes as it
goes: a file of more than ``limit`` nodes is refused before any is parsed. What comes out is a smaller
``ModelProto`` that ``onnx`` then parses: the memory a read takes is the file's bytes (held by the caller) plus
the graph without its weights, whatever the weights weigh.

Wire format (protobuf encoding): tag = field number << 3 | wire type; wire type 0 varint, 1 eight bytes, 2 a
varint length then that many bytes, 5 four bytes (3 and 4, groups, are not used by ONNX and are refused).
A field that repeats is merged by the parser as protobuf merges (a graph given twice: its lists joined).
"""
from __future__ import annotations

from ..errors import InputError

MODEL_GRAPH = 7
GRAPH_NODE, GRAPH_INITIALIZER = 1, 5
TENSOR_DIMS, TENSOR_DATA_TYPE = 1, 2
TENSOR_VALUES = frozenset({4, 5, 6, 7, 9, 10, 11})
"""float_data, int32_data, string_data, int64_data, raw_data, double_data, uint64_data."""
INTEGER_TYPES = frozenset({5, 6, 7, 9, 12, 13})
"""int16/32/64, bool, uint32/64: shapes, indices and masks, whose values shape arithmetic may read."""
KEEP_VALUES = 64
"""A tensor of at most this many values keeps them (an exporter's scale, epsilon, a small table)."""
KEEP_INTEGER_VALUES = 4096
"""An integer tensor of at most this many values keeps them (``onnx_values.MAX_VALUES``: shapes it evaluates)."""


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message (cut short, a bad tag or length)."""


def _varint(buf, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise WireError
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(buf, start: int, end: int):
    """(field number, wire type, start of the field's bytes, start of its value, end) for each field of the message
    in ``buf[start:end]``; a length-delimited value is ``buf[value start:end]``, other values are skipped."""
    pos = start
    while pos < end:
        begin = pos
        tag, pos = _varint(buf, pos, end)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise WireError
        if wire == 0:
            _, stop = _varint(buf, pos, end)
        elif wire == 1:
            stop = pos + 8
        elif wire == 5:
            stop = pos + 4
        elif wire == 2:
            length, pos = _varint(buf, pos, end)
            stop = pos + length
        else:
            raise WireError
        if stop > end:
            raise WireError
        yield number, wire, begin, pos, stop
        pos = stop


def _tensor_size(buf, start: int, end: int) -> tuple[int, int]:
    """(number of values by its dims, data type) of the TensorProto in ``buf[start:end]``."""
    size, dtype = 1, 0
    for number, wire, _, value, stop in fields(buf, start, end):
        if number == TENSOR_DIMS and wire == 0:
            dim, _ = _varint(buf, value, stop)
            size *= dim if dim < 2**63 else 0  # a negative dimension (two's complement): read_onnx names it
        elif number == TENSOR_DIMS and wire == 2:  # packed
            pos = value
            while pos < stop:
                dim, pos = _varint(buf, pos, stop)
                size *= dim if dim < 2**63 else 0
        elif number == TENSOR_DATA_TYPE and wire == 0:
            dtype, _ = _varint(buf, value, stop)
    return size, dtype


def _without_values(buf, start: int, end: int) -> list:
    size, dtype = _tensor_size(buf, start, end)
    if size <= KEEP_VALUES or (dtype in INTEGER_TYPES and size <= KEEP_INTEGER_VALUES):
        return [buf[start:end]]
    return [buf[begin:stop] for number, _, begin, _, stop in fields(buf, start, end) if number not in TENSOR_VALUES]


def _length_delimited(number: int, parts: list) -> list:
    length = sum(len(p) for p in parts)
    tag, out = (number << 3) | 2, bytearray()
    for value in (tag, length):
        while value >= 0x80:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
    return [bytes(out), *parts]


def graph_bytes(data, limit: int, source: str) -> bytes:
    """``data`` (the bytes of an .onnx file) less the values of its graph's large initializers; an ``InputError``
    naming ``source`` when the graph has more than ``limit`` nodes, or the bytes are not a protobuf message."""
    buf = memoryview(data).cast("B")
    out: list = []
    nodes = 0
    try:
        for number, wire, begin, value, stop in fields(buf, 0, len(buf)):
            if number != MODEL_GRAPH or wire != 2:
                out.append(buf[begin:stop])
                continue
            graph: list = []
            for g_number, g_wire, g_begin, g_value, g_stop in fields(buf, value, stop):
                if g_number == GRAPH_NODE:
                    nodes += 1
                    if nodes > limit:
                        raise InputError(source, f"more than {limit:,} nodes: at most {limit:,} are read")
                if g_number == GRAPH_INITIALIZER and g_wire == 2:
                    graph += _length_delimited(GRAPH_INITIALIZER, _without_values(buf, g_value, g_stop))
                else:
                    graph.append(buf[g_begin:g_stop])
            out += _length_delimited(MODEL_GRAPH, graph)
    except WireError:
        raise InputError(source, "not an ONNX model: the file could not be read as an ONNX protobuf (truncated, "
                                 "or another format)") from None
    return b"".join(out)
