"""DeepSeek-V4's attention and its manifold-constrained hyper-connections (DeepSeek-V4, 2026) as the rows of a block
(``TransformerBlock`` with ``mixer="compressed"`` and ``hyper_connections``), counted as transformers'
``DeepseekV4Attention`` and ``DeepseekV4HyperConnection`` compute them on a whole sequence (no cache).

Symbols: d model width, L positions, H query heads of size D, c_q the query rank, g output groups of rank r_o,
m the compression rate (``compress_rate``; none on the sliding layers), T = ⌊L/m⌋ compressed entries, H_I
indexer heads of D_I, N hyper-connection streams.

Matmul convention (what ``FlopCounterMode`` sees), per layer:
- queries d→c_q (RMSNorm with a gain), c_q→H·D (RMSNorm of each head, no gain); one key/value head d→D (RMSNorm):
  the keys are the values (shared-KV multi-query attention);
- the compressor (m set): kv and gate projections d→w·D each (w = 2 with the indexer, compressed sparse attention's
  two overlapping series; 1 for heavily compressed attention), pooled by a softmax over each window (position bias
  m·w·D, element-wise) and normed (D): T entries appended to the L keys;
- the lightning indexer (compressed sparse attention): its own compressor (kv and gate d→2·D_I, position bias
  m·2·D_I, norm D_I), queries c_q→H_I·D_I from the query latent, head weights d→H_I, and the scores of each query
  against the T compressed keys (H_I·D_I·L·T); its output is a top-k index (integers), so no gradient ever reaches
  it: no backward, its weights never train;
- QKᵀ and AV over the L + T keys, every pair (the window and the indexer's top-k only mask): H·L·(L+T)·D each,
  one learned sink logit per head (H parameters);
- the grouped output projection: g blocks of H·D/g → r_o (H·D·r_o per position, as one H·D→r_o), then g·r_o→d.
With fewer than m positions there is no entry: the compressor's projections still run, and are read by nothing
(no gradient reaches them).

Hyper-connections (N streams of d kept between the layers; ``hyper_rows``): before each sub-layer, weights from
the flattened streams N·d → (2+N)·N (a gainless RMSNorm first; a bias (2+N)·N and 3 scales), the streams collapsed by
the N "pre" weights (element-wise) into the sub-layer's input; after it, the N×N "comb" matrix times the streams
(N²·d per position) plus the output times the N "post" weights (element-wise). The model's end (``HyperHead``)
collapses the streams with weights N·d→N (N·N·d + N + 1 parameters).

Backward (full training, as autograd runs it): every product as usual, except the indexer and, at fewer than m
positions, the compressor (read by nothing).

The ``full`` convention adds the norms, the softmax and 1/√D scaling of each score, the compressor's bias add,
softmax over each window and weighted sum, the indexer's ReLU, scaling and weighted sum of its scores, the
hyper-connections' sigmoids, softmax, Sinkhorn normalisations (2·N² per round), collapse and mix, and the residual
add. Not counted: rotary positions (and the inverse rotation of the output), masking, top-k selection.
"""
from __future__ import annotations

from ..conventions import ACTIVATION_FLOP
from ..layers import Part
from ..ops import rms_norm_cost, softmax_and_scale_flop
from .rows import NO_GRAD, linear


def entries(block, length: int) -> int:
    """T: the compressed entries of a sequence of L positions (none on a sliding layer)."""
    return length // block.mixer.compress_rate if block.mixer.compress_rate else 0


def _rms(width: int, affine: bool) -> int:
    """The full convention's FLOP of one RMSNorm of ``width`` values."""
    return rms_norm_cost(width, width, affine).extra_flop


def _pool_flop(count: int, rate: int, width: int, size: int) -> int:
    """A compressor's element-wise work (full): the position bias added to the gates of the count·m positions, a
    softmax over each entry's w·m slots per channel, the weighted sum, the norm of each entry."""
    slots = count * width * rate * size
    return count * rate * width * size + (ACTIVATION_FLOP["softmax"] + 2) * slots + count * _rms(size, True)


