"""The rows of the attention kinds (``mixers.AttentionMixer``, ``mixers.LatentAttentionMixer``): the projections,
QKᵀ and AV, norms and gates, wired as a data flow for the backward pass (``engine.method1.backward.parts_grad``).

Symbols (Kaplan 2020; PaLM App. B): L positions, d = d_model, H query heads, H_kv key/value heads, Q head size,
M positions of an encoder memory (cross-attention). Matmul convention (what ``FlopCounterMode`` counts): the
projections at every position; QKᵀ and AV are H·L²·Q multiply-accumulates each. A causal mask does not change that
count: the masked scores are computed and discarded, as ``FlopCounterMode`` and PaLM's 12·L·H·Q·T count them.
``causal_count="half"`` counts only the unmasked query–key pairs instead (what kernels that skip masked blocks do):
the L(L+1)/2 of the causal triangle, Kaplan's 2·n_layer·n_ctx·d_attn, or, with a sliding window of W positions
(Mistral), W(W+1)/2 + (L − W)·W. Full convention extras, in the row where they happen: bias adds; 1/√Q scaling and
softmax per score (scores row); norms; the residual add (output row). Not counted: dropout, rotary or ALiBi
position terms, masking, top-k selection.
"""
from __future__ import annotations

from ..conventions import ACTIVATION_FLOP
from ..layers import Part
from ..ops import (
    dense_cost,
    layer_norm_cost,
    rms_norm_cost,
    softmax_and_scale_flop,
)
from .rows import NO_GRAD, linear, scaled, unmasked_pairs


