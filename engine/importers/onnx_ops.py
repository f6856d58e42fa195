"""What each ONNX operator costs, from its inputs' and outputs' shapes (after shape inference).

One function per family of operators returns ``(macs, extra_flop)`` for one node: ``macs`` are the
multiply-accumulates (``matmul`` FLOP = 2·MACs, as ``FlopCounterMode`` counts matrix products, convolutions
and attention), ``extra_flop`` what the ``full`` convention adds (``engine.method1.conventions``: bias adds,
element-wise operations, activations, softmax, normalisation, pooling, interpolation).

Symbols: ``|Y|`` the number of values of the output Y, ``K`` the contracted length.
MatMul and Gemm: |Y|·K MACs. Conv: |Y|·(C/g)·∏k. ConvTranspose: |X|·(D/g)·∏k. RNN/GRU/LSTM: T·B·(|W| + |R|)
per direction, W and R holding all gates. Einsum: ∏ of every index's size (two operands). Attention:
B·H·L·S·(E + Eᵥ) (scores and the weighted sum).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..method1.conventions import (
    ACTIVATION_FLOP,
    ATTENTION_SCALE_FLOP_PER_SCORE,
    BILINEAR_FLOP_PER_ELEMENT,
    MERGE_FLOP_PER_ELEMENT,
    NORM_AFFINE_FLOP_PER_ELEMENT,
    NORM_FLOP_PER_ELEMENT,
)
from ..method1.ops import RMS_NORM_FLOP_PER_ELEMENT, RMS_NORM_GAIN_FLOP_PER_ELEMENT, prod
from ..method1.sequence_layers import GRU, LSTM, RNN

Shape = tuple[int, ...]


class Node:
    """What a cost function sees of a node: its inputs' and outputs' shapes (None where not known or absent),
    which optional inputs are given (``present``) and its attributes (plain Python values)."""

    __slots__ = ("op", "inputs", "present", "outputs", "attrs")

    def __init__(self, op: str, inputs: Sequence[Shape | None], outputs: Sequence[Shape | None], attrs: dict,
                 present: Sequence[bool] | None = None):
        self.op, self.inputs, self.outputs, self.attrs = op, list(inputs), list(outputs), attrs
        self.present = list(present) if present is not None else [s is not None for s in self.inputs]

    def input(self, i: int) -> Shape | None:
        return self.inputs[i] if i < len(self.inputs) else None

    def has_input(self, i: int) -> bool:
        return i < len(self.present) and self.present[i]


class ShapeUnknown(Exception):
    """A shape the cost needs is not known (shape inference could not tell it)."""


def _need(shape: Shape | None) -> Shape:
    if shape is None:
        raise ShapeUnknown
    return shape


def _y(node: Node) -> int:
    return prod(_need(node.outputs[0] if node.outputs else None))


def _broadcast(shapes: Sequence[Shape | None]) -> Shape:
    """The shape numpy's broadcasting gives ``shapes`` (ValueError where they do not broadcast)."""
    shapes = [_need(s) for s in shapes]
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError("shapes do not broadcast")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _y_elementwise(node: Node) -> int:
    """|Y| of an element-wise node: its output's shape, or (where shape inference does not know the operator:
    onnxruntime's fused ones) its present inputs broadcast together."""
    if node.outputs and node.outputs[0] is not None:
        return prod(node.outputs[0])
    return prod(_broadcast([shape for shape, given in zip(node.inputs, node.present) if given]))


# ---------------------------------------------------------------- matrix products

_MATMUL_INPUTS = {"QLinearMatMul": (0, 3)}
"""Where A and B are for the quantised form (A, its scale and zero point, then B); the others: inputs 0 and 1."""


