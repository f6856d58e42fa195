"""The VAE (``AutoencoderKL``: encode, then decode) and the text encoders of image generators (CLIP's text model,
T5's encoder) from the Hub's config files: parameters and FLOP equal diffusers' and transformers' models built from
the same files on the meta device (FlopCounterMode), at three image sizes or text lengths each."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("diffusers")

VAES = ("sd-1.5.vae", "sdxl-base-1.0.vae", "flux.1-schnell.vae")
CLIP_TEXT = ("sd-1.5.text_encoder", "sd-2.1-base.text_encoder", "sdxl-base-1.0.text_encoder",
             "sdxl-base-1.0.text_encoder_2", "flux.1-schnell.text_encoder")


@pytest.mark.parametrize("name", VAES)
@pytest.mark.parametrize("size", ((256, 256), (512, 768), (1024, 1024)))
def test_vae_matches_diffusers(name, size):
    from tests.multimodal.diffusers_reference import vae

    ours = engine_count(config(name), image_size=size)
    assert (ours.params, ours.forward_flop) == vae(config(name), size)
    assert set(ours.flop_by_component) == {"vae_encoder", "vae_decoder"}


@pytest.mark.parametrize("name", CLIP_TEXT)
@pytest.mark.parametrize("tokens", (77, 20, 1))
def test_clip_text_matches_transformers(name, tokens):
    from tests.multimodal.diffusers_reference import text_encoder

    ours = engine_count(config(name), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == text_encoder(config(name), tokens)


def test_sd15_text_encoder_published_size():
    # CLIP ViT-L/14's text transformer: 123M parameters (Radford et al. 2021, Table 20 widths; the model card)
    assert round(engine_count(config("sd-1.5.text_encoder")).params / 1e6) == 123


@pytest.mark.parametrize("tokens", (512, 256, 77))
def test_t5_encoder_matches_transformers(tokens):
    """FLUX's T5-XXL encoder (text_encoder_2, T5EncoderModel), read by the language-model reader."""
    from engine.multimodal.count import count_config
    from engine.multimodal.inputs import media_inputs
    from tests.multimodal.diffusers_reference import text_encoder

    data = config("flux.1-schnell.text_encoder_2")
    ours = count_config(data, media_inputs({"text_tokens": tokens}))
    assert (ours.params, ours.forward_flop) == text_encoder(data, tokens)
    assert ours.params_by_component == {"text_encoder": ours.params}
