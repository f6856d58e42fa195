"""The language model's layer kinds besides the block: RMSNorm, learned position and token-type tables, the LM head,
T5's relative bias, the decoder's input, the tables a model holds and a path does not read, BERT's pooler, ESM's
contact head, DeBERTa's relative table, Gemma 4's per-layer embeddings and DeepSeek-V4's hyper-connection head.

Symbols: L positions, d = d_model, V vocabulary, H heads, N hyper-connection streams."""

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from ...errors import InputError
from ..backward import Grad, product_grad
from ..conventions import ACTIVATION_FLOP, BACKWARD_EXTRA_FACTOR
from ..layers import (
    Flow,
    LayerBase,
    LayerCost,
    ShapeError,
    Size,
    sequence_dims,
)
from ..ops import dense_cost, layer_norm_cost, prod, rms_norm_cost


class RMSNorm(LayerBase):
    """x / √(mean(x²) + ε) · γ over the last axis (Zhang & Sennrich 2019): params d with the gain γ."""

    type: Literal["rms_norm"] = "rms_norm"
    affine: bool = True
    kind_label: ClassVar[str] = "RMS norm"
    formula: ClassVar[str] = r"0 \quad (\text{full: } 4 \text{ per element})"

    def item_cost(self, item):
        return (item, *rms_norm_cost(prod(item), item[-1], self.affine))


class HyperHead(LayerBase):
    """DeepSeek-V4's end of the hyper-connections (``DeepseekV4HyperHead``): the N residual streams of d collapsed
    into one by weights from the flattened streams, N·d → N (a gainless RMSNorm first, a bias N and a scale):
    params N·N·d + N + 1, L·N·d·N MACs (full: the norm, scale, bias and sigmoid of the N weights, the collapse)."""

    type: Literal["hyper_head"] = "hyper_head"
    streams: Size
    kind_label: ClassVar[str] = "Hyper-connection head"
    formula: ClassVar[str] = r"2 L N^2 d"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        n = self.streams
        norm = rms_norm_cost(n * d, n * d, False).extra_flop
        extra = length * (norm + n * (2 + ACTIVATION_FLOP["sigmoid"] + 1) + (2 * n - 1) * d)
        return LayerCost(Flow((d,), length), n * n * d + n + 1, length * n * d * n, extra)


class PositionEmbedding(LayerBase):
    """A learned table of P positions × d (GPT-2's ``wpe``), added to the token embeddings:
    params P·d, no multiply-accumulates (full: one add per element)."""

    type: Literal["position_embedding"] = "position_embedding"
    max_positions: Size
    width: Size | None = Field(None, description="The table's width where it is not d: RoFormer's sinusoidal table, "
                                                 "head-size wide, which the rotary positions read (not added).")
    frozen: bool = Field(False, description="The table never trains (transformers' requires_grad false): no "
                                            "gradient, no trainable parameters.")
    kind_label: ClassVar[str] = "Position embedding"
    formula: ClassVar[str] = r"0 \quad (P \cdot d \text{ parameters; full: } L \cdot d \text{ adds})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        if length > self.max_positions:
            raise ShapeError(f"sequence length {length} is longer than the {self.max_positions} learned positions")
        if self.width is not None:  # read by the rotary positions: no add
            return LayerCost(Flow((d,), length), self.max_positions * self.width, 0, 0)
        return LayerCost(Flow((d,), length), self.max_positions * d, 0, length * d)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """A frozen table asks for no gradient (a table's own is a scatter-add, no multiply-accumulates)."""
        if self.frozen:
            return Grad(0, 0, grad_in, 0)
        return super().backward(flow, cost, grad_in, trainable, memory_grad)


