"""The external reference for a vision-language model's training step: a small Qwen2-VL built by transformers with
real (random) weights on the CPU, one forward pass and ``logits.sum().backward()`` under FlopCounterMode
(``tests/method1/backward_reference.py``), with the recipe's weights trainable — LoRA made by ``peft``'s own
``get_peft_model`` (rank r on the language model's ``q_proj`` and ``v_proj``), the merger trained beside it."""
from __future__ import annotations

import warnings


def tiny_qwen2_vl() -> dict:
    """A Qwen2-VL config small enough for the CPU: 2 vision blocks of 32 (merged to the language model's 64), 2
    language layers (4 heads, 2 key/value heads), a vocabulary of 200."""
    return {"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl",
            "image_token_id": 190, "video_token_id": 191, "vision_start_token_id": 192, "vision_end_token_id": 193,
            "tie_word_embeddings": False,
            "text_config": {"model_type": "qwen2_vl_text", "hidden_size": 64, "intermediate_size": 128,
                            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                            "vocab_size": 200, "max_position_embeddings": 512, "hidden_act": "silu",
                            "bos_token_id": 1, "eos_token_id": 2,
                            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                "mrope_section": [2, 3, 3]}},
            "vision_config": {"model_type": "qwen2_vl_vision", "depth": 2, "embed_dim": 32, "hidden_size": 64,
                              "num_heads": 4, "mlp_ratio": 4, "patch_size": 14, "spatial_merge_size": 2,
                              "temporal_patch_size": 2, "in_channels": 3, "hidden_act": "quick_gelu"}}


def _set(module, trainable: bool) -> None:
    for p in module.parameters():
        p.requires_grad_(trainable)


def _eager_model(torch, data: dict, cls: str, recipe: str):
    """transformers' ``cls`` built from the config dict ``data`` (eager attention, seed 0, eval mode), every weight
    trainable under the ``full`` recipe and frozen otherwise."""
    import transformers

    cfg = {k: v for k, v in data.items() if k not in ("architectures",)}
    hf_config = transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(transformers, cls)._from_config(hf_config, attn_implementation="eager")
    model.eval()
    _set(model, recipe == "full")
    return model


def qwen2_vl_step(torch, data: dict, size: tuple[int, int], text_tokens: int, recipe: str,
                  rank: int = 4) -> tuple[int, int, int]:
    """(forward FLOP, backward FLOP, trainable parameters) of one example under ``recipe``."""

    from tests.method1.backward_reference import forward_backward

    model = _eager_model(torch, data, "Qwen2VLForConditionalGeneration", recipe)
    merger = model.model.visual.merger
    if recipe == "frozen_vision":
        _set(model.model.language_model, True)
        _set(model.lm_head, True)
        _set(merger, True)
    elif recipe == "projector":
        _set(merger, True)
    elif recipe == "lora":
        import peft

        config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, bias="none",
                                 target_modules=r".*language_model.*\.(q_proj|v_proj)")
        model = peft.get_peft_model(model, config)
        _set(model.base_model.model.model.visual.merger, True)
    p, t = 14, 2
    grid = (1, size[0] // p, size[1] // p)
    patches = grid[0] * grid[1] * grid[2]
    image_tokens = patches // 4
    ids = torch.full((1, image_tokens + text_tokens), 5, dtype=torch.long)
    ids[0, :image_tokens] = data["image_token_id"]
    types = torch.zeros_like(ids)
    types[0, :image_tokens] = 1  # the processor's mm_token_type_ids: 1 at the image tokens (for M-RoPE)
    inputs = {"input_ids": ids, "pixel_values": torch.randn(patches, 3 * t * p * p),
              "image_grid_thw": torch.tensor([list(grid)]), "mm_token_type_ids": types}
    trainable = sum(q.numel() for q in model.parameters() if q.requires_grad)
    forward, backward = forward_backward(torch, model, kwargs=inputs)
    return forward, backward, trainable


PEFT_NAMES = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj",
              "down": "down_proj"}
"""The engine's LoRA targets as the module names of Llama-style layers (Mllama's self- and cross-attention alike)."""


