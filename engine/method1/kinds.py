"""Every layer kind, as one tagged union (``type``) for the scenario's ``layers`` list: ``Layer``, whose members' validators
are built when an input first names them (``engine.deferred``)."""
from __future__ import annotations

from .blocks import BLOCK_KINDS, LAYERS, Layer
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

LAYERS.register(LAYER_KINDS)  # the blocks' layer lists hold any kind, blocks included; a duplicate type is refused

KIND_BY_TYPE: dict[str, type[LayerBase]] = LAYERS.members

__all__ = ["KIND_BY_TYPE", "LAYER_KINDS", "Layer"]

