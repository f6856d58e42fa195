"""Llama 4 (``llama4``: Scout, Maverick; early fusion) as transformers builds ``Llama4ForConditionalGeneration``: a
ViT over image tiles, a pixel-shuffle MLP, a projector and the mixture-of-experts language model (``llama4_text``,
read by ``engine/llm``).

Symbols: S the tile (``image_size``, 336), p the patch (14), n = (S/p)² patches (576), C the tower's width, r the
``pixel_shuffle_ratio`` (0.5: k = 1/r² = 4 patches a token, n/k = 144 tokens a tile), D the language model's.

The processor (``Llama4ImageProcessor``: up to 16 tiles) resizes the image without distortion onto the canvas of
h × w tiles (h·w ≤ 16) that needs the smallest upscaling (else the least downscaling; ties: the smallest area) and,
when that is more than one tile, adds the whole image as a global tile: h·w + 1 tiles, else one. Each tile: the
patches unfolded and projected (C·p² → C, no bias: a p×p convolution's products), a class token, a table of n + 1
positions, a LayerNorm, L layers (LayerNorm, biased q, k, v, o with 2-D rotary positions, LayerNorm, fc1, GELU, fc2),
a LayerNorm, the class token dropped; the pixel shuffle (k·C = ``intermediate_size`` wide tokens), fc1 → P_in, GELU,
fc2 → P_out, GELU (no biases), and the projector P_out → D (no bias). The language model receives 144 tokens a tile
and the processor's markup as text: <|image_start|>, a <|tile_x_separator|> between tiles of a row and a
<|tile_y_separator|> after each row, <|image|> before the global tile, <|image_end|> (h·w + 3 tokens; one tile: 3).

The language model's experts: the model routes each token to k of E experts (``num_experts_per_tok``) beside the
shared expert; transformers' ``Llama4TextMoe`` runs every expert on every token, its inputs scaled by the router's
scores (zero off the top k). FLOPscope counts the routed work, what the model defines (docs/llm.md; the tests take
transformers' idle-expert products off its count, ``tests/llm/hf_reference.idle_expert_flop``).
"""
from __future__ import annotations


from ..method1.blocks import Each
from ..method1.layers import Activation, Conv2d, Dense, LayerNorm
from ..method1.media import MergeTokens, SequenceSlice
from ..method1.transformer import PositionEmbedding, TransformerBlock
from ..method1.vision import ClassToken, ToTokens
from .config_reader import ConfigReader
from .inputs import MediaInputs, vlm_images
from .language import language_layers, language_model, prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import ACTIVATIONS

MAX_TILES = 16
"""Llama4ImageProcessor's ``max_patches``."""


