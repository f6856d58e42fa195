"""Kolors (Kwai-Kolors/Kolors-diffusers) from the Hub's files: the U-Net (SDXL's layout, the text projected from
ChatGLM3's 4096 to 2048 by ``encoder_hid_proj``, the pooled ChatGLM text in the added conditions) against diffusers'
``UNet2DConditionModel``, and the ChatGLM3-6B text encoder against diffusers' own copy of Kolors' ``ChatGLMModel``
(``diffusers.pipelines.kolors.text_encoder``), each built from the same file on the meta device (Σ numel and
FlopCounterMode), at three sizes; the pipeline's sampling compute (``diffusion --pipeline``) from those references;
``flops --config`` on each file. The VAE is SDXL's (no copy of Kolors' vae/config.json was found: SOURCES.json)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli import cli
from tests.multimodal.configs_lib import CONFIGS, config, engine_count, sources

pytest.importorskip("torch")
pytest.importorskip("diffusers")

SIZES = ((768, 768, 256), (1024, 1024, 256), (1024, 1536, 256), (1024, 1024, 77))
TOKENS = (256, 77, 1)


def chatglm_reference(data: dict, tokens: int) -> tuple[int, int]:
    """diffusers' ChatGLMModel (Kolors' text encoder) built from ``data`` on meta: Σ numel, and FlopCounterMode over
    ``tokens`` tokens with the hidden states as KolorsPipeline asks for them (no padding mask: a full one changes no
    product). Its rotary step is TorchScript, which runs on meta with the graph optimizer off."""
    import torch
    from diffusers.pipelines.kolors.text_encoder import ChatGLMConfig, ChatGLMModel

    from tests.multimodal.diffusers_reference import measure

    model = ChatGLMModel(ChatGLMConfig(**{k: v for k, v in data.items() if not k.startswith("_")}),
                         device="meta").eval()
    ids = torch.zeros(1, tokens, dtype=torch.long, device="meta")
    with torch.jit.optimized_execution(False):
        return measure(model, lambda m: m(input_ids=ids, position_ids=ids, output_hidden_states=True,
                                          use_cache=False))


def vae_decode_reference(data: dict, size: tuple[int, int]) -> int:
    """AutoencoderKL.decode of the latent of ``size`` (what sampling runs once per image), FlopCounterMode."""
    from tests.multimodal.diffusers_reference import build, measure, meta

    model = build(data)
    latent = meta(1, model.config.latent_channels, size[0] // 8, size[1] // 8)
    return measure(model, lambda m: m.decode(latent))[1]


def test_kolors_files_have_sources():
    for name in ("kolors.unet", "kolors.text_encoder"):
        assert (CONFIGS / f"{name}.json").is_file() and sources()[name]["repository"]
    # the Hub's unet/config.json is 1,785 bytes, text_encoder/config.json 1,323 (SOURCES.json): the copies are whole
    assert (CONFIGS / "kolors.unet.json").stat().st_size == 1785
    assert (CONFIGS / "kolors.text_encoder.json").stat().st_size == 1323


@pytest.mark.parametrize("h, w, tokens", SIZES)
@pytest.mark.external_check("group_norm", "conditioning_dense", "attention_core", "tokens_to_grid", "gated_unit")
def test_kolors_unet_matches_diffusers(h, w, tokens):
    from tests.multimodal.diffusers_reference import unet2d

    data = config("kolors.unet")
    ours = engine_count(data, image_size=(h, w), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == unet2d(data, (h, w), tokens)
    assert ours.params_by_component == {"denoiser": ours.params}


def test_kolors_unet_standard_input_and_projection():
    ours = engine_count(config("kolors.unet"))
    # sample_size 128 latents → 1024²; the ChatGLM prompt padded to 256 tokens (KolorsPipeline's max_sequence_length)
    assert ours.inputs == {"image_size": "1024x1024", "text_tokens": 256, "latent": [128, 128]}
    sdxl = engine_count(config("sdxl-base-1.0.unet"), image_size=(1024, 1024), text_tokens=256)
    # SDXL's U-Net with a 4096 → 2048 text projection (weights and bias) and a pooled text of 4096 instead of 1280
    # in add_embedding's first linear (5632 = 4096 + 6·256 inputs, 1280 outputs)
    assert ours.params - sdxl.params == 4096 * 2048 + 2048 + (4096 - 1280) * 1280
    # the projection runs over the 256 tokens; the pooled text's extra inputs once
    assert ours.forward_flop - sdxl.forward_flop == 2 * 256 * 4096 * 2048 + 2 * (4096 - 1280) * 1280


@pytest.mark.parametrize("tokens", TOKENS)
@pytest.mark.external_check("embedding", "learned_values")
def test_chatglm_matches_diffusers_kolors_text_encoder(tokens):
    data = config("kolors.text_encoder")
    ours = engine_count(data, text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == chatglm_reference(data, tokens)


def test_chatglm_by_hand():
    # ChatGLM3-6B: d 4096, 28 layers, 32 heads of 128, 2 key/value groups, F 13696, V 65024 (the file)
    d, layers, heads, head, groups, ff, vocab, s = 4096, 28, 32, 128, 2, 13696, 65024, 256
    qkv = (heads + 2 * groups) * head
    block = d * qkv + qkv + heads * head * d + d * 2 * ff + ff * d + 2 * d  # fused q/k/v + bias, out, SwiGLU, 2 norms
    ours = engine_count(config("kolors.text_encoder"), text_tokens=s)
    assert ours.params == vocab * d + layers * block + d + d * vocab  # + final norm + the held output layer
    assert round(ours.params / 1e9, 2) == 6.24  # "ChatGLM3-6B", 6.24B as THUDM's model card lists it
    per_layer = 2 * s * (d * qkv + heads * head * d + 3 * d * ff) + 4 * s * s * heads * head
    assert ours.forward_flop == layers * per_layer  # the output layer is not run by ChatGLMModel


def _kolors_folder(tmp_path: Path) -> Path:
    """Kolors-diffusers' layout (model_index.json written here with the parts its pipeline names; the VAE's file is
    SDXL's)."""
    root = tmp_path / "Kolors-diffusers"
    index = {"_class_name": "KolorsPipeline", "_diffusers_version": "0.30.0.dev0",
             "force_zeros_for_empty_prompt": False, "image_encoder": [None, None], "feature_extractor": [None, None],
             "scheduler": ["diffusers", "EulerDiscreteScheduler"], "text_encoder": ["kolors", "ChatGLMModel"],
             "tokenizer": ["kolors", "ChatGLMTokenizer"], "unet": ["diffusers", "UNet2DConditionModel"],
             "vae": ["diffusers", "AutoencoderKL"]}
    for part, name in (("unet", "kolors.unet"), ("text_encoder", "kolors.text_encoder"), ("vae", "sdxl-base-1.0.vae")):
        (root / part).mkdir(parents=True)
        shutil.copy(CONFIGS / f"{name}.json", root / part / "config.json")
    (root / "model_index.json").write_text(json.dumps(index))
    return root


