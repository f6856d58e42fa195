"""LLaVA-1.5 (``llava``; Liu et al. 2023) and LLaVA-NeXT (``llava_next``, any-resolution tiles), read from their
config.json as transformers builds ``LlavaForConditionalGeneration`` and ``LlavaNextForConditionalGeneration``.

Symbols: the vision tower's image size S and patch p, N = (S/p)² patches (576 for CLIP-L/14 at 336 px), C its
width, d the language model's width, T the prompt's text tokens.

LLaVA-1.5: the processor resizes each image to S × S; the vision tower (CLIP, all its layers: transformers runs
them all and takes the hidden states of ``vision_feature_layer``, the second to last) gives N + 1 tokens, the class
token dropped (``vision_feature_select_strategy`` "default"); the projector C·k → d, GELU, d → d (k feature layers
concatenated) at each of the N tokens; the language model over N + T tokens.

LLaVA-NeXT: each image is also cut into tiles of S × S at the resolution of ``image_grid_pinpoints`` that keeps most
of it (transformers' ``select_best_resolution``): the base image and the n_h × n_w tiles all go through the tower
and the projector; the tiles' tokens, arranged as an (n_h·S/p) × (n_w·S/p) grid, lose the rows or columns that
are padding for the image's aspect ratio (``unpad_image``) and get a learned newline token at the end of each row:
the language model receives N + h'·(w' + 1) tokens per image.
"""
from __future__ import annotations

from ..method1.blocks import Branches, Each
from ..method1.layers import Activation, Dense
from ..method1.media import ContextTokens, LearnedValues, SequenceSlice
from .config_reader import ConfigReader
from .inputs import MediaInputs, vlm_images
from .language import language_layers, language_model, prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import (feature_depth, patches, read_tower, tower_layers, unused_head_note,
                            unused_layers_note)

PROJECTOR_ACTIVATIONS = {"gelu": "gelu", "gelu_pytorch_tanh": "gelu", "quick_gelu": "gelu", "relu": "relu",
                         "silu": "silu"}


def select_best_resolution(size: tuple[int, int], resolutions: list) -> tuple[int, int]:
    """transformers' ``select_best_resolution``: the (height, width) among ``resolutions`` that keeps most of an
    image of ``size`` once scaled to fit, and wastes least."""
    h0, w0 = size
    best, best_effective, best_waste = None, 0, float("inf")
    for h, w in resolutions:
        scale = min(w / w0, h / h0)
        effective = min(int(w0 * scale) * int(h0 * scale), w0 * h0)
        waste = w * h - effective
        if effective > best_effective or (effective == best_effective and waste < best_waste):
            best, best_effective, best_waste = (h, w), effective, waste
    return best


def unpadded(size: tuple[int, int], grid: tuple[int, int]) -> tuple[int, int]:
    """transformers' ``unpad_image`` on a (rows, columns) grid of tile tokens: the rows or columns the image's
    aspect ratio leaves as padding removed."""
    h0, w0 = size
    rows, cols = grid
    if w0 / h0 > cols / rows:
        new = int(round(h0 * (cols / w0), 7))
        return rows - 2 * ((rows - new) // 2), cols
    new = int(round(w0 * (rows / h0), 7))
    return rows, cols - 2 * ((cols - new) // 2)


def _vision(c: ConfigReader) -> tuple[dict, str]:
    return read_tower(c)


def _common(c: ConfigReader, v: dict, vision_type: str) -> dict:
    layer = c.raw("vision_feature_layer")
    layers = layer if isinstance(layer, list) else [layer]
    if not layers or not all(isinstance(i, int) and not isinstance(i, bool) and -v["layers"] - 1 <= i <= v["layers"]
                             for i in layers):
        raise c.error("vision_feature_layer", f"expected a layer number (or a list of them) of the {v['layers']}-layer "
                                              "vision tower")
    strategy = c.choice("vision_feature_select_strategy", ("default", "full"))
    act = c.raw("projector_hidden_act")
    if act not in PROJECTOR_ACTIVATIONS:
        raise c.error("projector_hidden_act", f"unknown activation {act!r}")
    c.neutral("text_config", "image_seq_length", "tie_word_embeddings")
    # "default" drops the first token whatever the tower (transformers' [:, 1:]): CLIP's class token, a SigLIP patch
    return {"features": len(layers), "read_after": feature_depth(layers, v["layers"]),
            "drop_class": strategy == "default",
            "act": PROJECTOR_ACTIVATIONS[act], "bias": c.flag("multimodal_projector_bias")}


def _tokens(v: dict, vision_type: str) -> int:
    """The tower's tokens per image: N patches, + CLIP's class token."""
    return patches(v) + (vision_type == "clip_vision_model")


def _tower_layers(v: dict, vision_type: str, p: dict) -> list:
    """The whole tower (transformers runs every layer, then reads the feature layers' hidden states: the layers
    after the deepest one read run unused)."""
    tower = tower_layers(v, vision_type, p["read_after"])
    if p["drop_class"]:
        tower.append(SequenceSlice(start=1, length=_tokens(v, vision_type) - 1, name="the first token dropped"
                                   + (" (the class token)" if vision_type == "clip_vision_model" else "")))
    return tower


def _projector(p: dict, d: int) -> list:
    """linear_1 (C·k → d), act, linear_2 (d → d); k feature layers' hidden states side by side first."""
    wide = [Branches(branches=[[] for _ in range(p["features"])], merge="concat",
                     name=f"{p['features']} feature layers side by side")] if p["features"] > 1 else []
    return wide + [Dense(units=d, bias=p["bias"], name="projector linear_1"), Activation(function=p["act"]),
                   Dense(units=d, bias=p["bias"], name="projector linear_2")]


@reader("llava", family="LLaVA-1.5", library="transformers")
def read_llava(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "llava", source, library="transformers")
    v, vision_type = _vision(c)
    p = _common(c, v, vision_type)
    text = language_model(data, source)
    unused = c.finish()
    images = vlm_images(inputs)
    t = prompt_tokens(inputs.text_tokens)
    n = _tokens(v, vision_type) - p["drop_class"]
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=images, layers=_tower_layers(v, vision_type, p), name="each image")])
    stage.add("projector", _projector(p, text.d_model))
    stage.add("language_model", language_layers(text, images * n, t))
    size = f"{v['image']}x{v['image']}"
    return ReadModel("llava", "LlavaForConditionalGeneration", (stage.build([v["image"], v["image"], v["channels"]]),),
                     {"image_size": f"{inputs.image_size[0]}x{inputs.image_size[1]} resized to {size}"
                      if inputs.image_size else size, "images": images, "text_tokens": t}, images * n,
                     (f"{images} image(s) → {n} tokens each; the language model over {images * n} image and {t} text "
                      "tokens", *unused_layers_note(v, p["read_after"]), *unused_head_note(v, images)),
                     tuple(unused) + v["unused"] + tuple(text.unused_keys))


