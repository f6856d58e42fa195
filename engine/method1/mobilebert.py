"""MobileBERT's layer kinds (transformers' ``MobileBertLayer``, ``MobileBertEmbeddings``): the bottleneck block and the
embeddings that project a narrow token table, with its two neighbours (trigram input), to the model's width.

Symbols: L positions, d = hidden_size (the stream between blocks), b = intra_bottleneck_size (the width inside a
block when ``bottleneck``; else b = d), H heads of b/H, F = intermediate_size, N feed-forward networks per block,
E the token table's width.

NoNorm (``normalization_type`` "no_norm") is γ·x + β per element: 2 parameters per channel, as a LayerNorm's, and
in the full convention 2 FLOP per element (a LayerNorm's are counted by ``layer_norm_cost``)."""

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from .backward import parts_grad, product_grad
from .conventions import ACTIVATION_FLOP
from .layers import Flow, LayerBase, LayerCost, Part, ShapeError, Size, sequence_dims
from .ops import dense_cost, layer_norm_cost, softmax_and_scale_flop

NormKind = Literal["layer_norm", "no_norm"]


def _norm(kind: str, label: str, width: int, length: int, src: str, dst: str) -> Part:
    """A LayerNorm or NoNorm of ``width`` at ``length`` positions, in place of the data flow's ``src`` → ``dst``."""
    if kind == "no_norm":
        params, extra = 2 * width, 2 * width * length
    else:
        params, _, per = layer_norm_cost(width, width, True)
        extra = length * per
    return Part(f"{label} {'NoNorm' if kind == 'no_norm' else 'LayerNorm'}", params, 0, extra, None, "none", (src,),
                (dst,))


def _linear(label: str, n_in: int, n_out: int, length: int, src: str, dst: str, also: tuple[str, ...] = (),
            extra: int = 0, role: str = "") -> Part:
    """A biased projection N→M at ``length`` positions (+ the residual add of ``also`` in the full convention)."""
    params, macs, bias_adds = dense_cost(n_in, n_out, True)
    added = length * n_out if also else 0
    return Part(label, params, length * macs, length * bias_adds + extra + added, None, "linear", (src,), (dst,),
                also, False, 0, role, (n_in, n_out, length))



MAX_FEED_FORWARDS = 1_000
"""Feed-forward networks a bottleneck block may stack (each is three rows of its own: 10⁹ of them once held a core
for hours)."""


