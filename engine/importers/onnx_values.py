"""Shapes, node by node, with the small integer tensors an exported graph computes its shapes with.

Exporters compute a reshape's target from the input's own shape at run time (Shape → Gather → Unsqueeze →
Concat → Reshape); ``onnx.shape_inference``'s own data propagation stops at several of these steps, and every
size after them stays unknown. Once the dynamic dimensions are fixed, those tensors are constants: this module
walks the nodes once, in order, evaluating them (numpy, tensors of at most ``MAX_VALUES`` values, a fixed set
of operators that only index, reshape or do integer arithmetic) and inferring every other node's output from
its operator's own inference function with the values known so far. The graph that is counted is the
original one: only its shapes come from here.
"""
from __future__ import annotations

import math

from .onnx_tensors import stored_array

MAX_VALUES = 4096
"""Largest tensor evaluated (a shape, a position index, a small mask)."""


def _fits(shape) -> bool:
    """Whether a tensor of ``shape`` is small enough to evaluate (Python integers: no overflow)."""
    return math.prod(int(d) for d in shape) <= MAX_VALUES


def _ints(a) -> list[int]:
    return [int(v) for v in a.reshape(-1)]


def _axes(node, values, attrs, rank: int):
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = _ints(values[node.input[1]])
    return None if axes is None else sorted(a + rank if a < 0 else a for a in axes)


def _evaluate(node, args, attrs, shapes, values, np, onnx):
    """One node's output (a numpy array), or None where this module does not evaluate it."""
    op = node.op_type
    if op == "Constant":
        if "value" in attrs:
            return stored_array(attrs["value"], MAX_VALUES)  # None where the file holds no values for it
        for key, dtype in (("value_int", np.int64), ("value_float", np.float32)):
            if key in attrs:
                return np.array(attrs[key], dtype=dtype)
        for key, dtype in (("value_ints", np.int64), ("value_floats", np.float32)):
            if key in attrs:
                return np.array(list(attrs[key]), dtype=dtype)
        return None
    if op in ("Shape", "Size"):
        shape = shapes.get(node.input[0])
        if shape is None:
            return None
        if op == "Size":
            return np.array(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        start, end = attrs.get("start", 0), attrs.get("end", len(shape))
        return np.array(shape[start:end], dtype=np.int64)
    if any(a is None for a in args):
        return None
    if op == "Identity":
        return args[0]
    if op == "Gather":
        axis = attrs.get("axis", 0) % max(args[0].ndim, 1)
        if not _fits(args[0].shape[:axis] + args[1].shape + args[0].shape[axis + 1:]):
            return None
        return np.take(args[0], args[1], axis=attrs.get("axis", 0))
    if op == "Unsqueeze":
        out_rank = args[0].ndim + len(attrs.get("axes") or _ints(args[1]))
        out = args[0]
        for a in _axes(node, values, attrs, out_rank):
            out = np.expand_dims(out, a)
        return out
    if op == "Squeeze":
        axes = _axes(node, values, attrs, args[0].ndim)
        return np.squeeze(args[0], axis=tuple(axes) if axes is not None else None)
    if op == "Concat":
        if sum(a.size for a in args) > MAX_VALUES:
            return None
        return np.concatenate([np.atleast_1d(a) for a in args], axis=attrs.get("axis", 0))
    if op == "Slice":
        data = args[0]
        if len(args) > 1:
            starts, ends = _ints(args[1]), _ints(args[2])
            axes = _ints(args[3]) if len(args) > 3 and node.input[3] else list(range(len(starts)))
            steps = _ints(args[4]) if len(args) > 4 and node.input[4] else [1] * len(starts)
        else:
            starts, ends = attrs.get("starts", []), attrs.get("ends", [])
            axes, steps = attrs.get("axes", list(range(len(starts)))), [1] * len(starts)
        index = [slice(None)] * data.ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            index[a] = slice(s, e, st)
        return data[tuple(index)]
    if op == "Cast":
        return args[0].astype(onnx.helper.tensor_dtype_to_np_dtype(attrs["to"]))
    if op == "Reshape":
        target = _ints(args[1])
        if not attrs.get("allowzero", 0):
            target = [args[0].shape[i] if t == 0 else t for i, t in enumerate(target)]
        return args[0].reshape(target)
    if op == "Transpose":
        return np.transpose(args[0], attrs.get("perm"))
    if op == "Expand":
        shape = np.broadcast_shapes(args[0].shape, tuple(_ints(args[1])))
        return np.broadcast_to(args[0], shape).copy() if _fits(shape) else None
    if op == "ConstantOfShape":
        shape = _ints(args[0])
        if not _fits(shape):  # (np.prod in int64 wrapped round past 2⁶³ and let such a shape through)
            return None
        fill = stored_array(attrs["value"], MAX_VALUES) if "value" in attrs else np.zeros(1, np.float32)
        if fill is None or fill.size != 1:
            return None
        fill = fill.reshape(-1)
        return np.full(shape, fill[0], dtype=fill.dtype)
    if op == "Range":  # ⌈(limit − start)/delta⌉ values, counted before any is made
        start, limit, delta = (float(a) for a in args[:3])
        count = (limit - start) / delta if delta else math.inf
        if not math.isfinite(count) or count > MAX_VALUES:
            return None
        return np.arange(args[0], args[1], args[2]).astype(args[0].dtype)
    binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Equal": np.equal, "Less": np.less,
              "Greater": np.greater, "Max": np.maximum, "Min": np.minimum, "And": np.logical_and,
              "Or": np.logical_or, "Mod": np.mod, "LessOrEqual": np.less_equal, "GreaterOrEqual": np.greater_equal}
    if op in ("Where", *binary) and not _fits(np.broadcast_shapes(*(a.shape for a in args))):
        return None  # a broadcast that grows past the evaluated size: inferred instead
    if op in binary and len(args) == 2:
        return binary[op](args[0], args[1])
    if op == "Div" and len(args) == 2:
        if args[0].dtype.kind in "iu" and args[1].dtype.kind in "iu":
            return np.trunc(args[0] / args[1]).astype(args[0].dtype)
        return np.divide(args[0], args[1])
    if op == "Where":
        return np.where(args[0], args[1], args[2])
    unary = {"Neg": np.negative, "Not": np.logical_not, "Abs": np.abs, "Sqrt": np.sqrt, "Floor": np.floor,
             "Ceil": np.ceil}
    if op in unary:
        return unary[op](args[0])
    if op in ("ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin") and not attrs.get("axes") and len(args) == 1:
        fn = {"ReduceProd": np.prod, "ReduceSum": np.sum, "ReduceMax": np.max, "ReduceMin": np.min}[op]
        return np.array(fn(args[0]), dtype=args[0].dtype).reshape([1] * args[0].ndim if attrs.get("keepdims", 1)
                                                                  else [])
    return None


