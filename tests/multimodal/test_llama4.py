"""Llama 4 (meta-llama/Llama-4-Scout-17B-16E-Instruct's config.json as a public repository bundles it: see
SOURCES.json): parameters and forward FLOP equal ``Llama4ForConditionalGeneration`` built from the same file on the
meta device (FlopCounterMode) at three image sizes, less the experts' products transformers computes for experts a
token is not routed to (the model routes each token to k experts: what FLOPscope counts, docs/multimodal.md); the
processor's canvas by hand."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")

NAME = "llama-4-scout-17b-16e-instruct"


@pytest.mark.parametrize(("size", "text", "grid"), [
    ((336, 336), 10, (1, 1)),    # one tile: no global tile, 3 markup tokens
    ((672, 672), 0, (2, 2)),     # exactly 2 × 2 tiles (scale 1) + the global tile
    ((500, 1500), 5, (2, 5)),    # the smallest upscaling: 2 × 5 (×1.12) + the global tile
])
def test_llama4_matches_transformers(size, text, grid):
    from tests.multimodal.transformers_reference import llama4

    tiles = grid[0] * grid[1] + (1 if grid != (1, 1) else 0)
    markup = grid[0] * grid[1] + 3 if grid != (1, 1) else 3
    ours = engine_count(config(NAME), image_size=size, text_tokens=text)
    # 336 / 14 = 24 × 24 patches shuffled 2 × 2: 144 tokens a tile
    assert ours.inputs["tiles_per_image"] == tiles and ours.image_tokens == 144 * tiles
    assert (ours.params, ours.forward_flop) == llama4(config(NAME), tiles, 144 * tiles + markup + text)


def test_llama4_scout_published_size():
    # Llama 4 Scout: 109B total parameters, 17B active (Meta's model card)
    assert round(engine_count(config(NAME)).params / 1e9) == 109


def test_the_processors_documented_example():
    from engine.multimodal.llama4 import best_fit

    # get_best_fit's docstring: an image of 200 × 300 on tiles of 224, up to 5 tiles → [224, 448]
    assert best_fit((200, 300), 224, 5) == (1, 2)


def test_inconsistent_vision_sizes_are_refused():
    from engine.errors import InputError

    with pytest.raises(InputError, match=r"^config\.vision_config\.vision_output_dim: 7680"):
        engine_count(config("llama4.defaults") | {"vision_config": config("llama4.defaults")["vision_config"]
                                                  | {"hidden_size": 1408}})
    with pytest.raises(InputError, match=r"^config\.vision_config\.intermediate_size"):
        engine_count(config("llama4.defaults"))
