"""Any config the engine reads, counted at the inputs users know: a diffusers model (``_class_name``), a multimodal
or audio model of this package's registry (``model_type``), or a language model (``engine.llm``: decoders,
encoders, encoder–decoders, T5's encoder as an image generator's text encoder). One entry for the CLI
(``flops --config``), the API and the pages."""
from __future__ import annotations

from engine.errors import InputError
from engine.multimodal.inputs import MediaInputs
from engine.multimodal.model import ModelCount, ReadModel, StageBuilder, count
from engine.multimodal.registry import is_multimodal, read_model

ENCODER_TOKENS = 512
"""T5's encoder in an image generator: SD3's and FLUX.1-dev's max_sequence_length (it has no position table)."""
TEXT_TOKENS = 2048
"""A language model without a context length in its config."""


def read_text_model(data: dict, inputs: MediaInputs, source: str = "config", lenient: bool = False) -> ReadModel:
    """A language model's config.json through ``engine.llm`` as one stage: ``text_tokens`` tokens (default: its
    context length)."""
    from engine.llm.config import read_hf_config

    for field, value in (("image_size", inputs.image_size), ("frames", inputs.frames),
                         ("audio_seconds", inputs.audio_seconds), ("images", inputs.images)):
        if value:
            raise InputError(field, "this config is a text model: it takes text tokens only")
    config = read_hf_config(data, source, lenient)
    encoder_only = config.architecture_name.endswith("EncoderModel")
    tokens = inputs.text_tokens or config.context_length or (ENCODER_TOKENS if encoder_only else TEXT_TOKENS)
    seq = config.sequence_length(tokens)
    name = "text_encoder" if encoder_only else "language_model"
    stage = StageBuilder(name)
    stage.add(name, config.architecture(seq).layers)
    return ReadModel(config.model_type, config.architecture_name, (stage.build([1], seq),), {"text_tokens": seq},
                     None, tuple(config.notes), tuple(config.unused_keys))


def read_any(data: object, inputs: MediaInputs, source: str = "config", lenient: bool = False) -> ReadModel:
    """The reader for whatever ``data`` is (see the module docstring)."""
    if is_multimodal(data):
        return read_model(data, inputs, source)
    return read_text_model(data, inputs, source, lenient)


def count_config(data: object, inputs: MediaInputs, convention: str = "matmul", source: str = "config",
                 lenient: bool = False) -> ModelCount:
    """Parameters (tied once) and one example's forward FLOP (batch 1), in all and per component."""
    return count(read_any(data, inputs, source, lenient), convention)
