"""InternVL (``internvl``; Chen et al. 2024, InternVL 2.5/3 as transformers builds
``InternVLForConditionalGeneration``): an InternViT vision tower, a pixel-shuffle MLP projector and a Qwen2 (or
other) language model.

Symbols: S the tower's ``image_size`` (a tile, 448), p its patch (14), n = (S/p)² patches, r the
``downsample_ratio`` (0.5: k = (1/r)² = 4 patches per token), C the tower's width, D the language model's.

The processor (``GotOcr2ImageProcessor`` with ``crop_to_patches``, as InternVL's checkpoints set it: tiles of S,
at most 12) picks the grid of c × r' tiles (1 ≤ c·r' ≤ 12) whose aspect ratio is closest to the image's (ties: more
tiles while they cover less than twice the image) and, when that is more than one tile, adds a thumbnail: c·r' + 1
tiles, else one. Each tile through InternViT: a p×p convolution with a bias, a class token, a table of n + 1 positions,
L layers (norm, q, k, v — biased by ``attention_bias`` — and a biased output, an optional RMSNorm of q and k over the
width, a layer scale λ₁; norm, fc1, act, fc2, a layer scale λ₂; λ: 2·C values a layer, no matmul), a final LayerNorm
unless ``use_mean_pooling``. The class token dropped (``vision_feature_select_strategy`` "default"), k neighbouring
patches side by side (pixel shuffle: n/k tokens of k·C), the projector LayerNorm(k·C), linear k·C → D, GELU, D → D
(biased). The language model receives n/k = 256 tokens per tile between <img> and </img> (2 text tokens an image).
"""
from __future__ import annotations

from ..method1.blocks import Each
from ..method1.layers import Activation, Conv2d, Dense, LayerNorm
from ..method1.media import LearnedValues, MergeTokens, SequenceSlice
from ..method1.transformer import PositionEmbedding, RMSNorm, TransformerBlock
from ..method1.vision import ClassToken, ToTokens
from .config_reader import ConfigReader
from .inputs import MediaInputs, vlm_images
from .language import language_layers, language_model, prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import ACTIVATIONS

MAX_TILES = 12
"""InternVL's processors: at most 12 tiles an image (``max_patches``)."""


def tile_grid(size: tuple[int, int], tile: int, min_tiles: int = 1, max_tiles: int = MAX_TILES) -> tuple[int, int]:
    """(columns, rows) of ``get_optimal_tiled_canvas``."""
    grids = sorted(((w, h) for w in range(1, max_tiles + 1) for h in range(1, max_tiles + 1)
                    if min_tiles <= w * h <= max_tiles), key=lambda g: g[0] * g[1])
    height, width = size
    aspect, area = width / height, width * height
    best, best_diff = (1, 1), float("inf")
    for grid in grids:
        diff = abs(aspect - grid[0] / grid[1])
        if diff < best_diff:
            best, best_diff = grid, diff
        elif diff == best_diff and area > 0.5 * tile * tile * grid[0] * grid[1]:
            best = grid
    return best


def _pair(c: ConfigReader, key: str) -> int:
    value = c.raw(key)
    if isinstance(value, list):
        if len(value) != 2 or value[0] != value[1]:
            raise c.error(key, f"expected a square ({value!r} is not): this reader counts square tiles")
        value = value[0]
    return c.size(key, value)


