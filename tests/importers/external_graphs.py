"""ONNX graphs with a tensor stored "externally" in every place a tensor can sit, for the test that no byte of a
file beside the server is ever read (``test_onnx_external_data.py``) and the hostile suite.

A tensor's ``data_location = EXTERNAL`` with an ``external_data`` entry ``location`` names a file that
``onnx.numpy_helper.to_array`` opens relative to its ``base_dir`` (the working directory by default). Places
(``PLACES``): graph initializers, sparse initializers (values and indices), node attributes (``Constant``'s
``value`` and ``sparse_value``, ``ConstantOfShape``'s ``value``, a ``TENSORS`` attribute), subgraphs of ``If``,
``Loop`` and ``Scan`` at depth 1 and 3, a model-local function's body, a training-info graph, a string tensor,
and a tensor whose location is DEFAULT with external entries left in it. Locations (``LOCATIONS``): plain, in a
subfolder, ``./``, ``sub/../``, absolute, with offset/length. Each graph turns the values it would read into an
output *shape* where it can (``ConstantOfShape`` → ``Relu``), as the attack did: read bytes would show as sizes.
"""
from __future__ import annotations

import numpy as np
from onnx import AttributeProto, TensorProto, helper

SECRET_VALUES = (31337, 4243)
"""The secret's int64 values: read as a shape they would be printed as 31337 and 4243."""
SECRET_NAME = "secret.bin"
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def secret_bytes() -> bytes:
    """int64 [31337, 4243]: 16 bytes, exactly what a tensor of two int64 values stored outside would read."""
    return np.array(SECRET_VALUES, dtype="<i8").tobytes()


def plant(folder) -> list:
    """The secret written to ``folder/secret.bin`` and ``folder/sub/secret.bin``; their paths."""
    (folder / "sub").mkdir(exist_ok=True)
    paths = [folder / SECRET_NAME, folder / "sub" / SECRET_NAME]
    for path in paths:
        path.write_bytes(secret_bytes())
    return paths


def external(tensor: TensorProto, location: str, offset: int | None = None, length: int | None = None) -> TensorProto:
    """``tensor`` with its values moved to ``location`` (none kept in the message)."""
    for name in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data"):
        tensor.ClearField(name)
    tensor.data_location = TensorProto.EXTERNAL
    del tensor.external_data[:]
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(value)
    return tensor


def _shape_tensor(name: str, location: str, **where) -> TensorProto:
    return external(helper.make_tensor(name, I64, [2], [2, 3]), location, **where)


def _vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def _model(nodes, inputs, outputs, inits=(), sparse=(), functions=(), opset=20):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits), sparse_initializer=list(sparse))
    ops = [helper.make_opsetid("", opset), helper.make_opsetid("local", 1)]
    return helper.make_model(graph, opset_imports=ops, producer_name="hostile", functions=list(functions))


def _shown(shape_name: str, extra_nodes=(), inits=(), sparse=(), functions=(), inputs=None):
    """``shape_name`` (int64 [2]) → ConstantOfShape → Relu → y; x [batch, 8] → MatMul(w) → z beside it."""
    nodes = [*extra_nodes, helper.make_node("ConstantOfShape", [shape_name], ["filled"],
                                            value=helper.make_tensor("v", F, [1], [1.0]), name="/fill/ConstantOfShape"),
             helper.make_node("Relu", ["filled"], ["y"], name="/shown/Relu"),
             helper.make_node("MatMul", ["x", "w"], ["z"], name="/fc/MatMul")]
    w = helper.make_tensor("w", F, [8, 4], [0.25] * 32)
    return _model(nodes, inputs or [_vi("x", ["batch", 8])], [_vi("y", None), _vi("z", None)], [w, *inits], sparse,
                  functions)


def initializer_shape(loc, **where):
    return _shown("shape", inits=[_shape_tensor("shape", loc, **where)])


def initializer_weight(loc, **where):
    nodes = [helper.make_node("MatMul", ["x", "big"], ["y"], name="/fc/MatMul")]
    big = external(helper.make_tensor("big", F, [8, 300], [0.0] * 2400), loc, **where)
    return _model(nodes, [_vi("x", ["batch", 8])], [_vi("y", None)], [big])


