"""The video VAEs through the CLI: ``flops --config vae/config.json --image-size HxW --frames F`` (params, forward
FLOP = encode + decode, per component) and ``diffusion`` over a CogVideoX folder and Wan's parts, whose sampling
includes the VAE decode of the video and whose training step the VAE encode. The VAE figures are those
FlopCounterMode gives on diffusers' models (tests/multimodal/test_video_vae.py); the sums are docs/multimodal.md's."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli import cli

CONFIGS = Path(__file__).resolve().parents[1] / "multimodal" / "configs"
COG_VAE = {"vae_encoder": 148_964_681_318_400, "vae_decoder": 315_027_947_520_000}
"""CogVideoX's VAE at 49 frames of 480 × 720: encode and decode, as FlopCounterMode counts diffusers' model."""
WAN_17 = {"vae_encoder": 5_690_192_035_840, "vae_decoder": 9_567_545_589_760}
"""Wan 2.1's VAE at 17 frames of 256 × 256."""


def _json(*args):
    out = cli(*args, "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _file(name: str) -> str:
    return str(CONFIGS / f"{name}.json")


def test_flops_of_a_video_vae():
    out = _json("flops", "--config", _file("wan2.1-t2v-1.3b.vae"), "--image-size", "256x256", "--frames", "17")
    assert out["params"] == 126_892_531
    assert out["flop_by_component"] == WAN_17
    assert out["forward_flop"] == sum(WAN_17.values())
    assert set(out["params_by_component"]) == {"vae_encoder", "vae_decoder"}
    assert sum(out["params_by_component"].values()) == out["params"]
    assert out["inputs"] == {"image_size": "256x256", "frames": 17, "latent": [5, 32, 32], "decoded_frames": 17}


def test_cogvideox_folder_sampling_and_training(tmp_path):
    """CogVideoX-2b's folder as the Hub lays it out; its text encoder is T5 v1.1 XXL's encoder (here FLUX.1's copy
    of that file: the same architecture)."""
    root = tmp_path / "CogVideoX-2b"
    index = {"_class_name": "CogVideoXPipeline", "_diffusers_version": "0.30.0.dev0",
             "scheduler": ["diffusers", "CogVideoXDDIMScheduler"], "text_encoder": ["transformers", "T5EncoderModel"],
             "tokenizer": ["transformers", "T5Tokenizer"], "transformer": ["diffusers", "CogVideoXTransformer3DModel"],
             "vae": ["diffusers", "AutoencoderKLCogVideoX"]}
    for part, name in (("transformer", "cogvideox-2b.transformer"), ("vae", "cogvideox-2b.vae"),
                       ("text_encoder", "flux.1-schnell.text_encoder_2")):
        (root / part).mkdir(parents=True)
        shutil.copy(_file(name), root / part / "config.json")
    (root / "model_index.json").write_text(json.dumps(index))
    out = _json("diffusion", "--pipeline", str(root), "--steps", "50", "--outputs", "100")
    d = _json("flops", "--config", _file("cogvideox-2b.transformer"))["forward_flop"]  # 49 frames, 480 × 720
    t5 = _json("flops", "--config", _file("flux.1-schnell.text_encoder_2"), "--text-tokens", "226")["forward_flop"]
    assert (out["vae_encoder_flop"], out["vae_decoder_flop"]) == (COG_VAE["vae_encoder"], COG_VAE["vae_decoder"])
    per_video = 50 * 2 * d + 2 * t5 + COG_VAE["vae_decoder"]  # guidance: two passes a step, the negative prompt too
    assert out["sampling_flop_per_output"] == per_video
    assert out["sampling_flop"] == 100 * per_video
    assert out["training_flop_per_sample"] == d + out["denoiser_backward_flop"] + t5 + COG_VAE["vae_encoder"]
    assert out["training_flop_per_sample_cached"] == d + out["denoiser_backward_flop"]
    assert out["params_by_component"]["vae"] == 215_583_907


def test_wan_folder_at_the_users_frames(tmp_path):
    """Wan 2.1 T2V 1.3B's folder; its umT5-XXL text encoder's file is constructed (SOURCES.json)."""
    root = tmp_path / "Wan2.1-T2V-1.3B-Diffusers"
    index = {"_class_name": "WanPipeline", "_diffusers_version": "0.33.0.dev0",
             "scheduler": ["diffusers", "UniPCMultistepScheduler"],
             "text_encoder": ["transformers", "UMT5EncoderModel"], "tokenizer": ["transformers", "T5TokenizerFast"],
             "transformer": ["diffusers", "WanTransformer3DModel"], "vae": ["diffusers", "AutoencoderKLWan"]}
    for part, name in (("transformer", "wan2.1-t2v-1.3b.transformer"), ("vae", "wan2.1-t2v-1.3b.vae"),
                       ("text_encoder", "wan2.1.text_encoder.constructed")):
        (root / part).mkdir(parents=True)
        shutil.copy(_file(name), root / part / "config.json")
    (root / "model_index.json").write_text(json.dumps(index))
    out = _json("diffusion", "--pipeline", str(root), "--image-size", "256x256", "--frames", "17", "--steps", "50")
    d = _json("flops", "--config", _file("wan2.1-t2v-1.3b.transformer"), "--image-size", "256x256",
              "--frames", "17")["forward_flop"]
    umt5 = _json("flops", "--config", _file("wan2.1.text_encoder.constructed"), "--text-tokens", "512")
    assert round(umt5["params"] / 1e9, 1) == 5.7  # umT5-XXL's encoder: 1.05B of embeddings + 24 layers
    per_video = 50 * 2 * d + 2 * umt5["forward_flop"] + WAN_17["vae_decoder"]
    assert out["sampling_flop_per_output"] == per_video
    assert out["training_flop_per_sample"] == (d + out["denoiser_backward_flop"] + umt5["forward_flop"]
                                               + WAN_17["vae_encoder"])


def test_wan_parts_at_the_users_frames():
    out = _json("diffusion", "--denoiser", _file("wan2.1-t2v-1.3b.transformer"), "--vae", _file("wan2.1-t2v-1.3b.vae"),
                "--image-size", "256x256", "--frames", "17", "--steps", "40")
    d = _json("flops", "--config", _file("wan2.1-t2v-1.3b.transformer"), "--image-size", "256x256",
              "--frames", "17")["forward_flop"]
    assert out["sampling_flop_per_output"] == 40 * 2 * d + WAN_17["vae_decoder"]
    assert out["training_flop_per_sample"] == d + out["denoiser_backward_flop"] + WAN_17["vae_encoder"]


@pytest.mark.parametrize("flags, field", [
    (["--frames", "0"], "--frames"),
    (["--frames", "1000000"], "--frames"),
    (["--frames", "10"], "--frames"),
    (["--image-size", "256x250"], "--image-size"),
])
def test_bad_input_one_line(flags, field):
    out = cli("flops", "--config", _file("cogvideox-2b.vae"), *flags, "--format", "json")
    assert out.returncode == 2
    line = out.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: {field}:"), line


def test_contradictory_key_one_line(tmp_path):
    data = json.loads((CONFIGS / "wan2.1-t2v-1.3b.vae.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**data, "scale_factor_spatial": 16}))
    out = cli("flops", "--config", str(path), "--format", "json")
    assert out.returncode == 2
    line = out.stderr.strip()
    assert "\n" not in line and "scale_factor_spatial" in line and "contradicts" in line, line