@reader("internvl", family="InternVL (InternViT + pixel shuffle + Qwen2)", library="transformers")
def read_internvl(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "internvl", source, library="transformers")
    sub = c.sub("vision_config", "internvl_vision")
    act = sub.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise sub.error("hidden_act", f"unknown activation {act!r}")
    d, heads, ff, layers = (sub.size(k) for k in ("hidden_size", "num_attention_heads", "intermediate_size",
                                                   "num_hidden_layers"))
    if d % heads:
        raise sub.error("num_attention_heads", f"{heads} heads do not divide hidden_size {d}")
    image, patch, channels = _pair(sub, "image_size"), _pair(sub, "patch_size"), sub.size("num_channels")
    if image % patch:
        raise sub.error("image_size", f"{image} is not a multiple of the patch {patch}")
    norm = sub.choice("norm_type", ("layer_norm", "rms_norm"))
    qk_norm = sub.flag("use_qk_norm")
    if qk_norm and norm != "rms_norm":
        raise sub.error("use_qk_norm", "q/k RMSNorms beside LayerNorms are not modelled (InternViT-6B uses both with "
                                       "norm_type rms_norm)")
    bias = sub.flag("attention_bias")
    positions = sub.flag("use_absolute_position_embeddings")
    mean_pool = sub.flag("use_mean_pooling")
    sub.require("use_mask_token", lambda v: not v, "a mask token (masked image modelling) is not used in generation")
    sub.neutral("layer_scale_init_value", "layer_norm_eps", "attention_dropout", "hidden_dropout_prob",
                "projection_dropout", "initializer_range")
    ratio = c.raw("downsample_ratio")
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 0 < ratio <= 1 or \
            abs(1 / ratio - round(1 / ratio)) > 1e-9:
        raise c.error("downsample_ratio", f"{ratio!r}: expected 1/k for a whole k (0.5: 2×2 patches a token)")
    k = round(1 / ratio) ** 2
    side = image // patch
    if side % round(1 / ratio):
        raise c.error("downsample_ratio", f"the {side}×{side} patch grid does not split into {round(1 / ratio)}×"
                                          f"{round(1 / ratio)} groups")
    layer = c.raw("vision_feature_layer")
    if layer != -1:
        raise c.error("vision_feature_layer", f"{layer!r}: this reader counts the last layer's features (-1)")
    strategy = c.choice("vision_feature_select_strategy", ("default", "full"))
    p_act = c.raw("projector_hidden_act")
    if p_act not in ACTIVATIONS:
        raise c.error("projector_hidden_act", f"unknown activation {p_act!r}")
    c.neutral("text_config", "tie_word_embeddings", "image_token_id", "image_seq_length")
    text = language_model(data, source)
    unused = c.finish() + [f"vision_config.{key}" for key in sub.finish()]
    images = vlm_images(inputs, "video is not counted for this model (count its frames as images)")
    size = inputs.image_size or (image, image)
    cols, rows = tile_grid(size, image)
    per_image = cols * rows + 1 if cols * rows > 1 else 1
    n = side * side
    tokens = (n if strategy == "default" else n + 1) // k
    if strategy == "full" and (n + 1) % k:
        raise c.error("vision_feature_select_strategy", "\"full\" keeps the class token: n + 1 tokens do not shuffle")
    norm_layer = RMSNorm if norm == "rms_norm" else LayerNorm
    block = TransformerBlock(mixer={"heads": heads, "causal": False, "qkv_bias": bias, "out_bias": True,
                                    "qk_norm": "width" if qk_norm else "none"},
                             feed_forward={"size": ff, "activation": ACTIVATIONS[act]},
                             norms={"kind": "rmsnorm" if norm == "rms_norm" else "layernorm"})
    tower = [Conv2d(filters=d, kernel_size=patch, stride=patch, name="patch_embeddings"), ToTokens(),
             ClassToken(name="cls_token")]
    if positions:
        tower.append(PositionEmbedding(max_positions=n + 1, name="position_embeddings"))
    tower += [*[block] * layers, LearnedValues(count=2 * d * layers, name="layer scales λ₁, λ₂ (every layer)")]
    if not mean_pool:
        tower.append(norm_layer(name="layernorm"))
    if strategy == "default":
        tower.append(SequenceSlice(start=1, length=n, name="patch tokens (class token dropped)"))
    tower.append(MergeTokens(factor=k, name=f"pixel shuffle ({round(1 / ratio)}×{round(1 / ratio)} patches)"))
    count = images * per_image
    t = prompt_tokens(inputs.text_tokens)
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=count, name="each tile", layers=tower)])
    stage.add("projector", [LayerNorm(name="multi_modal_projector layer_norm"),
                            Dense(units=text.d_model, name="linear_1"), Activation(function=ACTIVATIONS[p_act]),
                            Dense(units=text.d_model, name="linear_2")])
    stage.add("language_model", language_layers(text, count * tokens, t + 2 * images))
    layout = f"{cols}×{rows} tiles + a thumbnail" if per_image > 1 else "one tile"
    return ReadModel("internvl", "InternVLForConditionalGeneration", (stage.build([image, image, channels]),),
                     {"image_size": f"{size[0]}x{size[1]}", "images": images, "tiles_per_image": per_image,
                      "layout": layout, "text_tokens": t}, count * tokens,
                     (f"{images} image(s) of {size[0]}x{size[1]}: {layout} of {image}x{image}, {n} patches each "
                      f"shuffled into {tokens} tokens; <img> and </img> around each image's tokens",),
                     tuple(unused) + tuple(text.unused_keys))
