"""The precision page's text: the mixed split's arithmetic and the per-format rows, checked by hand."""
from __future__ import annotations

from types import SimpleNamespace

from ui.views import precision as view

LABELS = {"bf16": "BF16", "fp32": "FP32", "fp8": "FP8"}


def test_the_last_format_takes_the_rest():
    split, error = view.mixed_split({"bf16": 70.0, "fp8": 20.0}, "fp32", LABELS)
    assert split == {"bf16": 70.0, "fp8": 20.0, "fp32": 10.0} and error is None
    assert view.mixed_precision_fields(split, "time") == {
        "mixed_precision": {"bf16": 0.7, "fp8": 0.2, "fp32": 0.1}, "split_basis": "time"}


def test_shares_over_100_percent_name_the_last_format():
    split, error = view.mixed_split({"bf16": 80.0, "fp8": 30.0}, "fp32", LABELS)
    assert split["fp32"] == -10.0
    assert error == "the shares before FP32 add up to 110%: lower one of them"
    assert view.mixed_split({}, None, LABELS) == ({}, "choose at least one format")


def test_zero_shares_are_left_out_of_the_run():
    assert view.mixed_precision_fields({"bf16": 100.0, "fp32": 0.0}, "work")["mixed_precision"] == {"bf16": 1.0}


def test_peak_bars_in_teraflops():
    bars = view.peak_bars({"bf16_tensor": 989.4e12, "fp32": 66.9e12})  # H100 SXM dense
    assert bars["TFLOP/s (dense)"] == [989.4, 66.9]
    assert bars["label"] == ["989.4", "66.9"]


def test_format_rows_read_as_units():
    row = SimpleNamespace(peak_key="bf16_tensor", peak_flop_per_s=312e12, unit="FLOP/s", training_flop=1.08e21,
                          hours_for_budget=36.0)
    assert view.format_rows([row], {"bf16_tensor": "BF16 tensor"}) == [{
        "format": "BF16 tensor", "peak (dense)": "312 TFLOP/s", "method 2 training compute": "1.08e21 FLOP",
        "time for the method-1 budget": "36 h"}]
