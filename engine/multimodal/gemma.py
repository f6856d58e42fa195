"""Gemma 3 (``gemma3``, Gemma3ForConditionalGeneration) and PaliGemma (``paligemma``), read from their config.json:
a SigLIP vision tower (``engine.multimodal.vision_towers``) in front of a Gemma language model.

Gemma 3: the processor resizes each image to S × S (896); SigLIP's (S/p)² = 4096 patch tokens are averaged in
k × k squares to ``mm_tokens_per_image`` = 256 (k = 64/16 = 4), normed (RMS, γ of C) and projected C → d without a
bias; the language model reads them among the prompt's tokens. PaliGemma: SigLIP's (S/p)² tokens (256 at 224 px,
1024 at 448, 4096 at 896) projected C → d with a bias.
"""
from __future__ import annotations

import math

from ..method1.blocks import Each
from ..method1.layers import AvgPool2d, Dense
from ..method1.media import TokensToGrid
from ..method1.transformer import RMSNorm
from ..method1.vision import ToTokens
from .config_reader import ConfigReader
from .inputs import MediaInputs, vlm_images
from .language import language_layers, language_model, prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import patches, read_tower, tower_layers, unused_head_note


def _size(inputs: MediaInputs, v: dict) -> str:
    side = f"{v['image']}x{v['image']}"
    return f"{inputs.image_size[0]}x{inputs.image_size[1]} resized to {side}" if inputs.image_size else side


@reader("gemma3", family="Gemma 3 (SigLIP + Gemma 3)", library="transformers")
def read_gemma3(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "gemma3", source, library="transformers")
    v, vision_type = read_tower(c, default="siglip_vision_model", allowed=("siglip_vision_model",))
    per_image = c.size("mm_tokens_per_image")
    side = v["image"] // v["patch"]
    out_side = math.isqrt(per_image)
    if out_side * out_side != per_image or side % out_side:
        raise c.error("mm_tokens_per_image", f"{per_image} is not a square whose side divides the {side}×{side} patch "
                                             "grid (the tokens are averages of square pools of patches)")
    c.neutral("text_config", "tie_word_embeddings", "boi_token_index", "eoi_token_index", "initializer_range")
    text = language_model(data, source)
    unused = c.finish()
    images = vlm_images(inputs)
    t = prompt_tokens(inputs.text_tokens)
    k = side // out_side
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=images, layers=tower_layers(v, vision_type), name="each image")])
    stage.add("projector", [Each(count=images, split=True, name="each image's tokens", layers=[
        TokensToGrid(grid=[side, side], name="patch grid"),
        AvgPool2d(kernel_size=k, stride=k, name=f"{k}x{k} average pool"), ToTokens(), RMSNorm(name="mm_soft_emb_norm"),
        Dense(units=text.d_model, bias=False, name="mm_input_projection")])])
    stage.add("language_model", language_layers(text, images * per_image, t))
    return ReadModel("gemma3", "Gemma3ForConditionalGeneration",
                     (stage.build([v["image"], v["image"], v["channels"]]),),
                     {"image_size": _size(inputs, v), "images": images, "text_tokens": t}, images * per_image,
                     (f"{images} image(s): {patches(v)} patches pooled to {per_image} tokens each",
                      *unused_head_note(v, images)),
                     tuple(unused) + v["unused"] + tuple(text.unused_keys))


@reader("paligemma", family="PaliGemma (SigLIP + Gemma)", library="transformers")
def read_paligemma(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "paligemma", source, library="transformers")
    v, vision_type = read_tower(c, default="siglip_vision_model", allowed=("siglip_vision_model",),
                                extra=("projection_dim",))
    width = c.size("projection_dim")  # PaliGemmaConfig sets vision_config.projection_dim to it
    c.neutral("text_config", "tie_word_embeddings", "hidden_size", "vocab_size")
    text = language_model(data, source)
    if width != text.d_model:
        raise c.error("projection_dim", f"{width}: the projector must reach the language model's width {text.d_model}")
    unused = c.finish()
    images = vlm_images(inputs)
    t = prompt_tokens(inputs.text_tokens)
    n = patches(v)
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=images, layers=tower_layers(v, vision_type), name="each image")])
    stage.add("projector", [Dense(units=width, name="multi_modal_projector")])
    stage.add("language_model", language_layers(text, images * n, t))
    return ReadModel("paligemma", "PaliGemmaForConditionalGeneration",
                     (stage.build([v["image"], v["image"], v["channels"]]),),
                     {"image_size": _size(inputs, v), "images": images, "text_tokens": t}, images * n,
                     (f"{images} image(s) → {n} tokens each", *unused_head_note(v, images)),
                     tuple(unused) + v["unused"] + tuple(text.unused_keys))
