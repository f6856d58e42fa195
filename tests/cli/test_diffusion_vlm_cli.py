"""``python -m engine diffusion`` (a pipeline's sampling and training compute, from a folder as the Hub holds it or
part files) and ``python -m engine vlm`` (a VLM's training step under a recipe); ``flops --config`` as text. Each
figure is rebuilt here from the parts' forward counts (checked against diffusers / transformers in
tests/multimodal/) by the formula of docs/multimodal.md; bad input exits 2 with one line naming the flag."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli import cli

CONFIGS = Path(__file__).resolve().parents[1] / "multimodal" / "configs"


def _json(*args):
    out = cli(*args, "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _forward(name, *flags):
    return _json("flops", "--config", str(CONFIGS / f"{name}.json"), *flags)


def _pipeline_folder(tmp_path: Path) -> Path:
    """SD 1.5's folder layout: model_index.json naming unet, text_encoder, vae (and parts without a config)."""
    root = tmp_path / "stable-diffusion-v1-5"
    index = {"_class_name": "StableDiffusionPipeline", "_diffusers_version": "0.6.0",
             "feature_extractor": ["transformers", "CLIPImageProcessor"], "safety_checker": [None, None],
             "scheduler": ["diffusers", "PNDMScheduler"], "text_encoder": ["transformers", "CLIPTextModel"],
             "tokenizer": ["transformers", "CLIPTokenizer"], "unet": ["diffusers", "UNet2DConditionModel"],
             "vae": ["diffusers", "AutoencoderKL"]}
    for part in ("unet", "text_encoder", "vae"):
        (root / part).mkdir(parents=True)
        shutil.copy(CONFIGS / f"sd-1.5.{part}.json", root / part / "config.json")
    (root / "model_index.json").write_text(json.dumps(index))
    return root


def test_sd15_folder_sampling_and_training(tmp_path):
    out = _json("diffusion", "--pipeline", str(_pipeline_folder(tmp_path)), "--steps", "30", "--outputs", "10")
    unet = _forward("sd-1.5.unet")["forward_flop"]
    clip = _forward("sd-1.5.text_encoder", "--text-tokens", "77")["forward_flop"]
    vae = _forward("sd-1.5.vae", "--image-size", "512x512")["flop_by_component"]
    per_image = 30 * 2 * unet + 2 * clip + vae["vae_decoder"]  # CFG: two passes a step, the negative prompt too
    assert out["sampling_flop_per_output"] == per_image
    assert out["sampling_flop"] == 10 * per_image
    assert out["training_flop_per_sample"] == unet + out["denoiser_backward_flop"] + clip + vae["vae_encoder"]
    assert out["params"] == 859_520_964 + 123_060_480 + 83_653_863  # SD 1.5's U-Net, CLIP ViT-L/14 text, VAE


def test_flux_parts_without_guidance():
    names = ("flux.1-schnell.transformer", "flux.1-schnell.text_encoder", "flux.1-schnell.text_encoder_2",
             "flux.1-schnell.vae")
    files = [str(CONFIGS / f"{n}.json") for n in names]
    out = _json("diffusion", "--denoiser", files[0], "--text-encoder", files[1], "--text-encoder", files[2],
                "--vae", files[3], "--steps", "4", "--no-guidance", "--image-size", "1024x1024", "--text-tokens", "256")
    d = _forward(names[0], "--image-size", "1024x1024", "--text-tokens", "256")["forward_flop"]
    clip = _forward(names[1], "--text-tokens", "77")["forward_flop"]
    t5 = _forward(names[2], "--text-tokens", "256")["forward_flop"]  # FLUX's T5 reads all the denoiser's text
    decode = _forward(names[3], "--image-size", "1024x1024")["flop_by_component"]["vae_decoder"]
    assert out["sampling_flop_per_output"] == 4 * d + clip + t5 + decode


def test_vlm_lora_step():
    config = str(CONFIGS / "llava-1.5-7b.json")
    out = _json("vlm", "--config", config, "--recipe", "lora", "--lora-rank", "8", "--text-tokens", "64",
                "--examples", "1000")
    forward = _forward("llava-1.5-7b", "--text-tokens", "64")
    # rank-8 adapters on q and v of 32 layers of width 4096: 2 · 32 · 8 · (4096 + 4096) parameters
    adapters = 2 * 32 * 8 * (4096 + 4096)
    assert out["params"] == forward["params"] + adapters
    assert out["trainable_params"] == forward["params_by_component"]["projector"] + adapters
    assert out["backward_by_component"]["vision"] == 0
    assert out["total_training_flop"] == 1000 * out["training_flop"]


@pytest.mark.parametrize("args", [
    ("flops", "--config", str(CONFIGS / "sd-1.5.unet.json")),
    ("diffusion", "--denoiser", str(CONFIGS / "sd-1.5.unet.json"), "--vae", str(CONFIGS / "sd-1.5.vae.json")),
    ("vlm", "--config", str(CONFIGS / "paligemma-3b-pt-224.json")),
])
def test_text_format(args):
    out = cli(*args, "--format", "text")
    assert out.returncode == 0, out.stderr
    assert "params" in out.stdout or "parameters" in out.stdout


