"""The layer library: each kind knows its parameters, its forward FLOP and its output shape.

Shapes are channels-last, as in the seed: images ``[H, W, C]``, vectors ``[N]``, 1-D signals
``[L, C]``, volumes ``[D, H, W, C]``. A ``Flow`` is what runs between layers: one item shape and,
for a sequence input, its number of steps T. Per-item layers run once per step (their cost × T);
recurrent layers consume the sequence; attention layers take the whole sequence ``[L, W]``
(those two in ``engine.method1.sequence_layers``).

Costs are exact integers: ``macs`` (multiply-accumulates; ``matmul`` FLOP = 2·macs) and
``extra_flop`` (everything else the ``full`` convention adds; see ``engine.method1.conventions``).
Adding a kind = one class with ``item_cost`` (or ``cost``) here, listed in ``BASIC_KINDS`` (the registry,
``engine.method1.kinds``, builds the scenario's tagged union from it).
"""

from typing import Annotated, ClassVar, Literal, NamedTuple, Union

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from .backward import Grad, LoRA, lora_cost, parts_grad, product_grad
from .ops import dense_cost, layer_norm_cost, prod
from .conventions import (
    ACTIVATION_FLOP,
    DROPOUT_FLOP_PER_ELEMENT,
)

MAX_SIZE = 10**9
"""Upper bound of any one size (units, filters, a dimension): beyond it an input is absurd."""

Size = Annotated[int, Field(ge=1, le=MAX_SIZE)]
Sizes = Union[Size, list[Size]]
Padding = Union[Annotated[int, Field(ge=0, le=MAX_SIZE)], list[Annotated[int, Field(ge=0, le=MAX_SIZE)]],
                Literal["same", "valid"]]


class ShapeError(ValueError):
    """A layer cannot take the shape it is given; the architecture adds the layer's index."""


class Flow(NamedTuple):
    """What runs between layers: ``item`` shape, and ``steps`` T for a sequence (None if not)."""

    item: tuple[int, ...]
    steps: int | None = None

    @property
    def shape(self) -> list[int]:
        """The shape as shown: ``[T, *item]`` for a sequence."""
        return ([self.steps] if self.steps else []) + list(self.item)

    def describe(self) -> str:
        item = "[" + ", ".join(str(d) for d in self.item) + "]"
        return f"{self.steps} × {item}" if self.steps else item


class Part(NamedTuple):
    """A sub-layer of a composite kind (a transformer block's attention, feed-forward…), one table row.

    For the backward pass (``engine.method1.backward.parts_grad``) it is a node of a data-flow graph: ``op``
    (``linear`` x·W, ``product`` of two activations, ``none``, ``lora``), the tensors it reads (``src``) and
    writes (``dst``), those added into its output (``also``), ``frozen`` weights (LoRA-adapted), ``in_macs``
    (a LoRA adapter's A), ``dims`` and ``role`` (what LoRA targets name: q, kv, o, gate, up, down…)."""

    name: str
    params: int
    macs: int
    extra_flop: int
    active_params: int | None = None
    op: str = "linear"
    src: tuple[str, ...] = ("x",)
    dst: tuple[str, ...] = ("x",)
    also: tuple[str, ...] = ()
    frozen: bool = False
    in_macs: int = 0
    role: str = ""
    dims: tuple[int, int, int] = (0, 0, 0)
    """A projection's (N inputs, M outputs, positions)."""


class LayerCost(NamedTuple):
    """One layer's cost for one example (a whole sequence where there is one).

    ``active_params``: the parameters one example goes through, where fewer than ``params``
    (mixture of experts). ``parts``: rows of a composite kind; their sums are the layer's figures.
    """

    out: Flow
    params: int
    macs: int
    extra_flop: int
    active_params: int | None = None
    parts: tuple[Part, ...] = ()


def _shape(item: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in item) + "]"


