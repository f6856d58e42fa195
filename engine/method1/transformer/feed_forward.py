"""A block's feed-forward (``FeedForward``: dense or gated, with ``Experts`` or without) and its rows.

Symbols: d model width, L positions, F feed-forward size (per expert), E experts, k active per token, F_s the
shared expert's size. Dense: up d→F, down F→d; ``gated`` (SwiGLU, GeGLU) adds a gate d→F, act(gate)·up. Experts:
a router d→E (no bias unless ``router_bias``) and E feed-forwards, k of which run per token (``active_params``
counts k); a shared expert of F_s every token runs (DeepSeek, Qwen2-MoE), with a sigmoid gate d→1 when
``shared_gate`` (Qwen2-MoE). ``zero`` Z (LongCat-Flash's zero-computation experts): the router scores E + Z experts
and picks k; transformers sends a pick of a zero expert to a real expert with weight 0 and adds x·Σ(those picks'
weights), so every token still runs k real experts. Full convention: the activation and gating product, the
residual add, the router's softmax and the weighted sum of the k outputs.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...errors import InputError
from ..conventions import ACTIVATION_FLOP
from ..layers import Part, Size
from ..ops import rms_norm_cost
from .mixers import BlockActivation
from .rows import linear, scaled


class Experts(BaseModel):
    """A mixture of ``count`` experts, ``active`` per token."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    count: Size = Field(description="E feed-forward experts.")
    active: Size = Field(1, description="k experts per token.")
    router_bias: bool = False
    shared_size: Size | None = Field(None, description="F_s: a shared expert every token runs.")
    shared_gate: bool = Field(False, description="A sigmoid gate d→1 on the shared expert (Qwen2-MoE).")
    zero: Size | None = Field(None, description="Z zero-computation (identity) experts the router also scores "
                                                "(LongCat-Flash): router d→E+Z; a token's picks of them are computed "
                                                "as transformers computes them, by a real expert with weight 0, so k "
                                                "experts still run per token.")
    output_bias: bool = Field(False, description="One bias d on the experts' combined output (JetMoE).")
    branch_norms: bool = Field(False, description="Gemma 4's experts: beside a dense gated MLP of shared_size (no "
                                                  "gate), each branch normed on its own (the experts' input and each "
                                                  "branch's output: 3d), a router reading x through a norm without "
                                                  "gain, a scale (d) and a scale per expert (E).")

    @model_validator(mode="after")
    def _consistent(self):
        if self.active > self.count:
            raise InputError("active", f"active_experts {self.active} is more than experts {self.count}")
        if self.count == 1:
            raise InputError("count", "a mixture needs experts > 1 (one expert is a dense feed-forward: no experts)")
        if self.shared_gate and not self.shared_size:
            raise InputError("shared_gate", "a shared-expert gate needs shared_size")
        if self.zero and self.branch_norms:
            raise InputError("zero", "zero experts are modelled beside a plain mixture of experts")
        if self.branch_norms and (not self.shared_size or self.shared_gate or self.router_bias):
            raise InputError("branch_norms", "Gemma 4's experts need a gated dense MLP beside them (shared_size), "
                                             "without a shared-expert gate or router bias")
        return self