class LMHead(LayerBase):
    """Logits over the vocabulary at every position: d → V, 2·d·V per position.

    ``tied``: the weights are the token embedding's (its V·d parameters are counted there), so
    the head adds no weight parameters, but its FLOP are counted all the same."""

    type: Literal["lm_head"] = "lm_head"
    vocab_size: Size
    tied: bool = False
    bias: bool = False
    own_rows: Size | None = Field(None, description="A tied head whose d rows are the token table's E and d − E of its "
                                                    "own (MobileBERT): (d − E)·V parameters.")
    table_frozen: bool = Field(False, description="A tied head whose token table is frozen (fine-tuning the last "
                                                  "blocks): no weight gradient; its own bias still trains.")
    kind_label: ClassVar[str] = "LM head"
    formula: ClassVar[str] = r"2 \cdot d \cdot V \text{ per position}"

    def item_cost(self, item):
        out = (self.vocab_size,)
        params, macs, extra = dense_cost(self._vector(item), self.vocab_size, self.bias)
        if self.tied:
            params = (self.vocab_size if self.bias else 0) + (self.own_rows or 0) * self.vocab_size
        return out, params, macs, extra

    @model_validator(mode="after")
    def _table(self):
        if self.table_frozen and (not self.tied or self.own_rows):
            raise InputError("table_frozen", "belongs to a head tied to the token table, without rows of its own")
        return self

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """A tied head has weights all the same (the embedding's table): trained when the head is, unless the table
        is frozen (then only its bias trains: no weight gradient, V parameters)."""
        if self.table_frozen:  # the input gradient where needed; the bias's gradient is a sum (full: extra)
            out = grad_in or (trainable and cost.params > 0)
            return Grad(cost.macs * int(grad_in), BACKWARD_EXTRA_FACTOR * cost.extra_flop if out else 0, out,
                        cost.params if trainable else 0)
        return product_grad(cost.macs, cost.extra_flop, cost.params, grad_in, trainable, has_weights=True)


class TokenTypeEmbedding(LayerBase):
    """BERT's segment table: ``types`` rows × d, looked up and added at every position (params types·d,
    no multiply-accumulates; full: one add per element)."""

    type: Literal["token_type_embedding"] = "token_type_embedding"
    types: Size
    kind_label: ClassVar[str] = "Token-type embedding"
    formula: ClassVar[str] = r"0 \quad (\text{types} \cdot d \text{ parameters; full: } L \cdot d \text{ adds})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.types * d, 0, length * d)


class RelativePositionBias(LayerBase):
    """T5's relative attention bias: a table of ``buckets`` × H scalars added to the attention scores of
    a stack (computed in its first layer, shared by the others; UMT5: ``tables``, one per layer): params
    tables·buckets·H, no multiply-accumulates."""

    type: Literal["relative_position_bias"] = "relative_position_bias"
    buckets: Size
    heads: Size
    tables: Size = Field(1, description="Tables of their own: 1 (T5, shared by the stack's layers) or one per "
                                        "layer (UMT5).")
    kind_label: ClassVar[str] = "Relative position bias"
    formula: ClassVar[str] = r"0 \quad (\text{tables} \cdot \text{buckets} \cdot H \text{ parameters})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.tables * self.buckets * self.heads, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The table is added to attention scores, not to the flow: training it gives the scores a gradient
        (no multiply-accumulates) but asks nothing more of the layers' inputs."""
        return Grad(0, 0, grad_in, cost.params if trainable else 0)