def attention(block, label: str, d: int, length: int, memory: int, half: bool,
               window: int | None, read: str = "h", kv_read: str = "x") -> list[Part]:
    """Queries from the L positions, keys and values from ``memory`` positions (L for self-attention);
    ``half``: only the pairs the causal mask keeps (``unmasked_pairs``, within ``window``). ``read``: what
    the queries (and, for self-attention, the keys and values) read; ``kv_read`` "m": an encoder memory."""
    m = block.mixer
    h, h_kv, q = m.attention_sizes(d)
    pairs = unmasked_pairs(length, window) if half else length * memory
    kv_src = ("m",) if kv_read == "m" else (read,)
    sinks = h if m.sinks else 0
    local = m.local_radius is not None and kv_read != "m"
    globals_, kv_positions, parts = 0, memory, []
    if local:  # LongT5: blocks of b; each query scores its block and the two beside it (zero-padded)
        b = m.local_radius + 1
        padded = -(-length // b) * b
        globals_ = length // m.global_block_size if m.global_block_size else 0
        pairs = padded * (3 * b + globals_)
        if m.global_block_size:  # block sums (a product with a one-hot matrix), normed, then keyed and valued
            norm_params, norm_flop = block.norms.cost(d, globals_)
            parts += [Part(f"{label} global block sums", 0, length * d * globals_, 0, None, "linear", (read,),
                           ("gs",)),
                      Part(f"{label} global norm", norm_params, 0, norm_flop, None, "none", ("gs",), ("gs",))]
            kv_positions += globals_
            kv_src += ("gs",)
    # values from keys (Gemma 4's attention_k_eq_v): the key projection's output is the values too
    kv_name = f"{label} k projection (the values too)" if m.values_from_keys else f"{label} k/v projections"
    v = m.value_size or q  # MiMo-V2: values of their own size
    kv = linear(kv_name, d, h_kv * q if m.values_from_keys else h_kv * (q + v), m.qkv_bias, kv_positions,
                 src=kv_src, dst=("k", "v"), role="k" if m.values_from_keys else "kv")
    if m.qkv_bias and not m.key_bias:
        kv = kv._replace(params=kv.params - h_kv * q, extra_flop=kv.extra_flop - kv_positions * h_kv * q)  # v only
    gate = m.output_gate  # the q projection also makes the output gate (2·H·Q wide)
    parts += [linear(f"{label} q projection" + (" (q, output gate)" if gate else ""), d, (2 if gate else 1) * h * q,
                      m.qkv_bias, length, src=(read,), dst=("q", "og") if gate else ("q",), role="q")]
    if not m.kv_shared:  # a layer sharing an earlier layer's keys and values reads them ("k", "v": seeds)
        parts.append(kv)
    if m.qk_norm == "each_head":  # a γ per head and channel (no β): H·Q and H_kv·Q parameters
        layer_norm = block.norms.kind == "layernorm"
        extra = layer_norm_cost(q, q, True, False)[2] if layer_norm else rms_norm_cost(q, q, True)[2]
        parts.append(Part(f"{label} q/k norms", (h + h_kv) * q, 0, (length * h + memory * h_kv) * extra,
                          None, "none", ("q", "k"), ("q", "k")))
    elif m.qk_norm != "none":
        q_params, q_flop = block.norms.cost(q if m.qk_norm == "head" else h * q, 1)
        k_params, k_flop = block.norms.cost(q if m.qk_norm == "head" else h_kv * q, 1)
        per_head = m.qk_norm == "head"
        if m.kv_shared:  # the keys were normed in the layer that made them
            parts.append(Part(f"{label} q norm", q_params, 0, length * q_flop * (h if per_head else 1), None, "none",
                              ("q",), ("q",)))
        else:
            parts.append(Part(f"{label} q/k norms", q_params + k_params, 0,
                              length * q_flop * (h if per_head else 1) + memory * k_flop * (h_kv if per_head else 1),
                              None, "none", ("q", "k"), ("q", "k")))
    if m.value_norm and not m.kv_shared:  # RMS over each value head, no gain
        parts.append(Part(f"{label} value norm", 0, 0, memory * h_kv * rms_norm_cost(q, q, False)[2], None, "none",
                          ("v",), ("v",)))
    if m.indexer_heads:  # MiniMax-M3's sparse layers: an indexer picks the key blocks (masking only)
        parts += block_indexer(block, label, d, length, pairs, read)
    calls = 2 if m.differential else 1  # DiffLlama: two attention calls over the same q and k
    scores = Part(f"{label} scores QKᵀ", sinks, calls * h * pairs * q, calls * softmax_and_scale_flop(h * pairs), None,
                  "product", ("q", "k"), ("s",))
    positions = [] if m.disentangled is None else position_terms(block, label, d, length)
    products = [p for p in positions if p.op == "product"]
    parts += [p for p in positions if p.op != "product"] + [scores] + products + [
        Part(f"{label} values AV", 0, calls * h * pairs * v, 0, None, "product", ("s", "v"), ("a",)),
    ]
    if m.differential:  # λ = exp(λq1·λk1) − exp(λq2·λk2) + λ_init; a1 − λ·a2, a gainless RMSNorm of 2Q, scaled
        parts.append(Part(f"{label} differential λ", 4 * q, 0, 4 * q + 2 * length * h * q
                          + rms_norm_cost(2 * q, 2 * q, False)[2] * length * h // 2 + length * h * q, None, "none",
                          ("a",), ("a",)))
    if block.norms.sub_norms:  # BitNet: a norm of the attention's output before the output projection
        norm_params, norm_flop = block.norms.cost(h * q, length)
        parts.append(Part(f"{label} sub-norm", norm_params, 0, norm_flop, None, "none", ("a",), ("a",)))
    gate_flop = ACTIVATION_FLOP[m.gate_function]  # sigmoid, or Laguna's softplus
    if m.output_gate:  # sigmoid(gate)·output, element-wise
        parts.append(Part(f"{label} output gate", 0, 0, (gate_flop + 1) * length * h * q, None,
                          "none", ("a", "og"), ("a",)))
    if m.head_gate:  # LFM3: g = x·W_g (d→H), each head's output × sigmoid(g)
        parts += [linear(f"{label} head gate projection", d, h, False, length, src=(read,), dst=("hg",),
                         role="head gate"),
                  Part(f"{label} head gate", 0, 0, gate_flop * length * h + length * h * v, None,
                       "none", ("a", "hg"), ("a",))]
    if m.attention_experts:
        return attention_experts(block, label, d, length, parts, read)
    return parts + [
        linear(f"{label} output projection", h * v, d, m.out_bias, length,
                extra_flop=length * d, src=("a",), dst=("x",), also=("x",), role="o"),  # + the residual add
    ]


def idle_cross_attention(block, d: int) -> Part:
    """A cross-attention the block holds and does not run (``idle_cross_attention`` C): q and output d→H·Q→d, k and v
    C→H·Q (biases as the self-attention's), and its norm; parameters only, read and written by nothing."""
    m = block.mixer
    h, _, q = m.attention_sizes(d)
    width = block.idle_cross_attention
    params = sum(dense_cost(n_in, n_out, bias)[0] for n_in, n_out, bias in (
        (d, h * q, m.qkv_bias), (width, h * q, m.qkv_bias and m.key_bias), (width, h * q, m.qkv_bias),
        (h * q, d, m.out_bias)))
    return Part("cross-attention (held, not run without an encoder)", params + block.norms.cost(d, 0)[0], 0, 0, None,
                "none", (), ())


def attention_experts(block, label: str, d: int, length: int, parts: list[Part], read: str) -> list[Part]:
    """JetMoE's mixture of attention heads (``JetMoeMoA``): a router d→E (softmax over the top k), the q projection
    as E experts d→H_kv·Q at the L·k token–expert pairs, the scores and values of H = k·H_kv heads as any grouped
    attention, the output projection as E experts H_kv·Q→d at the L·k pairs, weighted by the router and summed,
    plus one bias d (full: the k-way weighted sum, the bias and the residual add)."""
    m = block.mixer
    e, k = block.feed_forward.count, block.feed_forward.active
    _, h_kv, q = m.attention_sizes(d)
    router = linear(f"{label} router", d, e, False, length, src=(read,), dst=("ar",), role="attention router")
    out = [router._replace(extra_flop=router.extra_flop + ACTIVATION_FLOP["softmax"] * length * k)]
    for p in parts:
        if p.role == "q":
            p = scaled(linear(f"{label} q projection (experts)", d, h_kv * q, False, length * k, src=p.src,
                                dst=p.dst, role="q"), e, k)
        out.append(p)
    o = scaled(linear(f"{label} output projection (experts)", h_kv * q, d, False, length * k,
                        extra_flop=(2 * k - 1) * length * d + 2 * length * d, src=("a",), dst=("x",),
                        also=("x", "ar"), role="o"), e, k)
    return out + [o._replace(params=o.params + d, active_params=o.active_params + d)]  # + the output bias


def position_terms(block, label: str, d: int, length: int) -> list[Part]:
    """DeBERTa's position terms (``TransformerBlock.disentangled``): the projections of the 2S' table rows it
    reads ("r"), then c2p (queries × position keys) and p2c (keys × position queries), H·L·2S'·Q MACs each,
    gathered by distance and added into the scores (full: H·L² adds each). The products come after the content
    scores they add into."""
    m = block.mixer
    spec = m.disentangled
    h, _, q = m.attention_sizes(d)
    rows = spec.rows(length)
    projections, products = [], []
    if spec.shared_projections:  # the layer's own q and k weights (counted in the content projections); both run,
        # a term that is not computed leaves its projection unread: no gradient reaches it
        for name, dst, bias, term in (("q", "pq", m.qkv_bias, "p2c"),
                                      ("k", "pk", m.qkv_bias and m.key_bias, "c2p")):
            row = linear(f"{label} position {name} projection ({name}'s weights)", d, h * q, bias, rows,
                          src=("r",), dst=(dst,), role="reused")
            projections.append(row._replace(params=0) if term in spec.terms else
                               row._replace(params=0, src=(), role="unread"))
    else:
        if "c2p" in spec.terms:
            projections.append(linear(f"{label} position key projection", d, h * q, spec.position_key_bias, rows,
                                       src=("r",), dst=("pk",), role="position"))
        if "p2c" in spec.terms:
            projections.append(linear(f"{label} position query projection", d, h * q, True, rows, src=("r",),
                                       dst=("pq",), role="position"))
    for term, src in (("c2p", ("q", "pk")), ("p2c", ("k", "pq"))):
        if term in spec.terms:
            products.append(Part(f"{label} {term} scores", 0, h * length * rows * q, h * length * length, None,
                                 "product", src, ("s",), ("s",)))
    return projections + products


def latent_attention(block, label: str, d: int, length: int, pairs: int, read: str = "h") -> list[Part]:
    """DeepSeek's multi-head latent attention, as ``DeepseekV3Attention`` computes it (keys and values
    decompressed from the latent for every position)."""
    m = block.mixer
    h, _, q = m.attention_sizes(d)
    r, v, c = m.rope_head_size, m.value_head_size, m.kv_lora_rank
    qk = q + r
    parts = []
    if m.q_lora_rank:
        cq = m.q_lora_rank
        norm_params, norm_flop = block.norms.cost(cq, length)
        parts += [linear(f"{label} q down-projection", d, cq, m.qkv_bias, length, src=(read,), dst=("qa",),
                          role="q down"),
                  Part(f"{label} q latent norm", norm_params, 0, norm_flop, None, "none", ("qa",), ("qa",)),
                  linear(f"{label} q up-projection", cq, h * qk, False, length, src=("qa",), dst=("q",),
                          role="q up")]
    else:  # q_proj: LoRA's q
        parts.append(linear(f"{label} q projection", d, h * qk, False, length, src=(read,), dst=("q",), role="q"))
    if m.indexer_heads:
        parts += lightning_indexer(block, label, d, length, pairs)
    norm_params, norm_flop = block.norms.cost(c, length)
    if m.scales:  # LongCat-Flash: q·√(d/c_q) (every query channel), normed key latent·√(d/c)
        norm_flop += length * (h * qk + c)
    if m.rescale:  # Dots 3: the normed query latent·√(d/c_q), the normed key latent·√(d/c)
        norm_flop += length * ((m.q_lora_rank or 0) + c)
    if m.rope_key_norm:  # Dots 3: an RMSNorm of the shared rotary key (γ of R)
        rope_params, rope_flop = block.norms.cost(r, length)
        norm_params, norm_flop = norm_params + rope_params, norm_flop + rope_flop
    return parts + [
        linear(f"{label} kv down-projection", d, c + r, m.qkv_bias, length, src=(read,), dst=("ka",),
                role="kv down"),
        Part(f"{label} kv latent norm", norm_params, 0, norm_flop, None, "none", ("ka",), ("kn",)),
        linear(f"{label} kv up-projection", c, h * (q + v), False, length, src=("kn",), dst=("k", "v"),
                also=("ka",), role="kv up"),  # the rotary key comes straight from the down-projection
        Part(f"{label} scores QKᵀ", h if m.sinks else 0, h * pairs * qk,
             softmax_and_scale_flop(h * pairs), None, "product", ("q", "k"), ("s",)),
        Part(f"{label} values AV", 0, h * pairs * v, 0, None, "product", ("s", "v"), ("a",)),
    ] + ([  # HY-V4: g = x·W_g (d→H·V), output × sigmoid(g) element-wise
        linear(f"{label} output gate projection", d, h * v, False, length, src=(read,), dst=("lg",)),
        Part(f"{label} output gate", 0, 0, (ACTIVATION_FLOP[m.gate_function] + 1) * length * h * v, None,
             "none", ("a", "lg"), ("a",)),
    ] if m.gate else []) + ([  # Dots 3: g = x·W_g (d→H), each head's output × sigmoid(g)
        linear(f"{label} head gate projection", d, h, False, length, src=(read,), dst=("hg",), role="head gate"),
        Part(f"{label} head gate", 0, 0, ACTIVATION_FLOP[m.gate_function] * length * h + length * h * v, None,
             "none", ("a", "hg"), ("a",)),
    ] if m.head_gate else []) + [
        linear(f"{label} output projection", h * v, d, m.out_bias, length, extra_flop=length * d,
                src=("a",), dst=("x",), also=("x",), role="o"),  # o_proj: LoRA's o
    ]


def lightning_indexer(block, label: str, d: int, length: int, pairs: int) -> list[Part]:
    """DeepSeek sparse attention's lightning indexer (``TransformerBlock.indexer_heads`` H_I of D_I), as
    ``DeepseekV32Indexer`` runs it: queries c_q→H_I·D_I from the query latent, one key d→D_I and its LayerNorm
    (γ, β), head weights d→H_I; ReLU(scale·q·k) for each head and query–key pair (H_I·D_I MACs a pair), summed over
    the heads by the weights (H_I MACs a pair); the top keys then mask the attention (no arithmetic). It runs under
    ``torch.no_grad``: no backward, and its weights get no gradient (frozen). Full: the LayerNorm, scale and ReLU
    on each score, the weights' scale."""
    m = block.mixer
    h_i, d_i = m.indexer_heads, m.indexer_head_size
    ln_params, _, ln_extra = layer_norm_cost(d_i, d_i, True, True)
    src, frozen = (NO_GRAD,), {"frozen": True, "role": "indexer"}
    return [
        linear(f"{label} indexer q projection", m.q_lora_rank, h_i * d_i, False, length, src=src,
                dst=("iq",))._replace(**frozen),
        linear(f"{label} indexer k projection", d, d_i, False, length, extra_flop=length * ln_extra, src=src,
                dst=("ik",))._replace(**frozen),
        Part(f"{label} indexer k norm", ln_params, 0, 0, None, "none", ("ik",), ("ik",), frozen=True, role="indexer"),
        linear(f"{label} indexer head weights", d, h_i, False, length, extra_flop=length * h_i, src=src,
                dst=("iw",))._replace(**frozen),
        Part(f"{label} indexer scores", 0, h_i * pairs * d_i, 2 * h_i * pairs, None, "product", ("iq", "ik"),
             ("is",), role="indexer"),
        Part(f"{label} indexer weighted sum", 0, h_i * pairs, 0, None, "product", ("iw", "is"), ("ix",),
             role="indexer"),
    ]


def block_indexer(block, label: str, d: int, length: int, pairs: int, read: str) -> list[Part]:
    """MiniMax-M3's indexer on plain attention (``TransformerBlock.indexer_heads`` H_I of D_I), as
    ``MiniMaxM3VLIndexer`` runs it: queries d→H_I·D_I and one key d→D_I from the block's input, each head normed by
    an RMSNorm of D_I (a γ each for queries and key); H_I·D_I MACs per query–key pair; the scores are max-pooled by
    key blocks and the top blocks mask the attention (selection: not counted). Its output is block indices, so no
    gradient flows back into it: no backward, and its weights get none (frozen). Full: the two norms."""
    m = block.mixer
    h_i, d_i = m.indexer_heads, m.indexer_head_size
    params, _, extra = rms_norm_cost(d_i, d_i, True)
    src, frozen = (NO_GRAD,), {"frozen": True, "role": "indexer"}
    return [
        linear(f"{label} indexer q projection", d, h_i * d_i, False, length, src=src, dst=("iq",))._replace(**frozen),
        linear(f"{label} indexer k projection", d, d_i, False, length, src=src, dst=("ik",))._replace(**frozen),
        Part(f"{label} indexer q/k norms", 2 * params, 0, length * (h_i + 1) * extra, None, "none", ("iq", "ik"),
             ("iq", "ik"), frozen=True, role="indexer"),
        Part(f"{label} indexer scores", 0, h_i * pairs * d_i, 0, None, "product", ("iq", "ik"), ("is",),
             role="indexer"),
    ]
