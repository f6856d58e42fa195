"""Transformer layer kinds: the block, RMSNorm, a learned position table and the LM head.

Symbols (Kaplan 2020; PaLM App. B): L positions in a sequence, d = d_model (the input width),
H query heads, H_kv key/value heads, Q head size, F feed-forward size, E experts, k active experts
per token, V vocabulary, M positions of an encoder memory (cross-attention).

Counting, ``matmul`` convention (what ``FlopCounterMode`` counts): the projections are ``Dense``
layers run at every position; QKᵀ and AV are H·L²·Q multiply-accumulates each. A causal mask does
not change that count: the masked scores are computed and discarded, as ``FlopCounterMode`` and
PaLM's 12·L·H·Q·T count them. ``causal_count="half"`` counts only the unmasked query–key pairs
instead (what kernels that skip masked blocks do): the L(L+1)/2 of the causal triangle, which is what
Kaplan's 2·n_layer·n_ctx·d_attn amounts to, or, with a sliding window of W positions (Mistral),
W(W+1)/2 + (L − W)·W.
"""
from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from engine.method1.backward import DEFAULT_LORA_TARGETS, Grad, LoRA, lora_cost, parts_grad, product_grad
from engine.method1.conventions import ACTIVATION_FLOP
from engine.errors import InputError
from engine.method1.ops import (  # noqa: F401 (RMS constants re-exported)
    RMS_NORM_FLOP_PER_ELEMENT,
    RMS_NORM_GAIN_FLOP_PER_ELEMENT,
    dense_cost,
    layer_norm_cost,
    prod,
    rms_norm_cost,
    softmax_and_scale_flop,
)
from engine.method1.layers import Flow, LayerBase, LayerCost, Part, ShapeError, Size, as_sequence

BlockActivation = Literal["relu", "gelu", "silu", "sigmoid", "tanh"]


def unmasked_pairs(length: int, window: int | None = None) -> int:
    """Query–key pairs a causal mask keeps: query i sees keys max(0, i − W + 1) … i, i.e. min(i + 1, W) of
    them; Σ = L(L+1)/2 without a window (or W ≥ L), W(W+1)/2 + (L − W)·W with one."""
    if window is None or window >= length:
        return length * (length + 1) // 2
    return window * (window + 1) // 2 + (length - window) * window


def _sequence(flow: Flow) -> tuple[int, int]:
    """(d, L) of a sequence of vectors, or a ``ShapeError``."""
    flow = as_sequence(flow)
    if flow.steps is None or len(flow.item) != 1:
        raise ShapeError(f"needs a sequence of vectors [L, d], got {flow.describe()}; "
                         "set input.sequence_length")
    return flow.item[0], flow.steps


def _linear(name: str, n_in: int, n_out: int, bias: bool, positions: int, extra_flop: int = 0, *,
            src: tuple[str, ...] = ("h",), dst: tuple[str, ...] = ("x",), also: tuple[str, ...] = (),
            role: str = "") -> Part:
    """A projection N→M at each of ``positions``, costed as the ``Dense`` kind costs it; ``src``, ``dst``,
    ``also`` and ``role`` place it in the block's data flow (``engine.method1.backward.parts_grad``)."""
    params, macs, bias_adds = dense_cost(n_in, n_out, bias)
    return Part(name, params, positions * macs, positions * bias_adds + extra_flop, None, "linear", src, dst, also,
                False, 0, role, (n_in, n_out, positions))


def _shape_of(part: Part) -> tuple[int, int, int]:
    return part.dims


def _adapter(part: Part, n_in: int, n_out: int, positions: int, rank: int, copies: int = 1, active: int = 1,
             dst: tuple[str, ...] | None = None) -> Part:
    """A LoRA adapter of rank r beside ``part`` (N→M at ``positions``): r·(N + M) params (× ``copies``
    experts, ``active`` of which run), A and B at every position, its output added to the part's
    (full: scale and add, 2·M per position)."""
    params, a, b = lora_cost(n_in, n_out, rank)
    dst = part.dst if dst is None else dst
    return Part(f"{part.name} LoRA", copies * params, positions * (a + b), 2 * positions * n_out,
                active * params if copies > 1 else None, "lora", part.src, dst, dst, False, positions * a, "lora",
                (n_in, n_out, positions))


