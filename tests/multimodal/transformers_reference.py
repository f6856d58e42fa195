"""The external reference for vision-language and audio models: the transformers class a config's ``architectures``
names (the wrapper's generating class), built from the config on the meta device with eager attention, counted by
FlopCounterMode over one forward pass of one example (batch 1): pixel values (and audio features) on meta, the
integer metadata the processor makes (image sizes, grids) on the CPU, and the placeholder check that compares the
image tokens with the features (a data-dependent ``.sum()``) answered on meta by the mask alone (it changes no
product).
"""
from __future__ import annotations

import contextlib
import copy
import warnings


def build(config: dict, class_name: str | None = None):
    """The model on meta, eager attention, eval mode."""
    import torch
    import transformers

    data = {k: v for k, v in copy.deepcopy(config).items() if not k.startswith("_")}
    names = data.pop("architectures", None) or [class_name]
    hf_config = transformers.AutoConfig.for_model(data.pop("model_type"), **data)
    for sub in (hf_config, *(getattr(hf_config, k, None) for k in ("text_config", "vision_config", "audio_config"))):
        if sub is not None:
            sub._experts_implementation = "batched_mm"  # as tests/llm/hf_reference.py: each token's k experts
    cls = getattr(transformers, class_name or names[0])
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = cls._from_config(hf_config, attn_implementation="eager")
    for module in model.modules():
        if getattr(module, "config", None) is not None and hasattr(module.config, "_experts_implementation"):
            module.config._experts_implementation = "batched_mm"
        if hasattr(module, "_deepstack_process"):  # Qwen3-VL adds the deepstack features at the image positions
            module._deepstack_process = lambda hidden_states, *args, **kwargs: hidden_states  # element-wise: no FLOP
        if isinstance(getattr(module, "rope_type", None), str) and "dynamic" in module.rope_type:
            # dynamic RoPE (InternVL3-1B's Qwen2.5 text: rope_type "dynamic", factor 2) reads max(position_ids) to
            # regrow its frequencies past max_position_embeddings, a value meta lacks; the references' sequences are
            # shorter, where the update changes nothing (its init frequencies are the default ones) and it is
            # element-wise: run as "default", the same products
            module.rope_type = "default"
    from tests.llm.hf_reference import _meta_packed_sequences, _meta_padding_masks

    _meta_packed_sequences()  # the masks' data-dependent checks answered on meta, as for the language models
    _meta_padding_masks()
    inner = getattr(model, "model", model)
    if hasattr(inner, "get_placeholder_mask"):
        import inspect

        token = getattr(model.config, "image_token_id", None)
        if token is None:
            token = getattr(model.config, "image_token_index", None)
        if token is None:
            token = getattr(model.config, "audio_token_id", None)
        pair = "video_features" in inspect.signature(inner.get_placeholder_mask).parameters

        def mask(input_ids, inputs_embeds, *args, **kwargs):
            image = (input_ids == token).unsqueeze(-1).expand_as(inputs_embeds)
            return (image, image) if pair else image

        inner.get_placeholder_mask = mask
    return model.eval()


def measure(model, kwargs: dict) -> tuple[int, int]:
    import torch
    from tests.meta_memo import flop_counter

    params = sum(p.numel() for p in model.parameters())
    for p in model.parameters():  # a forward only (as tests/llm/hf_reference.py: the module tracker would hook
        p.requires_grad_(False)   # the grad of parameters a mixer passes on as inputs)
    with torch.no_grad(), flop_counter() as counter:
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
        from transformers.models.llava_next.modeling_llava_next import (
            image_size_to_num_patches,
        )

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


def _to_meta(x):
    import torch

    return x.to("meta") if isinstance(x, torch.Tensor) else x


@contextlib.contextmanager
def meta_vision_helpers(module):
    """Qwen-style vision towers compute positions, interpolation weights and window orders from ``grid_thw`` on
    the CPU (the processor's metadata, passed as a CPU tensor): while the ``with`` lasts, the tensors they index meta
    activations with are moved to meta; the sequence boundaries (``cu_seqlens``) stay on the CPU, where the eager
    attention reads them to split the heads' sequences. Restored after (a model run on the CPU later, as
    tests/multimodal/vlm_backward_reference.py's, needs them where they are)."""
    saved = {}
    for name in ("get_vision_position_ids", "get_vision_interpolation_indices_and_weights", "get_vision_window_index"):
        original = getattr(module, name, None)
        if original is None:
            continue

        def wrapped(*args, _original=original, _name=name, **kwargs):
            out = _original(*args, **kwargs)
            if _name == "get_vision_window_index":  # (reorder on meta, boundaries on the CPU)
                return _to_meta(out[0]), out[1]
            return tuple(_to_meta(o) for o in out) if isinstance(out, tuple) else _to_meta(out)

        saved[name] = original
        setattr(module, name, wrapped)
    try:
        yield
    finally:
        for name, original in saved.items():
            setattr(module, name, original)


