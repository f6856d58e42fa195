"""The external reference for vision-language and audio models: the transformers class a config's ``architectures``
names (the wrapper's generating class), built from the config on the meta device with eager attention, counted by
FlopCounterMode over one forward pass of one example (batch 1): pixel values (and audio features) on meta, the
integer metadata the processor makes (image sizes, grids) on the CPU, and the placeholder check that compares the
image tokens with the features (a data-dependent ``.sum()``) answered on meta by the mask alone (it changes no
product).
"""
from __future__ import annotations

import copy
import warnings


def build(config: dict, class_name: str | None = None):
    """The model on meta, eager attention, eval mode."""
    import torch
    import transformers

    data = {k: v for k, v in copy.deepcopy(config).items() if not k.startswith("_")}
    names = data.pop("architectures", None) or [class_name]
    hf_config = transformers.AutoConfig.for_model(data.pop("model_type"), **data)
    cls = getattr(transformers, class_name or names[0])
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = cls._from_config(hf_config, attn_implementation="eager")
    from tests.llm.hf_reference import _meta_packed_sequences, _meta_padding_masks

    _meta_packed_sequences()  # the masks' data-dependent checks answered on meta, as for the language models
    _meta_padding_masks()
    inner = getattr(model, "model", model)
    if hasattr(inner, "get_placeholder_mask"):
        token = getattr(model.config, "image_token_id", None)
        if token is None:
            token = getattr(model.config, "image_token_index", None)

        def mask(input_ids, inputs_embeds, *args, **kwargs):
            image = (input_ids == token).unsqueeze(-1).expand_as(inputs_embeds)
            return (image, image) if "video_features" in kwargs or len(args) > 1 else image

        inner.get_placeholder_mask = mask
    return model.eval()


def measure(model, kwargs: dict) -> tuple[int, int]:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    params = sum(p.numel() for p in model.parameters())
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(**kwargs)
    return params, counter.get_total_flops()


def meta(*shape):
    import torch

    return torch.zeros(*shape, device="meta")


def ids(n: int):
    import torch

    return torch.zeros(1, n, dtype=torch.long, device="meta")


def llava(config: dict, images: int, image_tokens: int, text_tokens: int, image_size=None) -> tuple[int, int]:
    """LLaVA (``image_size`` None) and LLaVA-NeXT (each image's (height, width) given to the processor's tiling)."""
    import torch

    model = build(config)
    v = model.config.vision_config
    kwargs = {"input_ids": ids(image_tokens + text_tokens)}
    if image_size is None:
        kwargs["pixel_values"] = meta(images, 3, v.image_size, v.image_size)
    else:
        from transformers.models.llava_next.modeling_llava_next import image_size_to_num_patches

        tiles = image_size_to_num_patches(image_size, model.config.image_grid_pinpoints, v.image_size)
        kwargs["pixel_values"] = meta(images, tiles, 3, v.image_size, v.image_size)
        kwargs["image_sizes"] = torch.tensor([list(image_size)] * images)
    return measure(model, kwargs)


def images_model(config: dict, images: int, image_tokens: int, text_tokens: int) -> tuple[int, int]:
    """A model whose processor gives each image as one ``image_size`` square (Gemma 3, PaliGemma)."""
    model = build(config)
    v = model.config.vision_config
    return measure(model, {"input_ids": ids(image_tokens + text_tokens),
                           "pixel_values": meta(images, 3, v.image_size, v.image_size)})


def vision_tower(config: dict, images: int) -> tuple[int, int]:
    """CLIPVisionModel / SiglipVisionModel on ``images`` images of the config's ``image_size``."""
    import transformers

    name = {"clip_vision_model": "CLIPVisionModel", "siglip_vision_model": "SiglipVisionModel"}[config["model_type"]]
    data = {k: v for k, v in config.items() if k not in ("architectures",)}
    model = build(data, name)
    del transformers
    size = model.config.image_size
    return measure(model, {"pixel_values": meta(images, 3, size, size)})
