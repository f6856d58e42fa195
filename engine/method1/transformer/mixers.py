"""A block's sequence mixer, a tagged union by ``kind`` (absent: attention): each kind a small model with its own
checks and its rows.

- ``attention``: multi-head, grouped-query or multi-query attention (windows, local blocks, QK norms, gates, sinks,
  shared keys and values, DeBERTa's position terms, JetMoE's expert heads, Falcon-H1's Mamba-2 beside it);
- ``latent``: DeepSeek's multi-head latent attention (and its lightning indexer);
- ``compressed``: DeepSeek-V4's attention; ``lightning``: MiniMax's lightning attention;
- ``mamba``, ``mamba2``, ``gated_deltanet``, ``short_conv``: the state-space and convolution mixers;
- ``none``: a feed-forward layer of its own (Nemotron-H).

The facts a serving model reads are fields here: heads and key/value heads (``kv_heads``, None: H), the head size
(``head_size``, None: d/H), the window (``window``), the latent's rank (``kv_lora_rank`` and the rotary key
``rope_head_size``), a state-space mixer's state (``state_size`` per channel or head, ``inner_size``, ``heads``,
``conv_kernel``); ``attention_sizes(d)`` gives (H, H_kv, Q) for every kind.
"""

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_serializer, model_validator

from . import attention
from . import compressed
from . import lightning
from . import state_space
from ...errors import InputError
from ..layers import ShapeError, Size

BlockActivation = Literal["relu", "gelu", "silu", "sigmoid", "tanh", "relu2", "xielu"]


def _check_heads(inner: int, heads: int, groups: int) -> None:
    """Heads H dividing the inner width I, and groups G dividing the heads (Mamba-2, gated DeltaNet)."""
    if inner % heads or heads % groups:
        raise InputError("heads", f"heads {heads} must divide inner_size {inner}, and groups {groups} the heads")


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @model_serializer(mode="wrap")
    def _with_kind(self, handler):
        """A mixer's dump always carries ``kind`` (the union's tag), even with ``exclude_defaults``."""
        data = handler(self)
        kind = getattr(self, "kind", None)
        return {"kind": kind, **data} if isinstance(data, dict) and kind is not None else data


class DisentangledAttention(_Part):
    """DeBERTa's disentangled attention (He et al. 2021; transformers' ``DisentangledSelfAttention``): beside the
    content scores QKᵀ, position terms from a table of 2S relative-position embeddings of width d (counted once,
    ``RelativePositionTable``; the layers share it). Per layer the 2S' rows it reads (S' = min(L, S) with ``clip``,
    DeBERTa v1; S' = S, v2) are projected d→H·Q into position keys (c2p: content-to-position, H·L·2S'·Q MACs
    against the queries) and position queries (p2c: position-to-content, H·L·2S'·Q MACs against the keys); the
    scores are then gathered by relative distance (no multiply-accumulates). ``shared_projections`` (v2's
    share_att_key): the table goes through the layer's own q and k projections (both, whatever the terms; no
    parameters of their own). v1's c2p projection has no bias (``position_key_bias``)."""

    span: Size = Field(description="S: relative distances each way (the table has 2S rows).")
    clip: bool = Field(False, description="v1: only the 2·min(L, S) middle rows are read.")
    terms: tuple[Literal["c2p", "p2c"], ...] = Field((), description="The position terms computed.")
    shared_projections: bool = Field(False, description="v2's share_att_key: the table through the layer's q and k.")
    position_key_bias: bool = Field(True, description="c2p's own projection has a bias (v1: none).")

    def rows(self, length: int) -> int:
        """2S': the table rows one layer reads at L positions."""
        return 2 * (min(length, self.span) if self.clip else self.span)


class _Heads(_Part):
    """What every attention kind has: H heads of Q (default d/H)."""

    heads: Size = Field(description="H query heads.")
    head_size: Size | None = Field(None, description="Q (default d_model / H).")

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        """(H, H_kv, Q) for d_model d."""
        if self.head_size is None and d % self.heads:
            raise ShapeError(f"head size d/H = {d}/{self.heads} is not an integer; set head_size")
        return self.heads, getattr(self, "kv_heads", None) or self.heads, self.head_size or d // self.heads