def matmul(node: Node):
    """MatMul (and its integer / quantised / fused forms): |Y|·K, K the last axis of A (the one before it where
    FusedMatMul transposes A). |Y| from the output's shape, or from A's and B's where onnx cannot infer it."""
    i, j = _MATMUL_INPUTS.get(node.op, (0, 1))
    a = _need(node.input(i))
    if len(a) >= 2 and node.attrs.get("transA", 0):
        a = (*a[:-2], a[-1], a[-2])
    k = a[-1] if a else 1
    if node.outputs and node.outputs[0] is not None:
        return _y(node) * k, 0
    b = _need(node.input(j))
    if len(b) >= 2 and node.attrs.get("transB", 0):
        b = (*b[:-2], b[-1], b[-2])
    if len(a) < 2 or len(b) < 2:
        raise ShapeUnknown
    return prod(_broadcast([a[:-2], b[:-2]])) * a[-2] * b[-1] * k, 0


def gemm(node: Node):
    """Y = α·A′·B′ + β·C: |Y|·K MACs; full: + |Y| for C (+ |Y| for α ≠ 1, + |Y| for β ≠ 1 with C)."""
    a = _need(node.input(0))
    if len(a) != 2:
        raise ShapeUnknown
    k = a[0] if node.attrs.get("transA", 0) else a[1]
    y = _y(node)
    extra = 0
    if node.has_input(2):
        extra += y * MERGE_FLOP_PER_ELEMENT
        if node.attrs.get("beta", 1.0) != 1.0:
            extra += y
    if node.attrs.get("alpha", 1.0) != 1.0:
        extra += y
    return y * k, extra


_CONV_INPUTS = {"Conv": (1, 2), "ConvInteger": (1, None), "QLinearConv": (3, 8)}
"""Where W and the bias are: QLinearConv's come after X's scale and zero point, ConvInteger has no bias (its
inputs 2 and 3 are zero points)."""


def conv(node: Node):
    """Conv: |Y|·(C/g)·∏k (W is [D, C/g, k…]); full: + |Y| for the bias."""
    weight, bias = _CONV_INPUTS[node.op]
    w = _need(node.input(weight))
    y = _y(node)
    return y * prod(w[1:]), (y if bias is not None and node.has_input(bias) else 0)


def conv_transpose(node: Node):
    """ConvTranspose: each input value into (D/g)·∏k outputs, |X|·(D/g)·∏k (W is [C, D/g, k…]); full: + |Y| bias."""
    x, w = _need(node.input(0)), _need(node.input(1))
    return prod(x) * prod(w[1:]), (_y(node) if node.has_input(2) else 0)


_RECURRENT = {"RNN": RNN, "GRU": GRU, "LSTM": LSTM}


def recurrent(node: Node):
    """RNN/GRU/LSTM over T steps, batch B: T·B·(|W| + |R|) MACs (W [dirs, G·H, N], R [dirs, G·H, H]); full: the
    same per-step gate arithmetic as the layer kinds (``engine.method1.layers``), × T·B·dirs."""
    x, w, r = _need(node.input(0)), _need(node.input(1)), _need(node.input(2))
    if len(x) != 3 or len(w) != 3:
        raise ShapeUnknown
    t, b = (x[1], x[0]) if node.attrs.get("layout", 0) else (x[0], x[1])
    dirs, hidden = w[0], r[-1]
    kind = _RECURRENT[node.op](units=hidden, bias=node.has_input(3))
    return t * b * (prod(w) + prod(r)), t * b * dirs * kind.step_extra_flop(hidden)