def constant_value(loc, **where):
    const = helper.make_node("Constant", [], ["shape"], value=_shape_tensor("c", loc, **where), name="/c/Constant")
    return _shown("shape", [const])


def constant_of_shape_value(loc, **where):
    fill = external(helper.make_tensor("fill", F, [1], [1.0]), loc, **where)
    nodes = [helper.make_node("Constant", [], ["shape"], value=helper.make_tensor("s", I64, [2], [2, 3])),
             helper.make_node("ConstantOfShape", ["shape"], ["filled"], value=fill, name="/fill/ConstantOfShape"),
             helper.make_node("Relu", ["filled"], ["y"], name="/shown/Relu")]
    return _model(nodes, [_vi("x", ["batch", 8])], [_vi("y", None)])


def _sparse(name, loc, values_external=True, indices_external=False, **where):
    values = helper.make_tensor(name, I64, [2], [2, 3])
    indices = helper.make_tensor(name + "_indices", I64, [2], [0, 1])
    if values_external:
        external(values, loc, **where)
    if indices_external:
        external(indices, loc, **where)
    return helper.make_sparse_tensor(values, indices, [2])


def constant_sparse_value(loc, **where):
    const = helper.make_node("Constant", [], ["shape"], sparse_value=_sparse("c", loc, **where), name="/c/Constant")
    return _shown("shape", [const])


def sparse_initializer(loc, **where):
    return _shown("shape", sparse=[_sparse("shape", loc, **where)])


def sparse_initializer_indices(loc, **where):
    return _shown("shape", sparse=[_sparse("shape", loc, values_external=False, indices_external=True, **where)])


def tensors_attribute(loc, **where):
    node = helper.make_node("Op", ["x"], ["y"], domain="local", name="/custom/Op")
    node.attribute.append(helper.make_attribute("tables", [_shape_tensor("t0", loc, **where),
                                                           _shape_tensor("t1", loc, **where)]))
    assert node.attribute[0].type == AttributeProto.TENSORS
    return _model([node], [_vi("x", ["batch", 8])], [_vi("y", None)])


def _branch(loc, depth: int, name: str, **where):
    """A graph of one output ``out`` (int64 [2]) from a Constant stored outside, nested ``depth`` Ifs deep."""
    if depth == 1:
        const = helper.make_node("Constant", [], [f"{name}_out"], value=_shape_tensor(f"{name}_c", loc, **where))
        return helper.make_graph([const], name, [], [_vi(f"{name}_out", [2], I64)])
    inner = [_branch(loc, depth - 1, f"{name}_{side}", **where) for side in ("then", "else")]
    node = helper.make_node("If", ["cond"], [f"{name}_out"], then_branch=inner[0], else_branch=inner[1])
    cond = helper.make_node("Constant", [], ["cond"], value=helper.make_tensor("b", TensorProto.BOOL, [], [True]))
    return helper.make_graph([cond, node], name, [], [_vi(f"{name}_out", [2], I64)])


def if_subgraph(loc, depth: int = 1, **where):
    then, other = _branch(loc, depth, "then", **where), _branch(loc, depth, "else", **where)
    nodes = [helper.make_node("Constant", [], ["cond"], value=helper.make_tensor("b", TensorProto.BOOL, [], [True])),
             helper.make_node("If", ["cond"], ["shape"], then_branch=then, else_branch=other, name="/if/If")]
    return _shown("shape", nodes)


def if_subgraph_deep(loc, **where):
    return if_subgraph(loc, depth=3, **where)


def loop_body(loc, **where):
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Constant", [], ["c"], value=_shape_tensor("lc", loc, **where)),
         helper.make_node("Add", ["acc_in", "c"], ["acc_out"])],
        "body", [_vi("i", [], I64), _vi("cond_in", [], TensorProto.BOOL), _vi("acc_in", [2], I64)],
        [_vi("cond_out", [], TensorProto.BOOL), _vi("acc_out", [2], I64)])
    inits = [helper.make_tensor("trip", I64, [], [1]), helper.make_tensor("go", TensorProto.BOOL, [], [True]),
             helper.make_tensor("zero2", I64, [2], [0, 0])]
    loop = helper.make_node("Loop", ["trip", "go", "zero2"], ["shape"], body=body, name="/loop/Loop")
    return _shown("shape", [loop], inits=inits)


