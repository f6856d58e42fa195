"""Sequence kinds: recurrent layers (RNN, GRU, LSTM) that consume a sequence step by step, and attention over
the whole sequence ``[L, W]`` (one head, and multi-head as in ``nn.MultiheadAttention``).

Shapes and costs as in ``engine.method1.layers``: a ``Flow`` in, exact integer ``macs`` and ``extra_flop`` out.
"""

from typing import ClassVar, Literal

from .backward import Grad, product_grad
from .conventions import ACTIVATION_FLOP
from .layers import Flow, LayerBase, LayerCost, ShapeError, Size, as_sequence
from .ops import softmax_and_scale_flop


class _Recurrent(LayerBase):
    units: Size
    bias: bool = True
    bidirectional: bool = False
    return_sequences: bool = False
    gates: ClassVar[int] = 1  # weight blocks: RNN 1, GRU 3, LSTM 4

    def step_extra_flop(self, m: int) -> int:
        """Non-MAC FLOP of one step, one direction (``full`` convention)."""
        raise NotImplementedError

    def cost(self, flow: Flow) -> LayerCost:
        """Per step, per direction: G·(N·M + M²) MACs; PyTorch keeps two bias vectors (+2·G·M params)."""
        flow = as_sequence(flow)
        if flow.steps is None:
            raise ShapeError(f"needs a sequence, got {flow.describe()}; set input.sequence_length")
        n, m, g, t = self._vector(flow.item), self.units, self.gates, flow.steps
        dirs = 2 if self.bidirectional else 1
        params = dirs * g * (n * m + m * m + (2 * m if self.bias else 0))
        macs = dirs * t * g * (n * m + m * m)
        extra = dirs * t * self.step_extra_flop(m)
        out = Flow((dirs * m,), t if self.return_sequences else None)
        return LayerCost(out, params, macs, extra)

    def _bias_adds(self, m: int) -> int:
        return 2 * self.gates * m if self.bias else 0

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """Per step, per direction: the weight gradients G·(N·M + M²) when trainable; the input gradient
        G·N·M when the input needs one; the hidden state's G·M² at every step but the first (h₀ = 0) once
        the state needs a gradient (trainable, or a gradient-needing input)."""
        flow = as_sequence(flow)
        n, m, g, t = self._vector(flow.item), self.units, self.gates, flow.steps
        dirs = 2 if self.bidirectional else 1
        weights = trainable and cost.params > 0
        out = grad_in or weights
        macs = (cost.macs if weights else 0) + (dirs * t * g * n * m if grad_in else 0) \
            + (dirs * (t - 1) * g * m * m if out else 0)
        return Grad(macs, 2 * cost.extra_flop if out else 0, out, cost.params if trainable else 0)


class RNN(_Recurrent):
    """h = tanh(W_ih·x + b_ih + W_hh·h + b_hh)."""

    type: Literal["rnn"] = "rnn"
    gates: ClassVar[int] = 1
    kind_label: ClassVar[str] = "RNN"
    formula: ClassVar[str] = r"2 \cdot (N \cdot M + M^2) \text{ per time step}"

    def step_extra_flop(self, m):
        return self._bias_adds(m) + m + ACTIVATION_FLOP["tanh"] * m


class GRU(_Recurrent):
    """r, z = σ(…); n = tanh(W_in·x + b_in + r∘(W_hn·h + b_hn)); h = (1−z)∘n + z∘h."""

    type: Literal["gru"] = "gru"
    gates: ClassVar[int] = 3
    kind_label: ClassVar[str] = "GRU"
    formula: ClassVar[str] = r"6 \cdot (N \cdot M + M^2) \text{ per time step}"

    def step_extra_flop(self, m):
        sig, tanh = ACTIVATION_FLOP["sigmoid"], ACTIVATION_FLOP["tanh"]
        # r, z: add x and h parts (2M) + σ; n: r∘(…) and + (2M) + tanh; h update: 1−z, ∘n, z∘h, + (4M)
        return self._bias_adds(m) + 2 * m + 2 * sig * m + 2 * m + tanh * m + 4 * m


class LSTM(_Recurrent):
    """i, f, o = σ(…), g = tanh(…); c = f∘c + i∘g; h = o∘tanh(c)."""

    type: Literal["lstm"] = "lstm"
    gates: ClassVar[int] = 4
    kind_label: ClassVar[str] = "LSTM"
    formula: ClassVar[str] = r"8 \cdot (N \cdot M + M^2) \text{ per time step}"

    def step_extra_flop(self, m):
        sig, tanh = ACTIVATION_FLOP["sigmoid"], ACTIVATION_FLOP["tanh"]
        # add x and h parts (4M); 3 σ + 1 tanh; c update (3M); tanh(c) and o∘ (M)
        return self._bias_adds(m) + 4 * m + 3 * sig * m + tanh * m + 3 * m + tanh * m + m


