"""The transformer kinds on their own: rows per sub-layer, the ``full`` convention's extras written out
from the table in ``engine.method1.conventions``, validation, and hostile input."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.method1.architecture import Architecture, evaluate
from engine.errors import InputError
from engine.scenario import load_scenario_text, parse_scenario
from tests.method1 import evaluated, flat_block


def rows(d, length, layer: dict, convention="matmul"):
    return evaluated([d], [layer], length, convention)


def test_rows_per_sub_layer_in_data_flow_order():
    result = rows(16, 4, {"type": "transformer_block", "mixer": {"heads": 2}, "feed_forward": {"gated": True}})
    assert [r.part for r in result.rows] == [
        "attention norm", "attention q projection", "attention k/v projections", "attention scores QKᵀ",
        "attention values AV", "attention output projection", "feed-forward norm", "feed-forward gate",
        "feed-forward up", "feed-forward down"]
    assert {r.index for r in result.rows} == {0}
    assert all(r.output_shape == [4, 16] for r in result.rows)
    assert sum(r.params for r in result.rows) == result.params
    assert sum(r.forward_flop for r in result.rows) == result.forward_flop
    post = rows(16, 4, {"type": "transformer_block", "mixer": {"heads": 2}, "norms": {"position": "post"}})
    assert [r.part for r in post.rows][4:7] == ["attention output projection", "attention norm", "feed-forward up"]


def test_full_convention_extras_written_out():
    """d = 8, L = 3, H = 2 (Q = 4), F = 16, GELU, LayerNorm pre-norm, all biases.

    Per the conventions table: LayerNorm 5 + 2 per element; a bias add 1 per output; softmax 5 and
    1/√Q scaling 1 per score; GELU 5 per element; residual add 1 per element."""
    d, length, h, q, f = 8, 3, 2, 4, 16
    full = {r.part: r.forward_flop for r in rows(d, length, flat_block({"type": "transformer_block", "heads": h,
                                                             "ff_size": f}), "full").rows}
    assert full["attention norm"] == full["feed-forward norm"] == 7 * length * d
    assert full["attention q projection"] == 2 * length * d * h * q + length * h * q
    assert full["attention k/v projections"] == 2 * length * d * 2 * h * q + length * 2 * h * q
    assert full["attention scores QKᵀ"] == 2 * h * length * length * q + 6 * h * length * length
    assert full["attention values AV"] == 2 * h * length * length * q
    assert full["attention output projection"] == 2 * length * h * q * d + length * d + length * d
    assert full["feed-forward up"] == 2 * length * d * f + length * f + 5 * length * f
    assert full["feed-forward down"] == 2 * length * f * d + length * d + length * d


def test_full_convention_gated_rmsnorm_and_experts_written_out():
    """SiLU 5 per element and the gating product 1; RMSNorm 3 + 1 per element; router softmax 5 per
    expert score; the k expert outputs weighted and summed: 2k − 1 per element."""
    d, length, f, e, k = 8, 5, 12, 4, 2
    layer = flat_block({"type": "transformer_block", "heads": 2, "ff_size": f, "gated": True, "norm": "rmsnorm",
             "activation": "silu", "ff_bias": False, "experts": e, "active_experts": k})
    full = {r.part: r for r in rows(d, length, layer, "full").rows}
    assert full["feed-forward norm"].forward_flop == 4 * length * d
    assert full["router"].forward_flop == 2 * length * d * e + 5 * length * e
    assert full["router"].params == d * e and full["router"].active_params is None
    tokens = length * k
    assert full["experts gate"].forward_flop == 2 * tokens * d * f + 6 * tokens * f
    assert full["experts up"].forward_flop == 2 * tokens * d * f
    assert full["experts down"].forward_flop == 2 * tokens * f * d + length * d + (2 * k - 1) * length * d
    assert (full["experts up"].params, full["experts up"].active_params) == (e * d * f, k * d * f)


def test_causal_half_counts_the_triangle():
    d, length, h = 8, 6, 2
    half = {r.part: r.forward_flop for r in rows(d, length, flat_block({"type": "transformer_block", "heads": h,
                                                             "causal_count": "half"}), "full").rows}
    pairs = length * (length + 1) // 2
    assert half["attention scores QKᵀ"] == 2 * h * pairs * (d // h) + 6 * h * pairs


def _mask_pairs(length, window=None):
    """Brute force over the mask: query i sees key j when j ≤ i and (no window or i − j < W)."""
    return sum(1 for i in range(length) for j in range(length)
               if j <= i and (window is None or i - j < window))


@pytest.mark.parametrize("length, window", [(6, 2), (6, 1), (9, 4), (5, 5), (5, 8), (12, 3)])
def test_sliding_window_counts_only_the_band_the_mask_keeps(length, window):
    d, h = 8, 2
    q = d // h
    layer = flat_block({"type": "transformer_block", "heads": h, "causal_count": "half", "attention_window": window})
    got = {r.part: r.forward_flop for r in rows(d, length, layer, "full").rows}
    pairs = _mask_pairs(length, window)
    assert got["attention scores QKᵀ"] == 2 * h * pairs * q + 6 * h * pairs  # + scale and softmax per score
    assert got["attention values AV"] == 2 * h * pairs * q
    # a window at least as long as the sequence is plain causal attention
    if window >= length:
        assert pairs == length * (length + 1) // 2


def test_sliding_window_leaves_the_full_count_alone():
    """With ``causal_count`` full every L² score is counted (a dense masked kernel computes them all)."""
    base = {"type": "transformer_block", "mixer": {"heads": 2}}  # the block in parts, as version 2 writes it
    plain = rows(8, 10, base)
    windowed = rows(8, 10, base | {"mixer": {"heads": 2, "window": 3}})
    assert windowed.forward_flop == plain.forward_flop
    assert {r.part: r.forward_flop for r in windowed.rows}["attention scores QKᵀ"] == 2 * 2 * 10 * 10 * 4


def test_lm_head_tied_has_no_weights_but_its_flop():
    base = {"input": {"shape": [1], "sequence_length": 5},
            "layers": [{"type": "embedding", "vocab_size": 100, "dim": 8}]}
    tied = evaluate(Architecture.model_validate(
        base | {"layers": base["layers"] + [{"type": "lm_head", "vocab_size": 100, "tied": True}]}))
    untied = evaluate(Architecture.model_validate(
        base | {"layers": base["layers"] + [{"type": "lm_head", "vocab_size": 100}]}))
    assert tied.rows[1].params == 0 and untied.rows[1].params == 100 * 8
    assert tied.rows[1].forward_flop == untied.rows[1].forward_flop == 5 * 2 * 8 * 100
    assert tied.rows[1].output_shape == [5, 100]


def test_position_embedding_and_rms_norm():
    arch = {"input": {"shape": [8], "sequence_length": 6},
            "layers": [{"type": "position_embedding", "max_positions": 10}, {"type": "rms_norm"}]}
    result = evaluate(Architecture.model_validate(arch), "full")
    assert [r.params for r in result.rows] == [10 * 8, 8]
    assert [r.forward_flop for r in result.rows] == [6 * 8, 4 * 6 * 8]
    with pytest.raises(InputError, match="longer than the 4 learned positions"):
        evaluate(Architecture.model_validate(arch | {"layers": [{"type": "position_embedding",
                                                                  "max_positions": 4}]}))


@pytest.mark.parametrize("layer,needle", [
    ({"heads": 8, "kv_heads": 3}, "layers[0].mixer.kv_heads: kv_heads 3 must divide heads 8"),
    ({"heads": 2, "experts": 2, "active_experts": 3},
     "layers[0].feed_forward.experts.active: active_experts 3 is more than experts 2"),
    ({"heads": 2, "causal": False, "causal_count": "half"},
     "layers[0].mixer.causal_count: causal_count 'half' needs causal attention"),
    ({"heads": 2, "causal": False, "attention_window": 4}, "layers[0].mixer.window: a sliding window"),
    ({"heads": 2, "attention_window": 0}, "layers[0].mixer.window"),
    ({"heads": 2, "shared_norm": True}, "layers[0].norms.shared: a shared norm needs parallel"),
    ({"heads": 2, "parallel": True, "cross_attention_length": 4}, "layers[0].parallel: parallel blocks"),
    ({"heads": 0}, "layers[0].mixer.heads"),
    ({"heads": 2, "ff_size": -1}, "layers[0].feed_forward.size"),
    ({"heads": 2, "norm": "batchnorm"}, "layers[0].norms.kind"),
    ({"heads": 2, "experts": 1.5}, "layers[0].feed_forward.experts.count"),
])
def test_invalid_blocks_are_named(layer, needle):
    with pytest.raises(InputError) as info:
        parse_scenario({"input": {"shape": [8], "sequence_length": 4},
                        "layers": [flat_block({"type": "transformer_block", **layer})]})
    assert needle in str(info.value) and str(info.value).startswith("layers[0]")


@pytest.mark.parametrize("input_shape,steps,needle", [
    ([12], 4, "head size d/H = 12/5 is not an integer"),
    ([12], None, "needs a sequence"),
    ([3, 4, 12], None, "needs a sequence"),
])
def test_shape_errors(input_shape, steps, needle):
    arch = Architecture.model_validate({"input": {"shape": input_shape, "sequence_length": steps},
                                        "layers": [flat_block({"type": "transformer_block", "heads": 5})]})
    with pytest.raises(InputError, match=r"^layers\[0\]: transformer_block: ") as info:
        evaluate(arch)
    assert needle in str(info.value)


def test_a_2d_item_is_read_as_a_sequence():
    a = rows(16, 1, flat_block({"type": "transformer_block", "heads": 2}))
    b = evaluate(Architecture.model_validate({"input": {"shape": [1, 16]},
                                              "layers": [flat_block({"type": "transformer_block", "heads": 2})]}))
    assert a.forward_flop == b.forward_flop


sizes = st.one_of(st.integers(-2, 40), st.floats(allow_nan=True, allow_infinity=True), st.just("7"), st.none(),
                  st.booleans())
transformer_layer = st.fixed_dictionaries(
    {"type": st.sampled_from(["transformer_block", "rms_norm", "position_embedding", "lm_head"])},
    optional={k: sizes for k in ("heads", "kv_heads", "head_size", "ff_size", "experts", "active_experts",
                                 "cross_attention_length", "max_positions", "vocab_size")}
    | {k: st.booleans() for k in ("gated", "causal", "parallel", "shared_norm", "qkv_bias", "tied")}
    | {"norm": st.sampled_from(["layernorm", "rmsnorm", "x"]), "norm_position": st.sampled_from(["pre", "post"]),
       "causal_count": st.sampled_from(["full", "half"]), "activation": st.sampled_from(["silu", "gelu", "no"])},
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(transformer_layer, max_size=4), st.lists(st.integers(-1, 30), max_size=3),
       st.one_of(st.none(), st.integers(-1, 12)), st.sampled_from(["matmul", "full"]))
def test_random_transformer_specs_give_a_result_or_a_clear_error(layers, shape, steps, convention):
    spec = {"version": 1, "input": {"shape": shape, "sequence_length": steps}, "layers": layers,
            "convention": convention}  # the first shape's field names, through the migration
    try:
        est = load_scenario_text(json.dumps(spec)).method1()
    except InputError as exc:
        assert ": " in str(exc) and "\n" not in str(exc) and exc.field
        return
    assert est.forward_flop >= 0 and est.params >= 0
    for row in est.architecture.rows:
        assert all(isinstance(d, int) and d >= 1 for d in row.output_shape)
        assert row.active_params is None or 0 <= row.active_params <= row.params


@pytest.mark.parametrize("convention", ["matmul", "full"])
def test_shared_weights_block_runs_without_parameters_of_its_own(convention):
    """A block reusing an earlier block's weights (ALBERT): the same forward and backward FLOP as an unshared one
    (its weight gradients are computed at every use), no parameters, nothing trained of its own."""
    block = flat_block({"type": "transformer_block", "heads": 2, "ff_size": 24, "causal": False, "norm_position": "post"})
    one = rows(16, 6, {"type": "dense", "units": 16}, convention)  # a trainable layer first: input gradients flow
    plain = evaluated([16], [{"type": "dense", "units": 16}, block], 6, convention)
    shared = evaluated([16], [{"type": "dense", "units": 16}, block | {"shared_weights": True}], 6, convention)
    block_params = 4 * (16 * 16 + 16) + (16 * 24 + 24) + (24 * 16 + 16) + 2 * 2 * 16
    assert plain.params - one.params == block_params and shared.params == one.params
    assert (shared.forward_flop, shared.backward_flop) == (plain.forward_flop, plain.backward_flop)
    assert shared.trainable_params == one.params and plain.trainable_params == one.params + block_params
    assert all(r.params == 0 for r in shared.rows[1:])


def test_shared_weights_refuse_adapters():
    with pytest.raises(InputError, match="adapters on shared weights"):
        parse_scenario({"input": {"shape": [16], "sequence_length": 4},
                        "layers": [flat_block({"type": "transformer_block", "heads": 2, "shared_weights": True,
                                    "lora": {"rank": 2}})]})


def test_block_without_attention_norm():
    """ModernBERT's first layer: no norm before attention (γ and β of d fewer), the same products; the attention
    reads the block's input, so with a trainable layer before it the backward pass is the same too."""
    block = flat_block({"type": "transformer_block", "heads": 2, "ff_size": 24, "causal": False})
    dense = {"type": "dense", "units": 16}
    plain = evaluated([16], [dense, block], 6)
    bare = evaluated([16], [dense, block | {"norms": {"mixer_norm": False}}], 6)
    assert plain.params - bare.params == 2 * 16
    assert (bare.forward_flop, bare.backward_flop) == (plain.forward_flop, plain.backward_flop)
    assert "attention norm" not in [r.part for r in bare.rows]