class LayerBase(BaseModel):
    """Common fields; subclasses set ``type`` and implement ``item_cost`` or ``cost``. A kind's validator is built
    on first use (``defer_build``): an input builds only the kinds it names (``engine.deferred``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    name: str = Field("", max_length=200, description="Optional label, shown as plain text.")
    trainable: bool | None = Field(
        None, description="false: the weights are frozen (no weight gradients). On a block, applies to the layers "
                          "inside it unless one says otherwise; unset: as the enclosing block (trainable at the top).")

    kind_label: ClassVar[str] = ""
    is_block: ClassVar[bool] = False
    """True for the kinds that hold layer lists (``engine.method1.blocks``): the architecture walks into them."""
    formula: ClassVar[str] = ""
    """LaTeX of the forward FLOP in the seed's symbols (``matmul`` convention)."""

    @model_serializer(mode="wrap")
    def _with_type(self, handler):
        """A dump always carries ``type`` (the union's tag), even with ``exclude_defaults`` and inside blocks."""
        data = handler(self)
        return {"type": self.type, **data} if isinstance(data, dict) else data

    def item_cost(self, item: tuple[int, ...]) -> tuple[tuple[int, ...], int, int, int]:
        """(output item, params, macs, extra_flop) for one item; per-item layers implement this."""
        raise NotImplementedError

    def cost(self, flow: Flow) -> LayerCost:
        """Per-item layers run once per step of a sequence: their cost × T."""
        out, params, macs, extra = self.item_cost(flow.item)
        t = flow.steps or 1
        return LayerCost(Flow(out, flow.steps), params, macs * t, extra * t)

    def backward(self, flow: Flow, cost: LayerCost, grad_in: bool, trainable: bool, memory_grad: bool = False) -> Grad:
        """This layer's backward pass (``engine.method1.backward``): every MAC is an x·W product by default,
        so the weight gradient (when trainable) and the input gradient (when ``grad_in``) cost the forward's.
        A kind with parts: their data flow (``Part``'s ``op``, ``src``, ``dst``)."""
        if cost.parts:
            return parts_grad(cost.parts, grad_in, trainable, memory_grad)
        return product_grad(cost.macs, cost.extra_flop, cost.params, grad_in, trainable)

    adapted: ClassVar[bool] = False
    """True when a LoRA adapter freezes some of this layer's weights (a property on the kinds that take one)."""
    starts_decoder: ClassVar[bool] = False
    """True for the layer where a decoder's own tokens start (the encoder's output becomes the memory)."""

    # helpers shared by the kinds
    def _vector(self, item: tuple[int, ...]) -> int:
        if len(item) != 1:
            raise ShapeError(f"expects a vector [N], got {_shape(item)}; add a flatten layer before it"
                             + (" (or set per_position)" if self.type == "dense" else ""))
        return item[0]


# ---------------------------------------------------------------- fully connected, embedding

class Dense(LayerBase):
    """Fully connected N→M: params N·M + M, forward 2·N·M. With ``per_position`` it maps the last axis of
    any item at each of its P positions (``nn.Linear`` on a channels-last grid): forward 2·P·N·M. With ``lora``
    (rank r) the weights are frozen and an adapter adds r·(N + M) params and 2·r·(N + M) FLOP per position
    (full: + scale and add, 2·M)."""

    type: Literal["dense"] = "dense"
    units: Size
    bias: bool = True
    per_position: bool = Field(False, description="Apply to the channels (last axis) at every position of a "
                                                   "grid, as Swin's and ConvNeXt's MLPs do.")
    lora: LoRA | None = Field(None, description="A trainable low-rank adapter beside the frozen weights.")
    kind_label: ClassVar[str] = "Fully connected"
    formula: ClassVar[str] = r"2 \cdot N \cdot M \quad (\times P \text{ positions per item})"

    def item_cost(self, item):
        if self.per_position:
            positions, n, out = prod(item[:-1]), item[-1], item[:-1] + (self.units,)
        else:
            positions, n, out = 1, self._vector(item), (self.units,)
        params, macs, extra = dense_cost(n, self.units, self.bias)
        if self.lora is not None:
            lp, a, b = lora_cost(n, self.units, self.lora.rank)
            params, macs, extra = params + lp, macs + a + b, extra + 2 * self.units
        return out, params, positions * macs, positions * extra

    @property
    def adapted(self) -> bool:
        return self.lora is not None

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        if self.lora is None:
            return super().backward(flow, cost, grad_in, trainable)
        item = flow.item
        n = item[-1] if self.per_position else self._vector(item)
        t = (flow.steps or 1) * (prod(item[:-1]) if self.per_position else 1)
        m, r = self.units, self.lora.rank
        params, a, b = lora_cost(n, m, r)
        base = n * m
        # A and B trained (a + b); B's input always (b); the frozen W's and A's inputs when needed
        macs = t * (a + b + b + ((base + a) if grad_in else 0))
        return Grad(macs, 2 * cost.extra_flop, True, params)


