"""Cohere's lineage: Command-R (parallel blocks, one norm, LayerNorm without bias), Command-R7B (windows), the
compass text encoder and Cohere2-MoE.
"""
from __future__ import annotations

from .keys import Keys, whole_defaults
from .parts import (
    decoder_fields,
    floor_head_dim,
    layer_count,
    layer_kinds,
    layer_windows_each,
    merged,
    mlp_layers_each,
    pattern_windows,
    per_layer,
    read_experts,
    read_shared_experts,
    sliding_windows,
)
from .registry import lm_classes, register


def _cohere_common(c: Keys, qk_norm: bool) -> dict:
    c.neutral("logit_scale")
    bias = c.flag("attention_bias", False)
    fields = decoder_fields(c, norm="layernorm", norm_bias=False, gated=True, parallel=True, shared_norm=True,
                      activation=c.activation("hidden_act", default="silu"), qkv_bias=bias, out_bias=bias,
                      ff_bias=False, qk_norm="each_head" if qk_norm else "none")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("cohere", lm_classes("Cohere"))
def _cohere(c: Keys) -> dict:
    """cohere (Command R, Aya): one LayerNorm without β feeding attention and MLP in parallel, SwiGLU,
    ``use_qk_norm``: a norm of its own per head (γ of H·Q and H_kv·Q); tied head by default."""
    return _cohere_common(c, c.flag("use_qk_norm", False))


@register("cohere2", lm_classes("Cohere2"))
def _cohere2(c: Keys) -> dict:
    """cohere2 (Command R7B, Command A): Cohere's block; three sliding-window layers in four."""
    return pattern_windows(c, _cohere_common(c, False), 4)


COHERE_COMPASS_DEFAULTS = {"vocab_size": 256000, "hidden_size": 8192, "intermediate_size": 22528,
                           "num_hidden_layers": 40, "num_attention_heads": 64}
"""CohereCompassTextConfig's defaults of the sizes the reader reads (a null one is refused, as the config class
does)."""


@register("cohere_compass_text", lm_classes("CohereCompass", bare="CohereCompassTextModel"))
def _cohere_compass_text(c: Keys) -> dict:
    """cohere_compass_text (the language model of Cohere's North/Compass checkpoints, also inside the
    ``cohere_compass`` wrapper): Command R7B's block (``_cohere_common``: one LayerNorm without β feeding attention
    and MLP in parallel, SwiGLU, no QK norms; tied head by default); ``sliding_window`` on the layers ``layer_types``
    marks "sliding_attention" (absent: every layer full — ``sliding_window_pattern`` is not read). ``head_dim`` as
    written (the config class sets ⌊d/H⌋ first, then the written key; null refused); a layer type whose
    ``rope_parameters`` entry is
    null runs without rotary positions (no parameters either way), a missing entry is refused (transformers cannot
    build it); ``pooling`` serves only the classification class. Absent sizes: CohereCompassTextConfig's
    defaults."""
    c.neutral("sliding_window_pattern", "pooling")
    # other projects' Compass configs carry these; transformers builds Command R7B's block whatever they say
    c.require("norm_type", lambda v: v == "layer_norm", "transformers' Cohere Compass builds LayerNorms")
    c.require("transformer_block_type", lambda v: v == "parallel", "transformers' Cohere Compass runs attention and "
                                                                   "MLP in parallel")
    c.require("mlp_bias", lambda v: v is False, "transformers' Cohere Compass MLP has no biases")
    whole_defaults(c, COHERE_COMPASS_DEFAULTS, "CohereCompassTextConfig")
    if "head_dim" in c.data and c.data["head_dim"] is None:
        raise c.error("head_dim", "null: transformers' CohereCompassAttention cannot be built with it (absent: d/H)")
    fields = floor_head_dim(_cohere_common(c, False))
    layers = layer_count(fields)
    if layers and c.data.get("layer_types") is None:
        c.data = dict(c.data, layer_types=["full_attention"] * layers)
    if "sliding_window" not in c.data:
        c.data = dict(c.data, sliding_window=4096)  # CohereCompassTextConfig's default
    kinds = layer_kinds(c, "layer_types", layers, ("sliding_attention", "full_attention")) if layers else None
    fields = sliding_windows(c, fields, None)
    rope = c.get("rope_parameters", {})
    if kinds:
        missing = [k for k in dict.fromkeys(kinds) if not isinstance(rope, dict) or k not in rope]
        if missing:
            raise c.error("rope_parameters", f"no entry for {missing[0]!r}: transformers' CohereCompassRotaryEmbedding "
                                             "needs one per layer type (null: no rotary positions) and cannot be "
                                             "built without it")
    return fields


@register("cohere2_moe", lm_classes("Cohere2Moe"))
def _cohere2_moe(c: Keys) -> dict:
    """cohere2_moe: Cohere 2's parallel block (one input norm feeding attention and the feed-forward: an RMSNorm
    when ``rms_norm_eps`` is set, else a LayerNorm without β; the final norm the same), ``attention_bias`` on
    q/k/v/o; sparse layers ``num_experts`` of ``intermediate_size`` behind a router d→E without bias, k per token,
    and ``num_shared_experts`` × ``intermediate_size`` shared (summed with or averaged into the routed output: no
    matmul); dense layers (``mlp_layer_types``, absent: the first ``first_k_dense_replace``) an MLP of
    ``prefix_dense_intermediate_size`` (null: ``intermediate_size``); windows by ``layer_types`` (absent: every
    ``sliding_window_pattern``-th
    layer full, counted from the first sparse one; ``prefix_dense_sliding_window_pattern`` among the dense ones).
    ``head_dim`` (default 128) must be written out."""
    c.neutral("logit_scale", "shared_expert_combination_strategy", "expert_selection_fn", "norm_topk_prob")
    c.given("head_dim")
    bias = c.flag("attention_bias", False)
    norm = "rmsnorm" if c.get("rms_norm_eps") is not None else "layernorm"
    fields = decoder_fields(c, norm=norm, norm_bias=False, gated=True, parallel=True, shared_norm=True,
                      activation=c.activation("hidden_act", default="silu"), qkv_bias=bias, out_bias=bias,
                      ff_bias=False)
    dense_ff = read_experts(c, fields, ("num_experts",), ff_key="intermediate_size")
    prefix_ff = c.size(None, "prefix_dense_intermediate_size", required=False)
    dense_ff = dense_ff if prefix_ff is None else prefix_ff
    read_shared_experts(c, fields, "num_shared_experts", 0)
    layers = layer_count(fields)
    if not layers:
        return fields
    first = c.size(None, "first_k_dense_replace", required=False, default=0)
    mlp = mlp_layers_each(c, layers, dense_ff, first)
    prefix = c.size(None, "prefix_dense_sliding_window_pattern", required=False, default=1)
    period = c.size(None, "sliding_window_pattern", required=False, default=4)
    if min(prefix, period) < 1:
        raise c.error("sliding_window_pattern" if period < 1 else "prefix_dense_sliding_window_pattern",
                      "must be at least 1")
    windows = layer_windows_each(c, layers, lambda i: (i + 1) % prefix != 0 if i < first else
                                  (i - first + 1) % period != 0)
    return per_layer(fields, merged(windows, mlp)) | {"tied_embeddings": c.flag("tie_word_embeddings", True)}
