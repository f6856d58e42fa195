"""Blocks: layer lists that nest, so that real topologies can be written down.

- ``residual``: y = body(x) + shortcut(x); the shortcut is the identity when empty, or a projection
  (a 1×1 convolution and its norm, as in ResNet).
- ``branches``: every branch reads the same x; the outputs merge by ``concat`` (along the channels,
  the last axis, or along the ``sequence``), ``add`` (equal shapes) or ``multiply`` (shapes broadcast
  as NumPy's do: squeeze-excite's [1, 1, C] gate × [H, W, C]). An empty branch is the identity.
- ``repeat``: ``times`` copies of a layer list, each with its own parameters (ResNet's stages).
- ``each``: a layer list run on each of ``count`` inputs with one set of weights (the images of a sample
  through a vision tower, the tiles of an image); the outputs joined along the sequence.
- ``unused``: a layer list that runs on x but whose output nothing reads (a vision tower's layers past the one a
  vision-language model reads, its pooling head): forward counted, no backward; the flow goes on with x.

Merging costs no multiply-accumulate; in the ``full`` convention ``add`` and ``multiply`` cost one FLOP
per output value per input after the first, ``concat`` nothing. Every merge checks the shapes and
names the path of the block and both shapes, and keeps the merged size within ``MAX_SIZE`` (channels and
sequence positions alike). Nesting is at most ``MAX_DEPTH`` deep and a whole architecture at most
``MAX_LAYERS`` layers written and ``MAX_EVALUATIONS`` layer evaluations; ``expanded_count`` gives the layers a
list stands for once blocks and repeats are expanded (the dashboard's limit applies to it).
"""

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, Field, model_validator

from ..errors import InputError
from .conventions import MERGE_FLOP_PER_ELEMENT
from .ops import prod
from .layers import MAX_SIZE, Flow, LayerBase, as_sequence
from ..deferred import TaggedUnion
from .kind_table import KIND_TABLE


MAX_DEPTH = 32
"""Blocks inside blocks: ResNet needs 3 levels, U-Net 10; 32 is plenty and keeps recursion shallow."""
MAX_LAYERS = 100_000
"""Layers written in one architecture, at every depth."""
MAX_REPEAT = 100_000
MAX_EVALUATIONS = 100_000
"""Layer evaluations in one run (a repeat whose copies keep changing shape evaluates each copy)."""

BLOCK_LISTS = ("body", "shortcut", "layers")
"""The fields of a block that hold a layer list (``branches`` holds a list of them)."""


class Block(LayerBase):
    """A layer that holds layer lists; the architecture walks into it (``walk``)."""

    is_block: ClassVar[bool] = True

    def walk(self, flow: Flow, path: str, walker) -> Flow:
        """Evaluate the inner lists through ``walker`` (rows, totals); return the output flow."""
        raise NotImplementedError


def _shape(flow: Flow) -> str:
    return flow.describe()


