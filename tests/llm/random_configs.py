"""Random small configs of every supported family, for the property test ``test_random_configs.py``.

Driven by the registry (``engine.llm.families.FAMILIES``), not a list: for each ``model_type`` the coverage
sweep's small default config (``tests.llm.coverage.small_config``: transformers' config class with its own
defaults) is the start, and hypothesis draws new values for the size keys that family has and transformers'
modelling code reads (``engine/llm/config_keys.json``), by the role each key plays:

- width, heads and key/value heads (H = H_kv · g), head size (equal to d/H or not, where ``head_dim`` is a
  key of its own), feed-forward sizes (each key its own), layer counts (each stack its own), vocabulary,
  learned position rows, tied or untied embeddings, the class in ``architectures`` (head or bare model);
- experts E, k per token, shared experts, expert sizes; the first dense layers; DeepSeek's MLA ranks;
- layer patterns: ``layer_types``, sliding windows and their period, ``mlp_layer_types`` (dense or sparse per
  layer), Qwen-MoE's sparse steps and dense layers, Llama 4's MoE layers;
- state sizes: Mamba's N, conv kernel K, expansion, Δ rank;
- the structural flags in ``FLAGS`` (biases, QK norms, parallel residuals…).

The other keys keep the family's default. Where a generic draw is not a model transformers can build, a
family's ``HOOKS`` entry draws that key its own way; where a key cannot be randomized at all, ``PINNED``
fixes it and says why (the test module lists these exclusions; nothing is skipped silently).
"""
from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

from hypothesis import strategies as st

from tests.llm import coverage

WIDTH = ("hidden_size", "n_embd", "d_model", "dim", "n_embed")
HEADS = ("num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads",
         "decoder_attention_heads")
KV_HEADS = ("num_key_value_heads", "num_kv_heads", "n_head_kv")
HEAD_SIZE = ("head_dim", "d_kv")
FEED_FORWARD = ("intermediate_size", "ffn_dim", "n_inner", "d_ff", "hidden_dim", "ffn_hidden_size",
                "encoder_ffn_dim", "decoder_ffn_dim", "intermediate_size_mlp", "moe_intermediate_size",
                "shared_expert_intermediate_size")
POSITIONS = ("max_position_embeddings", "n_positions", "max_seq_len")
EXPERTS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
TOP_K = ("num_experts_per_tok", "moe_k")
SHARED_EXPERTS = ("n_shared_experts", "moe_num_shared_experts")
FLAGS = ("attention_bias", "mlp_bias", "use_bias", "qkv_bias", "use_qkv_bias", "qk_layernorm", "use_qk_norm",
         "use_parallel_residual", "parallel_attn", "bias", "enable_bias", "do_layer_norm_before", "lm_head_bias",
         "use_conv_bias", "multi_query", "new_decoder_architecture", "alibi", "sinusoidal_pos_embds",
         "tie_word_embeddings")
"""Booleans that change the model's shape, drawn where the family has them; other booleans keep the default."""

MAX_SEQ = 12
"""Sequences of 1…MAX_SEQ tokens; learned position tables get at least this many rows."""


@functools.cache
def defaults(model_type: str) -> dict:
    """The sweep's small default config of this family, as ``to_dict()`` writes it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return coverage.small_config(model_type, "").to_dict()


@functools.cache
def read_keys(model_type: str) -> frozenset[str] | None:
    """The keys transformers' modelling code reads for this family, under every name they go by (None: the
    family is not in config_keys.json; then every key counts as read)."""
    from engine.llm.families.keys import key_aliases, modelling_keys

    reads = modelling_keys().get(model_type)
    if reads is None:
        return None
    aliases = key_aliases().get(model_type, {})
    return frozenset(reads) | {a for a, k in aliases.items() if k in reads} | \
        {k for a, k in aliases.items() if a in reads}


class Spec:
    """What a family has: its defaults and the keys transformers reads."""

    def __init__(self, model_type: str, cls: str = ""):
        self.model_type, self.defaults, self.reads = model_type, defaults(model_type), read_keys(model_type)
        self.cls = cls  # the class in architectures

    def read(self, key: str) -> bool:
        return self.reads is None or key in self.reads

    def has(self, key: str) -> bool:
        """A key of the config class that the modelling code reads."""
        return key in self.defaults and self.read(key)

    def first(self, keys) -> str | None:
        return next((k for k in keys if self.has(k)), None)

    def rotary_fraction(self) -> float:
        rope = self.defaults.get("rope_parameters") or {}
        for value in (self.defaults.get("partial_rotary_factor"), self.defaults.get("rotary_pct"),
                      rope.get("partial_rotary_factor") if isinstance(rope, dict) else None):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
        return 1.0

    def head_sizes(self) -> list[int]:
        """Even head sizes whose rotary part (a fraction of it) is even and not empty."""
        f = self.rotary_fraction()
        return [q for q in range(4, 33, 4) if int(q * f) >= 2 and int(q * f) % 2 == 0]


def _small(draw, default, low: int, high: int):
    """A whole number in [low, high]; or null where the family's default is null (its own rule applies)."""
    if default is None:
        return draw(st.one_of(st.none(), st.integers(low, high)))
    return draw(st.integers(low, high))