def _scaled(part: Part, copies: int, active: int) -> Part:
    """``copies`` experts of which ``active`` run: params × E, active params × k."""
    return part._replace(params=copies * part.params, active_params=active * part.params,
                         role=f"experts {part.role}")


class RMSNorm(LayerBase):
    """x / √(mean(x²) + ε) · γ over the last axis (Zhang & Sennrich 2019): params d with the gain γ."""

    type: Literal["rms_norm"] = "rms_norm"
    affine: bool = True
    kind_label: ClassVar[str] = "RMS norm"
    formula: ClassVar[str] = r"0 \quad (\text{full: } 4 \text{ per element})"

    def item_cost(self, item):
        return (item, *rms_norm_cost(prod(item), item[-1], self.affine))


class PositionEmbedding(LayerBase):
    """A learned table of P positions × d (GPT-2's ``wpe``), added to the token embeddings:
    params P·d, no multiply-accumulates (full: one add per element)."""

    type: Literal["position_embedding"] = "position_embedding"
    max_positions: Size
    kind_label: ClassVar[str] = "Position embedding"
    formula: ClassVar[str] = r"0 \quad (P \cdot d \text{ parameters; full: } L \cdot d \text{ adds})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = _sequence(flow)
        if length > self.max_positions:
            raise ShapeError(f"sequence length {length} is longer than the {self.max_positions} learned positions")
        return LayerCost(Flow((d,), length), self.max_positions * d, 0, length * d)


class LMHead(LayerBase):
    """Logits over the vocabulary at every position: d → V, 2·d·V per position.

    ``tied``: the weights are the token embedding's (its V·d parameters are counted there), so
    the head adds no weight parameters, but its FLOP are counted all the same."""

    type: Literal["lm_head"] = "lm_head"
    vocab_size: Size
    tied: bool = False
    bias: bool = False
    kind_label: ClassVar[str] = "LM head"
    formula: ClassVar[str] = r"2 \cdot d \cdot V \text{ per position}"

    def item_cost(self, item):
        out = (self.vocab_size,)
        params, macs, extra = dense_cost(self._vector(item), self.vocab_size, self.bias)
        if self.tied:
            params = self.vocab_size if self.bias else 0
        return out, params, macs, extra

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """A tied head has weights all the same (the embedding's table): trained when the head is."""
        return product_grad(cost.macs, cost.extra_flop, cost.params, grad_in, trainable, has_weights=True)


