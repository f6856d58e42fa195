"""The small integer tensors an exported graph computes its shapes with, worked out so shape inference can see
them.

Exporters compute a reshape's target from the input's own shape at run time (Shape → Gather → Unsqueeze →
Concat → Reshape); ``onnx.shape_inference``'s own data propagation stops at several of these steps, and every
size after them stays unknown. Once the dynamic dimensions are fixed, those tensors are constants: this module
evaluates them (numpy, tensors of at most ``MAX_VALUES`` values, a fixed set of operators that only index,
reshape or do integer arithmetic), puts the results into a working copy of the graph as initializers in place
of the nodes that made them, and runs inference again, until no new value is found. The graph that is counted
is the original one: only its shapes come from here.
"""
from __future__ import annotations

MAX_VALUES = 4096
"""Largest tensor evaluated (a shape, a position index, a small mask)."""
MAX_ROUNDS = 8


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
            return onnx.numpy_helper.to_array(attrs["value"])
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
        return np.broadcast_to(args[0], np.broadcast_shapes(args[0].shape, tuple(_ints(args[1])))).copy()
    if op == "ConstantOfShape":
        shape = _ints(args[0])
        if int(np.prod(shape, dtype=np.int64)) > MAX_VALUES:
            return None
        fill = onnx.numpy_helper.to_array(attrs["value"]).reshape(-1) if "value" in attrs else np.zeros(1, np.float32)
        return np.full(shape, fill[0], dtype=fill.dtype)
    if op == "Range":
        return np.arange(args[0], args[1], args[2]).astype(args[0].dtype)
    binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Equal": np.equal, "Less": np.less,
              "Greater": np.greater, "Max": np.maximum, "Min": np.minimum, "And": np.logical_and,
              "Or": np.logical_or, "Mod": np.mod, "LessOrEqual": np.less_equal, "GreaterOrEqual": np.greater_equal}
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


def infer_with_values(model, infer, read_shapes):
    """``infer(working_model)`` repeated, with the graph's small computed tensors folded in between rounds.

    ``read_shapes(inferred) -> {name: shape}``. Returns the last inferred working model (its value_info and
    initializers give every shape that could be told)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    work = onnx.ModelProto()
    work.CopyFrom(model)
    values: dict = {}
    for t in model.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL and 0 < _numel(t.dims) <= MAX_VALUES:
            try:
                values[t.name] = numpy_helper.to_array(t)
            except Exception:  # a tensor whose stored values do not match its shape: not used for shapes
                continue
    folded: set[int] = set()
    inferred = infer(work)
    for _ in range(MAX_ROUNDS):
        shapes = read_shapes(inferred)
        found = False
        for i, node in enumerate(model.graph.node):
            if i in folded or node.op_type not in EVALUATED or node.domain not in ("", "ai.onnx") or \
                    len(node.output) != 1:
                continue
            args = [values.get(name) if name else None for name in node.input]
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            try:
                with np.errstate(all="ignore"):
                    out = _evaluate(node, args, attrs, shapes, values, np, onnx)
            except Exception:  # an operand this module cannot handle: the node stays for inference
                continue
            if out is None or not isinstance(out, np.ndarray) and not np.isscalar(out):
                continue
            out = np.asarray(out)
            if out.size > MAX_VALUES or out.dtype == object:
                continue
            values[node.output[0]] = out
            folded.add(i)
            found = True
        if not found:
            break
        work = onnx.ModelProto()
        work.CopyFrom(model)
        del work.graph.node[:]
        work.graph.node.extend(n for i, n in enumerate(model.graph.node) if i not in folded)
        have = {t.name for t in work.graph.initializer}
        for i in sorted(folded):
            name = model.graph.node[i].output[0]
            if name not in have:
                work.graph.initializer.append(numpy_helper.from_array(values[name], name))
        inferred = infer(work)
    return inferred


def _numel(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n
