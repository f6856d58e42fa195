"""``python -m engine flops --config FILE [--image-size HxW] [--frames F] [--audio-seconds S] [--text-tokens N]
--format json``: any config the engine reads — text, multimodal or diffusers — with params, forward_flop,
params_by_component, flop_by_component and the inputs used; bad input exits 2 with one line naming the flag or key."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import cli

CONFIGS = Path(__file__).resolve().parents[1] / "multimodal" / "configs"


def run(*args):
    return cli("flops", *args, "--format", "json")


def test_a_unet_at_its_standard_input():
    out = run("--config", str(CONFIGS / "sdxl-base-1.0.unet.json"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["inputs"] == {"image_size": "1024x1024", "text_tokens": 77, "latent": [128, 128]}  # sample_size 128
    assert data["params"] == sum(data["params_by_component"].values()) == data["params_by_component"]["denoiser"]
    assert data["forward_flop"] == sum(data["flop_by_component"].values())


def test_inputs_are_the_flags():
    # SD 1.5 at 768x512 with 154 tokens: the same count as the engine's API (checked against diffusers in
    # tests/multimodal/test_unet.py)
    from engine.multimodal.count import count_config
    from engine.multimodal.inputs import media_inputs

    out = run("--config", str(CONFIGS / "sd-1.5.unet.json"), "--image-size", "768x512", "--text-tokens", "154")
    data = json.loads(out.stdout)
    config = json.loads((CONFIGS / "sd-1.5.unet.json").read_text())
    expected = count_config(config, media_inputs({"image_size": (768, 512), "text_tokens": 154}))
    assert (data["params"], data["forward_flop"]) == (expected.params, expected.forward_flop)
    assert data["inputs"]["latent"] == [96, 64]


def test_a_language_model_counts_too(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
                                "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2,
                                "vocab_size": 100, "max_position_embeddings": 32}))
    out = run("--config", str(path), "--text-tokens", "10")
    data = json.loads(out.stdout)
    # 2 layers of q,k,v,o (4·64²) and SwiGLU (3·64·128) at 10 tokens, QKᵀ and AV (2·10²·64), head 64·100
    per_layer = 10 * (4 * 64 * 64 + 3 * 64 * 128) + 2 * 10 * 10 * 64
    assert data["forward_flop"] == 2 * (2 * per_layer + 10 * 64 * 100)
    assert data["params_by_component"] == {"language_model": data["params"]}


@pytest.mark.parametrize("flags, message", [
    (("--image-size", "0x512"), "--image-size: 0 pixels is outside 1 to 65,536"),
    (("--image-size", "1000000x512"), "--image-size: 1,000,000 pixels is outside 1 to 65,536"),
    (("--image-size", "500x512"), "--image-size: 500x512 pixels: 500 is not a multiple of 64"),
    (("--image-size", "big"), "--image-size: 'big' is not a size"),
    (("--frames", "1000000"), "--frames: "),
    (("--frames", "4"), "--frames: an image U-Net takes one frame"),
    (("--text-tokens", "-3"), "--text-tokens: "),
])
def test_bad_inputs_are_one_line_naming_the_flag(flags, message):
    out = run("--config", str(CONFIGS / "sd-1.5.unet.json"), *flags)
    assert out.returncode == 2
    assert out.stderr.startswith(f"error: {message}") and out.stderr.count("\n") == 1, out.stderr


@pytest.mark.parametrize("config, message", [
    ({"_class_name": "UNet2DConditionModel", "down_block_types": ["CrossAttnDownBlock2D"]},
     "config.up_block_types: 4 up blocks for 1 down blocks (diffusers needs as many)"),
    ({"_class_name": "Kandinsky3UNet"}, "config._class_name: 'Kandinsky3UNet' is not a diffusers model this reader "
                                       "counts"),
    ({"model_type": "nonesuch"}, "config.model_type: 'nonesuch' is not a family this reader supports"),
    ({"_class_name": "UNet2DConditionModel", "block_out_channels": [320, 640, 1280, 1280], "layers_per_block": 0},
     "config.layers_per_block: 0 is outside 1 to 1,000,000,000"),
])
def test_bad_configs_name_the_key(tmp_path, config, message):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    out = run("--config", str(path))
    assert out.returncode == 2
    assert out.stderr.startswith(f"error: {message}") and out.stderr.count("\n") == 1, out.stderr


def test_media_flags_need_a_config(tmp_path):
    out = cli("flops", "--preset", "resnet50", "--image-size", "224x224")
    assert out.returncode == 2 and "--image-size goes with --config" in out.stderr