def einsum(node: Node):
    """Einsum of two operands: ∏ of every index's size (each output value sums over the contracted indices);
    of one operand: 0 MACs, full |X| (a sum or a copy); of more: contracted left to right."""
    equation = str(node.attrs.get("equation", "")).replace(" ", "")
    if "->" not in equation or "." in equation:
        raise ShapeUnknown
    lhs, out = equation.split("->")
    terms = lhs.split(",")
    if len(terms) != len(node.inputs):
        raise ShapeUnknown
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, node.inputs):
        shape = _need(shape)
        if len(term) != len(shape):
            raise ShapeUnknown
        for letter, size in zip(term, shape):
            sizes[letter] = max(sizes.get(letter, 1), size)
    if len(terms) == 1:
        return 0, prod(_need(node.inputs[0]))
    macs, left = 0, terms[0]
    for i, right in enumerate(terms[1:], start=1):
        letters = set(left) | set(right)
        macs += prod(sizes[c] for c in letters)
        rest = "".join(terms[i + 1:]) + out
        left = "".join(c for c in dict.fromkeys(left + right) if c in rest)
    return macs, 0


def attention(node: Node):
    """Attention (ONNX, opset 23; com.microsoft MultiHeadAttention): Q·Kᵀ and the weighted sum of V,
    B·H·L·S·(E + Eᵥ) MACs; full: softmax and scaling per score, (5 + 1)·B·H·L·S."""
    q, k, v = _need(node.input(0)), _need(node.input(1)), _need(node.input(2))
    if len(q) == 4 and len(k) == 4 and len(v) == 4:
        b, h, length, e = q
        s, ev = k[2], v[3]
        scores = b * h * length * s
        return scores * (e + ev), _softmax_scale(scores)
    if len(q) == 3 and len(k) == 3 and len(v) == 3:
        heads = node.attrs.get("q_num_heads") or node.attrs.get("num_heads")
        if not heads:
            raise ShapeUnknown
        b, length, d = q
        s, dv = k[1], v[2]
        scores = b * heads * length * s
        return b * length * s * (d + dv), _softmax_scale(scores)
    raise ShapeUnknown


def _softmax_scale(scores: int) -> int:
    return (ACTIVATION_FLOP["softmax"] + ATTENTION_SCALE_FLOP_PER_SCORE) * scores


# ---------------------------------------------------------------- normalisation, pooling, resizing

def _norm(per_element: int):
    def cost(node: Node):
        return 0, per_element * prod(_need(node.input(0)))
    cost.__doc__ = f"{per_element} FLOP per value (full)"
    return cost


NORM_AFFINE = NORM_FLOP_PER_ELEMENT + NORM_AFFINE_FLOP_PER_ELEMENT
"""Batch/layer/group/instance normalisation with γ and β: 5 + 2 FLOP per value (as the layer kinds)."""


def layer_norm(node: Node):
    """LayerNormalization: 5 FLOP per value, + 2 with γ and β (+ 1 with γ only)."""
    n = prod(_need(node.input(0)))
    return 0, n * (NORM_FLOP_PER_ELEMENT + (NORM_AFFINE_FLOP_PER_ELEMENT if node.has_input(2) else 1))


def rms_norm(node: Node):
    """RMSNormalization: 3 FLOP per value, + 1 with γ."""
    n = prod(_need(node.input(0)))
    return 0, n * (RMS_NORM_FLOP_PER_ELEMENT + (RMS_NORM_GAIN_FLOP_PER_ELEMENT if node.has_input(1) else 0))


def pool(per_window: int):
    def cost(node: Node):
        kernel = node.attrs.get("kernel_shape")
        if not kernel:
            raise ShapeUnknown
        return 0, _y(node) * (prod(kernel) + per_window)
    cost.__doc__ = f"|Y|·(∏k {per_window:+d}) (full; max: comparisons, average: adds and the divide)"
    return cost


def global_pool(node: Node):
    """GlobalAveragePool / GlobalMaxPool: one FLOP per input value (full)."""
    return 0, prod(_need(node.input(0)))


