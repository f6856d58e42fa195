"""The text encoders of image generators, as transformers builds them: CLIP's text transformer (``clip_text_model``:
Stable Diffusion's, SDXL's two, SD3's and FLUX's CLIP-L) and, through the language-model reader, T5's encoder
(``T5EncoderModel``: SD3's and FLUX's T5-XXL, counted in ``engine.llm``).

CLIP text (Radford et al. 2021; ``CLIPTextModel``): a token table V×d and a learned position table P×d, ``layers``
pre-norm blocks (LayerNorm, biased q, k, v, out over the causally masked sequence — every score computed, as the
eager attention does —, LayerNorm, fc1 d → F, quick-GELU, fc2 F → d), a final LayerNorm; ``CLIPTextModelWithProjection``
also projects the pooled (end-of-text) token d → P_out without bias.
"""
from __future__ import annotations

from engine.errors import InputError
from engine.method1.layers import Dense, Embedding, LayerNorm
from engine.method1.transformer import PositionEmbedding, TransformerBlock
from engine.method1.vision import TokenSelect
from engine.multimodal.config_reader import ConfigReader
from engine.multimodal.inputs import MediaInputs
from engine.multimodal.model import ReadModel, StageBuilder
from engine.multimodal.registry import reader

CLIP_TEXT_CLASSES = {"CLIPTextModel": False, "CLIPTextModelWithProjection": True}
"""The classes counted → whether the pooled token is projected."""
ACTIVATIONS = {"quick_gelu": "gelu", "gelu": "gelu", "gelu_new": "gelu", "gelu_pytorch_tanh": "gelu", "relu": "relu",
               "silu": "silu"}


def clip_text_sizes(c: ConfigReader) -> dict:
    act = c.raw("hidden_act")
    if act not in ACTIVATIONS:
        raise c.error("hidden_act", f"unknown activation {act!r}; known: {', '.join(ACTIVATIONS)}")
    return {"d": c.size("hidden_size"), "heads": c.size("num_attention_heads"), "ff": c.size("intermediate_size"),
            "layers": c.size("num_hidden_layers"), "vocab": c.size("vocab_size"),
            "positions": c.size("max_position_embeddings"), "projection": c.size("projection_dim"),
            "act": ACTIVATIONS[act]}


def clip_text_layers(t: dict, tokens: int, projection: bool) -> list:
    """The text transformer over ``tokens`` tokens (+ the pooled token's projection)."""
    if t["d"] % t["heads"]:
        raise InputError("num_attention_heads", f"{t['heads']} heads do not divide hidden_size {t['d']}")
    block = TransformerBlock(mixer={"heads": t["heads"], "causal": True},
                             feed_forward={"size": t["ff"], "activation": t["act"]})
    layers = [Embedding(vocab_size=t["vocab"], dim=t["d"]), PositionEmbedding(max_positions=t["positions"]),
              *[block] * t["layers"], LayerNorm(name="final_layer_norm")]
    if projection:
        layers += [TokenSelect(select="first", name="pooled (end-of-text) token"),
                   Dense(units=t["projection"], bias=False, name="text_projection")]
    return layers


def text_tokens(inputs: MediaInputs, positions: int) -> int:
    tokens = positions if inputs.text_tokens is None else inputs.text_tokens
    if not 1 <= tokens <= positions:
        raise InputError("text_tokens", f"{tokens:,} tokens: this text encoder takes 1 to its {positions} positions")
    return tokens


@reader("clip_text_model", family="CLIP text encoder", library="transformers")
def read_clip_text(data: dict, inputs: MediaInputs, source: str) -> ReadModel:
    c = ConfigReader(data, "clip_text_model", source, library="transformers")
    names = c.raw("architectures") or ["CLIPTextModel"]
    if not isinstance(names, list) or len(names) != 1 or names[0] not in CLIP_TEXT_CLASSES:
        raise c.error("architectures", f"expected one of {', '.join(CLIP_TEXT_CLASSES)}")
    t = clip_text_sizes(c)
    unused = c.finish()
    tokens = text_tokens(inputs, t["positions"])
    stage = StageBuilder("text_encoder")
    stage.add("text_encoder", clip_text_layers(t, tokens, CLIP_TEXT_CLASSES[names[0]]))
    return ReadModel("clip_text", names[0], (stage.build([1], tokens),), {"text_tokens": tokens}, None,
                     (f"{tokens} text tokens through {t['layers']} layers",), tuple(unused))