@pytest.mark.parametrize(("args", "flag"), [
    (("diffusion", "--denoiser", str(CONFIGS / "sd-1.5.unet.json"), "--steps", "0"), "--steps"),
    (("diffusion", "--denoiser", str(CONFIGS / "sd-1.5.vae.json")), "--denoiser"),
    (("diffusion", "--pipeline", str(CONFIGS)), "--pipeline"),
    (("diffusion",), "arguments"),
    (("diffusion", "--denoiser", str(CONFIGS / "sd-1.5.unet.json"), "--image-size", "0x512"), "--image-size"),
    (("diffusion", "--denoiser", str(CONFIGS / "sd-1.5.unet.json"), "--image-size", "500x512"), "--image-size"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--recipe", "lora"), "--lora-rank"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--recipe", "all"), "--recipe"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--recipe", "lora", "--lora-rank", "8", "--lora-targets",
      ""), "targets: give at least one projection to adapt"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--examples", "nan"), "--examples"),
    (("vlm", "--config", str(CONFIGS / "sd-1.5.unet.json")), "config"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--image-size", "1000000x1000000"), "--image-size"),
    # flags a model or a recipe does not use are refused, not silently left out
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--audio-seconds", "10"),
     "--audio-seconds: LlavaForConditionalGeneration takes no audio"),
    (("flops", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--audio-seconds", "5"),
     "--audio-seconds: LlavaForConditionalGeneration takes no audio"),
    (("flops", "--config", str(CONFIGS / "sd-1.5.unet.json"), "--audio-seconds", "5"), "--audio-seconds"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--recipe", "frozen_vision", "--lora-targets", "q,k"),
     "--lora-targets: the adapters' projections go with the lora recipe"),
    (("vlm", "--config", str(CONFIGS / "llava-1.5-7b.json"), "--recipe", "lora", "--lora-rank", "8", "--lora-targets",
      "q,q"), "--lora-targets: 'q' is given twice"),
    (("transformer", "--model", "phi-3-mini-4k", "--lora-rank", "8", "--lora-targets", "v,q,v"),
     "lora_targets: 'v' is given twice"),
])
def test_bad_input_one_line(args, flag):
    out = cli(*args, "--format", "json")
    assert out.returncode == 2
    line = out.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: {flag}"), line


def test_audio_still_goes_to_a_model_that_hears():
    """The refusal above is for models without audio: Whisper reads the seconds given (30 s windows)."""
    assert _forward("whisper-large-v3", "--audio-seconds", "45")["inputs"]["audio_seconds"] == 45


def test_a_pipeline_folder_reads_only_its_own_parts(tmp_path):
    """A part named as a path (``text_encoder_2/../../secret``) would read a config.json outside the folder: refused
    by name before any read; an empty part entry and a file that is not UTF-8 are one line each (they were an
    IndexError and a UnicodeDecodeError)."""
    root = _pipeline_folder(tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    shutil.copy(CONFIGS / "sd-1.5.text_encoder.json", secret / "config.json")
    index = json.loads((root / "model_index.json").read_text())
    (root / "model_index.json").write_text(json.dumps(index | {"text_encoder_2/../../secret": ["transformers", "X"]}))
    out = cli("diffusion", "--pipeline", str(root), "--format", "json")
    assert out.returncode == 2 and out.stderr.strip() == (
        "error: --pipeline.model_index: 'text_encoder_2/../../secret': not a part's name (letters, digits and _: "
        "a part is a subfolder of the pipeline's own)"), out.stderr
    (root / "model_index.json").write_text(json.dumps(index | {"text_encoder": []}))
    assert _json("diffusion", "--pipeline", str(root))["params"] == 859_520_964 + 83_653_863  # no text encoder
    (root / "model_index.json").write_text(json.dumps(index))
    (root / "vae" / "config.json").write_bytes(b'{"_class_name": "AutoencoderKL", "x": "\xff\xfe"}')
    out = cli("diffusion", "--pipeline", str(root), "--format", "json")
    assert out.returncode == 2 and out.stderr.startswith("error: --pipeline.vae: ") and \
        "is not UTF-8 text (byte 40 is 0xff): save it as UTF-8" in out.stderr, out.stderr
    (root / "model_index.json").write_bytes(b"\xff\xfe{}")
    out = cli("diffusion", "--pipeline", str(root), "--format", "json")
    assert out.returncode == 2 and out.stderr.startswith("error: --pipeline.model_index: ") and \
        len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.parametrize("flag, part, content, words", [
    ("--vae", None, "null", "expected a config.json (a JSON object { … }), got null"),  # dropped, exit 0
    ("--vae", None, "[1, 2]", "expected a config.json (a JSON object { … }), got an array"),  # blamed --image-size
    ("--text-encoder", "sd-1.5.unet", None, "UNet2DConditionModel is not a text encoder"),  # counted as one
    ("--text-encoder", "sd-1.5.vae", None, "AutoencoderKL is not a text encoder"),
])
def test_a_part_of_another_kind_is_named(tmp_path, flag, part, content, words):
    """A VAE file holding null was dropped without a word; an array was blamed on --image-size; a U-Net or a VAE
    given as the text encoder was counted as one (859,520,964 parameters of 'text encoder')."""
    path = CONFIGS / f"{part}.json" if part else tmp_path / "part.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    out = cli("diffusion", "--denoiser", str(CONFIGS / "sd-1.5.unet.json"), flag, str(path), "--format", "json")
    assert out.returncode == 2 and out.stderr.strip().startswith(f"error: {flag}: ") and words in out.stderr, \
        out.stderr