class DecoderInput(LayerBase):
    """Where an encoder–decoder model's decoder starts: the encoder's output is kept as the memory its
    cross-attention reads, and the flow becomes the decoder's own ``length`` tokens, embedded with the
    shared table (``vocab_size`` None: no parameters) or a table of its own (V·d). ``width`` d: the decoder's
    width where it is not the encoder's (Llama 3.2 Vision's language model after its vision tower)."""

    type: Literal["decoder_input"] = "decoder_input"
    starts_decoder: ClassVar[bool] = True
    length: Size
    vocab_size: Size | None = None
    width: Size | None = Field(None, description="d of the decoder's tokens (default: the encoder output's width).")
    kind_label: ClassVar[str] = "Decoder input"
    formula: ClassVar[str] = r"0 \quad (\text{a table lookup})"

    def cost(self, flow: Flow) -> LayerCost:
        d, _ = sequence_dims(flow)
        d = self.width or d
        return LayerCost(Flow((d,), self.length), (self.vocab_size or 0) * d, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The decoder's tokens are new data: they need a gradient only when their table trains (the shared
        table's trainability is this layer's, as a fine-tune sets it); the encoder's gradient stays with the
        memory that cross-attention reads."""
        return Grad(0, 0, trainable, cost.params if trainable else 0)


class SpareTokenTable(LayerBase):
    """A token table the model holds and this path does not read (untied BART's ``shared``, when each stack
    embeds with a table of its own): params V·d, no arithmetic; the flow passes unchanged."""

    type: Literal["spare_token_table"] = "spare_token_table"
    vocab_size: Size
    kind_label: ClassVar[str] = "Spare token table"
    formula: ClassVar[str] = r"0 \quad (V \cdot d \text{ parameters, not read})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.vocab_size * d, 0, 0)


class ContactHead(LayerBase):
    """ESM's contact-prediction head: a logistic regression (``maps`` → 1, with a bias) over the attention maps of
    every layer and head (maps = layers × H). EsmModel holds it and only ``predict_contacts`` runs it, not the forward
    pass: maps + 1 parameters, no arithmetic, no gradient; the flow passes unchanged."""

    type: Literal["contact_head"] = "contact_head"
    maps: Size = Field(description="The attention maps it reads: layers × heads.")
    kind_label: ClassVar[str] = "Contact-prediction head (not run)"
    formula: ClassVar[str] = r"0 \quad (\text{maps} + 1 \text{ parameters, not run})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        return LayerCost(Flow((d,), length), self.maps + 1, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """Not in the forward graph: no gradient, and nothing asked of the flow (its parameters still count as
        trainable when the layer trains, as transformers' requires_grad does)."""
        return Grad(0, 0, grad_in, cost.params if trainable else 0)


class Pooler(LayerBase):
    """BERT's pooler: a dense d→d layer with tanh on the first position only (params d² + d, 2·d²)."""

    type: Literal["pooler"] = "pooler"
    kind_label: ClassVar[str] = "Pooler (first token)"
    formula: ClassVar[str] = r"2 \cdot d^2"

    def cost(self, flow: Flow) -> LayerCost:
        d, _ = sequence_dims(flow)
        params, macs, bias_adds = dense_cost(d, d, True)
        return LayerCost(Flow((d,), None), params, macs, bias_adds + ACTIVATION_FLOP["tanh"] * d)


class RelativePositionTable(LayerBase):
    """DeBERTa's relative-position embeddings: ``rows`` (2S) vectors of width d that every layer's disentangled
    attention reads (``TransformerBlock.disentangled``), with a LayerNorm over them when ``norm`` (v2's
    norm_rel_ebd; its 2d parameters exist even without a table, ``rows`` None). Params rows·d (+ 2d), no
    multiply-accumulates; the flow passes unchanged."""

    type: Literal["relative_position_table"] = "relative_position_table"
    rows: Size | None = Field(None, description="2S rows (None: the norm alone).")
    norm: bool = Field(False, description="A LayerNorm over the rows.")
    kind_label: ClassVar[str] = "Relative position table"
    formula: ClassVar[str] = r"0 \quad (2S \cdot d \text{ parameters})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        rows = self.rows or 0
        params, _, extra = layer_norm_cost(rows * d, d, True) if self.norm else (0, 0, 0)
        return LayerCost(Flow((d,), length), rows * d + params, 0, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The rows feed the blocks' position projections, not the flow (their gradients are counted there)."""
        return Grad(0, BACKWARD_EXTRA_FACTOR * cost.extra_flop if trainable else 0, grad_in,
                    cost.params if trainable else 0)


class PerLayerEmbeddings(LayerBase):
    """Gemma 4's per-layer embeddings (PLE), made once after the token embedding for the N blocks that read them
    (``TransformerBlock.per_layer_input_size`` P): a table of V_p rows of N·P (looked up, × √P), and the token
    embeddings projected d→N·P (no bias; × d^-½), normed per layer (an RMS norm of P with a gain), added to the
    looked-up rows and × 2^-½. Params V_p·N·P + d·N·P + P; forward L·d·N·P MACs; the flow passes unchanged."""

    type: Literal["per_layer_embeddings"] = "per_layer_embeddings"
    vocab_size: Size = Field(description="V_p: the table's rows.")
    blocks: Size = Field(description="N: the blocks that read a slice each.")
    size: Size = Field(description="P: each block's slice.")
    kind_label: ClassVar[str] = "Per-layer embeddings (Gemma 4)"
    formula: ClassVar[str] = r"2 L d N P"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        width = self.blocks * self.size
        norm = rms_norm_cost(self.size, self.size, True)
        # full: the table's and the projection's scalings, the norm per slice, the add and its scaling
        extra = length * (4 * width + self.blocks * norm[2])
        return LayerCost(Flow((d,), length), (self.vocab_size + d) * width + norm[0], length * d * width, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The projection's weight gradient when trained, its input gradient (into the token embeddings) when they
        need one; the flow passes on unchanged."""
        grad = product_grad(cost.macs, cost.extra_flop, cost.params, grad_in, trainable)
        return grad._replace(out=grad_in)
