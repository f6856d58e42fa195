"""Layer kinds that image, video and audio models need beside the basic ones: group norm, a linear layer on the
conditioning (a timestep or pooled-text vector, a text encoder's tokens), the attention product on its own
(self- or cross-attention, within segments: images, frames, windows, tiles), tokens back to a grid, a gated
linear unit, per-stream weights over a joint sequence, a slice of the sequence, and text tokens joining the
image tokens in front of a language model.

Symbols: L positions in the flow (a sequence ``L × [W]``), H query heads and H_kv key/value heads of size Q,
M context positions of width C, E positions of a conditioning input, N → M a projection's widths. Shapes are
channels-last, as in ``engine.method1.layers``.
"""

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from .backward import Grad, LoRA, lora_cost
from .conventions import ACTIVATION_FLOP, BACKWARD_EXTRA_FACTOR, MERGE_FLOP_PER_ELEMENT
from .layers import MAX_SIZE, Flow, LayerBase, LayerCost, ShapeError, Size, sequence_dims
from .ops import dense_cost, layer_norm_cost, prod, rms_norm_cost, softmax_and_scale_flop


class GroupNorm(LayerBase):
    """GroupNorm (Wu & He 2018): statistics over G groups of the channels (the last axis) of each item; params 2·C
    with γ and β. No multiply-accumulates (full: 7 per element, as LayerNorm)."""

    type: Literal["group_norm"] = "group_norm"
    groups: Size
    affine: bool = True
    kind_label: ClassVar[str] = "Group norm"
    formula: ClassVar[str] = r"0 \quad (\text{full: } 7 \text{ per element})"

    def item_cost(self, item):
        c = item[-1]
        if c % self.groups:
            raise ShapeError(f"groups {self.groups} must divide the channels C = {c}")
        return (item, *layer_norm_cost(prod(item), c, self.affine))


class ConditioningDense(LayerBase):
    """A linear layer N→M on the example's conditioning, not on the flow: a timestep or pooled-text vector (E = 1:
    the time embedding's MLP, a ResNet block's time projection, adaLN's scale and shift) or a text encoder's E
    tokens (cross-attention's keys and values, a caption projection). Params N·M (+ M); E·N·M MACs per example; the
    flow passes unchanged (what it makes is added to, or scales, the flow element-wise, or is attended to).

    Backward: the weight gradient when trainable; the input gradient when ``input_grad`` (the conditioning comes from
    layers that train: the time embedding's MLP); the flow needs a gradient after it when it did before or, when its
    output ``joins_flow`` here, when these weights (or the layers before them) train. With ``lora`` (rank r: Llama 3.2
    Vision's cross-attention v_proj on the image positions under peft) the weights are frozen and an adapter adds
    r·(N + M) params and E·r·(N + M) MACs; its backward: A's and B's weight gradients, B's input gradient, and the
    frozen W's and A's input gradients when ``input_grad``."""

    type: Literal["conditioning_dense"] = "conditioning_dense"
    in_features: Size = Field(description="N: the conditioning's width.")
    units: Size = Field(description="M: the output width.")
    bias: bool = True
    positions: Size = Field(1, description="E: conditioning positions it runs on (1: a vector; the text tokens).")
    input_grad: bool = Field(False, description="In training, its input needs a gradient (made by trained layers).")
    reused: bool = Field(False, description="The weights of an earlier layer, run again (DiT's output modulation "
                                            "recomputes the first block's embedding): no parameters of its own.")
    joins_flow: bool = Field(True, description="Its output joins the flow here (a time projection added to a "
                                               "ResNet's features, a modulation); false: it feeds later "
                                               "conditioning layers only (the time embedding's MLP, a caption "
                                               "projection), so the flow's gradient is not changed by it.")
    lora: LoRA | None = Field(None, description="A trainable low-rank adapter beside the frozen weights.")
    kind_label: ClassVar[str] = "Linear on the conditioning"
    formula: ClassVar[str] = r"2 \cdot E \cdot N \cdot M"

    @model_validator(mode="after")
    def _adapter(self):
        if self.lora is not None and self.reused:
            raise InputError("lora", "an adapter belongs to the layer that holds the weights, not to a reuse of them")
        return self

    @property
    def adapted(self) -> bool:
        return self.lora is not None

    def cost(self, flow: Flow) -> LayerCost:
        params, macs, bias = dense_cost(self.in_features, self.units, self.bias)
        if self.lora is not None:
            lp, a, b = lora_cost(self.in_features, self.units, self.lora.rank)
            params, macs, bias = params + lp, macs + a + b, bias + 2 * self.units
        return LayerCost(flow, 0 if self.reused else params, self.positions * macs, self.positions * bias)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        if self.lora is not None:  # A and B trained; B's input always; the frozen W's and A's inputs when needed
            lp, a, b = lora_cost(self.in_features, self.units, self.lora.rank)
            macs = self.positions * (a + b + b + ((self.in_features * self.units + a) if self.input_grad else 0))
            return Grad(macs, BACKWARD_EXTRA_FACTOR * cost.extra_flop, grad_in or self.joins_flow, lp)
        weights = trainable and (cost.params > 0 or self.reused)
        macs = cost.macs * (int(weights) + int(self.input_grad))
        out = grad_in or (self.joins_flow and (weights or self.input_grad))
        return Grad(macs, BACKWARD_EXTRA_FACTOR * cost.extra_flop if weights or self.input_grad else 0, out,
                    cost.params if trainable else 0)


