"""The parts of a transformer block (``engine.method1.transformer.TransformerBlock``) as rows: norms, attention
(multi-head, grouped-query, latent), the feed-forward network (dense, gated, mixture of experts with shared
experts) and LoRA adapters on chosen projections. Each row carries its place in the block's data flow
(``src``, ``dst``, ``also``) for the backward pass (``engine.method1.backward.parts_grad``)."""
from __future__ import annotations

from engine.method1.backward import lora_cost
from engine.errors import InputError
from engine.method1.conventions import ACTIVATION_FLOP
from engine.method1.layers import Part
from engine.method1.ops import dense_cost, layer_norm_cost, rms_norm_cost, softmax_and_scale_flop


def unmasked_pairs(length: int, window: int | None = None) -> int:
    """Query–key pairs a causal mask keeps: query i sees keys max(0, i − W + 1) … i, i.e. min(i + 1, W) of
    them; Σ = L(L+1)/2 without a window (or W ≥ L), W(W+1)/2 + (L − W)·W with one."""
    if window is None or window >= length:
        return length * (length + 1) // 2
    return window * (window + 1) // 2 + (length - window) * window


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


def norm_cost(block, width: int, positions: int) -> tuple[int, int]:
    """(params, full-convention FLOP) of one of this block's norms over ``positions`` vectors of ``width``."""
    if block.norm == "layernorm":
        params, _, extra = layer_norm_cost(width, width, block.norm_affine, block.norm_bias)
    else:
        params, _, extra = rms_norm_cost(width, width, block.norm_affine)
    return params, positions * extra


def norm(block, label: str, d: int, length: int, *, src: str = "x", dst: str = "h",
          also: tuple[str, ...] = ()) -> Part:
    params, extra = norm_cost(block, d, length)
    return Part(f"{label} norm", params, 0, extra, None, "none", (src,), (dst,), also)