class FeedForward(BaseModel):
    """The feed-forward sub-layer: ``size`` F (default 4·d; per expert with experts), ``gated``, ``activation``
    (xielu, Apertus: two learned scalars per MLP), biases (``bias``; ``down_bias`` of its own: GTE), ``experts``."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    size: Size | None = Field(None, description="F (default 4·d_model); per expert with experts.")
    gated: bool = Field(False, description="Gated feed-forward (SwiGLU/GeGLU): gate, up, down matrices.")
    activation: BlockActivation = "gelu"
    bias: bool = True
    down_bias: Literal["same", "bias", "none"] = Field(
        "same", description="The down projection's bias: as the up and gate's (same: bias), or its own (GTE: a bias "
                            "on the down projection only).")
    experts: Experts | None = Field(None, description="A mixture of experts (None: dense).")

    @model_validator(mode="after")
    def _consistent(self):
        if self.down_bias != "same" and self.experts is not None:
            raise InputError("down_bias", "a down-projection bias of its own is modelled on a dense feed-forward")
        if self.experts is not None and self.experts.branch_norms and not self.gated:
            raise InputError("experts.branch_norms", "Gemma 4's experts need a gated dense MLP beside them")
        return self

    @property
    def count(self) -> int:
        """E (1: dense)."""
        return self.experts.count if self.experts else 1

    @property
    def active(self) -> int:
        """k (1: dense)."""
        return self.experts.active if self.experts else 1

    def rows(self, block, d: int, length: int, read: str = "h") -> list[Part]:
        return feed_forward(block, d, length, read)


def mlp(block, label: str, d: int, f: int, tokens: int, bias: bool, read: str = "h", out: str = "x") -> list[Part]:
    """up (and gate) d→F, down F→d at ``tokens`` positions; act(gate)·up or act(up) in the full count.
    The down projection reads act(gate)·up and adds into ``out``."""
    ff = block.feed_forward
    act = ACTIVATION_FLOP[ff.activation]
    up = linear(f"{label} up", d, f, bias, tokens, src=(read,), dst=("u",), role="up")
    parts = []
    if ff.gated:
        parts.append(linear(f"{label} gate", d, f, bias, tokens, extra_flop=(act + 1) * tokens * f,
                            src=(read,), dst=("g",), role="gate"))
    else:
        up = up._replace(extra_flop=up.extra_flop + act * tokens * f)
    down_src = ("g", "u") if ff.gated else ("u",)
    parts.append(up)
    if ff.activation == "xielu":  # xIELU's learned α_p and α_n: 2 parameters per MLP, no multiply-accumulate
        acted = down_src[:1]
        parts.append(Part(f"{label} xIELU α_p, α_n", 2, 0, 0, None, "none", acted, acted, role="activation"))
    if block.norms.sub_norms:  # BitNet: a norm of act(gate)·up before the down projection
        norm_params, norm_flop = block.norms.cost(f, tokens)
        parts.append(Part(f"{label} sub-norm", norm_params, 0, norm_flop, None, "none", down_src, ("sn",)))
        down_src = ("sn",)
    down_bias = bias if ff.down_bias == "same" else ff.down_bias == "bias"  # GTE: a bias on the down projection only
    return parts + [linear(f"{label} down", f, d, down_bias, tokens, src=down_src, dst=(out,), also=(out,),
                           role="down")]


def branch_experts(block, d: int, length: int) -> list[Part]:
    """Gemma 4's feed-forward with experts (``Experts.branch_norms``): the dense gated MLP of F_s on the normed x
    ("h"), its output normed; the experts on x normed by a norm of their own ("he"), routed by a router that reads
    x (a norm without gain, × a scale of d, × d^-½, d→E, softmax; the top-k weights renormalised and × a scale per
    expert), their weighted sum normed; the two branches added (the block's output norm and residual follow)."""
    ff = block.feed_forward
    e, k, f = ff.experts.count, ff.experts.active, ff.size or 4 * d
    norm_params, norm_flop = block.norms.cost(d, length)
    dense = mlp(block, "feed-forward", d, ff.experts.shared_size, length, ff.bias, "h", out="f")
    dense[-1] = dense[-1]._replace(also=())
    router = linear("router", d, e, False, length, src=("x",), dst=("r",), role="router")
    router_extra = length * (rms_norm_cost(d, d, False)[2] + 2 * d + ACTIVATION_FLOP["softmax"] * e + 3 * k)
    router = router._replace(params=router.params + d + e, extra_flop=router.extra_flop + router_extra)
    experts = [scaled(p, e, k) for p in mlp(block, "experts", d, f, length * k, ff.bias, "he", out="e")]
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
    ff = block.feed_forward
    mix = ff.experts
    if mix is not None and mix.branch_norms:
        return branch_experts(block, d, length)
    f = ff.size or 4 * d
    e, k = ff.count, ff.active
    moe = mix is not None
    label = "experts" if moe else "feed-forward"
    parts = mlp(block, label, d, f, length * k, ff.bias, read)  # token–expert pairs: k experts per token
    # + the residual add; with experts, the k outputs weighted and summed: k multiplies, k−1 adds
    combine = (2 * k - 1) * length * d if moe else 0
    parts[-1] = parts[-1]._replace(extra_flop=parts[-1].extra_flop + length * d + combine)
    if not moe:
        return parts
    scored = e + (mix.zero or 0)  # LongCat-Flash's router also scores its zero experts
    router = linear("router", d, scored, mix.router_bias, length, src=(read,), dst=("r",), role="router")
    router = router._replace(extra_flop=router.extra_flop + ACTIVATION_FLOP["softmax"] * length * scored)
    parts = [router] + [scaled(p, e, k) for p in parts]
    if mix.zero:  # the identity path x·Σw (picks of zero experts ran through a real expert at weight 0)
        parts[-1] = parts[-1]._replace(extra_flop=parts[-1].extra_flop + 2 * length * d)
    if mix.output_bias:  # one bias d on the combined output (JetMoE)
        down = parts[-1]
        parts[-1] = down._replace(params=down.params + d, active_params=down.active_params + d,
                                  extra_flop=down.extra_flop + length * d)
    parts[-1] = parts[-1]._replace(also=parts[-1].also + ("r",))  # the router's weights scale the outputs
    if mix.shared_size:
        shared_out = "sd" if mix.shared_gate else "x"
        shared = [p._replace(role=f"shared {p.role}")
                  for p in mlp(block, "shared expert", d, mix.shared_size, length, False, read, shared_out)]
        shared[-1] = shared[-1]._replace(extra_flop=shared[-1].extra_flop + length * d)  # + the routed output
        if mix.shared_gate:  # sigmoid(x·w) scales the shared expert's output
            shared[-1] = shared[-1]._replace(also=())
            gate = linear("shared expert gate", d, 1, False, length, src=(read,), dst=("x",), also=("x", "sd"),
                          role="shared expert gate")
            shared.append(gate._replace(extra_flop=gate.extra_flop + (ACTIVATION_FLOP["sigmoid"] + d) * length))
        parts += shared
    return parts