# ---------------------------------------------------------------- attention

class SelfAttention(LayerBase):
    """One head over [L, W], key size D, value (and output) size N: params W·(2D+N);
    forward 2·L·W·(2D+N) + 2·L²·D + 2·L²·N per sequence."""

    type: Literal["self_attention"] = "self_attention"
    key_size: Size
    value_size: Size
    bias: bool = False
    kind_label: ClassVar[str] = "Self-attention"
    formula: ClassVar[str] = r"2 L W (2D + N) + 2 L^2 D + 2 L^2 N"

    def cost(self, flow: Flow) -> LayerCost:
        flow = as_sequence(flow)
        if flow.steps is None:
            raise ShapeError(f"needs a sequence [L, W], got {flow.describe()}; set input.sequence_length")
        w, length, d, n = self._vector(flow.item), flow.steps, self.key_size, self.value_size
        proj = 2 * d + n
        b = proj if self.bias else 0
        macs = length * w * proj + length * length * (d + n)
        extra = length * b + softmax_and_scale_flop(length * length)
        return LayerCost(Flow((n,), length), w * proj + b, macs, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """Projections as x·W; QKᵀ and AV: both operands' gradients once q, k, v need one."""
        flow = as_sequence(flow)
        w, length = self._vector(flow.item), flow.steps
        proj = length * w * (2 * self.key_size + self.value_size)
        projections = product_grad(proj, 0, cost.params, grad_in, trainable)
        products = 2 * (cost.macs - proj) if projections.out else 0
        return Grad(projections.macs + products, 2 * cost.extra_flop if projections.out else 0, projections.out,
                    projections.trainable_params)


class MultiHeadAttention(LayerBase):
    """H heads of (D, N) and an output projection to M; D = N = W/H and M = W by default
    (PyTorch's ``nn.MultiheadAttention``). Forward H·[2·L·W·(2D+N) + 2·L²·(D+N)] + 2·L·H·N·M."""

    type: Literal["multi_head_attention"] = "multi_head_attention"
    heads: Size
    key_size: Size | None = None
    value_size: Size | None = None
    output_size: Size | None = None
    bias: bool = True
    kind_label: ClassVar[str] = "Multi-head attention"
    formula: ClassVar[str] = r"H \left[ 2 L W (2D + N) + 2 L^2 (D + N) \right] + 2 L H N M"

    def sizes(self, w: int) -> tuple[int, int, int]:
        """(D, N, M) for input width W."""
        h = self.heads
        if (self.key_size is None or self.value_size is None) and w % h:
            raise ShapeError(f"head size W/H = {w}/{h} is not an integer; set key_size and value_size")
        d = self.key_size or w // h
        n = self.value_size or w // h
        return d, n, self.output_size or w

    def cost(self, flow: Flow) -> LayerCost:
        flow = as_sequence(flow)
        if flow.steps is None:
            raise ShapeError(f"needs a sequence [L, W], got {flow.describe()}; set input.sequence_length")
        w, length, h = self._vector(flow.item), flow.steps, self.heads
        d, n, m = self.sizes(w)
        proj = 2 * d + n
        params = h * w * proj + h * n * m + ((h * proj + m) if self.bias else 0)
        macs = h * (length * w * proj + length * length * (d + n)) + length * h * n * m
        extra = (length * (h * proj + m) if self.bias else 0) + softmax_and_scale_flop(h * length * length)
        return LayerCost(Flow((m,), length), params, macs, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """q, k, v projections and the output projection as x·W; QKᵀ and AV: both operands' gradients once
        the projections' outputs need one (then the output projection's input does too)."""
        flow = as_sequence(flow)
        w, length, h = self._vector(flow.item), flow.steps, self.heads
        d, n, m = self.sizes(w)
        qkv, out_proj = h * length * w * (2 * d + n), length * h * n * m
        weights = trainable and cost.params > 0
        inner = grad_in or weights  # q, k, v need a gradient
        macs = (qkv + out_proj if weights else 0) + (qkv if grad_in else 0)
        if inner:
            macs += 2 * (cost.macs - qkv - out_proj) + out_proj
        out = inner
        return Grad(macs, 2 * cost.extra_flop if out else 0, out, cost.params if trainable else 0)


SEQUENCE_KINDS: tuple[type[LayerBase], ...] = (RNN, GRU, LSTM, SelfAttention, MultiHeadAttention)
"""The seed's recurrent and attention kinds; ``engine.method1.kinds`` registers them after ``BASIC_KINDS``."""