def qwen_vl(config: dict, grids: list[tuple[int, int, int]], text_tokens: int, video: bool = False) -> tuple[int, int]:
    """Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5: the processor's patches (3 × t_p × p × p values each) of images (or
    videos) of ``grids`` (t, h, w in patches), ``image_grid_thw`` on the CPU, the merged tokens among the text,
    multimodal rotary positions given (3 × L, as get_rope_index makes them: it reads the ids' values)."""
    import sys

    import torch

    model = build(config)
    v = model.config.vision_config
    merge = v.spatial_merge_size ** 2
    patches = sum(t * h * w for t, h, w in grids)
    tokens = patches // merge + text_tokens
    key = "video" if video else "image"
    rope = getattr(model.config.text_config, "rope_parameters", None) or {}
    axes = len(rope.get("mrope_section") or [0, 0, 0]) if isinstance(rope, dict) else 3
    kwargs = {"input_ids": ids(tokens), f"pixel_values{'_videos' if video else ''}":
              meta(patches, v.in_channels * v.temporal_patch_size * v.patch_size ** 2),
              f"{key}_grid_thw": torch.tensor([list(g) for g in grids]),
              "position_ids": torch.zeros(axes, 1, tokens, dtype=torch.long, device="meta")}
    with meta_vision_helpers(sys.modules[type(model).__module__]):
        return measure(model, kwargs)


def mistral3(config: dict, images: int, size: tuple[int, int], input_tokens: int) -> tuple[int, int]:
    """Mistral3ForConditionalGeneration on ``images`` images the processor made ``size`` (H', W') pixels (pixel values
    on meta, ``image_sizes`` on the CPU), ``input_tokens`` ids in all (image tokens, row ends and the prompt)."""
    import types

    import torch
    from transformers.models.mistral3 import modeling_mistral3

    model = build(config)
    # the tokens per image (a split of the features) are computed from image_sizes moved to the features' device:
    # kept on the CPU, where their values are (the split changes no product)
    cpu = types.SimpleNamespace(**{k: getattr(torch, k) for k in dir(torch) if not k.startswith("__")})
    cpu.as_tensor = lambda data, device=None, **kw: torch.as_tensor(data, **kw)
    saved, modeling_mistral3.torch = modeling_mistral3.torch, cpu
    try:
        return measure(model, {"input_ids": ids(input_tokens), "pixel_values": meta(images, 3, *size),
                               "image_sizes": torch.tensor([list(size)] * images)})
    finally:
        modeling_mistral3.torch = saved


def pixtral_tower(config: dict, images: int, size: tuple[int, int]) -> tuple[int, int]:
    """PixtralVisionModel on ``images`` images of ``size`` (image sizes on the CPU)."""
    import torch

    model = build({k: v for k, v in config.items() if k != "architectures"}, "PixtralVisionModel")
    return measure(model, {"pixel_values": meta(images, 3, *size), "image_sizes": torch.tensor([list(size)] * images)})


def whisper(config: dict, windows: int, decoder_tokens: int) -> tuple[int, int]:
    """WhisperForConditionalGeneration on ``windows`` 30-s windows of mel frames (a batch of them: each window runs
    alone) and ``decoder_tokens`` decoder ids each."""
    import torch

    model = build(config)
    c = model.config
    dtype = model.model.encoder.conv1.weight.dtype  # a file's torch_dtype (float16) builds the model in it
    return measure(model, {"input_features": meta(windows, c.num_mel_bins, 2 * c.max_source_positions).to(dtype),
                           "decoder_input_ids": torch.zeros(windows, decoder_tokens, dtype=torch.long,
                                                            device="meta")})


def voxtral(config: dict, windows: int, audio_tokens: int, text_tokens: int) -> tuple[int, int]:
    """VoxtralForConditionalGeneration on ``windows`` 30-s windows of mel frames and ``audio_tokens`` +
    ``text_tokens`` ids (the audio placeholders: zeros, as ``audio_token_id`` 0 is set here)."""
    model = build(config | {"audio_token_id": 0})
    c = model.config.audio_config
    return measure(model, {"input_ids": ids(audio_tokens + text_tokens),
                           "input_features": meta(windows, c.num_mel_bins, 2 * c.max_source_positions)})


