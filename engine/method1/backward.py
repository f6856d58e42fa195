"""The backward pass, layer by layer, from the rules of reverse-mode differentiation.

For a product y = x·W (a dense layer, a convolution, a projection) the backward pass computes
- the weight gradient ∂L/∂W = xᵀ·∂L/∂y, only when W is trainable: as many MACs as the forward product;
- the input gradient ∂L/∂x = ∂L/∂y·Wᵀ, only when something before it needs a gradient (a trainable
  layer upstream, or an input that needs one): as many MACs again.
A product of two activations (attention's QKᵀ, AV) has no weights: each operand that needs a gradient
costs the forward MACs once. A recurrent layer runs these rules per time step (the hidden state at
step 0 is zeros and needs no gradient). Data never needs a gradient (token ids are integers).

Trainability: ``trainable`` on a layer or block (a block's value applies inside it unless a layer says
otherwise); ``lora`` adds a trainable adapter of rank r (A: N → r, B: r → M, added to the output)
beside frozen weights. Under the ``full`` convention the non-matmul work of a layer is counted again
``BACKWARD_EXTRA_FACTOR`` times whenever a gradient passes through it (``engine.method1.conventions``).
"""

from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from .conventions import BACKWARD_EXTRA_FACTOR

MAX_RANK = 10**6

LoraTarget = Literal["q", "k", "v", "qkv", "o", "gate", "up", "gate_up", "down", "experts"]
LORA_TARGETS: tuple[str, ...] = LoraTarget.__args__
DEFAULT_LORA_TARGETS: tuple[str, ...] = ("q", "v")
"""What LoRA adapts when no targets are given (Hu et al. 2021 adapt W_q and W_v; peft's default)."""
FUSED_QKV = "qkv"
"""One adapter on the fused query-key-value projection, d → (H + 2·H_kv)·Q, as PEFT puts one on GPT-2's ``c_attn``
(its only target for GPT-2), GPT-NeoX's, BLOOM's and Falcon's ``query_key_value``, Phi-3's ``qkv_proj``: r·(d + the
q, k and v widths) parameters — not three adapters (q, k, v: r·(d + width) each)."""
FUSED_GATE_UP = "gate_up"
"""One adapter on the fused gate and up projections of a gated feed-forward, d → 2·F, as PEFT puts one on Phi-3's and
GLM-4's ``gate_up_proj``: r·(d + 2F) parameters and one A (d → r) per position — not two adapters (gate, up:
r·(d + F) each, an A each)."""


def lora_target_list(text: str) -> list[str]:
    """'q, v' → ['q', 'v']: the comma list the CLI and the API take (empty parts dropped; the names checked where
    the list is parsed)."""
    return [t.strip() for t in text.split(",") if t.strip()]


def lora_targets_overlap(targets: tuple[str, ...]) -> str:
    """Why ``targets`` adapt a projection twice ('' when they do not): a target given twice; the fused q/k/v adapter
    with q, k or v; the fused gate/up adapter with gate or up."""
    twice = next((t for i, t in enumerate(targets) if t in targets[:i]), None)
    if twice is not None:
        return f"{twice!r} is given twice: each target is one adapter per projection"
    if FUSED_QKV in targets and set(targets) & {"q", "k", "v"}:
        return "qkv is one adapter on the fused q/k/v projection: give it alone, or q, k and v as adapters of their own"
    if FUSED_GATE_UP in targets and set(targets) & {"gate", "up"}:
        return ("gate_up is one adapter on the fused gate and up projections: give it alone, or gate and up as "
                "adapters of their own")
    return ""


