"""A language-model layer that attends to the image (Llama 3.2 Vision's ``MllamaCrossAttentionDecoderLayer``), and
what training asks of it.

Symbols: D the language model's width, H, H_kv and Q its heads, key/value heads and head size, F its feed-forward
size, M the image positions (the projector's output, made once and read by every cross-attention layer).

The layer: a residual of (RMSNorm, q D → H·Q on the text, k and v D → H_kv·Q on the M image positions, RMSNorms of q
and k over each head, the attention product L·M·H·2Q, o H·Q → D, a tanh gate), then a residual of the gated MLP
(RMSNorm, gate and up D → F, down F → D) and its tanh gate.

In training (``engine.method1.backward``) the image states need a gradient when the projector or the vision tower
trains (every recipe trains the projector): then the k and v projections compute their input gradients into the
image states even where their weights are frozen, the attention product computes dA, dK and dV, and the text after
the first cross-attention layer needs a gradient even in a frozen language model (its output is A·V). The queries
need one only where the text before them does (dQ). LoRA (peft's ``target_modules`` on ``q_proj``, ``k_proj``,
``v_proj``, ``o_proj``, ``gate_proj``, ``up_proj``, ``down_proj`` match these layers' projections as they match the
self-attention layers'): adapters on q and o run on the L text positions, on k and v on the M image positions.
"""
from __future__ import annotations

from ..errors import InputError
from ..method1.blocks import Each, Residual
from ..method1.layers import Dense
from ..method1.media import AttentionCore, ConditioningDense, LearnedValues
from ..method1.transformer import RMSNorm, TransformerBlock

Q_PROJ, K_PROJ, V_PROJ, O_PROJ = "cross_attn.q_proj", "cross_attn.k_proj (image positions)", \
    "cross_attn.v_proj (image positions)", "cross_attn.o_proj"
TARGETS = {Q_PROJ: "q", K_PROJ: "k", V_PROJ: "v", O_PROJ: "o"}
"""Each projection's name and the LoRA target that adapts it."""
LAYER = "cross-attention layer"
"""The name of the ``each`` that holds one layer (how training finds it in a layer list)."""


def cross_attention_layer(d: int, heads: int, kv: int, q: int, ff: int, positions: int) -> list:
    """The layer: the gated cross-attention residual, the MLP (a block without a mixer) and its gate, held in one
    ``each`` of a single input (so that the language model's top-level blocks are its self-attention layers)."""
    attention = Residual(name="cross_attn", body=[
        RMSNorm(name="input_layernorm"), Dense(units=heads * q, bias=False, name=Q_PROJ),
        ConditioningDense(in_features=d, units=kv * q, bias=False, positions=positions, joins_flow=False, name=K_PROJ),
        ConditioningDense(in_features=d, units=kv * q, bias=False, positions=positions, joins_flow=False, name=V_PROJ),
        AttentionCore(heads=heads, head_size=q, kv_heads=kv, context_length=positions, qk_norm="rms_norm",
                      name="cross-attention"),
        Dense(units=d, bias=False, name=O_PROJ), LearnedValues(count=1, name="cross_attn_attn_gate")])
    mlp = TransformerBlock(name="mlp", mixer={"kind": "none"},
                           feed_forward={"size": ff, "gated": True, "activation": "silu", "bias": False},
                           norms={"kind": "rmsnorm"})
    return [Each(count=1, name=LAYER, layers=[attention, mlp, LearnedValues(count=1, name="cross_attn_mlp_gate")])]


def is_cross_attention(layer: dict) -> bool:
    """Whether a layer (JSON data) is a layer of ``cross_attention_layer``."""
    return layer.get("type") == "each" and layer.get("name") == LAYER


def trained(layer: dict, image_grad: bool, weights_train: bool, targets: tuple[str, ...], rank: int | None) -> dict:
    """A cross-attention layer (JSON data) in training: the image states need a gradient (``image_grad``), its
    weights train (``weights_train``), or LoRA of ``rank`` on ``targets`` (q, k, v, o; gate, up and down are the
    MLP block's, adapted as every block's)."""
    if "qkv" in targets:
        raise InputError("targets", "'qkv': a cross-attention layer's queries read the text and its keys and values "
                                    "the image, so it has no fused q/k/v projection; give q, k and v")
    inner = [_trained_attention(item, image_grad, weights_train, targets, rank) if item.get("type") == "residual"
             else item for item in layer["layers"]]
    return dict(layer, layers=inner)


def _trained_attention(layer: dict, image_grad: bool, weights_train: bool, targets: tuple[str, ...],
                       rank: int | None) -> dict:
    body = []
    for inner in layer["body"]:
        inner = dict(inner)
        target = TARGETS.get(inner.get("name", ""))
        adapted = rank is not None and target in targets
        if adapted:
            inner["lora"] = {"rank": rank}
        if inner.get("type") == "conditioning_dense":
            inner["input_grad"] = image_grad
        if inner.get("type") == "attention_core":  # dK and dV: the image states, or k_proj/v_proj, need them
            inner["context_grad"] = image_grad or weights_train or bool({"k", "v"} & set(targets) and rank)
        body.append(inner)
    return dict(layer, body=body)