def _compressor(label: str, d: int, length: int, rate: int, width: int, size: int, src: tuple[str, ...],
                names: tuple[str, str, str]) -> list[Part]:
    """kv and gate projections d→w·D, then the pooling: params m·w·D (position bias) + D (the norm's gain)."""
    kv, gate, out = names
    count = length // rate
    return [linear(f"{label} kv projection", d, width * size, False, length, src=src, dst=(kv,), role="compressor"),
            linear(f"{label} gate projection", d, width * size, False, length, src=src, dst=(gate,),
                    role="compressor"),
            Part(f"{label} pooling (softmax over each window) and norm", rate * width * size + size, 0,
                 _pool_flop(count, rate, width, size), None, "none", (kv, gate), (out,), (out,))]


def compressed_attention(block, d: int, length: int, read: str = "h") -> list[Part]:
    """The mixer's rows, wired as a data flow: ``read`` (the norm's output) → q, k (= v) → … → added into ``x``."""
    h, _, q = block.mixer.attention_sizes(d)
    cq, groups, rank = block.mixer.q_lora_rank, block.mixer.output_groups, block.mixer.output_rank
    count = entries(block, length)
    keys = length + count
    parts = [
        linear("attention q down-projection", d, cq, False, length, src=(read,), dst=("qa",), role="q down"),
        Part("attention q latent norm", cq, 0, length * _rms(cq, True), None, "none", ("qa",), ("qa",)),
        linear("attention q up-projection (each head normed, no gain)", cq, h * q, False, length,
                extra_flop=length * h * _rms(q, False), src=("qa",), dst=("q",), role="q up"),
        linear("attention key/value projection (one head; the keys are the values)", d, q, False, length,
                src=(read,), dst=("k",), role="kv"),
        Part("attention key/value norm", q, 0, length * _rms(q, True), None, "none", ("k",), ("k",)),
    ]
    if block.mixer.compress_rate:
        indexed = block.mixer.indexer_heads is not None
        rows = _compressor("compressor", d, length, block.mixer.compress_rate, 2 if indexed else 1, q, (read,),
                           ("ck", "cg", "k"))
        if not count:  # fewer than m positions: no entry; the projections run and nothing reads them
            rows = [p._replace(op="none", src=(), dst=("unread",), also=()) for p in rows]
        parts += rows
        if indexed:
            parts += indexer(block, d, length, count)
    scores = h * length * keys
    sinks = h if block.mixer.sinks else 0
    return parts + [
        Part("attention scores QKᵀ (sliding and compressed keys)", sinks, scores * q,
             softmax_and_scale_flop(scores) + (ACTIVATION_FLOP["softmax"] * h * length if sinks else 0), None,
             "product", ("q", "k"), ("s",)),
        Part("attention values AV", 0, scores * q, 0, None, "product", ("s", "k"), ("a",)),
        linear(f"attention grouped output projection ({groups} groups)", h * q, rank, False, length,
                src=("a",), dst=("og",), role="o groups"),
        linear("attention output projection", groups * rank, d, False, length, extra_flop=length * d,
                src=("og",), dst=("x",), also=("x",), role="o"),  # + the residual add
    ]