def resize(node: Node):
    """Resize / Upsample: nearest 0; linear 2^(a+1) − 1 per output value over a interpolated axes (bilinear 7);
    cubic 2·4^a − 1."""
    mode = node.attrs.get("mode", "nearest")
    if isinstance(mode, bytes):
        mode = mode.decode(errors="replace")
    if mode == "nearest":
        return 0, 0
    x, y = _need(node.input(0)), _need(node.outputs[0] if node.outputs else None)
    axes = sum(1 for a, b in zip(x, y) if a != b) or 1
    taps = (2 if mode == "linear" else 4) ** axes
    per = BILINEAR_FLOP_PER_ELEMENT if (mode == "linear" and axes == 2) else 2 * taps - 1
    return 0, prod(y) * per


# ---------------------------------------------------------------- element-wise

def elementwise(per_value: int):
    def cost(node: Node):
        return 0, per_value * _y_elementwise(node)
    cost.__doc__ = f"{per_value} FLOP per output value (full)"
    return cost


def variadic(node: Node):
    """Sum / Mean / Max / Min of n inputs: n − 1 per output value (+ 1 for Mean's divide)."""
    n = max(len(node.inputs), 1)
    return 0, _y(node) * (n - 1 + (1 if node.op == "Mean" else 0))


def reduce_input(node: Node):
    """Reductions (ReduceSum, ReduceMean…, ArgMax, CumSum): one FLOP per input value (full)."""
    return 0, prod(_need(node.input(0)))


def softmax(node: Node):
    """Softmax: max, subtract, exp, sum, divide, 5 per value; LogSoftmax + 1 (the log)."""
    return 0, (ACTIVATION_FLOP["softmax"] + (1 if node.op == "LogSoftmax" else 0)) * _y(node)


_ONE = ("Add", "Sub", "Mul", "Div", "Neg", "Abs", "Sqrt", "Reciprocal", "Exp", "Log", "Erf", "Sin", "Cos",
        "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round",
        "Sign", "Mod", "Pow", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
        "Not", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "IsNaN", "IsInf", "Relu",
        "PRelu", "LeakyRelu", "ThresholdedRelu", "Where", "Shrink", "Softsign", "Dropout")
"""One FLOP per output value: arithmetic, comparisons, a select (Where) and the simplest activations.
Dropout counts only in a training graph (an inference export has none)."""

COSTS: dict[str, Callable[[Node], tuple[int, int]]] = {
    "MatMul": matmul, "MatMulInteger": matmul, "QLinearMatMul": matmul, "FusedMatMul": matmul,
    "Gemm": gemm, "Conv": conv, "ConvInteger": conv, "QLinearConv": conv, "ConvTranspose": conv_transpose,
    "RNN": recurrent, "GRU": recurrent, "LSTM": recurrent, "Einsum": einsum,
    "Attention": attention, "MultiHeadAttention": attention,
    "BatchNormalization": _norm(NORM_AFFINE), "InstanceNormalization": _norm(NORM_AFFINE),
    "GroupNormalization": _norm(NORM_AFFINE), "LayerNormalization": layer_norm,
    "SkipLayerNormalization": _norm(NORM_AFFINE + 1), "RMSNormalization": rms_norm,
    "SimplifiedLayerNormalization": rms_norm, "LpNormalization": _norm(3),
    "MeanVarianceNormalization": _norm(NORM_FLOP_PER_ELEMENT),
    "MaxPool": pool(-1), "AveragePool": pool(0), "LpPool": pool(1),
    "GlobalAveragePool": global_pool, "GlobalMaxPool": global_pool, "GlobalLpPool": global_pool,
    "Resize": resize, "Upsample": resize,
    "Softmax": softmax, "LogSoftmax": softmax, "Hardmax": reduce_input,
    "Sum": variadic, "Mean": variadic, "Max": variadic, "Min": variadic,
    "ReduceSum": reduce_input, "ReduceMean": reduce_input, "ReduceMax": reduce_input, "ReduceMin": reduce_input,
    "ReduceProd": reduce_input, "ReduceL1": reduce_input, "ReduceL2": reduce_input,
    "ReduceSumSquare": reduce_input, "ReduceLogSum": reduce_input, "ReduceLogSumExp": reduce_input,
    "ArgMax": reduce_input, "ArgMin": reduce_input, "CumSum": reduce_input, "TopK": reduce_input,
    "Sigmoid": elementwise(ACTIVATION_FLOP["sigmoid"]), "Tanh": elementwise(ACTIVATION_FLOP["tanh"]),
    "Gelu": elementwise(ACTIVATION_FLOP["gelu"]), "FastGelu": elementwise(ACTIVATION_FLOP["gelu"]),
    "BiasGelu": elementwise(ACTIVATION_FLOP["gelu"] + 1), "QuickGelu": elementwise(ACTIVATION_FLOP["silu"]),
    "HardSigmoid": elementwise(ACTIVATION_FLOP["hardsigmoid"]), "HardSwish": elementwise(ACTIVATION_FLOP["hardswish"]),
    "Swish": elementwise(ACTIVATION_FLOP["silu"]), "Mish": elementwise(8), "Softplus": elementwise(3),
    "Elu": elementwise(4), "Selu": elementwise(5), "Celu": elementwise(5), "Clip": elementwise(2),
    "QuantizeLinear": elementwise(2), "DequantizeLinear": elementwise(2),
    **{op: elementwise(1) for op in _ONE},
}
"""The operators that do arithmetic, by ``op_type`` (any domain: com.microsoft's fused forms included)."""

