"""Whisper (openai/whisper-large-v3's config as transformers printed it; transformers' WhisperConfig defaults, like
whisper-tiny) and Voxtral (Voxtral-Mini-3B-2507's config.json as a public port quotes it: SOURCES.json): parameters
and forward FLOP equal the transformers models built from the same files on the meta device (FlopCounterMode) for
seconds of audio (30-s windows, 100 mel frames a second, padded) and decoder or prompt tokens; published sizes by
hand."""
from __future__ import annotations

import pytest

from tests.multimodal.configs_lib import config, engine_count

pytest.importorskip("torch")
pytest.importorskip("transformers")

VOXTRAL = "voxtral-mini-3b-2507"


@pytest.mark.parametrize("name", ("whisper-large-v3", "whisper-tiny.defaults"))
@pytest.mark.parametrize(("seconds", "windows", "tokens"), [(30, 1, 448), (4.5, 1, 20), (75, 3, 100)])
def test_whisper_matches_transformers(name, seconds, windows, tokens):
    from tests.multimodal.transformers_reference import whisper

    ours = engine_count(config(name), audio_seconds=seconds, text_tokens=tokens)
    assert ours.inputs["windows"] == windows and ours.inputs["mel_frames"] == 3000 * windows  # ⌈S/30⌉ windows
    assert (ours.params, ours.forward_flop) == whisper(config(name), windows, tokens)


def test_whisper_published_sizes():
    # Radford et al. 2022, Table 1: large 1550M parameters; tiny 39M
    assert round(engine_count(config("whisper-large-v3")).params / 1e7) == 154  # 1,543,490,560
    assert round(engine_count(config("whisper-tiny.defaults")).params / 1e6) == 38  # 37,760,640 (the paper: 39M)


def test_whisper_refuses_more_decoder_tokens_than_positions():
    from engine.errors import InputError

    with pytest.raises(InputError, match=r"^text_tokens: 449 decoder tokens"):
        engine_count(config("whisper-large-v3"), text_tokens=449)
    with pytest.raises(InputError, match=r"^image_size: an audio model"):
        engine_count(config("whisper-large-v3"), image_size=(224, 224))


@pytest.mark.parametrize(("seconds", "windows", "text"), [(30, 1, 0), (12, 1, 40), (61, 3, 200)])
def test_voxtral_matches_transformers(seconds, windows, text):
    from tests.multimodal.transformers_reference import voxtral

    ours = engine_count(config(VOXTRAL), audio_seconds=seconds, text_tokens=text)
    assert ours.image_tokens == 375 * windows  # 1,500 encoder positions / 4 per 30-s window
    assert (ours.params, ours.forward_flop) == voxtral(config(VOXTRAL), windows, 375 * windows, text)


def test_voxtral_mini_encoder_by_hand():
    # Whisper large-v3's encoder: two convolutions (128 → 1280 → 1280, kernel 3), 1,500 positions, 32 layers of
    # q, v, o with biases and k without, two LayerNorms, a 1280 → 5120 → 1280 MLP; the final LayerNorm
    d, f = 1280, 5120
    layer = 4 * d * d + 3 * d + 4 * d + d * f + f + f * d + d
    encoder = 128 * d * 3 + d + d * d * 3 + d + 1500 * d + 32 * layer + 2 * d
    assert engine_count(config(VOXTRAL)).params_by_component["audio_encoder"] == encoder == 636_968_960


def test_voxtral_projector_by_hand():
    # linear_1 4·1280 → 3072 and linear_2 3072 → 3072, no biases; 375 tokens through them per window
    ours = engine_count(config(VOXTRAL))
    assert ours.params_by_component["projector"] == 5120 * 3072 + 3072 * 3072
    assert ours.flop_by_component["projector"] == 2 * 375 * (5120 * 3072 + 3072 * 3072)
