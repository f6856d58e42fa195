"""Vision transformers as transformers builds them: CLIP's (Radford et al. 2021; ``clip_vision_model``) and SigLIP's
(Zhai et al. 2023; ``siglip_vision_model``) — alone (the vision tower's own config.json) and inside the
vision-language models that use them (LLaVA, Gemma 3, PaliGemma, Idefics3…).

Symbols: an image of S × S pixels in patches of p (S must be the config's ``image_size``: the processor resizes to
it), N = (S/p)² patches, d the width, F the feed-forward width, L layers.

CLIP: a p×p convolution of stride p (3 → d, no bias), a class token and a learned table of N + 1 positions, a
LayerNorm before the layers, L pre-norm layers (LayerNorm, biased q, k, v, out over the N + 1 tokens, LayerNorm,
fc1 d → F, quick-GELU, fc2 F → d), a LayerNorm on the class token. SigLIP: the convolution with a bias, N positions,
no class token, the layers likewise (tanh GELU), a LayerNorm over every token, and (``vision_use_head``) an
attention-pooling head (a learned query, ``nn.MultiheadAttention``, a LayerNorm and the MLP on the pooled token).
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Each, Residual, Unused
from ..method1.layers import Activation, Conv2d, Dense, LayerNorm
from ..method1.media import AttentionPool
from ..method1.transformer import PositionEmbedding, TransformerBlock
from ..method1.vision import ClassToken, ToTokens
from .config_reader import ConfigReader
from .inputs import MediaInputs
from .model import ReadModel, StageBuilder
from .registry import reader

ACTIVATIONS = {"quick_gelu": "gelu", "gelu": "gelu", "gelu_new": "gelu", "gelu_pytorch_tanh": "gelu",
               "gelu_fast": "gelu", "relu": "relu", "silu": "silu"}


def vit_sizes(c: ConfigReader) -> dict:
    """The sizes every ViT-style vision config has."""
    act = c.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise c.error("hidden_act", f"unknown activation {act!r}; known: {', '.join(ACTIVATIONS)}")
    d, heads = c.size("hidden_size"), c.size("num_attention_heads")
    if d % heads:
        raise c.error("num_attention_heads", f"{heads} heads do not divide hidden_size {d}")
    return {"d": d, "heads": heads, "ff": c.size("intermediate_size"), "layers": c.size("num_hidden_layers"),
            "channels": c.size("num_channels"), "image": c.size("image_size"), "patch": c.size("patch_size"),
            "act": ACTIVATIONS[act]}


def encoder_block(v: dict) -> TransformerBlock:
    """A pre-norm ViT layer: LayerNorm, biased q, k, v, out (non-causal), LayerNorm, fc1, act, fc2."""
    return TransformerBlock(mixer={"heads": v["heads"], "causal": False},
                            feed_forward={"size": v["ff"], "activation": v["act"]})


def patches(v: dict) -> int:
    if v["image"] % v["patch"]:
        raise InputError("vision_config.image_size", f"{v['image']} is not a multiple of the patch {v['patch']}")
    return (v["image"] // v["patch"]) ** 2


def clip_vision_layers(v: dict, layers: int | None = None) -> list:
    """CLIP's vision transformer on one image of its ``image_size``: N + 1 tokens out (the class token first)."""
    n = patches(v)
    return [Conv2d(filters=v["d"], kernel_size=v["patch"], stride=v["patch"], bias=False, name="patch embedding"),
            ToTokens(), ClassToken(name="class embedding"), PositionEmbedding(max_positions=n + 1),
            LayerNorm(name="pre_layrnorm"), *[encoder_block(v)] * (v["layers"] if layers is None else layers),
            LayerNorm(name="post_layernorm (applied to the class token)")]