FREE = frozenset({
    "Reshape", "Transpose", "Shape", "Size", "Gather", "GatherElements", "GatherND", "Concat", "Split",
    "Slice", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Constant", "ConstantOfShape", "Cast", "CastLike",
    "Expand", "Tile", "Pad", "Range", "DepthToSpace", "SpaceToDepth", "ScatterND", "ScatterElements", "Scatter",
    "NonZero", "Trilu", "OneHot", "EyeLike", "Compress", "ReverseSequence", "SplitToSequence", "ConcatFromSequence",
    "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase", "SequenceLength",
    "Optional", "OptionalGetElement", "OptionalHasElement", "RandomNormal", "RandomNormalLike", "RandomUniform",
    "RandomUniformLike", "Bernoulli", "Multinomial", "Col2Im", "CenterCropPad", "ChannelShuffle",
})
"""Operators that only move, select or create values: 0 FLOP in both conventions (an embedding lookup is a
Gather: its table's parameters count, its FLOP is 0)."""

STATE_INPUTS: dict[str, tuple[int, ...]] = {"BatchNormalization": (3, 4)}
"""Inputs that hold running statistics: buffers, not parameters (PyTorch's ``numel`` counts neither)."""

_REDUCE = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp")
CONSTANT_INPUTS: dict[str, tuple[int, ...]] = {
    "Resize": (1, 2, 3), "Upsample": (1,), "Reshape": (1,), "Slice": (1, 2, 3, 4), "Pad": (1, 2, 3), "Clip": (1, 2),
    "Expand": (1,), "Tile": (1,), "Squeeze": (1,), "Unsqueeze": (1,), "Split": (1,), "TopK": (1,),
    "ConstantOfShape": (0,), "Range": (0, 1, 2), "OneHot": (1, 2), "Where": (0,), "Pow": (1,), "CumSum": (1,),
    "Gather": (1,), "GatherElements": (1,), "GatherND": (1,), "ScatterND": (1,), "ScatterElements": (1,),
    "Trilu": (1,), "QuantizeLinear": (1, 2), "DequantizeLinear": (1, 2), **{op: (1,) for op in _REDUCE},
}
"""Inputs that hold sizes, indices, exponents or quantisation scales: constants of the graph, not parameters."""
SCALAR_WEIGHTS: dict[str, tuple[int, ...]] = {"PRelu": (1,)}
"""Where a one-value initializer is a parameter all the same (PReLU's one shared slope); elsewhere a one-value
initializer is an exporter's constant (a scale, an epsilon, a 1/√d), not a parameter."""
