"""The external reference for diffusers' models: the class a config's ``_class_name`` names, built by diffusers
from the config on the meta device (no weights), counted by ``torch.utils.flop_counter.FlopCounterMode`` over one
forward pass of one example (batch 1): parameters = Σ ``p.numel()``, FLOP = the counter's total (matrix products
and convolutions, 2 per multiply-accumulate; attention through ``scaled_dot_product_attention``, which the meta
device dispatches to an op the counter counts).
"""
from __future__ import annotations

import copy
import warnings

ALIASES = {"FlaxUNet2DConditionModel": "UNet2DConditionModel"}
"""Class names of configs written for diffusers' Flax models → the PyTorch class of the same architecture."""


def build(config: dict):
    """The diffusers model of ``config`` on meta, in eval mode."""
    import diffusers
    import torch

    data = copy.deepcopy(config)
    name = data.pop("_class_name")
    cls = getattr(diffusers, ALIASES.get(name, name))
    data.pop("quantization_config", None)  # a quantized checkpoint's note: the architecture is the same
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = cls.from_config(data)
    return model.eval()


def measure(model, run) -> tuple[int, int]:
    """(Σ numel, FlopCounterMode's total) of ``run(model)`` under no_grad."""
    import torch
    from tests.meta_memo import flop_counter

    params = sum(p.numel() for p in model.parameters())
    with torch.no_grad(), flop_counter() as counter:
        run(model)
    return params, counter.get_total_flops()


def meta(*shape, dtype=None):
    import torch

    return torch.zeros(*shape, device="meta", dtype=dtype or torch.float32)


def unet2d(config: dict, size: tuple[int, int], text_tokens: int) -> tuple[int, int]:
    """UNet2DConditionModel: a latent of size/8, ``text_tokens`` tokens of cross_attention_dim (encoder_hid_dim when
    the text is projected first), SDXL's added conditions (pooled text, six time ids)."""
    import torch

    model = build(config)
    cfg = model.config
    h, w = size[0] // 8, size[1] // 8
    width = cfg.encoder_hid_dim or (cfg.cross_attention_dim if isinstance(cfg.cross_attention_dim, int)
                                    else cfg.cross_attention_dim[0])
    kwargs = {}
    if cfg.addition_embed_type == "text_time":
        pooled = cfg.projection_class_embeddings_input_dim - 6 * cfg.addition_time_embed_dim
        kwargs["added_cond_kwargs"] = {"text_embeds": meta(1, pooled), "time_ids": meta(1, 6)}
    return measure(model, lambda m: m(meta(1, cfg.in_channels, h, w), torch.tensor([10], device="meta"),
                                      encoder_hidden_states=meta(1, text_tokens, width), **kwargs))


def vae(config: dict, size: tuple[int, int]) -> tuple[int, int]:
    """AutoencoderKL.forward: encode an image of ``size``, decode the posterior's mode."""
    model = build(config)
    return measure(model, lambda m: m(meta(1, model.config.in_channels, *size)))


def transformers_model(config: dict):
    """The transformers class ``architectures`` names, built from the config on meta with eager attention."""
    import torch
    import transformers

    data = {k: v for k, v in copy.deepcopy(config).items() if not k.startswith("_")}
    names = data.pop("architectures")
    hf_config = transformers.AutoConfig.for_model(data.pop("model_type"), **data)
    cls = getattr(transformers, names[0])
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = cls._from_config(hf_config, attn_implementation="eager")
    return model.eval()


def text_encoder(config: dict, tokens: int) -> tuple[int, int]:
    """A text encoder (CLIPTextModel[WithProjection], T5EncoderModel) over ``tokens`` tokens."""
    import torch

    model = transformers_model(config)
    ids = torch.zeros(1, tokens, dtype=torch.long, device="meta")
    return measure(model, lambda m: m(input_ids=ids))


