"""An architecture (input + layers) and its per-layer costs: shapes propagated layer by layer."""

from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .conventions import MERGE_BACKWARD_FLOP_PER_ELEMENT, Convention
from ..errors import InputError
from .blocks import MAX_EVALUATIONS, MAX_LAYERS, Layer, NestedLayers
from .ops import prod
from .layers import MAX_SIZE, Flow, ShapeError
from ..results import Result, to_json
from ..units import FLOP_PER_MAC, format_int

__all__ = ["MAX_LAYERS", "Architecture", "ArchitectureResult", "BlockRow", "InputSpec", "LayerRow", "evaluate"]
MAX_ELEMENTS = 10**15
"""An input of more values than this per example is absurd (a 10-terabyte example)."""
MAX_COUNT = 2**63 - 1
"""The largest parameter, MAC or FLOP count per example a result holds: a table column (Arrow's int64) and
every JSON reader take it; a layer list whose counts pass it is refused at the layer that passes it."""


class InputSpec(BaseModel):
    """One example: an item of ``shape`` (channels last), or a sequence of ``sequence_length`` T items."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    shape: Annotated[list[Annotated[int, Field(ge=1, le=MAX_SIZE)]], Field(min_length=1, max_length=4)]
    sequence_length: Annotated[int, Field(ge=1, le=MAX_SIZE)] | None = None

    @model_validator(mode="after")
    def _bounded(self):
        try:
            self.flow()  # more than MAX_ELEMENTS values per example: refused where the input is read
        except InputError as exc:
            raise InputError("shape", exc.reason) from None
        return self

    def flow(self) -> Flow:
        n = 1
        for d in self.shape:
            n *= d
        if n * (self.sequence_length or 1) > MAX_ELEMENTS:
            raise InputError("input.shape", f"{format_int(n * (self.sequence_length or 1))} values per example "
                                            f"is more than the {format_int(MAX_ELEMENTS)} this tool accepts")
        return Flow(tuple(self.shape), self.sequence_length)


class Architecture(NestedLayers):
    """The input and the layers, in order. Its validator is built on first use (``defer_build``): a scenario's
    estimate makes one without validation (``Scenario.architecture``), so ``flops`` never needs it (5 ms)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    input: InputSpec
    layers: Annotated[list[Layer], Field(max_length=MAX_LAYERS)]


@dataclass(slots=True)
class LayerRow(Result):
    """One layer's result, per example (the whole sequence where there is one). Not frozen: the walk
    multiplies a repeat's rows by its copies and sets each row's share once the total is known.

    Inside blocks, ``path`` names the layer (``layers[3].branches[1][2]``), ``depth`` counts the blocks
    around it and ``index`` is the top-level layer it belongs to. ``copies``: the copies of a repeat
    this row stands for (its figures are their sum); ``copy``: the first of them (0-based).
    """

    index: int
    type: str
    name: str
    output_shape: list[int]
    steps: int | None
    params: int
    macs: int
    forward_flop: int
    part: str = ""
    """The sub-layer, for a composite kind's rows (same index, one row per part)."""
    active_params: int | None = None
    share: float = 0.0
    path: str = ""
    depth: int = 0
    copies: int = 1
    copy: int = 0
    backward_flop: int = 0
    """The backward pass through this layer (``engine.method1.backward``): weight gradients when trainable,
    input gradients when something before it needs one."""
    trainable_params: int = 0

    @property
    def output(self) -> str:
        """The output shape as shown: 'T × [item]' for a sequence."""
        item = self.output_shape[1:] if self.steps else self.output_shape
        return Flow(tuple(item), self.steps).describe()

    json_fields = ("index", "type", "name", "output_shape", "params", "macs", "forward_flop", "backward_flop",
                   "trainable_params", "part", "active_params", "path", "copies")
    json_omit_default = frozenset({"part", "active_params", "copies"})

    def as_dict(self) -> dict:
        """``Result.as_dict`` written out for this class (a 10,000-layer table's rows in a third of the time: its
        numbers and names are scalars, which ``to_json`` passes as they are); a top-level row's path left out (it
        only repeats its index)."""
        if type(self) is not LayerRow:
            out = Result.as_dict(self)
            if not self.depth:
                del out["path"]
            return out
        out = {"index": self.index, "type": self.type, "name": self.name, "output_shape": to_json(self.output_shape),
               "params": self.params, "macs": self.macs, "forward_flop": self.forward_flop,
               "backward_flop": self.backward_flop, "trainable_params": self.trainable_params}
        if self.part != "":
            out["part"] = to_json(self.part)
        if self.active_params is not None:
            out["active_params"] = to_json(self.active_params)
        if self.depth:
            out["path"] = to_json(self.path)
        if self.copies != 1:
            out["copies"] = to_json(self.copies)
        return out


