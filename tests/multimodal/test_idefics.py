"""Idefics3 and SmolVLM (SigLIP-style tower, pixel-shuffle connector, Llama-style language model) — SmolVLM2-500M's
config.json as published (its vision_config leaves the depth and MLP width to the class defaults), Idefics3-8B's
constructed (no copy found: SOURCES.json): parameters and forward FLOP equal transformers' models built from the same
files on the meta device (FlopCounterMode) at three image sizes; the processor's tiling by hand (the longest side
scaled to 4 tiles, rounded up to whole tiles, + the global image)."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.mark.parametrize("name", ("idefics3-8b.constructed", "smolvlm2-500m-video-instruct"))
@pytest.mark.parametrize(("size", "text", "grid"), [
    ((1000, 1000), 0, (4, 4)),    # scaled to 4 tiles a side (1456 = 4·364; SmolVLM2: 2048 = 4·512): 4 × 4 + global
    ((500, 1200), 30, (2, 4)),    # 1200 → 4 tiles; 500 → 500·4S/1200 (even), rounded up: 2 rows
    ((100, 2000), 5, (1, 4)),     # a strip: one row of 4
])
def test_matches_transformers(name, size, text, grid):
    from tests.multimodal.transformers_reference import idefics3

    data = config(name)
    v = data["vision_config"]
    per_tile = (v["image_size"] // v["patch_size"]) ** 2 // data["scale_factor"] ** 2
    rows, cols = grid
    tiles = rows * cols + 1
    markup = 2 * rows * cols + rows + 4
    ours = engine_count(data, image_size=size, text_tokens=text)
    assert ours.inputs["tiles_per_image"] == tiles and ours.image_tokens == tiles * per_tile
    assert (ours.params, ours.forward_flop) == idefics3(data, tiles, tiles * per_tile + markup + text)


def test_idefics3_tile_tokens_by_hand():
    # 364 px tiles of 14 px patches: 26² = 676 patches, shuffled 2×2 into 169 tokens (Laurençon et al. 2024)
    assert engine_count(config("idefics3-8b.constructed"), image_size=(364, 364)).image_tokens == 17 * 169


def test_smolvlm2_500m_by_hand():
    # 512 px tiles of 16 px patches: 32² = 1024 patches, shuffled 4×4 into 64 tokens (its processor_config:
    # image_seq_len 64); the vision_config names neither depth nor MLP width: SigLIP base's 12 layers and 3072 (the
    # class defaults)
    ours = engine_count(config("smolvlm2-500m-video-instruct"))
    # size.longest_edge 2048: every image is resized to 2048 on its longest side, 4 × 4 tiles + the global image
    assert ours.inputs["image_size"] == "2048x2048" and ours.image_tokens == 17 * 64
    assert round(ours.params / 1e8) == 5  # "500M" by name: 507,482,304
    tower = 768 * 3 * 16 * 16 + 768 + 1024 * 768 + 12 * (4 * (768 * 768 + 768) + 2 * 768 * 3072 + 3072 + 768
                                                          + 4 * 768) + 2 * 768
    assert ours.params_by_component["vision"] == tower
    assert ours.params_by_component["projector"] == 768 * 16 * 960  # the connector: 16 patches → text width, no bias


def test_a_grid_the_shuffle_cannot_split_is_refused():
    from engine.errors import InputError

    with pytest.raises(InputError, match=r"^config\.scale_factor: 2 does not divide the 7×7 patch grid"):
        engine_count(config("idefics3.defaults"))


@pytest.mark.parametrize("size", [(1000, 1000), (500, 1200), (100, 2000), (364, 364), (365, 700), (4000, 3000),
                                  (1, 5000), (720, 1280)])
def test_tiling_is_the_image_processors(size):
    """The tiles the reader derives equal transformers' Idefics3 image processor's (tile 364, longest edge 4·364)."""
    import warnings

    from transformers import Idefics3ImageProcessorPil

    from engine.multimodal.idefics import tiles

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        processor = Idefics3ImageProcessorPil(size={"longest_edge": 4 * 364}, max_image_size={"longest_edge": 364})
    _, rows, cols = processor.get_number_of_image_patches(*size, {})
    assert tiles(size, 364) == (rows, cols)
