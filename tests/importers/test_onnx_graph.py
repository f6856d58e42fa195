"""ONNX graphs built by hand (``onnx.helper``) and counted: each figure against its formula written here, and
hostile graphs that give one line."""
from __future__ import annotations

import pytest

from engine.errors import InputError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from engine.importers.onnx_graph import count_onnx, dynamic_dims, read_onnx  # noqa: E402

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, inits=(), opset=20, domains=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=ops, producer_name="test")


def _weight(name, *dims, dtype=F):
    n = 1
    for d in dims:
        n *= d
    values = [0.5] * n if dtype == F else [1] * n
    return helper.make_tensor(name, dtype, list(dims), values)


def _count(model, dims=None):
    return count_onnx(read_onnx(model.SerializeToString()), dims or {})


def _vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def test_gemm_matmul_and_a_shared_weight_counted_once():
    # x [B, 16] → Gemm(W1 [32, 16] transB, b1 [32]) → MatMul(W2 [32, 32]) → MatMul(W2 again)
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1, name="/fc1/Gemm"),
             helper.make_node("Relu", ["h"], ["r"], name="/act/Relu"),
             helper.make_node("MatMul", ["r", "w2"], ["m"], name="/fc2/MatMul"),
             helper.make_node("MatMul", ["m", "w2"], ["y"], name="/fc2_again/MatMul")]
    model = _model(nodes, [_vi("x", ["batch", 16])], [_vi("y", None)],
                   [_weight("w1", 32, 16), _weight("b1", 32), _weight("w2", 32, 32)])
    assert [(d.name, d.input, d.axis) for d in dynamic_dims(read_onnx(model.SerializeToString()))] == \
        [("batch", "x", 0)]
    c = _count(model, {"batch": 4})
    assert c.params == 32 * 16 + 32 + 32 * 32  # w2 shared by two nodes: once
    assert c.macs == 4 * 16 * 32 + 2 * (4 * 32 * 32)
    assert c.extra_flop == 4 * 32 + 4 * 32  # Gemm's bias adds, Relu
    assert [(r.name, r.op, r.params, r.output_shape) for r in c.rows] == [
        ("/fc1/Gemm", "Gemm", 544, [4, 32]), ("/act/Relu", "Relu", 0, [4, 32]),
        ("/fc2/MatMul", "MatMul", 1024, [4, 32]), ("/fc2_again/MatMul", "MatMul", 0, [4, 32])]
    assert c.inputs == [{"name": "x", "shape": [4, 16]}]
    # the scenario is one example's (a training scenario multiplies by the examples): the batch of 4 divided out
    assert c.scenario_data()["layers"][0] == {"type": "counted", "name": "/fc1/Gemm", "op": "Gemm", "params": 544,
                                              "macs": 16 * 32, "extra_flop": 32, "output_shape": [4, 32]}
    assert "per example: the counted run's figures ÷ its batch of 4" in " ".join(c.notes)
    assert _count(model, {"batch": 1}).notes == [n for n in c.notes if "batch of 4" not in n]


def test_batched_matmul_broadcasts():
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
    c = _count(_model(nodes, [_vi("a", [2, 3, 5, 7]), _vi("b", [7, 11])], [_vi("y", None)]))
    assert c.macs == 2 * 3 * 5 * 7 * 11 and c.params == 0


def test_conv_with_groups_and_bias_and_the_transposed_conv():
    # Conv: x [1, 8, 10, 10], W [16, 8/2, 3, 3], groups 2, pad 1 → [1, 16, 10, 10]
    conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], group=2, pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    c = _count(_model([conv], [_vi("x", [1, 8, 10, 10])], [_vi("y", None)], [_weight("w", 16, 4, 3, 3),
                                                                           _weight("b", 16)]))
    assert c.rows[0].output_shape == [1, 16, 10, 10]
    assert c.macs == 16 * 10 * 10 * 4 * 3 * 3 and c.extra_flop == 16 * 10 * 10 and c.params == 16 * 4 * 9 + 16
    # ConvTranspose: x [1, 4, 5, 5], W [4, 6, 2, 2], stride 2 → [1, 6, 10, 10]; each input value × 6·2·2
    tconv = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], kernel_shape=[2, 2])
    c = _count(_model([tconv], [_vi("x", [1, 4, 5, 5])], [_vi("y", None)], [_weight("w", 4, 6, 2, 2)]))
    assert c.rows[0].output_shape == [1, 6, 10, 10]
    assert c.macs == 4 * 5 * 5 * 6 * 2 * 2 and c.extra_flop == 0