def dit(config: dict, size: tuple[int, int], text_tokens: int) -> tuple[int, int]:
    """DiT / PixArt (PixArtTransformer2DModel, DiTTransformer2DModel, a patched Transformer2DModel): the latent of
    ``size``/8, the class label (DiT) or ``text_tokens`` caption tokens and the size conditions (PixArt)."""
    import torch

    model = build(config)
    cfg = model.config
    x = meta(1, cfg.in_channels, size[0] // 8, size[1] // 8)
    t = torch.tensor([10], device="meta")
    if cfg.norm_type == "ada_norm_zero":
        return measure(model, lambda m: m(x, timestep=t, class_labels=torch.tensor([1], device="meta")))
    text = meta(1, text_tokens, cfg.caption_channels or cfg.cross_attention_dim)
    cond = {"resolution": meta(1, 2), "aspect_ratio": meta(1, 1)}
    return measure(model, lambda m: m(x, encoder_hidden_states=text, timestep=t, added_cond_kwargs=cond))


def sd3(config: dict, size: tuple[int, int], text_tokens: int) -> tuple[int, int]:
    """SD3Transformer2DModel: the latent of ``size``/8, ``text_tokens`` tokens of joint_attention_dim, the pooled
    text."""
    import torch

    model = build(config)
    cfg = model.config
    x = meta(1, cfg.in_channels, size[0] // 8, size[1] // 8)
    return measure(model, lambda m: m(x, encoder_hidden_states=meta(1, text_tokens, cfg.joint_attention_dim),
                                      pooled_projections=meta(1, cfg.pooled_projection_dim),
                                      timestep=torch.tensor([10], device="meta")))


def flux(config: dict, size: tuple[int, int], text_tokens: int) -> tuple[int, int]:
    """FluxTransformer2DModel as FluxPipeline calls it: (size/16)² packed tokens of in_channels, ``text_tokens`` T5
    tokens, the pooled CLIP text, dev's guidance."""

    model = build(config)
    cfg = model.config
    n = (size[0] // 16) * (size[1] // 16)
    kwargs = {"guidance": meta(1)} if cfg.guidance_embeds else {}
    return measure(model, lambda m: m(meta(1, n, cfg.in_channels),
                                      encoder_hidden_states=meta(1, text_tokens, cfg.joint_attention_dim),
                                      pooled_projections=meta(1, cfg.pooled_projection_dim),
                                      timestep=meta(1), img_ids=meta(n, 3), txt_ids=meta(text_tokens, 3), **kwargs))


def video(config: dict, size: tuple[int, int], frames: int, text_tokens: int) -> tuple[int, int]:
    """CogVideoXTransformer3DModel ([B, F', C, h, w]) or WanTransformer3DModel ([B, C, F', h, w]): the latent video
    of F' = (frames − 1)/4 + 1 frames of size/8, ``text_tokens`` text tokens."""
    import torch

    model = build(config)
    cfg = model.config
    f, h, w = (frames - 1) // 4 + 1, size[0] // 8, size[1] // 8
    t = torch.tensor([10], device="meta")
    if type(model).__name__ == "WanTransformer3DModel":
        x = meta(1, cfg.in_channels, f, h, w)
        return measure(model, lambda m: m(x, t, meta(1, text_tokens, cfg.text_dim)))
    x = meta(1, f, cfg.in_channels, h, w)
    return measure(model, lambda m: m(x, meta(1, text_tokens, cfg.text_embed_dim), t))


def hunyuan_dit(config: dict, size: tuple[int, int]) -> tuple[int, int]:
    """HunyuanDiT2DModel as its pipeline calls it: the latent of ``size``/8, the CLIP and mT5 tokens at the padded
    lengths with all-ones masks, the size conditions and the style, no rotary table (it changes no product)."""
    import torch

    model = build(config)
    cfg = model.config
    def ones(n):
        return torch.ones(1, n, dtype=torch.long, device="meta")

    return measure(model, lambda m: m(
        meta(1, cfg.in_channels, size[0] // 8, size[1] // 8), timestep=torch.tensor([10], device="meta"),
        encoder_hidden_states=meta(1, cfg.text_len, cfg.cross_attention_dim), text_embedding_mask=ones(cfg.text_len),
        encoder_hidden_states_t5=meta(1, cfg.text_len_t5, cfg.cross_attention_dim_t5),
        text_embedding_mask_t5=ones(cfg.text_len_t5), image_meta_size=meta(1, 6),
        style=torch.zeros(1, dtype=torch.long, device="meta")))


def unet3d(config: dict, size: tuple[int, int], frames: int, text_tokens: int) -> tuple[int, int]:
    """UNet3DConditionModel: ``frames`` latent frames of ``size``/8, ``text_tokens`` text tokens."""
    import torch

    model = build(config)
    cfg = model.config
    x = meta(1, cfg.in_channels, frames, size[0] // 8, size[1] // 8)
    return measure(model, lambda m: m(x, torch.tensor([10], device="meta"),
                                      encoder_hidden_states=meta(1, text_tokens, cfg.cross_attention_dim)))


def video_vae(config: dict, frames: int, size: tuple[int, int]) -> tuple[int, int, int]:
    """A video VAE (AutoencoderKLCogVideoX, AutoencoderKLWan): (Σ numel, FLOP of ``encode`` of a video of ``frames``
    frames of ``size``, FLOP of ``decode`` of the posterior's mode), tiling and slicing off (the default)."""
    import torch
    from tests.meta_memo import flop_counter

    model = build(config)
    params = sum(p.numel() for p in model.parameters())
    with torch.no_grad(), flop_counter() as counter:
        latent = model.encode(meta(1, model.config.in_channels, frames, *size)).latent_dist.mode()
    encode = counter.get_total_flops()
    with torch.no_grad(), flop_counter() as counter:
        model.decode(latent)
    return params, encode, counter.get_total_flops()
