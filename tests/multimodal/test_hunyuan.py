"""HunyuanDiT from its transformer/config.json: parameters and one denoiser pass's FLOP equal diffusers' model built
from the same file on the meta device (FlopCounterMode), at three image sizes, with and without the style and size
conditions (v1.2 and v1.1)."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")


@pytest.mark.parametrize("style", (False, True))
@pytest.mark.parametrize("size", ((1024, 1024), (768, 1280), (256, 256)))
def test_hunyuan_dit_matches_diffusers(size, style):
    from tests.multimodal.diffusers_reference import hunyuan_dit

    data = dict(config("hunyuandit-v1.2.transformer"), use_style_cond_and_image_meta_size=style)
    ours = engine_count(data, image_size=size)
    assert (ours.params, ours.forward_flop) == hunyuan_dit(data, size)


def test_published_size_and_fixed_text():
    from engine.errors import InputError

    ours = engine_count(config("hunyuandit-v1.2.transformer"))
    assert round(ours.params / 1e9, 1) == 1.5  # "a 1.5B-parameter DiT" (Li et al. 2024)
    assert ours.inputs["text_tokens"] == 333
    with pytest.raises(InputError, match="text_tokens: 40: HunyuanDiT's text is always 77 \\+ 256 = 333 tokens"):
        engine_count(config("hunyuandit-v1.2.transformer"), text_tokens=40)
