"""The ONNX operator table itself (``engine/importers/onnx_ops.py``): every operator in ``COSTS`` is counted in a
graph of its own here, against its cost written here from the operator's definition (onnx.ai/onnx/operators), and
no operator in ``FREE`` does arithmetic. A new entry in ``COSTS`` fails ``test_every_costed_operator_is_counted``
until a graph for it is added to ``GRAPHS``; an operator moved into ``FREE`` by mistake fails
``test_free_operators_only_move_select_or_create_values``."""
from __future__ import annotations

import math

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from engine.importers.onnx_graph import count_onnx, read_onnx  # noqa: E402
from engine.importers.onnx_ops import COSTS, FREE  # noqa: E402

F, I8, U8, I32, I64, B = (TensorProto.FLOAT, TensorProto.INT8, TensorProto.UINT8, TensorProto.INT32,
                          TensorProto.INT64, TensorProto.BOOL)
X = [2, 3, 4]
N = math.prod(X)
"""The element-wise graphs' input and output: 24 values."""
MS = "com.microsoft"
"""onnxruntime's fused operators: the operator table takes them in any known domain; onnx's shape inference does
not know them, so their outputs' sizes come from their inputs'."""


def value(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def tensor(name, dims, dtype=F, values=None):
    n = math.prod(dims)
    return helper.make_tensor(name, dtype, dims, values if values is not None else [1] * n)


def graph(op, inputs, inits=(), attrs=None, domain="", opset=23, outputs=1):
    """One node of ``op`` over ``inputs`` (value infos) and ``inits`` (initializers), its first output the graph's."""
    names = [i.name for i in inputs] + [t.name for t in inits]
    outs = [f"y{i}" for i in range(outputs)]
    node = helper.make_node(op, names, outs, domain=domain, **(attrs or {}))
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    g = helper.make_graph([node], "g", list(inputs), [helper.make_tensor_value_info("y0", F, None)],
                          initializer=list(inits))
    return helper.make_model(g, opset_imports=opsets, producer_name="test")


def fused(op, inputs, out_shape, inits=(), attrs=None):
    """``op`` of onnxruntime's domain (``out_shape``: what onnxruntime gives, for the reader)."""
    del out_shape
    return graph(op, inputs, inits, attrs, domain=MS)


def unary(op, per_value, dtype=F, attrs=None, opset=23, domain=""):
    return graph(op, [value("x", X, dtype)], attrs=attrs, opset=opset, domain=domain), (0, per_value * N)


def binary(op, dtype=F, attrs=None):
    return graph(op, [value("a", X, dtype), value("b", X, dtype)], attrs=attrs), (0, N)


# |Y|·K for the products; the full convention's extra FLOP per value as docs/conventions.md writes them
# (arithmetic and comparisons 1, sigmoid 4, tanh 5, GELU 5, SiLU 5, softplus 3, softmax 5, norms 5 + 2 for γ, β)
GRAPHS = {
    "MatMul": lambda: (graph("MatMul", [value("a", [2, 3, 5]), value("b", [5, 7])]), (2 * 3 * 7 * 5, 0)),
    "MatMulInteger": lambda: (graph("MatMulInteger", [value("a", [3, 5], U8), value("b", [5, 7], U8)]),
                              (3 * 7 * 5, 0)),
    "QLinearMatMul": lambda: (graph("QLinearMatMul", [value("a", [3, 5], U8)],
                                    [tensor("as", [], F), tensor("az", [], U8), tensor("b", [5, 7], U8),
                                     tensor("bs", [], F), tensor("bz", [], U8), tensor("ys", [], F),
                                     tensor("yz", [], U8)]), (3 * 7 * 5, 0)),
    # FusedMatMul transposing A: Aᵀ of [2, 5, 3] is [2, 3, 5], times B [5, 7] → [2, 3, 7]
    "FusedMatMul": lambda: (fused("FusedMatMul", [value("a", [2, 5, 3]), value("b", [5, 7])], [2, 3, 7],
                                  attrs={"transA": 1}), (2 * 3 * 7 * 5, 0)),
    # Gemm: A [3, 5] · Bᵀ ([7, 5]) + C [7], α = 2: |Y|·K, then + C and × α per value
    "Gemm": lambda: (graph("Gemm", [value("a", [3, 5])], [tensor("w", [7, 5]), tensor("c", [7])],
                           {"transB": 1, "alpha": 2.0}), (3 * 7 * 5, 2 * 3 * 7)),
    # Conv: [1, 4, 6, 6] by W [8, 4, 3, 3], no padding → [1, 8, 4, 4]; + the bias per output value
    "Conv": lambda: (graph("Conv", [value("x", [1, 4, 6, 6])], [tensor("w", [8, 4, 3, 3]), tensor("b", [8])]),
                     (8 * 4 * 4 * 4 * 9, 8 * 4 * 4)),
    # ConvInteger's inputs 2 and 3 are zero points, not a bias; QLinearConv's W is input 3, its bias input 8
    "ConvInteger": lambda: (graph("ConvInteger", [value("x", [1, 4, 6, 6], U8)],
                                  [tensor("w", [8, 4, 3, 3], U8), tensor("xz", [], U8), tensor("wz", [], U8)]),
                            (8 * 4 * 4 * 4 * 9, 0)),
    "QLinearConv": lambda: (graph("QLinearConv", [value("x", [1, 4, 6, 6], U8)],
                                  [tensor("xs", [], F), tensor("xz", [], U8), tensor("w", [8, 4, 3, 3], U8),
                                   tensor("ws", [], F), tensor("wz", [], U8), tensor("ys", [], F),
                                   tensor("yz", [], U8), tensor("b", [8], I32)]), (8 * 4 * 4 * 4 * 9, 8 * 4 * 4)),
    # ConvTranspose: each of the 1·4·5·5 input values into 6·2·2 outputs
    "ConvTranspose": lambda: (graph("ConvTranspose", [value("x", [1, 4, 5, 5])], [tensor("w", [4, 6, 2, 2])],
                                    {"strides": [2, 2]}), (4 * 5 * 5 * 6 * 2 * 2, 0)),
    # recurrent layers over T = 7 steps, batch 2, 5 inputs, 3 units: T·B·(|W| + |R|) MACs (gates G: 1, 3, 4);
    # full, per step and unit (no bias): each gate adds its W·x and R·h parts (1 per gate), then
    # RNN: tanh 5 → 6; GRU: r, z sigmoids 8, r⊙(R·h) 1, n's add 1, tanh 5, h = (1 − z)⊙n + z⊙h 4 → 2 + 19 = 21;
    # LSTM: 3 sigmoids 12 and tanh 5, c = f⊙c + i⊙g 3, tanh(c) 5, o⊙ 1 → 4 + 26 = 30
    "RNN": lambda: (graph("RNN", [value("x", [7, 2, 5])], [tensor("w", [1, 3, 5]), tensor("r", [1, 3, 3])],
                          {"hidden_size": 3}), (7 * 2 * (15 + 9), 7 * 2 * 3 * 6)),
    "GRU": lambda: (graph("GRU", [value("x", [7, 2, 5])], [tensor("w", [1, 9, 5]), tensor("r", [1, 9, 3])],
                          {"hidden_size": 3}), (7 * 2 * (45 + 27), 7 * 2 * 3 * 21)),
    "LSTM": lambda: (graph("LSTM", [value("x", [7, 2, 5])], [tensor("w", [1, 12, 5]), tensor("r", [1, 12, 3])],
                           {"hidden_size": 3}), (7 * 2 * (60 + 36), 7 * 2 * 3 * 30)),
    "Einsum": lambda: (graph("Einsum", [value("a", [2, 3, 5]), value("b", [2, 5, 7])], attrs={"equation":
                                                                                             "bij,bjk->bik"}),
                       (2 * 3 * 5 * 7, 0)),
    # attention, B 1, H 2, L 3, S 4, E 5, Eᵥ 6: scores and the weighted sum; full: softmax 5 + the scale 1 per score
    "Attention": lambda: (graph("Attention", [value("q", [1, 2, 3, 5]), value("k", [1, 2, 4, 5]),
                                              value("v", [1, 2, 4, 6])]), (2 * 3 * 4 * (5 + 6), 6 * 2 * 3 * 4)),
    "MultiHeadAttention": lambda: (fused("MultiHeadAttention", [value("q", [1, 3, 10]), value("k", [1, 4, 10]),
                                                                      value("v", [1, 4, 12])], [1, 3, 12],
                                               attrs={"num_heads": 2}),
                                   (3 * 4 * (10 + 12), 6 * 2 * 3 * 4)),
    # normalisations over x [2, 3, 4]: 5 per value, + 2 with γ and β (batch norm's running statistics are state)
    "BatchNormalization": lambda: (graph("BatchNormalization", [value("x", X)],
                                         [tensor(n, [3]) for n in ("s", "b", "m", "v")]), (0, 7 * N)),
    "InstanceNormalization": lambda: (graph("InstanceNormalization", [value("x", X)], [tensor("s", [3]),
                                                                                      tensor("b", [3])]), (0, 7 * N)),
    "GroupNormalization": lambda: (graph("GroupNormalization", [value("x", X)], [tensor("s", [3]), tensor("b", [3])],
                                         {"num_groups": 3}), (0, 7 * N)),
    "LayerNormalization": lambda: (graph("LayerNormalization", [value("x", X)], [tensor("g", [4]), tensor("b", [4])]),
                                   (0, 7 * N)),
    # SkipLayerNormalization: x + skip, then a layer norm with γ and β: 1 + 7 per value
    "SkipLayerNormalization": lambda: (fused("SkipLayerNormalization", [value("x", X), value("s", X)], X,
                                                   [tensor("g", [4]), tensor("b", [4])]), (0, 8 * N)),
    # RMS norm: square, mean (add), root and divide… 3 per value, + 1 for γ
    "RMSNormalization": lambda: (graph("RMSNormalization", [value("x", X)], [tensor("g", [4])]), (0, 4 * N)),
    "SimplifiedLayerNormalization": lambda: (fused("SimplifiedLayerNormalization", [value("x", X)], X,
                                                         [tensor("g", [4])]), (0, 4 * N)),
    # Lp: |x|^p, sum, root, divide → 3 per value; mean-variance normalisation without γ, β: 5
    "LpNormalization": lambda: unary("LpNormalization", 3),
    "MeanVarianceNormalization": lambda: unary("MeanVarianceNormalization", 5),
    # pools over [1, 2, 6, 6], 3×3 windows, stride 3 → [1, 2, 2, 2]: max k − 1 comparisons, average k adds and a
    # divide (k), Lp k + 1
    "MaxPool": lambda: (graph("MaxPool", [value("x", [1, 2, 6, 6])], attrs={"kernel_shape": [3, 3],
                                                                            "strides": [3, 3]}), (0, 8 * 8)),
    "AveragePool": lambda: (graph("AveragePool", [value("x", [1, 2, 6, 6])], attrs={"kernel_shape": [3, 3],
                                                                                    "strides": [3, 3]}), (0, 8 * 9)),
    "LpPool": lambda: (graph("LpPool", [value("x", [1, 2, 6, 6])], attrs={"kernel_shape": [3, 3], "strides": [3, 3]}),
                       (0, 8 * 10)),
    # global pools: one per input value
    "GlobalAveragePool": lambda: (graph("GlobalAveragePool", [value("x", [1, 2, 6, 6])]), (0, 72)),
    "GlobalMaxPool": lambda: (graph("GlobalMaxPool", [value("x", [1, 2, 6, 6])]), (0, 72)),
    "GlobalLpPool": lambda: (graph("GlobalLpPool", [value("x", [1, 2, 6, 6])]), (0, 72)),
    # bilinear ×2 of [1, 2, 3, 3] → [1, 2, 6, 6]: 4 multiplies and 3 adds per output value
    "Resize": lambda: (graph("Resize", [value("x", [1, 2, 3, 3])], [tensor("roi", [0]),
                                                                    tensor("sc", [4], F, [1, 1, 2, 2])],
                             {"mode": "linear"}), (0, 7 * 72)),
    "Upsample": lambda: (graph("Upsample", [value("x", [1, 2, 3, 3])], [tensor("sc", [4], F, [1, 1, 2, 2])],
                               {"mode": "linear"}, opset=9), (0, 7 * 72)),
    "Softmax": lambda: unary("Softmax", 5),
    "LogSoftmax": lambda: unary("LogSoftmax", 6),  # + the log
    "Hardmax": lambda: unary("Hardmax", 1),  # a comparison per value
    # variadic: n − 1 per output value over n = 3 inputs, + 1 for Mean's divide
    **{op: (lambda op=op: (graph(op, [value(n, X) for n in "abc"]), (0, (3 if op == "Mean" else 2) * N)))
       for op in ("Sum", "Mean", "Max", "Min")},
    # reductions and scans: one per input value (ArgMax/ArgMin compare, CumSum adds, TopK compares)
    **{op: (lambda op=op: (graph(op, [value("x", X)], [tensor("ax", [1], I64, [1])], {"keepdims": 1}), (0, N)))
       for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                  "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp")},
    "ArgMax": lambda: (graph("ArgMax", [value("x", X)], attrs={"axis": 1}), (0, N)),
    "ArgMin": lambda: (graph("ArgMin", [value("x", X)], attrs={"axis": 1}), (0, N)),
    "CumSum": lambda: (graph("CumSum", [value("x", X)], [tensor("ax", [], I64, [1])]), (0, N)),
    "TopK": lambda: (graph("TopK", [value("x", X)], [tensor("k", [1], I64, [2])], outputs=2), (0, N)),
    # activations per value: sigmoid 4, tanh 5, GELU 5 (+ 1 for BiasGelu's add), QuickGelu and Swish x·σ(αx) 5,
    # hard sigmoid 4, hard swish 5, Mish x·tanh(softplus x) 8, softplus 3, ELU 4, SELU and CELU 5, Clip 2,
    # (de)quantisation: scale and shift 2
    "Sigmoid": lambda: unary("Sigmoid", 4), "Tanh": lambda: unary("Tanh", 5), "Gelu": lambda: unary("Gelu", 5),
    "FastGelu": lambda: (fused("FastGelu", [value("x", X)], X), (0, 5 * N)),
    "BiasGelu": lambda: (fused("BiasGelu", [value("x", X)], X, [tensor("b", [4])]), (0, 6 * N)),
    "QuickGelu": lambda: (fused("QuickGelu", [value("x", X)], X), (0, 5 * N)),
    "HardSigmoid": lambda: unary("HardSigmoid", 4), "HardSwish": lambda: unary("HardSwish", 5),
    "Swish": lambda: unary("Swish", 5, opset=24),
    "Mish": lambda: unary("Mish", 8), "Softplus": lambda: unary("Softplus", 3), "Elu": lambda: unary("Elu", 4),
    "Selu": lambda: unary("Selu", 5), "Celu": lambda: unary("Celu", 5),
    "Clip": lambda: (graph("Clip", [value("x", X)], [tensor("lo", [], F, [0]), tensor("hi", [], F, [6])]),
                     (0, 2 * N)),
    "QuantizeLinear": lambda: (graph("QuantizeLinear", [value("x", X)], [tensor("s", [], F), tensor("z", [], U8)]),
                               (0, 2 * N)),
    "DequantizeLinear": lambda: (graph("DequantizeLinear", [value("x", X, U8)], [tensor("s", [], F),
                                                                                 tensor("z", [], U8)]), (0, 2 * N)),
    # one FLOP per output value: arithmetic, comparisons, logic, bit operations, rounding, a select, the simplest
    # activations (and Dropout, in a training graph)
    **{op: (lambda op=op: unary(op, 1)) for op in (
        "Neg", "Abs", "Sqrt", "Reciprocal", "Exp", "Log", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
        "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round", "Sign", "IsNaN", "IsInf", "Relu", "LeakyRelu",
        "ThresholdedRelu", "Softsign", "Shrink", "Dropout")},
    "Not": lambda: unary("Not", 1, B), "BitwiseNot": lambda: unary("BitwiseNot", 1, I32),
    **{op: (lambda op=op: binary(op)) for op in ("Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater",
                                                 "LessOrEqual", "GreaterOrEqual", "PRelu")},
    "Mod": lambda: binary("Mod", I32),
    **{op: (lambda op=op: binary(op, B)) for op in ("And", "Or", "Xor")},
    **{op: (lambda op=op: binary(op, I32)) for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor")},
    "BitShift": lambda: binary("BitShift", TensorProto.UINT32, {"direction": "LEFT"}),
    "Where": lambda: (graph("Where", [value("c", X, B), value("a", X), value("b", X)]), (0, N)),
}


def counted(model):
    return count_onnx(read_onnx(model.SerializeToString()), {})


def test_every_costed_operator_has_a_graph():
    assert sorted(set(COSTS) - set(GRAPHS)) == [], "add a graph of each new operator to GRAPHS"
    assert sorted(set(GRAPHS) - set(COSTS)) == []


@pytest.mark.parametrize("op", sorted(GRAPHS))
def test_every_costed_operator_is_counted(op):
    model, (macs, extra) = GRAPHS[op]()
    c = counted(model)
    assert (c.unknown_ops, c.uncounted_ops) == ({}, {}), op
    assert [r.op.rsplit(".", 1)[-1] for r in c.rows] == [op]
    assert (c.macs, c.extra_flop) == (macs, extra)


MOVES_SELECTS_OR_CREATES = {
    # moves or copies values (layout, repetition, padding with a constant)
    "Reshape", "Transpose", "Concat", "Split", "Slice", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Expand",
    "Tile", "Pad", "DepthToSpace", "SpaceToDepth", "ChannelShuffle", "Col2Im", "CenterCropPad", "ReverseSequence",
    "Cast", "CastLike",
    # selects values by index or mask
    "Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements", "Scatter", "Compress", "NonZero",
    "Trilu",
    # creates values from sizes or attributes, not from the inputs' values
    "Shape", "Size", "Constant", "ConstantOfShape", "Range", "OneHot", "EyeLike", "RandomNormal", "RandomNormalLike",
    "RandomUniform", "RandomUniformLike", "Bernoulli", "Multinomial",
    # sequences and optionals: containers
    "SplitToSequence", "ConcatFromSequence", "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceInsert",
    "SequenceErase", "SequenceLength", "Optional", "OptionalGetElement", "OptionalHasElement",
}
"""ONNX operators whose outputs are their inputs' values moved, copied or selected, or values made from sizes and
attributes: 0 FLOP in both conventions (an embedding lookup is a Gather). Written from the operators' definitions;
an operator that computes from its inputs' values (Add, Where, Clip, a reduction) is not here."""


def test_free_operators_only_move_select_or_create_values():
    assert sorted(FREE - MOVES_SELECTS_OR_CREATES) == []
    assert sorted(FREE & set(COSTS)) == []


def test_free_operators_are_counted_as_free():
    # a Transpose and a Gather between two products: counted nodes, no row, 0 FLOP
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("Gather", ["t", "i"], ["y"], axis=0)]
    g = helper.make_graph(nodes, "g", [value("x", [3, 5])], [value("y", None)], initializer=[tensor("i", [2], I64,
                                                                                                     [0, 1])])
    c = counted(helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)]))
    assert (c.free_nodes, c.rows, c.macs, c.extra_flop, c.unknown_ops) == (2, [], 0, 0, {})
