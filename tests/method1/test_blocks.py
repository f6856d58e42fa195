"""Blocks (residual, branches, repeat) and the vision kinds: formulas worked out here, shape checks at every
merge, and hostile input — each a one-line error naming the path, quickly."""
from __future__ import annotations

import json
import time

import pytest

from engine.errors import InputError
from engine.scenario import load_scenario_text, parse_scenario
from tests.method1 import evaluated

CONV = {"type": "conv2d", "filters": 4, "kernel_size": 3, "padding": 1}


def error_of(shape, layers, steps=None) -> str:
    with pytest.raises(InputError) as info:
        evaluated(shape, layers, steps)
    message = str(info.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- formulas

def test_residual_add_costs_one_flop_per_value_in_full():
    # body: conv 4→4 3×3 on 8×8: 2·8·8·4·36 FLOP (+ 8·8·4 bias adds in full); the add: 8·8·4
    layers = [{"type": "residual", "body": [CONV]}]
    matmul = evaluated([8, 8, 4], layers)
    full = evaluated([8, 8, 4], layers, convention="full")
    assert matmul.forward_flop == 2 * 8 * 8 * 4 * 36
    assert full.forward_flop == 2 * 8 * 8 * 4 * 36 + 8 * 8 * 4 + 8 * 8 * 4
    assert [r.path for r in full.rows] == ["layers[0].body[0]", "layers[0].merge"]
    assert full.blocks[0].forward_flop == full.forward_flop


def test_squeeze_excite_gate_broadcasts():
    # [6, 6, 8] × gate [1, 1, 8]: output [6, 6, 8]; full: pool 6·6·8, 1×1 convs 8→2→8 with biases,
    # SiLU 5·2, sigmoid 4·8, the product 6·6·8
    gate = [{"type": "adaptive_avg_pool2d"}, {"type": "conv2d", "filters": 2, "kernel_size": 1},
            {"type": "activation", "function": "silu"}, {"type": "conv2d", "filters": 8, "kernel_size": 1},
            {"type": "activation", "function": "sigmoid"}]
    layers = [{"type": "branches", "merge": "multiply", "branches": [[], gate]}]
    result = evaluated([6, 6, 8], layers, convention="full")
    assert result.rows[-1].output_shape == [6, 6, 8]
    assert result.params == (8 * 2 + 2) + (2 * 8 + 8)
    assert result.forward_flop == (6 * 6 * 8 + 2 * (8 * 2 + 2 * 8) + 2 + 8 + 5 * 2 + 4 * 8 + 6 * 6 * 8)


def test_concat_along_channels_and_sequence():
    layers = [{"type": "branches", "branches": [[], [CONV], [{"type": "conv2d", "filters": 3, "kernel_size": 1}]]}]
    assert evaluated([5, 5, 2], layers).rows[-1].output_shape == [5, 5, 2 + 4 + 3]
    seq = [{"type": "branches", "axis": "sequence", "branches": [[], [{"type": "dense", "units": 6}]]}]
    row = evaluated([6], seq, steps=10).rows[-1]
    assert (row.output_shape, row.steps) == ([20, 6], 20)


def test_repeat_counts_every_copy_and_folds_identical_ones():
    # 1,000 copies of conv 4→4 3×3 (+bias) on 8×8: params 1,000·(4·36 + 4), FLOP 1,000·2·8·8·4·36
    result = evaluated([8, 8, 4], [{"type": "repeat", "times": 1000, "layers": [CONV]}])
    assert result.params == 1000 * (4 * 36 + 4)
    assert result.forward_flop == 1000 * 2 * 8 * 8 * 4 * 36
    # the first copy's input (the data) needs no gradient, the 999 after it do: two rows, the rest folded
    assert [row.copies for row in result.rows] == [1, 999]
    macs = 8 * 8 * 4 * 36
    assert result.backward_flop == 2 * macs + 999 * 2 * 2 * macs
    frozen = evaluated([8, 8, 4], [{"type": "repeat", "times": 1000, "layers": [CONV], "trainable": False}])
    assert len(frozen.rows) == 1 and frozen.rows[0].copies == 1000 and frozen.backward_flop == 0


def test_repeat_with_growing_channels_evaluates_each_copy():
    # DenseNet-style: copy i sees 2 + 3i channels; conv 3×3 → 3 filters, no bias
    dense = {"type": "branches", "branches": [[], [{"type": "conv2d", "filters": 3, "kernel_size": 3,
                                                    "padding": 1, "bias": False}]]}
    result = evaluated([4, 4, 2], [{"type": "repeat", "times": 5, "layers": [dense]}])
    assert result.rows[-1].output_shape == [4, 4, 2 + 5 * 3]
    assert result.params == sum(3 * 9 * (2 + 3 * i) for i in range(5))


def test_vision_kinds():
    # ViT's entry: 32×32×3 → patchify conv 16/16 → [2, 2, 8] → 4 tokens → + class token → 5 tokens
    layers = [{"type": "conv2d", "filters": 8, "kernel_size": 16, "stride": 16}, {"type": "to_tokens"},
              {"type": "class_token"}, {"type": "position_embedding", "max_positions": 5},
              {"type": "token_select", "select": "mean"}]
    result = evaluated([32, 32, 3], layers, convention="full")
    assert [r.output_shape for r in result.rows] == [[2, 2, 8], [4, 8], [5, 8], [5, 8], [8]]
    assert [r.params for r in result.rows] == [8 * 16 * 16 * 3 + 8, 0, 8, 5 * 8, 0]
    assert result.rows[-1].forward_flop == 5 * 8  # mean: L·d
    up = evaluated([3, 4, 2], [{"type": "upsample", "scale": 2, "mode": "bilinear"}], convention="full").rows[0]
    assert (up.output_shape, up.forward_flop) == ([6, 8, 2], 7 * 6 * 8 * 2)
    # adaptive pooling 5 → 2: PyTorch's windows [0, 3) and [2, 5), 3 + 3 values per axis
    pool = evaluated([5, 5, 1], [{"type": "adaptive_avg_pool2d", "output_size": 2}], convention="full").rows[0]
    assert (pool.output_shape, pool.forward_flop) == ([2, 2, 1], 6 * 6)


def test_adaptive_pool_windows_summed_as_pytorch_spans_them():
    """PyTorch's adaptive window i spans ⌊i·H/o⌋ … ⌈(i+1)·H/o⌉ (aten AdaptiveAveragePooling start_index/end_index);
    the full convention's FLOP is C × Σ|w_h| × Σ|w_w|, here summed window by window, for every H ≤ 40 and o ≤ H."""
    for size in range(1, 41):
        for out in range(1, size + 1):
            spans = sum(-(-(i + 1) * size // out) - i * size // out for i in range(out))
            row = evaluated([size, 1, 3], [{"type": "adaptive_avg_pool2d", "output_size": [out, 1]}],
                            convention="full").rows[0]
            assert row.forward_flop == 3 * spans * 1, (size, out)
    # a 10⁹-row grid pooled to 10⁹ − 1 rows (once a sum over every window: minutes): H + o − gcd(H, o) values
    tall = evaluated([10**9, 1, 1], [{"type": "adaptive_avg_pool2d", "output_size": [10**9 - 1, 1]}],
                     convention="full").rows[0]
    assert tall.forward_flop == 10**9 + (10**9 - 1) - 1


@pytest.mark.external_check("upsample")
def test_upsample_and_adaptive_pool_shapes_match_torch(torch):
    for size, out in ((7, 3), (5, 2), (9, 1)):
        y = torch.nn.AdaptiveAvgPool2d(out)(torch.empty(1, 2, size, size + 1, device="meta"))
        assert evaluated([size, size + 1, 2], [{"type": "adaptive_avg_pool2d", "output_size": out}]) \
            .rows[0].output_shape == [out, out, 2] == [y.shape[2], y.shape[3], y.shape[1]]
    y = torch.nn.Upsample(scale_factor=3, mode="bilinear")(torch.empty(1, 2, 4, 5, device="meta"))
    assert list(y.shape[2:]) == evaluated([4, 5, 2], [{"type": "upsample", "scale": 3}]).rows[0].output_shape[:2]


# ---------------------------------------------------------------- shape checks and hostile input

def test_mismatched_add_names_the_path_and_both_shapes():
    layers = [{"type": "dropout"}, {"type": "dropout"}, {"type": "dropout"},
              {"type": "residual", "body": [{"type": "conv2d", "filters": 6, "kernel_size": 3, "padding": 1}]}]
    message = error_of([8, 8, 4], layers)
    assert message.startswith("layers[3]: ")
    assert "[8, 8, 6]" in message and "[8, 8, 4]" in message


def test_error_inside_a_branch_names_the_nested_path():
    inner = [{"type": "dropout"}, {"type": "dropout"}, {"type": "dense", "units": 3}]
    layers = [{"type": "branches", "branches": [[], inner]}]
    message = error_of([8, 8, 4], layers)
    assert message.startswith("layers[0].branches[1][2]: dense:") and "[8, 8, 4]" in message


@pytest.mark.parametrize("block,needle", [
    ({"type": "branches", "merge": "add", "branches": [[], [CONV, {"type": "max_pool2d", "kernel_size": 2}]]},
     "cannot add"),
    ({"type": "branches", "branches": [[], [{"type": "max_pool2d", "kernel_size": 2}]]}, "cannot concatenate"),
    ({"type": "branches", "merge": "multiply", "branches": [[], [{"type": "max_pool2d", "kernel_size": 2}]]},
     "do not broadcast"),
    ({"type": "branches", "axis": "sequence", "branches": [[], []]}, "along the sequence"),
])
def test_merge_mismatches(block, needle):
    message = error_of([8, 8, 4], [block])
    assert message.startswith("layers[0]: ") and needle in message
    assert "[8, 8, 4]" in message and "[4, 4, 4]" in message or "sequence" in needle


@pytest.mark.parametrize("layer,field", [
    ({"type": "branches", "branches": []}, "layers[0].branches"),
    ({"type": "branches", "branches": [[CONV]]}, "layers[0].branches"),
    ({"type": "residual", "body": []}, "layers[0].body"),
    ({"type": "repeat", "times": 0, "layers": [CONV]}, "layers[0].times"),
    ({"type": "repeat", "times": 10**9, "layers": [CONV]}, "layers[0].times"),
    ({"type": "repeat", "times": 2, "layers": []}, "layers[0].layers"),
    ({"type": "repeat", "times": "2; rm -rf /", "layers": [CONV]}, "layers[0].times"),
    ({"type": "residual", "body": [{"type": "warp_drive"}]}, "layers[0].body[0].type"),
    ({"type": "branches", "branches": [[], [CONV, {"type": "dense", "units": -1}]]},
     "layers[0].branches[1][1].units"),
    ({"type": "residual", "body": [CONV], "cycle": "layers[0]"}, "layers[0].cycle"),
])
def test_invalid_blocks_are_one_line_errors(layer, field):
    with pytest.raises(InputError) as info:
        parse_scenario({"input": {"shape": [8, 8, 4]}, "layers": [layer]})
    assert str(info.value).startswith(field + ":"), str(info.value)


def test_nesting_10000_deep_is_refused_quickly():
    layer: dict = CONV
    for _ in range(10_000):
        layer = {"type": "residual", "body": [layer]}
    start = time.process_time()  # CPU seconds: a busy machine does not lengthen them
    with pytest.raises(InputError) as info:
        parse_scenario({"input": {"shape": [8, 8, 4]}, "layers": [layer]})
    assert "nested more than 32 deep" in str(info.value)
    text = '{"input": {"shape": [4]}, "layers": [' + '{"type": "repeat", "layers": [' * 10_000 + \
        '{"type": "flatten"}' + "]}" * 10_000 + "]}"
    with pytest.raises(InputError) as info:
        load_scenario_text(text)
    assert "\n" not in str(info.value)
    assert time.process_time() - start < 5


def test_repeats_of_a_shape_changing_block_are_bounded():
    dense = {"type": "branches", "branches": [[], [{"type": "conv2d", "filters": 1, "kernel_size": 1}]]}
    start = time.process_time()
    message = error_of([2, 2, 1], [{"type": "repeat", "times": 100_000, "layers": [dense, dense, dense]}])
    assert "layer evaluations" in message
    assert time.process_time() - start < 60  # a guard against a hang, not a speed test (bench/ has those)


def test_nested_repeats_multiply():
    # 3 × (4 × conv): 12 copies of the conv
    layers = [{"type": "repeat", "times": 3, "layers": [{"type": "repeat", "times": 4, "layers": [CONV]}]}]
    result = evaluated([8, 8, 4], layers)
    assert result.params == 12 * (4 * 36 + 4) and sum(row.copies for row in result.rows) == 12
    # the very first conv reads the data (no input gradient); the other 11 pass gradients back
    macs = 8 * 8 * 4 * 36
    assert result.backward_flop == 2 * macs + 11 * 4 * macs


def test_blocks_round_trip_through_the_link():
    from engine.share_link import decode, encode

    scenario = parse_scenario({"input": {"shape": [8, 8, 4]}, "layers": [
        {"type": "repeat", "times": 3, "layers": [{"type": "residual", "body": [CONV], "name": "a <b>"}]}]})
    assert decode(encode(scenario)) == scenario
    assert json.loads(json.dumps(scenario.model_dump(mode="json")))["layers"][0]["layers"][0]["type"] == "residual"


def test_report_names_nested_rows_by_path():
    from engine.presets import presets
    from engine.report import markdown_report

    text = markdown_report(presets()["resnet50"].scenario)
    assert "| layers[4].layers[2].layers[0].body[0] | conv2d ×2 |" in text


@pytest.mark.parametrize("layers,needle", [
    ([{"type": "repeat", "times": 40, "layers": [{"type": "upsample", "scale": 1024}]}], "more than 1e15 values"),
    ([{"type": "repeat", "times": 30, "layers": [{"type": "branches", "branches": [[], []]}]}],
     "channels after concatenation"),
])
def test_growth_inside_blocks_is_bounded(layers, needle):
    assert needle in error_of([2, 2, 1], layers)


def test_a_block_totals_in_both_conventions():
    # residual(conv 4→4 3×3 + bias) on [8, 8, 4]: 148 params, 8·8·4·36 MACs; full extras: bias adds + the add
    from engine.method1.architecture import Architecture, evaluate

    arch = Architecture.model_validate({"input": {"shape": [8, 8, 4]},
                                        "layers": [{"type": "residual", "body": [CONV]}]})
    macs = 8 * 8 * 4 * 36
    matmul, full = evaluate(arch, "matmul"), evaluate(arch, "full")
    assert (matmul.params, matmul.macs, matmul.forward_flop) == (148, macs, 2 * macs)
    assert full.forward_flop == 2 * macs + 2 * 8 * 8 * 4
    assert full.rows[-1].output_shape == [8, 8, 4]


# ---------------------------------------------------------------- derived bounds (the third reliability probe)

DENSE4 = {"type": "dense", "units": 4}


def doubling(copies: int) -> list[dict]:
    """``copies`` copies of a branch pair that joins its input to itself along the sequence: T doubles each."""
    return [{"type": "repeat", "times": copies, "layers": [
        {"type": "branches", "merge": "concat", "axis": "sequence", "branches": [[], []]}]}]


def test_sequence_concatenation_is_bounded_like_channel_concatenation():
    # T = 8 · 2^k: 2^26 · 8 = 536,870,912 fits under 10^9, the 27th copy gives 1,073,741,824 (it went on to 10^12)
    assert evaluated([4], doubling(26), steps=8).rows[-1].steps == 8 * 2**26
    message = error_of([4], doubling(40), steps=8)
    assert f"{8 * 2**27:,} sequence positions after concatenation is more than 1,000,000,000" in message
    assert "(copy 27 of 40)" in message and message.startswith("layers[0].layers[0]:")


def nested_repeats(depth: int, times: int, inner: dict = DENSE4) -> dict:
    for _ in range(depth):
        inner = {"type": "repeat", "times": times, "layers": [inner]}
    return inner


def test_nested_repeats_stay_within_a_table_count():
    # dense 4→4: 20 parameters, 16 MACs, 32 FLOP per copy; 100,000^3 copies: 2e16 parameters, 3.2e16 FLOP
    result = evaluated([4], [nested_repeats(3, 100_000)])
    assert result.params == 20 * 100_000**3 and result.forward_flop == 32 * 100_000**3
    # 100,000^4 copies: 2e21 parameters, past 2^63 ≈ 9.22e18 (the Arrow table raised): one message
    message = error_of([4], [nested_repeats(4, 100_000)])
    assert "the parameters reach 2e21 here, more than the 9.22e18 (2^63) a count can hold" in message
    assert message.startswith("layers[0]:")


def test_one_layer_past_the_count_limit_is_named():
    # dense 10^9 → 10^9 over 10^4 steps: 10^22 MACs in one layer
    message = error_of([10**9], [{"type": "dense", "units": 10**9}], steps=10_000)
    assert message.startswith("layers[0]: the parameters reach 1e+18") is False  # parameters fit (1e18 + 1e9)
    assert message.startswith("layers[0]: the forward FLOP per example reach 2e22 here")


def test_a_backward_past_the_count_limit_is_named():
    # dense 1 → n, then n → n with n = 10^9 over T = 3 steps: forward 2n²T = 6·10^18 fits 2^63 − 1 ≈ 9.22·10^18;
    # the second layer's backward (input and weight gradients) 4n²T = 1.2·10^19 does not — its table column would
    n, steps = 10**9, 3
    assert 2 * n * n * steps + 2 * n * steps < 2**63 - 1 < 4 * n * n * steps
    message = error_of([1], [{"type": "dense", "units": n}, {"type": "dense", "units": n}], steps=steps)
    assert message.startswith("layers[1]: the backward FLOP per example reach 1.2e19 here")


def test_a_partial_table_holds_only_counts_that_fit():
    """What a page shows beside the refusal (strict=False) holds only rows whose counts fit 2^63 − 1: a dense
    layer, then an LSTM of n = 10^9 units on a 10^9-vector inside three residual blocks: 4 gates × (n inputs +
    n hidden) × n units = 8·10^18 MACs, 1.6·10^19 FLOP per step — refused, and its row not in the table (it was,
    and its 64-bit column overflowed)."""
    from engine.method1.architecture import MAX_COUNT

    n = 10**9
    inner: dict = {"type": "lstm", "units": n}
    for _ in range(3):
        inner = {"type": "residual", "body": [inner]}
    scenario = parse_scenario({"input": {"shape": [n], "sequence_length": 1},
                               "layers": [{"type": "dense", "units": n}, inner]})
    est = scenario.method1(strict=False)
    assert "the forward FLOP per example reach 1.8e19" in str(est.error)  # + the dense layer's 2·10^18
    rows = est.architecture.rows
    assert [r.type for r in rows] == ["dense"] and rows[0].forward_flop == 2 * n * n
    assert all(r.params <= MAX_COUNT and r.forward_flop <= MAX_COUNT and r.backward_flop <= MAX_COUNT for r in rows)


@pytest.mark.parametrize("layers, count", [
    ([DENSE4] * 3, 3),
    ([{"type": "residual", "body": [DENSE4] * 5, "shortcut": [DENSE4]}], 1 + 5 + 1),
    ([{"type": "repeat", "times": 7, "layers": [DENSE4, DENSE4]}], 1 + 7 * 2),
    ([nested_repeats(2, 10)], 1 + 10 + 10 * 10),
    ([{"type": "branches", "branches": [[DENSE4], [], [DENSE4, DENSE4]]}], 1 + 3),
    ([{"type": "repeat", "times": 3, "layers": [{"type": "branches", "branches": [[DENSE4], [DENSE4]]}]}],
     1 + 3 * (1 + 2)),
])
def test_expanded_count(layers, count):
    from engine.method1.blocks import expanded_count

    assert expanded_count(layers) == count
    assert expanded_count(parse_scenario({"input": {"shape": [4]}, "layers": layers}).layers) == count


def nested_branches(depth: int) -> dict:
    inner: dict = DENSE4
    for _ in range(depth):
        inner = {"type": "branches", "merge": "add", "branches": [[inner], [inner]]}
    return inner


@pytest.mark.parametrize("layers, shown", [
    ([{"type": "residual", "body": [{"type": "flatten"}] * 99_999}], "100,000"),  # 1 block + 99,999 layers
    ([nested_branches(12)], f"{2**13 - 1:,}"),  # 4,096 leaves + 4,095 blocks
    ([nested_repeats(4, 100_000)], "about 1e20"),
    (doubling(100_000), "100,001"),
])
def test_the_dashboards_limit_counts_expanded_layers(layers, shown):
    from engine.scenario import MAX_PAGE_LAYERS

    text = json.dumps({"input": {"shape": [4], "sequence_length": 8}, "layers": layers}, separators=(",", ":"))
    with pytest.raises(InputError) as info:
        load_scenario_text(text, source="link", max_layers=MAX_PAGE_LAYERS)
    assert str(info.value) == (f"layers: {shown} layers once blocks and repeats are expanded: the dashboard opens "
                               "at most 2,000 (larger models: python -m engine flops FILE)")


def test_nesting_near_the_limit_opens_and_past_it_is_refused():
    from engine.method1.blocks import MAX_DEPTH

    layer: dict = DENSE4
    for _ in range(MAX_DEPTH):
        layer = {"type": "residual", "body": [layer]}
    result = evaluated([4], [layer])
    assert result.params == 20 and max(r.depth for r in result.rows) == MAX_DEPTH
    with pytest.raises(InputError) as info:
        parse_scenario({"input": {"shape": [4]}, "layers": [{"type": "residual", "body": [layer]}]})
    assert str(info.value).endswith(f"blocks nested more than {MAX_DEPTH} deep")
