"""Training and sampling compute of multimodal and generative models, built from the counted parts:
- sampling: steps × (2 with classifier-free guidance, 1 without) × the denoiser's forward + the text encoders'
  (× 2 with guidance: the negative prompt) + the VAE decode — SD 1.5 (50 steps, guidance) and FLUX.1-dev (28 steps,
  guidance-distilled: no second pass), each part's forward checked against diffusers/transformers elsewhere;
- a VLM LoRA fine-tune's exact backward against PyTorch with ``peft`` on a small Qwen2-VL-style model (vision tower
  frozen, merger trained, LoRA on the language model's q and v), and the other recipes."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config


def _pipeline(denoiser, encoders, vae, **inputs):
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.pipeline import read_parts

    return read_parts(config(denoiser), [config(e) for e in encoders], config(vae), media_inputs(inputs))


def _forward(name, **inputs):
    from tests.multimodal.configs_lib import engine_count

    return engine_count(config(name), **inputs).forward_flop


def test_sd15_sampling_50_steps_with_guidance():
    from engine.multimodal.training import pipeline_compute

    parts = _pipeline("sd-1.5.unet", ["sd-1.5.text_encoder"], "sd-1.5.vae")
    out = pipeline_compute(*parts, {"steps": 50, "guidance": True, "outputs": 1000})
    unet = _forward("sd-1.5.unet", image_size=(512, 512), text_tokens=77)
    clip = _forward("sd-1.5.text_encoder", text_tokens=77)
    vae = _forward("sd-1.5.vae", image_size=(512, 512))  # encode + decode
    from tests.multimodal.configs_lib import engine_count

    decode = engine_count(config("sd-1.5.vae"), image_size=(512, 512)).flop_by_component["vae_decoder"]
    assert out.sampling_flop_per_output == 50 * 2 * unet + 2 * clip + decode
    assert out.sampling_flop == 1000 * out.sampling_flop_per_output
    assert out.training_flop_per_sample == unet + out.denoiser_backward_flop + clip + (vae - decode)
    assert out.training_flop_per_sample_cached == unet + out.denoiser_backward_flop
    # every U-Net weight trains; no input gradient for conv_in (the noisy latent is data), the cross-attentions'
    # k and v projections (the frozen encoder's text) and the time MLP's first linear (a sinusoid):
    # 2·forward less those products: conv_in 64·64·320·36, k and v 77·768·2C over the 16 spatial transformers
    # (ΣC = 2·(320 + 640 + 1280) + 1280 + 3·(1280 + 640 + 320) = 12,480), linear_1 320·1280
    skipped = 64 * 64 * 320 * 36 + 77 * 768 * 2 * 12_480 + 320 * 1280
    assert out.denoiser_backward_flop == 2 * unet - 2 * skipped


def _denoiser(name: str):
    """diffusers' model of ``name`` on the meta device, every weight trainable (a training step)."""
    pytest.importorskip("diffusers")
    from tests.method1.backward_reference import set_trainable
    from tests.multimodal.diffusers_reference import build

    model = build(config(name))
    set_trainable(model, True)
    return model


def _assert_step_equals_pytorch(torch, model, parts, *args, **kwargs) -> None:
    """The denoiser's forward and backward at one step (``pipeline_compute`` of ``parts``) equal FlopCounterMode's
    over ``model(*args, **kwargs)`` and ``out.sum().backward()``."""
    from engine.multimodal.training import pipeline_compute
    from tests.method1.backward_reference import forward_backward

    forward, backward = forward_backward(torch, model, *args, kwargs={**kwargs, "return_dict": False})
    ours = pipeline_compute(*parts, {"steps": 1})
    assert (ours.denoiser_forward_flop, ours.denoiser_backward_flop) == (forward, backward)


@pytest.mark.external_check("conditioning_dense")
def test_unet_backward_against_pytorch(torch):
    """The U-Net's training backward against ``loss.backward()`` of diffusers' SD 1.5 U-Net on the meta device."""
    from tests.multimodal.diffusers_reference import meta

    unet = _denoiser("sd-1.5.unet")
    parts = _pipeline("sd-1.5.unet", ["sd-1.5.text_encoder"], "sd-1.5.vae", image_size=(256, 256), text_tokens=20)
    _assert_step_equals_pytorch(torch, unet, parts, meta(1, 4, 32, 32), torch.tensor([10], device="meta"),
                                encoder_hidden_states=meta(1, 20, 768))


