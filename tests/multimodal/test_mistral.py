"""Mistral 3 (Mistral Small 3.1 / 3.2: Pixtral vision tower, patch merger, Mistral) from a published config.json
(Mistral Small 3.2 24B's, as FLUX.2's text encoder quotes it: SOURCES.json): parameters and forward FLOP equal
``Mistral3ForConditionalGeneration`` built from the same file on the meta device (FlopCounterMode), at three image
sizes, two images and a prompt; the processor's resizing and the row-end tokens by hand."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")

NAME = "mistral-small-3.2-24b"


@pytest.mark.parametrize(("size", "images", "text", "processed"), [
    ((1540, 1540), 1, 0, (1540, 1540)),   # the longest edge: 110×110 patches, 55×55 tokens
    ((768, 1024), 2, 50, (784, 1036)),    # each side rounded up to 28: 784 = 28·28, 1036 = 28·37
    ((3000, 1000), 1, 10, (1540, 532)),   # scaled by 3000/1540: 1540 × ⌊513.3⌋ = 513 → 532
])
def test_mistral3_matches_transformers(size, images, text, processed):
    from tests.multimodal.transformers_reference import mistral3

    ours = engine_count(config(NAME), image_size=size, images=images, text_tokens=text)
    rows, cols = processed[0] // 28, processed[1] // 28
    assert ours.image_tokens == images * rows * cols
    assert ours.inputs["image_size"].endswith(f"{processed[0]}x{processed[1]}")
    expected = mistral3(config(NAME), images, processed, images * (rows * cols + rows) + text)
    assert (ours.params, ours.forward_flop) == expected


def test_mistral3_published_size():
    # Mistral Small 3.1 / 3.2: "24 billion parameters" (mistral.ai/news/mistral-small-3-1); 23.3B with the vision
    # encoder
    assert round(engine_count(config(NAME)).params / 1e9) == 23


def test_a_list_of_feature_layers_is_refused():
    from engine.errors import InputError

    with pytest.raises(InputError, match=r"^config\.vision_feature_layer: expected one layer"):
        engine_count(config(NAME) | {"vision_feature_layer": [-1, -2]})


@pytest.mark.parametrize(("size", "images"), [((1540, 1540), 1), ((448, 672), 3), ((100, 30), 1)])
def test_pixtral_tower_matches_transformers(size, images):
    """The tower alone (Mistral 3's vision_config as its own file): sides rounded up to the patch 14 (100 → 112,
    30 → 42)."""
    from tests.multimodal.transformers_reference import pixtral_tower

    tower = config(NAME)["vision_config"]
    ours = engine_count(tower, image_size=size, images=images)
    processed = tuple(((s - 1) // 14 + 1) * 14 for s in size)
    assert ours.inputs["patches_per_image"] == (processed[0] // 14) * (processed[1] // 14)
    assert (ours.params, ours.forward_flop) == pixtral_tower(tower, images, processed)
