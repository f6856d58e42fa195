"""Audio models from their config.json as transformers builds them: Whisper (``whisper``:
``WhisperForConditionalGeneration``, Radford et al. 2022) and Voxtral (``voxtral``: a Whisper-style audio encoder, a
projector and a Llama-style language model).

Symbols: S seconds of audio, M mel bins, d the encoder's width, P = ``max_source_positions`` (1500) encoder
positions, T decoder (text) tokens.

The feature extractor makes 100 mel frames a second (hop 160 at 16 kHz) and pads every window to 30 s: 3,000 frames
(transformers' encoders refuse any other length, 2·P). Longer audio is cut into ⌈S/30⌉ windows, each run on its own.
The encoder: a convolution M → d (kernel 3) and GELU, a convolution d → d (kernel 3, stride 2) and GELU (3,000 → P
positions), a position table of P rows (frozen), L pre-norm layers (q, v, out with biases, k without; fc1, GELU,
fc2), a final LayerNorm.

Whisper's decoder: its token table, a learned table of ``max_target_positions`` positions, pre-norm layers with
self-attention, cross-attention over the window's P encoder positions (k without bias) and the MLP, a final
LayerNorm, the head tied to the token table; T decoder tokens per window (standard: ``max_target_positions``, the
longest transcript a window holds).

Voxtral: each window's P encoder outputs regrouped k = ``intermediate_size``/d at a time (a reshape: P/k audio tokens
of k·d), linear_1 k·d → D, GELU, linear_2 D → D (no biases); the language model over the windows' P/k tokens each
(375) and T text tokens.
"""
from __future__ import annotations

import math

from engine.errors import InputError
from engine.method1.blocks import Each
from engine.method1.layers import Activation, Conv1d, Dense, LayerNorm
from engine.method1.media import MergeTokens
from engine.method1.transformer import DecoderInput, LMHead, PositionEmbedding, TransformerBlock
from engine.multimodal.config_reader import ConfigReader
from engine.multimodal.inputs import MediaInputs
from engine.multimodal.language import language_layers, language_model, prompt_tokens
from engine.multimodal.model import ReadModel, StageBuilder
from engine.multimodal.registry import reader
from engine.multimodal.vision_towers import ACTIVATIONS

FRAMES_PER_SECOND = 100
"""Mel frames a second: 16,000 samples / a hop of 160."""
WINDOW_SECONDS = 30
"""Each window the encoder takes: 30 s, 3,000 frames (shorter audio is padded to it)."""


def windows(inputs: MediaInputs) -> tuple[float, int]:
    """(seconds, ⌈S/30⌉ windows); none given: one window of 30 s."""
    if inputs.image_size is not None or inputs.images or inputs.frames not in (None, 1):
        raise InputError("image_size" if inputs.image_size else "images" if inputs.images else "frames",
                         "an audio model takes seconds of audio, not images or video")
    seconds = inputs.audio_seconds or WINDOW_SECONDS
    return seconds, max(1, math.ceil(seconds / WINDOW_SECONDS))


def encoder_sizes(c: ConfigReader, prefix: str = "encoder_") -> dict:
    """The encoder's sizes: Whisper's keys (``encoder_layers``…) or Voxtral's (``num_hidden_layers``…, read under
    those names, which its configuration maps)."""
    act = c.raw("activation_function")
    if act not in ACTIVATIONS:
        raise c.error("activation_function", f"unknown activation {act!r}")
    names = ({"d": "d_model", "layers": "encoder_layers", "heads": "encoder_attention_heads", "ff": "encoder_ffn_dim"}
             if prefix else {"d": "hidden_size", "layers": "num_hidden_layers", "heads": "num_attention_heads",
                             "ff": "intermediate_size"})
    v = {k: c.size(key) for k, key in names.items()} | {"mels": c.size("num_mel_bins"),
                                                       "positions": c.size("max_source_positions"),
                                                       "act": ACTIVATIONS[act]}
    if v["d"] % v["heads"]:
        raise c.error(names["heads"], f"{v['heads']} heads do not divide the width {v['d']}")
    c.require("scale_embedding", lambda x: x in (False, True, None), "expected true or false")
    c.neutral("dropout", "attention_dropout", "activation_dropout", "encoder_layerdrop", "layerdrop", "init_std",
              "initializer_range")
    return v


def encoder_layers(v: dict) -> list:
    """One 30-s window through the encoder: [2·P, M] mel frames → [P, d]."""
    block = TransformerBlock(mixer={"heads": v["heads"], "causal": False, "key_bias": False},
                             feed_forward={"size": v["ff"], "activation": v["act"]})
    return [Conv1d(filters=v["d"], kernel_size=3, padding=1, name="conv1"), Activation(function="gelu"),
            Conv1d(filters=v["d"], kernel_size=3, stride=2, padding=1, name="conv2"), Activation(function="gelu"),
            PositionEmbedding(max_positions=v["positions"], frozen=True, name="embed_positions"),
            *[block] * v["layers"], LayerNorm(name="layer_norm")]


