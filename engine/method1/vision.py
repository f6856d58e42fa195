"""Layer kinds that real vision nets need between their convolutions: adaptive pooling, upsampling,
the step from a grid of patches to a token sequence, the class token and the token read out at the end,
ShuffleNet's channel split and shuffle, ConvNeXt's layer scale and stochastic depth.

None of them multiplies and accumulates, so each counts 0 FLOP in the ``matmul`` convention (as
``FlopCounterMode`` counts them); their ``full`` cost is stated in each docstring.
Shapes are channels-last: an image ``[H, W, C]``, a token sequence ``L × [d]``.
"""

import math

from typing import ClassVar, Literal

from pydantic import Field

from .conventions import BILINEAR_FLOP_PER_ELEMENT, DROPOUT_FLOP_PER_ELEMENT
from .ops import prod
from .layers import (
    MAX_SIZE,
    Flow,
    LayerBase,
    LayerCost,
    ShapeError,
    Size,
    Sizes,
    _per_dim,
    _shape,
    sequence_dims,
)

MAX_SCALE = 1024


def _windows(size: int, out: int) -> int:
    """Σ over PyTorch's adaptive windows of their length, window i spanning ⌊i·H/o⌋ … ⌈(i+1)·H/o⌉: H + o − gcd(H, o)
    (the floors telescope to H; the ceiling adds one wherever o does not divide (i+1)·H, all but gcd(H, o) of the o
    windows) — closed form, so a 10⁹-row grid costs nothing."""
    return size + out - math.gcd(size, out)


def _tokens(flow: Flow) -> tuple[int, int]:
    """(d, L) of a token sequence L × [d] (a 2-D item read as one), or a ``ShapeError``."""
    return sequence_dims(flow, "a token sequence L × [d]", "")


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
    """Upsampling of an ``[H, W, C]`` grid by an integer ``scale``: ``[S·H, S·W, C]``; of a video ``[F, H, W, C]``,
    each frame's (``[F, S·H, S·W, C]``).

    Full: ``nearest`` copies (0 FLOP); ``bilinear`` weighs 4 neighbours, 7 FLOP per output value."""

    type: Literal["upsample"] = "upsample"
    scale: int = Field(2, ge=1, le=MAX_SCALE)
    mode: Literal["nearest", "bilinear"] = "nearest"
    kind_label: ClassVar[str] = "Upsampling"
    formula: ClassVar[str] = r"0 \quad (\text{full, bilinear: } 7 \cdot S^2 H W C)"

    def item_cost(self, item):
        if len(item) not in (3, 4):
            raise ShapeError(f"expects [H, W, C] or frames [F, H, W, C] (channels last), got {_shape(item)}")
        out = item[:-3] + (item[-3] * self.scale, item[-2] * self.scale, item[-1])
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
        d, length = _tokens(flow)
        return LayerCost(Flow((d,), length + 1), d, 0, 0)


class TokenSelect(LayerBase):
    """One vector from a token sequence: the ``first`` (the class token) or the ``mean`` over the L tokens.

    Full: ``first`` 0; ``mean`` L·d (L − 1 adds and 1 divide per channel)."""

    type: Literal["token_select"] = "token_select"
    select: Literal["first", "mean"] = "first"
    kind_label: ClassVar[str] = "Token select"
    formula: ClassVar[str] = r"0 \quad (\text{full, mean: } L \cdot d)"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = _tokens(flow)
        return LayerCost(Flow((d,), None), 0, 0, length * d if self.select == "mean" else 0)


class ChannelSplit(LayerBase):
    """One of ``chunks`` slices of the channels (the last axis), as ``torch.chunk(x, chunks, dim)[index]``:
    slices of ⌈C/chunks⌉ channels, the last one smaller when C is not a multiple. Put one at the head of
    each branch of a ``branches`` block (ShuffleNetV2: one half passes, the other is convolved). A view:
    0 FLOP in both conventions."""

    type: Literal["channel_split"] = "channel_split"
    chunks: Size = Field(2, description="Equal slices the channels are cut into.")
    index: int = Field(0, ge=0, le=MAX_SIZE, description="Which slice this layer keeps, from 0.")
    kind_label: ClassVar[str] = "Channel split"
    formula: ClassVar[str] = r"0 \quad ([\dots, C] \to [\dots, \lceil C / n \rceil] \text{ slice})"

    def item_cost(self, item):
        c = item[-1]
        size = -(-c // self.chunks)
        start = self.index * size
        if start >= c:
            slices = -(-c // size)
            raise ShapeError(f"index {self.index} is past the last slice: {c} channels in slices of {size} "
                             f"make {slices} (index 0 to {slices - 1})")
        return item[:-1] + (min(size, c - start),), 0, 0, 0


class ChannelShuffle(LayerBase):
    """ShuffleNet's channel shuffle (``nn.ChannelShuffle``): the C channels seen as g groups × C/g are
    transposed, so the next grouped layer mixes every group. A permutation: 0 FLOP in both conventions."""

    type: Literal["channel_shuffle"] = "channel_shuffle"
    groups: Size = 2
    kind_label: ClassVar[str] = "Channel shuffle"
    formula: ClassVar[str] = r"0 \quad (\text{a permutation of the channels})"

    def item_cost(self, item):
        if item[-1] % self.groups:
            raise ShapeError(f"groups {self.groups} must divide the channels C = {item[-1]}")
        return item, 0, 0, 0


class LayerScale(LayerBase):
    """A learned per-channel scale γ ∘ x (ConvNeXt, CaiT; Touvron et al. 2021): C parameters; a multiply per
    element, which the ``matmul`` convention counts 0 (``FlopCounterMode`` counts no ``mul``), ``full`` 1."""

    type: Literal["layer_scale"] = "layer_scale"
    kind_label: ClassVar[str] = "Layer scale"
    formula: ClassVar[str] = r"0 \quad (C \text{ parameters; full: one multiply per element})"

    def item_cost(self, item):
        return item, item[-1], 0, prod(item)


class StochasticDepth(LayerBase):
    """Stochastic depth (Huang et al. 2016; torchvision's ``StochasticDepth``) on a residual body: in
    training the body's output is dropped with probability ``rate`` per example (``row``) or per batch, and
    scaled by 1/(1 − rate); at inference it is the identity. FLOP-free in the ``matmul`` convention
    (``FlopCounterMode`` counts 0, training or not); ``full`` counts the training-time mask multiply, one
    per element, as for dropout. Put it last in a residual's body."""

    type: Literal["stochastic_depth"] = "stochastic_depth"
    rate: float = Field(0.1, ge=0.0, lt=1.0, description="Probability that a body is skipped in training.")
    mode: Literal["row", "batch"] = Field("row", description="Drop per example (row) or the whole batch.")
    kind_label: ClassVar[str] = "Stochastic depth"
    formula: ClassVar[str] = r"0 \quad (\text{full: one multiply per element, as dropout})"

    def item_cost(self, item):
        return item, 0, 0, DROPOUT_FLOP_PER_ELEMENT * prod(item)


VISION_KINDS: tuple[type[LayerBase], ...] = (AdaptiveAvgPool2d, Upsample, ToTokens, ClassToken, TokenSelect,
                                             ChannelSplit, ChannelShuffle, LayerScale, StochasticDepth)
