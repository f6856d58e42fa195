"""A layer counted elsewhere: one node of an ONNX graph (``engine.importers.onnx_graph``) or one module of a
PyTorch model (``engine.importers.torch_count``), kept as its counted figures.

Its figures are not recomputed from the input: the row carries its parameters, its multiply-accumulates
(``matmul`` FLOP = 2·MACs), the extra FLOP of the ``full`` convention and its output shape, as counted for one
run of the graph or module (the input sizes the count was made with). A scenario of such rows is what a link
to an imported model carries: the rows, never the graph or the code.
"""
from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from engine.method1.layers import Flow, LayerBase, LayerCost

MAX_COUNT = 10**24
"""Upper bound of one counted figure (a row's FLOP): 10²⁴ is beyond any single layer of any model run."""
MAX_COUNTED_DIM = 10**12

Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]


class Counted(LayerBase):
    """A counted layer: ``params``, ``macs`` and ``extra_flop`` as counted, ``output_shape`` as inferred.

    Forward FLOP = 2·MACs (``matmul``), + ``extra_flop`` (``full``). ``op`` names what was counted (an ONNX
    operator such as ``Conv``, or a module class such as ``Conv2d``); ``backward_macs``, where the count ran
    backward too (``count``), the multiply-accumulates of the backward pass with the module's own
    ``requires_grad`` flags."""

    type: Literal["counted"] = "counted"
    op: str = Field("counted", min_length=1, max_length=200, description="What was counted: an ONNX operator, a module.")
    params: Count = 0
    macs: Count = 0
    extra_flop: Count = 0
    output_shape: Annotated[list[Annotated[int, Field(ge=0, le=MAX_COUNTED_DIM)]], Field(max_length=12)] = []
    backward_macs: Count | None = None
    kind_label: ClassVar[str] = "Counted (imported)"
    formula: ClassVar[str] = r"2 \cdot \text{MACs (as counted)}"

    def cost(self, flow: Flow) -> LayerCost:
        """The counted figures, whatever comes in: the row was counted with the graph's own input."""
        return LayerCost(Flow(tuple(self.output_shape)), self.params, self.macs, self.extra_flop)


COUNTED_KINDS: tuple[type[LayerBase], ...] = (Counted,)
