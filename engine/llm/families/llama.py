"""Llama's lineage: the Llama block (RMSNorm, SwiGLU, rotary, grouped-query attention) and the families that change
a few of its switches (windows, head sizes, biases, norms, differential attention, BitNet's sub-norms); the types
transformers defines as configs of their own on Llama's classes are aliases of ``llama``.
"""
from __future__ import annotations

import json

from .keys import Keys
from .parts import (
    decoder_fields,
    dense_first,
    floor_head_dim,
    layer_count,
    layer_windows,
    layer_windows_each,
    llama_block,
    merged,
    mlp_layers_each,
    pattern_windows,
    per_layer,
    read_experts,
    sliding_windows,
)
from .registry import lm_classes, register, register_alias


@register("llama", lm_classes("Llama"))
def _llama(c: Keys) -> dict:
    """llama: RMSNorm, SwiGLU, rotary; ``attention_bias`` on q/k/v/o, ``mlp_bias`` on the feed-forward."""
    fields = decoder_fields(c, **llama_block(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("mistral", lm_classes("Mistral"))
def _mistral(c: Keys) -> dict:
    """mistral: ``sliding_window`` W (null: full attention) on every layer."""
    fields = decoder_fields(c, **llama_block(c))
    return sliding_windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("mixtral", lm_classes("Mixtral"))
def _mixtral(c: Keys) -> dict:
    fields = _mistral(c)
    read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    return fields


@register("nanochat", lm_classes("NanoChat"))
def _nanochat(c: Keys) -> dict:
    """nanochat: RMSNorms without a gain everywhere (the pre-norms, the final norm, the per-head norms of queries and
    keys), ``attention_bias`` on q/k/v/o, a plain up/down feed-forward without biases and ReLU² (``hidden_act``);
    ``final_logit_softcapping`` scales logits only."""
    c.neutral("final_logit_softcapping")
    fields = decoder_fields(c, **llama_block(c, qk_norm="head", gated=False, norm_affine=False))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("mellum", lm_classes("Mellum"))
def _mellum(c: Keys) -> dict:
    """mellum (Mellum): Qwen3-MoE's attention (``attention_bias``, a per-head RMSNorm of queries and keys;
    ``head_dim``, absent: 128) and experts (``num_experts`` of ``moe_intermediate_size``, k per token, no shared
    expert); dense layers (a gated MLP of ``intermediate_size``) where ``mlp_layer_types`` says (absent: none);
    ``sliding_window`` (absent: 1024) where ``layer_types`` says (absent: none). The multi-token-prediction layer
    (``num_mtp_layers``) is not built by transformers."""
    c.neutral("norm_topk_prob", "num_nextn_predict_layers", "mtp_layer_types", "mtp_mlp_layer_types")
    if "sliding_window" not in c.data:
        c.data = c.data | {"sliding_window": 1024}
    fields = decoder_fields(c, **llama_block(c, qk_norm="head"))
    if fields["block"]["head_size"] is None:
        fields["block"]["head_size"] = 128  # MellumConfig's default (not d/H)
    dense_ff = read_experts(c, fields, ("num_local_experts",))
    layers = layer_count(fields)
    if layers:
        windows = layer_windows_each(c, layers, lambda i: False)
        per_layer(fields, merged(windows, mlp_layers_each(c, layers, dense_ff, 0)))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("bitnet", lm_classes("BitNet"))
def _bitnet(c: Keys) -> dict:
    """bitnet (BitNet b1.58): the Llama block (``attention_bias`` on q/k/v/o; ``num_key_value_heads`` absent: 5, the
    config class's default) with Gemma's gated MLP (ReLU² by default, no biases) and BitNet's sub-norms: an RMSNorm
    of the attention's output (width d: the heads must span d) before the output projection and of act(gate)·up
    before the down projection. The ternary weights are trained as full-precision matrices: the count is the same."""
    if c.data.get("num_key_value_heads") is None:
        c.data = c.data | {"num_key_value_heads": 5}
    fields = decoder_fields(c, **llama_block(c, sub_norms=True))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    block, d = fields["block"], fields["d_model"]
    if block["head_size"] is not None and block["head_size"] * block["heads"] != d:
        raise c.error("head_dim", f"{block['head_size']} × {block['heads']} heads is not hidden_size {d} (BitNet's "
                                  "attention sub-norm has width hidden_size; transformers cannot run it)")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("diffllama", lm_classes("DiffLlama"))
def _diffllama(c: Keys) -> dict:
    """diffllama (DiffLlama): the Llama block with differential attention (two attention calls over the same
    queries and keys, one per half of the value heads, each repeated; four learned vectors λ of the head size; a
    gainless RMSNorm of each head's two outputs). ``num_key_value_heads`` must be even (transformers refuses
    others, and its default, null)."""
    c.neutral("lambda_std_dev")
    fields = decoder_fields(c, **llama_block(c, differential=True))
    kv = fields["block"]["kv_heads"]
    if kv is None or kv % 2:
        raise c.error("num_key_value_heads", f"{json.dumps(kv)} is not an even number (DiffLlama splits the values "
                                             "by key/value heads; transformers refuses it)")
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False) if c.reads("mlp_bias") else False
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("smollm3", lm_classes("SmolLM3"))
def _smollm3(c: Keys) -> dict:
    """smollm3: the Llama block; rotary skipped on some layers (``no_rope_layers``: no parameters);
    windows only on the layers without rotary when ``use_sliding_window``."""
    c.neutral("no_rope_layers", "no_rope_layer_interval")
    fields = decoder_fields(c, **llama_block(c))
    fields["block"]["ff_bias"] = c.flag("mlp_bias", False)
    if not c.flag("use_sliding_window", False):
        c.neutral("sliding_window", "layer_types")
    elif c.data.get("layer_types") is None:
        raise c.error("layer_types", "missing (with use_sliding_window, which layers slide)")
    else:
        fields = sliding_windows(c, fields, None)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("exaone4", lm_classes("Exaone4"))
def _exaone4(c: Keys) -> dict:
    """exaone4: norms on each sub-layer's output (before the residual add, as OLMo 2), a per-head RMSNorm of
    queries and keys; three sliding-window layers in four (``sliding_window_pattern``)."""
    fields = decoder_fields(c, **llama_block(c, attention_bias=False, norm_position="output", qk_norm="head"))
    if c.data.get("sliding_window") is None:
        c.neutral("sliding_window_pattern")
    fields = pattern_windows(c, fields, 4)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False), "final_norm": True}


