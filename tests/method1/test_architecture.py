"""Shape propagation, sequences and shape errors."""
from __future__ import annotations

import pytest

from engine.method1.architecture import Architecture, evaluate
from engine.errors import InputError, parse_input


def arch(input_shape, layers, steps=None):
    return Architecture.model_validate({"input": {"shape": input_shape, "sequence_length": steps},
                                        "layers": layers})


SEED = arch([400, 400, 5], [{"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
                            {"type": "flatten"}, {"type": "lstm", "units": 256}, {"type": "dense", "units": 10}],
            steps=20)


def test_seed_worked_example_per_layer():
    # BRIEF: CNN 2·200·200·16·125 = 1.6e8 per image (× 20 images); LSTM 8·(640,000·256 + 256²) per step
    # (× 20 steps); FC 2·256·10 = 5,120 once per sequence (the LSTM is many-to-one).
    rows = evaluate(SEED).rows
    assert rows[0].output_shape == [20, 200, 200, 16]
    assert rows[0].forward_flop == 20 * 2 * 200 * 200 * 16 * 125
    assert rows[1].output_shape == [20, 640_000]
    assert rows[2].forward_flop == 20 * 8 * (640_000 * 256 + 256 ** 2)
    assert rows[2].output_shape == [256]
    assert rows[3].forward_flop == 5_120


def test_seed_lstm_figure_is_8_NM_M2_M():
    # The seed's LSTM figure 1.31e9 = 8·(N·M + M² + M) for N = 640,000, M = 256: within 0.0002% of ours
    per_step = evaluate(SEED).rows[2].forward_flop / 20
    assert per_step == pytest.approx(8 * (640_000 * 256 + 256 ** 2 + 256), rel=2e-6)
    assert per_step == pytest.approx(1.31e9, rel=1e-3)


def test_return_sequences_keeps_the_sequence_for_the_head():
    a = arch([8], [{"type": "gru", "units": 4, "return_sequences": True}, {"type": "dense", "units": 3}], steps=5)
    rows = evaluate(a).rows
    assert rows[0].output_shape == [5, 4]
    assert rows[1].forward_flop == 5 * 2 * 4 * 3  # dense runs per position


def test_conv1d_output_feeds_a_recurrent_layer_as_a_sequence():
    # [L, C] = [50, 3] → conv1d 8 filters K=5 → [46, 8] → LSTM reads 46 steps of 8
    a = arch([50, 3], [{"type": "conv1d", "filters": 8, "kernel_size": 5}, {"type": "lstm", "units": 4}])
    rows = evaluate(a).rows
    assert rows[1].forward_flop == 46 * 8 * (8 * 4 + 4 * 4)


@pytest.mark.parametrize("input_shape,layers,steps,needle", [
    ([5, 5, 3], [{"type": "conv2d", "filters": 2, "kernel_size": 7}], None, "larger than the padded input"),
    ([32, 32, 3], [{"type": "dense", "units": 10}], None, "add a flatten layer"),
    ([10], [{"type": "lstm", "units": 4}], None, "needs a sequence"),
    ([10], [{"type": "multi_head_attention", "heads": 3}], 4, "not an integer"),
    ([8, 8, 3], [{"type": "conv2d", "filters": 4, "kernel_size": 3, "groups": 2}], None, "groups 2 must divide"),
    ([8, 8], [{"type": "conv2d", "filters": 4, "kernel_size": 3}], None, "expects [H, W, C]"),
    ([2, 2, 3], [{"type": "conv_transpose2d", "filters": 4, "kernel_size": 1, "padding": 3}], None, "no output"),
])
def test_shape_errors_name_index_type_and_shapes(input_shape, layers, steps, needle):
    a = arch(input_shape, [{"type": "dropout"}] + layers, steps)
    with pytest.raises(InputError) as info:
        evaluate(a)
    message = str(info.value)
    assert message.startswith(f"layers[1]: {layers[0]['type']}:")
    assert needle in message
    shown = "[" + ", ".join(map(str, input_shape)) + "]"
    assert shown in message  # the input shape


def test_lenient_evaluation_keeps_the_rows_before_the_error():
    a = arch([32], [{"type": "dense", "units": 8}, {"type": "conv2d", "filters": 2, "kernel_size": 3},
                    {"type": "dense", "units": 2}])
    result = evaluate(a, strict=False)
    assert [r.index for r in result.rows] == [0]
    assert result.error is not None and result.error.field == "layers[1]"


def test_shares_add_up_to_one():
    rows = evaluate(SEED).rows
    assert sum(r.share for r in rows) == pytest.approx(1.0)


def test_absurd_input_is_refused():
    # 10^6 · 10^6 · 10^4 = 10^16 values per example: refused when read, before any layer runs
    with pytest.raises(InputError, match=r"^input.*1e16 values per example is more than the 1e15"):
        parse_input(Architecture, {"input": {"shape": [10**6, 10**6, 10**4]}, "layers": [{"type": "flatten"}]})