@dataclass(slots=True)
class BlockRow(Result):
    """A block's subtotal: its rows ``rows[first:end]`` summed (all copies of a repeat included). Not frozen:
    a repeat's copies multiply it."""

    index: int
    path: str
    type: str
    name: str
    depth: int
    output_shape: list[int]
    steps: int | None
    params: int
    macs: int
    forward_flop: int
    first: int
    end: int
    copies: int = 1
    detail: str = ""
    """What kind of block, in words: 'n copies' (repeat), the merge (branches)."""
    backward_flop: int = 0
    trainable_params: int = 0

    json_fields = ("path", "type", "name", "output_shape", "params", "macs", "forward_flop", "backward_flop",
                   "trainable_params")


@dataclass(slots=True)
class ArchitectureResult(Result):
    """Totals and rows; ``error`` is set (and rows stop) at the first layer that cannot take its input.
    Not frozen: ``evaluate`` fills it in once the walk is done (or stopped).

    ``rows``: one per layer (per part of a composite kind), blocks walked into, in order; their sums are
    the totals. ``blocks``: one subtotal per block, in the order the blocks open."""

    convention: str
    input: str
    rows: list[LayerRow] = field(default_factory=list)
    params: int = 0
    active_params: int = 0
    """Parameters one example goes through (fewer than ``params`` with mixture-of-experts layers)."""
    macs: int = 0
    forward_flop: int = 0
    error: InputError | None = None
    blocks: list[BlockRow] = field(default_factory=list)
    backward_flop: int = 0
    """The backward pass per example, layer by layer (``engine.method1.backward``)."""
    trainable_params: int = 0
    recompute_flop: int = 0
    """Forward FLOP of the layers the backward pass goes through: what activation recomputation runs again."""
    frozen: bool = False
    """True when some weights are frozen or adapted (LoRA): the backward pass is then counted exactly."""

    @property
    def backward_ratio(self) -> float | None:
        """The effective r = backward / forward."""
        return self.backward_flop / self.forward_flop if self.forward_flop else None


