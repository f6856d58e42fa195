"""Gemma's lineage: Gemma (γ stored as 1 + w, GeGLU, ``head_dim`` of its own), Gemma 2 and 3 (four norms per layer,
windows, per-head QK norms), VaultGemma, Gemma 4 (per-layer sizes, shared keys and values, per-layer embeddings,
experts beside the MLP) and Gemma 3n (AltUp, LAuReL).
"""
from __future__ import annotations

from .keys import Keys
from .parts import (
    decoder_fields,
    gemma_fields,
    layer_count,
    llama_block,
    per_layer,
    sliding_windows,
)
from .registry import lm_classes, register


def _bidirectional(c: Keys) -> None:
    """Gemma's ``use_bidirectional_attention`` (written by ``save_pretrained``): only false/null is causal."""
    c.require("use_bidirectional_attention", lambda v: v is False, "bidirectional attention is not modelled")


@register("gemma", lm_classes("Gemma"))
def _gemma(c: Keys) -> dict:
    _bidirectional(c)
    return gemma_fields(c, ("hidden_activation", "hidden_act"))


@register("gemma2", lm_classes("Gemma2"))
def _gemma2(c: Keys) -> dict:
    """gemma2: a norm on each sub-layer's output too; sliding windows on alternate layers."""
    c.neutral("hidden_act")
    _bidirectional(c)
    fields = gemma_fields(c, ("hidden_activation",), sandwich_norms=True)
    return sliding_windows(c, fields, 2)


@register("gemma3_text", lm_classes("Gemma3", bare="Gemma3TextModel"))
def _gemma3_text(c: Keys) -> dict:
    """gemma3_text: Gemma 2's block with a per-head RMSNorm of queries and keys; one full-attention layer
    in ``sliding_window_pattern`` (6)."""
    c.neutral("hidden_act", "_sliding_window_pattern")
    _bidirectional(c)
    fields = gemma_fields(c, ("hidden_activation",), sandwich_norms=True, qk_norm="head")
    period = c.size(None, "sliding_window_pattern", required=False, default=6)
    return sliding_windows(c, fields, period)


@register("vaultgemma", lm_classes("VaultGemma"))
def _vaultgemma(c: Keys) -> dict:
    """vaultgemma (VaultGemma): Gemma 2 without the norms on each sub-layer's output (pre-norms only); sliding
    windows on alternate layers."""
    c.neutral("hidden_act")
    fields = gemma_fields(c, ("hidden_activation",), sandwich_norms=False)
    return sliding_windows(c, fields, 2)


GEMMA4_LAYER_KEYS = ("head_dim", "num_key_value_heads")
"""The keys a Gemma 4 ``per_layer_config`` entry may override (what its config class writes there)."""


def _gemma4_layer_overrides(c: Keys, layers: int, types: list[str]) -> dict[int, dict]:
    """Layer → {head_dim, num_key_value_heads} overrides: ``per_layer_config`` as the file writes it (transformers
    writes it), else Gemma4TextConfig's own: ``global_head_dim`` (default 512) on the full-attention layers, and
    ``num_global_key_value_heads`` there too with ``attention_k_eq_v``."""
    given = c.get("per_layer_config")
    if given is None:
        head = c.size(None, "global_head_dim", required=False, default=512)
        kv = c.size(None, "num_global_key_value_heads", required=False) if c.flag("attention_k_eq_v", False) else None
        c.neutral("num_global_key_value_heads")
        override = {"head_dim": head} | ({"num_key_value_heads": kv} if kv is not None else {})
        return {i: override for i, t in enumerate(types) if t == "full_attention"}
    c.neutral("global_head_dim", "num_global_key_value_heads")  # transformers reads them only without it
    if not isinstance(given, dict):
        raise c.error("per_layer_config", "expected an object of layer number → overrides")
    out: dict[int, dict] = {}
    for key, value in given.items():
        try:
            layer = int(key)
        except (TypeError, ValueError):
            raise c.error("per_layer_config", f"{str(key)[:20]!r} is not a layer number") from None
        if not 0 <= layer < layers:
            raise c.error("per_layer_config", f"layer {layer} is not one of the {layers} layers")
        if not isinstance(value, dict):
            raise c.error("per_layer_config", f"layer {layer}: expected an object of overrides")
        other = sorted(set(value) - set(GEMMA4_LAYER_KEYS))
        if other:
            raise c.error(f"per_layer_config.{key}.{other[0]}", "a per-layer override of this key is not modelled "
                                                                f"(modelled: {', '.join(GEMMA4_LAYER_KEYS)})")
        for name, v in value.items():
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise c.error(f"per_layer_config.{key}.{name}", f"expected a whole number ≥ 1, got {str(v)[:20]}")
        out[layer] = value
    for kind in set(types):  # one rotary table per layer type: transformers refuses overrides that differ
        if len({tuple(sorted(out.get(i, {}).items())) for i, t in enumerate(types) if t == kind}) > 1:
            raise c.error("per_layer_config", f"the {kind} layers have different overrides (transformers refuses)")
    return out


