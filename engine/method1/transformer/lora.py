"""LoRA on a block's projections: which projection each target names (``lora_target_refusal``), and the rows with
the targeted projections frozen and their adapters beside them (``adapted``).

A target is a projection's role: q the query projection, k and v the key and value projections, qkv the three as
one fused projection (GPT-2's ``c_attn``: one adapter), o the attention's output projection (self- and
cross-attention), gate/up/down the dense or shared feed-forward, gate_up its gate and up as one fused projection
(Phi-3's ``gate_up_proj``: one adapter), experts every routed expert's.
"""
from __future__ import annotations

from ...errors import InputError
from ..backward import lora_cost
from ..layers import Part


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


def adapted(block, parts: list[Part], d: int, length: int) -> list[Part]:
    """With ``lora``: each targeted projection frozen and followed by its adapter (a fused k/v projection
    with only one of them targeted is split in two rows). Targets: q, k, v, o (self- and cross-attention),
    qkv (one adapter on the self-attention's fused q/k/v projection), gate, up, down (the dense or shared
    feed-forward), experts (every routed expert's gate, up and down)."""
    targets = block.lora_targets
    if not targets:
        return parts
    r, k_active = block.lora.rank, block.feed_forward.active if block.feed_forward else 1
    out: list[Part] = []
    hit_targets: set[str] = set()
    if "qkv" in targets:
        parts = _fused_qkv_adapted(parts, r)
        hit_targets.add("qkv")
    if "gate_up" in targets:
        parts, found = _fused_gate_up_adapted(parts, r)
        if found:
            hit_targets.add("gate_up")
    for p in parts:
        role = p.role
        n_in, n_out, positions = p.dims
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
            e = block.feed_forward.count
            out += [frozen, _adapter(p, n_in, n_out, positions, r, e, k_active)]
        else:
            out += [frozen, _adapter(p, n_in, n_out, positions, r, dst=p.dst)]
    missed = [t for t in targets if t not in hit_targets]
    if missed:  # TransformerBlock refuses these by name; never an adapter silently left out
        raise InputError("lora.targets", f"'{missed[0]}' names no projection of this block")
    return out


def _fused(parts: list[Part], first: int, second: int, rank: int, name: str) -> list[Part]:
    """Parts ``first`` and ``second`` (one input) as one fused projection N → M₁ + M₂: both frozen, one adapter
    (``_adapter``: A N → r and B r → M₁ + M₂ at every position, its output added into both) after the later."""
    (n_in, out_1, positions), (_, out_2, _) = parts[first].dims, parts[second].dims
    adapter = _adapter(parts[first], n_in, out_1 + out_2, positions, rank,
                       dst=parts[first].dst + parts[second].dst)._replace(name=name)
    out = [p._replace(frozen=True) if i in (first, second) else p for i, p in enumerate(parts)]
    at = max(first, second) + 1
    return out[:at] + [adapter] + out[at:]


def _fused_qkv_adapted(parts: list[Part], rank: int) -> list[Part]:
    """One adapter beside the self-attention's q and k/v projections as one fused projection N → M_q + M_kv (PEFT's
    ``c_attn`` on GPT-2), added into q, k and v (full: scale and add, 2·(M_q + M_kv) per position)."""
    q = next(i for i, p in enumerate(parts) if p.role == "q" and p.name.startswith("attention q projection"))
    kv = next(i for i, p in enumerate(parts) if p.role == "kv" and p.name.startswith("attention k/v projections"))
    return _fused(parts, q, kv, rank, "attention q/k/v LoRA (fused)")


def _fused_gate_up_adapted(parts: list[Part], rank: int) -> tuple[list[Part], bool]:
    """One adapter beside each gated feed-forward's gate and up projections as one fused projection N → 2F (PEFT's
    ``gate_up_proj`` on Phi-3), added into both (full: scale and add, 2·2F per position); the dense and the shared
    expert's alike. → (the parts, whether any pair was found)."""
    found = False
    for prefix in ("", "shared "):
        gate = next((i for i, p in enumerate(parts) if p.role == f"{prefix}gate"), None)
        up = next((i for i, p in enumerate(parts) if p.role == f"{prefix}up"), None)
        if gate is not None and up is not None:
            label = parts[gate].name.removesuffix(" gate")
            parts, found = _fused(parts, gate, up, rank, f"{label} gate/up LoRA (fused)"), True
    return parts, found


ATTENTION_TARGETS = ("q", "k", "v", "o")
FEED_FORWARD_TARGETS = ("gate", "up", "gate_up", "down", "experts")


def lora_target_refusal(block, target: str) -> str:
    """Why LoRA target ``target`` names no projection of ``block`` ('' when it names one). Latent attention adapts o
    (o_proj, H·V→d) and q where the queries are projected directly (q_proj, d→H·(Q+R)); its queries through the
    ``q_lora_rank`` bottleneck (q_a_proj, q_b_proj) and its keys and values (one latent, kv_a_proj_with_mqa and
    kv_b_proj, makes both) are no q, k or v projection, and PEFT's q_proj/k_proj/v_proj match none of them."""
    m, ff = block.mixer, block.feed_forward
    latent = m.kind == "latent"
    if target == "qkv":
        if m.kind not in ("attention", "latent"):
            return f"this block's mixer ({m.kind}) has no attention projections"
        if latent:
            return ("latent attention has no fused q/k/v projection (its queries and its key-value latent are "
                    "projections of their own); adapt q, o or the feed-forward")
        if m.kv_source is not None or m.values_from_keys:
            return "this layer has no value projection of its own (shared or key-derived values): no fused q/k/v"
        if block.cross_attention_length or m.local_radius is not None or m.disentangled is not None:
            return ("the fused q/k/v adapter is modelled on plain self-attention (a block with cross-attention or "
                    "local attention: adapt q, k and v)")
        return ""
    if target in ATTENTION_TARGETS:
        if m.kind not in ("attention", "latent"):
            return (f"this block's mixer ({m.kind}) has no attention projections (its own projections are not "
                    "LoRA targets here)")
        if latent and target in ("k", "v"):
            return ("latent attention has no key or value projection of its own: one latent (kv_a_proj_with_mqa "
                    "d→c+R, then kv_b_proj c→H·(Q+V)) makes the keys and the values together; adapt q, o or the "
                    "feed-forward")
        if latent and target == "q" and m.q_lora_rank:
            return ("the queries go through the q_lora_rank bottleneck (q_a_proj d→c_q, q_b_proj c_q→H·(Q+R)), not "
                    "one q projection; adapt o or the feed-forward")
        return ""
    if ff is None:
        return "this block has no feed-forward"
    moe = ff.experts is not None
    if target == "experts":
        return "" if moe else "needs a mixture-of-experts block (experts > 1)"
    if moe and not ff.experts.shared_size:
        return "the feed-forward is routed experts only (no shared expert): use 'experts'"
    if target in ("gate", "gate_up") and not ff.gated:
        return "needs a gated feed-forward (gated: true)"
    return ""