def mllama_step(torch, data: dict, images: int, text_tokens: int, recipe: str, rank: int = 4,
                targets: tuple[str, ...] = ("q", "v")) -> tuple[int, int, int]:
    """(forward FLOP, backward FLOP, trainable parameters) of one example of MllamaForConditionalGeneration under
    ``recipe``, on the CPU with eager attention: ``images`` images of ``max_num_tiles`` tiles each (the processor pads
    to them), one <|image|> token per image and ``text_tokens`` more, with the processor's attention and
    cross-attention masks (every token sees every tile), ``logits.sum().backward()``. The recipes set
    ``requires_grad``: full (every weight), frozen_vision (the projector, the language model and its head),
    projector (``multi_modal_projector`` alone), lora (peft's ``get_peft_model`` on the language model's
    ``targets`` projections, self- and cross-attention layers alike as peft's ``target_modules`` match them, the
    projector trained beside). Less the vision mask's outer product (2·(T·P')² per image, mask set-up counted as a
    matmul in the forward, no gradient: ``transformers_reference.mllama``)."""

    from tests.method1.backward_reference import forward_backward

    model = _eager_model(torch, data, "MllamaForConditionalGeneration", recipe)
    v = model.config.vision_config
    if recipe == "frozen_vision":
        _set(model.model.language_model, True)
        _set(model.lm_head, True)
        _set(model.model.multi_modal_projector, True)
    elif recipe == "projector":
        _set(model.model.multi_modal_projector, True)
    elif recipe == "lora":
        import peft

        names = "|".join(PEFT_NAMES[t] for t in targets)
        config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, bias="none",
                                 target_modules=rf".*language_model.*\.({names})")
        model = peft.get_peft_model(model, config)
        _set(model.base_model.model.model.multi_modal_projector, True)
    tiles, size = v.max_num_tiles, v.image_size
    padded = -(-((size // v.patch_size) ** 2 + 1) // 8) * 8
    ids = torch.full((1, images + text_tokens), 5, dtype=torch.long)
    ids[0, :images] = data["image_token_index"]
    inputs = {"input_ids": ids, "pixel_values": torch.randn(1, images, tiles, 3, size, size),
              "aspect_ratio_ids": torch.ones(1, images, dtype=torch.long),
              "aspect_ratio_mask": torch.ones(1, images, tiles, dtype=torch.long),
              "attention_mask": torch.ones_like(ids),  # the processor's masks (element-wise: no products)
              "cross_attention_mask": torch.ones(1, images + text_tokens, images, tiles, dtype=torch.long)}
    trainable = sum(q.numel() for q in model.parameters() if q.requires_grad)
    forward, backward = forward_backward(torch, model, kwargs=inputs)
    return forward - images * 2 * (tiles * padded) ** 2, backward, trainable


def llava_step(torch, data: dict, images: int, image_tokens: int, text_tokens: int,
               recipe: str) -> tuple[int, int, int]:
    """(forward FLOP, backward FLOP, trainable parameters) of one example of LlavaForConditionalGeneration under
    ``recipe`` (full: every weight; frozen_vision: the projector, the language model and its head), on the CPU with
    eager attention: ``images`` images at the tower's size, ``image_tokens`` image tokens in the prompt and
    ``text_tokens`` more, ``logits.sum().backward()`` — transformers runs every layer of the tower and reads the
    hidden states of ``vision_feature_layer``: no gradient reaches the layers after it."""
    from tests.method1.backward_reference import forward_backward

    model = _eager_model(torch, data, "LlavaForConditionalGeneration", recipe)
    if recipe == "frozen_vision":
        _set(model.model.language_model, True)
        _set(model.lm_head, True)
        _set(model.model.multi_modal_projector, True)
    size = model.config.vision_config.image_size
    ids = torch.full((1, image_tokens + text_tokens), 5, dtype=torch.long)
    ids[0, :image_tokens] = data["image_token_index"]
    inputs = {"input_ids": ids, "pixel_values": torch.randn(images, 3, size, size)}
    trainable = sum(q.numel() for q in model.parameters() if q.requires_grad)
    forward, backward = forward_backward(torch, model, kwargs=inputs)
    return forward, backward, trainable


def mistral3_step(torch, data: dict, size: tuple[int, int], image_tokens: int, other_tokens: int,
                  recipe: str) -> tuple[int, int, int]:
    """(forward FLOP, backward FLOP, trainable parameters) of one example of Mistral3ForConditionalGeneration under
    ``recipe`` (as ``llava_step``), on the CPU with eager attention: one image the processor made ``size`` pixels,
    ``image_tokens`` [IMG] tokens and ``other_tokens`` more (the row ends and the prompt)."""
    from tests.method1.backward_reference import forward_backward

    model = _eager_model(torch, data, "Mistral3ForConditionalGeneration", recipe)
    if recipe == "frozen_vision":
        _set(model.model.language_model, True)
        _set(model.lm_head, True)
        _set(model.model.multi_modal_projector, True)
    ids = torch.full((1, image_tokens + other_tokens), 5, dtype=torch.long)
    ids[0, :image_tokens] = data["image_token_index"]
    inputs = {"input_ids": ids, "pixel_values": torch.randn(1, 3, *size), "image_sizes": torch.tensor([list(size)])}
    trainable = sum(q.numel() for q in model.parameters() if q.requires_grad)
    forward, backward = forward_backward(torch, model, kwargs=inputs)
    return forward, backward, trainable


def square_image_step(torch, data: dict, cls: str, image_tokens: int, text_tokens: int, recipe: str,
                      wrap: int = 0) -> tuple[int, int, int]:
    """(forward FLOP, backward FLOP, trainable parameters) of one example of ``cls`` under ``recipe`` (as
    ``llava_step``: full, frozen_vision, or projector — ``multi_modal_projector`` alone) on one image at the tower's
    square ``image_size``: ``image_tokens`` image tokens, ``wrap`` tokens before and after them (InternVL's processor
    writes <img> … </img>: 1) and ``text_tokens`` more; Gemma 3's ``token_type_ids`` mark the image tokens."""
    from tests.method1.backward_reference import forward_backward

    model = _eager_model(torch, data, cls, recipe)
    if recipe in ("frozen_vision", "projector"):
        _set(model.model.multi_modal_projector, True)
    if recipe == "frozen_vision":
        _set(model.model.language_model, True)
        _set(model.lm_head, True)
    size = model.config.vision_config.image_size
    size = size[0] if isinstance(size, (list, tuple)) else size
    token = data.get("image_token_index", data.get("image_token_id"))
    ids = torch.full((1, image_tokens + 2 * wrap + text_tokens), 5, dtype=torch.long)
    ids[0, wrap:wrap + image_tokens] = token
    inputs = {"input_ids": ids, "pixel_values": torch.randn(1, 3, size, size)}
    if data["model_type"] == "gemma3":
        inputs["token_type_ids"] = (ids == token).long()
    trainable = sum(q.numel() for q in model.parameters() if q.requires_grad)
    forward, backward = forward_backward(torch, model, kwargs=inputs)
    return forward, backward, trainable
