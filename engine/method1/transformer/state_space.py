"""Mamba's selective state-space mixer (Gu & Dao 2023) as the rows of a block (``TransformerBlock`` with
``mixer="mamba"``), counted as transformers' ``MambaMixer`` computes it without the CUDA kernels; Mamba-2's
(Dao & Gu 2024, ``mixer="mamba2"``) below, as ``Mamba2Mixer``'s torch path computes it.

Symbols: d model width, L positions, I inner width (expand·d), N state size, K convolution width, R rank of
the time-step projection Δ.

Matmul convention (what ``FlopCounterMode`` sees): in projection d→2I (x and the gate z), the causal
depthwise convolution of width K over I channels, zero-padded by K − 1 on both sides as ``nn.Conv1d``
computes it (I·K·(L + K − 1) multiply-accumulates: the K − 1 extra outputs are computed and dropped),
x projection I→R+2N (Δ, B, C), Δ projection R→I, the read-out y = C·h of the scan (an N-long dot product
per position and channel: I·N multiply-accumulates per position, a matmul), out projection I→d.

The scan's element-wise recurrence is not a matmul, so ``FlopCounterMode`` counts nothing of it; the
``full`` convention counts it: per position and channel, Ā = exp(Δ·A) (2 per state), Δ·B·u (2 per
state), h ← Ā·h + B̄u (2 per state), y + D·u (2), y·SiLU(z) (SiLU + 1): 6·I·N + 2·I + 6·I per position,
plus 2·I·N once for A = −exp(log A); the convolution's bias and SiLU, Δ's bias and softplus (3).
Parameters: A (I×N, stored as its log) and D (I) besides the projections and the convolution; Jamba's mixer
(``ssm_norms``) adds RMS norms with gains on Δ (R), B and C (N each) after the x projection: R + 2N parameters,
no products (full: the norms' 4 FLOP per element).
"""
from __future__ import annotations

from ..conventions import ACTIVATION_FLOP
from ..layers import Part
from ..ops import rms_norm_cost
from .rows import linear

SOFTPLUS_FLOP = 3
"""softplus(x) = log(1 + exp(x)): exp, add, log."""


def scan_full_flop(length: int, inner: int, state: int) -> int:
    """The selective scan's element-wise FLOP (``full`` convention only): 6·I·N + 2·I + (SiLU + 1)·I per
    position, + 2·I·N once (A = −exp(log A))."""
    silu = ACTIVATION_FLOP["silu"]
    return length * (6 * inner * state + 2 * inner + (silu + 1) * inner) + 2 * inner * state


