"""Mistral 3 (``mistral3``: Mistral Small 3.1, a Pixtral vision tower, a patch merger and Mistral's language model) and
the Pixtral vision tower (``pixtral``) as transformers builds ``Mistral3ForConditionalGeneration`` and
``PixtralVisionModel`` (Pixtral-12B is a ``llava`` checkpoint with this tower: ``engine/multimodal/llava.py``).

Symbols: an image of H × W pixels, p the patch (14), m the merge (2), C the tower's width, d the language model's.

The processor (``PixtralImageProcessor``) keeps the aspect ratio: an image whose longest side exceeds the tower's
``image_size`` E is scaled by r = max(H, W)/E (floor), then each side is rounded up to a multiple of p·m; the tower
sees h × w = H'/p × W'/p patches. Pixtral: a p×p convolution (no bias) per image, the patches of all the sample's
images joined into one sequence, an RMSNorm (``ln_pre``), L layers (RMSNorm, q, k, v, o without biases, RMSNorm,
a gated SiLU/GELU MLP without biases; 2-D rotary positions, no table). The images' patches attend within their own
image: transformers' eager and SDPA attention compute the joined sequence's scores under a block-diagonal mask
(Σn)², as FLOPscope counts (flash attention's packed sequences would compute Σ n², less for several images).

Mistral 3's projector: an RMSNorm, the patch merger (each image's m × m neighbouring patches concatenated,
m²·C → C, no bias: counted as an m×m convolution of stride m, the same products), linear_1 C → d, GELU, linear_2
d → d. The language model receives h/m · w/m image tokens per image and h/m more text tokens (the processor ends each
row with [IMG_BREAK], the last with [IMG_END]), beside the prompt.
"""
from __future__ import annotations

import math

from ..errors import InputError
from ..method1.blocks import Each
from ..method1.layers import Activation, Conv2d, Dense
from ..method1.media import TokensToGrid
from ..method1.transformer import RMSNorm, TransformerBlock
from ..method1.vision import ToTokens
from .config_reader import ConfigReader
from .inputs import MediaInputs, vlm_images
from .language import language_layers, language_model, prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import ACTIVATIONS, feature_depth, unused_layers_note, unused_tail

PROJECTOR_ACTIVATIONS = {"gelu": "gelu", "gelu_pytorch_tanh": "gelu", "silu": "silu", "relu": "relu"}


def pixtral_sizes(c: ConfigReader) -> dict:
    """A Pixtral vision config's sizes (``c`` reads it)."""
    act = c.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise c.error("hidden_act", f"unknown activation {act!r}; known: {', '.join(ACTIVATIONS)}")
    d, heads, head = c.size("hidden_size"), c.size("num_attention_heads"), c.size("head_dim")
    if heads * head != d:
        raise c.error("head_dim", f"{heads} heads × {head} is not hidden_size {d} (Pixtral's attention is d wide)")
    c.neutral("rope_parameters", "rope_theta", "attention_dropout", "initializer_range")
    return {"d": d, "heads": heads, "ff": c.size("intermediate_size"), "layers": c.size("num_hidden_layers"),
            "channels": c.size("num_channels"), "image": c.size("image_size"), "patch": c.size("patch_size"),
            "act": ACTIVATIONS[act]}