@reader("whisper", family="Whisper (speech recognition)", library="transformers")
def read_whisper(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "whisper", source, library="transformers")
    v = encoder_sizes(c)
    d = v["d"]
    layers, heads, ff = c.size("decoder_layers"), c.size("decoder_attention_heads"), c.size("decoder_ffn_dim")
    vocab, targets = c.size("vocab_size"), c.size("max_target_positions")
    if d % heads:
        raise c.error("decoder_attention_heads", f"{heads} heads do not divide d_model {d}")
    tied = c.flag("tie_word_embeddings") if "tie_word_embeddings" in data else True
    c.require("use_weighted_layer_sum", lambda x: not x, "a weighted sum of the layers belongs to the audio "
                                                         "classifier, not the generating model")
    c.neutral("num_hidden_layers", "is_encoder_decoder", "decoder_layerdrop", "classifier_proj_size",
              "apply_spec_augment", "mask_time_prob", "mask_time_length", "mask_time_min_masks", "mask_feature_prob",
              "mask_feature_length", "mask_feature_min_masks", "median_filter_width", "suppress_tokens",
              "begin_suppress_tokens", "max_length", "decoder_start_token_id", "tie_word_embeddings")
    unused = c.finish()
    seconds, n = windows(inputs)
    t = targets if inputs.text_tokens is None else inputs.text_tokens
    if not 1 <= t <= targets:
        raise InputError("text_tokens", f"{t:,} decoder tokens: Whisper's decoder holds 1 to {targets:,} positions "
                                        "(max_target_positions) per 30-second window")
    p = v["positions"]
    block = TransformerBlock(mixer={"heads": heads, "key_bias": False},
                             feed_forward={"size": ff, "activation": v["act"]}, cross_attention_length=p)
    decoder = [DecoderInput(length=t, vocab_size=vocab, name="decoder embed_tokens"),
               PositionEmbedding(max_positions=targets, name="decoder embed_positions"), *[block] * layers,
               LayerNorm(name="decoder layer_norm")]
    head = [LMHead(vocab_size=vocab, tied=tied, name="proj_out")]
    stage = StageBuilder("speech")
    stage.add("audio_encoder", [Each(count=n, name="each 30-s window", layers=encoder_layers(v))])
    stage.add("decoder", [Each(count=n, split=True, name="each window's transcript", layers=decoder + head)])
    return ReadModel("whisper", "WhisperForConditionalGeneration", (stage.build([2 * p, v["mels"]]),),
                     {"audio_seconds": seconds, "windows": n, "mel_frames": n * 2 * p, "text_tokens": t}, None,
                     (f"{seconds:g} s of audio → {n} window(s) of {WINDOW_SECONDS} s ({2 * p:,} mel frames, padded), "
                      f"each encoded to {p:,} positions; the decoder over {t:,} tokens per window",), tuple(unused))


@reader("voxtral", family="Voxtral (audio encoder + Llama)", library="transformers")
def read_voxtral(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "voxtral", source, library="transformers")
    audio = c.raw("audio_config")
    audio_type = audio.get("model_type", "voxtral_encoder") if isinstance(audio, dict) else "voxtral_encoder"
    if audio_type != "voxtral_encoder":
        raise InputError(f"{source}.audio_config.model_type", f"{audio_type!r}: Voxtral's audio tower is "
                                                              "voxtral_encoder")
    sub = c.sub("audio_config", "voxtral_encoder")
    v = encoder_sizes(sub, prefix="")
    sub.neutral("vocab_size")  # the encoder has no token table
    if v["ff"] % v["d"]:
        raise InputError(f"{source}.audio_config.intermediate_size", f"{v['ff']} is not a multiple of the width "
                                                                     f"{v['d']} (the projector regroups whole frames)")
    k = v["ff"] // v["d"]
    if v["positions"] % k:
        raise InputError(f"{source}.audio_config.max_source_positions", f"{v['positions']} positions do not split "
                                                                        f"into groups of {k}")
    act = c.raw("projector_hidden_act")
    if act not in ACTIVATIONS:
        raise c.error("projector_hidden_act", f"unknown activation {act!r}")
    c.neutral("text_config", "audio_token_id", "hidden_size", "tie_word_embeddings")
    text = language_model(data, source)
    unused = c.finish() + [f"audio_config.{key}" for key in sub.finish()]
    seconds, n = windows(inputs)
    t = prompt_tokens(inputs.text_tokens)
    per_window = v["positions"] // k
    stage = StageBuilder("audio_lm")
    stage.add("audio_encoder", [Each(count=n, name="each 30-s window", layers=encoder_layers(v))])
    stage.add("projector", [MergeTokens(factor=k, name=f"{k} encoder frames side by side"),
                            Dense(units=text.d_model, bias=False, name="linear_1"),
                            Activation(function=ACTIVATIONS[act]),
                            Dense(units=text.d_model, bias=False, name="linear_2")])
    stage.add("language_model", language_layers(text, n * per_window, t))
    return ReadModel("voxtral", "VoxtralForConditionalGeneration", (stage.build([2 * v["positions"], v["mels"]]),),
                     {"audio_seconds": seconds, "windows": n, "mel_frames": n * 2 * v["positions"],
                      "text_tokens": t}, n * per_window,
                     (f"{seconds:g} s of audio → {n} window(s) of {WINDOW_SECONDS} s, {v['positions']:,} encoder "
                      f"positions each, regrouped {k} at a time into {per_window} audio tokens; the language model "
                      f"over {n * per_window:,} audio and {t:,} text tokens",),
                     tuple(unused) + tuple(text.unused_keys))
