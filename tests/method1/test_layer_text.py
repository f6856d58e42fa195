"""Layers typed as text: Epoch's worked example in one line, and every way the text can be wrong."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.method1.architecture import Architecture, evaluate
from engine.method1.layer_text import parse_layers_text
from tests.reference import EPOCH_EXAMPLE_PARAMS


def test_epochs_worked_example_in_one_line():
    layers = parse_layers_text("conv2d(16, 5, stride=2, padding=2), flatten, lstm(256), dense(10)")
    assert layers == [{"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
                      {"type": "flatten"}, {"type": "lstm", "units": 256}, {"type": "dense", "units": 10}]
    arch = Architecture.model_validate({"input": {"shape": [400, 400, 5], "sequence_length": 20}, "layers": layers})
    assert evaluate(arch).params == EPOCH_EXAMPLE_PARAMS


def test_separators_values_and_names():
    layers = parse_layers_text("Dense(128);activation(gelu)\n conv2d(8, [3, 1], bias=false, stride=1.0)")
    assert layers == [{"type": "dense", "units": 128}, {"type": "activation", "function": "gelu"},
                      {"type": "conv2d", "filters": 8, "kernel_size": [3, 1], "bias": False, "stride": 1.0}]


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"),
    ("dens(128)", "'dens' is not a layer kind; did you mean 'dense'?"),
    ("dense(128", "a '(' or '[' is not closed"),
    ("dense 128", "give its values in parentheses"),
    ("dense(128, 64)", "dense takes 1 value(s) without a name (units)"),
    ("dense(unit=4)", "dense has no field 'unit'; did you mean 'units'?"),
    ("dense(128, units=4)", "'units' is given twice"),
    ("repeat(3)", "blocks (residual, branches, repeat) are added from the layer list"),
    ("dense(" + "9" * 5000 + ")", "too large a number"),
    ("dense(__import__('os').system('x'))", "cannot read"),
    ("dense(1))", "a ')' closes nothing"),
    ("dense(1), " * 501, "501 layers: at most 500"),
    ("x" * 10_001, "10,001 characters"),
])
def test_bad_text_is_one_line_naming_the_field(text, reason):
    with pytest.raises(InputError) as caught:
        parse_layers_text(text)
    assert caught.value.field == "layers as text" and reason in caught.value.reason
    assert "\n" not in str(caught.value)


def test_brackets_nested_900_deep_are_one_line_not_a_recursion_error():
    """900 levels fit in the 10,000-character limit; each level was one more Python frame (a fuzzed input)."""
    with pytest.raises(InputError) as info:
        parse_layers_text("dense(units=" + "[" * 900 + "]" * 900 + ")")
    assert str(info.value).startswith("layers as text: entry 1") and "nested more than 4 deep" in str(info.value)
    assert parse_layers_text("adaptive_avg_pool2d(output_size=[2, 3])")[0]["output_size"] == [2, 3]