class _Causal(_Heads):
    causal: bool = Field(True, description="Causal self-attention (decoder); false for an encoder block.")
    causal_count: Literal["full", "half"] = Field(
        "full", description="full: all L² scores, as FlopCounterMode; half: only the unmasked ones, "
                            "L(L+1)/2 (within the window, if any).")
    window: Size | None = Field(
        None, description="W: sliding-window attention, each query sees the last W positions, itself "
                          "included (Mistral's sliding_window); counted with causal_count 'half'.")
    sinks: bool = Field(False, description="A learned sink logit per head (GPT-OSS).")

    @model_validator(mode="after")
    def _masked(self):
        if self.causal_count == "half" and not self.causal:
            raise InputError("causal_count", "causal_count 'half' needs causal attention")
        if self.window and not self.causal:
            raise InputError("window", "a sliding window is modelled for causal attention only")
        return self


class _Gates(BaseModel):
    head_gate: bool = Field(False, description="A sigmoid gate per head, d→H from the attention's input, scales "
                                               "each head's output before the output projection (LFM3).")
    gate_function: Literal["sigmoid", "softplus"] = Field(
        "sigmoid", description="What the attention's output gate (output_gate, head_gate) applies to its logits: "
                               "sigmoid, or softplus (Laguna); element-wise, full convention only.")


class Mamba2Mixer(_Part):
    """Mamba-2's mixer (``state_space.mamba2``): grouped heads, the chunked scan, a gated RMS norm."""

    kind: Literal["mamba2"] = "mamba2"
    inner_size: Size = Field(description="I: the inner width (expand·d), H heads of I/H.")
    state_size: Size = Field(description="N: the state size per group.")
    conv_kernel: Size = Field(description="K: the width of the causal depthwise convolution.")
    heads: Size = Field(description="H: the scan's heads (head size I/H).")
    groups: Size = Field(description="G: groups sharing B and C (and the gated norm's groups).")
    chunk_size: Size = Field(description="Q: the chunk length of the scan.")
    bias: bool = Field(False, description="Biases on the in and out projections.")
    conv_bias: bool = Field(True, description="A bias on the convolution.")
    gated_norm: bool = Field(True, description="The gated RMS norm (I parameters); false: the scan's output × SiLU(z) "
                                               "alone (Falcon-H1's mamba_rms_norm false).")
    out_bias: Literal["same", "bias", "none"] = Field(
        "same", description="The out projection's bias: as the in projection's (same: bias), or its own (Falcon-H1's "
                            "projectors_bias).")
    activation: BlockActivation = Field("silu", description="The convolution's activation.")

    @model_validator(mode="after")
    def _heads_fit(self):
        _check_heads(self.inner_size, self.heads, self.groups)
        return self

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        return 1, 1, d

    def rows(self, block, d: int, length: int, read: str) -> list:
        return state_space.mamba2(self, d, length, read)


