"""Llama 3.2 Vision (``mllama``) as transformers builds ``MllamaForConditionalGeneration``: a tiled ViT with a local
and a gated global encoder, a projector, and a Llama language model with cross-attention layers over the image.

Symbols: S the tile (``image_size``: 448 by default, 560 in Llama 3.2 Vision), p the patch (14), n = (S/p)² patches,
P' = n + 1 (the class token) padded up to a multiple of 8, T the tiles (``max_num_tiles``, 4), A the aspect ratios
(``supported_aspect_ratios``, 8), C the tower's width, k the intermediate layers kept, D the language model's width,
H, H_kv, Q its heads, key/value heads and head size, F its feed-forward size, M = images · T · (n + 1) the image
positions the cross-attention layers read.

The processor cuts each image into at most T tiles and pads the tiles to T (``MllamaImageProcessor``: pixel values
[images, T, 3, S, S]); the model runs every tile, padded ones included (their attention is masked, not skipped), so
the count does not depend on the image size and FLOPscope counts what the model runs: T tiles per image
(docs/multimodal.md). Per image: each tile's patches (a p × p convolution, no bias), a class token, a LayerNorm, the
tile padded to P' positions; the tiles joined (T · P' positions) through L local layers (LayerNorm, q, k, v, o
without biases, LayerNorm, fc1, GELU, fc2), a LayerNorm, then G global layers (the same, with tanh gates). Learned
tables added element-wise: the position table (P' − pad) · C and its tile table (A + 1) · T · (n + 1) · C, the pre- and
post-tile tables (A + 1) · T · C, five gates. The output (the final and k intermediate states: (k + 1) · C wide) goes
through the projector ((k + 1) · C → D, biased) once, at the M image positions.

The language model: the token table (V + 8 rows), Llama self-attention blocks and, at ``cross_attention_layers``,
cross-attention blocks (``engine.multimodal.cross_attention``: RMSNorm, q D → H·Q, k and v D → H_kv·Q from the M image
positions, RMSNorms of q and k over each head, o, a tanh gate; RMSNorm, the gated MLP, a tanh gate), the final RMSNorm
and the head V at every position.
The text holds one <|image|> token per image besides the prompt.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Each
from ..method1.layers import Conv2d, Dense, LayerNorm
from ..method1.media import ConditioningDense, ContextTokens, LearnedValues
from ..method1.transformer import DecoderInput, RMSNorm, TransformerBlock
from ..method1.vision import ClassToken, ToTokens
from .config_reader import ConfigReader
from .cross_attention import cross_attention_layer
from .inputs import MediaInputs, vlm_images
from .language import prompt_tokens
from .model import ReadModel, StageBuilder
from .registry import reader
from .vision_towers import ACTIVATIONS

EXTRA_TOKENS = 8
"""MllamaTextModel's token table has ``vocab_size + 8`` rows (the image and reserved tokens)."""
DEFAULT_RATIOS = 8
"""MllamaVisionConfig's default ``supported_aspect_ratios``: 1×1, 1×2, 1×3, 1×4, 2×1, 2×2, 3×1, 4×1."""
DEFAULT_INTERMEDIATE = (3, 7, 15, 23, 30)
"""MllamaVisionConfig's default ``intermediate_layers_indices``."""


def _indices(c: ConfigReader, key: str, default: tuple[int, ...], below: int) -> list[int]:
    value = c.raw(key)
    value = list(default) if value is None else value
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise c.error(key, "expected a list of layer indices")
    if any(not 0 <= v < below for v in value) or len(set(value)) != len(value):
        raise c.error(key, f"expected distinct layer indices from 0 to {below - 1}")
    return value