class BottleneckBlock(LayerBase):
    """One MobileBERT layer over a sequence [L, d], as ``MobileBertLayer`` runs it.

    With ``bottleneck`` b: the input bottleneck d→b and its norm make the block's inner residual; with
    ``shared_bottleneck`` a second d→b (and norm) feeds the queries and keys, the values read the d-wide input
    (``bottleneck_attention``: queries, keys and values all read the input bottleneck, and the shared bottleneck, if
    built, is held and not run: parameters, no FLOP). Attention: q and k b→b, v (d or b)→b, H heads of b/H, QKᵀ and AV
    H·L²·(b/H) MACs each, output b→b added to the inner residual, normed. Then N − 1 feed-forwards (b→F, activation,
    F→b, residual, norm), the last feed-forward b→F→b (residual, norm) and, with a bottleneck, the output bottleneck
    b→d added to the block's input, normed. Every projection has a bias. Without a bottleneck b = d and nothing of
    the above projects. Norms: LayerNorm or NoNorm (``norm``)."""

    type: Literal["bottleneck_block"] = "bottleneck_block"
    heads: Size = Field(description="H heads (of b/H each).")
    bottleneck: Size | None = Field(None, description="b: the width inside the block (None: no bottleneck, b = d).")
    shared_bottleneck: bool = Field(True, description="With a bottleneck: a second d→b projection feeds the queries "
                                                      "and keys (key_query_shared_bottleneck).")
    bottleneck_attention: bool = Field(False, description="With a bottleneck: queries, keys and values read the input "
                                                          "bottleneck (use_bottleneck_attention).")
    ff_size: Size = Field(description="F: each feed-forward's inner width.")
    feed_forwards: Annotated[int, Field(ge=1, le=MAX_FEED_FORWARDS)] = Field(
        1, description=f"N feed-forward networks in the block (num_feedforward_networks; MobileBERT has 4, at most "
                       f"{MAX_FEED_FORWARDS:,} here: each is its own rows).")
    activation: Literal["relu", "gelu", "silu", "sigmoid", "tanh"] = "relu"
    norm: NormKind = Field("no_norm", description="LayerNorm, or NoNorm (γ·x + β per element).")
    kind_label: ClassVar[str] = "Bottleneck block (MobileBERT)"
    formula: ClassVar[str] = r"2 L (2 d b + 3 b^2 + d b + b^2 + 2 N b F + b d) + 4 L^2 b"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = sequence_dims(flow)
        b = self.bottleneck or d
        if b % self.heads:
            raise ShapeError(f"the {self.heads} heads do not divide the block's width {b}")
        parts: list[Part] = []
        residual, qk, v_in, v_width, qk_width = "x", "x", "x", d, d
        if self.bottleneck is not None:
            parts += [_linear("input bottleneck", d, b, length, "x", "li", role="bottleneck"),
                      _norm(self.norm, "input bottleneck", b, length, "li", "li")]
            residual = "li"
            if self.bottleneck_attention:
                qk, v_in, v_width, qk_width = "li", "li", b, b
                if self.shared_bottleneck:  # built, not run by the forward pass
                    held = dense_cost(d, b, True)[0] + 2 * b
                    parts.append(Part("attention bottleneck (held, not run)", held, 0, 0, None, "none", (), ()))
            elif self.shared_bottleneck:
                parts += [_linear("attention bottleneck", d, b, length, "x", "sa", role="bottleneck"),
                          _norm(self.norm, "attention bottleneck", b, length, "sa", "sa")]
                qk, qk_width = "sa", b
            elif b != d:
                raise ShapeError(f"queries and keys read the d = {d} wide input through b = {b} wide projections "
                                 "(use a shared bottleneck or bottleneck attention)")
        q = b // self.heads
        pairs = length * length
        parts += [_linear("attention q projection", qk_width, b, length, qk, "q", role="q"),
                  _linear("attention k projection", qk_width, b, length, qk, "k", role="k"),
                  _linear("attention v projection", v_width, b, length, v_in, "v", role="v"),
                  Part("attention scores QKᵀ", 0, self.heads * pairs * q, softmax_and_scale_flop(self.heads * pairs),
                       None, "product", ("q", "k"), ("s",)),
                  Part("attention values AV", 0, self.heads * pairs * q, 0, None, "product", ("s", "v"), ("a",)),
                  _linear("attention output", b, b, length, "a", "h", also=(residual,), role="o"),
                  _norm(self.norm, "attention output", b, length, "h", "h")]
        act = ACTIVATION_FLOP[self.activation]
        for i in range(self.feed_forwards):
            label = f"feed-forward {i + 1}" if self.feed_forwards > 1 else "feed-forward"
            last = i == self.feed_forwards - 1
            out = "o" if last and self.bottleneck is not None else ("x" if last else "h")
            parts += [_linear(f"{label} up", b, self.ff_size, length, "h", "u", extra=act * length * self.ff_size,
                              role="up"),
                      _linear(f"{label} down", self.ff_size, b, length, "u", out, also=("h",), role="down"),
                      _norm(self.norm, label, b, length, out, out)]
        if self.bottleneck is not None:
            parts += [_linear("output bottleneck", b, d, length, "o", "x", also=("x",), role="bottleneck"),
                      _norm(self.norm, "output bottleneck", d, length, "x", "x")]
        return LayerCost(Flow((d,), length), sum(p.params for p in parts), sum(p.macs for p in parts),
                         sum(p.extra_flop for p in parts), None, tuple(parts))

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The parts' data flow (``engine.method1.backward.parts_grad``); a bottleneck held and not run gets no
        gradient (its parameters still count as trainable, as transformers' requires_grad does)."""
        return parts_grad(cost.parts, grad_in, trainable, memory_grad)


class MobileBertEmbeddings(LayerBase):
    """MobileBERT's embeddings after its token table of width E (the flow): with ``trigram`` each position's token
    embedding and its two neighbours' (zero past the ends) concatenated, 3E, projected 3E→d with a bias; without, E→d
    when E ≠ d (E = d: the projection is built and not run: parameters, no FLOP); then a learned position table of P
    rows and a token-type table of T rows (d wide) added, and a LayerNorm or NoNorm of d."""

    type: Literal["mobilebert_embeddings"] = "mobilebert_embeddings"
    d_model: Size = Field(description="d: the width it projects to.")
    trigram: bool = Field(True, description="Concatenate each token's neighbours (3E wide) before the projection.")
    max_positions: Size = Field(description="P: the position table's rows.")
    types: Size = Field(description="T: the token-type table's rows.")
    norm: NormKind = "no_norm"
    kind_label: ClassVar[str] = "MobileBERT embeddings"
    formula: ClassVar[str] = r"2 L (3 E) d"

    def cost(self, flow: Flow) -> LayerCost:
        e, length = sequence_dims(flow)
        d = self.d_model
        if length > self.max_positions:
            raise ShapeError(f"sequence length {length} is longer than the {self.max_positions} learned positions")
        width = 3 * e if self.trigram else e
        params, macs, bias_adds = dense_cost(width, d, True)
        runs = self.trigram or e != d
        norm = _norm(self.norm, "embedding", d, length, "x", "x")
        params += (self.max_positions + self.types) * d + norm.params
        # full: the bias, the two table adds, the norm
        extra = (length * bias_adds if runs else 0) + 2 * length * d + norm.extra_flop
        return LayerCost(Flow((d,), length), params, length * macs if runs else 0, extra)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The projection's weight gradient when trained (none when it is not run), its input gradient into the token
        table when that needs one."""
        grad = product_grad(cost.macs, cost.extra_flop, cost.params, grad_in and cost.macs > 0, trainable)
        return grad._replace(out=grad_in or trainable)


MOBILEBERT_KINDS: tuple[type[LayerBase], ...] = (BottleneckBlock, MobileBertEmbeddings)
"""Registered in ``engine.method1.kinds``."""