def _json(*args) -> dict:
    out = cli(*args, "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_kolors_pipeline_sampling_50_steps_with_guidance(tmp_path):
    from tests.multimodal.diffusers_reference import unet2d

    out = _json("diffusion", "--pipeline", str(_kolors_folder(tmp_path)), "--steps", "50", "--outputs", "10")
    unet_params, unet = unet2d(config("kolors.unet"), (1024, 1024), 256)
    glm_params, glm = chatglm_reference(config("kolors.text_encoder"), 256)
    decode = vae_decode_reference(config("sdxl-base-1.0.vae"), (1024, 1024))
    per_image = 50 * 2 * unet + 2 * glm + decode  # CFG: two U-Net passes a step; the negative prompt encoded too
    assert out["sampling_flop_per_output"] == per_image
    assert out["sampling_flop"] == 10 * per_image
    assert out["params_by_component"]["text_encoder"] == glm_params
    assert out["params_by_component"]["denoiser"] == unet_params
    assert out["inputs"] == {"image_size": "1024x1024", "text_tokens": 256, "latent": [128, 128]}


def test_flops_cli_on_kolors_files():
    unet = _json("flops", "--config", str(CONFIGS / "kolors.unet.json"), "--image-size", "1024x1024",
                 "--text-tokens", "256")
    assert (unet["params"], unet["forward_flop"]) == (2_579_458_820, 6_962_618_433_536)  # = diffusers' (above)
    assert unet["flop_by_component"] == {"denoiser": unet["forward_flop"]}
    glm = _json("flops", "--config", str(CONFIGS / "kolors.text_encoder.json"))
    assert (glm["params"], glm["forward_flop"], glm["inputs"]) == (6_243_584_000, 2_953_863_757_824,
                                                                   {"text_tokens": 256})
    assert any("not run" in n for n in glm["notes"])


@pytest.mark.parametrize("change, key", [({"rmsnorm": False}, "rmsnorm"),
                                         ({"add_bias_linear": True}, "add_bias_linear"),
                                         ({"pre_seq_len": 128}, "pre_seq_len"),
                                         ({"multi_query_group_num": 3}, "multi_query_group_num"),
                                         ({"architectures": ["ChatGLMForConditionalGeneration"]}, "architectures"),
                                         ({"num_layers": 0}, "num_layers")])
def test_chatglm_bad_keys_named(change, key):
    from engine.errors import InputError

    data = {**config("kolors.text_encoder"), **change}

    with pytest.raises(InputError) as info:
        engine_count(data)
    assert key in info.value.field


def test_chatglm_text_tokens_beyond_its_positions_named():
    from engine.errors import InputError

    with pytest.raises(InputError) as info:
        engine_count(config("kolors.text_encoder"), text_tokens=40_000)
    assert info.value.field == "text_tokens" and "32,768" in info.value.reason


def test_kolors_upload_sorts_the_chatglm_encoder_and_samples():
    """The layer builder's upload (without Streamlit): the ChatGLM3 file is a text encoder; the pipeline's figure is
    the one the CLI gives (7.13e14 an image at 1024², 256 tokens, 50 steps with guidance: docs/multimodal.md)."""
    from engine.multimodal.inputs import media_inputs
    from ui.views.multimodal import pipeline_of, read_parts_of

    inputs = media_inputs({})
    files = [("config.json", (CONFIGS / f"{n}.json").read_bytes())
             for n in ("kolors.text_encoder", "kolors.unet", "sdxl-base-1.0.vae")]
    parts, errors = read_parts_of(files, inputs)
    assert errors == [] and [p.role for p in parts] == ["text_encoder", "denoiser", "vae"]
    p = pipeline_of(parts, inputs, {"steps": 50, "guidance": True})
    glm, unet, vae = (part.count for part in parts)
    assert glm.inputs == {"text_tokens": 256}
    assert p.sampling_flop_per_output == 50 * 2 * unet.forward_flop + 2 * glm.forward_flop + \
        vae.flop_by_component["vae_decoder"] == 712_639_963_463_680