class Walker:
    """Walks a layer list into its blocks, appending rows and adding up the totals."""

    __slots__ = ("full", "rows", "blocks", "params", "active", "macs", "flop", "evaluations", "index", "depth",
                 "copy", "costs", "grad", "trainable", "memory_grad", "backward", "trained", "recompute", "frozen")

    def __init__(self, full: bool):
        self.full = full
        self.rows: list[LayerRow] = []
        self.blocks: list[BlockRow] = []
        self.params = self.active = self.macs = self.flop = self.evaluations = 0
        self.backward = self.trained = self.recompute = 0
        self.index = self.depth = self.copy = 0
        self.grad = False
        """Whether the flow here needs a gradient (data does not; a trainable layer's output does)."""
        self.trainable = True
        """The enclosing blocks' trainability, inherited by a layer that does not set its own."""
        self.memory_grad = False
        """Whether an encoder memory (cross-attention) needs a gradient."""
        self.frozen = False
        self.costs: dict = {}
        """(layer, input flow, gradient state) → its cost: a layer met again with the same input (a repeat's
        copies, DenseNet's inner layers) is not costed again."""

    def top(self, layers, flow: Flow) -> Flow:
        """The architecture's own list: ``index`` is each layer's position."""
        for i, layer in enumerate(layers):
            self.index = i
            flow = self.step(layer, flow, f"layers[{i}]")
        return flow

    def run(self, layers, flow: Flow, prefix: str, copy: int | None = None) -> Flow:
        """An inner list (a block's body, a branch, a repeated list): ``prefix[i]`` names each layer."""
        if copy is not None:
            outer, self.copy = self.copy, copy
        step = self.step
        for i, layer in enumerate(layers):
            flow = step(layer, flow, f"{prefix}[{i}]")
        if copy is not None:
            self.copy = outer
        return flow

    def step(self, layer, flow: Flow, path: str) -> Flow:
        if layer.is_block:  # a class attribute: pydantic's isinstance is slow
            return self.block(layer, flow, path, self.index, self.depth)
        self.evaluations += 1
        if self.evaluations > MAX_EVALUATIONS:
            raise InputError(path, f"more than {MAX_EVALUATIONS:,} layer evaluations (repeats whose copies keep "
                                   "changing shape count each copy)")
        trainable = self.trainable if layer.trainable is None else layer.trainable
        key = (type(layer), *layer.__dict__.values(), flow, self.grad, trainable, self.memory_grad)
        try:  # a layer of the same kind and fields as one met before, on the same input: costed once
            hit = self.costs.get(key)
        except TypeError:  # a field holds a list (kernel sizes, targets): the layer itself is the key
            key = (id(layer), flow, self.grad, trainable, self.memory_grad)
            hit = self.costs.get(key)
        if hit is None:
            try:
                cost = layer.cost(flow)
            except ShapeError as exc:
                raise InputError(path, f"{layer.type}: {exc} (input {flow.describe()})") from None
            shape = cost.out.shape
            if prod(shape) > MAX_ELEMENTS:
                raise InputError(path, f"{layer.type}: output {cost.out.describe()} has more than "
                                       f"{format_int(MAX_ELEMENTS)} values")
            flop = FLOP_PER_MAC * cost.macs + (cost.extra_flop if self.full else 0)
            active = cost.params if cost.active_params is None else cost.active_params
            grad = layer.backward(flow, cost, self.grad, trainable, self.memory_grad)
            backward = FLOP_PER_MAC * grad.macs + (grad.extra_flop if self.full else 0)
            hit = self.costs[key] = (cost, shape, flop, active, grad, backward)
        cost, shape, layer_flop, active, grad, backward = hit
        out = cost.out
        self.params += cost.params
        self.active += active
        self.macs += cost.macs
        self.flop += layer_flop
        self.backward += backward
        self.trained += grad.trainable_params
        if grad.out:
            self.recompute += layer_flop
        if not self.frozen and (grad.trainable_params < cost.params or layer.adapted):
            self.frozen = True
        if layer.starts_decoder:
            self.memory_grad = self.grad
        self.grad = grad.out
        if self.flop > MAX_COUNT or self.params > MAX_COUNT or self.backward > MAX_COUNT:
            self.too_large(path)  # before the row: a partial table (strict=False) holds only counts that fit
        append, index, depth, copy = self.rows.append, self.index, self.depth, self.copy
        if cost.parts:
            full = self.full
            for part, (b_macs, b_extra, b_params) in zip(cost.parts, grad.parts):
                append(LayerRow(index, layer.type, layer.name, shape, out.steps, part.params, part.macs,
                                FLOP_PER_MAC * part.macs + (part.extra_flop if full else 0), part.name,
                                part.active_params, 0.0, path, depth, 1, copy,
                                FLOP_PER_MAC * b_macs + (b_extra if full else 0), b_params))
        else:
            append(LayerRow(index, layer.type, layer.name, shape, out.steps, cost.params, cost.macs, layer_flop,
                            "", cost.active_params, 0.0, path, depth, 1, copy, backward, grad.trainable_params))
        return out

    def too_large(self, path: str) -> None:
        """The counts (every row's and subtotal's is at most the total) have passed ``MAX_COUNT``: one message.
        FLOP ≥ 2·MACs and parameters ≥ active parameters, so these three cover all five."""
        what, value = (("parameters", self.params) if self.params > MAX_COUNT else
                       ("forward FLOP per example", self.flop) if self.flop > MAX_COUNT else
                       ("backward FLOP per example", self.backward))
        raise InputError(path, f"the {what} reach {format_int(value)} here, more than the {format_int(MAX_COUNT)} "
                               "(2^63) a count can hold; check the sizes and the repeats' copies")

    def block(self, layer, flow: Flow, path: str, index: int, depth: int) -> Flow:
        """A block: its rows one level deeper, and its subtotal row (placed before its inner blocks')."""
        at, first = len(self.blocks), len(self.rows)
        before = (self.params, self.macs, self.flop, self.backward, self.trained)
        self.depth = depth + 1
        inherited = self.trainable
        if layer.trainable is not None:
            self.trainable = layer.trainable
        try:
            out = layer.walk(flow, path, self)
        finally:
            self.depth = depth
            self.trainable = inherited
        times = getattr(layer, "times", 1)
        detail = f"{times:,} copies" if times > 1 else getattr(layer, "merge", "")
        self.blocks.insert(at, BlockRow(index, path, layer.type, layer.name, depth, out.shape, out.steps,
                                        self.params - before[0], self.macs - before[1], self.flop - before[2],
                                        first, len(self.rows), 1, detail, self.backward - before[3],
                                        self.trained - before[4]))
        return out

    def merge_row(self, layer, path: str, out: Flow, extra_flop: int, grads: list[bool] | None = None) -> None:
        """The row where a block's inputs meet (``add``, ``concat``, ``multiply``): 0 MACs, full extras;
        ``grads``: which inputs need a gradient (the output does when any does)."""
        if prod(out.shape) > MAX_ELEMENTS:
            raise InputError(path, f"the merged output {out.describe()} has more than {format_int(MAX_ELEMENTS)} "
                                   "values")
        flop = extra_flop if self.full else 0
        merge = "add" if layer.type == "residual" else layer.merge
        grads = grads or []
        backward = 0
        if self.full and any(grads):
            backward = MERGE_BACKWARD_FLOP_PER_ELEMENT[merge] * sum(grads) * prod(out.shape)
        self.flop += flop
        self.backward += backward
        if self.flop > MAX_COUNT or self.backward > MAX_COUNT:
            self.too_large(path)
        self.rows.append(LayerRow(self.index, merge, layer.name, out.shape, out.steps, 0, 0, flop, "", None, 0.0,
                                  f"{path}.merge", self.depth, 1, self.copy, backward))
        self.grad = any(grads)
        if self.grad:
            self.recompute += flop

    def mark(self) -> tuple[int, ...]:
        return (len(self.rows), len(self.blocks), self.params, self.active, self.macs, self.flop, self.backward,
                self.trained, self.recompute)

    def scale_work_since(self, mark, count: int, path: str) -> None:
        """The rows and blocks since ``mark`` ran on ``count`` inputs with one set of weights (``each``): their MACs,
        FLOP, backward and recomputation × count; parameters as they are."""
        rows, blocks, _, _, macs, flop, backward, _, recompute = mark
        k = count - 1
        self.macs += k * (self.macs - macs)
        self.flop += k * (self.flop - flop)
        self.backward += k * (self.backward - backward)
        self.recompute += k * (self.recompute - recompute)
        if self.flop > MAX_COUNT or self.backward > MAX_COUNT:
            self.too_large(path)
        for row in self.rows[rows:]:
            row.macs *= count
            row.forward_flop *= count
            row.backward_flop *= count
        for b in self.blocks[blocks:]:
            b.macs *= count
            b.forward_flop *= count
            b.backward_flop *= count

    def drop_backward_since(self, mark) -> None:
        """The rows and blocks since ``mark`` get no gradient (``unused``): their backward and recomputation 0."""
        rows, blocks, *_, backward, _, recompute = mark
        self.backward, self.recompute = backward, recompute
        for row in self.rows[rows:]:
            row.backward_flop = 0
        for b in self.blocks[blocks:]:
            b.backward_flop = 0

    def scale_since(self, mark, copies: int, path: str = "layers") -> None:
        """The rows and blocks since ``mark`` stand for ``copies`` identical copies: × copies (``path``: the
        repeat, named if the counts pass ``MAX_COUNT``)."""
        rows, blocks, params, active, macs, flop, backward, trained, recompute = mark
        k = copies - 1
        self.params += k * (self.params - params)
        self.active += k * (self.active - active)
        self.macs += k * (self.macs - macs)
        self.flop += k * (self.flop - flop)
        self.backward += k * (self.backward - backward)
        if self.flop > MAX_COUNT or self.params > MAX_COUNT or self.backward > MAX_COUNT:
            self.too_large(path)
        self.trained += k * (self.trained - trained)
        self.recompute += k * (self.recompute - recompute)
        for row in self.rows[rows:]:
            row.params *= copies
            row.macs *= copies
            row.forward_flop *= copies
            row.backward_flop *= copies
            row.trainable_params *= copies
            if row.active_params is not None:
                row.active_params *= copies
            row.copies *= copies
        for b in self.blocks[blocks:]:
            b.params *= copies
            b.macs *= copies
            b.forward_flop *= copies
            b.backward_flop *= copies
            b.trainable_params *= copies
            b.copies *= copies