EVALUATED = frozenset({
    "Constant", "Shape", "Size", "Identity", "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast", "Reshape",
    "Transpose", "Expand", "ConstantOfShape", "Range", "Add", "Sub", "Mul", "Div", "Equal", "Less", "Greater", "Max",
    "Min", "And", "Or", "Mod", "LessOrEqual", "GreaterOrEqual", "Where", "Neg", "Not", "Abs", "Sqrt", "Floor", "Ceil",
    "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin"})


def shapes_node_by_node(model, onnx, budget=None) -> dict[str, tuple[int, ...]]:
    """Every value's shape that can be told, in one pass over the nodes in order: a node whose output is a
    small tensor of shape arithmetic is evaluated (its value then known to the nodes after it), any other
    node's output types come from its operator's own inference function (``infer_node_outputs``) given its
    inputs' types and the values known."""
    import numpy as np
    from onnx import numpy_helper, shape_inference

    graph = model.graph
    opsets = {o.domain or "": o.version for o in model.opset_import}
    types: dict = {}
    for value in graph.input:
        types[value.name] = value.type
    values: dict = {}
    for t in graph.initializer:
        types[t.name] = onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims))
        if 0 < math.prod(t.dims) and (array := stored_array(t, MAX_VALUES)) is not None:
            values[t.name] = array
    shapes: dict[str, tuple[int, ...]] = {}

    def shape_of(name):
        if name in shapes:
            return shapes[name]
        t = types.get(name)
        if t is None or not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
            return None
        dims = t.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[name] = tuple(d.dim_value for d in dims)
            return shapes[name]
        return None

    class Shapes(dict):
        def get(self, name, default=None):
            found = shape_of(name)
            return default if found is None else found

    lookup = Shapes()
    total = len(graph.node)
    for done, node in enumerate(graph.node):
        if budget is not None:
            budget.check(done, "shape inference", total)
        domain = node.domain or ""
        if node.op_type in EVALUATED and domain in ("", "ai.onnx") and len(node.output) == 1:
            args = [values.get(name) if name else None for name in node.input]
            try:
                attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
                with np.errstate(all="ignore"):
                    out = _evaluate(node, args, attrs, lookup, values, np, onnx)
            except Exception:  # an operand this module cannot handle: inferred below
                out = None
            if out is not None:
                out = np.asarray(out)
                if out.size <= MAX_VALUES and out.dtype != object:
                    name = node.output[0]
                    values[name] = out
                    shapes[name] = tuple(out.shape)
                    types[name] = onnx.helper.make_tensor_type_proto(
                        onnx.helper.np_dtype_to_tensor_dtype(out.dtype), list(out.shape))
                    continue
        try:
            schema = onnx.defs.get_schema(node.op_type, opsets.get(domain, 1), domain)
            known = {name: types[name] for name in node.input if name in types}
            data = {name: numpy_helper.from_array(values[name], name) for name in node.input if name in values}
            types.update(shape_inference.infer_node_outputs(schema, node, known, data, opset_imports=list(
                model.opset_import), ir_version=model.ir_version or 10))
        except Exception:  # no schema (another domain), or its inference refuses: the output stays unknown
            continue
    for name in list(types):
        shape_of(name)
    return shapes
