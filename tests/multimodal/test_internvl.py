"""InternVL (OpenGVLab/InternVL3-1B's config as transformers' conversion to OpenGVLab/InternVL3-1B-hf writes it: an
InternViT-300M tower at 448 px, a Qwen2.5-0.5B language model with dynamic RoPE; SOURCES.json): parameters and forward
FLOP equal ``InternVLForConditionalGeneration`` built from the same file on the meta device (FlopCounterMode) at
three image sizes; the tiling against transformers' own ``get_optimal_tiled_canvas``."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")

NAME = "internvl3-1b"


@pytest.mark.parametrize(("size", "text", "tiles"), [
    ((448, 448), 0, 1),       # one tile, no thumbnail
    ((448, 896), 20, 3),      # 2 × 1 tiles + the thumbnail
    ((1000, 700), 7, 7),      # 2 × 3 + the thumbnail
])
def test_internvl_matches_transformers(size, text, tiles):
    from tests.multimodal.transformers_reference import internvl

    ours = engine_count(config(NAME), image_size=size, text_tokens=text)
    # 448 px / 14 = 32 × 32 patches, 2 × 2 shuffled: 256 tokens a tile; <img> </img>: 2 text tokens
    assert ours.inputs["tiles_per_image"] == tiles and ours.image_tokens == 256 * tiles
    assert (ours.params, ours.forward_flop) == internvl(config(NAME), tiles, 256 * tiles + 2 + text)


def test_internvl3_1b_sizes():
    # InternViT-300M-448px: 0.3B parameters (Chen et al. 2024, InternVL 2.5's vision encoders)
    ours = engine_count(config(NAME))
    assert round(ours.params_by_component["vision"] / 1e8) == 3
    # the projector by hand: LayerNorm(4·1024) → 4096·896 + 896 → 896·896 + 896
    assert ours.params_by_component["projector"] == 2 * 4096 + 4096 * 896 + 896 + 896 * 896 + 896
    # the top-level tie_word_embeddings (true, as the conversion writes it) ties the output layer, whatever the
    # text_config says; untied, one 151,674 × 896 matrix more
    untied = engine_count(config(NAME) | {"tie_word_embeddings": False}).params
    assert untied - ours.params == 151674 * 896


@pytest.mark.parametrize("size", [(448, 448), (448, 896), (1000, 700), (300, 3000), (2000, 2000), (10, 4000)])
def test_tiling_is_transformers(size):
    from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import get_optimal_tiled_canvas

    from engine.multimodal.internvl import tile_grid

    assert tile_grid(size, 448) == tuple(get_optimal_tiled_canvas(size, (448, 448), 1, 12))
