"""The block-wide extras and their rows: Gemma 4's per-layer input, Gemma 3n's AltUp and LAuReL, DeBERTa-v2's input
convolution (``InputConvolution``) and one use of Zamba2's shared attention block (``shared_block``; the use itself,
``SharedBlockUse``, is in ``block`` since it holds a block)."""

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...errors import InputError
from ..conventions import ACTIVATION_FLOP
from ..layers import Part, Size
from .attention import attention
from .feed_forward import mlp
from .mixers import BlockActivation
from .rows import linear


class InputConvolution(BaseModel):
    """DeBERTa-v2's ``ConvLayer`` (``conv_kernel_size`` K > 0): a 1-D convolution d→d over the first layer's input,
    K taps, G groups, biased, same length (K odd), activated and added to the layer's output, then a LayerNorm:
    params d·(d/G)·K + d + 2d, L·d·(d/G)·K MACs."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    kernel: Size = Field(description="K, odd.")
    groups: Size = Field(1, description="G, dividing d.")
    activation: BlockActivation = "tanh"

    @model_validator(mode="after")
    def _same_length(self):
        if self.kernel % 2 == 0:
            raise InputError("kernel", f"{self.kernel} is even: the output is one position short of the residual it "
                                       "is added to (transformers fails)")
        return self



def per_layer_input(block, d: int, length: int) -> list[Part]:
    """Gemma 4's per-layer input (``TransformerBlock.per_layer_input_size`` P), after the feed-forward: gate d→P,
    act(gate) times this layer's slice of the per-layer inputs ("pl", made by ``PerLayerEmbeddings``), projection
    P→d, a norm, added into x (full: the activation, the product, the norm and the add)."""
    p = block.per_layer_input_size
    act = ACTIVATION_FLOP[block.feed_forward.activation]
    norm_params, norm_flop = block.norms.cost(d, length)
    return [linear("per-layer input gate", d, p, False, length, extra_flop=(act + 1) * length * p, src=("x",),
                    dst=("pg",), role="per-layer gate"),
            linear("per-layer input projection", p, d, False, length, src=("pg", "pl"), dst=("po",),
                    role="per-layer projection"),
            Part("per-layer input norm", norm_params, 0, norm_flop + length * d, None, "none", ("po",), ("x",),
                 ("x",))]


def altup(block, d: int, length: int) -> tuple[list[Part], list[Part]]:
    """Gemma 3n's AltUp (``TransformerBlock.altup_inputs`` N) around a layer, as ``Gemma3nTextAltUp`` runs it: to
    predict, the router (a norm of d with a gain, d→N, tanh), prediction coefficients N→N² and the N streams (d×N
    per token) times those N×N coefficients; to correct, the router again on the layer's output, correction
    coefficients N→N, the innovation scaled per stream, and an output scale (d). The streams are the flow x (the
    active one, its width d; the others' products counted here)."""
    n = block.altup_inputs
    norm_params, norm_flop = block.norms.cost(d, length)
    router = linear("AltUp router (predict)", d, n, False, length, extra_flop=norm_flop + length * n, src=("x",),
                     dst=("am",), role="altup")
    predict = [router._replace(params=router.params + norm_params),
               linear("AltUp prediction coefficients", n, n * n, False, length, src=("am",), dst=("ac",),
                       role="altup"),
               # the N streams × the N×N coefficients, plus the streams (full: the add)
               Part("AltUp prediction", 0, length * d * n * n, length * d * n, None, "product", ("x", "ac"), ("x",),
                    ("x",))]
    again = linear("AltUp router (correct, the same weights)", d, n, False, length,
                    extra_flop=norm_flop + length * n, src=("x",), dst=("cm",), role="reused")
    correct = [again._replace(params=0),
               linear("AltUp correction coefficients", n, n, False, length, extra_flop=length * n, src=("cm",),
                       dst=("cc",), role="altup"),
               # innovation (1 subtract), times each stream's coefficient, plus the prediction; the output scale
               Part("AltUp correction and output scale", d, 0, length * d * (1 + 2 * n + 1), None, "none",
                    ("x", "cc"), ("x",))]
    return predict, correct


def laurel(block, d: int, length: int) -> list[Part]:
    """Gemma 3n's LAuReL (``TransformerBlock.laurel_rank`` r): the attention's normed input ("h") through d→r→d,
    a norm, added to it and into the residual (full: the adds and the 1/√2 scaling)."""
    r = block.laurel_rank
    norm_params, norm_flop = block.norms.cost(d, length)
    return [linear("LAuReL left", d, r, False, length, src=("h",), dst=("lr",), role="laurel"),
            linear("LAuReL right", r, d, False, length, src=("lr",), dst=("lo",), role="laurel"),
            Part("LAuReL norm", norm_params, 0, norm_flop + 3 * length * d, None, "none", ("lo", "h"), ("x",),
                 ("x",))]


def input_convolution(block, d: int, length: int) -> tuple[Part, Part]:
    """DeBERTa-v2's ``ConvLayer`` (``TransformerBlock.input_convolution``): the convolution over the block's input x
    (K taps, G groups, biased; full: bias adds and the activation), and, after the block, the LayerNorm of the
    block's output plus it (full: + the add)."""
    conv = block.input_convolution
    per_out = d // conv.groups * conv.kernel
    act = ACTIVATION_FLOP[conv.activation]
    norm_params, norm_flop = block.norms.cost(d, length)
    return (Part("input convolution", d * per_out + d, length * d * per_out, length * d * (1 + act), None, "linear",
                 ("x",), ("cv",), role="convolution", dims=(per_out, d, length)),
            Part("input convolution norm", norm_params, 0, norm_flop + length * d, None, "none", ("x", "cv"), ("x",)))


def _bottleneck(label: str, n_in: int, rank: int, n_out: int, positions: int, src: str, dst: tuple[str, ...],
                own: str) -> list[Part]:
    """A trained low-rank branch N→r→M (Zamba's per-use adapters: part of the model, not LoRA's frozen base), its
    output added to ``dst``: r·(N + M) params, (N + M)·r MACs per position (full: + M adds)."""
    return [linear(f"{label} adapter down", n_in, rank, False, positions, src=(src,), dst=(own,), role="adapter"),
            linear(f"{label} adapter up", rank, n_out, False, positions, extra_flop=positions * n_out, src=(own,),
                    dst=dst, also=dst, role="adapter")]


def shared_block(use, d: int, length: int) -> list[Part]:
    """Zamba2's shared transformer block, one use (transformers' ``Zamba2HybridLayer`` before its Mamba layer):
    the block's input x concatenated with the token embeddings e ([x, e], 2d wide) and normed (2d params);
    attention reading 2d: q 2d→H·Q, k and v 2d→H_kv·Q, QKᵀ and AV, output H·Q→d (no residual); a norm (d);
    the gated MLP d→F→d (no residual); this use's adapters beside gate/up (d→r→2F) and, with
    ``attention_adapters``, beside q, k and v (2d→r→2d each); then this use's own projection d→d, whose output
    t the Mamba layer adds to its input before its norm. ``use.block.shared_weights``: an earlier use holds the
    shared weights (the adapters and the projection are this use's own). ``use.idle_adapters``: the adapter sets of
    other uses this copy holds and never runs (transformers' untied copies): parameters only, never trained."""
    b, w = use.block, 2 * d
    h, h_kv, q = b.mixer.attention_sizes(w)
    norm_params, norm_flop = b.norms.cost(w, length)
    parts = [Part("shared block norm of [x, embeddings]", norm_params, 0, norm_flop, None, "none", ("x", "e"),
                  ("c",))]
    for p in attention(b, "shared attention", w, length, length, b.mixer.causal_count == "half", None, "c")[:-1]:
        parts.append(p)
        if use.adapter_rank and use.attention_adapters and p.role in ("q", "kv"):
            for name in ("q",) if p.role == "q" else ("k", "v"):
                parts += _bottleneck(f"shared attention {name}", w, use.adapter_rank, w, length, "c", (name,),
                                     f"{name}r")
    f = b.feed_forward.size or 4 * d
    mlp_rows = mlp(b, "shared feed-forward", d, f, length, b.feed_forward.bias, read="h2", out="f")
    mlp_rows[-1] = mlp_rows[-1]._replace(also=())  # no residual inside the shared block
    parts += [linear("shared attention output projection", h * q, d, b.mixer.out_bias, length, src=("a",), dst=("ao",),
                      role="o"),
              b.norms.row("shared feed-forward", d, length, src="ao", dst="h2")] + mlp_rows[:-1]
    if use.adapter_rank:
        parts += _bottleneck("shared feed-forward gate/up", d, use.adapter_rank, 2 * f, length, "h2", ("g", "u"),
                             "fr")
    parts += [mlp_rows[-1], linear("shared block projection", d, d, False, length, src=("f",), dst=("t",),
                                    role="projection")]
    if use.idle_adapters:  # untied copies hold the adapters of every use of their block; only this use's run
        per_use = use.adapter_rank * ((d + 2 * f) + (3 * 2 * w if use.attention_adapters else 0))
        parts.append(Part("shared block adapters of its other uses (idle)", use.idle_adapters * per_use, 0, 0,
                          None, "none", (), (), frozen=True, role="adapter"))
    if b.shared_weights:  # counted where the weights first appear; the adapters and projection are this use's
        parts = [p if p.role in ("adapter", "projection") else p._replace(params=0) for p in parts]
    return parts
