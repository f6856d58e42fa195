"""Every measured factor reproduces its source's row: the ratio of the two values the source printed (quoted below
from the source, not from factors.json), or the figure it printed."""
from __future__ import annotations

import pytest

from engine.compress.factors import DEFAULTS, chosen, factor, factors

# id → (baseline, treated, lower is better) as the sources print them, or the printed figure
SOURCE_ROWS = {
    # torchao quantization README, A100 table (tokens/s): Base 107.38 / 95.64; int4wo-64 201.14 / 180.80;
    # int8wo 170.83 / 153.03; int8dq 9.61 / 8.61
    "int4-weight-only-decode-b1-llama2-7b": (107.38, 201.14, False),
    "int4-weight-only-decode-b1-llama3-8b": (95.64, 180.80, False),
    "int8-weight-only-decode-b1-llama2-7b": (107.38, 170.83, False),
    "int8-weight-only-decode-b1-llama3-8b": (95.64, 153.03, False),
    "int8-dynamic-decode-b1-llama2-7b": (107.38, 9.61, False),
    "int8-dynamic-decode-b1-llama3-8b": (95.64, 8.61, False),
    # gpt-fast README (tokens/s): Base 104.9, 8-bit 155.58, 4-bit (G=32) 196.80
    "int8-weight-only-decode-b1-gpt-fast": (104.9, 155.58, False),
    "int4-weight-only-decode-b1-gpt-fast": (104.9, 196.80, False),
    # torchao sparsity/training README (µs): dense 11534.3, w24 9204.7, act24 11881.0
    "sparse24-training-vit-l-mlp": (11534.3, 9204.7, True),
    "sparse24-activations-vit-l-mlp": (11534.3, 11881.0, True),
    # PyTorch blog: "a wall time reduction of 6%"
    "sparse24-training-vit-l-e2e": (1.0, 0.94, True),
}
PRINTED = {"fp8-training-llama3-70b": 1.50, "fp8-training-rowwise-2k-h200-low": 1.34,
           "fp8-training-rowwise-2k-h200-high": 1.43, "fp8-training-llama3-8b-8gpu": 1.25,
           "mxfp8-training-llama4-scout-gb200": 1.302, "mxfp8-training-llama3-70b-b200-low": 1.22,
           "mxfp8-training-llama3-70b-b200-high": 1.28, "nvfp4-training-vs-bf16": 1.6,
           "structured-pruning-unsaturated-gpu": 1.1, "structured-pruning-yolov8-gpu": 1.0,
           "structured-pruning-yolov8-cpu": 1.59}


def test_every_factor_is_checked_here():
    assert set(factors()) == set(SOURCE_ROWS) | set(PRINTED)


@pytest.mark.parametrize("factor_id", sorted(SOURCE_ROWS))
def test_factor_is_the_ratio_of_its_source_row(factor_id):
    baseline, treated, lower = SOURCE_ROWS[factor_id]
    row = factor(factor_id)
    assert (row.baseline, row.treated, row.lower_is_better) == (baseline, treated, lower)
    expected = baseline / treated if lower else treated / baseline
    assert row.figure == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("factor_id", sorted(PRINTED))
def test_factor_is_the_figure_its_source_printed(factor_id):
    assert factor(factor_id).figure == PRINTED[factor_id]
    assert factor(factor_id).url.startswith("https://")


def test_the_headline_gaps():
    # FLOP and time part ways: the ideal (flop_ratio) against the measured figure
    assert factor("sparse24-training-vit-l-e2e").figure == pytest.approx(1.064, abs=1e-3)
    assert factor("int4-weight-only-decode-b1-llama2-7b").figure == pytest.approx(1.87, abs=0.01)
    assert 1 / factor("int8-dynamic-decode-b1-llama2-7b").figure == pytest.approx(11.17, abs=0.01)


def test_defaults_exist_and_overrides_win():
    assert all(factor(row) for row in DEFAULTS.values())
    assert chosen("fp8_training", 1.7) == (1.7, "given")
    value, source = chosen("fp8_training", None)
    assert value == 1.34 and "https://" in source
