"""A layer counted elsewhere: one node of an ONNX graph (``engine.importers.onnx_graph``) or one module of a
PyTorch model (``engine.importers.torch_count``), kept as its counted figures.

Its figures are not recomputed from the input: the row carries its parameters, its multiply-accumulates
(``matmul`` FLOP = 2·MACs), the extra FLOP of the ``full`` convention and its output shape, as counted for one
run of the graph or module (the input sizes the count was made with). A scenario of such rows is what a link
to an imported model carries: the rows, never the graph or the code.
"""

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from .backward import Grad, product_grad
from .conventions import BACKWARD_EXTRA_FACTOR
from .layers import Flow, LayerBase, LayerCost

MAX_COUNT = 10**24
"""Upper bound of one counted figure (a row's FLOP): 10²⁴ is beyond any single layer of any model run."""
MAX_COUNTED_DIM = 10**12

Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]


class Counted(LayerBase):
    """A counted layer: ``params``, ``macs`` and ``extra_flop`` as counted, ``output_shape`` as inferred.

    Forward FLOP = 2·MACs (``matmul``), + ``extra_flop`` (``full``). ``op`` names what was counted (an ONNX
    operator such as ``Conv``, or a module class such as ``Conv2d``); ``backward_macs``, where the count ran
    backward too (``count``), the multiply-accumulates of the backward pass with the module's own
    ``requires_grad`` flags; ``trainable_params``, where only some of its parameters train (BitFit: frozen
    weights, trainable biases)."""

    type: Literal["counted"] = "counted"
    op: str = Field("counted", min_length=1, max_length=200, description="What was counted: an ONNX operator, a module.")
    params: Count = 0
    macs: Count = 0
    extra_flop: Count = 0
    output_shape: Annotated[list[Annotated[int, Field(ge=0, le=MAX_COUNTED_DIM)]], Field(max_length=12)] = []
    backward_macs: Count | None = None
    trainable_params: Count | None = Field(None, description="Of its parameters, those that train (a module with "
                                           "frozen weights and trainable biases); unset: all of them.")
    kind_label: ClassVar[str] = "Counted (imported)"
    formula: ClassVar[str] = r"2 \cdot \text{MACs (as counted)}"

    def cost(self, flow: Flow) -> LayerCost:
        """The counted figures, whatever comes in: the row was counted with the graph's own input."""
        return LayerCost(Flow(tuple(self.output_shape)), self.params, self.macs, self.extra_flop)

    def backward(self, flow: Flow, cost: LayerCost, grad_in: bool, trainable: bool, memory_grad: bool = False) -> Grad:
        """As counted (``backward_macs``, with the module's own flags) where the count ran backward; else the
        reverse-mode rules (``engine.method1.backward``): a row with weights is x·W (weight gradient when
        trainable, input gradient when needed), a row without (attention's QKᵀ and AV, an Einsum of two
        activations) is a product of two activations, each needing its gradient: 2 × MACs."""
        params = self.params if self.trainable_params is None else min(self.trainable_params, self.params)
        if self.backward_macs is not None:
            return Grad(self.backward_macs, BACKWARD_EXTRA_FACTOR * self.extra_flop, True,
                        params if trainable else 0)
        if self.params == 0 and self.macs:
            return Grad(2 * self.macs if grad_in else 0, BACKWARD_EXTRA_FACTOR * self.extra_flop if grad_in else 0,
                        grad_in, 0)
        return product_grad(self.macs, self.extra_flop, params, grad_in, trainable and params > 0)


COUNTED_KINDS: tuple[type[LayerBase], ...] = (Counted,)


def per_example(rows: list[Counted], batch: int) -> tuple[list[Counted], str | None]:
    """Rows counted for one run of a batch of ``batch`` examples, as one example's (a training scenario
    multiplies one example's FLOP by the examples): every figure ÷ B where all divide, with a note when B > 1;
    where one does not (a module that mixes the examples of its batch), the rows as counted, and why."""
    if batch <= 1:
        return rows, None
    figures = [f for r in rows for f in (r.macs, r.extra_flop, r.backward_macs or 0)]
    if any(f % batch for f in figures):
        return rows, (f"the counted figures do not divide by the batch of {batch:,} (the model mixes examples): "
                      "the scenario's rows are those of one run of the batch; count with batch 1 for figures per "
                      "example")
    return [r.model_copy(update={"macs": r.macs // batch, "extra_flop": r.extra_flop // batch,
                                 "backward_macs": None if r.backward_macs is None else r.backward_macs // batch})
            for r in rows], f"the scenario's rows are per example: the counted run's figures ÷ its batch of {batch:,}"