def processed_size(inputs: MediaInputs, longest: int, multiple: int) -> tuple[int, int]:
    """``PixtralImageProcessor``'s size: at most ``longest`` on the longer side (floor), each side rounded up to a
    multiple of ``multiple``; no image size given: a square of ``longest``."""
    h, w = inputs.image_size or (longest, longest)
    ratio = max(h / longest, w / longest)
    if ratio > 1:
        h, w = int(math.floor(h / ratio)), int(math.floor(w / ratio))
    h, w = max(h, 1), max(w, 1)
    return ((h - 1) // multiple + 1) * multiple, ((w - 1) // multiple + 1) * multiple


def pixtral_layers(v: dict, images: int, grid: tuple[int, int], read_after: int | None = None) -> list:
    """The tower over ``images`` images of ``grid`` patches each, joined into one sequence; with ``read_after`` k
    the model reads the hidden states after k layers, and the layers after them run unused (forward only)."""
    block = TransformerBlock(mixer={"heads": v["heads"], "causal": False, "qkv_bias": False, "out_bias": False},
                             feed_forward={"size": v["ff"], "activation": v["act"], "gated": True, "bias": False},
                             norms={"kind": "rmsnorm"})
    k = v["layers"] if read_after is None else read_after
    tail = unused_tail([block] * (v["layers"] - k), v["layers"] - k)
    return [Each(count=images, name="each image's patches", layers=[
                Conv2d(filters=v["d"], kernel_size=v["patch"], stride=v["patch"], bias=False, name="patch_conv"),
                ToTokens()]),
            RMSNorm(name="ln_pre"), *[block] * k] + tail


@reader("mistral3", family="Mistral 3 (Pixtral + Mistral)", library="transformers")
def read_mistral3(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "mistral3", source, library="transformers")
    vision = c.raw("vision_config")
    vision_type = vision.get("model_type", "pixtral") if isinstance(vision, dict) else "pixtral"
    if vision_type != "pixtral":
        raise InputError(f"{source}.vision_config.model_type", f"{vision_type!r}: Mistral 3's tower is pixtral")
    sub = c.sub("vision_config", "pixtral")
    v = pixtral_sizes(sub)
    layer = c.raw("vision_feature_layer")
    if not (isinstance(layer, int) and not isinstance(layer, bool) and -v["layers"] - 1 <= layer <= v["layers"]):
        raise c.error("vision_feature_layer", "expected one layer number (the patch merger takes one layer's "
                                              f"{v['d']} features) of the {v['layers']}-layer tower")
    m = c.size("spatial_merge_size")
    act = c.raw("projector_hidden_act")
    if act not in PROJECTOR_ACTIVATIONS:
        raise c.error("projector_hidden_act", f"unknown activation {act!r}")
    bias = c.flag("multimodal_projector_bias")
    c.neutral("text_config", "tie_word_embeddings", "image_token_index", "image_token_id")
    text = language_model(data, source)
    unused = c.finish() + [f"vision_config.{k}" for k in sub.finish()]
    images = vlm_images(inputs)
    t = prompt_tokens(inputs.text_tokens)
    size = processed_size(inputs, v["image"], v["patch"] * m)
    h, w = size[0] // v["patch"], size[1] // v["patch"]
    rows, cols = h // m, w // m
    stage = StageBuilder("vlm")
    read_after = feature_depth([layer], v["layers"])
    stage.add("vision", pixtral_layers(v, images, (h, w), read_after))
    stage.add("projector", [RMSNorm(name="norm"), Each(count=images, split=True, name="each image's patches", layers=[
        TokensToGrid(grid=[h, w], name="patch grid"),
        Conv2d(filters=v["d"], kernel_size=m, stride=m, bias=False, name=f"patch_merger ({m}x{m} patches → 1)"),
        ToTokens()]), Dense(units=text.d_model, bias=bias, name="linear_1"),
        Activation(function=PROJECTOR_ACTIVATIONS[act]), Dense(units=text.d_model, bias=bias, name="linear_2")])
    n = rows * cols
    stage.add("language_model", language_layers(text, images * n, t + images * rows))
    given = f"{inputs.image_size[0]}x{inputs.image_size[1]} → " if inputs.image_size else ""
    return ReadModel("mistral3", "Mistral3ForConditionalGeneration",
                     (stage.build([size[0], size[1], v["channels"]]),),
                     {"image_size": f"{given}{size[0]}x{size[1]}", "images": images, "text_tokens": t,
                      "row_tokens": images * rows}, images * n,
                     (f"{images} image(s) of {size[0]}x{size[1]} pixels: {h}×{w} patches of {v['patch']}, merged "
                      f"{m}×{m} into {rows}×{cols} = {n} tokens each, and {rows} row-end tokens ([IMG_BREAK], "
                      "[IMG_END]) each; the vision tower attends over all the images' patches joined (block-diagonal "
                      "mask)", *unused_layers_note(v, read_after)),
                     tuple(unused) + tuple(text.unused_keys))


@reader("pixtral", family="Pixtral vision tower", library="transformers")
def read_pixtral(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    """``PixtralVisionModel`` alone: the images at the processor's size (patch multiples, longest side ≤ E)."""
    c = ConfigReader(data, "pixtral", source, library="transformers")
    v = pixtral_sizes(c)
    names = c.raw("architectures") or []
    unused = c.finish()
    if inputs.text_tokens:
        raise InputError("text_tokens", "a vision tower alone reads no text")
    images = vlm_images(inputs)
    size = processed_size(inputs, v["image"], v["patch"])
    h, w = size[0] // v["patch"], size[1] // v["patch"]
    stage = StageBuilder("vision")
    stage.add("vision", pixtral_layers(v, images, (h, w)))
    given = f"{inputs.image_size[0]}x{inputs.image_size[1]} → " if inputs.image_size else ""
    return ReadModel("pixtral", names[0] if names else "PixtralVisionModel",
                     (stage.build([size[0], size[1], v["channels"]]),),
                     {"image_size": f"{given}{size[0]}x{size[1]}", "images": images, "patches_per_image": h * w},
                     None, (f"{images} image(s), {h}×{w} patches of {v['patch']} each, attending over all the images' "
                            "patches joined (block-diagonal mask)",), tuple(unused))