def scan_body(loc, **where):
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["c"], value=_shape_tensor("sc", loc, **where)),
         helper.make_node("Add", ["state_in", "c"], ["state_out"]),
         helper.make_node("Identity", ["elem"], ["elem_out"])],
        "body", [_vi("state_in", [2], I64), _vi("elem", [], I64)],
        [_vi("state_out", [2], I64), _vi("elem_out", [], I64)])
    inits = [helper.make_tensor("zero2", I64, [2], [0, 0]), helper.make_tensor("seq", I64, [1], [0])]
    scan = helper.make_node("Scan", ["zero2", "seq"], ["shape", "seq_out"], body=body, num_scan_inputs=1,
                            name="/scan/Scan")
    return _shown("shape", [scan], inits=inits)


def function_body(loc, **where):
    body = [helper.make_node("Constant", [], ["out"], value=_shape_tensor("fc", loc, **where))]
    function = helper.make_function("local", "MakeShape", [], ["out"], body, [helper.make_opsetid("", 20)])
    call = helper.make_node("MakeShape", [], ["shape"], domain="local", name="/call/MakeShape")
    return _shown("shape", [call], functions=[function])


def training_info(loc, **where):
    model = initializer_weight("inline-only")  # a plain graph, then a training-info graph with a stored-outside tensor
    model.graph.initializer[0].CopyFrom(helper.make_tensor("big", F, [8, 300], [0.0] * 2400))
    init = helper.make_graph([helper.make_node("Constant", [], ["k"], value=_shape_tensor("tc", loc, **where))],
                             "init", [], [_vi("k", [2], I64)], initializer=[_shape_tensor("ti", loc, **where)])
    info = model.training_info.add()
    info.initialization.CopyFrom(init)
    info.algorithm.CopyFrom(helper.make_graph([], "algo", [], []))
    return model


def string_tensor(loc, **where):
    text = external(helper.make_tensor("s", TensorProto.STRING, [1], [b"x"]), loc, **where)
    nodes = [helper.make_node("Constant", [], ["label"], value=text, name="/label/Constant"),
             helper.make_node("Relu", ["x"], ["y"], name="/r/Relu")]
    return _model(nodes, [_vi("x", ["batch", 8])], [_vi("y", None), _vi("label", None, TensorProto.STRING)])


def default_location_with_entries(loc, **where):
    model = constant_value(loc, **where)
    model.graph.node[0].attribute[0].t.data_location = TensorProto.DEFAULT  # entries left, location not external
    return model


PLACES = {f.__name__: f for f in (
    initializer_shape, initializer_weight, constant_value, constant_of_shape_value, constant_sparse_value,
    sparse_initializer, sparse_initializer_indices, tensors_attribute, if_subgraph, if_subgraph_deep, loop_body,
    scan_body, function_body, training_info, string_tensor, default_location_with_entries)}
"""Every place a tensor can sit in an ONNX model: name → builder(location, offset=, length=)."""

LOCATIONS = {"plain": (SECRET_NAME, {}), "subfolder": (f"sub/{SECRET_NAME}", {}), "dot": (f"./{SECRET_NAME}", {}),
             "up_and_back": (f"sub/../{SECRET_NAME}", {}), "offset": (SECRET_NAME, {"offset": 0, "length": 16})}
"""Relative locations (onnx itself refuses ``../`` outside, URLs and symlinks; an absolute path is added by the
test, which knows the folder)."""


def hostile_graphs(folder=None):
    """(case id, serialized model) for every place × location (× the absolute path of ``folder``'s secret)."""
    locations = dict(LOCATIONS)
    if folder is not None:
        locations["absolute"] = (str(folder / SECRET_NAME), {})
    for place, build in PLACES.items():
        for where, (loc, extra) in locations.items():
            yield f"{place}-{where}", build(loc, **extra).SerializeToString()