def _gemma4_kv_sources(c: Keys, layers: int, types: list[str]) -> list[int | None]:
    """Per layer, the earlier layer whose keys and values it reuses (None: its own): the last
    ``num_kv_shared_layers`` layers, each reading those of the last unshared layer of its type
    (``Gemma4TextConfig.kv_sharing_modes``)."""
    shared = c.size(None, "num_kv_shared_layers", required=False, default=0)
    if not 0 <= shared < layers:
        raise c.error("num_kv_shared_layers", f"{shared}: expected 0 to {layers - 1} (the first layer makes its own "
                                              "keys and values; transformers' forward fails when none does)")
    first = layers - shared
    if shared and set(types[:first]) != set(types):
        raise c.error("num_kv_shared_layers", "a layer type that shares keys and values has no earlier layer making "
                                              "them (transformers refuses)")
    source = {kind: max(i for i in range(first) if types[i] == kind) for kind in set(types)} if shared else {}
    return [source[types[i]] if i >= first else None for i in range(layers)]


@register("gemma4_text", lm_classes("Gemma4", bare="Gemma4TextModel"))
def _gemma4_text(c: Keys, unified: bool = False) -> dict:
    """gemma4_text (Gemma 4's language model; Gemma4ForCausalLM, Gemma4TextModel): Gemma 3's block (RMS norms with
    a gain, four per layer; GeGLU; per-head query and key norms) with a norm without gain on the values, attention
    scaled by 1. Sliding layers (``layer_types``; default: every sixth full, the last always full) of ``head_dim``
    and ``num_key_value_heads``; full layers of the ``per_layer_config`` sizes (``global_head_dim``,
    ``num_global_key_value_heads``), their values the keys' projection with ``attention_k_eq_v``. The last
    ``num_kv_shared_layers`` layers reuse the keys and values of an earlier layer of their type (no k/v
    projections, no key norm), with a 2F MLP with ``use_double_wide_mlp``. ``hidden_size_per_layer_input`` P > 0:
    per-layer embeddings (a V_p × N·P table, a projection d→N·P and a norm of P) and per layer a gate d→P, a
    projection P→d and a norm. ``enable_moe_block``: E experts of ``moe_intermediate_size`` (k per token) beside
    the dense MLP, with norms of their own and a router with two scales. Logit softcapping has no matmul.
    ``unified`` (gemma4_unified_text): the same without per-layer embeddings or experts (its config class has
    neither; their keys are inert), a window of 1024 by default."""
    c.neutral("final_logit_softcapping", "sliding_window_pattern", "hidden_act")
    c.require("use_bidirectional_attention", lambda v: v in ("vision", None),
              "'all' makes every layer bidirectional with a halved window; not modelled")
    fields = decoder_fields(c, **llama_block(c, act_keys=("hidden_activation",), sandwich_norms=True, qk_norm="head",
                                       value_norm=True))
    block = fields["block"]
    block["activation"] = c.activation("hidden_activation", default="gelu_pytorch_tanh")
    if block["head_size"] is None:
        raise c.error("head_dim", "missing (Gemma's head size is not d/H)")
    fields["tied_embeddings"] = c.flag("tie_word_embeddings", True)
    window = c.size(None, "sliding_window", required=False, default=1024 if unified else None)
    if unified:  # Gemma4UnifiedTextConfig has no per-layer embeddings nor experts: those keys are left unread
        ple, ple_vocab, moe = 0, None, False
    else:
        ple = c.size(None, "hidden_size_per_layer_input", required=False, default=256)
        ple_vocab = c.size(None, "vocab_size_per_layer_input", required=False, default=262_144)
        moe = c.flag("enable_moe_block", False)
    if moe:
        experts = c.size(None, "num_experts", required=False)
        top_k = c.size(None, "top_k_experts", required=False)
        size = c.size(None, "moe_intermediate_size", required=False)
        for key, value in (("num_experts", experts), ("top_k_experts", top_k), ("moe_intermediate_size", size)):
            if value is None:
                raise c.error(key, "missing (enable_moe_block builds experts of it; transformers fails without it)")
        if experts < 2:
            raise c.error("num_experts", f"{experts}: experts beside the dense MLP are modelled from 2 on")
        if not 1 <= top_k <= experts:
            raise c.error("top_k_experts", f"{top_k}: expected 1 to num_experts ({experts})")
        block |= {"experts": experts, "active_experts": top_k, "expert_branch_norms": True}
    elif not unified:
        c.neutral("num_experts", "top_k_experts", "moe_intermediate_size")
    double = c.flag("use_double_wide_mlp", False)
    k_eq_v = c.flag("attention_k_eq_v", False)
    layers = layer_count(fields)
    if layers is None:
        c.neutral("layer_types", "per_layer_config", "global_head_dim", "num_global_key_value_heads",
                  "num_kv_shared_layers")
        return fields
    types = c.get("layer_types")
    if types is None:
        types = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)]
    if not isinstance(types, list) or len(types) != layers or \
            not all(t in ("sliding_attention", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries of 'sliding_attention' or 'full_attention'")
    types = types[:-1] + ["full_attention"]  # Gemma4TextConfig forces the last layer to full attention
    overrides = _gemma4_layer_overrides(c, layers, types)
    sources = _gemma4_kv_sources(c, layers, types)
    if ple:
        fields["per_layer_inputs"] = {"vocab_size": ple_vocab, "size": ple}
    blocks = []
    for i, kind in enumerate(types):
        own = dict(block)
        own["head_size"] = overrides.get(i, {}).get("head_dim", block["head_size"])
        own["kv_heads"] = overrides.get(i, {}).get("num_key_value_heads", block["kv_heads"])
        ff = block["ff_size"] * (2 if double and sources[i] is not None else 1)
        if moe:
            own |= {"shared_ff_size": ff, "ff_size": size}
        else:
            own["ff_size"] = ff
        own |= {"kv_source": sources[i], "values_from_keys": k_eq_v and kind == "full_attention",
                "per_layer_input_size": ple or None,
                "attention_window": window if kind == "sliding_attention" else None}
        blocks.append(own)
    return per_layer(fields, blocks)


@register("gemma4_unified_text", lm_classes("Gemma4Unified", bare="Gemma4UnifiedTextModel"))
def _gemma4_unified_text(c: Keys) -> dict:
    """gemma4_unified_text (the language model of Gemma 4's unified checkpoints; Gemma4UnifiedForCausalLM,
    Gemma4UnifiedTextModel): Gemma 4's decoder (``_gemma4_text``: layer types, per_layer_config sizes, values from
    keys, shared keys and values, the double-wide MLP) without per-layer embeddings or experts; sliding window
    1024 by default."""
    return _gemma4_text(c, unified=True)


@register("gemma3n_text", lm_classes("Gemma3n", bare="Gemma3nTextModel"))
def _gemma3n_text(c: Keys) -> dict:
    """gemma3n_text (Gemma 3n's language model; Gemma3nForCausalLM, Gemma3nTextModel): Gemma 3's block (four norms,
    GeGLU, per-head query and key norms) with a value norm without gain, attention scaled by 1, windows on the
    ``layer_types`` sliding layers (default: every fifth full); ``intermediate_size`` one for all layers or one per
    layer; the last ``num_kv_shared_layers`` layers reuse the keys and values of the last unshared layer of their type
    (as Gemma 4); per-layer embeddings of ``hidden_size_per_layer_input`` (as Gemma 4's); AltUp over
    ``altup_num_inputs`` streams (per layer: predict and correct, TransformerBlock.altup_inputs; N − 1 projections
    into and out of the streams); LAuReL of ``laurel_rank`` beside attention. Activation sparsity
    (``activation_sparsity_pattern``: a Gaussian top-k of the gate, means and deviations) and the coefficient clip
    change no matmul; AltUp's output scale exists whether ``altup_correct_scale`` uses it or not."""
    c.neutral("final_logit_softcapping", "activation_sparsity_pattern", "altup_coef_clip", "altup_correct_scale",
              "hidden_act", "rope_local_base_freq")
    fields = decoder_fields(c, ff_key=None, **llama_block(c, act_keys=("hidden_activation",), sandwich_norms=True,
                                                    qk_norm="head", value_norm=True))
    block = fields["block"]
    block["activation"] = c.activation("hidden_activation", default="gelu_pytorch_tanh")
    if block["head_size"] is None:
        raise c.error("head_dim", "missing (Gemma's head size is not d/H)")
    d, heads = fields["d_model"], block["heads"]
    if isinstance(d, int) and isinstance(heads, int) and heads > 0 and d % heads:
        raise c.error("num_attention_heads", f"{heads} heads do not divide hidden_size {d} (transformers refuses "
                                             "such a Gemma 3n config)")
    fields["tied_embeddings"] = c.flag("tie_word_embeddings", True)
    window = c.size(None, "sliding_window", required=False)
    ple = c.size(None, "hidden_size_per_layer_input", required=False, default=256)
    streams = c.size(None, "altup_num_inputs", required=False, default=4)
    active = c.size(None, "altup_active_idx", required=False, default=0)
    if isinstance(streams, int) and not 0 <= active < streams:
        raise c.error("altup_active_idx", f"{active}: expected a stream below altup_num_inputs ({streams})")
    laurel = c.size(None, "laurel_rank", required=False, default=64)
    fields["per_layer_inputs"] = {"vocab_size": c.size(None, "vocab_size_per_layer_input", required=False,
                                                       default=262_144), "size": ple}
    fields["altup_streams"] = streams
    layers = layer_count(fields)
    sizes = c.get("intermediate_size", 16_384)
    if not isinstance(sizes, list):
        block["ff_size"] = sizes = c.size("block.ff_size", "intermediate_size", required=False, default=16_384)
    if layers is None:
        c.neutral("layer_types", "num_kv_shared_layers")
        return fields
    if not isinstance(sizes, list):
        sizes = [sizes] * layers
    elif len(sizes) != layers or not all(isinstance(f, int) and not isinstance(f, bool) and f >= 1 for f in sizes):
        raise c.error("intermediate_size", f"expected one size or a list of {layers} whole numbers ≥ 1")
    types = c.get("layer_types")
    if types is None:
        types = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(layers)]
    if not isinstance(types, list) or len(types) != layers or \
            not all(t in ("sliding_attention", "full_attention") for t in types):
        raise c.error("layer_types", f"expected {layers} entries of 'sliding_attention' or 'full_attention'")
    sources = _gemma4_kv_sources(c, layers, types)
    blocks = [dict(block, ff_size=sizes[i], kv_source=sources[i], per_layer_input_size=ple, altup_inputs=streams,
                   laurel_rank=laurel, attention_window=window if kind == "sliding_attention" else None)
              for i, kind in enumerate(types)]
    return per_layer(fields, blocks)
