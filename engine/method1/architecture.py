"""An architecture (input + layers) and its per-layer costs: shapes propagated layer by layer."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from engine.method1.conventions import Convention
from engine.errors import InputError
from engine.method1.kinds import Layer
from engine.method1.layers import MAX_SIZE, Flow, ShapeError
from engine.units import FLOP_PER_MAC

MAX_LAYERS = 100_000
MAX_ELEMENTS = 10**15
"""An input of more values than this per example is absurd (a 10-terabyte example)."""


class InputSpec(BaseModel):
    """One example: an item of ``shape`` (channels last), or a sequence of ``sequence_length`` T items."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    shape: Annotated[list[Annotated[int, Field(ge=1, le=MAX_SIZE)]], Field(min_length=1, max_length=4)]
    sequence_length: Annotated[int, Field(ge=1, le=MAX_SIZE)] | None = None

    def flow(self) -> Flow:
        n = 1
        for d in self.shape:
            n *= d
        if n * (self.sequence_length or 1) > MAX_ELEMENTS:
            raise InputError("input.shape", f"{n * (self.sequence_length or 1):.3g} values per example is "
                                            f"more than the {MAX_ELEMENTS:.0e} this tool accepts")
        return Flow(tuple(self.shape), self.sequence_length)


class Architecture(BaseModel):
    """The input and the layers, in order."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    input: InputSpec
    layers: Annotated[list[Layer], Field(max_length=MAX_LAYERS)]


@dataclass(slots=True)
class LayerRow:
    """One layer's result, per example (the whole sequence where there is one)."""

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

    @property
    def output(self) -> str:
        """The output shape as shown: 'T × [item]' for a sequence."""
        item = self.output_shape[1:] if self.steps else self.output_shape
        return Flow(tuple(item), self.steps).describe()

    def as_dict(self) -> dict:
        out = {"index": self.index, "type": self.type, "name": self.name, "output_shape": self.output_shape,
               "params": self.params, "macs": self.macs, "forward_flop": self.forward_flop}
        if self.part:
            out["part"] = self.part
        if self.active_params is not None:
            out["active_params"] = self.active_params
        return out


@dataclass(slots=True)
class ArchitectureResult:
    """Totals and rows; ``error`` is set (and rows stop) at the first layer that cannot take its input."""

    convention: str
    input: str
    rows: list[LayerRow] = field(default_factory=list)
    params: int = 0
    active_params: int = 0
    """Parameters one example goes through (fewer than ``params`` with mixture-of-experts layers)."""
    macs: int = 0
    forward_flop: int = 0
    error: InputError | None = None


def evaluate(arch: Architecture, convention: Convention = "matmul", *, strict: bool = True) -> ArchitectureResult:
    """Propagate shapes and add up parameters, MACs and forward FLOP (per example).

    ``matmul``: forward FLOP = 2·MACs. ``full``: 2·MACs + bias adds, element-wise ops, activations,
    softmax and scaling, norms, pooling. With ``strict=False`` a shape error is returned in
    ``result.error`` with the rows before it, instead of raised.
    """
    full = convention == "full"
    flow = arch.input.flow()
    result = ArchitectureResult(convention=convention, input=flow.describe())
    rows = result.rows
    append = rows.append
    params = active = macs = flop = 0  # locals: this loop runs once per layer (10,000 layers in a few ms)
    for index, layer in enumerate(arch.layers):
        try:
            cost = layer.cost(flow)
        except ShapeError as exc:
            error = InputError(f"layers[{index}]", f"{layer.type}: {exc} (input {flow.describe()})")
            if strict:
                raise error from None
            result.error = error
            break
        flow = cost.out
        if math.prod(flow.item) * (flow.steps or 1) > MAX_ELEMENTS:  # e.g. transposed convolutions, stride 1e9
            error = InputError(f"layers[{index}]", f"{layer.type}: its output, {flow.describe()}, holds more than "
                                                   f"the {MAX_ELEMENTS:.0e} values per example this tool accepts")
            if strict:
                raise error from None
            result.error = error
            break
        shape = flow.shape
        layer_flop = FLOP_PER_MAC * cost.macs + (cost.extra_flop if full else 0)
        if cost.parts:
            for part in cost.parts:
                append(LayerRow(index, layer.type, layer.name, shape, flow.steps, part.params, part.macs,
                                FLOP_PER_MAC * part.macs + (part.extra_flop if full else 0), part.name,
                                part.active_params))
        else:
            append(LayerRow(index, layer.type, layer.name, shape, flow.steps, cost.params, cost.macs, layer_flop,
                            "", cost.active_params))
        params += cost.params
        active += cost.params if cost.active_params is None else cost.active_params
        macs += cost.macs
        flop += layer_flop
    result.params, result.active_params, result.macs, result.forward_flop = params, active, macs, flop
    if flop:
        for row in rows:
            row.share = row.forward_flop / flop
    return result
