"""Transformer layer kinds: the block in parts (``block``: a ``mixers`` mixer, a ``feed_forward``, its ``norms`` and
the block-wide fields; the rows of each part beside it: ``attention``, ``state_space``, ``lightning``,
``compressed``, ``extras``, ``lora``), and the language model's other kinds (``model_layers``). ``migration`` opens a
block written in the first, flat shape (links and files of version 1)."""
from __future__ import annotations

from .block import (
    HyperConnections,
    SharedBlockUse,
    TransformerBlock,
)
from .extras import InputConvolution
from .feed_forward import Experts, FeedForward
from .lora import lora_target_refusal
from .mixers import (
    MIXERS,
    AttentionMixer,
    BlockActivation,
    CompressedAttentionMixer,
    DisentangledAttention,
    GatedDeltaNetMixer,
    LatentAttentionMixer,
    LightningMixer,
    Mamba2Mixer,
    MambaMixer,
    NoMixer,
    ShortConvMixer,
)
from .model_layers import (
    ContactHead,
    DecoderInput,
    HyperHead,
    LMHead,
    PerLayerEmbeddings,
    Pooler,
    PositionEmbedding,
    RelativePositionBias,
    RelativePositionTable,
    RMSNorm,
    SpareTokenTable,
    TokenTypeEmbedding,
)
from .norms import BlockNorms
from .rows import unmasked_pairs

TRANSFORMER_KINDS = (TransformerBlock, RMSNorm, HyperHead, PositionEmbedding, LMHead, TokenTypeEmbedding,
                     RelativePositionBias, DecoderInput, Pooler, SpareTokenTable, RelativePositionTable,
                     PerLayerEmbeddings, ContactHead)
"""Registered in ``engine.method1.kinds``."""

__all__ = ["MIXERS", "TRANSFORMER_KINDS", "AttentionMixer", "BlockActivation", "BlockNorms", "CompressedAttentionMixer",
           "ContactHead", "DecoderInput", "DisentangledAttention", "Experts", "FeedForward", "GatedDeltaNetMixer",
           "HyperConnections", "HyperHead", "InputConvolution", "LMHead", "LatentAttentionMixer", "LightningMixer",
           "Mamba2Mixer", "MambaMixer", "NoMixer", "PerLayerEmbeddings", "Pooler", "PositionEmbedding",
           "RMSNorm", "RelativePositionBias", "RelativePositionTable", "SharedBlockUse", "ShortConvMixer",
           "SpareTokenTable", "TokenTypeEmbedding", "TransformerBlock", "lora_target_refusal", "unmasked_pairs"]