def indexer(block, d: int, length: int, count: int) -> list[Part]:
    """The lightning indexer of compressed sparse attention (``DeepseekV4Indexer``): its compressor (2·D_I wide),
    queries c_q→H_I·D_I, head weights d→H_I, the scores against the T compressed keys (ReLU, scaled, weighted by
    the heads and summed: element-wise). Its output is an index: no gradient, its weights never train."""
    h_i, d_i, m = block.mixer.indexer_heads, block.mixer.indexer_head_size, block.mixer.compress_rate
    src, own = (NO_GRAD,), {"frozen": True, "role": "indexer"}
    rows = _compressor("indexer compressor", d, length, m, 2, d_i, src, ("ik", "ig", "ik"))
    return [p._replace(**own) for p in rows] + [
        linear("indexer q projection", block.mixer.q_lora_rank, h_i * d_i, False, length, src=src,
                dst=("iq",))._replace(**own),
        linear("indexer head weights", d, h_i, False, length, extra_flop=length * h_i, src=src,
                dst=("iw",))._replace(**own),
        Part("indexer scores", 0, h_i * length * count * d_i, 4 * h_i * length * count, None, "product",
             ("iq", "ik"), ("is",), role="indexer"),  # ReLU, scale, × head weight, sum
    ]


def hyper_rows(block, label: str, d: int, length: int) -> tuple[Part, Part]:
    """A sub-layer's hyper-connection (N = ``hyper_connections``): (its weights, made before the sub-layer from the
    streams x; the mix after it, comb × the streams + post × the sub-layer's output "o", into x). The sub-layer's
    norm reads the collapse of x by the weights (``hc``)."""
    n, rounds = block.hyper.streams, block.hyper.sinkhorn_iterations
    if block.hyper.independent:
        return _independent_hyper_rows(n, label, d, length)
    width, out = n * d, (2 + n) * n
    # gainless RMSNorm of the N·d streams, × scale + bias on the (2+N)·N weights, the sigmoids of pre and post
    # (post × 2, pre + ε), the softmax of comb (+ ε), then Sinkhorn: 2·rounds − 1 normalisations of N² (sum, divide);
    # the collapse: N·d products and (N − 1)·d adds
    extra = length * (_rms(width, False) + 2 * out + 2 * n * ACTIVATION_FLOP["sigmoid"] + 2 * n
                      + n * n * (ACTIVATION_FLOP["softmax"] + 1) + (2 * max(rounds, 1) - 1) * 2 * n * n
                      + (2 * n - 1) * d)
    weights = linear(f"{label} hyper-connection weights", width, out, False, length, extra_flop=extra, src=("x",),
                      dst=("hc",), role="hyper")
    weights = weights._replace(params=weights.params + out + 3)  # + the bias and the 3 scales
    # comb (N×N) × the N streams, + post × the output (N·d products) and the add
    mix = Part(f"{label} hyper-connection mix", 0, length * n * n * d, 2 * length * n * d, None, "product",
               ("hc", "x"), ("x",), ("o",))
    return weights, mix


def _independent_hyper_rows(n: int, label: str, d: int, length: int) -> tuple[Part, Part]:
    """HY-V4's independent hyper-connection (``HYV4HyperConnection``): weights N·d → 2·N (pre, post) of the streams
    times their gainless inverse RMS, 2·N biases and 2 scales; the collapse Σ pre·x (element-wise); after the
    sub-layer post × its output added into every stream (element-wise: no comb matrix, no Sinkhorn)."""
    width, out = n * d, 2 * n
    # the inverse RMS of the N·d streams (square, sum, mean, ε, rsqrt), × it, × scale + bias on the 2N weights,
    # the sigmoids (+ ε; post × magnitude), the collapse: N·d products and (N − 1)·d adds
    extra = length * (2 * width + 2 + out + 2 * out + 2 * n * ACTIVATION_FLOP["sigmoid"] + 3 * n + (2 * n - 1) * d)
    weights = linear(f"{label} hyper-connection weights", width, out, False, length, extra_flop=extra, src=("x",),
                      dst=("hc",), role="hyper")
    weights = weights._replace(params=weights.params + out + 2)  # + the biases and the 2 scales
    # post × the output (N·d products) and the add into the N streams
    mix = Part(f"{label} hyper-connection mix", 0, 0, 2 * length * n * d, None, "none", ("hc", "x"), ("x",), ("o",))
    return weights, mix