def siglip_vision_layers(v: dict, head: bool = False, layers: int | None = None, post_norm: bool = True) -> list:
    """SigLIP's vision transformer on one image of its ``image_size``: N tokens out (or the pooled one, ``head``)."""
    n = patches(v)
    out = [Conv2d(filters=v["d"], kernel_size=v["patch"], stride=v["patch"], name="patch embedding"), ToTokens(),
           PositionEmbedding(max_positions=n), *[encoder_block(v)] * (v["layers"] if layers is None else layers)]
    if post_norm:
        out.append(LayerNorm(name="post_layernorm"))
    return out + (_siglip_head(v) if head else [])


def _siglip_head(v: dict) -> list:
    """SigLIP's attention-pooling head over the tower's tokens: one pooled token out."""
    return [AttentionPool(heads=v["heads"], name="head attention (learned probe)"),
            Residual(body=[LayerNorm(name="head layernorm"), *_mlp(v)], name="head mlp")]


TOWERS = ("clip_vision_model", "siglip_vision_model")


def read_tower(c: ConfigReader, key: str = "vision_config", default: str = "clip_vision_model",
               allowed: tuple[str, ...] = TOWERS, extra: tuple[str, ...] = ()) -> tuple[dict, str]:
    """The vision tower in ``c``'s ``key`` sub-config: (sizes, its model type), with ``head`` (SigLIP's
    attention-pooling head, built and run when ``vision_use_head``); ``extra``: keys the wrapper reads itself."""
    value = c.raw(key)
    vision_type = value.get("model_type", default) if isinstance(value, dict) else default
    if vision_type not in allowed:
        raise InputError(f"{c.source}.{key}.model_type", f"{vision_type!r}: this reader counts "
                                                        f"{' or '.join(allowed)} here")
    sub = c.sub(key, vision_type)
    v = vit_sizes(sub)
    v["head"] = sub.flag("vision_use_head") if vision_type == "siglip_vision_model" else False
    if vision_type == "clip_vision_model":
        sub.neutral("projection_dim")  # the bare CLIPVisionModel has no projection
    for k in extra:
        v[k] = sub.raw(k)
    v["unused"] = tuple(f"{key}.{k}" for k in sub.finish())
    return v, vision_type


def feature_depth(layers: list[int], depth: int) -> int:
    """The encoder layers run before the deepest of ``layers`` (transformers' ``hidden_states`` indices: 0 the
    embeddings, k after k layers, negative from the end of the L + 1)."""
    return max(i if i >= 0 else depth + 1 + i for i in layers)


def tower_layers(v: dict, vision_type: str, read_after: int | None = None) -> list:
    """The whole tower on one image, as a vision-language model reads it. transformers runs every layer whatever it
    reads: with ``read_after`` k the model reads the hidden states after k encoder layers (``hidden_states[k]``,
    the final norm not applied), so the L − k layers after them and the final norm run with their output unused;
    without, it reads ``last_hidden_state`` (SigLIP's final norm on the way). SigLIP's pooling head, where built,
    runs unused as well (``unused_head_note``). Unused layers: forward counted, no backward (``Unused``)."""
    depth = v["layers"]
    k = depth if read_after is None else read_after
    if vision_type == "clip_vision_model":
        *kept, final = clip_vision_layers(v, layers=k)  # CLIP's final norm reads the class token alone
        tail = [encoder_block(v)] * (depth - k) + [final]
    else:
        kept = siglip_vision_layers(v, layers=k, post_norm=read_after is None)
        tail = [encoder_block(v)] * (depth - k) + ([LayerNorm(name="post_layernorm")] if read_after is not None
                                                   else []) + (_siglip_head(v) if v.get("head") else [])
    return kept + unused_tail(tail, depth - k, ["the final norm"] + (["the pooling head"] if v.get("head") else []))


def unused_tail(layers: list, after: int, others: list[str] = ()) -> list:
    """``layers`` as one ``Unused`` block (none where empty), named for the ``after`` encoder layers past the one
    read and the ``others`` among them (a final norm, a head)."""
    if not layers:
        return []
    parts = ([f"{after} layer{'s' * (after != 1)} after the one read"] if after else []) + list(others)
    return [Unused(layers=layers, name=", ".join(parts) + " (run, output unused)")]