class TransformerBlock(LayerBase):
    """One transformer layer over a sequence [L, d]: attention, then a feed-forward network.

    Attention: q (d→H·Q), k and v (d→H_kv·Q each; H_kv = H multi-head, 1 multi-query, between:
    grouped-query), QKᵀ and AV (H·L²·Q MACs each), output (H·Q→d). Feed-forward: up d→F and down
    F→d; ``gated`` (SwiGLU, GeGLU) adds a gate d→F, act(gate)·up. Mixture of experts: a router d→E
    (no bias unless ``router_bias``) and E expert feed-forwards, k of which run per token;
    ``active_params`` counts k. ``shared_ff_size`` F_s: a shared expert every token runs (DeepSeek,
    Qwen2-MoE), with a sigmoid gate d→1 when ``shared_expert_gate`` (Qwen2-MoE).

    Multi-head latent attention (DeepSeek-V2/V3, ``kv_lora_rank`` c set): queries d→H·(Q+R) directly
    or through a rank-``q_lora_rank`` bottleneck (d→c_q, norm, c_q→H·(Q+R)); keys and values from one
    latent d→c+R (R = ``rope_head_size``, a rotary key shared by the heads), norm, c→H·(Q+V)
    (V = ``value_head_size``); QKᵀ over Q+R per head, AV over V, output H·V→d.

    ``causal`` (decoder-only, the GPT/LLaMA block) vs not (encoder, BERT): the same count unless
    ``causal_count="half"``; ``attention_window`` W (sliding-window attention, Mistral) narrows what the
    mask keeps, and so counts only with ``causal_count="half"``. ``cross_attention_length`` M: a decoder block of an encoder-decoder
    model, with cross-attention over an encoder memory of M positions of width d (the encoder's own
    cost is counted in its own layers). ``parallel``: attention and feed-forward read the same input
    (GPT-J, GPT-NeoX, PaLM), with one ``shared_norm`` (GPT-J, PaLM) or a norm each.

    Norms: ``norm`` kind, with γ (``norm_affine``) and, for LayerNorm, β (``norm_bias``); placed before
    each sub-layer (``pre``), after its residual add (``post``, BERT) or on its output before the add
    (``output``, OLMo 2); ``sandwich_norms`` adds a norm on each sub-layer's output to the pre-norms
    (Gemma 2/3). ``qk_norm``: a norm of the queries and keys, per head (``head``: γ of Q, Qwen3, Gemma 3)
    or over the whole projection (``width``: γ of H·Q and H_kv·Q, OLMo 2). ``attention_sinks``: one
    learned logit per head (GPT-OSS), H parameters and no multiply-accumulates.

    Full convention extras, in the row where they happen: bias adds; 1/√Q scaling and softmax per
    score (scores row); activation and gating product (gate or up row); norms; residual adds (output
    and down rows); router softmax and the weighted sum of the k expert outputs. Not counted:
    dropout, rotary or ALiBi position terms, masking, top-k selection.
    """

    type: Literal["transformer_block"] = "transformer_block"
    heads: Size = Field(description="H query heads.")
    kv_heads: Size | None = Field(None, description="H_kv key/value heads (default H; 1 = multi-query).")
    head_size: Size | None = Field(None, description="Q (default d_model / H).")
    ff_size: Size | None = Field(None, description="F (default 4·d_model); per expert with experts.")
    gated: bool = Field(False, description="Gated feed-forward (SwiGLU/GeGLU): gate, up, down matrices.")
    activation: BlockActivation = "gelu"
    causal: bool = Field(True, description="Causal self-attention (decoder); false for an encoder block.")
    causal_count: Literal["full", "half"] = Field(
        "full", description="full: all L² scores, as FlopCounterMode; half: only the unmasked ones, "
                            "L(L+1)/2 (within the window, if any).")
    attention_window: Size | None = Field(
        None, description="W: sliding-window attention, each query sees the last W positions, itself "
                          "included (Mistral's sliding_window); counted with causal_count 'half'.")
    cross_attention_length: Size | None = Field(None, description="M encoder positions for cross-attention.")
    norm: Literal["layernorm", "rmsnorm"] = "layernorm"
    norm_position: Literal["pre", "post", "output"] = "pre"
    norm_affine: bool = Field(True, description="The norms have a learned gain γ (OLMo's have none).")
    norm_bias: bool = Field(True, description="LayerNorm's β (MPT's norms have none).")
    sandwich_norms: bool = Field(False, description="A norm on each sub-layer's output too (Gemma 2/3).")
    qk_norm: Literal["none", "head", "width"] = "none"
    parallel: bool = False
    shared_norm: bool = False
    qkv_bias: bool = True
    out_bias: bool = True
    ff_bias: bool = True
    attention_sinks: bool = Field(False, description="A learned sink logit per head (GPT-OSS).")
    kv_lora_rank: Size | None = Field(None, description="c: latent attention's key/value rank (DeepSeek).")
    q_lora_rank: Size | None = Field(None, description="c_q: latent attention's query rank (None: direct).")
    rope_head_size: Size | None = Field(None, description="R: latent attention's rotary part per head.")
    value_head_size: Size | None = Field(None, description="V: latent attention's value size per head.")
    experts: Size = Field(1, description="E feed-forward experts (1 = dense).")
    active_experts: Size = Field(1, description="k experts per token.")
    router_bias: bool = False
    shared_ff_size: Size | None = Field(None, description="F_s: a shared expert every token runs.")
    shared_expert_gate: bool = Field(False, description="A sigmoid gate d→1 on the shared expert (Qwen2-MoE).")
    lora: LoRA | None = Field(None, description="LoRA adapters of rank r on the ``targets`` projections (q, k, v, "
                                                "o, gate, up, down, experts; default q, v); those weights frozen.")
    kind_label: ClassVar[str] = "Transformer block"
    formula: ClassVar[str] = (r"2 L d (H + 2 H_{kv}) Q + 4 H L^2 Q + 2 L H Q d + 2 k L \, n_{ff} \, d F "
                              r"+ 2 L d E \quad (n_{ff} = 2, \text{ gated } 3)")

    @model_validator(mode="after")
    def _consistent(self):
        h_kv = self.kv_heads or self.heads
        if self.heads % h_kv:
            raise InputError("kv_heads", f"kv_heads {h_kv} must divide heads {self.heads} (each key/value "
                                              "head serves a whole group of query heads)")
        if self.active_experts > self.experts:
            raise InputError("active_experts", f"active_experts {self.active_experts} is more than "
                                                    f"experts {self.experts}")
        if self.causal_count == "half" and not self.causal:
            raise InputError("causal_count", "causal_count 'half' needs causal attention")
        if self.attention_window and not self.causal:
            raise InputError("attention_window", "a sliding window is modelled for causal attention only")
        if self.shared_norm and not self.parallel:
            raise InputError("shared_norm", "shared_norm needs parallel attention and feed-forward")
        if self.parallel and (self.norm_position != "pre" or self.cross_attention_length or self.sandwich_norms):
            raise InputError("parallel", "parallel blocks are pre-norm decoder-only blocks "
                                              "(no post-norm, no cross-attention)")
        if self.kv_lora_rank is not None:
            if self.rope_head_size is None or self.value_head_size is None:
                raise InputError("kv_lora_rank", "latent attention needs rope_head_size and value_head_size")
            if self.cross_attention_length or self.qk_norm != "none":
                raise InputError("kv_lora_rank", "latent attention is modelled for self-attention without qk_norm")
        elif self.q_lora_rank is not None or self.rope_head_size is not None or self.value_head_size is not None:
            raise InputError("kv_lora_rank", "q_lora_rank, rope_head_size and value_head_size belong to "
                                             "latent attention (set kv_lora_rank)")
        if self.experts == 1 and (self.shared_ff_size or self.router_bias or self.shared_expert_gate):
            raise InputError("experts", "shared experts and router biases need experts > 1")
        if self.shared_expert_gate and not self.shared_ff_size:
            raise InputError("shared_expert_gate", "a shared-expert gate needs shared_ff_size")
        if self.lora is not None:
            targets = self.lora_targets
            if "experts" in targets and self.experts == 1:
                raise InputError("lora.targets", "'experts' needs a mixture-of-experts block (experts > 1)")
            if "gate" in targets and not self.gated and not self.shared_ff_size:
                raise InputError("lora.targets", "'gate' needs a gated feed-forward (gated: true)")
        return self

    @property
    def lora_targets(self) -> tuple[str, ...]:
        """The projections LoRA adapts (none without ``lora``)."""
        if self.lora is None:
            return ()
        return self.lora.targets if self.lora.targets is not None else DEFAULT_LORA_TARGETS

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        """(H, H_kv, Q) for d_model d."""
        if self.head_size is None and d % self.heads:
            raise ShapeError(f"head size d/H = {d}/{self.heads} is not an integer; set head_size")
        return self.heads, self.kv_heads or self.heads, self.head_size or d // self.heads

    def cost(self, flow: Flow) -> LayerCost:
        """The parts in order, wired as a data flow: the block's input ``x`` (the residual stream), a sub-layer's
        input ``h`` (its norm's output, or ``x`` itself post-norm), its output added back into ``x``."""
        d, length = _sequence(flow)
        half = self.causal_count == "half"
        pre = self.norm_position == "pre"
        into_stream = not self.sandwich_norms and self.norm_position != "output"  # the last row adds into x
        read = "h" if pre else "x"
        attention = self._attention("attention", d, length, length, half, self.attention_window if half else None,
                                    read, "x")
        if self.parallel:  # both read the same normed x; the feed-forward's last row adds both into x
            attention[-1] = attention[-1]._replace(dst=("o",), also=())
            h_ff = "h" if self.shared_norm else "h2"
            feed_forward = [p._replace(src=tuple(h_ff if s == "h" else s for s in p.src))
                            for p in self._feed_forward(d, length)]
            feed_forward[-1] = feed_forward[-1]._replace(also=feed_forward[-1].also + ("o",))
            norms = [self._norm("shared", d, length)] if self.shared_norm else \
                [self._norm("attention", d, length), self._norm("feed-forward", d, length, dst="h2")]
            parts = norms[:1] + attention + norms[1:] + feed_forward
        else:
            sub_layers = [("attention", attention)]
            if self.cross_attention_length:
                sub_layers.append(("cross-attention",
                                   self._attention("cross-attention", d, length, self.cross_attention_length,
                                                   False, None, read, "m")))
            sub_layers.append(("feed-forward", self._feed_forward(d, length, read)))
            parts = []
            for label, rows in sub_layers:
                if not into_stream:  # a norm on the sub-layer's output comes before the residual add
                    rows[-1] = rows[-1]._replace(dst=("o",), also=tuple(a for a in rows[-1].also if a != "x"))
                if pre:
                    parts += [self._norm(label, d, length)] + rows
                elif self.norm_position == "post":  # the norm of the sum, in place
                    parts += rows + [self._norm(label, d, length, src="x", dst="x")]
                else:  # output: norm(o) added into x
                    parts += rows + [self._norm(label, d, length, src="o", dst="x", also=("x",))]
                if self.sandwich_norms:
                    parts.append(self._norm(f"{label} output", d, length, src="o", dst="x", also=("x",)))
        parts = self._adapted(parts, d, length)
        params = sum(p.params for p in parts)
        moe = self.experts > 1
        active = sum(p.params if p.active_params is None else p.active_params for p in parts) if moe else None
        return LayerCost(Flow((d,), length), params, sum(p.macs for p in parts),
                         sum(p.extra_flop for p in parts), active, tuple(parts))

    # ------------------------------------------------------------ sub-layers

    def norm_cost(self, width: int, positions: int) -> tuple[int, int]:
        """(params, full-convention FLOP) of one of this block's norms over ``positions`` vectors of ``width``."""
        if self.norm == "layernorm":
            params, _, extra = layer_norm_cost(width, width, self.norm_affine, self.norm_bias)
        else:
            params, _, extra = rms_norm_cost(width, width, self.norm_affine)
        return params, positions * extra

    def _norm(self, label: str, d: int, length: int, *, src: str = "x", dst: str = "h",
              also: tuple[str, ...] = ()) -> Part:
        params, extra = self.norm_cost(d, length)
        return Part(f"{label} norm", params, 0, extra, None, "none", (src,), (dst,), also)

    def _attention(self, label: str, d: int, length: int, memory: int, half: bool,
                   window: int | None, read: str = "h", kv_read: str = "x") -> list[Part]:
        """Queries from the L positions, keys and values from ``memory`` positions (L for self-attention);
        ``half``: only the pairs the causal mask keeps (``unmasked_pairs``, within ``window``). ``read``: what
        the queries (and, for self-attention, the keys and values) read; ``kv_read`` "m": an encoder memory."""
        h, h_kv, q = self.attention_sizes(d)
        pairs = unmasked_pairs(length, window) if half else length * memory
        if self.kv_lora_rank is not None:
            return self._latent_attention(label, d, length, pairs, read)
        kv_src = ("m",) if kv_read == "m" else (read,)
        sinks = h if self.attention_sinks else 0
        parts = [
            _linear(f"{label} q projection", d, h * q, self.qkv_bias, length, src=(read,), dst=("q",), role="q"),
            _linear(f"{label} k/v projections", d, 2 * h_kv * q, self.qkv_bias, memory, src=kv_src, dst=("k", "v"),
                    role="kv"),
        ]
        if self.qk_norm != "none":
            q_params, q_flop = self.norm_cost(q if self.qk_norm == "head" else h * q, 1)
            k_params, k_flop = self.norm_cost(q if self.qk_norm == "head" else h_kv * q, 1)
            per_head = self.qk_norm == "head"
            parts.append(Part(f"{label} q/k norms", q_params + k_params, 0,
                              length * q_flop * (h if per_head else 1) + memory * k_flop * (h_kv if per_head else 1),
                              None, "none", ("q", "k"), ("q", "k")))
        return parts + [
            Part(f"{label} scores QKᵀ", sinks, h * pairs * q, softmax_and_scale_flop(h * pairs), None, "product",
                 ("q", "k"), ("s",)),
            Part(f"{label} values AV", 0, h * pairs * q, 0, None, "product", ("s", "v"), ("a",)),
            _linear(f"{label} output projection", h * q, d, self.out_bias, length,
                    extra_flop=length * d, src=("a",), dst=("x",), also=("x",), role="o"),  # + the residual add
        ]

    def _latent_attention(self, label: str, d: int, length: int, pairs: int, read: str = "h") -> list[Part]:
        """DeepSeek's multi-head latent attention, as ``DeepseekV3Attention`` computes it (keys and values
        decompressed from the latent for every position)."""
        h, _, q = self.attention_sizes(d)
        r, v, c = self.rope_head_size, self.value_head_size, self.kv_lora_rank
        qk = q + r
        parts = []
        if self.q_lora_rank:
            cq = self.q_lora_rank
            norm_params, norm_flop = self.norm_cost(cq, length)
            parts += [_linear(f"{label} q down-projection", d, cq, self.qkv_bias, length, src=(read,), dst=("qa",)),
                      Part(f"{label} q latent norm", norm_params, 0, norm_flop, None, "none", ("qa",), ("qa",)),
                      _linear(f"{label} q up-projection", cq, h * qk, False, length, src=("qa",), dst=("q",))]
        else:
            parts.append(_linear(f"{label} q projection", d, h * qk, False, length, src=(read,), dst=("q",)))
        norm_params, norm_flop = self.norm_cost(c, length)
        return parts + [
            _linear(f"{label} kv down-projection", d, c + r, self.qkv_bias, length, src=(read,), dst=("ka",)),
            Part(f"{label} kv latent norm", norm_params, 0, norm_flop, None, "none", ("ka",), ("kn",)),
            _linear(f"{label} kv up-projection", c, h * (q + v), False, length, src=("kn",), dst=("k", "v"),
                    also=("ka",)),  # the rotary key comes straight from the down-projection
            Part(f"{label} scores QKᵀ", 0, h * pairs * qk, softmax_and_scale_flop(h * pairs), None, "product",
                 ("q", "k"), ("s",)),
            Part(f"{label} values AV", 0, h * pairs * v, 0, None, "product", ("s", "v"), ("a",)),
            _linear(f"{label} output projection", h * v, d, self.out_bias, length, extra_flop=length * d,
                    src=("a",), dst=("x",), also=("x",)),
        ]

    def _mlp(self, label: str, d: int, f: int, tokens: int, bias: bool, read: str = "h",
             out: str = "x") -> list[Part]:
        """up (and gate) d→F, down F→d at ``tokens`` positions; act(gate)·up or act(up) in the full count.
        The down projection reads act(gate)·up and adds into ``out``."""
        act = ACTIVATION_FLOP[self.activation]
        up = _linear(f"{label} up", d, f, bias, tokens, src=(read,), dst=("u",), role="up")
        parts = []
        if self.gated:
            parts.append(_linear(f"{label} gate", d, f, bias, tokens, extra_flop=(act + 1) * tokens * f,
                                 src=(read,), dst=("g",), role="gate"))
        else:
            up = up._replace(extra_flop=up.extra_flop + act * tokens * f)
        down_src = ("g", "u") if self.gated else ("u",)
        return parts + [up, _linear(f"{label} down", f, d, bias, tokens, src=down_src, dst=(out,),
                                    also=(out,), role="down")]

    def _feed_forward(self, d: int, length: int, read: str = "h") -> list[Part]:
        f = self.ff_size or 4 * d
        e, k = self.experts, self.active_experts
        moe = e > 1
        label = "experts" if moe else "feed-forward"
        parts = self._mlp(label, d, f, length * k, self.ff_bias, read)  # token–expert pairs: k experts per token
        # + the residual add; with experts, the k outputs weighted and summed: k multiplies, k−1 adds
        combine = (2 * k - 1) * length * d if moe else 0
        parts[-1] = parts[-1]._replace(extra_flop=parts[-1].extra_flop + length * d + combine)
        if not moe:
            return parts
        router = _linear("router", d, e, self.router_bias, length, src=(read,), dst=("r",), role="router")
        router = router._replace(extra_flop=router.extra_flop + ACTIVATION_FLOP["softmax"] * length * e)
        parts = [router] + [_scaled(p, e, k) for p in parts]
        parts[-1] = parts[-1]._replace(also=parts[-1].also + ("r",))  # the router's weights scale the outputs
        if self.shared_ff_size:
            shared_out = "sd" if self.shared_expert_gate else "x"
            shared = [p._replace(role=f"shared {p.role}")
                      for p in self._mlp("shared expert", d, self.shared_ff_size, length, False, read, shared_out)]
            shared[-1] = shared[-1]._replace(extra_flop=shared[-1].extra_flop + length * d)  # + the routed output
            if self.shared_expert_gate:  # sigmoid(x·w) scales the shared expert's output
                shared[-1] = shared[-1]._replace(also=())
                gate = _linear("shared expert gate", d, 1, False, length, src=(read,), dst=("x",), also=("x", "sd"),
                               role="shared expert gate")
                shared.append(gate._replace(extra_flop=gate.extra_flop + (ACTIVATION_FLOP["sigmoid"] + d) * length))
            parts += shared
        return parts

    # ------------------------------------------------------------ LoRA and the backward pass

    def _adapted(self, parts: list[Part], d: int, length: int) -> list[Part]:
        """With ``lora``: each targeted projection frozen and followed by its adapter (a fused k/v projection
        with only one of them targeted is split in two rows). Targets: q, k, v, o (self- and cross-attention),
        gate, up, down (the dense or shared feed-forward), experts (every routed expert's gate, up and down)."""
        targets = self.lora_targets
        if not targets:
            return parts
        r, k_active = self.lora.rank, self.active_experts
        out: list[Part] = []
        for p in parts:
            role = p.role
            n_in, n_out, positions = _shape_of(p)
            if role == "kv" and ("k" in targets) != ("v" in targets):
                half_params, half_macs, half_extra = p.params // 2, p.macs // 2, p.extra_flop // 2
                base = p.name.replace("k/v projections", "")
                for which in ("k", "v"):
                    one = p._replace(name=f"{base}{which} projection", params=half_params, macs=half_macs,
                                     extra_flop=half_extra, dst=(which,), role=which)
                    if which in targets:
                        one = one._replace(frozen=True)
                        out += [one, _adapter(one, n_in, n_out // 2, positions, r)]
                    else:
                        out.append(one)
                continue
            if role == "kv" and "k" in targets:  # both
                out += [p._replace(frozen=True), _adapter(p._replace(dst=("k",)), n_in, n_out // 2, positions, r),
                        _adapter(p._replace(dst=("v",)), n_in, n_out // 2, positions, r)]
                out[-2] = out[-2]._replace(name=p.name.replace("k/v projections", "k projection LoRA"))
                out[-1] = out[-1]._replace(name=p.name.replace("k/v projections", "v projection LoRA"))
                continue
            expert = role.startswith("experts ")
            name = role.split(" ", 1)[-1] if role.startswith(("experts ", "shared ")) else role
            hit = ("experts" in targets) if expert else (name in targets and name in ("q", "o", "gate", "up", "down"))
            if not hit:
                out.append(p)
                continue
            frozen = p._replace(frozen=True)
            if expert:
                e = self.experts
                out += [frozen, _adapter(p, n_in, n_out, positions, r, e, k_active)]
            else:
                out += [frozen, _adapter(p, n_in, n_out, positions, r, dst=p.dst)]
        return out

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The parts' data flow (``engine.method1.backward.parts_grad``)."""
        return parts_grad(cost.parts, grad_in, trainable, memory_grad)


class TokenTypeEmbedding(LayerBase):
    """BERT's segment table: ``types`` rows × d, looked up and added at every position (params types·d,
    no multiply-accumulates; full: one add per element)."""

    type: Literal["token_type_embedding"] = "token_type_embedding"
    types: Size
    kind_label: ClassVar[str] = "Token-type embedding"
    formula: ClassVar[str] = r"0 \quad (\text{types} \cdot d \text{ parameters; full: } L \cdot d \text{ adds})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = _sequence(flow)
        return LayerCost(Flow((d,), length), self.types * d, 0, length * d)


class RelativePositionBias(LayerBase):
    """T5's relative attention bias: a table of ``buckets`` × H scalars added to the attention scores of
    a stack (computed in its first layer, shared by the others): params buckets·H, no multiply-accumulates."""

    type: Literal["relative_position_bias"] = "relative_position_bias"
    buckets: Size
    heads: Size
    kind_label: ClassVar[str] = "Relative position bias"
    formula: ClassVar[str] = r"0 \quad (\text{buckets} \cdot H \text{ parameters})"

    def cost(self, flow: Flow) -> LayerCost:
        d, length = _sequence(flow)
        return LayerCost(Flow((d,), length), self.buckets * self.heads, 0, 0)

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The table is added to attention scores, not to the flow: training it gives the scores a gradient
        (no multiply-accumulates) but asks nothing more of the layers' inputs."""
        return Grad(0, 0, grad_in, cost.params if trainable else 0)


class DecoderInput(LayerBase):
    """Where an encoder–decoder model's decoder starts: the encoder's output is kept as the memory its
    cross-attention reads, and the flow becomes the decoder's own ``length`` tokens, embedded with the
    shared table (``vocab_size`` None: no parameters) or a table of its own (V·d)."""

    type: Literal["decoder_input"] = "decoder_input"
    length: Size
    vocab_size: Size | None = None
    kind_label: ClassVar[str] = "Decoder input"
    formula: ClassVar[str] = r"0 \quad (\text{a table lookup})"

    def cost(self, flow: Flow) -> LayerCost:
        d, _ = _sequence(flow)
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
        d, length = _sequence(flow)
        return LayerCost(Flow((d,), length), self.vocab_size * d, 0, 0)


class Pooler(LayerBase):
    """BERT's pooler: a dense d→d layer with tanh on the first position only (params d² + d, 2·d²)."""

    type: Literal["pooler"] = "pooler"
    kind_label: ClassVar[str] = "Pooler (first token)"
    formula: ClassVar[str] = r"2 \cdot d^2"

    def cost(self, flow: Flow) -> LayerCost:
        d, _ = _sequence(flow)
        params, macs, bias_adds = dense_cost(d, d, True)
        return LayerCost(Flow((d,), None), params, macs, bias_adds + ACTIVATION_FLOP["tanh"] * d)


TRANSFORMER_KINDS: tuple[type[LayerBase], ...] = (TransformerBlock, RMSNorm, PositionEmbedding, LMHead,
                                                  TokenTypeEmbedding, RelativePositionBias, DecoderInput, Pooler,
                                                  SpareTokenTable)
"""Registered in ``engine.method1.kinds``."""