class AttentionMixer(_Gates, _Causal):
    """Self-attention: q (d→H·Q), k and v (d→H_kv·Q each; H_kv = H multi-head, 1 multi-query, between:
    grouped-query), QKᵀ and AV (H·L²·Q MACs each), output (H·Q→d). A causal mask does not change that count unless
    ``causal_count="half"``; ``window`` W narrows what the mask keeps, and so counts only with "half";
    ``local_radius`` r (LongT5): blocks of b = r + 1, each query scoring 3·b keys (with ``global_block_size``, ⌊L/G⌋
    block sums too). ``qk_norm``: a norm of the queries and keys, per head (``head``: γ of Q, Qwen3, Gemma 3), over
    the whole projection (``width``: OLMo 2) or one norm of its own per head (``each_head``: StableLM, Cohere).
    ``output_gate``: the q projection also makes a gate, sigmoid(gate)·output before the output projection
    (Qwen3-Next). Gemma 4: ``kv_source`` (the keys and values of an earlier layer: no k/v projections or key norm),
    ``values_from_keys``, ``value_norm``. ``indexer_heads`` H_I: MiniMax-M3's block indexer. ``attention_experts``:
    JetMoE's mixture of attention heads (the q and output projections are the block's experts). ``beside``:
    Falcon-H1's Mamba-2 mixer on the same normed input, its output added with the attention's."""

    kind: Literal["attention"] = "attention"
    kv_heads: Size | None = Field(None, description="H_kv key/value heads (default H; 1 = multi-query).")
    local_radius: Size | None = Field(None, description="r: LongT5's local attention: the positions in blocks of "
                                                        "b = r + 1, each query scoring the 3·b keys of its block "
                                                        "and the two beside it (non-causal only).")
    global_block_size: Size | None = Field(None, description="G: LongT5's transient-global attention: with "
                                                             "local_radius, each query also scores ⌊L/G⌋ block "
                                                             "sums of the input (normed: d parameters).")
    qk_norm: Literal["none", "head", "width", "each_head"] = "none"
    qkv_bias: bool = True
    key_bias: bool = Field(True, description="With qkv_bias: the key projection's bias too (DeBERTa v1 has q and v "
                                             "biases only).")
    out_bias: bool = True
    output_gate: bool = Field(False, description="The q projection also makes a gate (2·H·Q wide): sigmoid(gate) "
                                                 "scales the attention's output before the output projection "
                                                 "(Qwen3-Next).")
    kv_source: int | None = Field(None, ge=0, lt=10_000, description="Gemma 4's KV sharing: the 0-based layer whose "
                                                                    "keys and values this layer reads (no k/v "
                                                                    "projections or key norm of its own; QKᵀ and AV "
                                                                    "run as usual).")
    values_from_keys: bool = Field(False, description="The values are the key projection's output (Gemma 4's "
                                                      "attention_k_eq_v): no v projection.")
    value_norm: bool = Field(False, description="A norm without gain of the values (Gemma 4): no parameters.")
    value_size: Size | None = Field(None, description="V: the value size per head where it differs from Q (MiMo-V2): "
                                                      "v projection d→H_kv·V, AV over V, output H·V→d.")
    differential: bool = Field(False, description="DiffLlama's differential attention: the scores and the values "
                                                  "computed twice (two attention calls over the same queries and "
                                                  "keys, each value half repeated), four learned vectors λ of Q.")
    disentangled: DisentangledAttention | None = Field(None, description="DeBERTa: position terms (c2p, p2c) beside "
                                                                         "the content scores QKᵀ.")
    indexer_heads: Size | None = Field(None, description="H_I: MiniMax-M3's block-indexer heads (None: no indexer).")
    indexer_head_size: Size | None = Field(None, description="D_I: the indexer's head size.")
    attention_experts: bool = Field(False, description="JetMoE's mixture of attention heads: the q and output "
                                                       "projections are the block's E experts (d→H_kv·Q and H_kv·Q→d "
                                                       "each, k per token: H = k·H_kv query heads over the H_kv "
                                                       "key/value heads) behind a router d→E of their own; one bias d "
                                                       "on the combined output.")
    beside: Mamba2Mixer | None = Field(None, description="Falcon-H1: Mamba-2's mixer runs beside the attention on the "
                                                         "same normed input; both outputs are added into the stream.")

    @property
    def kv_shared(self) -> bool:
        """Whether this layer reads an earlier layer's keys and values (``kv_source``)."""
        return self.kv_source is not None

    @model_validator(mode="after")
    def _consistent(self):
        h_kv = self.kv_heads or self.heads
        if self.heads % h_kv:
            raise InputError("kv_heads", f"kv_heads {h_kv} must divide heads {self.heads} (each key/value "
                                         "head serves a whole group of query heads)")
        if self.local_radius is not None and self.causal:
            raise InputError("local_radius", "local (block) attention is modelled for non-causal multi-head attention")
        if self.global_block_size is not None and self.local_radius is None:
            raise InputError("global_block_size", "transient-global attention needs local_radius")
        if self.value_size is not None and (self.values_from_keys or self.attention_experts or self.differential
                                            or self.kv_shared or self.value_norm or self.local_radius is not None
                                            or self.disentangled is not None or self.output_gate):
            raise InputError("value_size", "a value size of its own is modelled on plain self-attention")
        if (self.kv_shared or self.values_from_keys) and (self.local_radius or self.disentangled is not None):
            raise InputError("kv_source", "shared or key-derived values are modelled for plain self-attention")
        if self.output_gate and self.local_radius is not None:
            raise InputError("output_gate", "an output gate is modelled on self-attention (not latent or local "
                                            "attention)")
        if self.head_gate and (self.output_gate or self.local_radius is not None or self.attention_experts
                               or self.differential):
            raise InputError("head_gate", "a gate per head is modelled on plain or latent self-attention (not local "
                                          "or expert attention, nor beside an output gate)")
        if self.gate_function != "sigmoid" and not (self.head_gate or self.output_gate):
            raise InputError("gate_function", "belongs to an output gate (head_gate or output_gate)")
        if (self.indexer_heads is None) != (self.indexer_head_size is None):
            raise InputError("indexer_heads", "the block indexer needs indexer_heads and indexer_head_size")
        if self.indexer_heads is not None and (self.attention_experts or self.differential
                                               or self.local_radius is not None or self.disentangled is not None):
            raise InputError("indexer_heads", "MiniMax-M3's block indexer is modelled on plain self-attention")
        if self.attention_experts and (self.local_radius is not None or self.output_gate or self.qk_norm != "none"
                                       or self.disentangled is not None):
            raise InputError("attention_experts", "a mixture of attention heads (JetMoE) is modelled in plain "
                                                  "sequential self-attention")
        if self.beside is not None and self.local_radius is not None:
            raise InputError("beside", "a Mamba-2 mixer beside attention is modelled with plain (not local) "
                                       "self-attention")
        return self

    def rows(self, block, d: int, length: int, read: str) -> list:
        half = self.causal_count == "half"
        rows = attention.attention(block, "attention", d, length, length, half, self.window if half else None,
                                   read, "x")
        if self.beside is not None:  # Falcon-H1: the same normed input; its out projection adds into x too
            rows += state_space.mamba2(self.beside, d, length, read)
            if block.mup_multipliers:
                rows.insert(0, state_space.falcon_h1_multipliers(block, d, length, read))
        return rows