class LoRA(BaseModel):
    """A low-rank adapter: the layer's weights frozen, A (N → r) and B (r → M) trainable, B·A·x added to
    the output. ``targets``: on a transformer block, the projections adapted (default q and v)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    rank: Annotated[int, Field(ge=1, le=MAX_RANK, description="r, the adapter's rank.")]
    targets: tuple[LoraTarget, ...] | None = Field(
        None, description="Transformer blocks: the projections adapted, of q, k, v, qkv (one adapter on the fused "
                          "q/k/v projection: GPT-2's c_attn), o, gate, up, gate_up (one adapter on the fused gate and up "
                          "projections: Phi-3's gate_up_proj), down, experts (default q, v).")

    @model_validator(mode="after")
    def _once_each(self):
        reason = lora_targets_overlap(self.targets or ())
        if reason:
            raise InputError("targets", reason)
        return self


def lora_cost(n_in: int, n_out: int, rank: int) -> tuple[int, int, int]:
    """(params, MACs of A, MACs of B) of one adapter at one position: r·(N + M), N·r, r·M."""
    return rank * (n_in + n_out), n_in * rank, rank * n_out


class Grad(NamedTuple):
    """One layer's backward pass for one example.

    ``macs``: multiply-accumulates of the weight and input gradients (``matmul`` FLOP = 2·macs);
    ``extra_flop``: what the ``full`` convention adds; ``out``: whether the layer's output needs a gradient;
    ``trainable_params``: the parameters it trains; ``parts``: (macs, extra_flop, trainable_params) per row
    of a composite kind, in the order of its parts."""

    macs: int
    extra_flop: int
    out: bool
    trainable_params: int
    parts: tuple[tuple[int, int, int], ...] = ()


def product_grad(macs: int, extra_flop: int, params: int, grad_in: bool, trainable: bool,
                 has_weights: bool | None = None) -> Grad:
    """A layer whose MACs are all x·W products: weight gradient if trainable, input gradient if needed."""
    weights = trainable and (params > 0 if has_weights is None else has_weights)
    out = grad_in or weights
    return Grad(macs * (int(weights) + int(grad_in)), BACKWARD_EXTRA_FACTOR * extra_flop if out else 0, out,
                params if trainable else 0)


def parts_grad(parts, grad_in: bool, trainable: bool, memory_grad: bool, seeds: dict[str, bool] | None = None) -> Grad:
    """A composite kind's backward, walked over its parts as a small data-flow graph.

    Each part reads the tensors ``src`` and writes ``dst``; ``also`` are tensors added into its output (a
    residual). ``op``: ``linear`` (x·W), ``product`` (two activations), ``none`` (no MACs: norms; pairwise
    src → dst when both list several), ``solve`` (a triangular solve: none forward, ``in_macs`` in its
    backward when its inputs need a gradient; Gated DeltaNet), ``lora`` (an adapter beside a frozen linear; ``in_macs`` are A's).
    ``x`` is the block's input, ``m`` an encoder memory; ``seeds``: other tensors the block reads from outside
    and whether they need a gradient (DeBERTa's relative table, ``r``). A ``linear`` part of role ``reused`` runs
    weights another row holds (its params 0): their gradient is computed all the same when they train."""
    needs = {"x": grad_in, "m": memory_grad, **(seeds or {})}
    rows = []
    total_macs = total_extra = total_params = 0
    for p in parts:
        src = [needs.get(s, False) for s in p.src]
        also = any(needs.get(a, False) for a in p.also)
        weights = (p.params > 0 or p.role == "reused") and (p.op == "lora" or (trainable and not p.frozen))
        if p.op == "linear":
            macs = p.macs * (int(weights) + int(any(src)))
            out = any(src) or weights or also
        elif p.op == "product":  # two operands; from three sources or more (Mamba's read-out C·h), the first
            # operand is made from all of them and the part's own weights (h from u, Δ, B and A), the second
            # is the last source (C)
            operands = src if len(src) <= 2 else [any(src) or weights, src[-1]]
            macs = p.macs * sum(operands)
            out = any(src) or weights or also
        elif p.op == "solve":  # X = T⁻¹B: no forward product; backward ∂T = −(T⁻ᵀ∂X)·Xᵀ, ``in_macs``
            macs = p.in_macs if any(src) else 0
            out = any(src) or weights or also
        elif p.op == "lora":  # A and B trained; B's input (A's output) always, A's input when needed
            macs = p.macs + (p.macs - p.in_macs) + (p.in_macs if any(src) else 0)
            out = True
        else:
            macs = 0
            out = any(src) or weights or also
        if p.op == "none" and len(p.src) == len(p.dst) > 1:
            for s, d in zip(src, p.dst):
                needs[d] = s or weights
        else:
            for d in p.dst:
                needs[d] = out
        extra = BACKWARD_EXTRA_FACTOR * p.extra_flop if out else 0
        params = p.params if weights else 0
        rows.append((macs, extra, params))
        total_macs += macs
        total_extra += extra
        total_params += params
    return Grad(total_macs, total_extra, needs.get("x", False), total_params, tuple(rows))