def _merge(kind: str, outs: list[Flow], names: list[str], path: str) -> tuple[Flow, int]:
    """The merged flow of ``outs`` and its ``full`` FLOP; an ``InputError`` on ``path`` naming both shapes."""
    first, first_name = outs[0], names[0]
    if kind == "add":
        for out, name in zip(outs[1:], names[1:]):
            if out != first:
                raise InputError(path, f"cannot add {name} {_shape(out)} to {first_name} {_shape(first)}: "
                                       "the shapes must be equal")
        return first, MERGE_FLOP_PER_ELEMENT * (len(outs) - 1) * prod(first.shape)
    if kind == "multiply":
        item = first.item
        for out, name in zip(outs[1:], names[1:]):
            if out.steps != first.steps:
                raise InputError(path, f"cannot multiply {name} {_shape(out)} by {first_name} {_shape(first)}: "
                                       "the sequence lengths differ")
            item = _broadcast(item, out.item)
            if item is None:
                raise InputError(path, f"cannot multiply {name} {_shape(out)} by {first_name} {_shape(first)}: "
                                       "the shapes do not broadcast (each axis equal, or 1 in one of them)")
        merged = Flow(item, first.steps)
        return merged, MERGE_FLOP_PER_ELEMENT * (len(outs) - 1) * prod(merged.shape)
    if kind == "concat_sequence":
        seqs = [as_sequence(o) for o in outs]
        for out, seq, name in zip(outs, seqs, names):
            if seq.steps is None or seq.item != as_sequence(first).item:
                raise InputError(path, f"cannot join {name} {_shape(out)} to {first_name} {_shape(first)} along "
                                       "the sequence: both must be sequences of the same item shape")
        steps = sum(s.steps for s in seqs)
        if steps > MAX_SIZE:
            raise InputError(path, f"{steps:,} sequence positions after concatenation is more than {MAX_SIZE:,}")
        return Flow(seqs[0].item, steps), 0
    # concat along the channels (the last axis)
    channels = first.item[-1]
    for out, name in zip(outs[1:], names[1:]):
        if out.steps != first.steps or out.item[:-1] != first.item[:-1]:
            raise InputError(path, f"cannot concatenate {name} {_shape(out)} with {first_name} {_shape(first)} "
                                   "along the channels: every axis but the last must be equal")
        channels += out.item[-1]
    if channels > MAX_SIZE:
        raise InputError(path, f"{channels:,} channels after concatenation is more than {MAX_SIZE:,}")
    return Flow(first.item[:-1] + (channels,), first.steps), 0


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy broadcasting of two shapes (right-aligned), or None."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


LAYERS = TaggedUnion("type", KIND_TABLE, __package__, everything=".kinds")
"""Every layer kind, blocks included, by its ``type``: ``engine.method1.kinds`` registers them; an input imports the
module of each kind it names (``KIND_TABLE``) and builds that kind's validator, when it first names it."""
Layer = Annotated[LayerBase, LAYERS]
LayerList = Annotated[list[Layer], Field(max_length=MAX_LAYERS)]
NonEmptyLayerList = Annotated[list[Layer], Field(min_length=1, max_length=MAX_LAYERS)]


class Residual(Block):
    """y = body(x) + shortcut(x): the shortcut is the identity (empty) or a projection; shapes must match.

    Full: + one add per output value."""

    type: Literal["residual"] = "residual"
    body: NonEmptyLayerList
    shortcut: LayerList = Field(default_factory=list,
                                description="Empty: the identity. Otherwise a projection, e.g. a strided 1×1 "
                                            "convolution and its batch norm.")
    kind_label: ClassVar[str] = "Residual block"
    formula: ClassVar[str] = r"y = f(x) + s(x) \quad (\text{full: } +1 \text{ per output value})"

    def walk(self, flow, path, walker):
        grad = walker.grad
        body = walker.run(self.body, flow, f"{path}.body")
        body_grad, walker.grad = walker.grad, grad
        short = walker.run(self.shortcut, flow, f"{path}.shortcut")
        out, extra = _merge("add", [body, short], ["the body's output", "the shortcut's"], path)
        walker.merge_row(self, path, out, extra, [body_grad, walker.grad])
        return out


class Branches(Block):
    """Parallel branches over the same input, merged (Inception, DenseNet, U-Net's skips, squeeze-excite).

    concat: channels (last axis) or ``sequence``; add: equal shapes; multiply: broadcasting.
    Full: add and multiply, + one FLOP per output value per branch after the first."""

    type: Literal["branches"] = "branches"
    branches: Annotated[list[LayerList], Field(min_length=2, max_length=1_000,
                                               description="Layer lists; an empty list is the identity.")]
    merge: Literal["concat", "add", "multiply"] = "concat"
    axis: Literal["channels", "sequence"] = Field("channels", description="For concat: the axis joined.")
    kind_label: ClassVar[str] = "Parallel branches"
    formula: ClassVar[str] = r"y = [f_1(x), f_2(x), \dots] \ \text{or} \ \textstyle\sum f_i(x) \ \text{or} \ \prod f_i(x)"

    def walk(self, flow, path, walker):
        grad, outs, grads = walker.grad, [], []
        for b, branch in enumerate(self.branches):
            walker.grad = grad
            outs.append(walker.run(branch, flow, f"{path}.branches[{b}]"))
            grads.append(walker.grad)
        kind = "concat_sequence" if self.merge == "concat" and self.axis == "sequence" else self.merge
        out, extra = _merge(kind, outs, [f"branches[{b}]" for b in range(len(outs))], path)
        walker.merge_row(self, path, out, extra, grads)
        return out