@pytest.mark.external_check("conditioning_dense")
def test_kolors_unet_backward_against_pytorch(torch):
    """Kolors' U-Net projects the text itself (``encoder_hid_proj``, trained with the U-Net): every cross-attention's
    k and v pass a gradient back to it, as ``loss.backward()`` of diffusers' model on the meta device computes."""
    from tests.multimodal.diffusers_reference import meta

    unet = _denoiser("kolors.unet")
    pooled = unet.config.projection_class_embeddings_input_dim - 6 * unet.config.addition_time_embed_dim
    parts = _pipeline("kolors.unet", ["kolors.text_encoder"], "sdxl-base-1.0.vae", image_size=(256, 256),
                      text_tokens=20)
    _assert_step_equals_pytorch(torch, unet, parts, meta(1, 4, 32, 32), torch.tensor([10], device="meta"),
                                encoder_hidden_states=meta(1, 20, unet.config.encoder_hid_dim),
                                added_cond_kwargs={"text_embeds": meta(1, pooled), "time_ids": meta(1, 6)})


@pytest.mark.parametrize("name", ["pixart-alpha-xl-2-1024", "pixart-sigma-xl-2-1024"])
@pytest.mark.external_check("conditioning_dense")
def test_pixart_backward_against_pytorch(name, torch):
    """PixArt's caption projection trains, so its cross-attentions' k and v pass a gradient back to it; its timestep
    and size conditions are read inside the blocks, so the latent before the patch embedding needs none."""
    from tests.multimodal.diffusers_reference import meta

    model = _denoiser(f"{name}.transformer")
    parts = _pipeline(f"{name}.transformer", ["flux.1-schnell.text_encoder_2"], "sd-1.5.vae", image_size=(256, 256),
                      text_tokens=20)
    _assert_step_equals_pytorch(torch, model, parts, meta(1, 4, 32, 32), timestep=torch.tensor([10], device="meta"),
                                encoder_hidden_states=meta(1, 20, model.config.caption_channels),
                                added_cond_kwargs={"resolution": meta(1, 2), "aspect_ratio": meta(1, 1)})


@pytest.mark.external_check("conditioning_dense", "learned_values")
def test_hunyuan_dit_backward_against_pytorch(torch):
    """HunyuanDiT's text_embedder and padding train, so the cross-attentions' k and v pass a gradient back into
    the context; the attention pool's k and v into its input (the trained positional embedding added to mT5's
    tokens); the style embedding and the padding are read by conditioning layers, so the latent needs none."""
    from tests.multimodal.diffusers_reference import meta

    model = _denoiser("hunyuandit-v1.2.transformer")
    c = model.config
    ones = {n: torch.ones(1, n, dtype=torch.long, device="meta") for n in (c.text_len, c.text_len_t5)}
    parts = _pipeline("hunyuandit-v1.2.transformer", [], "sd-1.5.vae", image_size=(256, 256))
    _assert_step_equals_pytorch(
        torch, model, parts, meta(1, c.in_channels, 32, 32), timestep=torch.tensor([10], device="meta"),
        encoder_hidden_states=meta(1, c.text_len, c.cross_attention_dim), text_embedding_mask=ones[c.text_len],
        encoder_hidden_states_t5=meta(1, c.text_len_t5, c.cross_attention_dim_t5),
        text_embedding_mask_t5=ones[c.text_len_t5], image_meta_size=meta(1, 6),
        style=torch.zeros(1, dtype=torch.long, device="meta"))


@pytest.mark.external_check("conditioning_dense")
def test_wan_backward_against_pytorch(torch):
    """Wan's text_embedder trains (k and v pass a gradient back to it); its time projection is read inside each
    block, so the latent video before the patch embedding needs no gradient."""
    from tests.multimodal.diffusers_reference import meta

    model = _denoiser("wan2.1-t2v-1.3b.transformer")
    c = model.config
    parts = _pipeline("wan2.1-t2v-1.3b.transformer", [], "wan2.1-t2v-1.3b.vae", image_size=(64, 64), frames=9,
                      text_tokens=16)
    _assert_step_equals_pytorch(torch, model, parts, meta(1, c.in_channels, 3, 8, 8),
                                torch.tensor([10], device="meta"), meta(1, 16, c.text_dim))


def test_flux_dev_sampling_28_steps():
    from engine.multimodal.training import pipeline_compute

    parts = _pipeline("flux.1-dev.transformer", ["flux.1-schnell.text_encoder", "flux.1-schnell.text_encoder_2"],
                      "flux.1-schnell.vae")
    out = pipeline_compute(*parts, {"steps": 28, "guidance": False})
    flux = _forward("flux.1-dev.transformer", image_size=(1024, 1024), text_tokens=512)
    clip = _forward("flux.1-schnell.text_encoder", text_tokens=77)
    from engine.multimodal.count import count_config
    from engine.multimodal.inputs import media_inputs

    t5 = count_config(config("flux.1-schnell.text_encoder_2"), media_inputs({"text_tokens": 512})).forward_flop
    from tests.multimodal.configs_lib import engine_count

    decode = engine_count(config("flux.1-schnell.vae"), image_size=(1024, 1024)).flop_by_component["vae_decoder"]
    assert out.sampling_flop_per_output == 28 * flux + clip + t5 + decode
    assert out.text_encoder_flop == clip + t5


