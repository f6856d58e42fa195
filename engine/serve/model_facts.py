"""What serving needs to know about a language model, read from ``TransformerConfig`` in ONE place.

Every other module of ``engine.serve`` reads a model only through this adapter: the decoder's layers in order and,
per layer, what it keeps for a sequence (keys and values per token, a window that caps them, a latent, a constant
state), the sizes of a state-space mixer's recurrent step, the parameters split by how a decode step reads them,
and the architecture (``engine.method1``) whose counted FLOP the prefill and decode counts start from. When the
shape of ``TransformerConfig`` or ``TransformerBlock`` changes, this file is what changes.

Symbols: d model width, H query heads, H_kv key/value heads, Q head (key) size, V value size, W sliding window,
c latent rank (MLA), R rotary key size, D_I indexer key size, I inner width, N state size, K convolution width,
G groups (Mamba-2's B/C groups; Gated DeltaNet's key heads), P = I/H head size of a scan.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from ..errors import InputError
from ..llm.config import TransformerConfig
from ..method1.architecture import Architecture, evaluate
from ..method1.transformer import LMHead, TransformerBlock, lightning, state_space
from ..results import Result
from ..shipped import ShippedDataError

STATE_MIXERS = ("mamba", "mamba2", "gated_deltanet", "short_conv", "lightning")
"""Mixers that keep a constant state per sequence instead of keys and values."""
KV_MIXERS = ("attention", "latent")
"""Mixers that keep keys and values (or MLA's latent) per token."""


@dataclass(frozen=True, slots=True)
class MixerState(Result):
    """A state-space mixer's sizes, for its recurrent (decode) step and its state."""

    kind: str
    d: int
    inner: int = 0          # I (Mamba, Mamba-2, Gated DeltaNet's H·d_v)
    state: int = 0          # N (Mamba, Mamba-2) or d_k (Gated DeltaNet) or D (Kimi Delta)
    kernel: int = 0         # K
    dt_rank: int = 0        # R (Mamba)
    heads: int = 0          # H (Mamba-2, Gated DeltaNet value heads, lightning heads)
    groups: int = 0         # G (Mamba-2's B/C groups; Gated DeltaNet's key heads)
    head_size: int = 0      # lightning's Q
    channel_decay: bool = False  # Kimi Delta Attention

    @property
    def conv_channels(self) -> int:
        """Channels of the causal convolution whose last K inputs are kept."""
        if self.kind == "mamba":
            return self.inner
        if self.kind == "mamba2":
            return self.inner + 2 * self.groups * self.state
        if self.kind == "gated_deltanet":
            if self.channel_decay:
                return 3 * self.heads * self.state
            return 2 * self.groups * self.state + self.inner
        if self.kind == "short_conv":
            return self.d
        return 0

    @property
    def conv_elements(self) -> int:
        """The convolution state: channels × K (transformers keeps the last K inputs)."""
        return self.conv_channels * self.kernel

    @property
    def recurrent_elements(self) -> int:
        """The recurrent state: Mamba I·N; Mamba-2 H·P·N = I·N; Gated DeltaNet H·d_k·d_v; Kimi H·D²;
        lightning H·Q²; LFM2's short convolution none."""
        if self.kind in ("mamba", "mamba2"):
            return self.inner * self.state
        if self.kind == "gated_deltanet":
            if self.channel_decay:
                return self.heads * self.state * self.state
            return self.heads * self.state * (self.inner // self.heads)
        if self.kind == "lightning":
            return self.heads * self.head_size * self.head_size
        return 0


@dataclass(frozen=True, slots=True)
class CacheLayer(Result):
    """What one decoder layer keeps for a sequence.

    ``per_token``: elements per cached token (keys + values: H_kv·(Q + V); MLA: the latent c + the rotary key R,
    + D_I with DeepSeek's indexer), split over ``kv_heads`` heads by tensor parallelism (1: replicated);
    ``window`` W: transformers keeps the last W − 1 tokens (the new one makes W keys); ``state``: constant elements
    (a state-space mixer's convolution and recurrent states); ``cross_per_position``: an encoder–decoder layer's
    cross-attention keys and values per encoder position. ``latent``: (c, R, D_I) for MLA."""

    index: int
    kind: str
    label: str
    per_token: int = 0
    kv_heads: int = 1
    window: int | None = None
    state: int = 0
    cross_per_position: int = 0
    latent: tuple[int, int, int] | None = None
    cache_window: bool = True
    """The window caps the cache and the keys read (False: an engine running the layer as full attention)."""
    mla: tuple[int, int, int, int, int] | None = None   # (H, Q, R, V, c): MLA's sizes for its decode count
    mixer: MixerState | None = None


@dataclass(frozen=True, slots=True)
class WeightSplit(Result):
    """Parameters: ``total`` (all), ``active`` (one token's: k experts), the token ``table`` (read row by row), an
    untied LM ``head`` (read whole every step; a tied head reads the table), the ``experts`` (routed, read as the
    tokens of a step touch them) and the ``blocks`` (every other parameter: the blocks' linear layers, norms,
    position tables)."""

    total: int
    active: int
    table: int
    head: int
    experts: int
    blocks: int


@dataclass(frozen=True, slots=True)
class ModelFacts(Result):
    """The serving view of one model: its decoder layers, parameters and how a decode step reads them."""

    config: TransformerConfig = field(repr=False)
    layers: tuple[CacheLayer, ...]
    d_model: int
    vocab_size: int
    generative: bool
    encoder_decoder: bool
    context_length: int | None
    token_table_params: int
    """The token table's parameters, read row by row (a gather), not whole, when the head is not tied to it."""
    tied_head: bool
    expert_layers: tuple[tuple[int, int, int], ...]
    """(E, k, parameters of one expert) per mixture-of-experts layer."""
    weights: WeightSplit
    """The parameters split by how serving stores and reads them."""

    json_fields = ("model_type", "d_model", "vocab_size", "generative", "encoder_decoder", "context_length",
                   "weights", "layers")

    @property
    def model_type(self) -> str:
        return self.config.model_type or "custom"

    def architecture(self, length: int, decoder_length: int | None = None, causal_half: bool = False) -> Architecture:
        """The method-1 architecture for ``length`` tokens (encoder–decoder: ``length`` encoder and
        ``decoder_length`` decoder tokens). ``causal_half``: attention counted over the unmasked query–key pairs
        only (what causal kernels compute), not the L² that FlopCounterMode counts."""
        arch = self.config.architecture(length, decoder_length if self.encoder_decoder else None)
        if not causal_half:
            return arch
        return arch.model_copy(update={"layers": [_half(layer) for layer in arch.layers]})

    def state_mixer_flop(self, arch: Architecture) -> dict[int, int]:
        """Forward FLOP of the state-space mixers in ``arch`` (a sequence of L tokens), by top-level position: the
        part of a block that is not a polynomial in L (chunked scans pad L), counted by its recurrent step in
        decode instead."""
        out = {}
        length = arch.input.sequence_length or 1
        for i, layer in enumerate(arch.layers):
            if isinstance(layer, TransformerBlock) and (layer.mixer.kind in STATE_MIXERS or _beside(layer)):
                mixer = _beside(layer) or layer.mixer
                parts = _MIXER_PARTS[mixer.kind](mixer, self.d_model, length)
                out[i] = 2 * sum(p.macs for p in parts)
        return out

    def head_indices(self, arch: Architecture) -> list[int]:
        """Top-level positions of the LM head in ``arch``."""
        return [i for i, layer in enumerate(arch.layers) if isinstance(layer, LMHead)]

    def without_windows(self) -> ModelFacts:
        """The same model as an engine runs it without sliding windows (TensorRT-LLM without max_attention_window):
        every layer keeps and reads the whole sequence."""
        import dataclasses

        layers = tuple(dataclasses.replace(layer, cache_window=False) for layer in self.layers)
        return dataclasses.replace(self, layers=layers)

    def block_indices(self, arch: Architecture) -> list[int]:
        """Top-level positions of the decoder's blocks in ``arch``, in layer order (``layers[j]`` is at
        ``block_indices[j]``): the last ``len(layers)`` transformer blocks."""
        blocks = [i for i, layer in enumerate(arch.layers) if isinstance(layer, TransformerBlock)]
        return blocks[len(blocks) - len(self.layers):]

    @property
    def expert_params(self) -> int:
        """Parameters of every routed expert, all layers."""
        return sum(e * p for e, _, p in self.expert_layers)



_MIXER_PARTS = {"mamba": state_space.mamba, "mamba2": state_space.mamba2, "gated_deltanet": state_space.gated_deltanet,
                "short_conv": state_space.short_conv, "lightning": lightning.lightning}


def _beside(block: TransformerBlock):
    """Falcon-H1's Mamba-2 mixer beside the attention (None: none)."""
    return getattr(block.mixer, "beside", None)


def _half(layer):
    """A causal (plain or latent) attention block counted over its unmasked pairs."""
    if isinstance(layer, TransformerBlock) and layer.mixer.kind in KV_MIXERS and layer.mixer.causal:
        return layer.model_copy(update={"mixer": layer.mixer.model_copy(update={"causal_count": "half"})})
    return layer


def _mixer(block: TransformerBlock, d: int) -> MixerState | None:
    m = _beside(block) or block.mixer
    kind = m.kind
    if kind == "mamba":
        return MixerState("mamba", d, inner=m.inner_size, state=m.state_size, kernel=m.conv_kernel,
                          dt_rank=m.dt_rank)
    if kind == "mamba2":
        return MixerState("mamba2", d, inner=m.inner_size, state=m.state_size, kernel=m.conv_kernel,
                          heads=m.heads, groups=m.groups)
    if kind == "gated_deltanet":
        channel = m.decay == "channel"
        inner = m.heads * m.state_size if channel else m.inner_size
        return MixerState("gated_deltanet", d, inner=inner, state=m.state_size, kernel=m.conv_kernel,
                          heads=m.heads, groups=m.groups, channel_decay=channel)
    if kind == "short_conv":
        return MixerState("short_conv", d, kernel=m.conv_kernel)
    if kind == "lightning":
        heads, _, q = block.attention_sizes(d)
        return MixerState("lightning", d, heads=heads, head_size=q)
    return None


def _attention_cache(block: TransformerBlock, d: int) -> dict:
    """Keys and values (or MLA's latent) one token adds to this layer's cache."""
    if block.kv_shared:  # Gemma 4: reads an earlier layer's keys and values, keeps none
        return {"kind": "shared", "label": "reads an earlier layer's keys and values (keeps none)",
                "window": block.attention_window}
    heads, kv_heads, q = block.attention_sizes(d)
    m = block.mixer
    if m.kind == "latent":
        c, r = m.kv_lora_rank, m.rope_head_size or 0
        indexer = m.indexer_head_size if m.indexer_heads else 0
        label = f"latent {c} + rotary key {r}" + (f" + indexer key {indexer}" if indexer else "")
        return {"kind": "latent", "label": label, "per_token": c + r + indexer, "kv_heads": 1,
                "latent": (c, r, indexer), "mla": (heads, q, r, m.value_head_size or q, c)}
    v = m.value_size or q
    kind = "sliding" if block.attention_window else "attention"
    label = f"{kv_heads} key/value head{'s' if kv_heads > 1 else ''} × ({q} + {v})"
    if block.attention_window:
        label += f", window {block.attention_window:,}"
    return {"kind": kind, "label": label, "per_token": kv_heads * (q + v), "kv_heads": kv_heads,
            "window": block.attention_window}


CHUNK_DEFAULTS = {"llama4_text": 8192, "llama4": 8192}
"""``attention_chunk_size`` where a family's config class defaults it (transformers' Llama4TextConfig: 8192)."""


def chunked_layers(hf: Mapping | None, layers: int) -> dict[int, int]:
    """Layers of chunked attention (Llama 4: a token attends within its chunk of C positions) → C, read from the
    ``config.json`` as transformers reads it: ``layer_types`` ("chunked_attention"), else ``no_rope_layers`` (1: a
    rotary layer, chunked), else every layer but each ``no_rope_layer_interval``-th (default 4). transformers caches
    such a layer as a sliding window of C (``DynamicSlidingWindowLayer``): the last C − 1 tokens."""
    if not isinstance(hf, Mapping):
        return {}
    text = hf.get("text_config") if isinstance(hf.get("text_config"), Mapping) else hf
    model_type = text.get("model_type") or hf.get("model_type")
    size = text.get("attention_chunk_size", CHUNK_DEFAULTS.get(model_type))
    if not isinstance(size, int) or isinstance(size, bool) or size < 1 or model_type not in CHUNK_DEFAULTS:
        return {}
    types = text.get("layer_types")
    if isinstance(types, list) and len(types) >= layers:
        return {i: size for i in range(layers) if types[i] == "chunked_attention"}
    rope = text.get("no_rope_layers")
    if not (isinstance(rope, list) and len(rope) >= layers):
        interval = text.get("no_rope_layer_interval") or 4
        if not isinstance(interval, int) or isinstance(interval, bool) or interval < 1:
            return {}
        rope = [int((i + 1) % interval != 0) for i in range(layers)]
    return {i: size for i in range(layers) if rope[i]}


def _cache_layer(index: int, block: TransformerBlock, d: int, chunk: int | None = None) -> CacheLayer:
    if chunk is not None and block.mixer.kind == "attention" and block.attention_window is None:
        block = block.model_copy(update={"mixer": block.mixer.model_copy(update={"window": chunk})})
        fields = _attention_cache(block, d)
        fields["label"] = fields["label"].replace(", window", ", chunked attention: a window of")
        return CacheLayer(index=index, **fields)
    if block.mixer.kind == "compressed":
        raise InputError("model", "DeepSeek-V4's compressed attention (its pooled keys and compressor buffers) is "
                                  "not modelled for serving")
    fields: dict = {}
    mixer = _mixer(block, d)
    if block.mixer.kind in KV_MIXERS:
        fields = _attention_cache(block, d)
    if block.shared_block is not None:  # Zamba2: the shared attention block over [x, embeddings] (2d wide)
        fields = _attention_cache(block.shared_block.block, 2 * d)
        fields["kind"] = "hybrid"
    if mixer is not None:
        state = mixer.conv_elements + mixer.recurrent_elements
        label = f"{mixer.kind} state {mixer.conv_elements:,} + {mixer.recurrent_elements:,}"
        if fields:
            fields |= {"kind": "hybrid", "label": f"{fields['label']}; {label}"}
        else:
            fields = {"kind": "state", "label": label}
        fields["state"] = state
        fields["mixer"] = mixer
    if not fields:
        fields = {"kind": "none", "label": "keeps nothing (a feed-forward layer)"}
    if block.cross_attention_length:
        _, kv_heads, q = block.attention_sizes(d)
        fields["cross_per_position"] = 2 * kv_heads * q
    return CacheLayer(index=index, **fields)


def is_generative(config: TransformerConfig) -> bool:
    """Whether the model decodes tokens: an LM head over a causal decoder (a state-space mixer is causal by
    construction) or an encoder–decoder."""
    return config.head == "lm" and (config.encoder is not None or getattr(config.block.mixer, "causal", True))


@lru_cache(maxsize=1)
def generative_models() -> dict[str, str]:
    """The library's language models that generate: id → label (an entry the reader refuses is not offered; a
    broken shipped file is raised, never taken for an empty library)."""
    from ..llm.config import read_hf_config
    from ..llm.library import library_models

    out = {}
    for model in library_models():
        try:
            config = read_hf_config(model.config, source=f"model {model.id}")
        except ShippedDataError:
            raise
        except InputError:
            continue
        if is_generative(config):
            out[model.id] = model.label
    return out


def model_facts(config: TransformerConfig, hf: Mapping | None = None) -> ModelFacts:
    """The serving view of ``config`` (``InputError`` for a layer kind serving does not model); ``hf``: the
    ``config.json`` it was read from, for what the counts do not keep (Llama 4's chunked layers)."""
    if config.mobilebert is not None:
        blocks: list = []
    else:
        blocks = config.decoder_blocks(memory=1 if config.encoder else None)
    d = config.d_model
    generative = is_generative(config)
    chunks = chunked_layers(hf, len(blocks)) if config.encoder is None else {}
    layers = tuple(_cache_layer(i, b, d, chunks.get(i)) for i, b in enumerate(blocks)) if generative else ()
    if not generative:  # an encoder keeps no cache: nothing is decoded
        blocks = []
    experts = []
    for b in blocks:
        if b.experts > 1:
            n_ff = 3 if b.gated else 2
            experts.append((b.experts, b.active_experts, n_ff * d * (b.ff_size or 4 * d)))
    table = config.vocab_size * (config.embedding_size or config.tables_width or d)
    result = evaluate(config.architecture(1, 1 if config.encoder is not None else None))
    head = sum(row.params for row in result.rows if row.type == "lm_head")
    blocks_params = max(result.params - table - head, 0)
    expert_params = sum(e * p for e, _, p in experts)
    weights = WeightSplit(result.params, result.active_params or result.params, table, head,
                          min(expert_params, blocks_params), blocks_params)
    return ModelFacts(config=config, layers=layers, d_model=d, vocab_size=config.vocab_size, generative=generative,
                      encoder_decoder=config.encoder is not None, context_length=config.context_length,
                      token_table_params=table, tied_head=config.tied_embeddings, expert_layers=tuple(experts),
                      weights=weights)