class LatentAttentionMixer(_Gates, _Causal):
    """Multi-head latent attention (DeepSeek-V2/V3): queries d→H·(Q+R) directly or through a rank-``q_lora_rank``
    bottleneck (d→c_q, norm, c_q→H·(Q+R)); keys and values from one latent d→c+R (R = ``rope_head_size``, a rotary
    key shared by the heads), norm, c→H·(Q+V) (V = ``value_head_size``); QKᵀ over Q+R per head, AV over V, output
    H·V→d. ``indexer_heads`` H_I (DeepSeek-V3.2's sparse attention, ``DeepseekV32Indexer``): a lightning indexer of
    H_I heads of ``indexer_head_size`` D_I scores every query–key pair to pick the keys attention keeps; it runs
    without gradient (no backward, its weights never train). ``scales`` (LongCat-Flash), ``rescale`` and
    ``rope_key_norm`` (Dots 3), ``gate`` (HY-V4: an output gate d→H·V), ``head_gate`` (Dots 3)."""

    kind: Literal["latent"] = "latent"
    kv_lora_rank: Size = Field(description="c: the key/value latent's rank.")
    q_lora_rank: Size | None = Field(None, description="c_q: the query latent's rank (None: direct).")
    rope_head_size: Size = Field(description="R: the rotary part per head.")
    value_head_size: Size = Field(description="V: the value size per head.")
    qkv_bias: bool = Field(True, description="Biases on the q and kv down-projections.")
    out_bias: bool = True
    indexer_heads: Size | None = Field(None, description="H_I: the lightning indexer's heads (None: no indexer).")
    indexer_head_size: Size | None = Field(None, description="D_I: the lightning indexer's head size.")
    scales: bool = Field(False, description="LongCat-Flash's LoRA scalings: the queries and the normed key latent "
                                            "multiplied by a constant (full convention only).")
    rope_key_norm: bool = Field(False, description="The shared rotary key normed (Dots 3: an RMSNorm with γ of R).")
    rescale: bool = Field(False, description="The normed query and key latents multiplied by constants (Dots 3: "
                                             "√(d/c_q), √(d/c)): c_q + c products a position, full convention only.")
    gate: bool = Field(False, description="An output gate (HY-V4): its own projection d→H·V of the attention's input; "
                                          "sigmoid(gate) scales the output element-wise before the output projection.")

    @model_validator(mode="after")
    def _indexed(self):
        if (self.indexer_heads is None) != (self.indexer_head_size is None) or (
                self.indexer_heads is not None and not self.q_lora_rank):
            raise InputError("indexer_heads", "the lightning indexer needs indexer_heads and indexer_head_size, "
                                              "on latent attention with a q_lora_rank")
        if self.gate_function != "sigmoid" and not self.head_gate:
            raise InputError("gate_function", "belongs to an output gate (head_gate)")
        return self

    def rows(self, block, d: int, length: int, read: str) -> list:
        half = self.causal_count == "half"
        pairs = attention.unmasked_pairs(length, self.window if half else None) if half else length * length
        return attention.latent_attention(block, "attention", d, length, pairs, read)


