"""Every tensor of an ONNX model, wherever it sits, and the one way its stored values are read.

A ``TensorProto`` whose ``data_location`` is ``EXTERNAL`` names a file (``external_data``'s ``location``) that
``onnx.numpy_helper.to_array`` opens relative to the working directory: on a server, a file beside it. An
uploaded graph is never allowed to name one: ``strip_external`` clears every tensor's external reference, in
every place a tensor can sit — graph initializers, sparse initializers (values and indices), node attributes
(``t``, ``tensors``, ``sparse_tensor``, ``sparse_tensors``: ``Constant``'s value, ``ConstantOfShape``'s fill),
subgraphs (``If``, ``Loop``, ``Scan``… at any depth), model-local functions (their nodes and attribute
defaults) and training-info graphs — before anything else reads the model. Such a tensor keeps its type and
shape (that is all a count needs) and has no values; ``stored_array`` gives a tensor's values only when the
message itself holds all of them, so nothing downstream can reach for a file.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

DATA_FIELDS = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data")
"""The fields of a ``TensorProto`` that hold values."""


def containers(model) -> Iterator:
    """Every ``GraphProto`` and ``FunctionProto`` of ``model``: the main graph, training-info graphs, local
    functions, and each subgraph an attribute holds, at any depth (walked without recursion)."""
    stack = [model.graph, *model.functions]
    for info in model.training_info:
        stack += [info.initialization, info.algorithm]
    while stack:
        owner = stack.pop()
        yield owner
        for node in owner.node:
            for attr in node.attribute:
                if attr.HasField("g"):
                    stack.append(attr.g)
                stack.extend(attr.graphs)


def _attribute_tensors(attr) -> Iterator:
    if attr.HasField("t"):
        yield attr.t
    yield from attr.tensors
    sparse = ([attr.sparse_tensor] if attr.HasField("sparse_tensor") else []) + list(attr.sparse_tensors)
    for s in sparse:
        yield s.values
        yield s.indices


def tensors(owner) -> Iterator:
    """Every ``TensorProto`` held directly by a graph or function (its subgraphs are ``containers``' business)."""
    yield from getattr(owner, "initializer", ())
    for s in getattr(owner, "sparse_initializer", ()):
        yield s.values
        yield s.indices
    for attr in getattr(owner, "attribute_proto", ()):  # a function's attribute defaults
        yield from _attribute_tensors(attr)
    for node in owner.node:
        for attr in node.attribute:
            yield from _attribute_tensors(attr)


def strip_external(model, onnx, visit=None) -> int:
    """Clear every reference to a file outside the model, everywhere in it; how many tensors named one.

    A cleared tensor has no values (``stored_array`` gives None): its type and shape stay. ``visit(nodes)`` is
    called with the count of nodes walked so far, after each graph or function (a bound on them all)."""
    EXTERNAL = onnx.TensorProto.EXTERNAL
    found = nodes = 0
    for owner in containers(model):
        nodes += len(owner.node)
        if visit is not None:
            visit(nodes)
        for t in tensors(owner):
            if t.data_location == EXTERNAL or len(t.external_data):
                found += 1
                del t.external_data[:]
                t.data_location = onnx.TensorProto.DEFAULT
                for name in DATA_FIELDS:
                    t.ClearField(name)
    return found


def stored_array(tensor, limit: int):
    """The values of ``tensor`` as a numpy array, only when the message holds all ``∏ dims ≤ limit`` of them;
    else None (values stored outside, dropped, or not matching the shape). Never opens a file."""
    from onnx import TensorProto, numpy_helper

    if tensor.data_location == TensorProto.EXTERNAL or len(tensor.external_data) or tensor.HasField("segment"):
        return None
    if any(d < 0 for d in tensor.dims) or math.prod(int(d) for d in tensor.dims) > limit:
        return None
    try:
        array = numpy_helper.to_array(tensor)
    except Exception:  # values that do not match the shape or type: not used
        return None
    return array if array.size == math.prod(int(d) for d in tensor.dims) else None