def generic(draw, spec: Spec) -> dict:
    """New values for every size key the family has, consistent with one another."""
    out: dict = {}
    d0 = spec.defaults
    kv_key = spec.first(KV_HEADS)
    heads_keys = [k for k in HEADS if spec.has(k)]
    if kv_key:
        kv = draw(st.integers(1, 3))
        heads = kv * draw(st.integers(1, 3))
        out[kv_key] = kv
    else:
        heads = draw(st.integers(1, 4))
    for key in heads_keys:
        out[key] = heads
    size = draw(st.sampled_from(spec.head_sizes()))
    width_key = spec.first(WIDTH)
    size_key = spec.first(HEAD_SIZE)
    width = heads * size
    if size_key:
        out[size_key] = size
        if draw(st.booleans()):  # a head size of its own, not d/H
            width = heads * draw(st.sampled_from(spec.head_sizes()))
    if width_key:
        out[width_key] = width if heads_keys else draw(st.integers(1, 6)) * 8
    if not kv_key and not size_key:
        for key in heads_keys[1:]:  # another stack's heads (BART's encoder): any divisor of d
            out[key] = draw(st.sampled_from([h for h in range(1, 9) if width % h == 0 and
                                             int(width // h * spec.rotary_fraction()) % 2 == 0]))
    for key in FEED_FORWARD:
        if spec.has(key):
            out[key] = _small(draw, d0[key], 1, 40)
    for key in coverage.LAYER_KEYS:
        if spec.has(key) and isinstance(d0[key], int):
            out[key] = draw(st.integers(1, 3))
    if spec.has("vocab_size"):
        out["vocab_size"] = draw(st.integers(8, 64))
    for key in d0:
        if key.endswith("_token_id") and d0[key] is not None:
            out[key] = [0] if isinstance(d0[key], list) else 0  # inside the small vocabulary
    for key in POSITIONS:
        if spec.has(key) and d0[key] is not None:
            out[key] = draw(st.integers(MAX_SEQ, 40))
    for key in FLAGS:
        if spec.has(key) and isinstance(d0[key], bool):
            out[key] = draw(st.booleans())
    layers = next((out[k] for k in coverage.LAYER_KEYS if k in out), 1)
    _experts(draw, spec, out, layers)
    _latent_attention(draw, spec, out)
    _patterns(draw, spec, out, layers)
    _state(draw, spec, out)
    _others(draw, spec, out, width)
    return out


def _experts(draw, spec: Spec, out: dict, layers: int) -> None:
    experts_key = spec.first(EXPERTS)
    if experts_key:
        e = draw(st.integers(2, 6))
        out[experts_key] = e
        for key in TOP_K:
            if spec.has(key):
                out[key] = draw(st.integers(1, e))
    for key in SHARED_EXPERTS:
        if spec.has(key):
            out[key] = draw(st.integers(0, 2))
    if spec.has("first_k_dense_replace"):
        out["first_k_dense_replace"] = draw(st.integers(0, layers))
    for key in ("n_group", "topk_group"):  # group-limited routing: one group (DeepSeek's hook draws more)
        if spec.has(key) and spec.defaults[key] is not None:
            out[key] = 1


def _latent_attention(draw, spec: Spec, out: dict) -> None:
    """Multi-head latent attention (DeepSeek and the families built on its classes): ``head_dim`` is the rotary
    part (``qk_rope_head_dim``, set by the config class) and the key/value heads are H (transformers'
    repeat_kv fails on fewer)."""
    if spec.has("kv_lora_rank"):
        out.pop("head_dim", None)
        kv_key = spec.first(KV_HEADS)
        if kv_key:
            out[kv_key] = out[spec.first(HEADS)]
        out |= {"q_lora_rank": draw(st.one_of(st.none(), st.integers(1, 20))), "kv_lora_rank": draw(st.integers(1, 20)),
                "qk_nope_head_dim": draw(st.integers(1, 8)) * 2, "qk_rope_head_dim": draw(st.integers(1, 4)) * 2,
                "v_head_dim": draw(st.integers(1, 12))}


def _patterns(draw, spec: Spec, out: dict, layers: int) -> None:
    d0 = spec.defaults
    if spec.has("sliding_window"):
        out["sliding_window"] = _small(draw, d0["sliding_window"] or None, 1, 16)
    for key in ("sliding_window_pattern", "_sliding_window_pattern"):
        if spec.has(key) and isinstance(d0[key], int):
            out[key] = draw(st.integers(1, 4))
    if spec.has("layer_types") and isinstance(d0["layer_types"], list) and d0["layer_types"]:
        kinds = sorted(set(d0["layer_types"]))
        out["layer_types"] = draw(st.one_of(st.none(), st.lists(st.sampled_from(kinds), min_size=layers,
                                                                 max_size=layers)))
    if spec.has("mlp_layer_types") and isinstance(d0["mlp_layer_types"], list) and d0["mlp_layer_types"]:
        out["mlp_layer_types"] = draw(st.one_of(st.none(), st.lists(st.sampled_from(["dense", "sparse"]),
                                                                     min_size=layers, max_size=layers)))
    for key in ("decoder_sparse_step", "encoder_sparse_step"):
        if spec.has(key):
            out[key] = draw(st.integers(1, 3))
    if spec.has("mlp_only_layers"):
        out["mlp_only_layers"] = draw(st.lists(st.integers(0, layers - 1), unique=True, max_size=layers))


def _state(draw, spec: Spec, out: dict) -> None:
    if spec.has("state_size"):
        out["state_size"] = draw(st.integers(1, 16))
    if spec.has("conv_kernel"):
        out["conv_kernel"] = draw(st.integers(1, 4))
    if spec.has("expand"):
        out["expand"] = draw(st.integers(1, 3))
    if spec.has("time_step_rank"):
        out["time_step_rank"] = draw(st.one_of(st.just("auto"), st.integers(1, 8)))


def _others(draw, spec: Spec, out: dict, width: int) -> None:
    if spec.has("relative_attention_num_buckets"):
        # T5's bucketing halves B for the two directions, then B/2 exact buckets: B < 4 divides by 0 in transformers
        out["relative_attention_num_buckets"] = draw(st.integers(4, 32))
    if spec.has("type_vocab_size"):
        out["type_vocab_size"] = draw(st.integers(1, 3))
    if spec.has("embedding_size"):  # ELECTRA's narrow tables
        out["embedding_size"] = draw(st.one_of(st.just(width), st.integers(1, 24)))
    if spec.has("word_embed_proj_dim"):  # OPT-350m's project_in/project_out
        out["word_embed_proj_dim"] = draw(st.one_of(st.just(width), st.integers(1, 24)))
    if spec.has("rotary_dim"):  # GPT-J, CodeGen: an absolute rotary width within the head
        size = out.get("head_dim") or width // max(out.get(k, 1) for k in HEADS if k in out)
        out["rotary_dim"] = draw(st.integers(1, max(1, size // 2))) * 2


# ---------------------------------------------------------------- families whose keys need their own draw

def _falcon(draw, spec: Spec, out: dict) -> None:
    """Falcon's older layout (no ``new_decoder_architecture``) has H key/value heads, or 1 with multi_query:
    grouped heads only in the new one (transformers' reshape fails otherwise; the reader refuses it by name),
    and ``num_ln_in_parallel_attn`` 1 or 2 only in the new layout, whose blocks are parallel (transformers fails
    on the others)."""
    out["ffn_hidden_size"] = draw(st.one_of(st.none(), st.integers(1, 40)))
    if out["new_decoder_architecture"]:  # always parallel (transformers' sequential new layout fails)
        out["parallel_attn"] = True
        out["num_ln_in_parallel_attn"] = draw(st.sampled_from([None, 1, 2]))
    else:  # the older layout builds one input norm whatever num_ln_in_parallel_attn says (2 crashes there)
        out["num_kv_heads"] = out["num_attention_heads"]
        out["num_ln_in_parallel_attn"] = None


def _deepseek(draw, spec: Spec, out: dict) -> None:
    """Group-limited routing: E divisible into n_group groups of at least 2 (top-2 per group), k within
    topk_group groups.
    DeepSeek-V2: an even ``kv_lora_rank`` (its complex-number rotary needs the slice after it at an even offset)."""
    if spec.model_type == "deepseek_v2":  # its rotary views the latent's rotary slice as complex: even offsets
        out["kv_lora_rank"] = draw(st.integers(1, 10)) * 2
    e = out["n_routed_experts"]
    groups = draw(st.sampled_from([g for g in (1, 2, 3) if e % g == 0 and e // g >= 2]))
    top_groups = draw(st.integers(1, groups))
    out |= {"n_group": groups, "topk_group": top_groups,
            "num_experts_per_tok": draw(st.integers(1, top_groups * (e // groups)))}


def _sparse_attention(draw, spec: Spec, out: dict) -> None:
    """DeepSeek-V3.2 and GLM-5 (``_deepseek``'s routing): the lightning indexer reads the query latent
    (``q_lora_rank`` a number) and rotates its first qk_rope_head_dim channels (``index_head_dim`` at least
    that); GLM-5's layers share the selection where ``indexer_types`` says (the first runs its own)."""
    _deepseek(draw, spec, out)
    layers = out["num_hidden_layers"]
    rope = out["qk_rope_head_dim"]
    out |= {"q_lora_rank": draw(st.integers(1, 20)), "index_n_heads": draw(st.integers(1, 4)),
            "index_head_dim": rope + draw(st.integers(0, 4)) * 2}
    if spec.has("indexer_types"):
        out["indexer_types"] = draw(st.one_of(st.none(), st.lists(st.sampled_from(["full", "shared"]),
                                                                  min_size=layers - 1, max_size=layers - 1).map(
            lambda rest: ["full", *rest])))


def _hy_v4(draw, spec: Spec, out: dict) -> None:
    """HY-V4: GLM-5's sparse attention draws (``_sparse_attention``: the query latent a number, ``index_head_dim``
    at least ``qk_rope_head_dim``, shared selections after the first layer) and 1–4 hyper-connection streams."""
    _sparse_attention(draw, spec, out)
    out["hc_mult"] = draw(st.integers(1, 4))


def _dots3_note_text(draw, spec: Spec, out: dict) -> None:
    """dots.3 note (``_deepseek``'s routing): the query latent a number, ``index_head_dim`` at least
    ``qk_rope_head_dim``, one or two shared experts (Dots3NoteTextConfig refuses none), small sliding layers of their
    own (``swa_*``: heads, ranks, a head size of nope + rope), DSA and windows on or off, window 1–16."""
    _deepseek(draw, spec, out)
    rope, nope, swa_rope, heads = out["qk_rope_head_dim"], *(draw(st.integers(1, 4)) * 2 for _ in range(2)), \
        draw(st.integers(1, 4))
    out |= {"q_lora_rank": draw(st.integers(1, 20)), "index_n_heads": draw(st.integers(1, 4)),
            "index_head_dim": rope + draw(st.integers(0, 4)) * 2, "n_shared_experts": draw(st.integers(1, 2)),
            "shared_experts_intermediate_size": draw(st.integers(1, 24)), "swa_num_attention_heads": heads,
            "swa_num_key_value_heads": heads, "swa_q_lora_rank": draw(st.integers(1, 20)),
            "swa_kv_lora_rank": draw(st.integers(1, 20)), "swa_qk_nope_head_dim": nope,
            "swa_head_dim": nope + swa_rope, "swa_v_head_dim": draw(st.integers(1, 12)),
            "use_dsa": draw(st.booleans()), "use_sliding_window": draw(st.booleans()),
            "sliding_window": draw(st.integers(1, 16))}


def _deepseek_v4(draw, spec: Spec, out: dict) -> None:
    """DeepSeek-V4: layer kinds drawn among sliding, compressed sparse and heavily compressed (or the default
    pattern), compression rates 1 to 6 (the defaults 4 and 128 make no entry at 128 positions and below), 1 to 4
    hyper-connection streams, the query rank and the indexer's sizes; ``head_dim`` a multiple of 16 (its rotary
    eighth, even, rotates the indexer's heads too: ``index_head_dim`` at least that; transformers cannot run an odd
    one or a narrower indexer head) and ``o_groups``
    dividing the heads' width (transformers cannot run others; the reader refuses them by name)."""
    layers = out["num_hidden_layers"]
    kinds = ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"]
    head = 16 * draw(st.integers(1, 2))
    heads = out["num_attention_heads"]
    out |= {"head_dim": head, "num_key_value_heads": 1, "q_lora_rank": draw(st.integers(1, 20)),
            "o_groups": draw(st.sampled_from([g for g in range(1, 9) if heads * head % g == 0])),
            "o_lora_rank": draw(st.integers(1, 12)), "hc_mult": draw(st.integers(1, 4)),
            "index_n_heads": draw(st.integers(1, 4)), "index_head_dim": head // 8 + 2 * draw(st.integers(0, 4)),
            "compress_rates": {"compressed_sparse_attention": draw(st.integers(1, 6)),
                               "heavily_compressed_attention": draw(st.integers(1, 6))},
            "layer_types": draw(st.one_of(st.none(), st.lists(st.sampled_from(kinds), min_size=layers,
                                                              max_size=layers)))}


def _hy_v3(draw, spec: Spec, out: dict) -> None:
    """Hy3: each layer dense or sparse (``mlp_layer_types``, or its default: the first dense), at least two experts
    (the reader refuses one by name), 0 to 2 shared experts (none: transformers' MLP of ``intermediate_size``)."""
    layers = out["num_hidden_layers"]
    out |= {"mlp_layer_types": draw(st.one_of(st.none(), st.lists(st.sampled_from(["dense", "sparse"]),
                                                                   min_size=layers, max_size=layers))),
            "num_experts": max(out.get("num_experts") or 2, 2), "num_shared_experts": draw(st.integers(0, 2))}
    out["num_experts_per_tok"] = min(out.get("num_experts_per_tok") or 1, out["num_experts"])


def _diffllama(draw, spec: Spec, out: dict) -> None:
    """DiffLlama splits the values by key/value heads: an even number of them (transformers refuses others; the
    reader refuses them by name); the heads a multiple, ``head_dim`` written by the generic draw."""
    kv = 2 * draw(st.integers(1, 2))
    out |= {"num_key_value_heads": kv, "num_attention_heads": kv * draw(st.integers(1, 2))}


def _mimo_v2_flash(draw, spec: Spec, out: dict) -> None:
    """MiMo-V2-Flash's sliding layers have twice the key/value heads: the heads a multiple of twice them (the reader
    refuses others by name; transformers cannot run them)."""
    kv = draw(st.integers(1, 2))
    out |= {"num_key_value_heads": kv, "num_attention_heads": 2 * kv * draw(st.integers(1, 2))}


def _laguna(draw, spec: Spec, out: dict) -> None:
    """Laguna: the output gate per head or per channel (``gating``; a per-channel gate beside attention_bias is
    refused by name: its projection has no bias), heads per layer (each a multiple of the key/value heads, as
    repeat_kv needs), sliding or full layers."""
    layers, kv = out["num_hidden_layers"], out["num_key_value_heads"]
    out["gating"] = draw(st.sampled_from([True, False, "per-head", "per-element"]))
    if not (out["gating"] is True or out["gating"] == "per-head"):
        out["attention_bias"] = False
    out["num_attention_heads_per_layer"] = draw(st.one_of(st.none(), st.lists(
        st.integers(1, 3).map(lambda g: g * kv), min_size=layers, max_size=layers)))
    out["layer_types"] = draw(st.one_of(st.none(), st.lists(st.sampled_from(["full_attention", "sliding_attention"]),
                                                            min_size=layers, max_size=layers)))


def _longcat_flash(draw, spec: Spec, out: dict) -> None:
    """LongCat-Flash: its rotary table is sized by ``head_dim``, which must be the rotary part (the reader refuses
    others by name; transformers cannot run them); the queries always go through ``q_lora_rank`` (a number);
    k real experts at most (``moe_topk`` ≤ E), 0…3 zero experts, the expert size its own key."""
    e = out["n_routed_experts"]
    out |= {"head_dim": out["qk_rope_head_dim"], "q_lora_rank": draw(st.integers(1, 20)),
            "moe_topk": draw(st.integers(1, e)), "zero_expert_num": draw(st.integers(0, 3)),
            "expert_ffn_hidden_size": draw(st.integers(1, 40))}


def _gpt_neo(draw, spec: Spec, out: dict) -> None:
    """GPT-Neo's ``attention_types``: [[kinds, repeats], …] summing to the layer count."""
    layers = out["num_layers"]
    kinds = draw(st.lists(st.sampled_from(["global", "local"]), min_size=layers, max_size=layers))
    out["attention_types"] = [[[kind], 1] for kind in kinds]
    out["window_size"] = draw(st.integers(1, 16))


def _llama4_text(draw, spec: Spec, out: dict) -> None:
    """Llama 4's MoE layers: an explicit list, or every ``interleave_moe_layer_step``-th layer."""
    layers = out["num_hidden_layers"]
    if draw(st.booleans()):
        out["moe_layers"] = draw(st.lists(st.integers(0, layers - 1), unique=True, max_size=layers))
    else:
        out["moe_layers"] = None
        out["interleave_moe_layer_step"] = draw(st.integers(1, 3))


def _ernie4_5_moe(draw, spec: Spec, out: dict) -> None:
    """ERNIE 4.5 MoE's sparse layers: start, end (−1: the last) and interval; no shared experts with
    ``use_bias`` (their biases are not modelled: the reader refuses that by name)."""
    layers = out["num_hidden_layers"]
    start = draw(st.integers(0, layers - 1))
    out |= {"moe_layer_start_index": start,
            "moe_layer_end_index": draw(st.one_of(st.just(-1), st.integers(start, layers - 1))),
            "moe_layer_interval": draw(st.integers(1, 2))}
    if out.get("use_bias"):  # biases on shared experts are not modelled: the reader refuses use_bias by name
        out["moe_num_shared_experts"] = 0


def _mamba2(draw, spec: Spec, out: dict) -> None:
    """Mamba-2's inner width: ``expand``·d = ``num_heads``·``head_dim`` (the config class checks it), ``n_groups``
    dividing the heads, a ``chunk_size`` that may or may not divide T. Not drawn: ``chunk_size`` 1 or
    ``state_size`` 1, where a contraction of length 1 in transformers' chunked scan is an element-wise product
    FlopCounterMode does not count as a matmul, and the engine counts more (chunk 1: 1,024·T FLOP at H = 2,
    P = 16; N = 1: 616 at H = 1, P = 8, T = 6). Found by this test; left to the Mamba-2 reader's owner."""
    heads, size, expand = draw(st.integers(1, 4)), draw(st.integers(1, 8)) * 2, draw(st.integers(1, 2))
    out |= {"num_heads": heads, "head_dim": size, "expand": expand, "hidden_size": heads * size // expand,
            "n_groups": draw(st.sampled_from([g for g in range(1, heads + 1) if heads % g == 0])),
            "chunk_size": draw(st.integers(2, 16)), "state_size": draw(st.integers(2, 16))}


def _mamba2_hybrid(draw, spec: Spec, out: dict) -> None:
    """Bamba's and Granite 4.0 H's Mamba-2 layers (``mamba_*`` keys): ``mamba_expand``·d =
    ``mamba_n_heads``·``mamba_d_head`` (the config class checks it), ``mamba_n_groups`` dividing the heads; as for
    Mamba-2, ``mamba_chunk_size`` and ``mamba_d_state`` from 2 (1 is refused by name)."""
    d, expand = out["hidden_size"], draw(st.integers(1, 2))
    heads = draw(st.sampled_from([h for h in range(1, 9) if expand * d % h == 0]))
    out |= {"mamba_expand": expand, "mamba_n_heads": heads, "mamba_d_head": expand * d // heads,
            "mamba_n_groups": draw(st.sampled_from([g for g in range(1, heads + 1) if heads % g == 0])),
            "mamba_chunk_size": draw(st.integers(2, 16)), "mamba_d_state": draw(st.integers(2, 16)),
            "mamba_d_conv": draw(st.integers(2, 4))}


def _zamba2(draw, spec: Spec, out: dict) -> None:
    """Zamba2: ``layers_block_type`` of ``num_hidden_layers`` entries (the config class checks the length), each
    a Mamba-2 layer or a shared-block ("hybrid") one; ``num_mem_blocks`` 1–3 used in turn; adapters of rank 1–8,
    on q, k, v too only where transformers can add them (H_kv = H, H dividing 2d); the Mamba-2 sizes as for Bamba
    (``n_mamba_heads`` dividing ``mamba_expand``·d, ``mamba_ngroups`` dividing the heads, state and chunk from 2).
    Tied or untied (then transformers ties no shared block: a copy per use, with every use's adapters)."""
    d, layers = out["hidden_size"], draw(st.integers(1, 4))
    kinds = draw(st.lists(st.sampled_from(["linear_attention", "mamba", "hybrid"]), min_size=layers,
                          max_size=layers))
    expand = draw(st.integers(1, 2))
    heads = draw(st.sampled_from([h for h in range(1, 9) if expand * d % h == 0]))
    blocks = draw(st.integers(1, 3))
    adapters = out["num_key_value_heads"] == out["num_attention_heads"] and 2 * d % out["num_attention_heads"] == 0
    out |= {"num_hidden_layers": layers, "layers_block_type": kinds, "num_mem_blocks": blocks, "adapter_rank": draw(st.integers(1, 8)),
            "use_shared_attention_adapter": adapters and draw(st.booleans()), "mamba_expand": expand,
            "n_mamba_heads": heads, "mamba_ngroups": draw(st.sampled_from([g for g in range(1, heads + 1)
                                                                          if heads % g == 0])),
            "chunk_size": draw(st.integers(2, 16)), "mamba_d_state": draw(st.integers(2, 16)),
            "mamba_d_conv": draw(st.integers(2, 4))}


def _zamba(draw, spec: Spec, out: dict) -> None:
    """Zamba v1: ``layers_block_type`` of ``num_hidden_layers`` entries, or none (then ``attn_layer_period`` and
    ``attn_layer_offset`` place the shared-block layers); ``n_mamba_heads`` dividing ``mamba_expand``·d; a head size
    of its own or 2d/H; Mamba's state, kernel and Δ rank. One shared-block layer with tied embeddings is not drawn:
    transformers cannot build it (the reader refuses it by name)."""
    d, layers = out["hidden_size"], draw(st.integers(3, 6))
    expand = draw(st.integers(1, 2))
    if draw(st.booleans()):
        kinds = draw(st.lists(st.sampled_from(["mamba", "hybrid"]), min_size=layers, max_size=layers))
        out["layers_block_type"] = kinds
    else:
        period, offset = draw(st.integers(1, 3)), draw(st.integers(0, 2))
        out |= {"attn_layer_period": period, "attn_layer_offset": offset}
        kinds = ["mamba", "mamba", "hybrid"] + ["hybrid" if i % period == offset else "mamba" for i in range(layers - 3)]
    if kinds.count("hybrid") == 1 and out.get("tie_word_embeddings") is not False:
        out["tie_word_embeddings"] = False
    out |= {"num_hidden_layers": layers, "mamba_expand": expand,
            "n_mamba_heads": draw(st.sampled_from([h for h in range(1, 9) if expand * d % h == 0])),
            "mamba_d_state": draw(st.integers(2, 16)), "mamba_d_conv": draw(st.integers(2, 4)),
            "mamba_dt_rank": draw(st.one_of(st.just("auto"), st.integers(1, 8))),
            "mamba_proj_bias": draw(st.booleans()), "mamba_conv_bias": draw(st.booleans())}
    if draw(st.booleans()):
        out["attention_head_dim"] = draw(st.sampled_from(spec.head_sizes()))


def _jamba(draw, spec: Spec, out: dict) -> None:
    """Jamba: attention where i mod ``attn_layer_period`` = ``attn_layer_offset`` (offset below the period, as
    JambaConfig requires), experts where i mod ``expert_layer_period`` = ``expert_layer_offset`` (E = 1: all dense;
    k up to E); Mamba's expansion, state, kernel and Δ rank ("auto" or a number), biases; a head size of its own
    or d/H."""
    a_period, e_period, experts = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 5))
    out |= {"num_hidden_layers": draw(st.integers(1, 6)), "attn_layer_period": a_period,
            "attn_layer_offset": draw(st.integers(0, a_period - 1)), "expert_layer_period": e_period,
            "expert_layer_offset": draw(st.integers(0, e_period - 1)), "num_experts": experts,
            "num_experts_per_tok": draw(st.integers(1, experts)), "mamba_expand": draw(st.integers(1, 3)),
            "mamba_d_state": draw(st.integers(1, 16)), "mamba_d_conv": draw(st.integers(1, 4)),
            "mamba_dt_rank": draw(st.one_of(st.just("auto"), st.integers(1, 8))),
            "mamba_proj_bias": draw(st.booleans()), "mamba_conv_bias": draw(st.booleans())}
    if draw(st.booleans()):
        out["head_dim"] = draw(st.sampled_from(spec.head_sizes()))


def _falcon_h1(draw, spec: Spec, out: dict) -> None:
    """Falcon-H1: Mamba-2's inner width ``mamba_d_ssm`` (or null: ``mamba_expand``·d) in ``mamba_n_heads`` heads of
    I/H ("auto"; the config class checks H divides I), groups dividing the heads, state and chunk from 2 (1 is
    refused by name, as for Mamba-2), kernel, the gated norm or not, in and out projection biases apart, the
    convolution's bias; a head size of its own or d/H. The multipliers change no count and keep their defaults."""
    d, layers = out["hidden_size"], draw(st.integers(1, 4))
    expand = draw(st.integers(1, 2))
    inner = draw(st.one_of(st.none(), st.integers(1, 12).map(lambda m: 4 * m)))
    width = expand * d if inner is None else inner
    heads = draw(st.sampled_from([h for h in range(1, 13) if width % h == 0]))
    out |= {"num_hidden_layers": layers, "mamba_d_ssm": inner, "mamba_expand": expand, "mamba_n_heads": heads,
            "mamba_d_head": "auto",
            "mamba_n_groups": draw(st.sampled_from([g for g in range(1, heads + 1) if heads % g == 0])),
            "mamba_d_state": draw(st.integers(2, 16)), "mamba_chunk_size": draw(st.integers(2, 16)),
            "mamba_d_conv": draw(st.integers(2, 4)), "mamba_rms_norm": draw(st.booleans()),
            "mamba_proj_bias": draw(st.booleans()), "projectors_bias": draw(st.booleans()),
            "mamba_conv_bias": draw(st.booleans())}
    if draw(st.booleans()):
        out["head_dim"] = draw(st.sampled_from(spec.head_sizes()))

def _qwen3_next(draw, spec: Spec, out: dict) -> None:
    """Qwen3-Next's Gated DeltaNet layers: ``linear_num_key_heads`` G dividing ``linear_num_value_heads`` (transformers
    splits the value heads among the key heads), key and value head sizes 1–12, a convolution of 1–4; the layer
    kinds by ``layer_types`` (generic draw) or, absent, by ``full_attention_interval`` 1–3; no experts at all now
    and then (every layer a gated MLP)."""
    _gated_deltanet(draw, spec, out)
    if draw(st.integers(0, 4)) == 0:
        out["num_experts"] = 0


def _gated_deltanet(draw, spec: Spec, out: dict) -> None:
    """Qwen3-Next's and Qwen3.5's Gated DeltaNet sizes and layer kinds (``_qwen3_next``); Qwen3.5 MoE: experts in
    every layer (``num_experts`` ≥ 2, as drawn)."""
    groups = draw(st.integers(1, 3))
    out |= {"linear_num_key_heads": groups, "linear_num_value_heads": groups * draw(st.integers(1, 3)),
            "linear_key_head_dim": draw(st.integers(1, 12)), "linear_value_head_dim": draw(st.integers(1, 12)),
            "linear_conv_kernel_dim": draw(st.integers(1, 4))}
    if out.get("layer_types") is None:
        out["full_attention_interval"] = draw(st.integers(1, 3))

def _kimi_linear(draw, spec: Spec, out: dict) -> None:
    """Kimi Linear: group-limited routing as DeepSeek's (E in ``num_expert_group`` groups of at least 2, k within
    ``topk_group`` groups; the keys under KimiLinearConfig's stored names), 0–2 shared experts, Kimi Delta
    Attention of 1–3 heads of 1–12 with a convolution of 1–4; the first 0–2 layers dense where
    ``mlp_layer_types`` is not drawn."""
    e = out.get("num_experts") or 2
    groups = draw(st.sampled_from([g for g in (1, 2, 3) if e % g == 0 and e // g >= 2] or [1]))
    top_groups = draw(st.integers(1, groups))
    out |= {"num_experts": max(e, 2), "num_expert_group": groups, "topk_group": top_groups,
            "num_experts_per_token": draw(st.integers(1, top_groups * (max(e, 2) // groups))),
            "num_shared_experts": draw(st.integers(0, 2)), "linear_num_heads": draw(st.integers(1, 3)),
            "linear_head_dim": draw(st.integers(1, 12)), "linear_conv_kernel_dim": draw(st.integers(1, 4))}
    if out.get("mlp_layer_types") is None:
        out["first_k_dense_replace"] = draw(st.integers(0, 2))


def _olmo_hybrid(draw, spec: Spec, out: dict) -> None:
    """OLMo Hybrid: Gated DeltaNet key heads G dividing the value heads, head sizes 1–12, a convolution of 1–4; both
    layer kinds present (OlmoHybridConfig refuses one kind alone)."""
    groups = draw(st.integers(1, 3))
    out |= {"linear_num_key_heads": groups, "linear_num_value_heads": groups * draw(st.integers(1, 3)),
            "linear_key_head_dim": draw(st.integers(1, 12)), "linear_value_head_dim": draw(st.integers(1, 12)),
            "linear_conv_kernel_dim": draw(st.integers(1, 4))}
    layers = out.get("num_hidden_layers") or 2
    if layers < 2:
        out["num_hidden_layers"] = layers = 2
    kinds = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers, max_size=layers))
    if len(set(kinds)) < 2:
        kinds[0], kinds[-1] = "linear_attention", "full_attention"
    out["layer_types"] = kinds


def _minimax(draw, spec: Spec, out: dict) -> None:
    """MiniMax's lightning attention in blocks shorter than the drawn sequences (the default 256 is one block at
    these lengths): ``block_size`` 1 to 6."""
    out["block_size"] = draw(st.integers(1, 6))


def _minimax_m3_vl_text(draw, spec: Spec, out: dict) -> None:
    """MiniMax-M3: each layer full or sparse attention (the indexer: 1 to 4 heads dividing H, an even
    ``index_head_dim`` — its rotary slice splits it in halves — and key blocks of 1 to 6), dense or sparse MLPs,
    the dense and shared sizes (shared 0: none)."""
    layers, heads = out["num_hidden_layers"], out["num_attention_heads"]
    kinds = ["full_attention", "minimax_m3_sparse"]
    out |= {"layer_types": draw(st.lists(st.sampled_from(kinds), min_size=layers, max_size=layers)),
            "mlp_layer_types": draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers,
                                             max_size=layers)),
            "index_n_heads": draw(st.sampled_from([h for h in range(1, 5) if heads % h == 0])),
            "index_head_dim": 2 * draw(st.integers(1, 8)), "index_block_size": draw(st.integers(1, 6)),
            "index_topk_blocks": draw(st.integers(1, 4)), "index_local_blocks": draw(st.integers(0, 2)),
            "dense_intermediate_size": draw(st.integers(1, 48)),
            "shared_intermediate_size": draw(st.integers(0, 24))}


def _cohere_compass_text(draw, spec: Spec, out: dict) -> None:
    """Cohere Compass's rotary embedding needs an entry per layer type: each drawn layer type gets rotary
    parameters or null (no rotary positions); the head size even (its rotary dimension must be)."""
    layers = out["num_hidden_layers"]
    kinds = out.get("layer_types") or draw(st.one_of(st.none(), st.lists(
        st.sampled_from(["sliding_attention", "full_attention"]), min_size=layers, max_size=layers)))
    out["layer_types"] = kinds
    rope = st.one_of(st.none(), st.just({"rope_type": "default", "rope_theta": 10000.0}))
    out["rope_parameters"] = {k: draw(rope) for k in dict.fromkeys(kinds or ["full_attention"])}
    heads = out["num_attention_heads"]
    out["head_dim"] = draw(st.one_of(st.none(), st.integers(1, 8).map(lambda n: 2 * n)))
    if out["head_dim"] is None:
        del out["head_dim"]
        out["hidden_size"] = heads * 2 * draw(st.integers(1, 8))


def _helium(draw, spec: Spec, out: dict) -> None:
    """Helium's output projection is d→d whatever the head size: ``head_dim`` = d/H (transformers fails on
    another)."""
    out["head_dim"] = out["hidden_size"] // out["num_attention_heads"]


def _internlm3(draw, spec: Spec, out: dict) -> None:
    """InternLM3's config class refuses ``mlp_bias`` ≠ ``attention_bias`` and d not divisible by H."""
    out["mlp_bias"] = out["attention_bias"]
    out["hidden_size"] = out["num_attention_heads"] * out["head_dim"] * draw(st.integers(1, 2))


def _xglm(draw, spec: Spec, out: dict) -> None:
    """XGLM's heads key (``attention_heads``) is none of the generic names: H drawn among the divisors of d
    (XGLMAttention refuses another)."""
    width = out["d_model"]
    out["attention_heads"] = draw(st.sampled_from([h for h in range(1, 9) if width % h == 0]))


def _dbrx(draw, spec: Spec, out: dict) -> None:
    """DBRX keeps its sizes in nested objects: ``attn_config.kv_n_heads`` (dividing H) and ``ffn_config``'s
    expert size, E and k."""
    heads = out["n_heads"]
    e = draw(st.integers(2, 6))
    out["attn_config"] = coverage.small_overrides("dbrx")["attn_config"] | {
        "kv_n_heads": draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0]))}
    out["ffn_config"] = {k: v for k, v in spec.defaults["ffn_config"].items() if k.startswith(("ffn_", "moe_"))} | {
        "hidden_size": out["d_model"], "ffn_hidden_size": draw(st.integers(1, 40)), "moe_num_experts": e,
        "moe_top_k": draw(st.integers(1, e))}


def _switch_transformers(draw, spec: Spec, out: dict) -> None:
    """SwitchTransformersEncoderModel: tied (the reader refuses the encoder's own untied table by name, as it
    does not model it for the encoder alone); the full model draws tied or untied."""
    if spec.cls.endswith("EncoderModel"):
        out["tie_word_embeddings"] = True


def _deberta(draw, spec: Spec, out: dict) -> None:
    """DeBERTa v1/v2: tables of width E (d or not), token types or none, relative attention or not, its terms (a list or a "|" string), the table's span (own or the
    positions'; v2: buckets), shared keys, a normed table, absolute positions or not; v2's input convolution with an
    odd kernel (an even one fails in transformers; refused by name) and groups dividing d; the head over the token
    table (``legacy`` false) only with tables of width d (otherwise transformers fails; refused by name)."""
    width = out["hidden_size"]
    out["embedding_size"] = draw(st.one_of(st.just(width), st.integers(1, 24)))
    out["type_vocab_size"] = draw(st.integers(0, 3))
    out["relative_attention"] = draw(st.booleans())
    terms = draw(st.lists(st.sampled_from(["c2p", "p2c"]), unique=True, max_size=2))
    out["pos_att_type"] = "|".join(terms) if draw(st.booleans()) else terms
    out["max_relative_positions"] = draw(st.sampled_from([-1, 1, 3, 8, 20]))
    out["position_biased_input"] = draw(st.booleans())
    if spec.model_type == "deberta-v2":
        out["position_buckets"] = draw(st.sampled_from([-1, 2, 5]))
        out["share_att_key"] = draw(st.booleans())
        out["norm_rel_ebd"] = draw(st.sampled_from(["none", "layer_norm"]))
        out["conv_kernel_size"] = draw(st.sampled_from([0, 1, 3, 5]))
        out["conv_groups"] = draw(st.sampled_from([g for g in (1, 2, 4) if width % g == 0]))
        out["conv_act"] = draw(st.sampled_from(["tanh", "gelu", "relu"]))
    out["legacy"] = draw(st.booleans()) if out.get("embedding_size", width) == width else True


def _roformer(draw, spec: Spec, out: dict) -> None:
    """RoFormer: the values rotated or not (``rotary_value``; element-wise, no count of its own)."""
    out["rotary_value"] = draw(st.booleans())


def _esm(draw, spec: Spec, out: dict) -> None:
    """ESM: learned or rotary positions, a LayerNorm on the embeddings or not, token dropout (element-wise), causal
    or not (the same count), tied or untied decoder (ESM's head has one bias either way: counted, not pinned)."""
    out |= {"position_embedding_type": draw(st.sampled_from(["absolute", "rotary"])),
            "emb_layer_norm_before": draw(st.booleans()), "token_dropout": draw(st.booleans()),
            "mask_token_id": 3, "is_decoder": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans())}


def _rembert(draw, spec: Spec, out: dict) -> None:
    """RemBERT: input tables of their own width E and an output embedding of its own width O (each narrower, as wide
    as d or wider), causal or not (the same count)."""
    width = out["hidden_size"]
    out |= {"input_embedding_size": draw(st.sampled_from([8, width, width + 8])),
            "output_embedding_size": draw(st.sampled_from([12, width, width + 4])), "is_decoder": draw(st.booleans())}


def _token_types(lowest: int):
    """GTE (0: no table) and JinaEmbeddingsV3 (at least 1 row: an empty table fails in transformers): the token-type
    table's rows."""
    def draw_types(draw, spec: Spec, out: dict) -> None:
        """The token-type table's rows: from ``lowest`` to 3."""
        out["type_vocab_size"] = draw(st.integers(lowest, 3))
    return draw_types


def _apertus1p5_text(draw, spec: Spec, out: dict) -> None:
    """Apertus 1.5: an LM head pruned to O rows (``output_vocab_size``: 1, fewer than V, V, or null: V)."""
    vocab = out["vocab_size"]
    out["output_vocab_size"] = draw(st.sampled_from([None, 1, max(1, vocab // 2), vocab]))


def _mobilebert(draw, spec: Spec, out: dict) -> None:
    """MobileBERT: a bottleneck (a multiple of the heads) or none, shared bottleneck and bottleneck attention on or off
    (both off only with a bottleneck as wide as d: transformers' queries read the d-wide input through b-wide
    projections), 1–4 feed-forwards, trigram or not, a token table at most d wide (the head's d − E rows), NoNorm or
    LayerNorm, the pooler's activation on or off, 1–3 token types."""
    width, heads = out["hidden_size"], out["num_attention_heads"]
    shared, attention = draw(st.booleans()), draw(st.booleans())
    bottleneck = heads * draw(st.integers(1, 6)) if shared or attention else width
    out |= {"use_bottleneck": draw(st.booleans()), "intra_bottleneck_size": bottleneck,
            "key_query_shared_bottleneck": shared, "use_bottleneck_attention": attention,
            "num_feedforward_networks": draw(st.integers(1, 4)), "trigram_input": draw(st.booleans()),
            "embedding_size": draw(st.integers(1, width)),
            "normalization_type": draw(st.sampled_from(["no_norm", "layer_norm"])),
            "classifier_activation": draw(st.booleans()), "type_vocab_size": draw(st.integers(1, 3))}
    if not out["use_bottleneck"] and width % heads:
        out["hidden_size"] = heads * max(1, width // heads)
        out["embedding_size"] = min(out["embedding_size"], out["hidden_size"])


def _gemma4_text(draw, spec: Spec, out: dict) -> None:
    """Gemma 4: full layers of their own head size (``global_head_dim``) and, with ``attention_k_eq_v``, values from
    the keys and ``num_global_key_value_heads`` (dividing H); the last ``num_kv_shared_layers`` layers reusing keys
    and values (fewer than the layers; the unshared layers of every type the model has), with a double-wide MLP
    or not; per-layer embeddings (P = 0: none) of their own vocabulary; experts beside the dense MLP or not."""
    layers = draw(st.integers(1, 5))
    heads = out["num_attention_heads"]
    types = draw(st.one_of(st.none(), st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                               min_size=layers, max_size=layers)))
    kinds = (types or ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)])[:-1] + \
        ["full_attention"]
    unshared = next(n for n in range(1, layers + 1) if set(kinds[:n]) == set(kinds))
    out |= {"num_hidden_layers": layers, "layer_types": types, "global_head_dim": draw(st.sampled_from(spec.head_sizes())),
            "attention_k_eq_v": draw(st.booleans()),
            "num_global_key_value_heads": draw(st.one_of(st.none(), st.sampled_from(
                [g for g in range(1, heads + 1) if heads % g == 0]))),
            "num_kv_shared_layers": draw(st.integers(0, layers - unshared)), "use_double_wide_mlp": draw(st.booleans()),
            "hidden_size_per_layer_input": draw(st.sampled_from([0, 1, 4, 8])),
            "vocab_size_per_layer_input": draw(st.integers(8, 64)), "enable_moe_block": draw(st.booleans())}
    if out["enable_moe_block"]:
        experts = draw(st.integers(2, 5))
        out |= {"num_experts": experts, "top_k_experts": draw(st.integers(1, experts)),
                "moe_intermediate_size": draw(st.integers(1, 24))}


def _gemma4_unified_text(draw, spec: Spec, out: dict) -> None:
    """Gemma 4 unified: Gemma 4's draws without per-layer embeddings or experts (its config class has neither)."""
    _gemma4_text(draw, spec, out)
    for key in ("hidden_size_per_layer_input", "vocab_size_per_layer_input", "enable_moe_block", "num_experts",
                "top_k_experts", "moe_intermediate_size"):
        out.pop(key, None)


def _gemma3n_text(draw, spec: Spec, out: dict) -> None:
    """Gemma 3n: d a multiple of H (its config class refuses others); one feed-forward size or one per layer; the
    last ``num_kv_shared_layers`` layers reusing keys and values (the unshared layers of every type the model has);
    AltUp streams (1–4, the active one among them), LAuReL's rank, per-layer embeddings of their own vocabulary;
    activation sparsity on some layers (no matmul changes)."""
    layers = draw(st.integers(1, 5))
    heads = out["num_attention_heads"]
    out["hidden_size"] = heads * draw(st.sampled_from(spec.head_sizes()))
    types = draw(st.one_of(st.none(), st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                               min_size=layers, max_size=layers)))
    kinds = types or ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(layers)]
    unshared = next(n for n in range(1, layers + 1) if set(kinds[:n]) == set(kinds))
    streams = draw(st.integers(1, 4))
    out |= {"num_hidden_layers": layers, "layer_types": types,
            "intermediate_size": draw(st.one_of(st.integers(1, 40), st.lists(st.integers(1, 40), min_size=layers,
                                                                             max_size=layers))),
            "num_kv_shared_layers": draw(st.integers(0, layers - unshared)), "altup_num_inputs": streams,
            "altup_active_idx": draw(st.integers(0, streams - 1)), "laurel_rank": draw(st.integers(1, 8)),
            "hidden_size_per_layer_input": draw(st.integers(1, 8)),
            "vocab_size_per_layer_input": draw(st.integers(8, 64)),
            "activation_sparsity_pattern": draw(st.lists(st.sampled_from([0.0, 0.95]), min_size=layers,
                                                         max_size=layers))}


def _t5gemma(draw, spec: Spec, out: dict) -> None:
    """T5Gemma keeps each stack's sizes in a sub-config (``encoder``, ``decoder``): each drawn as Gemma 2's (heads
    dividing d, as T5GemmaModuleConfig requires; H_kv dividing H; head size; layer kinds; window; biases), one width
    and vocabulary for both (stacks that differ are refused by name); T5GemmaEncoderModel needs is_encoder_decoder
    false (transformers refuses true)."""
    width, vocab = 8 * draw(st.integers(1, 6)), draw(st.integers(8, 64))
    for stack in ("encoder", "decoder"):
        heads = draw(st.sampled_from([h for h in range(1, 9) if width % h == 0]))
        layers = draw(st.integers(1, 3))
        out[stack] = {"hidden_size": width, "vocab_size": vocab, "num_hidden_layers": layers,
                      "num_attention_heads": heads,
                      "num_key_value_heads": draw(st.sampled_from([k for k in range(1, heads + 1) if heads % k == 0])),
                      "head_dim": draw(st.sampled_from(spec.head_sizes())), "intermediate_size": draw(st.integers(1, 40)),
                      "attention_bias": draw(st.booleans()), "sliding_window": draw(st.integers(1, 8)),
                      "layer_types": draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                                   min_size=layers, max_size=layers)),
                      "hidden_activation": draw(st.sampled_from(["gelu_pytorch_tanh", "relu", "silu"]))}
    if spec.cls.endswith("EncoderModel"):
        out["is_encoder_decoder"] = False


def _lfm2(draw, spec: Spec, out: dict) -> None:
    """LFM2's layer kinds ("conv" or "full_attention" per layer; Lfm2Config: or null, attention then on the layers
    ``full_attn_idxs`` lists, all of them when it is null too), the convolution's width 1–4 and biases; Lfm2MLP's
    width adjustment (on or off, a multiplier, a rounding multiple 1–32, the legacy ``block_ff_dim`` now and then;
    F ≥ 3 so that the adjusted width is never 0); LFM2-MoE: 0 to all layers dense, with or without the expert bias."""
    layers = out["num_hidden_layers"]
    kinds = st.lists(st.sampled_from(["conv", "full_attention"]), min_size=layers, max_size=layers)
    out |= {"conv_L_cache": draw(st.integers(1, 4)), "conv_bias": draw(st.booleans()),
            "intermediate_size": draw(st.integers(3, 40))}
    if spec.model_type == "lfm2":
        out["layer_types"] = draw(st.one_of(st.none(), kinds))
        if out["layer_types"] is None:
            out["full_attn_idxs"] = draw(st.one_of(st.none(), st.lists(st.integers(0, layers), unique=True)))
        out |= {"block_auto_adjust_ff_dim": draw(st.booleans()),
                "block_ffn_dim_multiplier": draw(st.sampled_from([1.0, 0.75, 1.3, 1.5, 2])),
                "block_multiple_of": draw(st.integers(1, 32))}
        if draw(st.booleans()):
            out["block_ff_dim"] = draw(st.integers(3, 40))
    else:
        out |= {"layer_types": draw(kinds), "num_dense_layers": draw(st.integers(0, layers)),
                "use_expert_bias": draw(st.booleans())}


def _lfm3(draw, spec: Spec, out: dict) -> None:
    """LFM3 (after ``generic``: the layer kinds, or null for Lfm3Config's pattern, and the window): the convolution's
    width 1–4 and biases, the gate per head and the sandwich norms on or off."""
    out |= {"conv_L_cache": draw(st.integers(1, 4)), "conv_bias": draw(st.booleans()),
            "use_attention_gate": draw(st.booleans()), "use_sandwich_norm": draw(st.booleans())}


def _xlm(draw, spec: Spec, out: dict) -> None:
    """XLM, Flaubert: languages (a table of n_langs rows where there are 2 or more and use_lang_emb), causal or not,
    GELU or ReLU; Flaubert's pre_norm stays false (transformers cannot run it; refused by name); d a multiple of the
    heads (XLMModel asserts it)."""
    out |= {"emb_dim": out["n_heads"] * draw(st.sampled_from(spec.head_sizes())),
            "n_langs": draw(st.integers(1, 4)), "use_lang_emb": draw(st.booleans()), "causal": draw(st.booleans()),
            "gelu_activation": draw(st.booleans())}


def _fsmt(draw, spec: Spec, out: dict) -> None:
    """FSMT: one small vocabulary for source and target (the reader refuses two that differ, by name)."""
    vocab = draw(st.integers(8, 64))
    out |= {"src_vocab_size": vocab, "tgt_vocab_size": vocab}


def _mrope(draw, spec: Spec, out: dict) -> None:
    """The text towers of vision-language models (Qwen2/2.5/3-VL, Qwen-Omni thinkers, GLM-4V, GLM-4.5V, GLM-OCR):
    multimodal rotary sections (t, h, w) that split the drawn head's rotary frequencies exactly (transformers' default
    sections fit only their published head sizes); positions change no product."""
    heads = out.get("num_attention_heads") or spec.defaults["num_attention_heads"]
    own = spec.model_type != "glm4v_text" and out.get("head_dim")  # GLM-4V's text attention ignores head_dim
    size = own or out["hidden_size"] // heads
    half = int(size * spec.rotary_fraction()) // 2
    third = half // 3
    rope = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [half - 2 * third, third, third]}
    if spec.rotary_fraction() != 1.0:
        rope["partial_rotary_factor"] = spec.rotary_fraction()
    out["rope_parameters"] = rope


HOOKS: dict[str, Callable] = {
    "fsmt": _fsmt,
    "xlm": _xlm,
    "flaubert": _xlm,
    "t5gemma": _t5gemma,
    "gemma3n_text": _gemma3n_text,
    "gemma4_text": _gemma4_text,
    "gemma4_unified_text": _gemma4_unified_text,
    "deberta": _deberta,
    "deberta-v2": _deberta,
    "roformer": _roformer,
    "esm": _esm,
    "rembert": _rembert,
    "mobilebert": _mobilebert,
    "gte": _token_types(0),
    "jina_embeddings_v3": _token_types(1),
    "apertus1p5_text": _apertus1p5_text,
    "switch_transformers": _switch_transformers,
    "dbrx": _dbrx,
    "xglm": _xglm,
    "internlm3": _internlm3,
    "helium": _helium,
    "sarvam_mla": _deepseek,
    "deepseek_v32": _sparse_attention,
    "glm_moe_dsa": _sparse_attention,
    "deepseek_v4": _deepseek_v4,
    "hy_v4": _hy_v4,
    "dots3_note_text": _dots3_note_text,
    "hy_v3": _hy_v3,
    "diffllama": _diffllama,
    "longcat_flash": _longcat_flash,
    "laguna": _laguna,
    "mimo_v2_flash": _mimo_v2_flash,
    "mamba2": _mamba2,
    "bamba": _mamba2_hybrid,
    "granitemoehybrid": _mamba2_hybrid,
    "zamba2": _zamba2,
    "zamba": _zamba,
    "jamba": _jamba,
    "falcon_h1": _falcon_h1,
    "minimax": _minimax,
    "cohere_compass_text": _cohere_compass_text,
    "minimax_m3_vl_text": _minimax_m3_vl_text,
    "qwen3_next": _qwen3_next,
    "qwen3_5_text": _gated_deltanet,
    "qwen3_5_moe_text": _gated_deltanet,
    "kimi_linear": _kimi_linear,
    "olmo_hybrid": _olmo_hybrid,
    "lfm2": _lfm2,
    "lfm2_moe": _lfm2,
    "lfm3": _lfm3,
    "falcon": _falcon,
    "deepseek_v2": _deepseek,
    "deepseek_v3": _deepseek,
    "gpt_neo": _gpt_neo,
    "llama4_text": _llama4_text,
    "ernie4_5_moe": _ernie4_5_moe,
    **{t: _mrope for t in ("qwen2_vl_text", "qwen2_5_vl_text", "qwen3_vl_text", "qwen3_vl_moe_text", "qwen2_5_omni_text",
                           "qwen3_omni_moe_text", "glm4v_text", "glm4v_moe_text", "glm_ocr_text")},
}
"""``model_type`` → a draw of the keys whose generic values transformers cannot build (after ``generic``)."""

UNTIED_MLM = ("an untied masked-LM decoder keeps a second, unused output bias in transformers; the reader "
              "refuses tie_word_embeddings: false by name")
UNTIED_MLM_COUNTED = frozenset({"esm", "rembert", "gte"})
"""Masked-LM families whose head keeps one bias tied or untied (ESM's, GTE's), or is never tied (RemBERT's: the key is
inert): tie_word_embeddings is drawn."""
PINNED: dict[str, dict[str, tuple[object, str]]] = {
    "dbrx": {"tie_word_embeddings": (False, "transformers' DbrxConfig refuses tied embeddings")},
    "bert-generation": {"tie_word_embeddings": (True, "an untied decoder keeps a second, unused output bias in "
                                                      "transformers; the reader refuses tie_word_embeddings: false "
                                                      "by name")},
    "bigbird_pegasus": {"attention_type": ("original_full", "block-sparse attention (the class's default) is not "
                                                            "modelled; the reader refuses it by name")},
    "phimoe": {"num_experts_per_tok": (2, "transformers' Phi-3.5-MoE router (sparsemixer) picks 2 experts per "
                                          "token whatever the key says; the reader refuses other values by name")},
    "afmoe": {"attention_bias": (False, "AFMoE's output gate projection has no bias while q/k/v/o would take "
                                        "attention_bias: the reader refuses true by name")},
    "deepseek_v4": {"mlp_bias": (False, "a biased shared expert beside DeepSeek-V4's unbiased experts is not "
                                        "modelled; the reader refuses mlp_bias: true by name")},
    "hy_v3": {"mlp_bias": (False, "with sparse layers mlp_bias gives the shared expert biases beside unbiased experts, "
                                  "not modelled; the reader refuses it by name (tests/llm/test_families_hf covers "
                                  "MLP biases on dense layers)")},
    "deepseek_v2": {"mlp_bias": (False, "feed-forward biases of DeepSeek-V2 are not modelled; the reader "
                                        "refuses mlp_bias: true by name")},
    "nemotron_h": {"mlp_bias": (False, "with MoE layers mlp_bias gives the shared MLP biases, not modelled; the "
                                       "reader refuses it by name (tests/llm/test_families_hf covers MLP-only biases)")},
}
"""``model_type`` → {key → (value, why it is not randomized)}: the documented exclusions; and every family with
a masked-LM class keeps ``tie_word_embeddings`` true (``UNTIED_MLM``, ``pinned``)."""


def pinned(model_type: str) -> dict[str, tuple[object, str]]:
    """The keys this family does not randomize, with the reason."""
    from engine.llm.families import FAMILIES

    mlm = "mlm" in FAMILIES[model_type].classes.values() and model_type not in UNTIED_MLM_COUNTED
    return ({"tie_word_embeddings": (True, UNTIED_MLM)} if mlm else {}) | PINNED.get(model_type, {})


@st.composite
def config_kwargs(draw, model_type: str, cls: str = "") -> dict:
    """Keyword arguments for the family's transformers config class (``cls``: the class the config will name):
    the sweep's small-config overrides and the drawn sizes."""
    spec = Spec(model_type, cls)
    out = generic(draw, spec)
    if model_type in HOOKS:
        HOOKS[model_type](draw, spec, out)
    for key, (value, _) in pinned(model_type).items():
        out[key] = value
    return coverage.small_overrides(model_type) | out