def mamba(m, d: int, length: int, read: str = "h") -> list[Part]:
    """The mixer's rows, wired as a data flow: ``read`` (the norm's output) → … → added into ``x``."""
    i, n, k, r = m.inner_size, m.state_size, m.conv_kernel, m.dt_rank
    conv_params = i * k + (i if m.conv_bias else 0)
    conv_extra = length * i * ((1 if m.conv_bias else 0) + ACTIVATION_FLOP["silu"])
    norms = []
    if m.norms:  # Jamba: RMSNorm(R) of Δ, RMSNorm(N) of B and of C, each with a gain
        norms = [Part("mamba Δ, B, C RMS norms", r + 2 * n, 0, sum(rms_norm_cost(length * w, w, True).extra_flop
                                                                   for w in (r, n, n)), None, "none", ("v",), ("v",))]
    return [
        linear("mamba in projection", d, 2 * i, m.bias, length, src=(read,), dst=("q",), role="in"),
        Part("mamba causal convolution", conv_params, i * k * (length + k - 1), conv_extra, None, "linear",
             ("q",), ("k",)),
        linear("mamba x projection (Δ, B, C)", i, r + 2 * n, False, length, src=("k",), dst=("v",), role="x"),
        *norms,
        linear("mamba Δ projection", r, i, True, length, extra_flop=length * i * SOFTPLUS_FLOP, src=("v",),
                dst=("s",), role="dt"),
        Part("mamba selective scan", i * n + i, length * i * n, scan_full_flop(length, i, n), None, "product",
             ("k", "s", "v"), ("a",)),
        linear("mamba out projection", i, d, m.bias, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add
    ]


# ---------------------------------------------------------------- Mamba-2: grouped heads and the chunked SSD scan

def chunks(length: int, chunk: int) -> tuple[int, int]:
    """(L_p, c): the length padded to whole chunks of Q positions, as transformers' chunked scan pads it, and
    the number of chunks."""
    padded = -(-length // chunk) * chunk
    return padded, padded // chunk


def ssd_macs(length: int, heads: int, head_dim: int, state: int, chunk: int) -> tuple[int, int, int, int, int]:
    """The multiply-accumulates of the chunked scan's five products (transformers' ``mamba2_chunk_scan``, which
    repeats B and C from their G groups to the H heads), over the padded length L_p = c·Q:
    C·Bᵀ within each chunk L_p·Q·H·N; those scores × x (the diagonal blocks) L_p·Q·H·P; each chunk's state
    B·x L_p·H·P·N; the states passed from chunk to chunk (c+1)²·H·P·N; the read-out of the passed states
    C·s L_p·H·P·N."""
    padded, count = chunks(length, chunk)
    return (padded * chunk * heads * state, padded * chunk * heads * head_dim, padded * heads * head_dim * state,
            (count + 1) ** 2 * heads * head_dim * state, padded * heads * head_dim * state)


def ssd_full_flop(length: int, heads: int, head_dim: int, state: int, chunk: int) -> int:
    """The chunked scan's element-wise FLOP (``full`` convention only; FlopCounterMode counts none of them), with
    I = H·P: per position, Δ + bias and softplus (4·H), x·Δ (I), A·Δ (H); per padded position, D·x (I), the
    cumulative sum of A·Δ (H), the chunk's segment sums, their exp and the mask product (3·H·Q), the decay to
    the chunk's end (exp of a difference: 2·H), B × that decay (H·N), the decay from the chunk's start (H), the
    read-out × it (I), the two outputs' sum (I), + D·x (I); the inter-chunk segment sums and exp 2·H·(c+1)²;
    A = −exp(log A) once (2·H)."""
    inner = heads * head_dim
    padded, count = chunks(length, chunk)
    return (length * ((1 + SOFTPLUS_FLOP) * heads + inner + heads)
            + padded * (4 * inner + 4 * heads + 3 * heads * chunk + heads * state)
            + 2 * heads * (count + 1) ** 2 + 2 * heads)


def mamba2(m, d: int, length: int, read: str = "h") -> list[Part]:
    """Mamba-2's mixer (transformers' ``Mamba2Mixer`` without the CUDA kernels) as rows: in projection
    d→2I+2GN+H (z, x, B, C, Δ), the causal depthwise convolution over x, B and C (I+2GN channels, + bias, SiLU),
    the chunked scan's five products (``ssd_macs``; Δ's bias, A and D: 3·H parameters), the gated RMS norm over
    G groups (y·SiLU(z), normalised per group, × γ: I parameters; without ``ssm_gated_norm``, y·SiLU(z) alone), out
    projection I→d (``ssm_out_bias`` where it differs from the in projection's; + the residual add)."""
    i, n, k = m.inner_size, m.state_size, m.conv_kernel
    h, g, q = m.heads, m.groups, m.chunk_size
    p = i // h
    channels = i + 2 * g * n
    conv_params = channels * k + (channels if m.conv_bias else 0)
    conv_extra = length * channels * ((1 if m.conv_bias else 0) + ACTIVATION_FLOP[m.activation])
    scores, diagonal, states, passing, read_out = ssd_macs(length, h, p, n, q)
    gate = length * i * (ACTIVATION_FLOP["silu"] + 1)
    if m.gated_norm:
        norm = Part("mamba2 gated RMS norm", i, 0, gate + rms_norm_cost(length * i, i, True).extra_flop, None, "none",
                    ("y", "q"), ("a",))
    else:  # Falcon-H1 without mamba_rms_norm: y·SiLU(z) alone
        norm = Part("mamba2 gate y·SiLU(z)", 0, 0, gate, None, "none", ("y", "q"), ("a",))
    out_bias = m.bias if m.out_bias == "same" else m.out_bias == "bias"
    return [
        linear("mamba2 in projection (z, x, B, C, Δ)", d, 2 * i + 2 * g * n + h, m.bias, length, src=(read,),
                dst=("q",), role="in"),
        Part("mamba2 causal convolution", conv_params, channels * k * (length + k - 1), conv_extra, None, "linear",
             ("q",), ("k",)),
        Part("mamba2 scan: C·Bᵀ within chunks", 0, scores, 0, None, "product", ("k", "k"), ("g",)),
        Part("mamba2 scan: diagonal blocks", 3 * h, diagonal, ssd_full_flop(length, h, p, n, q), None, "product",
             ("g", "k"), ("y",)),
        Part("mamba2 scan: chunk states", 0, states, 0, None, "product", ("k", "k"), ("s",)),
        Part("mamba2 scan: states passed between chunks", 0, passing, 0, None, "product", ("q", "s"), ("s",)),
        Part("mamba2 scan: read-out of the passed states", 0, read_out, 0, None, "product", ("k", "s"), ("y",),
             ("y",)),
        norm,
        linear("mamba2 out projection", i, d, out_bias, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add (beside attention: + the attention's output)
    ]


def falcon_h1_multipliers(block, d: int, length: int, read: str = "h") -> Part:
    """Falcon-H1's µP multipliers in one layer, element-wise (no parameters, no products; ``full`` only): the
    mixer's input (d) and its in projection's output (the µP vector over z, x, B, C, Δ: 2I + 2GN + H) and output
    (d), the attention's input (d), keys (H_kv·Q) and output (d), the MLP's gate (F) and output (d), per position."""
    m = block.mixer.beside
    i, g, n, h = m.inner_size, m.groups, m.state_size, m.heads
    _, h_kv, q = block.mixer.attention_sizes(d)
    per_position = 5 * d + 2 * i + 2 * g * n + h + h_kv * q + (block.feed_forward.size or 4 * d)
    return Part("µP multipliers (element-wise)", 0, 0, length * per_position, None, "none", (read,), (read,))


# ---------------------------------------------------------------- Gated DeltaNet (Qwen3-Next's linear attention)

L2_NORM_FLOP_PER_ELEMENT = 3
"""x / √(Σx² + ε): square, sum, divide (the root and ε once per vector, not counted)."""


def deltanet_macs(length: int, heads: int, key_dim: int, value_dim: int, chunk: int) -> dict[str, int]:
    """The multiply-accumulates of transformers' ``torch_chunk_gated_delta_rule`` (the keys and queries repeated
    from the key heads to the H value heads), over the padded length L_p = c·Q, with d_k and d_v per head:
    k_β·kᵀ and q·kᵀ within each chunk 2·L_p·Q·H·d_k; per chunk the reads of the passed state k_cumdecay·S and
    q·S (2·Q·H·d_k·d_v), the chunk's attention × the new values (Q²·H·d_v) and the state update kᵀ·v_new
    (Q·H·d_k·d_v). The first chunk reads the zero state (no gradient flows into it) and the last chunk's state
    update is discarded (no gradient flows out of it): they are apart for the backward pass. The two triangular
    solves of the UT transform are not matrix products (``FlopCounterMode`` counts none of their forward)."""
    padded, _ = chunks(length, chunk)
    later = padded - chunk  # positions in the chunks after the first
    per = heads * key_dim * value_dim
    return {"within": 2 * padded * chunk * heads * key_dim, "first reads": 2 * chunk * per,
            "updates": later * per, "later reads": 2 * later * per, "values": padded * chunk * heads * value_dim,
            "last update": chunk * per}


def deltanet_solve_backward_macs(length: int, heads: int, key_dim: int, value_dim: int, chunk: int) -> int:
    """The matrix products in the backward of the UT transform's two triangular solves X = T⁻¹B (B the β-scaled
    values and the decayed β-scaled keys): ∂T = −(T⁻ᵀ∂X)·Xᵀ, Q²·H·(d_v + d_k) per chunk (the solve for ∂B is
    not a product)."""
    padded, _ = chunks(length, chunk)
    return padded * chunk * heads * (value_dim + key_dim)


def deltanet_full_flop(length: int, heads: int, key_dim: int, value_dim: int, chunk: int) -> dict[str, int]:
    """The gated delta rule's element-wise FLOP (``full`` convention only; ``FlopCounterMode`` counts none).
    ``gates``: per position β = sigmoid(b) (4·H), g = −e^A·softplus(a + Δ bias) (5·H); e^A once (2·H).
    ``chunked``: per position the L2 norms of q and k over the H heads (3·d_k per element, both) and q's 1/√d_k
    (H·d_k); per padded position v·β and k·β (H·(d_v + d_k)), the cumulative sum of g (H), the pairwise decays
    (a difference and an exp: 2·H·Q) and their products with the two score matrices (2·H·Q), the decayed k_β
    (exp and product: H + H·d_k), the triangular solves by substitution (Q·(Q − 1)/2 multiply-adds per chunk, head and
    column: H·(Q − 1)·(d_v + d_k) FLOP per padded position), q's and k's decays (H + H·d_k and 2·H + H·d_k), v_new's
    difference and the two outputs' sum (2·H·d_v); per chunk the decay's exp (H) and the state's decay and
    sum (2·H·d_k·d_v)."""
    padded, count = chunks(length, chunk)
    h, dk, dv, q = heads, key_dim, value_dim, chunk
    gates = length * (ACTIVATION_FLOP["sigmoid"] + 1 + SOFTPLUS_FLOP + 1) * h + 2 * h
    per_padded = h * (dv + dk) + h + 4 * h * q + (h + h * dk) + h * (q - 1) * (dv + dk) + (3 * h + 2 * h * dk) \
        + 2 * h * dv
    chunked = length * (2 * h * dk * L2_NORM_FLOP_PER_ELEMENT + h * dk) + padded * per_padded \
        + count * (h + 2 * h * dk * dv)
    return {"gates": gates, "chunked": chunked}


def _delta_state_parts(name: str, macs: dict) -> list[Part]:
    """The chunked delta rule's passed state, as Gated DeltaNet and Kimi Delta Attention both run it: the first
    chunk's read of the zero state, the state updates kᵀ·v_new, the later chunks' reads, chunk attention × the new
    values, and the last chunk's update nothing reads."""
    return [
        Part(f"{name} scan: first chunk's reads of the zero state", 0, macs["first reads"], 0, None, "product",
             ("u",), ("y",)),
        Part(f"{name} scan: state updates kᵀ·v_new", 0, macs["updates"], 0, None, "product", ("k", "u"), ("s",)),
        Part(f"{name} scan: later chunks' reads of the passed state", 0, macs["later reads"], 0, None, "product",
             ("u", "s"), ("y",), ("y",)),
        Part(f"{name} scan: chunk attention × new values", 0, macs["values"], 0, None, "product", ("w", "u"),
             ("y",), ("y",)),
        Part(f"{name} scan: last chunk's state update (discarded)", 0, macs["last update"], 0, None, "product",
             (), ()),
    ]


def gated_deltanet(m, d: int, length: int, read: str = "h") -> list[Part]:
    """Gated DeltaNet (Yang et al. 2024) as transformers' ``Qwen3NextGatedDeltaNet`` computes it without the
    CUDA kernels: in projections d→2·G·d_k + 2·I (q, k, v, z) and d→2·H (β, a), the causal depthwise
    convolution over q, k and v (2·G·d_k + I channels, no bias, SiLU), the chunked gated delta rule
    (``deltanet_macs``; A and Δ's bias: 2·H parameters), the gated RMS norm per head (norm(y)·γ·SiLU(z): d_v
    parameters), out projection I→d (+ the residual add). Symbols: H = ``ssm_heads`` value heads of
    d_v = I/H, G = ``ssm_groups`` key heads of d_k = ``ssm_state_size``, K the convolution's width, Q the
    chunk length; ``ssm_decay="channel"``: Kimi Delta Attention (``kimi_delta``). Qwen3.5's ``Qwen3_5GatedDeltaNet``
    splits the in projections (q, k, v apart from z; β apart from
    a): the same widths, parameters and products."""
    if m.decay == "channel":
        return kimi_delta(m, d, length, read)
    i, dk, k = m.inner_size, m.state_size, m.conv_kernel
    h, g, q = m.heads, m.groups, m.chunk_size
    dv = i // h
    channels = 2 * g * dk + i
    macs = deltanet_macs(length, h, dk, dv, q)
    full = deltanet_full_flop(length, h, dk, dv, q)
    gated_norm = length * i * (ACTIVATION_FLOP["silu"] + 1) + rms_norm_cost(length * i, dv, True).extra_flop
    name = "gated deltanet"
    return [
        linear(f"{name} in projection (q, k, v, z)", d, 2 * g * dk + 2 * i, False, length, src=(read,),
                dst=("q",), role="in"),
        linear(f"{name} in projection (β, a)", d, 2 * h, False, length, extra_flop=full["gates"], src=(read,),
                dst=("b",), role="in"),
        Part(f"{name} causal convolution", channels * k, channels * k * (length + k - 1),
             length * channels * ACTIVATION_FLOP[m.activation], None, "linear", ("q",), ("k",)),
        Part(f"{name} scan: k_β·kᵀ and q·kᵀ within chunks", 2 * h, macs["within"], full["chunked"], None,
             "product", ("k", "b"), ("w",)),
        Part(f"{name} scan: triangular solves (UT transform)", 0, 0, 0, None, "solve", ("w", "k"), ("u",),
             in_macs=deltanet_solve_backward_macs(length, h, dk, dv, q)),
        *_delta_state_parts(name, macs),
        Part(f"{name} gated RMS norm", dv, 0, gated_norm, None, "none", ("y", "q"), ("a",)),
        linear(f"{name} out projection", i, d, False, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add
    ]


# ---------------------------------------------------------------- LFM2's gated short convolution

def short_conv(m, d: int, length: int, read: str = "h") -> list[Part]:
    """LFM2's gated short convolution (transformers' ``Lfm2ShortConv`` without the CUDA kernels): in projection
    d→3d (B, C, x), the input gate B·x (element-wise), the causal depthwise convolution of width K over the d
    channels, zero-padded by K − 1 on both sides as ``nn.Conv1d`` computes it (d·K·(L + K − 1)
    multiply-accumulates, as Mamba's), the output gate C·(conv) (element-wise), out projection d→d (+ the residual
    add). ``ssm_bias``: biases on the in and out projections, ``ssm_conv_bias``: on the convolution (LFM2's
    ``conv_bias`` sets all three). No state, no scan: ``full`` adds the two gates' products (2·L·d) and the bias
    adds."""
    k = m.conv_kernel
    conv_bias = 1 if m.conv_bias else 0
    return [
        linear("short conv in projection (B, C, x)", d, 3 * d, m.bias, length, src=(read,), dst=("q",),
                role="in"),
        Part("short conv input gate B·x", 0, 0, length * d, None, "none", ("q",), ("g",)),
        Part("short conv causal convolution", d * k + conv_bias * d, d * k * (length + k - 1), conv_bias * length * d,
             None, "linear", ("g",), ("k",)),
        Part("short conv output gate C·conv", 0, 0, length * d, None, "none", ("k", "q"), ("a",)),
        linear("short conv out projection", d, d, m.bias, length, extra_flop=length * d, src=("a",),
                dst=("x",), also=("x",), role="out"),  # + the residual add
    ]


# ---------------------------------------------------------------- Kimi Delta Attention (Kimi Linear)

def kimi_delta_macs(length: int, heads: int, head_dim: int, chunk: int) -> dict[str, int]:
    """The multiply-accumulates ``FlopCounterMode`` sees in transformers' ``chunk_kimi_delta_attention`` (H heads
    of D for queries, keys and values; chunks of Q; padded length L_p): the decay is per key channel, so the
    within-chunk scores k_β·k and q·k are element-wise products summed over D (no matmul), and the UT transform's
    inverse is built by substitution in a loop of element-wise products (no matmul); then two products by it,
    T·(β v) and T·(β k decayed): L_p·Q·H·2D. The state's reads, updates and the chunk attention × the new values
    are Gated DeltaNet's (``deltanet_macs``)."""
    macs = deltanet_macs(length, heads, head_dim, head_dim, chunk)
    padded, _ = chunks(length, chunk)
    del macs["within"]
    return {"ut": 2 * padded * chunk * heads * head_dim, **macs}


def kimi_delta_full_flop(length: int, heads: int, head_dim: int, chunk: int) -> dict[str, int]:
    """Kimi Delta Attention's element-wise FLOP (``full`` convention only; ``FlopCounterMode`` counts none).
    ``gates``: per position β = sigmoid(b) (4·H) and g = −e^A·softplus(f + Δ bias) per channel (5·H·D); e^A once
    (2·H). ``chunked``: per position the L2 norms of q and k (3 per element, both: 6·H·D); per padded position
    q's scale, v·β, k·β and g's cumulative sum (4·H·D), the pairwise decays (a difference and an exp: 2·H·Q·D),
    the decayed scores k_β·k·decay and q·k·decay summed over D (3·H·Q·D each) and the first one's negation (H·Q),
    k_β·e^g (2·H·D), q·e^g (2·H·D), v_new's difference and the outputs' sum (2·H·D), the keys' decay to the chunk
    end (difference, exp, product: 3·H·D); per chunk and head the substitution building the UT inverse
    (Σ_{i<Q} 2i² = (Q − 1)·Q·(2Q − 1)/3), the identity added (Q²), the state's decay (an exp per channel D, a
    product and a sum per state entry 2·D²)."""
    padded, count = chunks(length, chunk)
    h, dd, q = heads, head_dim, chunk
    gates = length * (ACTIVATION_FLOP["sigmoid"] * h + (1 + SOFTPLUS_FLOP + 1) * h * dd) + 2 * h
    chunked = length * 2 * h * dd * L2_NORM_FLOP_PER_ELEMENT + padded * (13 * h * dd + 8 * h * q * dd + h * q) \
        + count * h * ((q - 1) * q * (2 * q - 1) // 3 + q * q + dd + 2 * dd * dd)
    return {"gates": gates, "chunked": chunked}


def kimi_delta(m, d: int, length: int, read: str = "h") -> list[Part]:
    """Kimi Delta Attention (Kimi Linear, 2025) as transformers' ``KimiLinearDeltaAttention`` computes it without
    the FLA kernels (``chunk_kimi_delta_attention``): q, k, v projections d→H·D each, the causal depthwise
    convolution over the three (3·H·D channels, no bias, the activation), a low-rank forget gate d→D→H·D with Δ's
    bias (H·D) and A (H), β = sigmoid(d→H), the chunked delta rule with a per-channel decay
    (``kimi_delta_macs``), a low-rank output gate d→D→H·D, the RMS norm per head gated by sigmoid(gate) (D
    parameters), out projection H·D→d (+ the residual add). Symbols: H = ``ssm_heads`` (= ``ssm_groups``),
    D = ``ssm_state_size``, K the convolution's width, Q the chunk length."""
    h, dd, k, q = m.heads, m.state_size, m.conv_kernel, m.chunk_size
    i = h * dd
    channels = 3 * i
    macs = kimi_delta_macs(length, h, dd, q)
    full = kimi_delta_full_flop(length, h, dd, q)
    gated_norm = length * i * (ACTIVATION_FLOP["sigmoid"] + 1) + rms_norm_cost(length * i, dd, True).extra_flop
    name = "kimi delta attention"
    return [
        linear(f"{name} q, k, v projections", d, 3 * i, False, length, src=(read,), dst=("q",), role="in"),
        Part(f"{name} causal convolution", channels * k, channels * k * (length + k - 1),
             length * channels * ACTIVATION_FLOP[m.activation], None, "linear", ("q",), ("k",)),
        linear(f"{name} forget gate down", d, dd, False, length, src=(read,), dst=("f",), role="in"),
        linear(f"{name} forget gate up", dd, i, False, length, src=("f",), dst=("g",), role="in"),
        Part(f"{name} forget gate: Δ bias and A", i + h, 0, full["gates"], None, "none", ("g",), ("g",)),
        linear(f"{name} β projection", d, h, False, length, src=(read,), dst=("b",), role="in"),
        Part(f"{name} scan: decayed scores within chunks, UT inverse by substitution (element-wise)", 0, 0,
             full["chunked"], None, "none", ("k", "b", "g"), ("w",)),
        Part(f"{name} scan: UT products T·(β v), T·(β k decayed)", 0, macs["ut"], 0, None, "product",
             ("w", "k"), ("u",)),
        *_delta_state_parts(name, macs),
        linear(f"{name} output gate down", d, dd, False, length, src=(read,), dst=("e",), role="in"),
        linear(f"{name} output gate up", dd, i, False, length, src=("e",), dst=("z",), role="in"),
        Part(f"{name} gated RMS norm", dd, 0, gated_norm, None, "none", ("y", "z"), ("a",)),
        linear(f"{name} out projection", i, d, False, length, extra_flop=length * d, src=("a",), dst=("x",),
                also=("x",), role="out"),  # + the residual add
    ]
