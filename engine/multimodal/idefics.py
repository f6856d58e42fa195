"""Idefics3 (``idefics3``; Laurençon et al. 2024) and SmolVLM (``smolvlm``; Marafioti et al. 2025), read from their
config.json as transformers builds ``Idefics3ForConditionalGeneration`` and ``SmolVLMForConditionalGeneration``: a
SigLIP-style vision tower, a pixel-shuffle connector and a Llama-style language model.

Symbols: S the tower's ``image_size`` (a tile), p its patch, n = (S/p)² patches per tile, s the ``scale_factor``, C
the tower's width, D the language model's.

The processor (``Idefics3ImageProcessor``, ``SmolVLMImageProcessor``; their checkpoints' processors set the tile to S
and the longest edge to 4·S, as these readers take them) scales an H × W image so that its longest side is 4·S
(the other side rounded up to even), rounds each side up to a multiple of S and, where that is larger than one tile,
cuts R × C tiles of S × S and adds the whole image resized to S × S (the global image): R·C + 1 tiles; else one.
Every tile goes through the tower (a p×p convolution with a bias, a table of n positions, L pre-norm layers, a final
LayerNorm); the connector's pixel shuffle puts s × s neighbouring patches side by side (n/s² tokens of s²·C: a
reshape) and one linear s²·C → D (no bias) projects them. The language model receives n/s² image tokens per tile
and the processor's markup as text: per tile <fake_token_around_image> and <row_i_col_j>, a newline after each row,
then a newline, <fake_token_around_image>, <global-img> and, after the global image, <fake_token_around_image>
(2·R·C + R + 4 tokens; an image in one tile: 3) — one token each (a tokenizer that joins the two newlines makes one
fewer).
"""
from __future__ import annotations

import math

from ..method1.blocks import Each
from ..method1.layers import Dense
from ..method1.media import MergeTokens
from .config_reader import ConfigReader
from .inputs import MediaInputs, vlm_images
from .language import language_layers, language_model, prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import patches, siglip_vision_layers, vit_sizes

MAX_IMAGE_SIZE = 4096
"""The processors' absolute maximum side (``MAX_IMAGE_SIZE``)."""


def _rescale_to_max_len(h: int, w: int, max_len: int) -> tuple[int, int]:
    """``_resize_output_size_rescale_to_max_len``: the longest side to ``max_len``, the other kept in ratio, even."""
    ratio = w / h
    if w >= h:
        w, h = max_len, int(max_len / ratio)
        h += h % 2
    else:
        h, w = max_len, int(max_len * ratio)
        w += w % 2
    return max(h, 1), max(w, 1)


def _below_upper_bound(h: int, w: int, max_len: int) -> tuple[int, int]:
    ratio = w / h
    if w >= h and w > max_len:
        w, h = max_len, int(max_len / ratio)
    elif h > w and h > max_len:
        h, w = max_len, int(max_len * ratio)
    return max(h, 1), max(w, 1)


def tiles(size: tuple[int, int], tile: int) -> tuple[int, int]:
    """(rows, columns) of tiles for an image of ``size`` (0, 0: one tile, no global image):
    ``get_number_of_image_patches`` with the longest edge 4 × ``tile``."""
    h, w = _below_upper_bound(*_rescale_to_max_len(*size, 4 * tile), MAX_IMAGE_SIZE)
    rh, rw = math.ceil(h / tile) * tile, math.ceil(w / tile) * tile
    if rh > tile or rw > tile:
        return math.ceil(rh / tile), math.ceil(rw / tile)
    return 0, 0


def _read(data: dict, inputs: MediaInputs, source: str, model_type: str, cls: str) -> ReadModel:
    c = ConfigReader(data, model_type, source, library="transformers")
    vision_type = f"{model_type}_vision"
    sub = c.sub("vision_config", vision_type)
    v = vit_sizes(sub)
    sub.neutral("layer_norm_eps", "attention_dropout", "initializer_range")
    s = c.size("scale_factor")
    n = patches(v)
    side = v["image"] // v["patch"]
    if side % s:
        raise c.error("scale_factor", f"{s} does not divide the {side}×{side} patch grid (the pixel shuffle groups "
                                      f"{s}×{s} patches)")
    c.neutral("text_config", "tie_word_embeddings", "image_token_id", "use_cache", "pad_token_id")
    text = language_model(data, source)
    unused = c.finish() + [f"vision_config.{k}" for k in sub.finish()]
    images = vlm_images(inputs, "video is not counted for this model (its frames go through the image path one "
                                "by one: count them as images)")
    size = inputs.image_size or (4 * v["image"], 4 * v["image"])
    rows, cols = tiles(size, v["image"])
    per_image = rows * cols + 1 if rows else 1
    markup = 2 * rows * cols + rows + 4 if rows else 3
    per_tile = n // (s * s)
    t = prompt_tokens(inputs.text_tokens)
    count = images * per_image
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=count, name="each tile", layers=siglip_vision_layers(v))])
    stage.add("projector", [Each(count=count, split=True, name="each tile's patches", layers=[
        MergeTokens(factor=s * s, name=f"pixel shuffle ({s}×{s} patches side by side)")]),
        Dense(units=text.d_model, bias=False, name="modality_projection")])
    stage.add("language_model", language_layers(text, count * per_tile, t + images * markup))
    layout = f"{rows}×{cols} tiles + the global image" if rows else "one tile"
    given = f"{size[0]}x{size[1]}"
    return ReadModel(model_type, cls, (stage.build([v["image"], v["image"], v["channels"]]),),
                     {"image_size": given, "images": images, "tiles_per_image": per_image, "layout": layout,
                      "text_tokens": t, "markup_tokens": images * markup}, count * per_tile,
                     (f"{images} image(s) of {given}: {layout} of {v['image']}x{v['image']} ({per_image} through the "
                      f"tower), {n} patches each shuffled {s}×{s} into {per_tile} tokens; {markup} markup tokens per "
                      "image",), tuple(unused) + tuple(text.unused_keys))


@reader("idefics3", family="Idefics3 (SigLIP + pixel shuffle + Llama)", library="transformers")
def read_idefics3(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    return _read(data, inputs, source, "idefics3", "Idefics3ForConditionalGeneration")


@reader("smolvlm", family="SmolVLM (SigLIP + pixel shuffle + SmolLM)", library="transformers")
def read_smolvlm(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    return _read(data, inputs, source, "smolvlm", "SmolVLMForConditionalGeneration")