class Embedding(LayerBase):
    """Lookup table V×d: params V·d, no arithmetic. Item [1] (a token) → [d]; [N] → [N, d]."""

    type: Literal["embedding"] = "embedding"
    vocab_size: Size
    dim: Size
    kind_label: ClassVar[str] = "Embedding"
    formula: ClassVar[str] = r"0 \quad (\text{a table lookup; } V \cdot d \text{ parameters})"

    def item_cost(self, item):
        n = self._vector(item)
        out = (self.dim,) if n == 1 else (n, self.dim)
        return out, self.vocab_size * self.dim, 0, 0

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """Token ids are integers: no gradient flows into them; the table's gradient is a scatter-add (full:
        one add per looked-up value), no multiply-accumulates."""
        return Grad(0, cost.extra_flop + prod(cost.out.shape) if trainable else 0, trainable,
                    cost.params if trainable else 0)


# ---------------------------------------------------------------- convolutions

def _per_dim(value, d: int, field: str) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * d
    if len(value) != d:
        raise ShapeError(f"{field} has {len(value)} values, expected 1 or {d}")
    return tuple(value)


class _ConvBase(LayerBase):
    filters: Size
    kernel_size: Sizes
    stride: Sizes = 1
    padding: Padding = 0
    dilation: Sizes = 1
    groups: Size = 1
    bias: bool = True
    dims: ClassVar[int] = 2

    def _geometry(self, item):
        d = self.dims
        if len(item) != d + 1:
            expected = {1: "[L, C]", 2: "[H, W, C]", 3: "[D, H, W, C]"}[d]
            raise ShapeError(f"expects {expected} (channels last), got {_shape(item)}")
        spatial, c = item[:d], item[d]
        k = _per_dim(self.kernel_size, d, "kernel_size")
        s = _per_dim(self.stride, d, "stride")
        dil = _per_dim(self.dilation, d, "dilation")
        g = self.groups
        if c % g or self.filters % g:
            raise ShapeError(f"groups {g} must divide input channels C = {c} and filters D = {self.filters}"
                             "")
        return spatial, c, k, s, dil, g


