"""Every layer kind, as one tagged union (``type``) for the scenario's ``layers`` list."""
from __future__ import annotations

from typing import Annotated, Union

from pydantic import Field

from .blocks import BLOCK_KINDS
from .counted import COUNTED_KINDS
from .frames import FRAME_KINDS
from .layers import BASIC_KINDS, LayerBase
from .media import MEDIA_KINDS
from .mobilebert import MOBILEBERT_KINDS
from .sequence_layers import SEQUENCE_KINDS
from .transformer import TRANSFORMER_KINDS
from .vision import VISION_KINDS
from .windows import WINDOW_KINDS

LAYER_KINDS: tuple[type[LayerBase], ...] = (BASIC_KINDS + SEQUENCE_KINDS + VISION_KINDS + WINDOW_KINDS + TRANSFORMER_KINDS
                                            + COUNTED_KINDS + MOBILEBERT_KINDS + MEDIA_KINDS + FRAME_KINDS + BLOCK_KINDS)

Layer = Annotated[Union[LAYER_KINDS], Field(discriminator="type")]

for _block in BLOCK_KINDS:  # their layer lists hold any kind, blocks included
    _block.model_rebuild(_types_namespace={"Layer": Layer})

KIND_BY_TYPE: dict[str, type[LayerBase]] = {k.model_fields["type"].default: k for k in LAYER_KINDS}