def attention(block, label: str, d: int, length: int, memory: int, half: bool,
               window: int | None, read: str = "h", kv_read: str = "x") -> list[Part]:
    """Queries from the L positions, keys and values from ``memory`` positions (L for self-attention);
    ``half``: only the pairs the causal mask keeps (``unmasked_pairs``, within ``window``). ``read``: what
    the queries (and, for self-attention, the keys and values) read; ``kv_read`` "m": an encoder memory."""
    h, h_kv, q = block.attention_sizes(d)
    pairs = unmasked_pairs(length, window) if half else length * memory
    if block.kv_lora_rank is not None:
        return latent_attention(block, label, d, length, pairs, read)
    kv_src = ("m",) if kv_read == "m" else (read,)
    sinks = h if block.attention_sinks else 0
    local = block.local_radius is not None and kv_read != "m"
    globals_, kv_positions, parts = 0, memory, []
    if local:  # LongT5: blocks of b; each query scores its block and the two beside it (zero-padded)
        b = block.local_radius + 1
        padded = -(-length // b) * b
        globals_ = length // block.global_block_size if block.global_block_size else 0
        pairs = padded * (3 * b + globals_)
        if block.global_block_size:  # block sums (a product with a one-hot matrix), normed, then keyed and valued
            norm_params, norm_flop = norm_cost(block, d, globals_)
            parts += [Part(f"{label} global block sums", 0, length * d * globals_, 0, None, "linear", (read,),
                           ("gs",)),
                      Part(f"{label} global norm", norm_params, 0, norm_flop, None, "none", ("gs",), ("gs",))]
            kv_positions += globals_
            kv_src += ("gs",)
    # values from keys (Gemma 4's attention_k_eq_v): the key projection's output is the values too
    kv_name = f"{label} k projection (the values too)" if block.values_from_keys else f"{label} k/v projections"
    v = block.value_size or q  # MiMo-V2: values of their own size
    kv = _linear(kv_name, d, h_kv * q if block.values_from_keys else h_kv * (q + v), block.qkv_bias, kv_positions,
                 src=kv_src, dst=("k", "v"), role="k" if block.values_from_keys else "kv")
    if block.qkv_bias and not block.key_bias:
        kv = kv._replace(params=kv.params - h_kv * q, extra_flop=kv.extra_flop - kv_positions * h_kv * q)  # v only
    gate = block.attention_output_gate  # the q projection also makes the output gate (2·H·Q wide)
    parts += [_linear(f"{label} q projection" + (" (q, output gate)" if gate else ""), d, (2 if gate else 1) * h * q,
                      block.qkv_bias, length, src=(read,), dst=("q", "og") if gate else ("q",), role="q")]
    if not block.kv_shared:  # a layer sharing an earlier layer's keys and values reads them ("k", "v": seeds)
        parts.append(kv)
    if block.qk_norm == "each_head":  # a γ per head and channel (no β): H·Q and H_kv·Q parameters
        extra = layer_norm_cost(q, q, True, False)[2] if block.norm == "layernorm" else rms_norm_cost(q, q, True)[2]
        parts.append(Part(f"{label} q/k norms", (h + h_kv) * q, 0, (length * h + memory * h_kv) * extra,
                          None, "none", ("q", "k"), ("q", "k")))
    elif block.qk_norm != "none":
        q_params, q_flop = norm_cost(block, q if block.qk_norm == "head" else h * q, 1)
        k_params, k_flop = norm_cost(block, q if block.qk_norm == "head" else h_kv * q, 1)
        per_head = block.qk_norm == "head"
        if block.kv_shared:  # the keys were normed in the layer that made them
            parts.append(Part(f"{label} q norm", q_params, 0, length * q_flop * (h if per_head else 1), None, "none",
                              ("q",), ("q",)))
        else:
            parts.append(Part(f"{label} q/k norms", q_params + k_params, 0,
                              length * q_flop * (h if per_head else 1) + memory * k_flop * (h_kv if per_head else 1),
                              None, "none", ("q", "k"), ("q", "k")))
    if block.value_norm and not block.kv_shared:  # RMS over each value head, no gain
        parts.append(Part(f"{label} value norm", 0, 0, memory * h_kv * rms_norm_cost(q, q, False)[2], None, "none",
                          ("v",), ("v",)))
    if block.indexer_heads:  # MiniMax-M3's sparse layers: an indexer picks the key blocks (masking only)
        parts += block_indexer(block, label, d, length, pairs, read)
    calls = 2 if block.differential else 1  # DiffLlama: two attention calls over the same q and k
    scores = Part(f"{label} scores QKᵀ", sinks, calls * h * pairs * q, calls * softmax_and_scale_flop(h * pairs), None,
                  "product", ("q", "k"), ("s",))
    positions = [] if block.disentangled is None else position_terms(block, label, d, length)
    products = [p for p in positions if p.op == "product"]
    parts += [p for p in positions if p.op != "product"] + [scores] + products + [
        Part(f"{label} values AV", 0, calls * h * pairs * v, 0, None, "product", ("s", "v"), ("a",)),
    ]
    if block.differential:  # λ = exp(λq1·λk1) − exp(λq2·λk2) + λ_init; a1 − λ·a2, a gainless RMSNorm of 2Q, scaled
        parts.append(Part(f"{label} differential λ", 4 * q, 0, 4 * q + 2 * length * h * q
                          + rms_norm_cost(2 * q, 2 * q, False)[2] * length * h // 2 + length * h * q, None, "none",
                          ("a",), ("a",)))
    if block.sub_norms:  # BitNet: a norm of the attention's output before the output projection
        norm_params, norm_flop = norm_cost(block, h * q, length)
        parts.append(Part(f"{label} sub-norm", norm_params, 0, norm_flop, None, "none", ("a",), ("a",)))
    gate_flop = ACTIVATION_FLOP[block.gate_function]  # sigmoid, or Laguna's softplus
    if block.attention_output_gate:  # sigmoid(gate)·output, element-wise
        parts.append(Part(f"{label} output gate", 0, 0, (gate_flop + 1) * length * h * q, None,
                          "none", ("a", "og"), ("a",)))
    if block.head_gate:  # LFM3: g = x·W_g (d→H), each head's output × sigmoid(g)
        parts += [_linear(f"{label} head gate projection", d, h, False, length, src=(read,), dst=("hg",), role="head gate"),
                  Part(f"{label} head gate", 0, 0, gate_flop * length * h + length * h * v, None,
                       "none", ("a", "hg"), ("a",))]
    if block.attention_experts:
        return _attention_experts(block, label, d, length, parts, read)
    return parts + [
        _linear(f"{label} output projection", h * v, d, block.out_bias, length,
                extra_flop=length * d, src=("a",), dst=("x",), also=("x",), role="o"),  # + the residual add
    ]


def idle_cross_attention(block, d: int) -> Part:
    """A cross-attention the block holds and does not run (``idle_cross_attention`` C): q and output d→H·Q→d, k and v
    C→H·Q (biases as the self-attention's), and its norm; parameters only, read and written by nothing."""
    h, _, q = block.attention_sizes(d)
    width = block.idle_cross_attention
    params = sum(dense_cost(n_in, n_out, bias)[0] for n_in, n_out, bias in (
        (d, h * q, block.qkv_bias), (width, h * q, block.qkv_bias and block.key_bias), (width, h * q, block.qkv_bias),
        (h * q, d, block.out_bias)))
    return Part("cross-attention (held, not run without an encoder)", params + norm_cost(block, d, 0)[0], 0, 0, None,
                "none", (), ())


def _attention_experts(block, label: str, d: int, length: int, parts: list[Part], read: str) -> list[Part]:
    """JetMoE's mixture of attention heads (``JetMoeMoA``): a router d→E (softmax over the top k), the q projection
    as E experts d→H_kv·Q at the L·k token–expert pairs, the scores and values of H = k·H_kv heads as any grouped
    attention, the output projection as E experts H_kv·Q→d at the L·k pairs, weighted by the router and summed,
    plus one bias d (full: the k-way weighted sum, the bias and the residual add)."""
    e, k = block.experts, block.active_experts
    _, h_kv, q = block.attention_sizes(d)
    router = _linear(f"{label} router", d, e, False, length, src=(read,), dst=("ar",), role="attention router")
    out = [router._replace(extra_flop=router.extra_flop + ACTIVATION_FLOP["softmax"] * length * k)]
    for p in parts:
        if p.role == "q":
            p = _scaled(_linear(f"{label} q projection (experts)", d, h_kv * q, False, length * k, src=p.src,
                                dst=p.dst, role="q"), e, k)
        out.append(p)
    o = _scaled(_linear(f"{label} output projection (experts)", h_kv * q, d, False, length * k,
                        extra_flop=(2 * k - 1) * length * d + 2 * length * d, src=("a",), dst=("x",),
                        also=("x", "ar"), role="o"), e, k)
    return out + [o._replace(params=o.params + d, active_params=o.active_params + d)]  # + the output bias


def position_terms(block, label: str, d: int, length: int) -> list[Part]:
    """DeBERTa's position terms (``TransformerBlock.disentangled``): the projections of the 2S' table rows it
    reads ("r"), then c2p (queries × position keys) and p2c (keys × position queries), H·L·2S'·Q MACs each,
    gathered by distance and added into the scores (full: H·L² adds each). The products come after the content
    scores they add into."""
    spec = block.disentangled
    h, _, q = block.attention_sizes(d)
    rows = spec.rows(length)
    projections, products = [], []
    if spec.shared_projections:  # the layer's own q and k weights (counted in the content projections); both run,
        # a term that is not computed leaves its projection unread: no gradient reaches it
        for name, dst, bias, term in (("q", "pq", block.qkv_bias, "p2c"),
                                      ("k", "pk", block.qkv_bias and block.key_bias, "c2p")):
            row = _linear(f"{label} position {name} projection ({name}'s weights)", d, h * q, bias, rows,
                          src=("r",), dst=(dst,), role="reused")
            projections.append(row._replace(params=0) if term in spec.terms else
                               row._replace(params=0, src=(), role="unread"))
    else:
        if "c2p" in spec.terms:
            projections.append(_linear(f"{label} position key projection", d, h * q, spec.position_key_bias, rows,
                                       src=("r",), dst=("pk",), role="position"))
        if "p2c" in spec.terms:
            projections.append(_linear(f"{label} position query projection", d, h * q, True, rows, src=("r",),
                                       dst=("pq",), role="position"))
    for term, src in (("c2p", ("q", "pk")), ("p2c", ("k", "pq"))):
        if term in spec.terms:
            products.append(Part(f"{label} {term} scores", 0, h * length * rows * q, h * length * length, None,
                                 "product", src, ("s",), ("s",)))
    return projections + products


def latent_attention(block, label: str, d: int, length: int, pairs: int, read: str = "h") -> list[Part]:
    """DeepSeek's multi-head latent attention, as ``DeepseekV3Attention`` computes it (keys and values
    decompressed from the latent for every position)."""
    h, _, q = block.attention_sizes(d)
    r, v, c = block.rope_head_size, block.value_head_size, block.kv_lora_rank
    qk = q + r
    parts = []
    if block.q_lora_rank:
        cq = block.q_lora_rank
        norm_params, norm_flop = norm_cost(block, cq, length)
        parts += [_linear(f"{label} q down-projection", d, cq, block.qkv_bias, length, src=(read,), dst=("qa",),
                          role="q down"),
                  Part(f"{label} q latent norm", norm_params, 0, norm_flop, None, "none", ("qa",), ("qa",)),
                  _linear(f"{label} q up-projection", cq, h * qk, False, length, src=("qa",), dst=("q",),
                          role="q up")]
    else:  # q_proj: LoRA's q
        parts.append(_linear(f"{label} q projection", d, h * qk, False, length, src=(read,), dst=("q",), role="q"))
    if block.indexer_heads:
        parts += lightning_indexer(block, label, d, length, pairs)
    norm_params, norm_flop = norm_cost(block, c, length)
    if block.latent_scales:  # LongCat-Flash: q·√(d/c_q) (every query channel), normed key latent·√(d/c)
        norm_flop += length * (h * qk + c)
    if block.latent_rescale:  # Dots 3: the normed query latent·√(d/c_q), the normed key latent·√(d/c)
        norm_flop += length * ((block.q_lora_rank or 0) + c)
    if block.rope_key_norm:  # Dots 3: an RMSNorm of the shared rotary key (γ of R)
        rope_params, rope_flop = norm_cost(block, r, length)
        norm_params, norm_flop = norm_params + rope_params, norm_flop + rope_flop
    return parts + [
        _linear(f"{label} kv down-projection", d, c + r, block.qkv_bias, length, src=(read,), dst=("ka",),
                role="kv down"),
        Part(f"{label} kv latent norm", norm_params, 0, norm_flop, None, "none", ("ka",), ("kn",)),
        _linear(f"{label} kv up-projection", c, h * (q + v), False, length, src=("kn",), dst=("k", "v"),
                also=("ka",), role="kv up"),  # the rotary key comes straight from the down-projection
        Part(f"{label} scores QKᵀ", h if block.attention_sinks else 0, h * pairs * qk,
             softmax_and_scale_flop(h * pairs), None, "product", ("q", "k"), ("s",)),
        Part(f"{label} values AV", 0, h * pairs * v, 0, None, "product", ("s", "v"), ("a",)),
    ] + ([  # HY-V4: g = x·W_g (d→H·V), output × sigmoid(g) element-wise
        _linear(f"{label} output gate projection", d, h * v, False, length, src=(read,), dst=("lg",)),
        Part(f"{label} output gate", 0, 0, (ACTIVATION_FLOP[block.gate_function] + 1) * length * h * v, None,
             "none", ("a", "lg"), ("a",)),
    ] if block.latent_gate else []) + ([  # Dots 3: g = x·W_g (d→H), each head's output × sigmoid(g)
        _linear(f"{label} head gate projection", d, h, False, length, src=(read,), dst=("hg",), role="head gate"),
        Part(f"{label} head gate", 0, 0, ACTIVATION_FLOP[block.gate_function] * length * h + length * h * v, None,
             "none", ("a", "hg"), ("a",)),
    ] if block.head_gate else []) + [
        _linear(f"{label} output projection", h * v, d, block.out_bias, length, extra_flop=length * d,
                src=("a",), dst=("x",), also=("x",), role="o"),  # o_proj: LoRA's o
    ]


NO_GRAD = "indexer input (no gradient)"
"""What the lightning indexer reads: the block's h and query latent, detached (``torch.no_grad``)."""


def lightning_indexer(block, label: str, d: int, length: int, pairs: int) -> list[Part]:
    """DeepSeek sparse attention's lightning indexer (``TransformerBlock.indexer_heads`` H_I of D_I), as
    ``DeepseekV32Indexer`` runs it: queries c_q→H_I·D_I from the query latent, one key d→D_I and its LayerNorm
    (γ, β), head weights d→H_I; ReLU(scale·q·k) for each head and query–key pair (H_I·D_I MACs a pair), summed over
    the heads by the weights (H_I MACs a pair); the top keys then mask the attention (no arithmetic). It runs under
    ``torch.no_grad``: no backward, and its weights get no gradient (frozen). Full: the LayerNorm, scale and ReLU
    on each score, the weights' scale."""
    h_i, d_i = block.indexer_heads, block.indexer_head_size
    ln_params, _, ln_extra = layer_norm_cost(d_i, d_i, True, True)
    src, frozen = (NO_GRAD,), {"frozen": True, "role": "indexer"}
    return [
        _linear(f"{label} indexer q projection", block.q_lora_rank, h_i * d_i, False, length, src=src,
                dst=("iq",))._replace(**frozen),
        _linear(f"{label} indexer k projection", d, d_i, False, length, extra_flop=length * ln_extra, src=src,
                dst=("ik",))._replace(**frozen),
        Part(f"{label} indexer k norm", ln_params, 0, 0, None, "none", ("ik",), ("ik",), frozen=True, role="indexer"),
        _linear(f"{label} indexer head weights", d, h_i, False, length, extra_flop=length * h_i, src=src,
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
    h_i, d_i = block.indexer_heads, block.indexer_head_size
    params, _, extra = rms_norm_cost(d_i, d_i, True)
    src, frozen = (NO_GRAD,), {"frozen": True, "role": "indexer"}
    return [
        _linear(f"{label} indexer q projection", d, h_i * d_i, False, length, src=src, dst=("iq",))._replace(**frozen),
        _linear(f"{label} indexer k projection", d, d_i, False, length, src=src, dst=("ik",))._replace(**frozen),
        Part(f"{label} indexer q/k norms", 2 * params, 0, length * (h_i + 1) * extra, None, "none", ("iq", "ik"),
             ("iq", "ik"), frozen=True, role="indexer"),
        Part(f"{label} indexer scores", 0, h_i * pairs * d_i, 0, None, "product", ("iq", "ik"), ("is",),
             role="indexer"),
    ]


def mlp(block, label: str, d: int, f: int, tokens: int, bias: bool, read: str = "h",
         out: str = "x") -> list[Part]:
    """up (and gate) d→F, down F→d at ``tokens`` positions; act(gate)·up or act(up) in the full count.
    The down projection reads act(gate)·up and adds into ``out``."""
    act = ACTIVATION_FLOP[block.activation]
    up = _linear(f"{label} up", d, f, bias, tokens, src=(read,), dst=("u",), role="up")
    parts = []
    if block.gated:
        parts.append(_linear(f"{label} gate", d, f, bias, tokens, extra_flop=(act + 1) * tokens * f,
                             src=(read,), dst=("g",), role="gate"))
    else:
        up = up._replace(extra_flop=up.extra_flop + act * tokens * f)
    down_src = ("g", "u") if block.gated else ("u",)
    parts.append(up)
    if block.activation == "xielu":  # xIELU's learned α_p and α_n: 2 parameters per MLP, no multiply-accumulate
        acted = down_src[:1]
        parts.append(Part(f"{label} xIELU α_p, α_n", 2, 0, 0, None, "none", acted, acted, role="activation"))
    if block.sub_norms:  # BitNet: a norm of act(gate)·up before the down projection
        norm_params, norm_flop = norm_cost(block, f, tokens)
        parts.append(Part(f"{label} sub-norm", norm_params, 0, norm_flop, None, "none", down_src, ("sn",)))
        down_src = ("sn",)
    down_bias = bias if block.down_bias == "same" else block.down_bias == "bias"  # GTE: a bias on the down projection only
    return parts + [_linear(f"{label} down", f, d, down_bias, tokens, src=down_src, dst=(out,),
                                also=(out,), role="down")]


def per_layer_input(block, d: int, length: int) -> list[Part]:
    """Gemma 4's per-layer input (``TransformerBlock.per_layer_input_size`` P), after the feed-forward: gate d→P,
    act(gate) times this layer's slice of the per-layer inputs ("pl", made by ``PerLayerEmbeddings``), projection
    P→d, a norm, added into x (full: the activation, the product, the norm and the add)."""
    p = block.per_layer_input_size
    act = ACTIVATION_FLOP[block.activation]
    norm_params, norm_flop = norm_cost(block, d, length)
    return [_linear("per-layer input gate", d, p, False, length, extra_flop=(act + 1) * length * p, src=("x",),
                    dst=("pg",), role="per-layer gate"),
            _linear("per-layer input projection", p, d, False, length, src=("pg", "pl"), dst=("po",),
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
    norm_params, norm_flop = norm_cost(block, d, length)
    router = _linear("AltUp router (predict)", d, n, False, length, extra_flop=norm_flop + length * n, src=("x",),
                     dst=("am",), role="altup")
    predict = [router._replace(params=router.params + norm_params),
               _linear("AltUp prediction coefficients", n, n * n, False, length, src=("am",), dst=("ac",),
                       role="altup"),
               # the N streams × the N×N coefficients, plus the streams (full: the add)
               Part("AltUp prediction", 0, length * d * n * n, length * d * n, None, "product", ("x", "ac"), ("x",),
                    ("x",))]
    again = _linear("AltUp router (correct, the same weights)", d, n, False, length,
                    extra_flop=norm_flop + length * n, src=("x",), dst=("cm",), role="reused")
    correct = [again._replace(params=0),
               _linear("AltUp correction coefficients", n, n, False, length, extra_flop=length * n, src=("cm",),
                       dst=("cc",), role="altup"),
               # innovation (1 subtract), times each stream's coefficient, plus the prediction; the output scale
               Part("AltUp correction and output scale", d, 0, length * d * (1 + 2 * n + 1), None, "none",
                    ("x", "cc"), ("x",))]
    return predict, correct


def laurel(block, d: int, length: int) -> list[Part]:
    """Gemma 3n's LAuReL (``TransformerBlock.laurel_rank`` r): the attention's normed input ("h") through d→r→d,
    a norm, added to it and into the residual (full: the adds and the 1/√2 scaling)."""
    r = block.laurel_rank
    norm_params, norm_flop = norm_cost(block, d, length)
    return [_linear("LAuReL left", d, r, False, length, src=("h",), dst=("lr",), role="laurel"),
            _linear("LAuReL right", r, d, False, length, src=("lr",), dst=("lo",), role="laurel"),
            Part("LAuReL norm", norm_params, 0, norm_flop + 3 * length * d, None, "none", ("lo", "h"), ("x",),
                 ("x",))]


def branch_experts(block, d: int, length: int) -> list[Part]:
    """Gemma 4's feed-forward with experts (``expert_branch_norms``): the dense gated MLP of F_s on the normed x
    ("h"), its output normed; the experts on x normed by a norm of their own ("he"), routed by a router that reads
    x (a norm without gain, × a scale of d, × d^-½, d→E, softmax; the top-k weights renormalised and × a scale per
    expert), their weighted sum normed; the two branches added (the block's output norm and residual follow)."""
    e, k, f = block.experts, block.active_experts, block.ff_size or 4 * d
    norm_params, norm_flop = norm_cost(block, d, length)
    dense = mlp(block, "feed-forward", d, block.shared_ff_size, length, block.ff_bias, "h", out="f")
    dense[-1] = dense[-1]._replace(also=())
    router = _linear("router", d, e, False, length, src=("x",), dst=("r",), role="router")
    router_extra = length * (rms_norm_cost(d, d, False)[2] + 2 * d + ACTIVATION_FLOP["softmax"] * e + 3 * k)
    router = router._replace(params=router.params + d + e, extra_flop=router.extra_flop + router_extra)
    experts = [_scaled(p, e, k) for p in mlp(block, "experts", d, f, length * k, block.ff_bias, "he", out="e")]
    # the k outputs weighted and summed: k multiplies, k−1 adds; the router's weights scale them
    experts[-1] = experts[-1]._replace(also=("r",), extra_flop=experts[-1].extra_flop + (2 * k - 1) * length * d)
    return dense + [
        Part("feed-forward branch output norm", norm_params, 0, norm_flop, None, "none", ("f",), ("o",)),
        Part("experts input norm", norm_params, 0, norm_flop, None, "none", ("x",), ("he",)),
        router] + experts + [
        # + the sum of the two branches and the residual add
        Part("experts branch output norm", norm_params, 0, norm_flop + 2 * length * d, None, "none", ("e",), ("o",),
             ("o",))]


def feed_forward(block, d: int, length: int, read: str = "h") -> list[Part]:
    if block.expert_branch_norms:
        return branch_experts(block, d, length)
    f = block.ff_size or 4 * d
    e, k = block.experts, block.active_experts
    moe = e > 1
    label = "experts" if moe else "feed-forward"
    parts = mlp(block, label, d, f, length * k, block.ff_bias, read)  # token–expert pairs: k experts per token
    # + the residual add; with experts, the k outputs weighted and summed: k multiplies, k−1 adds
    combine = (2 * k - 1) * length * d if moe else 0
    parts[-1] = parts[-1]._replace(extra_flop=parts[-1].extra_flop + length * d + combine)
    if not moe:
        return parts
    scored = e + (block.zero_experts or 0)  # LongCat-Flash's router also scores its zero experts
    router = _linear("router", d, scored, block.router_bias, length, src=(read,), dst=("r",), role="router")
    router = router._replace(extra_flop=router.extra_flop + ACTIVATION_FLOP["softmax"] * length * scored)
    parts = [router] + [_scaled(p, e, k) for p in parts]
    if block.zero_experts:  # the identity path x·Σw (picks of zero experts ran through a real expert at weight 0)
        parts[-1] = parts[-1]._replace(extra_flop=parts[-1].extra_flop + 2 * length * d)
    if block.expert_output_bias:  # one bias d on the combined output (JetMoE)
        down = parts[-1]
        parts[-1] = down._replace(params=down.params + d, active_params=down.active_params + d,
                                  extra_flop=down.extra_flop + length * d)
    parts[-1] = parts[-1]._replace(also=parts[-1].also + ("r",))  # the router's weights scale the outputs
    if block.shared_ff_size:
        shared_out = "sd" if block.shared_expert_gate else "x"
        shared = [p._replace(role=f"shared {p.role}")
                  for p in mlp(block, "shared expert", d, block.shared_ff_size, length, False, read, shared_out)]
        shared[-1] = shared[-1]._replace(extra_flop=shared[-1].extra_flop + length * d)  # + the routed output
        if block.shared_expert_gate:  # sigmoid(x·w) scales the shared expert's output
            shared[-1] = shared[-1]._replace(also=())
            gate = _linear("shared expert gate", d, 1, False, length, src=(read,), dst=("x",), also=("x", "sd"),
                           role="shared expert gate")
            shared.append(gate._replace(extra_flop=gate.extra_flop + (ACTIVATION_FLOP["sigmoid"] + d) * length))
        parts += shared
    return parts


def adapted(block, parts: list[Part], d: int, length: int) -> list[Part]:
    """With ``lora``: each targeted projection frozen and followed by its adapter (a fused k/v projection
    with only one of them targeted is split in two rows). Targets: q, k, v, o (self- and cross-attention),
    qkv (one adapter on the self-attention's fused q/k/v projection), gate, up, down (the dense or shared
    feed-forward), experts (every routed expert's gate, up and down)."""
    targets = block.lora_targets
    if not targets:
        return parts
    r, k_active = block.lora.rank, block.active_experts
    out: list[Part] = []
    hit_targets: set[str] = set()
    if "qkv" in targets:
        parts = _fused_qkv_adapted(parts, r)
        hit_targets.add("qkv")
    for p in parts:
        role = p.role
        n_in, n_out, positions = _shape_of(p)
        if role == "kv":
            hit_targets |= {"k", "v"} & set(targets)
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
        hit = ("experts" in targets) if expert else (name in targets and name in ("q", "k", "o", "gate", "up", "down"))
        if not hit:
            out.append(p)
            continue
        hit_targets.add("experts" if expert else name)
        frozen = p._replace(frozen=True)
        if expert:
            e = block.experts
            out += [frozen, _adapter(p, n_in, n_out, positions, r, e, k_active)]
        else:
            out += [frozen, _adapter(p, n_in, n_out, positions, r, dst=p.dst)]
    missed = [t for t in targets if t not in hit_targets]
    if missed:  # TransformerBlock refuses these by name; never an adapter silently left out
        raise InputError("lora.targets", f"'{missed[0]}' names no projection of this block")
    return out


def _fused_qkv_adapted(parts: list[Part], rank: int) -> list[Part]:
    """One adapter beside the self-attention's q and k/v projections as one fused projection N → M_q + M_kv (PEFT's
    ``c_attn`` on GPT-2): both frozen, A (N → r) and B (r → M_q + M_kv) at every position, its output added into q,
    k and v (full: scale and add, 2·(M_q + M_kv) per position)."""
    q = next(i for i, p in enumerate(parts) if p.role == "q" and p.name.startswith("attention q projection"))
    kv = next(i for i, p in enumerate(parts) if p.role == "kv" and p.name.startswith("attention k/v projections"))
    (n_in, q_out, positions), (_, kv_out, _) = parts[q].dims, parts[kv].dims
    n_out = q_out + kv_out
    params, a, b = lora_cost(n_in, n_out, rank)
    dst = parts[q].dst + parts[kv].dst
    adapter = Part("attention q/k/v LoRA (fused)", params, positions * (a + b), 2 * positions * n_out, None, "lora",
                   parts[q].src, dst, dst, False, positions * a, "lora", (n_in, n_out, positions))
    out = [p._replace(frozen=True) if i in (q, kv) else p for i, p in enumerate(parts)]
    return out[:max(q, kv) + 1] + [adapter] + out[max(q, kv) + 1:]


def input_convolution(block, d: int, length: int) -> tuple[Part, Part]:
    """DeBERTa-v2's ``ConvLayer`` (``TransformerBlock.input_convolution``): the convolution over the block's input x
    (K taps, G groups, biased; full: bias adds and the activation), and, after the block, the LayerNorm of the
    block's output plus it (full: + the add)."""
    conv = block.input_convolution
    per_out = d // conv.groups * conv.kernel
    act = ACTIVATION_FLOP[conv.activation]
    norm_params, norm_flop = norm_cost(block, d, length)
    return (Part("input convolution", d * per_out + d, length * d * per_out, length * d * (1 + act), None, "linear",
                 ("x",), ("cv",), role="convolution", dims=(per_out, d, length)),
            Part("input convolution norm", norm_params, 0, norm_flop + length * d, None, "none", ("x", "cv"), ("x",)))


def _bottleneck(label: str, n_in: int, rank: int, n_out: int, positions: int, src: str, dst: tuple[str, ...],
                own: str) -> list[Part]:
    """A trained low-rank branch N→r→M (Zamba's per-use adapters: part of the model, not LoRA's frozen base), its
    output added to ``dst``: r·(N + M) params, (N + M)·r MACs per position (full: + M adds)."""
    return [_linear(f"{label} adapter down", n_in, rank, False, positions, src=(src,), dst=(own,), role="adapter"),
            _linear(f"{label} adapter up", rank, n_out, False, positions, extra_flop=positions * n_out, src=(own,),
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
    h, h_kv, q = b.attention_sizes(w)
    norm_params, norm_flop = norm_cost(b, w, length)
    parts = [Part("shared block norm of [x, embeddings]", norm_params, 0, norm_flop, None, "none", ("x", "e"),
                  ("c",))]
    for p in attention(b, "shared attention", w, length, length, b.causal_count == "half", None, "c")[:-1]:
        parts.append(p)
        if use.adapter_rank and use.attention_adapters and p.role in ("q", "kv"):
            for name in ("q",) if p.role == "q" else ("k", "v"):
                parts += _bottleneck(f"shared attention {name}", w, use.adapter_rank, w, length, "c", (name,),
                                     f"{name}r")
    f = b.ff_size or 4 * d
    mlp_rows = mlp(b, "shared feed-forward", d, f, length, b.ff_bias, read="h2", out="f")
    mlp_rows[-1] = mlp_rows[-1]._replace(also=())  # no residual inside the shared block
    parts += [_linear("shared attention output projection", h * q, d, b.out_bias, length, src=("a",), dst=("ao",),
                      role="o"),
              norm(b, "shared feed-forward", d, length, src="ao", dst="h2")] + mlp_rows[:-1]
    if use.adapter_rank:
        parts += _bottleneck("shared feed-forward gate/up", d, use.adapter_rank, 2 * f, length, "h2", ("g", "u"),
                             "fr")
    parts += [mlp_rows[-1], _linear("shared block projection", d, d, False, length, src=("f",), dst=("t",),
                                    role="projection")]
    if use.idle_adapters:  # untied copies hold the adapters of every use of their block; only this use's run
        per_use = use.adapter_rank * ((d + 2 * f) + (3 * 2 * w if use.attention_adapters else 0))
        parts.append(Part("shared block adapters of its other uses (idle)", use.idle_adapters * per_use, 0, 0,
                          None, "none", (), (), frozen=True, role="adapter"))
    if b.shared_weights:  # counted where the weights first appear; the adapters and projection are this use's
        parts = [p if p.role in ("adapter", "projection") else p._replace(params=0) for p in parts]
    return parts