class Repeat(Block):
    """``times`` copies of ``layers`` in sequence, each with its own parameters.

    Once a copy's output has its input's shape, the later copies cost the same: they are counted, not
    walked, so ResNet-152's 36 blocks (or 100,000) take one copy's time."""

    type: Literal["repeat"] = "repeat"
    times: int = Field(2, ge=1, le=MAX_REPEAT)
    layers: NonEmptyLayerList
    kind_label: ClassVar[str] = "Repeat"
    formula: ClassVar[str] = r"n \times f \quad (n \text{ copies, each with its own parameters})"

    def walk(self, flow, path, walker):
        n = self.times
        for copy in range(n):
            mark = walker.mark()
            grad = walker.grad
            try:
                out = walker.run(self.layers, flow, f"{path}.layers", copy=copy)
            except InputError as exc:
                if n == 1 or "(copy " in exc.reason:
                    raise
                raise InputError(exc.field, f"{exc.reason} (copy {copy + 1} of {n})") from None
            if out == flow and walker.grad == grad and copy < n - 1:  # a fixed point: every later copy is this one
                walker.scale_since(mark, n - copy, path)
                return out
            flow = out
        return flow


class Each(Block):
    """The ``layers`` run on each of ``count`` inputs of the same shape with one set of weights (the images of a
    sample through a vision tower, the tiles of an image, the frames of a video): parameters once, FLOP (forward
    and backward) × count; the outputs joined along the sequence (count × L positions; an item that is not a
    sequence becomes a sequence of count items). The flow is one input's shape, or with ``split`` the inputs
    already joined (each image's tokens through a per-image pooling). No arithmetic of its own."""

    type: Literal["each"] = "each"
    count: int = Field(1, ge=1, le=MAX_REPEAT, description="How many inputs run through the layers.")
    split: bool = Field(False, description="The flow is the inputs joined (a sequence of count × L positions), cut "
                                           "into count sequences of L; otherwise the flow is one input's shape.")
    layers: NonEmptyLayerList
    kind_label: ClassVar[str] = "Each input (shared weights)"
    formula: ClassVar[str] = r"n \times f \quad (n \text{ inputs, one set of weights})"

    @property
    def merge(self) -> str:
        return f"each of {self.count:,} inputs, one set of weights"

    def walk(self, flow, path, walker):
        if self.split:
            seq = as_sequence(flow)
            if seq.steps is None or seq.steps % self.count:
                raise InputError(path, f"cannot cut {flow.describe()} into {self.count:,} equal sequences")
            flow = Flow(seq.item, seq.steps // self.count)
        mark = walker.mark()
        out = walker.run(self.layers, flow, f"{path}.layers")
        walker.scale_work_since(mark, self.count, path)
        if self.count == 1:
            return out
        seq = as_sequence(out)
        steps = (seq.steps or 1) * self.count
        if steps > MAX_SIZE:
            raise InputError(path, f"{steps:,} positions once the {self.count:,} outputs are joined is more than "
                                   f"{MAX_SIZE:,}")
        return Flow(seq.item, steps)


class Unused(Block):
    """``layers`` run on x, their output read by nothing: a vision tower's layers after the one whose hidden states
    a vision-language model takes (transformers runs every layer, ``output_hidden_states``), a pooling head whose
    pooled token no one reads. Forward FLOP counted; no backward — no gradient reaches them, so autograd runs
    nothing for them (their weights, trainable or not, get no gradient) — and the flow goes on with x.
    No arithmetic of its own."""

    type: Literal["unused"] = "unused"
    layers: NonEmptyLayerList
    kind_label: ClassVar[str] = "Output unused"
    formula: ClassVar[str] = r"y = x \quad (f(x) \text{ runs, nothing reads it: forward only})"

    @property
    def merge(self) -> str:
        return "runs, output unused (forward only)"

    def walk(self, flow, path, walker):
        grad, mark = walker.grad, walker.mark()
        walker.run(self.layers, flow, f"{path}.layers")
        walker.drop_backward_since(mark)
        walker.grad = grad
        return flow


BLOCK_KINDS: tuple[type[Block], ...] = (Residual, Branches, Repeat, Each, Unused)
BLOCK_TYPES = frozenset(k.model_fields["type"].default for k in BLOCK_KINDS)


def expanded_count(layers: object) -> int:
    """The layers a list stands for once expanded: every layer and block once, a repeat's list ``times`` over
    (repeats inside repeats multiply). Works on decoded JSON and on validated layers alike; iterative, exact
    (a Python integer, however many repeats multiply)."""
    if not isinstance(layers, list):
        return 0
    total = 0
    stack: list[tuple[list, int]] = [(layers, 1)]
    while stack:
        items, copies = stack.pop()
        total += len(items) * copies
        for item in items:
            get = item.get if isinstance(item, dict) else lambda key, item=item: getattr(item, key, None)
            kind = get("type")
            if not isinstance(kind, str) or kind not in BLOCK_TYPES:  # a list or object there is the schema's to name
                continue
            times = get("times") if kind == "repeat" else 1  # each: its layers are walked once
            times = times if isinstance(times, int) and not isinstance(times, bool) and 1 <= times <= MAX_REPEAT \
                else 1  # an invalid count is the schema's to name
            for key in BLOCK_LISTS:
                inner = get(key)
                if isinstance(inner, list):
                    stack.append((inner, copies * times))
            branches = get("branches")
            if isinstance(branches, list):
                stack.extend((branch, copies) for branch in branches if isinstance(branch, list))
    return total


def check_nesting(layers: object, field: str = "layers") -> None:
    """Raw (decoded JSON) layer lists: at most ``MAX_DEPTH`` blocks deep and ``MAX_LAYERS`` layers in all.

    Runs before validation, iteratively, so that a 10,000-deep input is one message, not a recursion."""
    if not isinstance(layers, list):
        return
    stack: list[tuple[list, str, int]] = [(layers, field, 0)]
    count = 0
    while stack:
        items, prefix, depth = stack.pop()
        count += len(items)
        if count > MAX_LAYERS:
            raise InputError(field, f"more than {MAX_LAYERS:,} layers in all (blocks included)")
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("type"), str) or item["type"] not in BLOCK_TYPES:
                continue
            here = f"{prefix}[{i}]"
            if depth + 1 > MAX_DEPTH:
                raise InputError(here, f"blocks nested more than {MAX_DEPTH} deep")
            for key in BLOCK_LISTS:
                if isinstance(item.get(key), list):
                    stack.append((item[key], f"{here}.{key}", depth + 1))
            branches = item.get("branches")
            if isinstance(branches, list):
                for b, branch in enumerate(branches):
                    if isinstance(branch, list):
                        stack.append((branch, f"{here}.branches[{b}]", depth + 1))


class NestedLayers(BaseModel):
    """A model holding a ``layers`` list (the architecture, the scenario): its nesting is bounded
    (``check_nesting``) before any layer is validated."""

    @model_validator(mode="before")
    @classmethod
    def _bounded_nesting(cls, data):
        if isinstance(data, dict):
            check_nesting(data.get("layers"))
        return data
