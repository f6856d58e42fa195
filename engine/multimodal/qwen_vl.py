"""Qwen's vision-language models — Qwen2-VL (``qwen2_vl``), Qwen2.5-VL (``qwen2_5_vl``, window attention), Qwen3-VL
(``qwen3_vl``, ``qwen3_vl_moe``: learned positions, deepstack mergers) and Qwen3.5 (``qwen3_5``, ``qwen3_5_moe``) —
read from their config.json as transformers builds the ``…ForConditionalGeneration`` classes.

Symbols: patches of p × p pixels (14; Qwen3: 16) over t_p = 2 frames, an image of H × W pixels → a grid of
t × h × w patches (t = 1 for an image, frames/2 for a video; h = H/p, w = W/p), merged 2 × 2 into t·h·w/4 tokens
for the language model; C the vision width, d the language model's.

The processor resizes every image to multiples of 2p (``smart_resize``), so H and W must be: FLOPscope takes the
size the processor hands the model. Vision: the patch embedding (a t_p×p×p 3-D convolution, i.e. a linear
3·t_p·p² → C, biased in Qwen3), Qwen3's learned position table (interpolated: products by weights, no matmul),
L blocks (a norm, biased fused q, k, v and out, a norm, an MLP: fc1 C → 4C, act, fc2 (Qwen2-VL); a gated MLP with
biases (Qwen2.5-VL); fc1, fc2 of ``intermediate_size`` (Qwen3)) where each frame's patches attend among
themselves — Qwen2.5-VL's blocks outside ``fullatt_block_indexes`` only within windows of (window/2p)² merged
units (the edge windows smaller); the merger: a norm, 2×2 patches side by side (4C), 4C → 4C, GELU, 4C → d;
Qwen3-VL's deepstack mergers (the same after the ``deepstack_visual_indexes`` blocks, their outputs added into the
language model's first layers: element-wise). Language model: ``text_config`` (Qwen2, Qwen3, Qwen3-MoE, Qwen3.5)
over the merged tokens and the text.
"""
from __future__ import annotations

from collections import Counter

from engine.errors import InputError
from engine.method1.blocks import Branches, Residual
from engine.method1.layers import Activation, Dense, LayerNorm
from engine.method1.media import (
    AttentionCore,
    GatedUnit,
    LearnedValues,
    MergeTokens,
    Segment,
)
from engine.method1.transformer import RMSNorm
from engine.multimodal.config_reader import ConfigReader
from engine.multimodal.inputs import MediaInputs
from engine.multimodal.language import language_layers, language_model, prompt_tokens
from engine.multimodal.model import ReadModel, StageBuilder
from engine.multimodal.registry import reader

ACTIVATIONS = {"quick_gelu": "gelu", "gelu": "gelu", "gelu_pytorch_tanh": "gelu", "silu": "silu", "relu": "relu"}
VERSIONS = {"qwen2_vl": "qwen2_vl_vision", "qwen2_5_vl": "qwen2_5_vl_vision", "qwen3_vl": "qwen3_vl_vision",
            "qwen3_vl_moe": "qwen3_vl_moe_vision", "qwen3_5": "qwen3_5_vision", "qwen3_5_moe": "qwen3_5_moe_vision"}
CLASSES = {"qwen2_vl": "Qwen2VLForConditionalGeneration", "qwen2_5_vl": "Qwen2_5_VLForConditionalGeneration",
           "qwen3_vl": "Qwen3VLForConditionalGeneration", "qwen3_vl_moe": "Qwen3VLMoeForConditionalGeneration",
           "qwen3_5": "Qwen3_5ForConditionalGeneration", "qwen3_5_moe": "Qwen3_5MoeForConditionalGeneration"}
STANDARD_SIZE = 448


def _vision_sizes(c: ConfigReader, version: str) -> dict:
    act = c.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise c.error("hidden_act", f"unknown activation {act!r}")
    v = {"act": ACTIVATIONS[act], "layers": c.size("depth"), "heads": c.size("num_heads"),
         "patch": c.size("patch_size"), "t_patch": c.size("temporal_patch_size"), "merge": c.size("spatial_merge_size"),
         "channels": c.size("in_channels")}
    if version == "qwen2_vl":
        v["width"], v["out"] = c.size("embed_dim"), c.size("hidden_size")
        ratio = c.raw("mlp_ratio")
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or ratio <= 0:
            raise c.error("mlp_ratio", "expected a positive number")
        v["ff"] = int(v["width"] * ratio)
    else:
        v["width"], v["out"], v["ff"] = c.size("hidden_size"), c.size("out_hidden_size"), c.size("intermediate_size")
    if v["width"] % v["heads"]:
        raise c.error("num_heads", f"{v['heads']} heads do not divide the width {v['width']}")
    if version == "qwen2_5_vl":
        v["window"] = c.size("window_size")
        full = c.raw("fullatt_block_indexes")
        if not isinstance(full, list) or not all(isinstance(i, int) and 0 <= i < v["layers"] for i in full):
            raise c.error("fullatt_block_indexes", f"expected block numbers below {v['layers']}")
        v["full"] = set(full)
        c.neutral("tokens_per_second")
    if version.startswith("qwen3"):
        v["positions"] = c.size("num_position_embeddings")
        deep = c.raw("deepstack_visual_indexes") if "deepstack_visual_indexes" in c.defaults else []
        if not isinstance(deep, list) or not all(isinstance(i, int) and 0 <= i < v["layers"] for i in deep):
            raise c.error("deepstack_visual_indexes", f"expected block numbers below {v['layers']}")
        v["deepstack"] = list(deep)
    return v