@register("ernie4_5", lm_classes("Ernie4_5"))
def _ernie4_5(c: Keys) -> dict:
    """ernie4_5: the Llama block, ``use_bias`` on every linear of the block; ``head_dim`` (default 128)
    must be given."""
    c.given("head_dim")
    bias = c.flag("use_bias", False)
    fields = decoder_fields(c, **llama_block(c, qkv_bias=bias, out_bias=bias, ff_bias=bias))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True)}


@register("ernie4_5_moe", lm_classes("Ernie4_5_Moe"))
def _ernie4_5_moe(c: Keys) -> dict:
    """ernie4_5_moe: ERNIE 4.5's block; layers ``moe_layer_start_index`` … ``moe_layer_end_index`` (every
    ``moe_layer_interval``-th) sparse: ``moe_num_experts`` of ``moe_intermediate_size``, ``moe_k`` per
    token, a learned score correction per expert (E parameters, counted as the router's bias) and
    ``moe_num_shared_experts`` × ``moe_intermediate_size`` shared; ``use_bias`` on every linear and the
    LM head; ``head_dim`` (absent: ⌊d/H⌋, unlike the dense ERNIE 4.5's 128)."""
    c.neutral("moe_norm_min", "num_mtp_layers", "moe_capacity", "moe_gate", "moe_use_aux_free")
    bias = c.flag("use_bias", False)
    fields = floor_head_dim(decoder_fields(c, **llama_block(c, qkv_bias=bias, out_bias=bias, ff_bias=bias)))
    block = fields["block"]
    dense_ff = block["ff_size"]
    block |= {"experts": c.size("block.experts", "moe_num_experts"),
              "active_experts": c.size("block.active_experts", "moe_k"),
              "ff_size": c.size("block.ff_size", "moe_intermediate_size"), "router_bias": True,
              "ff_bias": False}  # the experts' weights have no biases whatever use_bias says
    shared = c.size(None, "moe_num_shared_experts", required=False, default=0)
    if shared:
        if bias:
            raise c.error("use_bias", "biases on the shared experts are not modelled")
        block["shared_ff_size"] = shared * block["ff_size"]
    layers = layer_count(fields)
    if layers:
        start = c.size(None, "moe_layer_start_index", required=False, default=1)
        end = c.size(None, "moe_layer_end_index", required=False, default=-1)
        end = layers - 1 if end == -1 else end
        step = c.size(None, "moe_layer_interval", required=False, default=1)
        if step < 1:
            raise c.error("moe_layer_interval", "must be at least 1")
        dense_first(c, fields, [(i + 1) % step == 0 and start <= i <= end for i in range(layers)], dense_ff)
        for group in fields.get("first_layers", []):
            group["block"]["ff_bias"] = bias
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", True), "head_bias": bias}