def vision_tower(sub: ConfigReader, tiles_run: int | None = None) -> tuple[list, dict]:
    """The vision tower's layers for one image ([S, S, 3] per tile) and its sizes."""
    act = sub.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise sub.error("hidden_act", f"unknown activation {act!r}; known: {', '.join(ACTIVATIONS)}")
    d, heads, ff = sub.size("hidden_size"), sub.size("attention_heads"), sub.size("intermediate_size")
    local, glob = sub.size("num_hidden_layers"), sub.size("num_global_layers", zero=True)
    image, patch, channels = sub.size("image_size"), sub.size("patch_size"), sub.size("num_channels")
    tiles = sub.size("max_num_tiles")
    if d % heads:
        raise sub.error("attention_heads", f"{heads} heads do not divide hidden_size {d}")
    if image % patch:
        raise sub.error("image_size", f"{image} is not a multiple of the patch {patch}")
    ratios = sub.raw("supported_aspect_ratios")
    if ratios is None:
        count = DEFAULT_RATIOS
    elif isinstance(ratios, list) and ratios and all(isinstance(r, list) and len(r) == 2 for r in ratios):
        count = len(ratios)
    else:
        raise sub.error("supported_aspect_ratios", "expected a list of [rows, columns] pairs")
    kept = _indices(sub, "intermediate_layers_indices", DEFAULT_INTERMEDIATE, local)
    out = sub.size("vision_output_dim")
    if out != (len(kept) + 1) * d:
        raise sub.error("vision_output_dim", f"{out}: the tower hands on its last state and {len(kept)} intermediate "
                                             f"ones, {len(kept) + 1} × hidden_size {d} = {(len(kept) + 1) * d} wide")
    sub.neutral("norm_eps", "initializer_range")
    n = (image // patch) ** 2
    padded = -(-(n + 1) // 8) * 8
    block = TransformerBlock(mixer={"heads": heads, "causal": False, "qkv_bias": False, "out_bias": False},
                             feed_forward={"size": ff, "activation": ACTIVATIONS[act]})
    tables = ((n + 1) * d + 1) + (count + 1) * tiles * (n + 1) * d + 2 * ((count + 1) * tiles * d + 1)
    tile = [Conv2d(filters=d, kernel_size=patch, stride=patch, bias=False, name="patch_embedding"), ToTokens(),
            ClassToken(name="class_embedding"), LayerNorm(name="layernorm_pre")]
    if padded > n + 1:
        tile.append(ContextTokens(tokens=padded - n - 1, in_features=d, projection=False,
                                  name=f"zero padding to {padded} positions"))
    layers = [Each(count=tiles_run or tiles, name="each tile", layers=tile),
              LearnedValues(count=tables, name="position, tile and aspect-ratio tables (added, gated)"),
              *[block] * local, LayerNorm(name="layernorm_post")]
    if glob:
        layers += [*[block] * glob, LearnedValues(count=2 * glob, name="global layers' gates (tanh)")]
    return layers, {"d": d, "image": image, "channels": channels, "tiles": tiles, "n": n, "padded": padded,
                    "out": out}


@reader("mllama", family="Llama 3.2 Vision (cross-attention to image tiles)", library="transformers")
def read_mllama(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "mllama", source, library="transformers")
    sub = c.sub("vision_config", "mllama_vision_model")
    text = c.sub("text_config", "mllama_text_model")
    if inputs.frames not in (None, 1):
        raise InputError("frames", "Llama 3.2 Vision takes images, not video")
    images = vlm_images(inputs)  # (video refused above, before the images)
    tower, v = vision_tower(sub)
    if text.raw("hidden_act") != "silu":
        raise text.error("hidden_act", f"{text.raw('hidden_act')!r}: MllamaTextMLP is counted with silu")
    d, heads, kv = text.size("hidden_size"), text.size("num_attention_heads"), text.size("num_key_value_heads")
    ff, layers, vocab = text.size("intermediate_size"), text.size("num_hidden_layers"), text.size("vocab_size")
    if d % heads or heads % kv:
        raise text.error("num_attention_heads", f"{heads} heads with {kv} key/value heads do not fit hidden_size {d}")
    cross = set(_indices(text, "cross_attention_layers", tuple(range(3, layers, 5)), layers))
    for owner in (c, text):
        if owner.flag("tie_word_embeddings"):  # (the table has V + 8 rows, the head V)
            raise owner.error("tie_word_embeddings", "true is not counted: MllamaForConditionalGeneration's head and "
                                                     "token table differ in rows")
    text.neutral("rope_parameters", "rms_norm_eps", "max_position_embeddings", "dropout", "initializer_range",
                 "use_cache", "bos_token_id", "eos_token_id", "pad_token_id")
    unused = c.finish() + [f"vision_config.{k}" for k in sub.finish()] + [f"text_config.{k}" for k in text.finish()]
    if inputs.image_size is not None and any(s < 1 for s in inputs.image_size):
        raise InputError("image_size", "must be positive")
    size = inputs.image_size or (v["image"], v["image"])
    t = prompt_tokens(inputs.text_tokens)
    length = t + images  # one <|image|> token per image
    positions = images * v["tiles"] * (v["n"] + 1)
    q = d // heads
    self_block = TransformerBlock(mixer={"heads": heads, "kv_heads": kv, "qkv_bias": False, "out_bias": False},
                                  feed_forward={"size": ff, "gated": True, "activation": "silu", "bias": False},
                                  norms={"kind": "rmsnorm"})
    blocks: list = []
    for i in range(layers):
        blocks += cross_attention_layer(d, heads, kv, q, ff, positions) if i in cross else [self_block]
    stage = StageBuilder("vlm")  # one chain: the tower, the projector beside the flow, then the text from its tokens
    stage.add("vision", [Each(count=images, name="each image", layers=tower)])
    stage.add("projector", [ConditioningDense(in_features=v["out"], units=d, positions=positions, joins_flow=False,
                                              name="multi_modal_projector (image positions)")])
    stage.add("language_model", [DecoderInput(length=length, vocab_size=vocab + EXTRA_TOKENS, width=d,
                                              name="embed_tokens (the text; the image is read by cross-attention)"),
                                 *blocks, RMSNorm(name="norm"), Dense(units=vocab, bias=False, name="lm_head")])
    stages = (stage.build([v["image"], v["image"], v["channels"]]),)
    return ReadModel("mllama", "MllamaForConditionalGeneration", stages,
                     {"image_size": f"{size[0]}x{size[1]}", "images": images, "tiles_per_image": v["tiles"],
                      "text_tokens": t, "image_placeholder_tokens": images}, positions,
                     (f"{images} image(s): each runs all {v['tiles']} tiles of {v['image']}x{v['image']} (the "
                      f"processor pads to them; the image size does not change the count), {v['n'] + 1} positions "
                      f"each, padded to {v['padded']} in the tower; the language model's {len(cross)} cross-attention "
                      f"layers read {positions:,} image positions; {length} text tokens (one <|image|> per image)",),
                     tuple(unused))