@pytest.mark.parametrize("recipe", ("full", "frozen_vision", "projector", "lora"))
def test_vlm_recipes_against_pytorch_and_peft(recipe, torch):
    """A small Qwen2-VL (2 vision blocks, 2 language layers) on the CPU: forward and ``logits.sum().backward()``
    under FlopCounterMode, with the recipe's weights trainable (peft's LoRA on the language model's q_proj and
    v_proj, the merger trained) — forward, backward and trainable parameters equal the engine's."""
    pytest.importorskip("transformers")
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe, vlm_training_step
    from tests.multimodal.vlm_backward_reference import qwen2_vl_step, tiny_qwen2_vl

    data = tiny_qwen2_vl()
    model = read_any(data, media_inputs({"image_size": (56, 84), "text_tokens": 6}))
    spec = VlmRecipe(recipe=recipe, lora_rank=4 if recipe == "lora" else None)
    ours = vlm_training_step(model, spec)
    forward, backward, trainable = qwen2_vl_step(torch, data, (56, 84), 6, recipe, rank=4)
    assert (ours.forward_flop, ours.backward_flop, ours.trainable_params) == (forward, backward, trainable)


TINY_CLIP = {"model_type": "clip_vision_model", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 3,
             "num_attention_heads": 4, "image_size": 28, "patch_size": 14, "projection_dim": 16}
TINY_SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
               "num_hidden_layers": 3, "num_attention_heads": 4, "image_size": 28, "patch_size": 14}
"""SigLIP without ``vision_use_head``: its default builds the pooling head, which runs and nobody reads."""
TINY_LLAMA = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 200, "max_position_embeddings": 512}


@pytest.mark.external_check("unused")
@pytest.mark.parametrize("recipe", ("full", "frozen_vision"))
@pytest.mark.parametrize("tower, layer", (("clip", -2), ("clip", -1), ("clip", [-3, -1]), ("clip", 1),
                                          ("siglip", -2), ("siglip", -1)))
def test_llava_feature_layer_training_against_pytorch(tower, layer, recipe, torch):
    """LLaVA reads the hidden states of ``vision_feature_layer`` (−2 in LLaVA-1.5): transformers runs the whole
    tower, but no gradient reaches the layers after the deepest layer read, CLIP's final norm (on the class token)
    or SigLIP's pooling head — their forward counted, no backward. Forward, backward and trainable parameters equal
    PyTorch's. Before: the full recipe counted the backward of the layers after the one read (170,240 FLOP more
    than PyTorch's 4,152,832 at −2), and SigLIP's head's forward was left out (a note)."""
    pytest.importorskip("transformers")
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe, vlm_training_step
    from tests.multimodal.vlm_backward_reference import llava_step

    data = {"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava", "image_token_index": 190,
            "vision_feature_layer": layer, "vision_feature_select_strategy": "default",
            "projector_hidden_act": "gelu", "tie_word_embeddings": False,
            "vision_config": TINY_CLIP if tower == "clip" else TINY_SIGLIP, "text_config": TINY_LLAMA}
    model = read_any(data, media_inputs({"images": 2, "text_tokens": 6}))
    ours = vlm_training_step(model, VlmRecipe(recipe=recipe))
    reference = llava_step(torch, data, 2, model.image_tokens, 6, recipe)
    assert (ours.forward_flop, ours.backward_flop, ours.trainable_params) == reference
    deepest = max(i % 4 for i in (layer if isinstance(layer, list) else [layer]))  # hidden_states[i] of 3 layers
    assert any("no gradient reaches" in n for n in ours.notes) == (deepest < 3)  # the layers after it said


