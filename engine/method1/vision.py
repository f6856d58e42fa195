"""Layer kinds that real vision nets need between their convolutions: adaptive pooling, upsampling,
the step from a grid of patches to a token sequence, the class token and the token read out at the end.

None of them multiplies and accumulates, so each counts 0 FLOP in the ``matmul`` convention (as
``FlopCounterMode`` counts them); their ``full`` cost is stated in each docstring.
Shapes are channels-last: an image ``[H, W, C]``, a token sequence ``L × [d]``.
"""
from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from engine.method1.conventions import BILINEAR_FLOP_PER_ELEMENT
from engine.method1.costs import prod
from engine.method1.layers import Flow, LayerBase, LayerCost, ShapeError, Sizes, _per_dim, _shape, as_sequence

MAX_SCALE = 1024


def _windows(size: int, out: int) -> int:
    """Σ over PyTorch's adaptive windows of their length: window i spans ⌊i·H/o⌋ … ⌈(i+1)·H/o⌉."""
    return sum(-(-(i + 1) * size // out) - (i * size // out) for i in range(out))


class AdaptiveAvgPool2d(LayerBase):
    """Average pooling to a fixed output grid (``output_size`` 1 = global average pooling, ResNet's head).

    Full: one FLOP per input value of each window (K² − 1 adds + 1 divide), Σ over the windows."""

    type: Literal["adaptive_avg_pool2d"] = "adaptive_avg_pool2d"
    output_size: Sizes = 1
    kind_label: ClassVar[str] = "Adaptive / global average pooling"
    formula: ClassVar[str] = r"0 \quad (\text{full: } C \cdot \sum_{\text{windows}} |w|)"

    def item_cost(self, item):
        if len(item) != 3:
            raise ShapeError(f"expects [H, W, C] (channels last), got {_shape(item)}")
        oh, ow = _per_dim(self.output_size, 2, "output_size")
        h, w, c = item
        if oh > h or ow > w:  # PyTorch allows it (windows repeat), but it is never meant
            raise ShapeError(f"output size [{oh}, {ow}] is larger than the input grid [{h}, {w}]")
        return (oh, ow, c), 0, 0, c * _windows(h, oh) * _windows(w, ow)


class Upsample(LayerBase):
    """Upsampling of an ``[H, W, C]`` grid by an integer ``scale``: ``[S·H, S·W, C]``.

    Full: ``nearest`` copies (0 FLOP); ``bilinear`` weighs 4 neighbours, 7 FLOP per output value."""

    type: Literal["upsample"] = "upsample"
    scale: int = Field(2, ge=1, le=MAX_SCALE)
    mode: Literal["nearest", "bilinear"] = "nearest"
    kind_label: ClassVar[str] = "Upsampling"
    formula: ClassVar[str] = r"0 \quad (\text{full, bilinear: } 7 \cdot S^2 H W C)"

    def item_cost(self, item):
        if len(item) != 3:
            raise ShapeError(f"expects [H, W, C] (channels last), got {_shape(item)}")
        out = (item[0] * self.scale, item[1] * self.scale, item[2])
        return out, 0, 0, (BILINEAR_FLOP_PER_ELEMENT * prod(out) if self.mode == "bilinear" else 0)


class ToTokens(LayerBase):
    """A grid of patch embeddings ``[H, W, C]`` (a patchify convolution's output) → a sequence of H·W
    tokens of width C (ViT's ``reshape`` + ``permute``). No arithmetic."""

    type: Literal["to_tokens"] = "to_tokens"
    kind_label: ClassVar[str] = "Grid → token sequence"
    formula: ClassVar[str] = r"0 \quad ([H, W, C] \to L = H W \text{ tokens of } C)"

    def cost(self, flow: Flow) -> LayerCost:
        if flow.steps is not None or len(flow.item) < 2:
            raise ShapeError(f"expects a grid [H, W, C] (not a sequence), got {flow.describe()}")
        return LayerCost(Flow((flow.item[-1],), prod(flow.item[:-1])), 0, 0, 0)


class ClassToken(LayerBase):
    """A learned token of width d put in front of the sequence (BERT's [CLS], ViT): L → L + 1,
    d parameters, no arithmetic."""

    type: Literal["class_token"] = "class_token"
    kind_label: ClassVar[str] = "Class token"
    formula: ClassVar[str] = r"0 \quad (d \text{ parameters; } L \to L + 1)"

    def cost(self, flow: Flow) -> LayerCost:
        flow = as_sequence(flow)
        if flow.steps is None or len(flow.item) != 1:
            raise ShapeError(f"needs a token sequence L × [d], got {flow.describe()}")
        d = flow.item[0]
        return LayerCost(Flow((d,), flow.steps + 1), d, 0, 0)


class TokenSelect(LayerBase):
    """One vector from a token sequence: the ``first`` (the class token) or the ``mean`` over the L tokens.

    Full: ``first`` 0; ``mean`` L·d (L − 1 adds and 1 divide per channel)."""

    type: Literal["token_select"] = "token_select"
    select: Literal["first", "mean"] = "first"
    kind_label: ClassVar[str] = "Token select"
    formula: ClassVar[str] = r"0 \quad (\text{full, mean: } L \cdot d)"

    def cost(self, flow: Flow) -> LayerCost:
        flow = as_sequence(flow)
        if flow.steps is None or len(flow.item) != 1:
            raise ShapeError(f"needs a token sequence L × [d], got {flow.describe()}")
        d = flow.item[0]
        return LayerCost(Flow((d,), None), 0, 0, flow.steps * d if self.select == "mean" else 0)


VISION_KINDS: tuple[type[LayerBase], ...] = (AdaptiveAvgPool2d, Upsample, ToTokens, ClassToken, TokenSelect)
