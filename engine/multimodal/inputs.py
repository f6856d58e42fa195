"""The inputs users know — image size in pixels, images per sample, video frames, seconds of audio, text tokens —
validated once (``MediaInputs``); each family reader fills what is left out with its standard input and checks what
its model needs (a size divisible by the patch, frames a video model can take), naming the field.
"""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError, parse_input, quoted

MAX_PIXELS = 65_536
"""An image side beyond this is absurd for these models (the largest native resolutions are a few thousand)."""
MAX_FRAMES = 10_000
MAX_IMAGES = 1_000
MAX_SECONDS = 86_400.0
MAX_TEXT_TOKENS = 10_000_000

Pixels = Annotated[int, Field(ge=1, le=MAX_PIXELS)]


class MediaInputs(BaseModel):
    """One example's inputs (None: the family's standard input)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    image_size: tuple[Pixels, Pixels] | None = Field(None, description="Height and width in pixels.")
    images: Annotated[int, Field(ge=0, le=MAX_IMAGES)] | None = Field(None, description="Images per sample.")
    frames: Annotated[int, Field(ge=1, le=MAX_FRAMES)] | None = Field(None, description="Video frames.")
    audio_seconds: Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)] | None = Field(
        None, description="Seconds of audio.")
    text_tokens: Annotated[int, Field(ge=0, le=MAX_TEXT_TOKENS)] | None = Field(
        None, description="Text the model attends to: a VLM's prompt besides the image tokens; a denoiser's "
                          "conditioning length (both encoders together where it has two).")


_SIZE = re.compile(r"\s*(\d{1,12})\s*[xX×]\s*(\d{1,12})\s*|\s*(\d{1,12})\s*")


def parse_image_size(text: str, field: str = "image_size") -> tuple[int, int]:
    """'512x768' (H×W) or '512' (square) → (H, W); one line naming the field otherwise."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise InputError(field, f"{quoted(text)} is not a size: write HxW in pixels, e.g. 512x512")
    h, w = (int(match.group(1)), int(match.group(2))) if match.group(1) else (int(match.group(3)),) * 2
    for side in (h, w):
        if not 1 <= side <= MAX_PIXELS:
            raise InputError(field, f"{side:,} pixels is outside 1 to {MAX_PIXELS:,}")
    return h, w


def media_inputs(data: dict | None = None) -> MediaInputs:
    """``MediaInputs`` from plain data (the CLI's flags, the API's keywords, a form), through the one validation
    path."""
    return parse_input(MediaInputs, {k: v for k, v in (data or {}).items() if v is not None}, source="inputs")


def divisible(size: tuple[int, int], by: int, what: str, field: str = "image_size") -> None:
    """Both sides of ``size`` divisible by ``by`` pixels (a patch, a latent factor), else one line saying so."""
    for side in size:
        if side % by:
            raise InputError(field, f"{size[0]}x{size[1]} pixels: {side:,} is not a multiple of {by} ({what})")


def vlm_images(inputs: MediaInputs, video: str = "this model takes images, not video") -> int:
    """Images per sample of a vision-language model (1 unless given): one line for none, and for video frames
    given to a model that reads images (``video`` says why)."""
    images = 1 if inputs.images is None else inputs.images
    if images < 1:
        raise InputError("images", "a vision-language model needs at least one image here")
    if inputs.frames not in (None, 1):
        raise InputError("frames", video)
    return images
