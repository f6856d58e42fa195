"""The transformer block: a mixer (``mixers``: attention, latent attention, Mamba…), a feed-forward
(``feed_forward``: dense or gated, experts), its norms (``norms``) and the few fields that belong to the block as a
whole (parallel sub-layers, cross-attention, residual scales, hyper-connections, LoRA, shared weights, Gemma's and
DeBERTa's extras). Each part checks itself; ``TransformerBlock`` checks how they combine and wires their rows.

Symbols (Kaplan 2020; PaLM App. B): L positions in a sequence, d = d_model (the input width), H query heads, H_kv
key/value heads, Q head size, F feed-forward size, E experts, k active experts per token, M positions of an encoder
memory (cross-attention).
"""

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from . import attention as attention_rows
from . import compressed
from . import extras
from ...errors import InputError
from ..backward import DEFAULT_LORA_TARGETS, LoRA, parts_grad
from ..layers import (
    Flow,
    LayerBase,
    LayerCost,
    ShapeError,
    Size,
    sequence_dims,
)
from .extras import InputConvolution
from .feed_forward import FeedForward
from .lora import adapted, lora_target_refusal
from .mixers import ATTENTION_KINDS, Mixer
from .norms import BlockNorms

SEQUENTIAL_PRE_NORM = ("mamba", "mamba2", "gated_deltanet", "short_conv", "lightning", "compressed", "none")
"""The mixers modelled only in pre-norm sequential blocks without cross-attention."""


