"""The number-format table that every module reads."""
from __future__ import annotations

import pytest

from engine.method2.formats import FORMAT_BY_KEY, PEAK_KEYS, PRECISIONS, is_tensor, peak_key, peak_unit
from engine.method2.hardware_db import Peaks


@pytest.mark.parametrize(("precision", "tensor", "key"), [
    ("bf16", True, "bf16_tensor"), ("bf16", False, "bf16"), ("fp16", False, "fp16"),
    ("fp32", True, "fp32"),  # tensor-core FP32 is TF32: fp32 names the vector figure either way
    ("int8", True, "int8"), ("int8", False, "int8"), ("tf32", True, "tf32_tensor"), ("fp8", True, "fp8_tensor"),
    ("fp6", True, "fp6_tensor"), ("fp4", True, "fp4_tensor"), ("fp4", False, "fp4"),
])
def test_a_run_format_selects_one_row(precision, tensor, key):
    assert peak_key(precision, tensor) == key


def test_unknown_format_selects_nothing():
    assert peak_key("int4", True) is None and peak_key("fp2", False) is None


def test_bytes_per_value_as_the_formats_define_them():
    # IEEE 754 binary64/32/16, bfloat16, FP8 (E4M3/E5M2), int8; TF32 is stored in 32-bit registers;
    # OCP microscaling MXFP6 (E2M3/E3M2) and MXFP4 (E2M1) elements: 6 and 4 bits (the shared 8-bit scale per
    # 32 elements, 0.25 bit per element, left out)
    expected = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "fp6": 0.75, "fp4": 0.5, "int8": 1}
    for row in FORMAT_BY_KEY.values():
        assert row.bytes_per_value == expected[row.precision], row.key


def test_stored_rows_are_the_peaks_a_chip_has():
    assert PEAK_KEYS == tuple(Peaks.model_fields)
    assert PRECISIONS == ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8")


def test_units_and_tensor_flags():
    assert peak_unit("int8") == "OP/s" and peak_unit("bf16_tensor") == "FLOP/s"
    assert is_tensor("fp8_tensor") and not is_tensor("fp32") and not is_tensor("int8")


def test_fallbacks_never_go_to_a_lower_precision():
    for row in FORMAT_BY_KEY.values():
        for key in row.fallbacks:
            assert FORMAT_BY_KEY[key].bytes_per_value >= row.bytes_per_value, (row.key, key)
            assert FORMAT_BY_KEY[key].stored, (row.key, key)
