"""Every layer kind, registered in the tagged union (``type``) of the scenario's ``layers`` list (``blocks.Layer``): an
input imports and builds only the kinds it names (``engine.deferred``, ``kind_table``); importing this module
registers every kind, in the union's order, and checks the table against them."""
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

LAYERS.register_all(LAYER_KINDS)  # a duplicate type, or a kind the table does not name, is refused

KIND_BY_TYPE: dict[str, type[LayerBase]] = LAYERS.members

__all__ = ["KIND_BY_TYPE", "LAYER_KINDS", "Layer"]

