"""Qwen's vision-language models — Qwen2-VL, Qwen2.5-VL (window attention), Qwen3-VL (deepstack), Qwen3-VL-MoE
(Qwen3-VL-30B-A3B-Instruct), Qwen3.5 dense (Qwen3.5-27B) and MoE (Qwen3.5-35B-A3B) — from their config.json (the
Hub's files or public quotes of them, see configs/SOURCES.json): parameters and one forward pass's FLOP equal
transformers' model built from the same file on the meta device (FlopCounterMode), at three inputs each (image
sizes, images, video frames); grid_thw from the image size, patch 14 (Qwen3: 16), 2×2 merge."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")

UNIT = {"qwen2-vl-7b-instruct": 14, "qwen2.5-vl-7b-instruct": 14, "qwen3-vl-4b-instruct": 16,
        "qwen3-vl-30b-a3b-instruct": 16, "qwen3.5-27b": 16, "qwen3.5-35b-a3b": 16}


def _check(name, *, size, text, images=None, frames=None):
    from tests.multimodal.transformers_reference import qwen_vl

    p = UNIT[name]
    ours = engine_count(config(name), image_size=size, text_tokens=text, images=images, frames=frames)
    t = frames // 2 if frames else 1
    grids = [(t, size[0] // p, size[1] // p)] * (images or 1)
    assert ours.image_tokens == sum(a * b * c for a, b, c in grids) // 4
    assert (ours.params, ours.forward_flop) == qwen_vl(config(name), grids, text, video=frames is not None)


@pytest.mark.external_check("merge_tokens")
@pytest.mark.parametrize("name", list(UNIT))
def test_qwen_vl_images(name):
    p = UNIT[name] * 2
    _check(name, size=(8 * p, 12 * p), text=5)
    _check(name, size=(5 * p, 3 * p), text=0, images=2)


@pytest.mark.parametrize("name", list(UNIT))
def test_qwen_vl_video(name):
    p = UNIT[name] * 2
    _check(name, size=(4 * p, 6 * p), text=3, frames=4)


def test_a_quantized_file_counts_its_shapes():
    """nvidia/Qwen3.6-35B-A3B-NVFP4's config.json: a quantization_config (modelopt, mixed precision: FP8 attention
    projections, NVFP4 experts and output layer) beside the architecture of Qwen3.5-35B-A3B. Parameters and FLOP
    are those of the shapes (the matmul convention: 2 × MACs, whatever the number format): equal to transformers'
    model built from the file (from_config applies no quantization) and to the bfloat16 sibling's count."""
    from tests.multimodal.transformers_reference import qwen_vl

    quantized = config("qwen3.6-35b-a3b-nvfp4")
    assert quantized["quantization_config"]["quant_algo"] == "MIXED_PRECISION"
    ours = engine_count(quantized, image_size=(160, 96), text_tokens=7)
    assert (ours.params, ours.forward_flop) == qwen_vl(quantized, [(1, 10, 6)], 7)
    sibling = engine_count(config("qwen3.5-35b-a3b"), image_size=(160, 96), text_tokens=7)
    assert (ours.params, ours.forward_flop) == (sibling.params, sibling.forward_flop)


def test_window_attention_segments_by_hand():
    """Qwen2.5-VL at 140x84: a 10x6 patch grid, 5x3 merged units; windows of 112/2/14 = 4x4 units cut it into a
    4x3 and a 1x3 window: 48 and 12 patches; the 4 full-attention blocks attend over all 60."""
    from engine.method1.media import AttentionCore

    cores = [layer for layer in _layers("qwen2.5-vl-7b-instruct", (140, 84)) if isinstance(layer, AttentionCore)]
    vision = [c for c in cores if c.segments is not None]
    assert len(vision) == 32
    assert sum(1 for c in vision if [(s.length, s.count) for s in c.segments] == [(60, 1)]) == 4
    assert sum(1 for c in vision if [(s.length, s.count) for s in c.segments] == [(12, 1), (48, 1)]) == 28


def _layers(name, size):
    """Every layer of the model read at ``size``, blocks walked into."""
    from engine.multimodal.count import read_any
    from engine.multimodal.inputs import media_inputs

    model = read_any(config(name), media_inputs({"image_size": size}))
    stack = list(model.stages[0].architecture.layers)
    while stack:
        layer = stack.pop()
        yield layer
        for key in ("body", "shortcut", "layers"):
            stack += getattr(layer, key, None) or []
        for branch in getattr(layer, "branches", None) or []:
            stack += branch


def test_published_sizes():
    # the model cards: Qwen2-VL-7B-Instruct and Qwen2.5-VL-7B-Instruct 8.29B (their safetensors' totals), Qwen3-VL-4B
    # 4.4B, Qwen3-VL-30B-A3B 31.1B
    assert round(engine_count(config("qwen2-vl-7b-instruct")).params / 1e9, 2) == 8.29
    assert round(engine_count(config("qwen2.5-vl-7b-instruct")).params / 1e9, 2) == 8.29
    assert round(engine_count(config("qwen3-vl-4b-instruct")).params / 1e9, 1) == 4.4
    assert round(engine_count(config("qwen3-vl-30b-a3b-instruct")).params / 1e9, 1) == 31.1
    # Qwen3.5-27B and -35B-A3B: "27B" and "35B" by name (their multi-token-prediction layer,
    # mtp_num_hidden_layers, is not part of the transformers model)
    assert round(engine_count(config("qwen3.5-27b")).params / 1e9) == 27
    assert round(engine_count(config("qwen3.5-35b-a3b")).params / 1e9) == 35


def test_sizes_the_processor_would_not_make():
    from engine.errors import InputError

    with pytest.raises(InputError, match="image_size: 500x500 pixels: 500 is not a multiple of 28"):
        engine_count(config("qwen2.5-vl-7b-instruct"), image_size=(500, 500))
    with pytest.raises(InputError, match="frames: 5 frames: the processor takes video in pairs of frames"):
        engine_count(config("qwen2.5-vl-7b-instruct"), frames=5)