def evaluate(arch: Architecture, convention: Convention = "matmul", *, strict: bool = True) -> ArchitectureResult:
    """Propagate shapes and add up parameters, MACs and forward FLOP (per example).

    ``matmul``: forward FLOP = 2·MACs. ``full``: 2·MACs + bias adds, element-wise ops, activations,
    softmax and scaling, norms, pooling, merges. Blocks are walked into (``engine.method1.blocks``).
    The backward pass is counted beside it, layer by layer (``engine.method1.backward``).
    With ``strict=False`` a shape error is returned in ``result.error`` with the rows before it,
    instead of raised.
    """
    flow = arch.input.flow()
    result = ArchitectureResult(convention=convention, input=flow.describe())
    walker = Walker(convention == "full")
    try:
        walker.top(arch.layers, flow)
    except InputError as error:
        if strict:
            raise
        result.error = error
        walker.blocks = [b for b in walker.blocks if b.end <= len(walker.rows)]
    except RecursionError:  # bounded by MAX_DEPTH on validated input; a hand-built object may not be
        error = InputError("layers", "nested too deeply")
        if strict:
            raise error from None
        result.error = error
    result.rows, result.blocks = walker.rows, walker.blocks
    result.params, result.active_params = walker.params, walker.active
    result.macs, result.forward_flop = walker.macs, walker.flop
    result.backward_flop, result.trainable_params = walker.backward, walker.trained
    result.recompute_flop, result.frozen = walker.recompute, walker.frozen
    flop = walker.flop
    if flop:
        for row in result.rows:
            row.share = row.forward_flop / flop
    return result
