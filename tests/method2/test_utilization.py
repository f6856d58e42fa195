"""Utilization presets (with sources) and utilization measured from throughput (MFU)."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.method2.utilization import measured_utilization, utilization_presets


def test_presets_carry_their_published_values_and_sources():
    presets = {p.id: p for p in utilization_presets()}
    assert presets["openai-gpu"].utilization == 0.33 and presets["openai-cpu"].utilization == 0.17
    assert presets["epoch-llm"].utilization == 0.30 and presets["epoch-other"].utilization == 0.40
    assert "openai.com" in presets["openai-gpu"].url and "epoch.ai" in presets["epoch-llm"].url
    assert all(p.source for p in presets.values())


def test_palm_540b_mfu_is_reproduced():
    # PaLM (Chowdhery et al. 2022, Table 3 and App. B): 6144 TPU v4 chips, 238.3K tokens/s,
    # model FLOPs per token 6N + 12·L·H·Q·T with N = 540.35e9, L = 118, H = 48, Q = 256, T = 2048;
    # peak 275 TFLOP/s BF16 per chip → MFU 46.2%.
    flop_per_token = 6 * 540.35e9 + 12 * 118 * 48 * 256 * 2048
    result = measured_utilization({"chip": "TPU v4", "precision": "bf16", "chip_count": 6144,
                                   "training_flop_per_item": flop_per_token, "item": "token",
                                   "items_per_s": 238.3e3})
    assert round(result.mfu, 3) == 0.462
    assert result.achieved_flop_per_s == pytest.approx(238.3e3 * flop_per_token)
    assert result.achieved_flop_per_s_per_chip == pytest.approx(238.3e3 * flop_per_token / 6144)
    assert result.warnings == []


def test_step_time_with_batch_size_equals_samples_per_second():
    # 8 × V100 (FP16 tensor 125 TFLOP/s), ResNet-50: ~4.1 GFLOP forward × 3 per image,
    # batch 2048 images per 1.0 s step = 2048 images/s.
    common = {"chip": "V100", "precision": "fp16", "chip_count": 8, "training_flop_per_item": 3 * 4.1e9}
    by_step = measured_utilization({**common, "step_time_s": 1.0, "batch_size": 2048})
    by_rate = measured_utilization({**common, "items_per_s": 2048})
    assert by_step.mfu == pytest.approx(by_rate.mfu)
    assert by_step.mfu == pytest.approx(2048 * 3 * 4.1e9 / (8 * 125e12))


def test_impossible_mfu_is_flagged():
    result = measured_utilization({"peak_flop_per_s": 1e12, "chip_count": 1, "training_flop_per_item": 1e9,
                                   "items_per_s": 2000})
    assert result.mfu == pytest.approx(2.0)
    assert "above 100%" in result.warnings[0]


@pytest.mark.parametrize("change, field", [
    ({"items_per_s": None}, "step_time_s"),
    ({"items_per_s": None, "step_time_s": 1.0}, "batch_size"),
    ({"step_time_s": 1.0, "batch_size": 8}, "items_per_s"),
    ({"chip_count": 0}, "chip_count"),
    ({"training_flop_per_item": float("nan")}, "training_flop_per_item"),
    ({"items_per_s": -5}, "items_per_s"),
])
def test_bad_measurements_name_the_field(change, field):
    good = {"chip": "H100", "precision": "bf16", "chip_count": 8, "training_flop_per_item": 6 * 7e9,
            "item": "token", "items_per_s": 1e5}
    data = {k: v for k, v in {**good, **change}.items() if v is not None}
    with pytest.raises(InputError) as info:
        measured_utilization(data)
    assert info.value.field == field


def test_a_user_defined_chip_measures_like_a_database_chip():
    chip = {"name": "My NPU", "peaks": {"bf16_tensor": 4e14}}
    result = measured_utilization({"custom_chip": chip, "precision": "bf16", "chip_count": 2,
                                   "training_flop_per_item": 1e12, "items_per_s": 300})
    assert result.mfu == pytest.approx(300 * 1e12 / (2 * 4e14))   # 37.5%