@pytest.mark.parametrize("op,gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_recurrent_layers_count_every_step(op, gates):
    t, b, n, h = 7, 2, 5, 6  # sequence, batch, input, hidden; bidirectional: 2 directions
    node = helper.make_node(op, ["x", "w", "r", "bias"], ["y"], hidden_size=h, direction="bidirectional")
    inits = [_weight("w", 2, gates * h, n), _weight("r", 2, gates * h, h), _weight("bias", 2, 2 * gates * h)]
    c = _count(_model([node], [_vi("x", ["seq", b, n])], [_vi("y", None)], inits), {"seq": t})
    assert c.params == 2 * gates * (h * n + h * h + 2 * h)
    assert c.macs == t * b * 2 * gates * (n * h + h * h)  # per step, per direction: G·(N·H + H²)
    assert c.rows[0].output_shape == [t, 2, b, h]
    assert c.extra_flop > 0


def test_einsum_attention_norms_pooling_softmax_resize():
    ein = helper.make_node("Einsum", ["q", "k"], ["s"], equation="bhld,bhsd->bhls")
    c = _count(_model([ein], [_vi("q", [2, 4, 9, 8]), _vi("k", [2, 4, 11, 8])], [_vi("s", None)]))
    assert c.macs == 2 * 4 * 9 * 11 * 8 and c.rows[0].output_shape == [2, 4, 9, 11]

    att = helper.make_node("Attention", ["q", "k", "v"], ["y"])
    c = _count(_model([att], [_vi("q", [1, 4, 9, 8]), _vi("k", [1, 4, 11, 8]), _vi("v", [1, 4, 11, 6])],
                      [_vi("y", None)], opset=23))
    assert c.macs == 4 * 9 * 11 * (8 + 6)  # Q·Kᵀ, then the weights × V
    assert c.extra_flop == (5 + 1) * 4 * 9 * 11  # softmax and the 1/√E scale per score

    ln = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)
    c = _count(_model([ln], [_vi("x", [3, 10])], [_vi("y", None)], [_weight("g", 10), _weight("b", 10)]))
    assert (c.params, c.macs, c.extra_flop) == (20, 0, 7 * 30)

    bn = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])
    c = _count(_model([bn], [_vi("x", [1, 3, 4, 4])], [_vi("y", None)],
                      [_weight("s", 3), _weight("b", 3), _weight("m", 3), _weight("v", 3)]))
    assert (c.params, c.state) == (6, 6)  # running mean and variance are state, as in PyTorch

    pool = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = _count(_model([pool], [_vi("x", [1, 2, 8, 8])], [_vi("y", None)]))
    assert c.rows[0].output_shape == [1, 2, 4, 4] and c.extra_flop == 2 * 4 * 4 * (9 - 1)

    sm = helper.make_node("Softmax", ["x"], ["y"], axis=-1)
    assert _count(_model([sm], [_vi("x", [5, 7])], [_vi("y", None)])).extra_flop == 5 * 35

    scales = helper.make_tensor("sc", F, [4], [1, 1, 2, 2])
    rs = helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear")
    c = _count(_model([rs], [_vi("x", [1, 3, 4, 4])], [_vi("y", None)], [scales]))
    assert c.rows[0].output_shape == [1, 3, 8, 8] and c.extra_flop == 7 * 3 * 8 * 8  # bilinear: 7 per value
    assert (c.params, c.constants) == (0, 4)  # the scales: a constant of the graph, not a parameter


def test_unknown_operators_and_domains_are_listed_never_a_silent_zero():
    nodes = [helper.make_node("Conv", ["x", "w"], ["h"], domain="my.custom"),
             helper.make_node("FancyOp", ["h"], ["y"]), helper.make_node("FancyOp", ["y"], ["z"])]
    model = _model(nodes, [_vi("x", [1, 3, 8, 8])], [_vi("z", None)], [_weight("w", 4, 3, 3, 3)],
                   domains=["my.custom"])
    c = _count(model)
    assert c.unknown_ops == {"my.custom.Conv": 1, "FancyOp": 2}
    assert c.params == 4 * 3 * 9 and c.macs == 0  # its weights still count


def test_dynamic_dimensions_are_asked_for_by_name():
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", ["batch", "sequence", 8])],
                   [_vi("y", None)])
    with pytest.raises(InputError, match=r"give a size for each dynamic dimension: batch \(input 'x' axis 0\), "
                                         r"sequence \(input 'x' axis 1\)"):
        _count(model)
    with pytest.raises(InputError, match="no such dynamic dimension"):
        _count(model, {"batch": 1, "sequence": 2, "width": 3})
    with pytest.raises(InputError, match="whole number"):
        _count(model, {"batch": 0, "sequence": 2})
    assert _count(model, {"batch": 2, "sequence": 3}).extra_flop == 2 * 3 * 8


