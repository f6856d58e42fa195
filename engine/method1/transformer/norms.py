"""A block's norms (``BlockNorms``) and their rows: the kind and where they sit.

Symbols: d the width normed, L positions. LayerNorm: γ and β (2d parameters), RMSNorm: γ (d); no
multiply-accumulates, the ``full`` convention counts their element-wise work (``engine.method1.ops``).
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...errors import InputError
from ..layers import Part
from ..ops import layer_norm_cost, rms_norm_cost


class BlockNorms(BaseModel):
    """The norms of a block: ``kind`` with γ (``affine``) and, for LayerNorm, β (``bias``); placed before each
    sub-layer (``pre``), after its residual add (``post``, BERT) or on its output before the add (``output``,
    OLMo 2); ``sandwich`` adds a norm on each sub-layer's output to the pre-norms (Gemma 2/3); ``shared``: parallel
    sub-layers read one norm (GPT-J, PaLM); ``mixer_norm`` false: no norm before the mixer (ModernBERT's first layer
    reads the embeddings' norm); ``sub_norms``: BitNet's norms of the attention's output (H·Q) before its output
    projection and of act(gate)·up (F) before the down projection."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    kind: Literal["layernorm", "rmsnorm"] = "layernorm"
    position: Literal["pre", "post", "output"] = "pre"
    affine: bool = Field(True, description="The norms have a learned gain γ (OLMo's have none).")
    bias: bool = Field(True, description="LayerNorm's β (MPT's norms have none).")
    sandwich: bool = Field(False, description="A norm on each sub-layer's output too (Gemma 2/3).")
    shared: bool = Field(False, description="Parallel sub-layers read one norm (GPT-J, PaLM).")
    mixer_norm: bool = Field(True, description="Pre-norm: a norm before the mixer (ModernBERT's first layer has none; "
                                               "it reads the embeddings' norm).")
    sub_norms: bool = Field(False, description="BitNet: a norm of the attention's output (H·Q) before the output "
                                               "projection and of act(gate)·up (F) before the down projection.")

    @model_validator(mode="after")
    def _placed(self):
        if not self.mixer_norm and self.position != "pre":
            raise InputError("mixer_norm", "a block without a norm before its mixer is modelled pre-norm, sequential")
        return self

    def cost(self, width: int, positions: int) -> tuple[int, int]:
        """(params, full-convention FLOP) of one norm over ``positions`` vectors of ``width``."""
        if self.kind == "layernorm":
            params, _, extra = layer_norm_cost(width, width, self.affine, self.bias)
        else:
            params, _, extra = rms_norm_cost(width, width, self.affine)
        return params, positions * extra

    def row(self, label: str, d: int, length: int, *, src: str = "x", dst: str = "h",
            also: tuple[str, ...] = ()) -> Part:
        """The norm of ``label``'s input (or output), reading ``src`` and writing ``dst``."""
        params, extra = self.cost(d, length)
        return Part(f"{label} norm", params, 0, extra, None, "none", (src,), (dst,), also)
