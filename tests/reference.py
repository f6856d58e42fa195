"""Figures the tests share, each worked out here from its formula (never from the engine).

Epoch AI's worked example (Sevilla et al. 2022): sequences of 20 images 400×400×5 → CNN 16 filters
5×5, stride 2, padding 2 → 200×200×16 → LSTM 256 → FC 10; 10 epochs × 100 batches × 128 sequences.
"""
from __future__ import annotations

import statistics

EPOCH_EXAMPLE = {"input": {"shape": [400, 400, 5], "sequence_length": 20},
                 "layers": [{"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
                            {"type": "flatten"}, {"type": "lstm", "units": 256}, {"type": "dense", "units": 10}],
                 "training": {"epochs": 10, "batches_per_epoch": 100, "batch_size": 128}}

CONV_FLOP = 2 * 200 * 200 * 16 * 125             # 2·H′·W′·D·K²·C per image
LSTM_FLOP = 8 * (640_000 * 256 + 256 ** 2)       # 8·(N·M + M²) per step (matmul: no bias adds)
FC_FLOP = 2 * 256 * 10                            # 2·N·M per sequence
EPOCH_EXAMPLE_FORWARD = 20 * (CONV_FLOP + LSTM_FLOP) + FC_FLOP
EPOCH_EXAMPLE_PARAMS = (16 * 5 * 5 * 5 + 16) + 4 * (640_000 * 256 + 256 ** 2 + 2 * 256) + (256 * 10 + 10)
EPOCH_EXAMPLE_TRAINING = 3 * 128_000 * EPOCH_EXAMPLE_FORWARD  # (1 + r) × examples, r = 2

# Method 2's starting utilization: the median of the reported runs like the example (utilization_reports.csv,
# not held out, hardware-FLOPs figures × 3/4). The example's 8 A100s: A100-generation language models —
# PaLM .462, MT-NLG .302, Megatron-LM 1T .522·¾, OPT .471·¾, MegaScale .552, GLM-130B .325, BloombergGPT .327,
# GPT-NeoX .375·¾; 5th–95th percentile their 90% range.
REPORTED_A100_VALUES = [0.462, 0.302, 0.522 * 0.75, 0.471 * 0.75, 0.552, 0.325, 0.327, 0.375 * 0.75]
REPORTED_A100 = statistics.median(REPORTED_A100_VALUES)  # 0.340125
# Chips whose generation has fewer than 5 reports (V100, H100, B200, GTX 580…): every language model's report —
# those above, Gopher .325, GPT-3 .213, Nemotron-4 340B .41, Megatron-LM 8.3B .236, LaMDA .565·¾
REPORTED_LANGUAGE = statistics.median(REPORTED_A100_VALUES + [0.325, 0.213, 0.41, 0.236, 0.565 * 0.75])  # 0.327


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    values = sorted(values)
    at = q * (len(values) - 1)
    low = int(at)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (at - low)


def flop(text: str) -> float:
    """'1.13e16 FLOP' → 1.13e16 (a metric as the pages show it)."""
    assert text.endswith(" FLOP"), text
    return float(text.removesuffix(" FLOP"))


def metric(at, label: str) -> str:
    """The value of the AppTest metric called ``label``."""
    return next(m.value for m in at.metric if m.label == label)
