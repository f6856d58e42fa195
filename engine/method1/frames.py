"""Layer kinds that resample the frames of a video ``[F, H, W, C]`` the way causal video VAEs do, keeping the
first frame apart (it stands alone: an image is a one-frame video).

- ``frame_resample``: no weights (CogVideoX's VAE). Down: each pair of frames averaged, the first kept alone when F
  is odd: F′ = ⌈F/2⌉. Up: each frame repeated, the first kept alone when F is odd: F′ = 2F − 1 (odd F > 1), 2F
  (even F), 1 (F = 1).
- ``frame_conv``: a causal convolution along the frames (K_t × 1 × 1, biased) run on every frame but the first,
  which passes unchanged (Wan's VAE: its first chunk is that frame alone). Down: stride 2, C → C, the F − 1 later
  frames → (F − 1)/2, F′ = 1 + (F − 1)/2. Up: C → 2C, each later frame's output read as two frames of C,
  F′ = 1 + 2(F − 1).

Symbols: F frames of H × W positions and C channels; R = F − 1 the later frames; K_t the kernel along the frames.
"""

from typing import ClassVar, Literal

from pydantic import Field

from .layers import MAX_SIZE, LayerBase, ShapeError, Size


def _video(item: tuple[int, ...], kind: str) -> tuple[int, int, int, int]:
    if len(item) != 4:
        raise ShapeError(f"{kind} expects a video [F, H, W, C] (channels last), got "
                         f"[{', '.join(str(d) for d in item)}]")
    return item  # type: ignore[return-value]


def _frames(frames: int) -> int:
    if frames > MAX_SIZE:
        raise ShapeError(f"{frames:,} frames is more than {MAX_SIZE:,}")
    return frames


class FrameResample(LayerBase):
    """The frames of a video halved (``down``: each pair averaged, the first frame alone when F is odd: F′ = ⌈F/2⌉)
    or doubled (``up``: each frame repeated, the first alone when F is odd: F′ = 2F − 1; 2F when even; 1 stays 1),
    as CogVideoX's VAE does between its levels. No weights, no multiply-accumulates (full: down, 2 per averaged
    output value: the add and the halving; up copies)."""

    type: Literal["frame_resample"] = "frame_resample"
    direction: Literal["down", "up"] = "down"
    kind_label: ClassVar[str] = "Frame resampling (first frame apart)"
    formula: ClassVar[str] = r"0 \quad (\text{full, down: } 2 \lfloor F/2 \rfloor H W C)"

    def item_cost(self, item):
        f, h, w, c = _video(item, "frame resampling")
        if self.direction == "down":
            return (-(-f // 2), h, w, c), 0, 0, 2 * (f // 2) * h * w * c
        out = 1 if f == 1 else 2 * f - 1 if f % 2 else 2 * f
        return (_frames(out), h, w, c), 0, 0, 0


class FrameConv(LayerBase):
    """A causal convolution along the frames (K_t × 1 × 1, biased) on every frame but the first, which passes as
    it is (Wan's VAE). Down: stride 2, C → C: the R = F − 1 later frames (R even) make R/2, F′ = 1 + R/2.
    Up: C → 2C, each later frame's output read as two frames of C, F′ = 1 + 2R. Params K_t·C·C′ + C′ (C′ = C, or
    2C up); MACs (frames computed)·H·W·C′·K_t·C; full: + the bias per output value."""

    type: Literal["frame_conv"] = "frame_conv"
    direction: Literal["down", "up"] = "down"
    kernel_size: Size = Field(3, le=1_000, description="K_t: frames each output reads (the causal window).")
    kind_label: ClassVar[str] = "Frame convolution (first frame apart)"
    formula: ClassVar[str] = r"2 \cdot F_c H W C' K_t C, \quad F_c = (F-1)/2 \ (\text{down}), \ F - 1 \ (\text{up})"

    def item_cost(self, item):
        f, h, w, c = _video(item, "a frame convolution")
        rest = f - 1
        if self.direction == "down":
            if rest % 2:
                raise ShapeError(f"{f} frames: the {rest} after the first must be even to halve them")
            computed, c_out, out = rest // 2, c, (1 + rest // 2, h, w, c)
        else:
            computed, c_out, out = rest, 2 * c, (_frames(1 + 2 * rest), h, w, c)
        params = self.kernel_size * c * c_out + c_out
        positions = computed * h * w
        return out, params, positions * c_out * self.kernel_size * c, positions * c_out


FRAME_KINDS: tuple[type[LayerBase], ...] = (FrameResample, FrameConv)
"""Registered in ``engine.method1.kinds``."""
