"""The two counting conventions, stated once.

``matmul``: multiply-accumulates × 2 only (1 MAC = 2 FLOP). Bias adds, element-wise products,
activations, softmax, scaling, norms and pooling count 0. This is what PyTorch's
``torch.utils.flop_counter.FlopCounterMode`` counts, and the seed's FC figure 2·N·M.

``full``: ``matmul`` plus every other arithmetic operation, one FLOP each, with transcendental
functions counted by the element-wise operations of their usual formula (table below).
The differences are small for wide layers and large for narrow ones.
"""
from __future__ import annotations

from typing import Literal

Convention = Literal["matmul", "full"]
CONVENTIONS: tuple[str, ...] = Convention.__args__
"""The conventions' names, for pickers and CLI choices."""

# FLOP per element under the ``full`` convention (exp, erf, tanh count 1 each inside their formula).
ACTIVATION_FLOP: dict[str, int] = {
    "relu": 1,      # max(0, x)
    "relu2": 2,     # max(0, x)², squared ReLU (Nemotron, Persimmon, Arcee): max, square
    "xielu": 6,     # xIELU (Apertus), its longer branch: (expm1(min(x, ε)) − x)·α_n + β·x: min, expm1, −, ×, ×, +
    "sigmoid": 4,   # 1 / (1 + exp(-x)): negate, exp, add, divide
    "softplus": 3,  # log(1 + exp(x)): exp, add, log
    "tanh": 5,      # (exp(2x) - 1) / (exp(2x) + 1): multiply, exp, subtract, add, divide
    "gelu": 5,      # 0.5·x·(1 + erf(x/√2)), PyTorch's default: ×(1/√2), erf, +1, ×x, ×0.5
    "silu": 5,      # x · sigmoid(x)
    "softmax": 5,   # max, subtract, exp, sum, divide
    "relu6": 2,     # min(max(0, x), 6)
    "hardswish": 5,     # x · min(max(x + 3, 0), 6) / 6: add, max, min, multiply, divide
    "hardsigmoid": 4,   # min(max(x + 3, 0), 6) / 6: add, max, min, divide
}
NORM_FLOP_PER_ELEMENT = 5         # mean (add), centre (subtract), square, variance (add), normalise
NORM_AFFINE_FLOP_PER_ELEMENT = 2  # × gamma, + beta
DROPOUT_FLOP_PER_ELEMENT = 1      # training-time mask multiply (the 1/(1-p) scale folds into it)
ATTENTION_SCALE_FLOP_PER_SCORE = 1  # QKᵀ / √D
MERGE_FLOP_PER_ELEMENT = 1         # adding or multiplying two tensors: one FLOP per output value per extra input
BILINEAR_FLOP_PER_ELEMENT = 7      # w00·a + w01·b + w10·c + w11·d: 4 multiplies, 3 adds per output value

# The backward pass (``engine.method1.backward``). ``matmul``: only the gradient products count.
# ``full``: the non-matmul work of a layer (bias adds, activations, norms, softmax…) counts again twice
# whenever a gradient passes through the layer: once for its derivative, once for the product with the
# incoming gradient (ReLU: a mask and a multiply; a bias: the sum of its gradient over positions).
BACKWARD_EXTRA_FACTOR = 2
# Merges: ``add`` passes the gradient on unchanged to each input (0); ``multiply`` multiplies it by the
# other input for each input that needs a gradient (1 per output value each); ``concat`` splits it (0).
MERGE_BACKWARD_FLOP_PER_ELEMENT = {"add": 0, "multiply": 1, "concat": 0}