class Segment(BaseModel):
    """``count`` runs of ``length`` positions that attend only among themselves."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    length: Size
    count: Size = 1


class AttentionCore(LayerBase):
    """The attention product alone, between projections written as layers of their own: softmax(QKᵀ/√Q)·V with H
    query heads and H_kv key/value heads of size Q.

    Self-attention (``context_length`` None): the input is the fused q, k, v of each position, [L, (H + 2·H_kv)·Q],
    and every position attends to the positions of its segment (``segments``: runs that attend among themselves —
    the images or frames of a sequence, windows, tiles; default the whole sequence). Cross-attention: the input is
    the queries [L, H·Q] and the keys and values come from M context positions (a ``conditioning_dense`` before it
    makes them). Output [L, H·Q]. MACs: Σ count·ℓ²·H·2Q (self), L·M·H·2Q (cross). ``qk_norm``: a norm of the
    queries and of the keys over each head (Q wide) or over all heads (``qk_norm_width`` "all"), one pair per
    stream (``norm_sets``: a joint attention's image and text streams each have their own): parameters, no MACs.

    Backward: both products' operand gradients once the input needs one; cross-attention's keys and values also
    when ``context_grad`` (their projections train, or what they read needs a gradient), and then the output needs a
    gradient even where the queries do not (a frozen language model passing gradients back to the image)."""

    type: Literal["attention_core"] = "attention_core"
    heads: Size
    head_size: Size
    kv_heads: Size | None = Field(None, description="H_kv (default H).")
    context_length: Size | None = Field(None, description="M: cross-attention over M context positions.")
    context_grad: bool = Field(False, description="Cross-attention: its keys and values need a gradient in training.")
    segments: Annotated[list[Segment], Field(max_length=100_000)] | None = Field(
        None, description="Runs of positions that attend only among themselves (default: one, the whole sequence).")
    qk_norm: Literal["none", "layer_norm", "rms_norm"] = "none"
    qk_norm_bias: bool = Field(True, description="The qk LayerNorms have β.")
    qk_norm_width: Literal["head", "all"] = "head"
    norm_sets: Size = Field(1, description="Pairs of q/k norms (one per stream of a joint attention).")
    kind_label: ClassVar[str] = "Attention product"
    formula: ClassVar[str] = r"\sum_{\text{segments}} n \cdot 2 H \ell^2 Q \quad (\text{cross: } 2 H L M Q)"

    @model_validator(mode="after")
    def _consistent(self):
        if self.heads % (self.kv_heads or self.heads):
            raise InputError("kv_heads", f"kv_heads {self.kv_heads} must divide heads {self.heads}")
        if self.segments is not None and self.context_length is not None:
            raise InputError("segments", "segments belong to self-attention (no context_length)")
        return self

    def _norm_params(self) -> int:
        if self.qk_norm == "none":
            return 0
        width = self.head_size if self.qk_norm_width == "head" else None
        q = width or self.heads * self.head_size
        k = width or (self.kv_heads or self.heads) * self.head_size
        per = 2 if self.qk_norm == "layer_norm" and self.qk_norm_bias else 1
        return self.norm_sets * per * (q + k)

    def _pairs(self, length: int) -> int:
        """Query–key pairs per head."""
        if self.context_length is not None:
            return length * self.context_length
        if self.segments is None:
            return length * length
        covered = sum(s.length * s.count for s in self.segments)
        if covered != length:
            raise ShapeError(f"the segments cover {covered:,} positions, not the sequence's {length:,}")
        return sum(s.count * s.length * s.length for s in self.segments)

    def cost(self, flow: Flow) -> LayerCost:
        w, length = sequence_dims(flow)
        h, q = self.heads, self.head_size
        kv = self.kv_heads or h
        width = h * q if self.context_length is not None else (h + 2 * kv) * q
        if w != width:
            what = "the queries (H·Q)" if self.context_length is not None else "the fused q, k, v ((H + 2·H_kv)·Q)"
            raise ShapeError(f"expects {what}: {width:,} channels, got {w:,}")
        pairs = self._pairs(length)
        macs = 2 * h * pairs * q
        extra = softmax_and_scale_flop(h * pairs)
        if self.qk_norm != "none":
            per = rms_norm_cost(1, 1, True).extra_flop if self.qk_norm == "rms_norm" else \
                layer_norm_cost(1, 1, True, self.qk_norm_bias).extra_flop
            extra += per * length * (h + (kv if self.context_length is None else 0)) * q
        return LayerCost(Flow((h * q,), length), self._norm_params(), macs, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """QKᵀ and AV: each operand's gradient, the forward's MACs per operand (half the MACs are each product's)."""
        half = cost.macs // 2
        if self.context_length is None:
            macs = 2 * cost.macs if grad_in else 0
            out = grad_in
        else:  # dA and dQ for the queries; dV and dK for the context's projections
            scores = grad_in or self.context_grad  # dA = dO·Vᵀ, then dQ = dS·K and dK = dSᵀ·Q; dV = Aᵀ·dO
            macs = half * (int(scores) + int(grad_in) + 2 * int(self.context_grad))
            out = scores  # the output is A·V: it needs a gradient when the keys or values do, whatever the queries
        trained = trainable and cost.params > 0
        return Grad(macs, BACKWARD_EXTRA_FACTOR * cost.extra_flop if out or trained else 0, out or trained,
                    cost.params if trainable else 0)


class TokensToGrid(LayerBase):
    """A token sequence back to a grid (the reverse of ``to_tokens``): L × [C] → [*grid, C] with ∏ grid = L (a
    spatial transformer's output before its projection back into the U-Net). No arithmetic."""

    type: Literal["tokens_to_grid"] = "tokens_to_grid"
    grid: Annotated[list[Size], Field(min_length=1, max_length=3)] = Field(
        description="The grid's axes, e.g. [H, W] or [F, H, W].")
    kind_label: ClassVar[str] = "Tokens → grid"
    formula: ClassVar[str] = r"0 \quad (L \text{ tokens} \to [H, W, C])"

    def cost(self, flow: Flow) -> LayerCost:
        c, length = sequence_dims(flow, "a token sequence L × [C]", "")
        if prod(self.grid) != length:
            raise ShapeError(f"a grid of {' × '.join(map(str, self.grid))} holds {prod(self.grid):,} positions, "
                             f"not the sequence's {length:,}")
        return LayerCost(Flow(tuple(self.grid) + (c,), None), 0, 0, 0)


class GatedUnit(LayerBase):
    """A gated linear unit after a projection to 2F: the last axis split in halves a and b, act(b)·a (GEGLU,
    SwiGLU). [..., 2F] → [..., F]; no multiply-accumulates (full: the activation and the product, per output)."""

    type: Literal["gated_unit"] = "gated_unit"
    activation: Literal["gelu", "silu", "relu", "sigmoid"] = "gelu"
    kind_label: ClassVar[str] = "Gated linear unit"
    formula: ClassVar[str] = r"0 \quad (\text{full: } (c_f + 1) \text{ per output})"

    def item_cost(self, item):
        if item[-1] % 2:
            raise ShapeError(f"needs an even number of channels to halve, got {item[-1]}")
        out = item[:-1] + (item[-1] // 2,)
        return out, 0, 0, (ACTIVATION_FLOP[self.activation] + MERGE_FLOP_PER_ELEMENT) * prod(out)


class StreamDense(LayerBase):
    """A linear layer N→M with weights of its own for each stream of a joint sequence (MMDiT's image and text
    tokens, Flux's double blocks): the first ``streams[0]`` positions through the first weights, the next through
    the second… Params S·(N·M + M) for S streams; L·N·M MACs (every position once)."""

    type: Literal["stream_dense"] = "stream_dense"
    units: Size
    bias: bool = True
    streams: Annotated[list[Size], Field(min_length=2, max_length=16)] = Field(
        description="Positions of each stream, in order; they add up to the sequence.")
    kind_label: ClassVar[str] = "Linear per stream"
    formula: ClassVar[str] = r"2 \cdot L \cdot N \cdot M"

    def cost(self, flow: Flow) -> LayerCost:
        n, length = sequence_dims(flow)
        if sum(self.streams) != length:
            raise ShapeError(f"the streams hold {sum(self.streams):,} positions, not the sequence's {length:,}")
        params, macs, bias = dense_cost(n, self.units, self.bias)
        return LayerCost(Flow((self.units,), length), len(self.streams) * params, length * macs, length * bias)


class SequenceSlice(LayerBase):
    """``length`` positions of the sequence from ``start`` (the image tokens of a joint sequence, once the text
    tokens are no longer used). A view: no arithmetic."""

    type: Literal["sequence_slice"] = "sequence_slice"
    start: int = Field(0, ge=0, le=MAX_SIZE)
    length: Size
    kind_label: ClassVar[str] = "Sequence slice"
    formula: ClassVar[str] = r"0"

    def cost(self, flow: Flow) -> LayerCost:
        d, total = sequence_dims(flow)
        if self.start + self.length > total:
            raise ShapeError(f"positions {self.start:,} to {self.start + self.length:,} are past the sequence's "
                             f"{total:,}")
        return LayerCost(Flow((d,), self.length), 0, 0, 0)


class TextTokens(LayerBase):
    """A language model's text tokens join the image (or audio) tokens of the flow: N × [d] → (N + T) × [d], the
    T tokens looked up in the model's V×d table (params V·d). No arithmetic. In training the flow's gradient
    passes on to the image tokens; the table's is a scatter-add (no multiply-accumulates)."""

    type: Literal["text_tokens"] = "text_tokens"
    vocab_size: Size
    tokens: int = Field(ge=0, le=MAX_SIZE, description="T: the text tokens beside the image tokens.")
    kind_label: ClassVar[str] = "Text tokens"
    formula: ClassVar[str] = r"0 \quad (V \cdot d \text{ parameters; } N \to N + T)"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        if length + self.tokens > MAX_SIZE:
            raise ShapeError(f"{length + self.tokens:,} positions is more than {MAX_SIZE:,}")
        return LayerCost(Flow((d,), length + self.tokens), self.vocab_size * d, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        return Grad(0, 0, grad_in or trainable, cost.params if trainable else 0)


class ContextTokens(LayerBase):
    """M conditioning tokens of width C (a text encoder's output) join the flow's N tokens, projected C → d (the
    flow's width, ``projection``: a biased linear; without it C must be d), so that the blocks after it run on the
    joint sequence (MMDiT, Flux, CogVideoX): N × [d] → (N + M) × [d]. Params C·d + d; M·C·d MACs. In training the
    text encoder is frozen: the projection's weight gradient only; the flow needs a gradient after it."""

    type: Literal["context_tokens"] = "context_tokens"
    tokens: Size = Field(description="M: the conditioning tokens.")
    in_features: Size = Field(description="C: their width.")
    projection: bool = Field(True, description="A linear C → d before they join.")
    bias: bool = True
    kind_label: ClassVar[str] = "Context tokens join"
    formula: ClassVar[str] = r"2 \cdot M \cdot C \cdot d"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        if not self.projection and self.in_features != d:
            raise ShapeError(f"tokens of width {self.in_features:,} cannot join a flow of width {d:,} without a "
                             "projection")
        if length + self.tokens > MAX_SIZE:
            raise ShapeError(f"{length + self.tokens:,} positions is more than {MAX_SIZE:,}")
        params, macs, bias = dense_cost(self.in_features, d, self.bias) if self.projection else (0, 0, 0)
        return LayerCost(Flow((d,), length + self.tokens), params, self.tokens * macs, self.tokens * bias)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        weights = trainable and cost.params > 0
        return Grad(cost.macs if weights else 0, BACKWARD_EXTRA_FACTOR * cost.extra_flop if weights else 0,
                    grad_in or weights, cost.params if trainable else 0)


class AttentionPool(LayerBase):
    """Attention pooling (SigLIP's head, ``nn.MultiheadAttention`` with learned queries): Q learned queries of width
    d attend over the flow's L tokens — the queries projected d → d, the tokens' keys and values d → 2d, the
    product, the output d → d (all biased): L × [d] → Q × [d]. Params Q·d + 4d² + 4d; MACs Q·d² + 2·L·d² + 2·Q·L·d
    + Q·d."""

    type: Literal["attention_pool"] = "attention_pool"
    heads: Size
    queries: Size = Field(1, description="Q learned queries (probes).")
    kind_label: ClassVar[str] = "Attention pooling"
    formula: ClassVar[str] = r"2 (2 Q d^2 + 2 L d^2 + 2 Q L d)"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        if d % self.heads:
            raise ShapeError(f"heads {self.heads} must divide the width {d:,}")
        q = self.queries
        params = q * d + 4 * d * d + 4 * d
        macs = q * d * d + 2 * length * d * d + 2 * q * length * d + q * d * d
        extra = softmax_and_scale_flop(self.heads * q * length) + (q + 2 * length + q) * d
        return LayerCost(Flow((d,), q), params, macs, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The projections as x·W (the queries' from learned values); the two products' operands once the keys and
        values need a gradient."""
        d, length = sequence_dims(flow)
        q = self.queries
        weights = trainable
        projections = q * d * d + 2 * length * d * d + q * d * d
        macs = (projections if weights else 0) + (2 * length * d * d if grad_in else 0)
        inner = grad_in or weights
        macs += 2 * 2 * q * length * d + q * d * d if inner else 0
        return Grad(macs, BACKWARD_EXTRA_FACTOR * cost.extra_flop if inner else 0, inner,
                    cost.params if trainable else 0)


class MergeTokens(LayerBase):
    """k consecutive tokens side by side (Qwen-VL's 2×2 patch merge, pixel shuffle): L × [C] → L/k × [k·C]. A
    reshape: no arithmetic."""

    type: Literal["merge_tokens"] = "merge_tokens"
    factor: Size = Field(description="k: tokens merged into one.")
    kind_label: ClassVar[str] = "Merge tokens"
    formula: ClassVar[str] = r"0 \quad (L \times [C] \to L/k \times [k C])"

    def cost(self, flow: Flow) -> LayerCost:
        c, length = sequence_dims(flow)
        if length % self.factor:
            raise ShapeError(f"{length:,} tokens do not split into groups of {self.factor}")
        if c * self.factor > MAX_SIZE:
            raise ShapeError(f"{c * self.factor:,} channels is more than {MAX_SIZE:,}")
        return LayerCost(Flow((c * self.factor,), length // self.factor), 0, 0, 0)


class LearnedValues(LayerBase):
    """Learned values used beside the flow without a matrix product: adaLN's scale-shift tables (added to the
    conditioning's modulation), a class-label table looked up once per example, a learned token or gate. Params
    ``count``; no multiply-accumulates; the flow passes unchanged (in training it needs a gradient after this layer
    when it did before or, when the values ``joins_flow`` here, when they train)."""

    type: Literal["learned_values"] = "learned_values"
    count: Size = Field(description="How many values.")
    joins_flow: bool = Field(True, description="The values join the flow here (a learned token, a gate); false: "
                                               "they are read by conditioning layers only (HunyuanDiT's style "
                                               "embedding and text padding), so the flow's gradient is not "
                                               "changed by them.")
    kind_label: ClassVar[str] = "Learned values"
    formula: ClassVar[str] = r"0 \quad (\text{count parameters})"

    def cost(self, flow: Flow) -> LayerCost:
        return LayerCost(flow, self.count, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        return Grad(0, 0, grad_in or (trainable and self.joins_flow), cost.params if trainable else 0)


MEDIA_KINDS: tuple[type[LayerBase], ...] = (GroupNorm, ConditioningDense, AttentionCore, TokensToGrid, GatedUnit,
                                            StreamDense, SequenceSlice, TextTokens, ContextTokens, AttentionPool,
                                            MergeTokens,
                                            LearnedValues)
"""Registered in ``engine.method1.kinds``."""