class CompressedAttentionMixer(_Heads):
    """DeepSeek-V4's attention (``compressed``): queries through ``q_lora_rank``, one key/value head that is also
    the values, sinks, the grouped output projection of ``output_groups`` × ``output_rank``; ``compress_rate`` m
    appends ⌊L/m⌋ pooled keys, with ``indexer_heads`` the lightning indexer of compressed sparse attention
    (``engine.method1.transformer.compressed``). Causal, every pair counted."""

    kind: Literal["compressed"] = "compressed"
    q_lora_rank: Size = Field(description="c_q: the query latent's rank.")
    output_groups: Size = Field(description="g: the grouped output projection, g blocks of H·Q/g → output_rank, "
                                            "then g·output_rank → d.")
    output_rank: Size = Field(description="r_o: each output group's rank.")
    compress_rate: Size | None = Field(None, description="m: the compressor, one key every m positions appended to "
                                                         "the L keys (None: a sliding layer, none); with "
                                                         "indexer_heads, compressed sparse attention (two overlapping "
                                                         "series, the lightning indexer).")
    window: Size | None = Field(None, description="W: the sliding window (a mask: every pair is counted).")
    sinks: bool = Field(False, description="A learned sink logit per head.")
    indexer_heads: Size | None = Field(None, description="H_I: the lightning indexer's heads (None: no indexer).")
    indexer_head_size: Size | None = Field(None, description="D_I: the lightning indexer's head size.")

    @model_validator(mode="after")
    def _complete(self):
        if (self.heads * (self.head_size or 0)) % self.output_groups:
            raise InputError("output_groups", f"{self.output_groups} output groups do not divide the heads' width")
        if self.indexer_heads is not None and (self.indexer_head_size is None or not self.compress_rate):
            raise InputError("indexer_heads", "DeepSeek-V4's indexer needs indexer_head_size and a compress_rate")
        if self.indexer_head_size is not None and self.indexer_heads is None:
            raise InputError("indexer_heads", "the lightning indexer needs indexer_heads and indexer_head_size")
        return self

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        h, _, q = super().attention_sizes(d)
        return h, h, q

    def rows(self, block, d: int, length: int, read: str) -> list:
        return compressed.compressed_attention(block, d, length, read)


class LightningMixer(_Heads):
    """MiniMax's lightning attention: linear attention in blocks of ``block_size``
    (``engine.method1.transformer.lightning``)."""

    kind: Literal["lightning"] = "lightning"
    block_size: Size = Field(description="B: the block length of lightning attention.")
    activation: BlockActivation = Field("silu", description="The activation of q, k and v.")

    def rows(self, block, d: int, length: int, read: str) -> list:
        return lightning.lightning(self, d, length, read)