# ---------------------------------------------------------------- hostile graphs: one line each

def _one_line(fn):
    with pytest.raises(InputError) as info:
        fn()
    assert "\n" not in str(info.value)
    return str(info.value)


def test_truncated_and_zero_and_empty_files():
    good = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [1, 8])], [_vi("y", None)],
                  [_weight("w", 1000)]).SerializeToString()
    assert "could not be read" in _one_line(lambda: read_onnx(good[: len(good) // 2], "model.onnx"))
    assert _one_line(lambda: read_onnx(bytes(20_000_000), "zeros.onnx")).startswith("zeros.onnx: ")
    assert "empty" in _one_line(lambda: read_onnx(b"", "f"))
    assert "no graph nodes" in _one_line(lambda: read_onnx(b'{"layers": []}'[:0] + b"\x08\x07", "f"))


def test_a_cycle_is_refused():
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="first"), helper.make_node("Relu", ["a"], ["b"])]
    model = _model(nodes, [_vi("x", [1, 4])], [_vi("b", None)])
    assert "before any node writes it" in _one_line(lambda: _count(model))


def test_a_million_nodes_is_refused_quickly():
    node = helper.make_node("Relu", ["x"], ["x"]).SerializeToString()
    field = b"\x0a" + bytes([len(node)]) + node  # GraphProto.node (field 1), one per node
    graph = field * 1_000_000
    length, size = [], len(graph)
    while True:
        byte, size = size & 0x7F, size >> 7
        length.append(byte | (0x80 if size else 0))
        if not size:
            break
    data = b"\x3a" + bytes(length) + graph  # ModelProto.graph (field 7)
    assert _one_line(lambda: read_onnx(data, "big.onnx")) == ("big.onnx: more than 200,000 nodes: at most 200,000 "
                                                              "are read")


def test_an_initializer_with_a_negative_dimension_is_named():
    """Once 'macs: must be at least 0 (and 1 more problem)', naming a figure the user never gave."""
    w = helper.make_tensor("w", F, [3, 7], [0.5] * 21)
    w.dims[1] = -7  # protobuf allows it; no exporter writes it
    model = _model([helper.make_node("MatMul", ["x", "w"], ["y"])], [_vi("x", [1, 3])], [_vi("y", None)], [w])
    assert _one_line(lambda: _count(model)) == "initializer 'w': a negative dimension in [3, -7]: the file is " \
                                               "damaged or was edited"


def test_absurd_dimensions_are_refused():
    model = _model([helper.make_node("MatMul", ["x", "x2"], ["y"])],
                   [_vi("x", [100_000_000, 100_000_000]), _vi("x2", [100_000_000, 100_000_000])], [_vi("y", None)])
    assert "more than" in _one_line(lambda: _count(model))
    dyn = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", ["n", "n", "n"])], [_vi("y", None)])
    assert "values" in _one_line(lambda: _count(dyn, {"n": 10**9}))


GROWING_GRAPH = """
from onnx import TensorProto, helper
from engine.importers.onnx_graph import count_onnx, read_onnx
I = TensorProto.INT64
n = 200_000_000
nodes = [helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="/range"),
         helper.make_node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT, name="/cast"),
         helper.make_node("Relu", ["rf"], ["y"], name="/relu"),
         helper.make_node("Expand", ["one", "shape"], ["e"], name="/expand"),
         helper.make_node("Relu", ["e"], ["z"], name="/relu2")]
inits = [helper.make_tensor("start", I, [], [0]), helper.make_tensor("limit", I, [], [n]),
         helper.make_tensor("delta", I, [], [1]), helper.make_tensor("one", TensorProto.FLOAT, [1, 1], [1.0]),
         helper.make_tensor("shape", I, [2], [20_000, 20_000])]
graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                                         helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
c = count_onnx(read_onnx(model.SerializeToString()), {})
# VmHWM: this process image's own peak (ru_maxrss keeps the forking pytest's, torch loaded, across exec)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(c.extra_flop, peak_kb // 1024)
"""


def test_a_range_or_an_expand_of_a_billion_values_is_inferred_not_made():
    """Range(0, 2·10⁸, 1) and an Expand to 20,000 × 20,000 in a 300-byte file: their sizes are inferred, never their
    values made (those were 1.6 and 3.2 GB of numpy arrays, then thrown away for being over the 4,096-value limit).
    Each Relu counts one FLOP per element of its input: 2·10⁸ + 4·10⁸. Run apart so that its peak memory is its own."""
    import subprocess
    import sys

    from tests.conftest import ROOT
    out = subprocess.run([sys.executable, "-c", GROWING_GRAPH], capture_output=True, text=True, cwd=ROOT,
                         check=True, timeout=300).stdout.split()
    extra, peak_mb = int(out[0]), int(out[1])
    assert extra == 200_000_000 + 20_000 * 20_000
    assert peak_mb < 1_000, f"{peak_mb} MB at the peak"


def test_rows_merge_by_scope_to_fit_a_limit_with_the_same_totals():
    from engine.importers.onnx_graph import merge_scopes
    from engine.method1.counted import Counted

    rows = [Counted(name=f"/block{b}/layer{i}/Op", op="MatMul" if i % 2 else "Add", params=i, macs=10 * i + b)
            for b in range(3) for i in range(4)]
    assert merge_scopes(rows, 12) == rows
    merged = merge_scopes(rows, 5)
    assert [(r.name, r.op) for r in merged] == [("/block0", "Add+MatMul"), ("/block1", "Add+MatMul"),
                                               ("/block2", "Add+MatMul")]
    assert sum(r.macs for r in merged) == sum(r.macs for r in rows) and sum(r.params for r in merged) == 18
    assert len(merge_scopes(rows, 1)) == 1


def test_sizes_past_a_float_are_one_line_not_an_overflow():
    """Each was ``OverflowError`` (``f"{prod(shape):.3g}"`` on an integer past 1.8e308): an input of 40 axes of 10⁹
    (10³⁶⁰ values), a weight of 17 axes of 2⁶² (2¹⁰⁵⁴ ≈ 1.93e317), a Constant of the same, and 5,000 sizes given."""
    wide = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [10**9] * 40)], [_vi("y", None)])
    assert _one_line(lambda: _count(wide)) == "input 'x': 1e360 values: more than the 1e15 this tool accepts"
    weight = TensorProto(name="w", data_type=F, dims=[2**62] * 17)
    heavy = _model([helper.make_node("Add", ["x", "w"], ["y"])], [_vi("x", [1, 4])], [_vi("y", None)], [weight])
    assert _one_line(lambda: _count(heavy)).startswith("initializer 'w': 1.93e317 values: more than the 1e15")
    const = helper.make_node("Constant", [], ["c"], value=TensorProto(name="c", data_type=F, dims=[2**62] * 17))
    constant = _model([const, helper.make_node("Add", ["x", "c"], ["y"])], [_vi("x", [1, 4])], [_vi("y", None)])
    assert "1.93e317 values: more than the 1e15" in _one_line(lambda: _count(constant))
    many = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [f"d{i}" for i in range(60)])], [_vi("y", None)])
    assert "1e540 values" in _one_line(lambda: _count(many, {f"d{i}": 10**9 for i in range(60)}))