def idefics3(config: dict, tiles: int, input_tokens: int) -> tuple[int, int]:
    """Idefics3ForConditionalGeneration / SmolVLMForConditionalGeneration on one sample's ``tiles`` tiles of the
    tower's size and ``input_tokens`` ids. Their ``get_image_features`` drops all-zero padding tiles and builds each
    tile's patch mask from the pixel values (data the meta device lacks): replaced here by the same modules run on
    every tile — the patch convolution, the position table, the encoder, the post-layernorm, the connector — and the
    merge of the image features into the embeddings (a masked scatter: no FLOP) by the embeddings as they are."""
    import torch
    from transformers.modeling_outputs import BaseModelOutputWithPooling

    model = build(config)
    inner = model.model
    vm = inner.vision_model

    def image_features(pixel_values, pixel_attention_mask=None, **kwargs):
        b, n, c, h, w = pixel_values.shape
        embeds = vm.embeddings.patch_embedding(pixel_values.view(b * n, c, h, w)).flatten(2).transpose(1, 2)
        positions = torch.arange(embeds.shape[1], device=embeds.device).unsqueeze(0).expand(b * n, -1)
        hidden = vm.encoder(inputs_embeds=embeds + vm.embeddings.position_embedding(positions)).last_hidden_state
        features = inner.connector(vm.post_layernorm(hidden))
        return BaseModelOutputWithPooling(last_hidden_state=hidden,
                                          pooler_output=[features.reshape(-1, features.shape[-1])])

    inner.get_image_features = image_features
    inner.inputs_merger = lambda input_ids, inputs_embeds, image_hidden_states: inputs_embeds
    size = model.config.vision_config.image_size
    return measure(model, {"input_ids": ids(input_tokens), "pixel_values": meta(1, tiles, 3, size, size)})


def internvl(config: dict, tiles: int, input_tokens: int) -> tuple[int, int]:
    """InternVLForConditionalGeneration on one sample's ``tiles`` tiles and ``input_tokens`` ids."""
    model = build(config)
    size = model.config.vision_config.image_size
    size = size[0] if isinstance(size, (list, tuple)) else size
    return measure(model, {"input_ids": ids(input_tokens), "pixel_values": meta(tiles, 3, size, size)})


def llama4(config: dict, tiles: int, input_tokens: int) -> tuple[int, int]:
    """Llama4ForConditionalGeneration on one sample's ``tiles`` tiles and ``input_tokens`` ids, less the products of
    the experts a token is not routed to (transformers' Llama4TextMoe runs every expert on every token:
    ``tests/llm/hf_reference.idle_expert_flop``, as for the language model alone)."""
    from tests.llm.hf_reference import idle_expert_flop

    model = build(config)
    size = model.config.vision_config.image_size
    dtype = next(model.parameters()).dtype  # a file's torch_dtype (bfloat16) builds the model in it
    params, flop = measure(model, {"input_ids": ids(input_tokens),
                                   "pixel_values": meta(tiles, 3, size, size).to(dtype)})
    text = model.config.text_config.to_dict() | {"model_type": "llama4_text"}
    return params, flop - idle_expert_flop(text, input_tokens)


def mllama(config: dict, images: int, input_tokens: int) -> tuple[int, int]:
    """MllamaForConditionalGeneration on ``images`` images of ``max_num_tiles`` tiles each (as the processor pads
    them) and ``input_tokens`` ids, less the vision mask's outer product (``_prepare_aspect_ratio_attention_mask``:
    a [T·P', 1] × [1, T·P'] matmul per image that FlopCounterMode counts, 2·(T·P')² FLOP: mask set-up, not the
    model's arithmetic)."""
    import torch

    model = build(config)
    v = model.config.vision_config
    tiles, n = v.max_num_tiles, (v.image_size // v.patch_size) ** 2 + 1
    padded = -(-n // 8) * 8
    kwargs = {"input_ids": ids(input_tokens), "pixel_values": meta(1, images, tiles, 3, v.image_size, v.image_size),
              "aspect_ratio_ids": torch.ones(1, images, dtype=torch.long, device="meta"),
              "aspect_ratio_mask": torch.ones(1, images, tiles, dtype=torch.long, device="meta")}
    params, flop = measure(model, kwargs)
    return params, flop - images * 2 * (tiles * padded) ** 2
