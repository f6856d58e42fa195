"""DiT and PixArt transformers from their transformer/config.json: parameters and one denoiser pass's FLOP equal
diffusers' model built from the same file on the meta device (FlopCounterMode), at three image sizes and caption
lengths."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")


@pytest.mark.parametrize("name", ("pixart-alpha-xl-2-1024.transformer", "pixart-sigma-xl-2-1024.transformer"))
@pytest.mark.parametrize("h, w, tokens", ((1024, 1024, 120), (512, 768, 300), (256, 256, 1)))
@pytest.mark.external_check("learned_values")
def test_pixart_matches_diffusers(name, h, w, tokens):
    from tests.multimodal.diffusers_reference import dit

    ours = engine_count(config(name), image_size=(h, w), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == dit(config(name), (h, w), tokens)


@pytest.mark.parametrize("h, w", ((256, 256), (512, 512), (384, 384)))
def test_dit_matches_diffusers(h, w):
    from tests.multimodal.diffusers_reference import dit

    ours = engine_count(config("dit-xl-2-256.transformer"), image_size=(h, w))
    assert (ours.params, ours.forward_flop) == dit(config("dit-xl-2-256.transformer"), (h, w), 0)


def test_dit_xl_2_paper_flop():
    """Peebles & Xie 2023, Table 4: DiT-XL/2 at 256x256 is 118.6 Gflops (their unit: multiply-accumulates) — the
    engine's FLOP are 2 per MAC, so about 237 GFLOP."""
    ours = engine_count(config("dit-xl-2-256.transformer"))
    assert round(ours.forward_flop / 2 / 1e9, 1) == pytest.approx(118.6, abs=0.3)


def test_dit_refuses_what_diffusers_cannot_run():
    from engine.errors import InputError

    with pytest.raises(InputError, match="image_size: 256x384: DiT takes a square image"):
        engine_count(config("dit-xl-2-256.transformer"), image_size=(256, 384))