def test_five_thousand_symbolic_dimensions_are_one_short_line():
    """Once 5,000 number inputs in the dashboard and a 142,838-character message: now at most 64 are asked for, and
    any message names at most 8 before '… and N more'."""
    from engine.importers.onnx_graph import MAX_DYNAMIC_DIMS

    wide = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [f"d{i}" for i in range(5_000)])],
                  [_vi("y", None)])
    message = _one_line(lambda: dynamic_dims(read_onnx(wide.SerializeToString())))
    assert message.startswith("dimensions: the graph's inputs have 5,000 dynamic dimensions (d0, d1, d2, d3, d4, d5, "
                              "d6, d7, … and 4,992 more): at most 64 can be given")
    assert "… and 4,992 more" in message and len(message) < 300
    assert _one_line(lambda: _count(wide, {"d0": 1})) == message
    fits = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", [f"d{i}" for i in range(MAX_DYNAMIC_DIMS)])],
                  [_vi("y", None)])
    assert len(dynamic_dims(read_onnx(fits.SerializeToString()))) == MAX_DYNAMIC_DIMS == 64
    missing = _one_line(lambda: _count(fits, {"d0": 1}))
    assert "d1 (input 'x' axis 1)" in missing and "… and 55 more" in missing and len(missing) < 400
    long_name = _model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x", ["n" * 100_000])], [_vi("y", None)])
    assert len(_one_line(lambda: _count(long_name))) < 300
