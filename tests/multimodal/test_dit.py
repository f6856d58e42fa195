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


SMALL_DIT = {"_class_name": "DiTTransformer2DModel", "num_attention_heads": 2, "attention_head_dim": 16,
             "num_layers": 2, "in_channels": 4, "out_channels": 8, "patch_size": 2, "sample_size": 8,
             "num_embeds_ada_norm": 10}
SMALL_PIXART = {"_class_name": "PixArtTransformer2DModel", "num_attention_heads": 2, "attention_head_dim": 16,
                "num_layers": 2, "in_channels": 4, "out_channels": 8, "patch_size": 2, "sample_size": 16,
                "caption_channels": 40, "cross_attention_dim": 32, "num_embeds_ada_norm": 1000,
                "norm_type": "ada_norm_single", "attention_bias": True, "norm_elementwise_affine": False}


@pytest.mark.parametrize("activation", ["geglu", "geglu-approximate", "swiglu", "gelu-approximate"])
@pytest.mark.parametrize("base, tokens", [(SMALL_DIT, 0), (SMALL_PIXART, 7)], ids=["dit", "pixart"])
def test_a_gated_feed_forward_matches_diffusers(activation, base, tokens):
    """diffusers' FeedForward with GEGLU or SwiGLU projects d → 2F and gates (before, the engine counted a plain
    d → F: 60,800 parameters for diffusers' 69,248 on the small DiT)."""
    from tests.multimodal.diffusers_reference import dit

    data = {**base, "activation_fn": activation}
    ours = engine_count(data, image_size=(64, 64), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == dit(data, (64, 64), tokens)


@pytest.mark.parametrize("base, tokens", [(SMALL_DIT, 0), (SMALL_PIXART, 7)], ids=["dit", "pixart"])
def test_an_older_transformer2dmodel_file_reads_with_the_newer_classs_defaults(base, tokens):
    """diffusers loads a ``Transformer2DModel`` file of norm ada_norm_zero / ada_norm_single as DiTTransformer2DModel
    / PixArtTransformer2DModel (``_CLASS_REMAPPING_DICT``), whose defaults fill the keys the file leaves out
    (attention bias on, no LayerNorm affine): 60,736 parameters were read for diffusers' 60,800 on the small DiT."""
    from tests.multimodal.diffusers_reference import dit

    left_out = ("attention_bias", "norm_elementwise_affine", "activation_fn")
    data = {k: v for k, v in base.items() if k not in left_out} | {
        "_class_name": "Transformer2DModel", "norm_type": base.get("norm_type", "ada_norm_zero")}
    ours = engine_count(data, image_size=(64, 64), text_tokens=tokens)
    assert (ours.params, ours.forward_flop) == dit(data, (64, 64), tokens)