class MambaMixer(_Part):
    """Mamba's selective-scan mixer (``state_space.mamba``): in/out projections, the causal depthwise convolution,
    x/Δ projections, the scan."""

    kind: Literal["mamba"] = "mamba"
    inner_size: Size = Field(description="I: the inner width (expand·d).")
    state_size: Size = Field(description="N: the state size per channel.")
    conv_kernel: Size = Field(description="K: the width of the causal depthwise convolution.")
    dt_rank: Size = Field(description="R: the rank of the time-step projection.")
    bias: bool = Field(False, description="Biases on the in and out projections.")
    conv_bias: bool = Field(True, description="A bias on the convolution.")
    norms: bool = Field(False, description="RMS norms with a gain on Δ, B and C after the x projection (Jamba): "
                                           "R + 2N parameters, no multiply-accumulates.")

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        return 1, 1, d

    def rows(self, block, d: int, length: int, read: str) -> list:
        return state_space.mamba(self, d, length, read)


class GatedDeltaNetMixer(_Part):
    """Gated DeltaNet's linear attention (Qwen3-Next; the chunked gated delta rule, ``state_space.gated_deltanet``);
    ``decay="channel"``: Kimi Delta Attention (``state_space.kimi_delta``)."""

    kind: Literal["gated_deltanet"] = "gated_deltanet"
    inner_size: Size = Field(description="I: the values' width, H value heads of I/H.")
    state_size: Size = Field(description="N: the key size per head.")
    conv_kernel: Size = Field(description="K: the width of the causal depthwise convolution.")
    heads: Size = Field(description="H: the value heads.")
    groups: Size = Field(description="G: the query/key heads.")
    chunk_size: Size = Field(description="Q: the chunk length of the scan.")
    decay: Literal["head", "channel"] = Field(
        "head", description="The decay: one per head (Qwen3-Next), or one per key channel with low-rank forget and "
                            "output gates (Kimi Delta Attention, Kimi Linear).")
    activation: BlockActivation = Field("silu", description="The convolution's activation.")

    @model_validator(mode="after")
    def _heads_fit(self):
        _check_heads(self.inner_size, self.heads, self.groups)
        if self.decay == "channel" and (self.groups != self.heads
                                        or self.inner_size != self.heads * self.state_size):
            raise InputError("decay", "a per-channel decay (Kimi Delta Attention) needs as many key heads as value "
                                      "heads, of one head size (inner_size = heads × state_size)")
        return self

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        return 1, 1, d

    def rows(self, block, d: int, length: int, read: str) -> list:
        return state_space.gated_deltanet(self, d, length, read)


class ShortConvMixer(_Part):
    """LFM2's gated short convolution (in projection d→3d, B·x, a causal depthwise convolution of width
    ``conv_kernel``, C·(conv), out projection; ``state_space.short_conv``)."""

    kind: Literal["short_conv"] = "short_conv"
    conv_kernel: Size = Field(description="K: the width of the causal depthwise convolution.")
    bias: bool = Field(False, description="Biases on the in and out projections.")
    conv_bias: bool = Field(True, description="A bias on the convolution.")

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        return 1, 1, d

    def rows(self, block, d: int, length: int, read: str) -> list:
        return state_space.short_conv(self, d, length, read)


class NoMixer(_Part):
    """No mixer: the block is a feed-forward layer of its own (Nemotron-H's MLP and MoE layers)."""

    kind: Literal["none"] = "none"

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        return 1, 1, d

    def rows(self, block, d: int, length: int, read: str) -> list:
        return []


MIXERS: tuple[type[BaseModel], ...] = (AttentionMixer, LatentAttentionMixer, CompressedAttentionMixer, LightningMixer,
                                       MambaMixer, Mamba2Mixer, GatedDeltaNetMixer, ShortConvMixer, NoMixer)
"""Every mixer kind (a kind left out here is refused in every file and link: ``tests/method1/test_registry.py``)."""

ATTENTION_KINDS = ("attention", "latent")
"""The mixers with q, k, v and o projections (LoRA's attention targets)."""


def _mixer_kind(value) -> str:
    """The tag of a mixer: its ``kind`` (absent: attention)."""
    if isinstance(value, dict):
        return value.get("kind", "attention")
    return getattr(value, "kind", "attention")


Mixer = Annotated[Union[tuple(Annotated[m, Tag(m.model_fields["kind"].default)] for m in MIXERS)],
                  Discriminator(_mixer_kind)]