class _Conv(_ConvBase):
    """Convolution: params D·K^d·C/g + D; forward 2·H′·W′·D·K²·C/g (H′ = ⌊(H+2P−dil·(K−1)−1)/S⌋+1)."""

    formula: ClassVar[str] = (r"2 \cdot H' \cdot W' \cdot D \cdot K^2 \cdot C / g, \quad "
                               r"H' = \left\lfloor \frac{H + 2P - d(K-1) - 1}{S} \right\rfloor + 1")

    def item_cost(self, item):
        spatial, c, k, s, dil, g = self._geometry(item)
        if self.padding == "same":
            if any(x != 1 for x in s):
                raise ShapeError("padding 'same' needs stride 1")
            out_spatial = spatial
        else:
            p = (0,) * self.dims if self.padding == "valid" else _per_dim(self.padding, self.dims, "padding")
            out_spatial = []
            for size, kk, ss, pp, dd in zip(spatial, k, s, p, dil):
                span = dd * (kk - 1) + 1
                if size + 2 * pp < span:
                    raise ShapeError(f"kernel {kk} (dilation {dd}, span {span}) is larger than the padded "
                                     f"input {size} + 2·{pp}")
                out_spatial.append((size + 2 * pp - span) // ss + 1)
        taps = prod(k) * (c // g)  # multiply-accumulates per output value
        out = tuple(out_spatial) + (self.filters,)
        n_out = prod(out)
        return out, self.filters * taps + (self.filters if self.bias else 0), n_out * taps, \
            (n_out if self.bias else 0)


class Conv1d(_Conv):
    type: Literal["conv1d"] = "conv1d"
    dims: ClassVar[int] = 1
    kind_label: ClassVar[str] = "CNN (1-D)"
    formula: ClassVar[str] = r"2 \cdot L' \cdot D \cdot K \cdot C / g"


class Conv2d(_Conv):
    type: Literal["conv2d"] = "conv2d"
    dims: ClassVar[int] = 2
    kind_label: ClassVar[str] = "CNN (2-D)"


class Conv3d(_Conv):
    type: Literal["conv3d"] = "conv3d"
    dims: ClassVar[int] = 3
    kind_label: ClassVar[str] = "CNN (3-D)"
    formula: ClassVar[str] = r"2 \cdot D' \cdot H' \cdot W' \cdot F \cdot K^3 \cdot C / g"


class ConvTranspose2d(_ConvBase):
    """Transposed convolution: each input pixel × each tap, 2·H·W·C·K²·D/g; output (H−1)·S−2P+dil·(K−1)+op+1."""

    type: Literal["conv_transpose2d"] = "conv_transpose2d"
    padding: Union[Annotated[int, Field(ge=0, le=MAX_SIZE)], list[Annotated[int, Field(ge=0, le=MAX_SIZE)]]] = 0
    output_padding: Union[Annotated[int, Field(ge=0, le=MAX_SIZE)], list[Annotated[int, Field(ge=0, le=MAX_SIZE)]]] = 0
    dims: ClassVar[int] = 2
    kind_label: ClassVar[str] = "Transposed CNN"
    formula: ClassVar[str] = (r"2 \cdot H \cdot W \cdot C \cdot K^2 \cdot D / g, \quad "
                               r"H' = (H-1) \cdot S - 2P + d(K-1) + p_{out} + 1")

    def item_cost(self, item):
        spatial, c, k, s, dil, g = self._geometry(item)
        p = _per_dim(self.padding, 2, "padding")
        op = _per_dim(self.output_padding, 2, "output_padding")
        out_spatial = []
        for size, kk, ss, pp, oo, dd in zip(spatial, k, s, p, op, dil):
            if oo >= max(ss, dd):
                raise ShapeError(f"output_padding {oo} must be smaller than stride {ss} or dilation {dd}")
            o = (size - 1) * ss - 2 * pp + dd * (kk - 1) + oo + 1
            if o < 1:
                raise ShapeError(f"padding {pp} leaves no output (output size {o})")
            out_spatial.append(o)
        taps = prod(k) * (self.filters // g)  # each input value scatters into these outputs
        out = tuple(out_spatial) + (self.filters,)
        n_out = prod(out)
        return out, c * taps + (self.filters if self.bias else 0), prod(spatial) * c * taps, \
            (n_out if self.bias else 0)


# ---------------------------------------------------------------- pooling, reshaping, element-wise

class _Pool2d(LayerBase):
    """Output H′ = ⌊(H + 2P − K)/S⌋ + 1, or with ``ceil_mode`` ⌈(H + 2P − K)/S⌉ + 1 less the last window
    when it would start in the right padding (PyTorch's rule: dropped when (H′ − 1)·S ≥ H + P)."""

    kernel_size: Sizes
    stride: Sizes | None = None
    padding: Union[Annotated[int, Field(ge=0, le=MAX_SIZE)], list[Annotated[int, Field(ge=0, le=MAX_SIZE)]]] = 0
    ceil_mode: bool = Field(False, description="Round the output size up: a last, partial window covers the "
                                                "rest of the input (GoogLeNet's pools).")
    per_window_flop: ClassVar[int] = 0  # added to K² (max: K²−1 comparisons; avg: K²−1 adds + 1 divide)

    def item_cost(self, item):
        if len(item) != 3:
            raise ShapeError(f"expects [H, W, C] (channels last), got {_shape(item)}")
        k = _per_dim(self.kernel_size, 2, "kernel_size")
        s = k if self.stride is None else _per_dim(self.stride, 2, "stride")
        p = _per_dim(self.padding, 2, "padding")
        out_spatial = []
        for size, kk, ss, pp in zip(item[:2], k, s, p):
            if 2 * pp > kk:
                raise ShapeError(f"padding {pp} must be at most half the kernel {kk}")
            o = pool_output_size(size, kk, ss, pp, self.ceil_mode)
            if o < 1:
                raise ShapeError(f"kernel {kk} is larger than the padded input {size} + 2·{pp}")
            out_spatial.append(o)
        out = tuple(out_spatial) + (item[2],)
        return out, 0, 0, prod(out) * (prod(k) + self.per_window_flop)


def pool_output_size(size: int, k: int, s: int, p: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size (``pooling_output_shape``): ⌊(H + 2P − K [+ S − 1])/S⌋ + 1, and with
    ``ceil_mode`` one less when the last window would start in the padding."""
    out = (size + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


class MaxPool2d(_Pool2d):
    type: Literal["max_pool2d"] = "max_pool2d"
    per_window_flop: ClassVar[int] = -1
    kind_label: ClassVar[str] = "Max pooling"
    formula: ClassVar[str] = r"0 \quad (\text{full: } H' W' C (K^2 - 1) \text{ comparisons})"


class AvgPool2d(_Pool2d):
    type: Literal["avg_pool2d"] = "avg_pool2d"
    per_window_flop: ClassVar[int] = 0
    kind_label: ClassVar[str] = "Average pooling"
    formula: ClassVar[str] = r"0 \quad (\text{full: } H' W' C \cdot K^2)"


class Flatten(LayerBase):
    type: Literal["flatten"] = "flatten"
    kind_label: ClassVar[str] = "Flatten"
    formula: ClassVar[str] = r"0"

    def item_cost(self, item):
        return (prod(item),), 0, 0, 0


class Dropout(LayerBase):
    type: Literal["dropout"] = "dropout"
    rate: float = Field(0.5, ge=0.0, lt=1.0)
    kind_label: ClassVar[str] = "Dropout"
    formula: ClassVar[str] = r"0 \quad (\text{full: one multiply per element})"

    def item_cost(self, item):
        return item, 0, 0, DROPOUT_FLOP_PER_ELEMENT * prod(item)


class Activation(LayerBase):
    type: Literal["activation"] = "activation"
    function: Literal["relu", "gelu", "tanh", "sigmoid", "silu", "softmax", "relu6", "hardswish",
                      "hardsigmoid"] = "relu"
    kind_label: ClassVar[str] = "Activation"
    formula: ClassVar[str] = r"0 \quad (\text{full: } c_f \text{ per element})"

    def item_cost(self, item):
        return item, 0, 0, ACTIVATION_FLOP[self.function] * prod(item)


class _Norm(LayerBase):
    affine: bool = True

    def _norm_cost(self, item, channels: int):
        return (item, *layer_norm_cost(prod(item), channels, self.affine))


class LayerNorm(_Norm):
    """Normalises over the last axis; params 2·(last axis) with the affine γ, β (γ only without ``bias``)."""

    type: Literal["layer_norm"] = "layer_norm"
    bias: bool = True
    kind_label: ClassVar[str] = "Layer norm"
    formula: ClassVar[str] = r"0 \quad (\text{full: } 7 \text{ per element})"

    def item_cost(self, item):  # γ without β (MPT): one parameter and one multiply per element
        return (item, *layer_norm_cost(prod(item), item[-1], self.affine, self.bias))


class BatchNorm(_Norm):
    """Per-channel (last axis) statistics; params 2·C (running statistics are buffers, not parameters)."""

    type: Literal["batch_norm"] = "batch_norm"
    kind_label: ClassVar[str] = "Batch norm"
    formula: ClassVar[str] = r"0 \quad (\text{full: } 7 \text{ per element})"

    def item_cost(self, item):
        return self._norm_cost(item, item[-1])


# ---------------------------------------------------------------- recurrent

def as_sequence(flow: Flow) -> Flow:
    """A 2-D item [L, W] with no sequence around it is read as a sequence of L vectors [W]."""
    if flow.steps is None and len(flow.item) == 2:
        return Flow((flow.item[1],), flow.item[0])
    return flow


def sequence_dims(flow: Flow, needs: str = "a sequence of vectors [L, d]",
                  hint: str = "; set input.sequence_length") -> tuple[int, int]:
    """(d, L) of a sequence of L vectors [d] (a 2-D item read as one, ``as_sequence``), or a ``ShapeError``
    saying what the layer ``needs``."""
    flow = as_sequence(flow)
    if flow.steps is None or len(flow.item) != 1:
        raise ShapeError(f"needs {needs}, got {flow.describe()}{hint}")
    return flow.item[0], flow.steps


# ---------------------------------------------------------------- the basic kinds

BASIC_KINDS: tuple[type[LayerBase], ...] = (
    Dense, Conv1d, Conv2d, Conv3d, ConvTranspose2d, Embedding, LayerNorm, BatchNorm, Activation, MaxPool2d, AvgPool2d,
    Flatten, Dropout,
)
"""The seed's table and the usual extras; ``engine.method1.kinds`` adds the sequence and composite kinds."""