@pytest.mark.parametrize("recipe", ("full", "frozen_vision"))
@pytest.mark.parametrize("layer", (-1, -2, 1))
def test_mistral3_feature_layer_training_against_pytorch(layer, recipe, torch):
    """Mistral 3 reads one layer's hidden states of its Pixtral tower (−1 in the published files): the layers after
    it run and get no gradient. Forward, backward and trainable parameters equal PyTorch's."""
    pytest.importorskip("transformers")
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe, vlm_training_step
    from tests.multimodal.vlm_backward_reference import mistral3_step

    data = {"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3", "image_token_index": 10,
            "vision_feature_layer": layer, "spatial_merge_size": 2, "projector_hidden_act": "gelu",
            "multimodal_projector_bias": False, "tie_word_embeddings": False,
            "vision_config": {"model_type": "pixtral", "hidden_size": 32, "intermediate_size": 64,
                              "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 8, "image_size": 112,
                              "patch_size": 14, "rope_theta": 10000.0},
            "text_config": {**TINY_LLAMA, "model_type": "mistral", "head_dim": 16}}
    model = read_any(data, media_inputs({"image_size": (56, 84), "text_tokens": 6}))
    ours = vlm_training_step(model, VlmRecipe(recipe=recipe))
    rows = 56 // 28
    reference = mistral3_step(torch, data, (56, 84), model.image_tokens, rows + 6, recipe)
    assert (ours.forward_flop, ours.backward_flop, ours.trainable_params) == reference
    assert any("no gradient reaches" in n for n in ours.notes) == (layer % 4 < 3)


TINY_SIGLIP_NO_HEAD = {**TINY_SIGLIP, "image_size": 56, "num_hidden_layers": 2, "vision_use_head": False}
SQUARE_IMAGE_VLMS = {
    "gemma3": ("Gemma3ForConditionalGeneration", 0, {
        "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "image_token_index": 190,
        "boi_token_index": 191, "eoi_token_index": 192, "mm_tokens_per_image": 4, "vision_config": TINY_SIGLIP_NO_HEAD,
        "text_config": {"model_type": "gemma3_text", "hidden_size": 64, "intermediate_size": 128,
                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
                        "vocab_size": 200, "sliding_window": 8, "max_position_embeddings": 256}}),
    "paligemma": ("PaliGemmaForConditionalGeneration", 0, {
        "architectures": ["PaliGemmaForConditionalGeneration"], "model_type": "paligemma", "image_token_index": 190,
        "projection_dim": 64, "hidden_size": 64, "vision_config": {**TINY_SIGLIP_NO_HEAD, "projection_dim": 64},
        "text_config": {"model_type": "gemma", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16, "vocab_size": 200,
                        "max_position_embeddings": 256}}),
    "internvl": ("InternVLForConditionalGeneration", 1, {
        "architectures": ["InternVLForConditionalGeneration"], "model_type": "internvl", "downsample_ratio": 0.5,
        "image_seq_length": 4, "image_token_id": 190, "projector_hidden_act": "gelu", "tie_word_embeddings": False,
        "vision_feature_layer": -1, "vision_feature_select_strategy": "default",
        "vision_config": {"model_type": "internvl_vision", "attention_bias": True, "hidden_act": "gelu",
                          "hidden_size": 32, "image_size": [56, 56], "intermediate_size": 64,
                          "layer_scale_init_value": 0.1, "norm_type": "layer_norm", "num_attention_heads": 4,
                          "num_channels": 3, "num_hidden_layers": 2, "patch_size": [14, 14],
                          "use_absolute_position_embeddings": True, "use_mask_token": False,
                          "use_mean_pooling": True, "use_qk_norm": False},
        "text_config": {**TINY_LLAMA, "model_type": "qwen2", "tie_word_embeddings": False}}),
}
"""Small Gemma 3 (SigLIP, 4×4 patches pooled to 4 tokens), PaliGemma and InternVL (pixel shuffle 0.5, <img> and
</img> around the image's tokens) configs, built by transformers on the CPU."""


@pytest.mark.parametrize("recipe", ("full", "frozen_vision", "projector"))
@pytest.mark.parametrize("name", SQUARE_IMAGE_VLMS)
def test_square_image_vlm_training_against_pytorch(name, recipe, torch):
    """Gemma 3, PaliGemma and InternVL under three recipes: forward, backward and trainable parameters equal
    FlopCounterMode over ``logits.sum().backward()`` with the recipe's ``requires_grad`` set."""
    pytest.importorskip("transformers")
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import media_inputs
    from engine.multimodal.training import VlmRecipe, vlm_training_step
    from tests.multimodal.vlm_backward_reference import square_image_step

    cls, wrap, data = SQUARE_IMAGE_VLMS[name]
    model = read_any(data, media_inputs({"images": 1, "text_tokens": 5}))
    ours = vlm_training_step(model, VlmRecipe(recipe=recipe))
    reference = square_image_step(torch, data, cls, model.image_tokens, 5, recipe, wrap)
    assert (ours.forward_flop, ours.backward_flop, ours.trainable_params) == reference
