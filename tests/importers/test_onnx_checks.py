"""onnx.checker's structural rules applied on import, each refusal one line naming the name or the node (each was
counted silently before), and valid sparse initializers counted (each was refused as 'a cycle')."""
from __future__ import annotations

import pytest

from engine.errors import InputError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from engine.importers.onnx_graph import count_onnx, read_onnx  # noqa: E402

F = TensorProto.FLOAT


def _vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def _model(nodes, inputs, inits=(), sparse=(), outputs=None, opset=20):
    graph = helper.make_graph(nodes, "g", inputs, outputs or [_vi("y", [1, 4])], initializer=list(inits),
                              sparse_initializer=list(sparse))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _relu(a="x", b="y", name="r"):
    return helper.make_node("Relu", [a], [b], name=name)


def _refusal(data: bytes) -> str:
    with pytest.raises(InputError) as info:
        count_onnx(read_onnx(data, "m.onnx"), {})
    assert "\n" not in str(info.value)
    return str(info.value)


def _checker_refuses(model) -> bool:
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError:
        return True
    return False


def test_two_graph_inputs_of_one_name():
    model = _model([_relu()], [_vi("x", [1, 4]), _vi("x", [1, 4])])
    assert _checker_refuses(model)
    assert _refusal(model.SerializeToString()) == ("graph input 'x': listed twice (a value has one name; two models "
                                                   "joined into one file?)")


def test_two_initializers_of_one_name():
    w = helper.make_tensor("w", F, [4, 4], [0.5] * 16)
    model = _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [_vi("x", [1, 4])], [w, w])
    assert _checker_refuses(model)
    assert _refusal(model.SerializeToString()).startswith("initializer 'w': given twice")


def test_two_nodes_writing_one_output_and_a_node_writing_an_input():
    twice = _model([_relu("x", "y", "first"), helper.make_node("Sigmoid", ["x"], ["y"], name="second")],
                   [_vi("x", [1, 4])])
    assert _checker_refuses(twice)
    assert _refusal(twice.SerializeToString()) == ("node 'second': Sigmoid writes 'y', which node 'first' (Relu) "
                                                   "already writes: each value is written once (onnx.checker refuses "
                                                   "this graph)")
    over = _model([_relu("x", "y"), helper.make_node("Neg", ["y"], ["x"], name="back")], [_vi("x", [1, 4])])
    assert _refusal(over.SerializeToString()).startswith("node 'back': Neg writes 'x', which graph input 'x' "
                                                         "already writes")


def test_two_models_joined_into_one_file():
    """Protobuf merges two messages written one after the other: the same model twice repeats every name; two
    different models list the operator domain twice (onnx.checker accepts that one; no exporter writes it)."""
    one = _model([_relu()], [_vi("x", [1, 4])])
    assert _refusal(one.SerializeToString() * 2).startswith("opset_import '': the domain is imported twice")
    other = _model([_relu("p", "q")], [_vi("p", [1, 4])], outputs=[_vi("q", [1, 4])], opset=18)
    assert _refusal(one.SerializeToString() + other.SerializeToString()) == (
        "opset_import '': the domain is imported twice (versions 20 and 18): two models joined into one file? "
        "Export the model again")


def test_a_valid_sparse_initializer_is_counted_at_its_dense_size():
    """W [8, 16] stored sparse (3 non-zero values): 128 parameters, 2·8·16 FLOP per example as the dense MatMul —
    once refused as 'a cycle'."""
    values = helper.make_tensor("w", F, [3], [1.0, 2.0, 3.0])
    indices = helper.make_tensor("w_indices", TensorProto.INT64, [3], [0, 17, 127])
    sparse = helper.make_sparse_tensor(values, indices, [8, 16])
    model = _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [_vi("x", [1, 8])], sparse=[sparse],
                   outputs=[_vi("y", [1, 16])])
    onnx.checker.check_model(model)  # valid
    counted = count_onnx(read_onnx(model.SerializeToString()), {})
    assert (counted.params, counted.macs) == (8 * 16, 8 * 16)
    assert "1 sparse initializer: counted at its dense size" in counted.notes


def test_a_small_sparse_shape_is_read_for_shapes():
    """A Reshape's target [2, 6] stored sparse: its values are made dense, so the shape after it is known
    (x [1, 12] → [2, 6] → MatMul by W [6, 5]: 2·6·5 MACs)."""
    values = helper.make_tensor("shape", TensorProto.INT64, [2], [2, 6])
    indices = helper.make_tensor("i", TensorProto.INT64, [2], [0, 1])
    sparse = helper.make_sparse_tensor(values, indices, [2])
    w = helper.make_tensor("w", F, [6, 5], [0.5] * 30)
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]), helper.make_node("MatMul", ["r", "w"], ["y"])]
    model = _model(nodes, [_vi("x", [1, 12])], [w], [sparse], outputs=[_vi("y", [2, 5])])
    counted = count_onnx(read_onnx(model.SerializeToString()), {})
    assert counted.macs == 2 * 6 * 5 and counted.params == 30


@pytest.mark.parametrize("values_dims, indices_dims, index, reason", [
    ([3, 1], [3], [0, 1, 2], "its values must be one list"),
    ([3], [2], [0, 1], "indices of shape [2]: expected [3] or [3, 2]"),
    ([3], [3], [0, 1, 99], "an index outside the tensor"),
])
def test_a_malformed_sparse_initializer_is_named(values_dims, indices_dims, index, reason):
    values = helper.make_tensor("s", TensorProto.INT64, values_dims, [1, 2, 3])
    indices = helper.make_tensor("s_i", TensorProto.INT64, indices_dims, index)
    sparse = helper.make_sparse_tensor(values, indices, [2, 3])
    model = _model([helper.make_node("Reshape", ["x", "s"], ["y"])], [_vi("x", [1, 4])], sparse=[sparse])
    assert _refusal(model.SerializeToString()).startswith("sparse initializer 's': " + reason)


def test_a_sparse_and_a_dense_initializer_of_one_name():
    values = helper.make_tensor("w", F, [1], [1.0])
    sparse = helper.make_sparse_tensor(values, helper.make_tensor("i", TensorProto.INT64, [1], [0]), [4, 4])
    w = helper.make_tensor("w", F, [4, 4], [0.5] * 16)
    model = _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [_vi("x", [1, 4])], [w], [sparse])
    assert _refusal(model.SerializeToString()).startswith("initializer 'w': given twice")


def test_a_name_that_is_not_utf8_is_one_line():
    """Found by the CLI fuzz (tests/cli/test_fuzz.py): protobuf hands a string field of invalid UTF-8 back as
    bytes, and a node name of them was 'internal: an unexpected TypeError'."""
    model = _model([_relu(name="r")], [_vi("x", [1, 4])])
    data = model.SerializeToString().replace(b"\x01r", b"\x01\xaf")
    assert _refusal(data) == "node 0: a name in it is not UTF-8 text: the file is damaged or not ONNX"