class HyperConnections(BaseModel):
    """DeepSeek-V4's manifold-constrained hyper-connections: N residual streams of d mixed around each sub-layer
    (weights N·d → (2+N)·N, comb × streams N²·d per position); ``independent`` (HY-V4): weights N·d → 2·N (pre and
    post, no comb matrix, no Sinkhorn), the streams added back as they are
    (``engine.method1.transformer.compressed``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    streams: Size = Field(description="N residual streams.")
    independent: bool = Field(False, description="HY-V4's independent hyper-connections.")
    sinkhorn_iterations: int = Field(20, ge=0, le=1000, description="Sinkhorn rounds of the comb matrix (full "
                                                                    "convention only).")


class TransformerBlock(LayerBase):
    """One transformer layer over a sequence [L, d]: its ``mixer``, then its ``feed_forward`` (None: none, as in
    Mamba's blocks), with ``norms``.

    ``parallel``: mixer and feed-forward read the same input (GPT-J, GPT-NeoX, PaLM), with one shared norm or a norm
    each. ``cross_attention_length`` M: a decoder block of an encoder-decoder model, with cross-attention over an
    encoder memory of M positions of width d (the mixer's heads and biases; the encoder's cost is counted in its
    own layers); ``idle_cross_attention`` C: a cross-attention held and not run (Whisper's and TrOCR's decoders as
    causal LMs). ``residual_scales``: each sub-layer's residual add is α·residual + β·output (MiniMax; the ``full``
    convention counts the two products, 2·L·d per sub-layer). ``hyper``: DeepSeek-V4's hyper-connections around each
    sub-layer. ``mup_multipliers``: Falcon-H1's µP scalings inside the block (element-wise, full only).
    ``shared_weights``: the weights of an earlier block run again (ALBERT). ``lora``: adapters on chosen projections.
    ``shared_block``: a use of Zamba2's shared attention block before the mixer. ``input_convolution``: DeBERTa-v2's
    convolution over the first layer's input. Gemma 4's ``per_layer_input_size`` P (gate d→P, projection P→d, a norm;
    the inputs from ``PerLayerEmbeddings``), Gemma 3n's ``altup_inputs`` N (AltUp's predict and correct around the
    layer) and ``laurel_rank`` r (LAuReL beside attention).

    Full convention extras, in the row where they happen: bias adds; 1/√Q scaling and softmax per score (scores row);
    activation and gating product (gate or up row); norms; residual adds (output and down rows); router softmax and
    the weighted sum of the k expert outputs. Not counted: dropout, rotary or ALiBi position terms, masking, top-k
    selection.
    """

    type: Literal["transformer_block"] = "transformer_block"
    mixer: Mixer = Field(description="The sequence mixer (kind: attention, latent, compressed, lightning, mamba, "
                                     "mamba2, gated_deltanet, short_conv, none; absent: attention).")
    feed_forward: FeedForward | None = Field(FeedForward(), description="The feed-forward sub-layer after the mixer "
                                                                        "(None: none, as in Mamba's blocks).")
    norms: BlockNorms = Field(BlockNorms(), description="The block's norms: kind and place.")
    parallel: bool = Field(False, description="Mixer and feed-forward read the same input (GPT-J, GPT-NeoX, PaLM).")
    cross_attention_length: Size | None = Field(None, description="M encoder positions for cross-attention.")
    idle_cross_attention: Size | None = Field(None, description=(
        "C: the block holds a cross-attention over an encoder memory of width C that it does not run (Whisper's and "
        "TrOCR's decoders as causal LMs, without an encoder): q and output d→d, k and v C→d, its norm; parameters, "
        "no FLOP."))
    residual_scales: bool = Field(False, description="Residual adds α·residual + β·output (MiniMax): 2 products per "
                                                     "element more in the full convention.")
    hyper: HyperConnections | None = Field(None, description="DeepSeek-V4's (or HY-V4's independent) "
                                                             "hyper-connections around each sub-layer.")
    mup_multipliers: bool = Field(False, description="Falcon-H1's µP multipliers inside the block: element-wise "
                                                     "scalings (full convention only).")
    shared_weights: bool = Field(False, description="The weights of an earlier block of the same shape, run again "
                                                    "(ALBERT's shared layers): no parameters of its own; its FLOP, "
                                                    "and in training its weight gradients, are counted here.")
    lora: LoRA | None = Field(None, description="LoRA adapters of rank r on the ``targets`` projections (q, k, v, "
                                                "qkv, o, gate, up, down, experts; default q, v); those weights frozen.")
    shared_block: "SharedBlockUse | None" = Field(None, description="Zamba2: a use of the shared attention block on "
                                                                  "[x, embeddings] before the mixer.")
    input_convolution: InputConvolution | None = Field(None, description="DeBERTa-v2: a convolution over the block's "
                                                                         "input added to its output (the first layer).")
    per_layer_input_size: Size | None = Field(None, description="P: Gemma 4's per-layer input after the feed-forward: "
                                                                "gate d→P, act(gate)·(this layer's P-wide input), "
                                                                "projection P→d, a norm, added into x.")
    altup_inputs: Size | None = Field(None, description="N: Gemma 3n's AltUp streams: a router d→N (with a norm, d) "
                                                         "run to predict and to correct, prediction coefficients "
                                                         "N→N², the prediction (d×N by N×N per token), correction "
                                                         "coefficients N→N and an output scale (d).")
    laurel_rank: Size | None = Field(None, description="r: Gemma 3n's LAuReL beside attention: d→r→d on the "
                                                       "attention's normed input, a norm, added to the residual.")
    kind_label: ClassVar[str] = "Transformer block"
    formula: ClassVar[str] = (r"2 L d (H + 2 H_{kv}) Q + 4 H L^2 Q + 2 L H Q d + 2 k L \, n_{ff} \, d F "
                              r"+ 2 L d E \quad (n_{ff} = 2, \text{ gated } 3)")

    @model_validator(mode="after")
    def _consistent(self):
        _check_layout(self)
        _check_mixer(self)
        _check_extras(self)
        _check_lora(self)
        return self

    # ------------------------------------------------------------ the facts the planner and serving read

    def attention_sizes(self, d: int) -> tuple[int, int, int]:
        """(H, H_kv, Q) for d_model d (the mixer's; (1, 1, d) for the mixers without heads)."""
        return self.mixer.attention_sizes(d)

    @property
    def experts(self) -> int:
        """E (1: dense or no feed-forward)."""
        return self.feed_forward.count if self.feed_forward else 1

    @property
    def active_experts(self) -> int:
        """k (1: dense or no feed-forward)."""
        return self.feed_forward.active if self.feed_forward else 1

    @property
    def ff_size(self) -> int | None:
        """F as given (None: 4·d, or no feed-forward)."""
        return self.feed_forward.size if self.feed_forward else None

    @property
    def gated(self) -> bool:
        return bool(self.feed_forward and self.feed_forward.gated)

    @property
    def shared_ff_size(self) -> int | None:
        """F_s: the shared expert's size (None: none)."""
        ff = self.feed_forward
        return ff.experts.shared_size if ff and ff.experts else None

    @property
    def kv_lora_rank(self) -> int | None:
        """c: latent attention's key/value rank (None: not latent attention)."""
        return getattr(self.mixer, "kv_lora_rank", None)

    @property
    def attention_window(self) -> int | None:
        """W: the mixer's sliding window (None: none)."""
        return getattr(self.mixer, "window", None)

    @property
    def causal_count(self) -> str:
        """How the mixer's scores are counted ("full" for the mixers without a causal mask to count)."""
        return getattr(self.mixer, "causal_count", "full")

    @property
    def kv_shared(self) -> bool:
        """Whether this layer reads an earlier layer's keys and values (``kv_source``)."""
        return getattr(self.mixer, "kv_source", None) is not None

    @property
    def lora_targets(self) -> tuple[str, ...]:
        """The projections LoRA adapts (none without ``lora``)."""
        if self.lora is None:
            return ()
        return self.lora.targets if self.lora.targets is not None else DEFAULT_LORA_TARGETS

    # ------------------------------------------------------------ the rows

    def cost(self, flow: Flow) -> LayerCost:
        """The parts in order, wired as a data flow: the block's input ``x`` (the residual stream), a sub-layer's
        input ``h`` (its norm's output, or ``x`` itself post-norm), its output added back into ``x``."""
        d, length = sequence_dims(flow)
        norms = self.norms
        read = "h" if norms.position == "pre" else "x"
        mixer_rows = self.mixer.rows(self, d, length, read)
        if self.parallel:  # both read the same normed x; the feed-forward's last row adds both into x
            mixer_rows[-1] = mixer_rows[-1]._replace(dst=("o",), also=())
            h_ff = "h" if norms.shared else "h2"
            feed_forward = [p._replace(src=tuple(h_ff if s == "h" else s for s in p.src))
                            for p in self.feed_forward.rows(self, d, length)]
            feed_forward[-1] = feed_forward[-1]._replace(also=feed_forward[-1].also + ("o",))
            rows = [norms.row("shared", d, length)] if norms.shared else \
                [norms.row("attention", d, length), norms.row("feed-forward", d, length, dst="h2")]
            parts = rows[:1] + mixer_rows + rows[1:] + feed_forward
        else:
            parts = self._sequential(mixer_rows, d, length, read)
        if self.input_convolution is not None:
            if d % self.input_convolution.groups:
                raise ShapeError(f"the input convolution's {self.input_convolution.groups} groups do not divide "
                                 f"d = {d}")
            conv, conv_norm = extras.input_convolution(self, d, length)
            parts = [conv] + parts + [conv_norm]
        parts = adapted(self, parts, d, length)
        if self.shared_block is not None:  # the mixer's norm reads x + t (the shared block's output)
            parts[0] = parts[0]._replace(src=("x", "t"), extra_flop=parts[0].extra_flop + length * d)
            parts = extras.shared_block(self.shared_block, d, length) + parts
        if self.shared_weights:  # counted where the weights first appear
            parts = [p._replace(params=0, active_params=None if p.active_params is None else 0) for p in parts]
        params = sum(p.params for p in parts)
        moe = self.experts > 1
        active = sum(p.params if p.active_params is None else p.active_params for p in parts) if moe else None
        return LayerCost(Flow((d,), length), params, sum(p.macs for p in parts),
                         sum(p.extra_flop for p in parts), active, tuple(parts))

    def _sequential(self, mixer_rows: list, d: int, length: int, read: str) -> list:
        """Each sub-layer (mixer, cross-attention, feed-forward) with its norms, residual and hyper-connections."""
        norms = self.norms
        pre = norms.position == "pre"
        into_stream = not norms.sandwich and norms.position != "output"
        label = "attention" if self.mixer.kind in ATTENTION_KINDS else self.mixer.kind
        sub_layers = [(label, mixer_rows)] if mixer_rows else []
        if self.cross_attention_length:
            sub_layers.append(("cross-attention",
                               attention_rows.attention(self, "cross-attention", d, length,
                                                        self.cross_attention_length, False, None, read, "m")))
        if self.feed_forward is not None:
            sub_layers.append(("feed-forward", self.feed_forward.rows(self, d, length, read)))
        parts = []
        for label, rows in sub_layers:
            if self.residual_scales:  # α·residual + β·output
                rows[-1] = rows[-1]._replace(extra_flop=rows[-1].extra_flop + 2 * length * d)
            if not into_stream:  # a norm on the sub-layer's output comes before the residual add
                rows[-1] = rows[-1]._replace(dst=("o",), also=tuple(a for a in rows[-1].also if a != "x"))
            if self.hyper is not None:  # the N streams: weights, the norm of their collapse, the sub-layer
                # (its output "o"), comb × the streams + post × o into x
                weights, mix = compressed.hyper_rows(self, label, d, length)
                rows = [p._replace(dst=tuple("o" if t == "x" else t for t in p.dst),
                                   also=tuple(a for a in p.also if a != "x")) for p in rows]
                parts += [weights, norms.row(label, d, length, src="x", dst="h")._replace(src=("x", "hc"))] + rows \
                    + [mix]
                continue
            if pre and label == "attention" and not norms.mixer_norm:  # it reads the block's input
                parts += [p._replace(src=tuple("x" if s == "h" else s for s in p.src)) for p in rows]
            elif pre:
                parts += [norms.row(label, d, length)] + rows
            elif norms.position == "post":  # the norm of the sum, in place
                parts += rows + [norms.row(label, d, length, src="x", dst="x")]
            else:  # output: norm(o) added into x
                parts += rows + [norms.row(label, d, length, src="o", dst="x", also=("x",))]
            if norms.sandwich:
                parts.append(norms.row(f"{label} output", d, length, src="o", dst="x", also=("x",)))
            if label == "attention" and self.laurel_rank:  # beside attention, on its normed input
                parts += extras.laurel(self, d, length)
        if self.idle_cross_attention:  # held, not run: parameters only, outside the data flow
            parts.append(attention_rows.idle_cross_attention(self, d))
        if self.altup_inputs:
            predict, correct = extras.altup(self, d, length)
            parts = predict + parts + correct
        if self.per_layer_input_size:
            parts += extras.per_layer_input(self, d, length)
        return parts

    def backward(self, flow, cost, grad_in, trainable, memory_grad=False):
        """The parts' data flow (``engine.method1.backward.parts_grad``). Shared weights: the weight gradients of
        this use are computed (and accumulated into the shared weights), the weights themselves are trained
        where they are counted (Zamba2's shared block too: its adapters and projection are each use's own)."""
        shared_block = self.shared_block is not None and self.shared_block.block.shared_weights
        if getattr(self.mixer, "disentangled", None) is not None:  # the relative table ("r") trains with the blocks
            return parts_grad(cost.parts, grad_in, trainable, memory_grad, {"r": trainable})
        # the keys and values of layer kv_source need a gradient when its input does: as this layer's input in full
        # training, with adapters on every layer from a source after the first, and training the last blocks from
        # the source on (engine.method1.finetune refuses the other cases)
        seeds = {"k": grad_in, "v": grad_in} if self.kv_shared else None
        if not self.shared_weights and not shared_block:
            return parts_grad(cost.parts, grad_in, trainable, memory_grad, seeds)
        unshared = {"shared_weights": False}
        if shared_block:
            unshared["shared_block"] = self.shared_block.model_copy(
                update={"block": self.shared_block.block.model_copy(update={"shared_weights": False})})
        own = self.model_copy(update=unshared).cost(flow)
        grad = parts_grad(own.parts, grad_in, trainable, memory_grad)
        rows = tuple((m, e, t if counted.params else 0) for (m, e, t), counted in zip(grad.parts, cost.parts))
        return grad._replace(trainable_params=sum(t for *_, t in rows), parts=rows)


def _check_layout(b: TransformerBlock) -> None:
    """How the sub-layers are laid out: parallel, pre-norm, cross-attention, a mixer with no feed-forward."""
    norms, kind = b.norms, b.mixer.kind
    if norms.shared and not b.parallel:
        raise InputError("norms.shared", "a shared norm needs parallel attention and feed-forward")
    if b.parallel and (norms.position != "pre" or b.cross_attention_length or norms.sandwich
                       or b.feed_forward is None):
        raise InputError("parallel", "parallel blocks are pre-norm decoder-only blocks with a feed-forward "
                                     "(no post-norm, no cross-attention)")
    if not norms.mixer_norm and (b.parallel or kind not in ATTENTION_KINDS):
        raise InputError("norms.mixer_norm", "a block without an attention norm is modelled pre-norm, sequential")
    if b.cross_attention_length and kind != "attention":
        raise InputError("cross_attention_length", "cross-attention is modelled beside plain (not latent) "
                                                    "self-attention")
    if kind in SEQUENTIAL_PRE_NORM and (b.parallel or b.cross_attention_length or norms.position != "pre"):
        raise InputError("mixer", f"a {kind} mixer is modelled in pre-norm sequential blocks")
    if kind == "none" and b.feed_forward is None:
        raise InputError("feed_forward", "a block without a mixer is a feed-forward layer (give feed_forward)")
    if kind == "compressed" and (norms.sandwich or b.shared_block is not None or b.shared_weights):
        raise InputError("mixer", "DeepSeek-V4's attention is modelled in pre-norm sequential causal blocks")
    if kind == "lightning" and b.shared_block is not None:
        raise InputError("mixer", "a lightning mixer is modelled in pre-norm sequential blocks without windows or "
                                  "QK norms")
    if b.residual_scales and (b.parallel or norms.position != "pre" or norms.sandwich):
        raise InputError("residual_scales", "scaled residuals are modelled in pre-norm sequential blocks")
    if b.hyper is not None:
        if b.hyper.independent and kind != "latent":
            raise InputError("hyper.independent", "independent hyper-connections are modelled in HY-V4's blocks "
                                                  "(latent attention)")
        if not b.hyper.independent and kind != "compressed":
            raise InputError("hyper", "hyper-connections are modelled in DeepSeek-V4's blocks (mixer 'compressed')")


def _check_mixer(b: TransformerBlock) -> None:
    """What the attention mixer's switches need from the rest of the block."""
    m, ff = b.mixer, b.feed_forward
    if m.kind != "attention":
        if m.kind == "latent" and m.head_gate and m.gate:
            raise InputError("mixer.head_gate", "a gate per head is modelled beside no other output gate")
        if b.norms.sub_norms:
            raise InputError("norms.sub_norms", "modelled on plain self-attention with a dense feed-forward")
        return
    moe = ff is not None and ff.experts is not None
    if b.norms.sub_norms and (moe or m.attention_experts):
        raise InputError("norms.sub_norms", "modelled on plain self-attention with a dense feed-forward")
    if m.differential and moe:
        raise InputError("mixer.differential", "modelled on plain self-attention with a dense feed-forward")
    if m.value_size is not None and (b.cross_attention_length or b.shared_block is not None or b.lora is not None
                                     or b.norms.sub_norms):
        raise InputError("mixer.value_size", "a value size of its own is modelled on plain self-attention")
    if (m.kv_shared or m.values_from_keys) and b.cross_attention_length:
        raise InputError("mixer.kv_source", "shared or key-derived values are modelled for plain self-attention")
    if (m.output_gate or m.head_gate) and b.cross_attention_length:
        raise InputError("mixer.output_gate" if m.output_gate else "mixer.head_gate",
                         "an output gate is modelled on self-attention (not latent or local attention)")
    if m.indexer_heads is not None and b.cross_attention_length:
        raise InputError("mixer.indexer_heads", "MiniMax-M3's block indexer is modelled on plain self-attention")
    if m.beside is not None and (b.parallel or b.cross_attention_length or b.norms.position != "pre"
                                 or b.shared_block is not None):
        raise InputError("mixer.beside", "a Mamba-2 mixer beside attention is modelled in pre-norm sequential "
                                         "decoder blocks with plain (not latent or local) self-attention")
    if m.attention_experts and (not moe or m.heads != ff.experts.active * (m.kv_heads or m.heads)
                                or b.cross_attention_length or b.parallel or b.shared_weights):
        raise InputError("mixer.attention_experts", "a mixture of attention heads (JetMoE) needs experts > 1 and "
                                                    "heads = active experts × kv_heads, in plain sequential "
                                                    "self-attention")
    if m.attention_experts and ff.experts.zero:
        raise InputError("feed_forward.experts.zero", "zero experts are modelled beside a plain mixture of experts")
    deberta = m.disentangled is not None or b.input_convolution is not None
    if deberta and (m.causal or b.parallel or b.norms.position != "post" or m.local_radius is not None
                    or b.cross_attention_length or moe or m.qk_norm != "none" or b.shared_weights or b.norms.sandwich):
        raise InputError("mixer.disentangled", "DeBERTa's position terms and input convolution are modelled in "
                                               "post-norm, non-causal multi-head attention blocks")


def _check_extras(b: TransformerBlock) -> None:
    """Gemma's, Zamba's, Whisper's and Falcon-H1's extras: where they are modelled."""
    m, kind, norms = b.mixer, b.mixer.kind, b.norms
    if b.input_convolution is not None and kind != "attention":
        raise InputError("mixer.disentangled", "DeBERTa's position terms and input convolution are modelled in "
                                               "post-norm, non-causal multi-head attention blocks")
    if b.idle_cross_attention and (b.cross_attention_length or kind != "attention" or b.parallel
                                   or b.lora is not None):
        raise InputError("idle_cross_attention", "a cross-attention held and not run is modelled in sequential "
                                                 "self-attention blocks without a running cross-attention or LoRA")
    if b.mup_multipliers and getattr(m, "beside", None) is None:
        raise InputError("mup_multipliers", "the µP multipliers are Falcon-H1's (a Mamba-2 mixer beside attention)")
    if b.shared_block is not None and (kind not in ("mamba", "mamba2") or b.shared_weights):
        raise InputError("shared_block", "a shared attention block is modelled before a Mamba or Mamba-2 mixer, "
                                         "in a block without shared weights of its own")
    if (b.altup_inputs or b.laurel_rank) and (kind not in ATTENTION_KINDS or b.parallel or norms.position != "pre"
                                              or b.lora is not None):
        raise InputError("altup_inputs", "AltUp and LAuReL are modelled in pre-norm sequential attention blocks "
                                         "trained in full")
    if b.per_layer_input_size and (kind not in ATTENTION_KINDS or b.parallel or norms.position != "pre"
                                   or b.feed_forward is None):
        raise InputError("per_layer_input_size", "per-layer inputs are modelled in pre-norm sequential attention "
                                                 "blocks with a feed-forward")
    if b.per_layer_input_size and b.feed_forward.down_bias != "same":
        raise InputError("feed_forward.down_bias", "a down-projection bias of its own is modelled on a dense "
                                                   "feed-forward")


def _check_lora(b: TransformerBlock) -> None:
    """LoRA where it is modelled, on projections the block has."""
    if b.lora is None:
        return
    m, kind = b.mixer, b.mixer.kind
    ff = b.feed_forward
    refused = {
        "compressed": "LoRA on DeepSeek-V4's attention is not modelled; fine-tune the last blocks or in full instead",
        "lightning": "LoRA on a layer of lightning attention (MiniMax) is not modelled; fine-tune the last blocks or "
                     "in full instead"}
    if kind in refused:
        raise InputError("lora", refused[kind])
    if kind == "gated_deltanet" and m.decay == "channel":
        raise InputError("lora", "LoRA on a layer of Kimi Delta Attention (Kimi Linear) is not modelled; fine-tune "
                                 "the last blocks or all of it instead")
    if (kind == "attention" and m.attention_experts) or (ff is not None and ff.experts is not None
                                                         and ff.experts.output_bias):
        raise InputError("lora", "LoRA on JetMoE's expert projections is not modelled; fine-tune the last blocks or "
                                 "in full instead")
    if b.shared_block is not None:
        raise InputError("lora", "LoRA on a layer that runs Zamba's shared attention block is not modelled (adapters "
                                 "on shared weights); fine-tune the last blocks or in full instead")
    if b.shared_weights:
        raise InputError("lora", "adapters on shared weights (ALBERT's shared layers) are not modelled")
    if kind == "attention" and (m.disentangled is not None or b.input_convolution is not None or not m.key_bias):
        raise InputError("lora", "LoRA on DeBERTa's blocks is not modelled (its q and k projections also run over "
                                 "the shared relative-position table); fine-tune in full instead")
    targets = b.lora_targets
    if kind == "attention" and m.kv_shared and set(targets) & {"k", "v"}:
        target = next(t for t in targets if t in ("k", "v"))
        raise InputError("lora.targets", f"'{target}': a layer that reuses an earlier layer's keys and values has "
                                         "no k or v projection to adapt")
    if kind == "attention" and m.values_from_keys and "v" in targets:
        raise InputError("lora.targets", "'v': the values are the key projection's output: no v projection to adapt")
    for target in targets:
        reason = lora_target_refusal(b, target)
        if reason:
            raise InputError("lora.targets", f"'{target}': {reason}")


class SharedBlockUse(BaseModel):
    """One use of Zamba2's shared attention block (``extras.shared_block``): ``block`` the shared attention + gated
    MLP (its ``shared_weights``: an earlier use holds them), ``adapter_rank`` r of this use's adapters beside the
    MLP's gate/up (d→r→2F) and, with ``attention_adapters``, beside q, k and v (2d→r→2d)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    block: TransformerBlock
    adapter_rank: Size | None = Field(None, description="r: this use's adapters (None: none).")
    attention_adapters: bool = Field(False, description="Adapters beside q, k and v too.")
    idle_adapters: int = Field(0, ge=0, le=10_000, description="Adapter sets of other uses this copy holds and never "
                                                             "runs (transformers' untied Zamba2 blocks).")

    @model_validator(mode="after")
    def _modelled(self):
        b = self.block
        m = b.mixer
        if m.kind != "attention" or not b.gated or b.experts > 1 or b.parallel or b.norms.position != "pre" \
                or b.cross_attention_length or b.shared_block is not None or b.lora is not None \
                or m.local_radius is not None or m.qk_norm != "none" or b.norms.sandwich:
            raise InputError("shared_block.block", "the shared block is modelled as pre-norm attention with a "
                                                   "dense gated MLP")
        if (self.attention_adapters or self.idle_adapters) and not self.adapter_rank:
            raise InputError("shared_block.adapter_rank", "attention or idle adapters need adapter_rank")
        return self


# ``TransformerBlock.shared_block`` names ``SharedBlockUse``, defined after it: the block's validator, built on
# first use (``defer_build``, as every kind's), resolves it then.
