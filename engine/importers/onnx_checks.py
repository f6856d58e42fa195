"""Checks of a graph as it is read (``onnx_graph.read_onnx``): onnx.checker's structural rules — each graph input and
initializer named once, each value written once (single static assignment), each operator domain imported once (two
models written into one file merge into one graph) — and the sparse initializers checked as onnx.checker checks
them and made dense-shaped initializers. Each refusal is one ``InputError`` naming the name or the node."""
from __future__ import annotations

from ..errors import InputError, quoted
from .onnx_budget import Budget
from .onnx_tensors import stored_array
from ..method1.ops import prod

MAX_SMALL_VALUES = 4096
"""Largest sparse initializer made dense with its values (shape arithmetic's size: ``onnx_values.MAX_VALUES``)."""


def check_opsets(model) -> None:
    """Each operator domain imported once (a file holding two models joined lists ``''`` twice)."""
    seen: dict[str, int] = {}
    for opset in model.opset_import:
        domain = "" if opset.domain == "ai.onnx" else opset.domain
        if domain in seen:
            raise InputError(f"opset_import {quoted(opset.domain)}", f"the domain is imported twice (versions "
                                                                    f"{seen[domain]} and {opset.version}): two models "
                                                                    "joined into one file? Export the model again")
        seen[domain] = opset.version


def check_structure(model, budget: Budget) -> None:
    """onnx.checker's structural rules on the main graph, each refusal naming the name or the node: every graph
    input and initializer named once, and every value written once (by one node, never over a graph input or
    an initializer: the graph is in single static assignment)."""
    graph = model.graph
    texts = [model.producer_name, model.producer_version, graph.name]
    texts += [v.name for v in (*graph.input, *graph.output)] + [t.name for t in graph.initializer]
    texts += [p.domain for p in model.opset_import]
    if not all(isinstance(t, str) for t in texts):
        raise InputError("model", "not an ONNX model: a name in it is not UTF-8 text (the file is damaged)")
    writer: dict[str, str] = {}
    for value in graph.input:
        if value.name in writer:
            raise InputError(f"graph input {quoted(value.name)}", "listed twice (a value has one name; two models "
                                                                  "joined into one file?)")
        writer[value.name] = f"graph input {quoted(value.name)}"
    initializers: set[str] = set()
    for tensor in graph.initializer:
        if tensor.name in initializers:
            raise InputError(f"initializer {quoted(tensor.name)}", "given twice (a value has one name; two models "
                                                                   "joined into one file?)")
        initializers.add(tensor.name)
        writer.setdefault(tensor.name, f"initializer {quoted(tensor.name)}")  # an input may name its default
    total = len(graph.node)
    for n, node in enumerate(graph.node):
        budget.check(n, "checking", total)
        if not all(isinstance(t, str) for t in (node.name, node.op_type, node.domain, *node.input, *node.output)):
            raise InputError(f"node {n:,}", "a name in it is not UTF-8 text: the file is damaged or not ONNX")
        here = f"node {quoted(node.name or n)}"
        for name in node.output:
            if not name:
                continue
            if name in writer:
                raise InputError(here, f"{node.op_type[:40]} writes {quoted(name)}, which {writer[name]} already "
                                       "writes: each value is written once (onnx.checker refuses this graph)")
            writer[name] = f"node {quoted(node.name or n)} ({node.op_type[:40]})"


def sparse_to_dense(model, onnx) -> int:
    """Each sparse initializer (``SparseTensorProto``: ``values`` [NNZ], ``indices`` [NNZ] or [NNZ, rank], the
    dense ``dims``) checked as onnx.checker checks it and replaced by an initializer of its dense shape (its
    values where they are few and stored: shape arithmetic may read them). How many there were."""
    import numpy as np

    graph = model.graph
    for s in graph.sparse_initializer:
        where = f"sparse initializer {quoted(s.values.name)}"
        dims, values, indices = [int(d) for d in s.dims], s.values, s.indices
        if not s.values.name:
            raise InputError("sparse initializer", "has no name (its values tensor names it)")
        if any(d < 0 for d in dims) or any(d < 0 for d in values.dims) or any(d < 0 for d in indices.dims):
            raise InputError(where, "a negative dimension: the file is damaged or was edited")
        if len(values.dims) != 1:
            raise InputError(where, f"its values must be one list (shape [NNZ]), not {list(values.dims)[:8]}")
        nnz = values.dims[0]
        if nnz > prod(dims):
            raise InputError(where, f"{nnz:,} stored values for a tensor of {prod(dims):,}")
        if list(indices.dims) not in ([nnz], [nnz, len(dims)]):
            raise InputError(where, f"indices of shape {list(indices.dims)[:8]}: expected [{nnz}] or "
                                    f"[{nnz}, {len(dims)}]")
        dense = onnx.TensorProto(name=values.name, data_type=values.data_type, dims=dims)
        stored, at = stored_array(values, MAX_SMALL_VALUES), stored_array(indices, 2 * MAX_SMALL_VALUES)
        if stored is not None and at is not None and prod(dims) <= MAX_SMALL_VALUES:
            flat = at.reshape(-1) if at.ndim == 1 else (np.ravel_multi_index(at.T, dims) if nnz else at[:, 0])
            if len(flat) and (flat.min() < 0 or flat.max() >= prod(dims)):
                raise InputError(where, "an index outside the tensor")
            array = np.zeros(prod(dims), dtype=stored.dtype)
            array[flat] = stored
            try:
                dense = onnx.numpy_helper.from_array(array.reshape(dims), values.name)
            except Exception:  # a type numpy_helper cannot write back: its shape only
                pass
        graph.initializer.append(dense)
    count = len(graph.sparse_initializer)
    del graph.sparse_initializer[:]
    return count