def _windows(h: int, w: int, t: int, v: dict) -> list[int]:
    """transformers' ``get_vision_window_index``: each frame's merged grid (h/2 × w/2) cut into windows of
    (window/2p)² merged units, the edge ones smaller; each window's length in patches."""
    side = v["window"] // v["merge"] // v["patch"]
    gh, gw = h // v["merge"], w // v["merge"]
    unit = v["merge"] ** 2
    lengths = [min(side, gh - i) * min(side, gw - j) * unit for i in range(0, gh, side) for j in range(0, gw, side)]
    return lengths * t


def _segments(lengths: list[int]) -> list[Segment]:
    return [Segment(length=n, count=k) for n, k in sorted(Counter(lengths).items())]


def _block(v: dict, version: str, segments: list[Segment]) -> list:
    c, heads = v["width"], v["heads"]
    norm = (lambda name: RMSNorm(name=name)) if version == "qwen2_5_vl" else (lambda name: LayerNorm(name=name))
    attention = [norm("norm1"), Dense(units=3 * c, name="attn qkv"),
                 AttentionCore(heads=heads, head_size=c // heads, segments=segments, name="attn"),
                 Dense(units=c, name="attn proj")]
    if version == "qwen2_5_vl":  # gate, up, down with biases
        mlp = [norm("norm2"), Dense(units=2 * v["ff"], name="mlp gate_proj, up_proj"),
               GatedUnit(activation=v["act"] if v["act"] != "relu" else "relu", name="mlp"),
               Dense(units=c, name="mlp down_proj")]
    else:
        mlp = [norm("norm2"), Dense(units=v["ff"], name="mlp fc1"), Activation(function=v["act"]),
               Dense(units=c, name="mlp fc2")]
    return [Residual(body=attention, name="attention"), Residual(body=mlp, name="mlp")]


def _merger(v: dict, version: str, name: str = "merger", post_norm: bool = False) -> list:
    """A norm, the 2×2 merge (4C per token), 4C → 4C, GELU, 4C → d (Qwen3's deepstack mergers: the norm after the
    merge, over 4C)."""
    wide = v["width"] * v["merge"] ** 2
    norm = RMSNorm(name=f"{name} norm") if version == "qwen2_5_vl" else LayerNorm(name=f"{name} norm")
    merge = MergeTokens(factor=v["merge"] ** 2, name=f"{name}: {v['merge']}x{v['merge']} patches side by side")
    layers = [merge, norm] if post_norm else [norm, merge]
    return layers + [Dense(units=wide, name=f"{name} fc1"), Activation(function="gelu"),
                     Dense(units=v["out"], name=f"{name} fc2")]


def vision_layers(v: dict, version: str, grids: list[tuple[int, int, int]]) -> tuple[list, list]:
    """(the vision tower over every patch of ``grids`` (t, h, w each), the merger to the language model's tokens).
    Qwen3-VL's deepstack mergers read the hidden states after their blocks, of the final ones' shape: counted on
    branches beside the merger (the same products), their outputs added — the model adds them into the language
    model's first layers instead, element-wise."""
    frames = [h * w for t, h, w in grids for _ in range(t)]
    per_frame = _segments(frames)
    windowed = _segments([n for t, h, w in grids for n in _windows(h, w, t, v)]) if version == "qwen2_5_vl" else None
    layers: list = [Dense(units=v["width"], bias=version.startswith("qwen3"), name="patch_embed")]
    if version.startswith("qwen3"):
        layers.append(LearnedValues(count=v["positions"] * v["width"], name="pos_embed (interpolated)"))
    for i in range(v["layers"]):
        layers += _block(v, version, per_frame if windowed is None or i in v["full"] else windowed)
    merger = _merger(v, version)
    deep = [_merger(v, version, f"deepstack merger (block {i})", post_norm=True) for i in v.get("deepstack", ())]
    if deep:
        merger = [Branches(branches=[merger, *deep], merge="add", name="merger and deepstack mergers")]
    return layers, merger


def grid(inputs: MediaInputs, v: dict) -> tuple[list[tuple[int, int, int]], bool, dict]:
    """The patch grids of the inputs: one image (or ``images``), or a video of ``frames``; (grids, video, shown)."""
    size = inputs.image_size or (STANDARD_SIZE, STANDARD_SIZE)
    unit = v["patch"] * v["merge"]
    for side in size:
        if side % unit:
            raise InputError("image_size", f"{size[0]}x{size[1]} pixels: {side} is not a multiple of {unit} (the "
                                           f"processor resizes images to multiples of {unit}, patch {v['patch']} × "
                                           f"merge {v['merge']}: give the size it makes)")
    h, w = size[0] // v["patch"], size[1] // v["patch"]
    if inputs.frames is not None:
        if inputs.images:
            raise InputError("frames", "give images or video frames, not both")
        if inputs.frames % v["t_patch"]:
            raise InputError("frames", f"{inputs.frames} frames: the processor takes video in pairs of frames "
                                       f"(temporal patch {v['t_patch']}); give an even count")
        t = inputs.frames // v["t_patch"]
        return [(t, h, w)], True, {"video_size": f"{size[0]}x{size[1]}", "frames": inputs.frames,
                                   "grid_thw": [t, h, w]}
    images = 1 if inputs.images is None else inputs.images
    if images < 1:
        raise InputError("images", "give at least one image (or video frames)")
    return [(1, h, w)] * images, False, {"image_size": f"{size[0]}x{size[1]}", "images": images,
                                         "grid_thw": [1, h, w]}


def _text_config(c: ConfigReader, data: dict, model_type: str) -> dict:
    """The checkpoint with its language model in ``text_config``: files saved flat (Qwen2-VL's, older Qwen2.5-VL
    ones) hold the text keys at the top level, which the configuration class moves into ``text_config`` when there
    is none (and then they are read there); for Qwen2-VL and Qwen2.5-VL a ``text_config.tie_word_embeddings`` true
    ties the wrapper too (their configuration classes' rule for pre-v5 files; Qwen3's have none)."""
    from engine.multimodal.config_reader import class_keys

    text_type = f"{model_type}_text"
    data = dict(data)
    if data.get("text_config") is None:
        fields = set(class_keys("transformers").get(text_type, {})) | {"rope_parameters", "rope_scaling", "rope_theta"}
        data["text_config"] = {k: v for k, v in data.items() if k in fields}
        c.neutral(*data["text_config"])
    text = data["text_config"]
    if model_type in ("qwen2_vl", "qwen2_5_vl") and isinstance(text, dict) and text.get("tie_word_embeddings") is True \
            and not data.get("tie_word_embeddings"):
        data["tie_word_embeddings"] = True
    return data


def _read(data: dict, inputs: MediaInputs, source: str, model_type: str) -> ReadModel:
    c = ConfigReader(data, model_type, source, library="transformers")
    data = _text_config(c, data, model_type)
    vision = c.sub("vision_config", VERSIONS[model_type], aliases=(model_type,))
    version = model_type.removesuffix("_moe") if model_type.startswith("qwen3") else model_type
    v = _vision_sizes(vision, version)
    unused_vision = tuple(f"vision_config.{k}" for k in vision.finish())
    c.neutral("text_config", "tie_word_embeddings")
    text = language_model(data, source)
    if v["out"] != text.d_model:
        raise InputError(f"{source}.vision_config.{'hidden_size' if version == 'qwen2_vl' else 'out_hidden_size'}",
                         f"{v['out']}: the merger must reach the language model's width {text.d_model}")
    unused = c.finish()
    grids, video, shown = grid(inputs, v)
    tokens = sum(t * h * w for t, h, w in grids) // v["merge"] ** 2
    t = prompt_tokens(inputs.text_tokens)
    stage = StageBuilder("vlm")
    tower, merger = vision_layers(v, version, grids)
    stage.add("vision", tower)
    stage.add("projector", merger)
    stage.add("language_model", language_layers(text, tokens, t))
    patches = sum(t_ * h * w for t_, h, w in grids)
    shown["text_tokens"] = t
    what = "video" if video else f"{len(grids)} image(s)"
    return ReadModel(model_type, CLASSES[model_type],
                     (stage.build([v["channels"] * v["t_patch"] * v["patch"] ** 2], patches),), shown, tokens,
                     (f"{what}: {patches} patches, merged {v['merge']}x{v['merge']} into {tokens} tokens",),
                     tuple(unused) + unused_vision + tuple(text.unused_keys))


for _type, _family in (("qwen2_vl", "Qwen2-VL"), ("qwen2_5_vl", "Qwen2.5-VL (window attention)"),
                       ("qwen3_vl", "Qwen3-VL"), ("qwen3_vl_moe", "Qwen3-VL MoE"), ("qwen3_5", "Qwen3.5"),
                       ("qwen3_5_moe", "Qwen3.5 MoE")):
    reader(_type, family=_family, library="transformers")(
        lambda data, inputs, source, _t=_type: _read(data, inputs, source, _t))