def supported_canvases(max_tiles: int = MAX_TILES) -> list[tuple[int, int]]:
    """``find_supported_resolutions`` in tiles: (h, w) with h·w ≤ ``max_tiles``, grouped by aspect ratio in the order
    the processor lists them."""
    groups: dict[float, list[tuple[int, int]]] = {}
    for chunks in range(max_tiles, 0, -1):
        for factor in sorted(f for f in range(1, chunks + 1) if chunks % f == 0):
            groups.setdefault(factor / (chunks // factor), []).append((factor, chunks // factor))
    return [grid for grids in groups.values() for grid in grids]


def best_fit(size: tuple[int, int], tile: int, max_tiles: int = MAX_TILES) -> tuple[int, int]:
    """``get_best_fit`` (without ``resize_to_max_canvas``): the canvas, in tiles (h, w)."""
    height, width = size
    canvases = supported_canvases(max_tiles)
    scales = [min(h * tile / height, w * tile / width) for h, w in canvases]
    up = [s for s in scales if s >= 1]
    chosen = min(up) if up else max(s for s in scales if s < 1)
    candidates = [c for c, s in zip(canvases, scales) if s == chosen]
    return min(candidates, key=lambda c: c[0] * c[1])  # the first of the smallest area, as torch.argmin


@reader("llama4", family="Llama 4 (early fusion, mixture of experts)", library="transformers")
def read_llama4(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "llama4", source, library="transformers")
    sub = c.sub("vision_config", "llama4_vision_model")
    act = sub.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise sub.error("hidden_act", f"unknown activation {act!r}")
    d, heads, ff, layers = (sub.size(k) for k in ("hidden_size", "num_attention_heads", "intermediate_size",
                                                   "num_hidden_layers"))
    image, patch, channels = sub.size("image_size"), sub.size("patch_size"), sub.size("num_channels")
    if d % heads:
        raise sub.error("num_attention_heads", f"{heads} heads do not divide hidden_size {d}")
    if image % patch:
        raise sub.error("image_size", f"{image} is not a multiple of the patch {patch}")
    ratio = sub.raw("pixel_shuffle_ratio")
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 0 < ratio < 1 or \
            abs(1 / ratio - round(1 / ratio)) > 1e-9:
        raise sub.error("pixel_shuffle_ratio", f"{ratio!r}: expected 1/m for a whole m (0.5)")
    m = round(1 / ratio)
    k = m * m
    side = image // patch
    if side % m:
        raise sub.error("pixel_shuffle_ratio", f"the {side}×{side} patch grid does not split into {m}×{m} groups")
    if ff != k * d:
        raise sub.error("intermediate_size", f"{ff}: the pixel-shuffle MLP takes {k} patches of {d} ({k * d}) into "
                                             "its first layer, which is intermediate_size wide")
    p_in, p_out = sub.size("projector_input_dim"), sub.size("projector_output_dim")
    out = sub.size("vision_output_dim")
    if out != p_out:
        raise sub.error("vision_output_dim", f"{out} is not projector_output_dim {p_out} (the projector reads the "
                                             "pixel-shuffle MLP's output)")
    if sub.flag("multi_modal_projector_bias"):
        raise sub.error("multi_modal_projector_bias", "true is not read by transformers' Llama4 projector (no bias)")
    sub.choice("vision_feature_select_strategy", ("default",))
    sub.neutral("rope_parameters", "norm_eps", "attention_dropout", "projector_dropout", "initializer_range",
                "vision_feature_layer")
    c.neutral("text_config", "tie_word_embeddings", "boi_token_index", "eoi_token_index", "image_token_index")
    text = language_model(data, source)
    unused = c.finish() + [f"vision_config.{key}" for key in sub.finish()]
    images = vlm_images(inputs, "Llama 4 takes images, not video")
    size = inputs.image_size or (image, image)
    h, w = best_fit(size, image)
    per_image = h * w + 1 if h * w > 1 else 1
    markup = h * w + 3 if h * w > 1 else 3
    n = side * side
    per_tile = n // k
    block = TransformerBlock(mixer={"heads": heads, "causal": False},
                             feed_forward={"size": ff, "activation": ACTIVATIONS[act]})
    tower = [Conv2d(filters=d, kernel_size=patch, stride=patch, bias=False, name="patch_embedding (unfold + linear)"),
             ToTokens(), ClassToken(name="class_embedding"),
             PositionEmbedding(max_positions=n + 1, name="positional_embedding_vlm"), LayerNorm(name="layernorm_pre"),
             *[block] * layers, LayerNorm(name="layernorm_post"),
             SequenceSlice(start=0, length=n, name="patch tokens (class token dropped)"),
             MergeTokens(factor=k, name=f"pixel shuffle ({m}×{m} patches)"),
             Dense(units=p_in, bias=False, name="vision_adapter fc1"), Activation(function="gelu"),
             Dense(units=p_out, bias=False, name="vision_adapter fc2"), Activation(function="gelu")]
    count = images * per_image
    t = prompt_tokens(inputs.text_tokens)
    stage = StageBuilder("vlm")
    stage.add("vision", [Each(count=count, name="each tile", layers=tower)])
    stage.add("projector", [Dense(units=text.d_model, bias=False, name="multi_modal_projector linear_1")])
    stage.add("language_model", language_layers(text, count * per_tile, t + images * markup))
    layout = f"{h}×{w} tiles + the global tile" if per_image > 1 else "one tile"
    return ReadModel("llama4", "Llama4ForConditionalGeneration", (stage.build([image, image, channels]),),
                     {"image_size": f"{size[0]}x{size[1]}", "images": images, "tiles_per_image": per_image,
                      "layout": layout, "text_tokens": t, "markup_tokens": images * markup}, count * per_tile,
                     (f"{images} image(s) of {size[0]}x{size[1]}: {layout} of {image}x{image}, {n} patches each "
                      f"shuffled into {per_tile} tokens; {markup} markup tokens per image; the language model's "
                      "experts counted as routed (transformers runs every expert on every token: docs/multimodal.md)",),
                     tuple(unused) + tuple(text.unused_keys))
