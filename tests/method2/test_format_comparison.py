"""The same run in every format the chip has (the precision page's table)."""
import pytest

from engine.method2.format_comparison import compare_formats
from engine.method2.run import HardwareRun


def test_h100_formats():
    run = HardwareRun(chip="nvidia-h100-sxm", chip_count=8, duration=1, utilization=0.4, precision="bf16")
    rows = {r.peak_key: r for r in compare_formats(run, budget_flop=1e21)}
    # NVIDIA H100 SXM datasheet, dense: BF16 tensor 989.4 TFLOP/s, FP32 67 TFLOP/s; no FP8 fallback rows
    bf16 = rows["bf16_tensor"]
    assert bf16.training_flop == pytest.approx(8 * 86_400 * 989.4e12 * 0.4)
    assert bf16.hours_for_budget == pytest.approx(1e21 / (8 * 989.4e12 * 0.4) / 3600)
    assert rows["fp32"].hours_for_budget == pytest.approx(1e21 / (8 * 67e12 * 0.4) / 3600)
    assert len(rows) == len({r.peak_key for r in rows.values()})  # each peak listed once


def test_no_budget_no_time():
    run = HardwareRun(chip="nvidia-tesla-v100-sxm2", chip_count=1, duration=1, utilization=0.33)
    rows = compare_formats(run)
    assert all(r.hours_for_budget is None for r in rows)
    assert "bf16_tensor" not in {r.peak_key for r in rows}  # V100 has no BF16