def _head_cost(v: dict) -> tuple[int, int]:
    """(parameters, forward FLOP) of SigLIP's pooling head on one image's N tokens of width d."""
    from ..method1.architecture import Architecture, InputSpec, evaluate

    head = evaluate(Architecture(input=InputSpec(shape=[v["d"]], sequence_length=patches(v)),
                                 layers=_siglip_head(v)), "matmul")
    return head.params, head.forward_flop


NO_GRADIENT = "no gradient reaches"
"""The words of the notes a training step repeats (``training.vlm_training_step``): layers that run without one."""


def unused_layers_note(v: dict, read_after: int) -> tuple[str, ...]:
    """The tower's layers after the one the model reads (``tower_layers``' ``read_after``): run, no gradient."""
    left = v["layers"] - read_after
    if not left:
        return ()
    after = "the last layer" if left == 1 else f"the {left} layers after it"
    return (f"the model reads the vision tower's hidden states after layer {read_after} of {v['layers']}: transformers "
            f"runs {after} too (forward counted), but {NO_GRADIENT} {'it' if left == 1 else 'them'} (no backward in "
            "training)",)


def unused_head_note(v: dict, images: int = 1) -> tuple[str, ...]:
    """SigLIP's attention-pooling head in a vision-language model (``vision_use_head``, SigLIP's default true where
    the file leaves it out): transformers builds and runs it, the model reads the patch tokens, not its pooled
    output — its parameters and forward FLOP counted (``tower_layers``), no backward."""
    if not v.get("head"):
        return ()
    flop = images * _head_cost(v)[1]
    return (f"the vision tower's pooling head (vision_use_head, SigLIP's default true) runs in transformers but the "
            f"model reads the patch tokens, not its output: its parameters and its {flop:.3g} forward FLOP are "
            "counted, no backward",)


def _mlp(v: dict) -> list:
    return [Dense(units=v["ff"], name="fc1"), Activation(function=v["act"]), Dense(units=v["d"], name="fc2")]


def _image(inputs: MediaInputs, v: dict) -> tuple[str, int]:
    """(what the image becomes, images): the processor resizes any image to the tower's ``image_size``."""
    if inputs.frames not in (None, 1):
        raise InputError("frames", "this vision tower takes images, not video frames")
    if inputs.text_tokens:
        raise InputError("text_tokens", "a vision tower alone reads no text")
    images = 1 if inputs.images is None else inputs.images
    if images < 1:
        raise InputError("images", "a vision tower needs at least one image")
    size = f"{v['image']}x{v['image']}"
    return (f"{inputs.image_size[0]}x{inputs.image_size[1]} resized to {size}" if inputs.image_size else size), images


def _tower(data: dict, inputs: MediaInputs, source: str, model_type: str, build) -> ReadModel:
    c = ConfigReader(data, model_type, source, library="transformers")
    v = vit_sizes(c)
    head = c.flag("vision_use_head") if model_type == "siglip_vision_model" else False
    if model_type == "clip_vision_model":
        c.neutral("projection_dim")  # CLIPVisionModel has no projection (CLIPVisionModelWithProjection is not read)
    names = c.raw("architectures") or []
    unused = c.finish()
    size, images = _image(inputs, v)
    stage = StageBuilder("vision")
    stage.add("vision", [Each(count=images, layers=build(v, head), name="each image")])
    n = patches(v)
    return ReadModel(model_type, names[0] if names else model_type, (stage.build([v["image"], v["image"],
                                                                                   v["channels"]]),),
                     {"image_size": size, "images": images, "patches_per_image": n}, None,
                     (f"{images} image(s) of {v['image']}x{v['image']} pixels, {n} patches of {v['patch']}",),
                     tuple(unused))


@reader("clip_vision_model", family="CLIP vision tower", library="transformers")
def read_clip_vision(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    return _tower(data, inputs, source, "clip_vision_model", lambda v, head: clip_vision_layers(v))


@reader("siglip_vision_model", family="SigLIP vision tower", library="transformers")
def read_siglip_vision(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    return _tower(data, inputs, source, "siglip_vision_model", lambda v, head: siglip_vision_layers(v, head))
