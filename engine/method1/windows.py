"""Swin's kinds (Liu et al. 2021): attention inside 2-D windows, shifted or not, with a relative position
bias table, and patch merging. Both take a channels-last grid ``[H, W, C]``, as torchvision's Swin does.

Symbols: a grid H × W × C, windows of M_h × M_w = n tokens, H heads of size C/H, the grid padded up to
whole windows (H_p = ⌈H/M_h⌉·M_h) in N_w = (H_p/M_h)·(W_p/M_w) windows.
"""

from typing import Annotated, ClassVar, Literal, Union

from pydantic import Field

from .conventions import ACTIVATION_FLOP, MERGE_FLOP_PER_ELEMENT
from .ops import dense_cost, layer_norm_cost
from .layers import MAX_SIZE, LayerBase, LayerCost, Part, ShapeError, Size, Sizes, _per_dim

Shift = Union[Annotated[int, Field(ge=0, le=MAX_SIZE)], list[Annotated[int, Field(ge=0, le=MAX_SIZE)]]]


def _grid(flow) -> tuple[int, int, int]:
    if flow.steps is not None or len(flow.item) != 3:
        raise ShapeError(f"expects a grid [H, W, C] (channels last, not a sequence), got {flow.describe()}")
    return flow.item


class WindowAttention(LayerBase):
    """Multi-head self-attention inside non-overlapping M_h × M_w windows of a grid (Swin's W-MSA), the
    windows shifted by ``shift`` for SW-MSA (a cyclic roll and a mask: no change in the ``matmul`` count),
    with a learned relative position bias table of (2M_h − 1)(2M_w − 1) × H. The grid is padded to whole
    windows and the padded tokens are computed (torchvision's ``shifted_window_attention``).

    Params 4C² (+ 4C biases) + (2M_h − 1)(2M_w − 1)·H. Forward 2·N_w·n·4C² + 4·N_w·n²·C: the qkv and
    output projections at every token, QKᵀ and AV inside each window. Full adds the biases (4C per token), the
    scaling of q (C per token), the bias table and, when shifted, the mask (one add per score each) and the
    softmax (5 per score)."""

    type: Literal["window_attention"] = "window_attention"
    heads: Size
    window_size: Sizes = Field(7, description="Window height and width (one number for both).")
    shift: Shift = Field(0, description="Shift of the windows (SW-MSA), usually half the window; "
                                        "0 for plain windows.")
    bias: bool = Field(True, description="Biases of the qkv and output projections.")
    relative_position_bias: bool = Field(True, description="The learned table of biases per relative position "
                                                           "and head.")
    kind_label: ClassVar[str] = "Window attention (Swin)"
    formula: ClassVar[str] = r"2 N_w n \cdot 4 C^2 + 4 N_w n^2 C, \quad n = M_h M_w"

    def cost(self, flow) -> LayerCost:
        h, w, c = _grid(flow)
        heads = self.heads
        if c % heads:
            raise ShapeError(f"heads {heads} must divide the channels C = {c}")
        window = _per_dim(self.window_size, 2, "window_size")
        shift = _per_dim(self.shift, 2, "shift")
        for s, m in zip(shift, window):
            if s >= m:
                raise ShapeError(f"shift {s} must be smaller than the window {m}")
        padded = [-(-size // m) * m for size, m in zip((h, w), window)]
        # torchvision: no shift along an axis the window already covers
        shifted = any(s and m < p for s, m, p in zip(shift, window, padded))
        windows = (padded[0] // window[0]) * (padded[1] // window[1])
        n = window[0] * window[1]
        tokens = windows * n
        scores = windows * heads * n * n
        qkv_params, qkv_macs, qkv_bias = dense_cost(c, 3 * c, self.bias)
        proj_params, proj_macs, proj_bias = dense_cost(c, c, self.bias)
        table = (2 * window[0] - 1) * (2 * window[1] - 1) * heads if self.relative_position_bias else 0
        score_adds = (int(self.relative_position_bias) + int(shifted)) * MERGE_FLOP_PER_ELEMENT * scores
        parts = (
            Part("qkv", qkv_params, tokens * qkv_macs, tokens * (qkv_bias + c), dst=("qkv",)),  # + q × 1/√(C/H)
            # QKᵀ and AV: products of activations (the backward's gradient to each operand, no weight gradient)
            Part("attention", table, 2 * windows * n * n * c,
                 score_adds + ACTIVATION_FLOP["softmax"] * scores, op="product", src=("qkv", "qkv"), dst=("a",)),
            Part("projection", proj_params, tokens * proj_macs, tokens * proj_bias, src=("a",)),
        )
        return LayerCost(flow, sum(p.params for p in parts), sum(p.macs for p in parts),
                         sum(p.extra_flop for p in parts), parts=parts)


class PatchMerging(LayerBase):
    """Swin's patch merging: each 2 × 2 neighbourhood of the grid (padded to even sizes) is concatenated
    into 4C channels, layer-normed and projected to C′ = 2C without bias: [H, W, C] → [⌈H/2⌉, ⌈W/2⌉, C′].

    Params 8C + 4C·C′; forward 2·⌈H/2⌉⌈W/2⌉·4C·C′ (full: + 7 per normalised value)."""

    type: Literal["patch_merging"] = "patch_merging"
    out_channels: int | None = Field(None, ge=1, le=MAX_SIZE, description="C′; empty: twice the input channels.")
    kind_label: ClassVar[str] = "Patch merging (Swin)"
    formula: ClassVar[str] = r"2 \lceil H/2 \rceil \lceil W/2 \rceil \cdot 4 C \cdot C'"

    def cost(self, flow) -> LayerCost:
        h, w, c = _grid(flow)
        out_c = self.out_channels or 2 * c
        if out_c > MAX_SIZE:
            raise ShapeError(f"{out_c:,} output channels is more than {MAX_SIZE:,}")
        positions = -(-h // 2) * -(-w // 2)
        norm = layer_norm_cost(positions * 4 * c, 4 * c, True)
        params, macs, _ = dense_cost(4 * c, out_c, False)
        parts = (Part("norm", norm.params, 0, norm.extra_flop, op="none", dst=("h",)),
                 Part("reduction", params, positions * macs, 0, src=("h",)))
        out = flow._replace(item=(-(-h // 2), -(-w // 2), out_c))
        return LayerCost(out, norm.params + params, positions * macs, norm.extra_flop, parts=parts)


WINDOW_KINDS: tuple[type[LayerBase], ...] = (WindowAttention, PatchMerging)