@reader("llava_next", family="LLaVA-NeXT (any-resolution tiles)", library="transformers")
def read_llava_next(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "llava_next", source, library="transformers")
    v, vision_type = _vision(c)
    p = _common(c, v, vision_type)
    pinpoints = c.raw("image_grid_pinpoints")
    if not isinstance(pinpoints, list) or not pinpoints or not all(
            isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) and x > 0 for x in r) for r in pinpoints):
        raise c.error("image_grid_pinpoints", "expected a list of [height, width] resolutions")
    c.neutral("use_image_newline_parameter")
    text = language_model(data, source)
    unused = c.finish()
    images = vlm_images(inputs)
    t = prompt_tokens(inputs.text_tokens)
    size = inputs.image_size or (v["image"], v["image"])
    best = select_best_resolution(size, pinpoints)
    tiles = (best[0] // v["image"]) * (best[1] // v["image"])
    side = v["image"] // v["patch"]
    n = _tokens(v, vision_type) - p["drop_class"]
    rows, cols = unpadded(size, (best[0] // v["image"] * side, best[1] // v["image"] * side))
    per_image = n + rows * (cols + 1)
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=images * (1 + tiles), layers=_tower_layers(v, vision_type, p),
                              name="each image and tile")])
    projector = _projector(p, text.d_model)
    # the tiles' padding rows and columns dropped, a newline token (learned, d) after each row
    kept = images * per_image
    stage.add("projector", [*projector, LearnedValues(count=text.d_model, name="image_newline"),
                            SequenceSlice(length=images * (n + rows * cols), name="unpadded tokens"),
                            _newlines(images * rows, text.d_model)])
    stage.add("language_model", language_layers(text, kept, t))
    return ReadModel("llava_next", "LlavaNextForConditionalGeneration",
                     (stage.build([v["image"], v["image"], v["channels"]]),),
                     {"image_size": f"{size[0]}x{size[1]}", "images": images, "tiles": f"{best[0] // v['image']}x"
                      f"{best[1] // v['image']} of {v['image']}x{v['image']} + the base image", "text_tokens": t},
                     kept, (f"{images} image(s) at {best[0]}x{best[1]}: {1 + tiles} tower passes each; {per_image} "
                            f"tokens each ({n} base + {rows} rows of {cols} + a newline)",
                            *unused_layers_note(v, p["read_after"]), *unused_head_note(v, images * (1 + tiles))),
                     tuple(unused) + v["unused"] + tuple(text.unused_keys))


def _newlines(count: int, d: int) -> ContextTokens:
    """``count`` newline tokens (the learned image_newline, repeated) joining the sequence: no arithmetic."""
    return ContextTokens(tokens=count, in_features=d, projection=False, name="a newline token after each row")