@register("llama4_text", lm_classes("Llama4", bare="Llama4TextModel"))
def _llama4_text(c: Keys) -> dict:
    """llama4_text (Llama 4's language model): the Llama block; MoE layers (``moe_layers``, else every
    ``interleave_moe_layer_step``-th) with E experts of ``intermediate_size``, k per token and a shared
    expert of the same size; the other layers a dense MLP of ``intermediate_size_mlp``. The QK-norm is an
    L2 norm without parameters; chunked attention and skipped rotary change no matmul.

    transformers' ``Llama4TextMoe`` runs every expert on every token (inputs scaled by the router's
    scores, zero off the top k): the engine counts the k routed experts a token uses, as the model is
    meant to run (docs/llm.md)."""
    c.neutral("use_qk_norm", "no_rope_layers", "no_rope_layer_interval", "attention_chunk_size",
              "attn_temperature_tuning", "floor_scale", "attn_scale", "layer_types", "for_llm_compressor")
    c.given("head_dim")
    fields = decoder_fields(c, **llama_block(c))
    block = fields["block"]
    dense_ff = c.size(None, "intermediate_size_mlp")
    read_experts(c, fields, ("num_local_experts",), ff_key="intermediate_size")
    block["shared_ff_size"] = block["ff_size"]
    if block["experts"] == 1:
        raise c.error("num_local_experts", "a Llama 4 MoE layer needs at least 2 experts")
    layers = layer_count(fields)
    if layers:
        moe = c.get("moe_layers")
        if moe is None:
            step = c.size(None, "interleave_moe_layer_step", required=False, default=1)
            if step < 1:
                raise c.error("interleave_moe_layer_step", "must be at least 1")
            moe = list(range(step - 1, layers, step))
        else:
            c.neutral("interleave_moe_layer_step")
        if not isinstance(moe, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in moe):
            raise c.error("moe_layers", "expected a list of layer numbers")
        dense_first(c, fields, [i in set(moe) for i in range(layers)], dense_ff)
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("helium", lm_classes("Helium"))
def _helium(c: Keys) -> dict:
    """helium: the Llama block; q/k/v biases only (``attention_bias``), an output projection d→d without
    one (so H·Q must equal d), ``mlp_bias`` on the feed-forward; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    bias = c.flag("attention_bias", False)
    fields = decoder_fields(c, **llama_block(c, qkv_bias=bias, out_bias=False, ff_bias=c.flag("mlp_bias", False)))
    block = fields["block"]
    if block["head_size"] is not None and block["head_size"] * block["heads"] != fields["d_model"]:
        raise c.error("head_dim", "heads × head_dim must equal hidden_size (Helium's output projection is d→d)")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _head_dim_written(c: Keys, why: str) -> None:
    """``head_dim`` must be written out, not null: the family's attention reads it as it stands (``why``: what
    transformers does without it)."""
    if c.data.get("head_dim") is None:
        raise c.error("head_dim", f"missing ({why}; write it out)")


@register("ministral3", lm_classes("Ministral3"))
def _ministral3(c: Keys) -> dict:
    """ministral3 (the language model of Ministral 3): the Mistral block (no biases); ``sliding_window`` W
    (null: full attention) on every layer; ``head_dim`` must be given (the config's default is 128, not d/H, and
    it refuses null)."""
    _head_dim_written(c, "transformers' Ministral 3 default is 128, not d/H")
    fields = decoder_fields(c, **llama_block(c))
    return sliding_windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("ministral", lm_classes("Ministral"))
def _ministral(c: Keys) -> dict:
    """ministral (Ministral 8B): the Mistral block (no biases); ``sliding_window`` W on the layers ``layer_types``
    marks sliding (absent: every layer); ``sliding_window`` (MinistralModel builds the sliding mask whatever the
    layers) and ``head_dim`` (the config's default, null, does not build) must be given."""
    _head_dim_written(c, "transformers' MinistralAttention cannot be built with its default, null")
    if c.data.get("sliding_window") is None:  # MinistralModel builds the sliding mask on every forward
        raise c.error("sliding_window", "missing (transformers' MinistralModel cannot run without it; full attention "
                                        "on a layer: \"full_attention\" in layer_types)")
    fields = decoder_fields(c, **llama_block(c))
    return sliding_windows(c, fields, None) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("arcee", lm_classes("Arcee"))
def _arcee(c: Keys) -> dict:
    """arcee (AFM-4.5B): the Llama block (``attention_bias`` on q/k/v/o) with a plain up/down feed-forward
    (``mlp_bias``) and ReLU² (``hidden_act``, default relu2) instead of SwiGLU; absent ``head_dim``: d/H."""
    fields = decoder_fields(c, **llama_block(c, gated=False, ff_bias=c.flag("mlp_bias", False)))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("apertus", lm_classes("Apertus"))
def _apertus(c: Keys) -> dict:
    """apertus: Llama's attention (``attention_bias`` on q/k/v/o) with a per-head RMSNorm of queries and keys; a
    plain up/down feed-forward without biases and xIELU (``hidden_act``, default xielu: two learned scalars per
    layer's MLP, α_p and α_n); the norms renamed (attention_layernorm, feedforward_layernorm), the same pre-norms."""
    fields = decoder_fields(c, **llama_block(c, gated=False, qk_norm="head"))
    fields["block"]["activation"] = c.activation("hidden_act", default="xielu")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("apertus1p5_text", lm_classes("Apertus1p5Text"))
def _apertus1p5_text(c: Keys) -> dict:
    """apertus1p5_text (Apertus 1.5's language model, also inside its multimodal wrapper): Apertus's block; the
    token table keeps the full vocabulary V (text, visual and audio codes) while an untied LM head may be pruned to
    ``output_vocab_size`` O rows (d→O; null or V: the full head). A tied head is the table itself (transformers
    ties lm_head to embed_tokens whatever O: V logits)."""
    fields = _apertus(c)
    rows = c.size("head_vocab_size", "output_vocab_size", required=False)
    if rows is not None and not 1 <= rows <= fields["vocab_size"]:
        raise c.error("output_vocab_size", f"{rows} head rows: must be in [1, vocab_size] "
                                           f"({fields['vocab_size']}), as Apertus1p5TextConfig checks")
    if rows is not None and rows != fields["vocab_size"] and not fields["tied_embeddings"] \
            and c.cls.endswith("ForCausalLM"):  # the bare model has no head
        fields["head_vocab_size"] = rows
    return fields


@register("hunyuan_v1_dense", lm_classes("HunYuanDenseV1"))
def _hunyuan_v1_dense(c: Keys) -> dict:
    """hunyuan_v1_dense (Hunyuan 0.5B–7B): the Llama block (``attention_bias`` on q/k/v/o, no MLP biases) with a
    per-head RMSNorm of queries and keys (after the rotary embedding: no count difference); ``head_dim`` must be
    given (the config's default is null, which the attention cannot build)."""
    _head_dim_written(c, "transformers' HunYuan attention cannot be built with its default, null")
    c.neutral("eod_token_id")
    fields = decoder_fields(c, **llama_block(c, qk_norm="head"))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


def _one_per_layer(c: Keys, key: str, default: int) -> int:
    """A key HunYuan's router also takes as a list per layer (``moe_topk``): one number, or a list of the same
    number for every layer; different numbers by layer are refused."""
    value = c.data.get(key)
    if isinstance(value, list):
        c.used.add(key)
        if len(set(map(str, value))) != 1 or len(value) != c.data.get("num_hidden_layers"):
            raise c.error(key, "a list of different values by layer is not modelled (one value, or the same for "
                               "every layer)")
        c.data = dict(c.data, **{key: value[0]})
    return c.size(None, key, required=False, default=default)


@register("hunyuan_v1_moe", lm_classes("HunYuanMoEV1"))
def _hunyuan_v1_moe(c: Keys) -> dict:
    """hunyuan_v1_moe (Hunyuan-A13B): HunYuan's dense block with, on every layer, E experts of
    ``intermediate_size`` behind a router d→E without bias (``num_experts``), ``moe_topk`` per token (one number,
    or the same for every layer), and a shared MLP of ``intermediate_size`` beside them. One expert (E = 1: a router
    d→1 still built) is refused by name."""
    fields = _hunyuan_v1_dense(c)
    block = fields["block"]
    if isinstance(c.data.get("num_experts"), list):  # the router reads it by layer, the experts as one number
        raise c.error("num_experts", "a list by layer is not built by transformers (its experts read one number)")
    experts, k = c.size(None, "num_experts", required=False, default=1), _one_per_layer(c, "moe_topk", 1)
    if experts == 1:
        raise c.error("num_experts", "1 is not modelled (transformers still builds a router d→1 and the shared MLP)")
    block |= {"experts": experts, "active_experts": k, "shared_ff_size": block["ff_size"]}
    c.key_of |= {"block.experts": "num_experts", "block.active_experts": "moe_topk"}
    return fields


@register("seed_oss", lm_classes("SeedOss"))
def _seed_oss(c: Keys) -> dict:
    """seed_oss: the Llama block; ``attention_bias`` on q/k/v, ``attention_out_bias`` on the output,
    ``mlp_bias`` on the feed-forward; ``head_dim`` (default 128) must be given."""
    c.given("head_dim")
    c.neutral("residual_dropout")
    bias = c.flag("attention_bias", True)
    fields = decoder_fields(c, **llama_block(c, qkv_bias=bias, out_bias=c.flag("attention_out_bias", False),
                                       ff_bias=c.flag("mlp_bias", False)))
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("cwm", lm_classes("Cwm"))
def _cwm(c: Keys) -> dict:
    """cwm (Code World Model): the Llama block without attention biases; windows on the layers
    ``layer_types`` marks sliding (absent: all but every fourth layer from the first)."""
    fields = decoder_fields(c, **llama_block(c, ff_bias=c.flag("mlp_bias", False)))
    default = lambda n: ["full_attention" if i % 4 == 0 else "sliding_attention" for i in range(n)]  # noqa: E731
    return layer_windows(c, fields, default) | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


@register("jais2", lm_classes("Jais2"))
def _jais2(c: Keys) -> dict:
    """jais2 (Jais 2): the Llama block with LayerNorms (γ, β), ``attention_bias`` on q/k/v/o (default true) and a
    plain up/down feed-forward (``mlp_bias``, default true) with ReLU² (``hidden_act``)."""
    fields = decoder_fields(c, **llama_block(c, attention_bias=True, norm="layernorm", gated=False,
                                       ff_bias=c.flag("mlp_bias", True)))
    fields["block"]["activation"] = c.activation("hidden_act", default="relu2")
    return fields | {"tied_embeddings": c.flag("tie_word_embeddings", False)}


# Types transformers defines as a config of their own on Llama's classes (``ExaoneConfig`` builds
# ``LlamaForCausalLM``): the defaults of each type's config class that differ from Llama's, for the keys the
# reader does not require; read against the keys Llama's modelling code reads.
register_alias("exaone", "llama", defaults={"num_key_value_heads": 8})
register_alias("internlm3", "llama", defaults={"num_key_value_heads": 2, "head_dim": 128})
register_alias("iquestcoder", "llama", defaults={"num_key_value_heads": 8, "head_dim": 128})
