"""Method 2 (chips × time × peak × utilization) and the peak it uses (format, tensor cores, fallback,
mixed split, unknown hardware). Expected values are worked out in the test from published inputs."""
from __future__ import annotations

import csv
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.method2.run import estimate_method2, resolve_peak
from engine.method2.precision import effective_peak_flop_per_s

from tests.conftest import SHARED  # noqa: E402
OPENAI_CSV = SHARED / "data" / "openai_ai_and_compute.csv"
DAY_S = 86_400

# --- OpenAI "AI and Compute" appendix: every method-2 calculation -------------------------------------
# The published inputs, written out: GPUs, days, the per-GPU peak OpenAI used (as a custom peak),
# utilization; then the published results: petaFLOP ("PF", 1e15 FLOP) and pfs-days; and fragments of
# the calculation as printed, to tie each row to the CSV.
OPENAI_METHOD2 = [
    ("Dropout", 1, 4, 1.54e12, 0.33, 184, 0.0021, ("1 GPU", "4 days", "1.54 TFLOPS", "0.33")),
    ("Visualizing and Understanding Conv Nets", 1, 12, 1.54e12, 0.33, 532, 0.0062,
     ("1 GPU", "12 days", "1.54 TFLOPS", "0.33")),
    ("AlexNet", 2, 5.5, 1.58e12, 0.33, 500, 0.0058, ("2 GPUs", "1.58e-3 PF/GTX580", "5.5 days", "0.33")),
    ("Seq2Seq", 8, 10, 3.5e12, 0.33, 8_100, 0.093, ("10 days", "8 GPUs", "3.5 TFLOPS/K20", "0.33")),
    ("VGG", 4, 15, 5.1e12, 0.33, 10_000, 0.12, ("4 Titan Black", "15 days", "5.1 TFLOPS", "0.33")),
    ("DeepSpeech2", 16, 5, 6e12, 0.50, 21_000, 0.25, ("16 TitanX", "5 days", "6 TFLOPS", "0.50")),
    ("Xception", 60, 30, 8.5e12, 0.33, 4.5e5, 5.0, ("60 K80", "30 days", "8.5 TFLOPS", "0.33")),
    ("Neural Architecture Search", 800, 28, 4.2e12, 0.33, 2.8e6, 31, ("800 K40", "28 days", "4.2 TFLOPS", "0.33")),
]
# OpenAI's own arithmetic is loose: the product of its printed inputs is within 5% of its printed
# result for seven rows. VGG is the exception: 4 × 15 × 5.1 TFLOP/s × 0.33 = 101 TFLOP/s-days =
# 0.101 pfs-days (8,725 PF), printed as 10,000 PF = 0.12 pfs-days.
PUBLISHED_SLIP = {"VGG": 0.101}


@pytest.mark.parametrize("system, gpus, days, peak, utilization, published_pf, published_pfs_days, printed",
                         OPENAI_METHOD2, ids=[row[0] for row in OPENAI_METHOD2])
def test_openai_appendix_method2_reproduced(system, gpus, days, peak, utilization, published_pf,
                                            published_pfs_days, printed):
    estimate = estimate_method2({"peak_flop_per_s": peak, "chip_count": gpus, "duration": days,
                                 "duration_unit": "days", "utilization": utilization})
    by_hand = gpus * days * DAY_S * peak * utilization
    assert estimate.training_flop == pytest.approx(by_hand, rel=1e-12)
    assert estimate.pfs_days == pytest.approx(by_hand / 8.64e19, rel=1e-12)
    if system in PUBLISHED_SLIP:
        assert estimate.pfs_days == pytest.approx(PUBLISHED_SLIP[system], rel=5e-3)
        assert published_pfs_days / estimate.pfs_days == pytest.approx(1.19, rel=0.01)
    else:
        assert estimate.training_flop / 1e15 == pytest.approx(published_pf, rel=0.05)
        assert estimate.pfs_days == pytest.approx(published_pfs_days, rel=0.05)


def test_openai_csv_rows_match_the_inputs_written_here():
    if not OPENAI_CSV.is_file():
        pytest.skip("../shared/data/openai_ai_and_compute.csv is not here")
    with OPENAI_CSV.open(encoding="utf-8-sig") as handle:
        rows = [r for r in csv.DictReader(handle) if r["method"].startswith("method 2")]
    by_system = {r["system"]: r for r in rows}
    written = {row[0] for row in OPENAI_METHOD2}
    # every method-2 row of the appendix is here, except GNMT (its extra sqrt(10 × 100) data factor)
    assert set(by_system) - written == {"Neural Machine Translation (GNMT)"}
    for system, gpus, days, peak, utilization, _, published_pfs_days, printed in OPENAI_METHOD2:
        row = by_system[system]
        assert float(row["pfs_days"]) == published_pfs_days
        for fragment in printed:
            assert fragment in row["calculation"], (system, fragment)
        estimate = estimate_method2({"peak_flop_per_s": peak, "chip_count": gpus, "duration": days,
                                     "utilization": utilization})
        tolerance = 0.2 if system in PUBLISHED_SLIP else 0.05
        assert estimate.training_flop == pytest.approx(float(row["flop"]), rel=tolerance)


# --- time units -----------------------------------------------------------------------------------------

def test_gpu_days_chip_hours_and_wall_clock_agree():
    # The seed: 5 days on 4 GPUs = 20 GPU-days.
    base = {"peak_flop_per_s": 1e13, "utilization": 0.3}
    wall = estimate_method2({**base, "chip_count": 4, "duration": 5, "duration_unit": "days"})
    hours = estimate_method2({**base, "chip_count": 4, "duration": 120, "duration_unit": "hours"})
    gpu_days = estimate_method2({**base, "duration": 20, "duration_unit": "gpu_days"})
    chip_hours = estimate_method2({**base, "chip_count": 4, "duration": 480, "duration_unit": "chip_hours"})
    expected = 20 * DAY_S * 1e13 * 0.3
    for estimate in (wall, hours, gpu_days, chip_hours):
        assert estimate.training_flop == pytest.approx(expected, rel=1e-12)
        assert estimate.chip_hours == pytest.approx(480)
    assert wall.wall_clock_hours == 120 and chip_hours.wall_clock_hours == pytest.approx(120)
    assert gpu_days.wall_clock_hours is None  # no chip count: wall-clock time unknown


def test_utilization_range_gives_a_flop_range():
    estimate = estimate_method2({"peak_flop_per_s": 1e14, "chip_count": 10, "duration": 1, "utilization": 0.3,
                                 "utilization_low": 0.25, "utilization_high": 0.62})
    chip_peak = 10 * DAY_S * 1e14
    assert estimate.training_flop_low == pytest.approx(chip_peak * 0.25)
    assert estimate.training_flop_high == pytest.approx(chip_peak * 0.62)
    assert estimate.pfs_days_high == pytest.approx(chip_peak * 0.62 / 8.64e19)


@pytest.mark.parametrize("preset, value", [("openai-gpu", 0.33), ("openai-cpu", 0.17), ("epoch-llm", 0.30),
                                           ("epoch-other", 0.40)])
def test_utilization_presets_by_name(preset, value):
    estimate = estimate_method2({"peak_flop_per_s": 1e12, "chip_count": 1, "duration": 1, "utilization": preset})
    assert estimate.utilization == value
    assert estimate.training_flop == pytest.approx(DAY_S * 1e12 * value)


# --- the peak: format and tensor cores ---------------------------------------------------------------------

H100 = "nvidia-h100-sxm"


@pytest.mark.parametrize("precision, tensor_cores, key, expected", [
    ("bf16", True, "bf16_tensor", 989.4e12),   # H100 SXM datasheet: 1,979 with sparsity
    ("fp16", True, "fp16_tensor", 989.4e12),
    ("fp16", False, "fp16", 133.8e12),         # Hopper whitepaper, non-tensor FP16
    ("tf32", True, "tf32_tensor", 494.7e12),
    ("fp8", True, "fp8_tensor", 1978.9e12),
    ("fp32", False, "fp32", 67e12),
    ("fp32", True, "fp32", 67e12),             # tensor-core FP32 is TF32: fp32 stays the vector peak
    ("fp64", True, "fp64_tensor", 67e12),
    ("fp64", False, "fp64", 34e12),
    ("int8", True, "int8", 1978.9e12),
])
def test_format_selects_the_peak(precision, tensor_cores, key, expected):
    peak = resolve_peak({"chip": H100, "precision": precision, "tensor_cores": tensor_cores})
    assert peak.parts[0].peak_key == key
    assert peak.peak_flop_per_s == pytest.approx(expected, rel=1e-3)
    assert peak.tensor_cores == key.endswith("_tensor")
    assert peak.fallback_used is False
    assert peak.unit == ("OP/s" if precision == "int8" else "FLOP/s")


def test_method2_states_the_peak_it_used():
    estimate = estimate_method2({"chip": "H100", "precision": "bf16", "chip_count": 1024, "duration": 30,
                                 "utilization": 0.4})
    assert estimate.peak.peak_flop_per_s == pytest.approx(989.4e12, rel=1e-3)
    assert estimate.peak.precision == "bf16" and estimate.peak.tensor_cores is True
    assert estimate.peak.chip_id == H100
    assert estimate.training_flop == pytest.approx(1024 * 30 * DAY_S * 989.4e12 * 0.4, rel=1e-3)


@pytest.mark.parametrize("chip, precision, tensor_cores", [
    ("V100", "bf16", True),     # Volta tensor cores are FP16-only
    ("A100", "fp8", True),      # Ampere has no FP8
    ("P100", "fp16", True),     # no tensor cores at all
    ("TPU v4", "fp32", True),   # TPUs publish BF16/INT8 only
    ("H100", "tf32", False),    # TF32 exists only on tensor cores
])
def test_a_format_the_chip_lacks_is_an_error_naming_the_field(chip, precision, tensor_cores):
    with pytest.raises(InputError) as info:
        resolve_peak({"chip": chip, "precision": precision, "tensor_cores": tensor_cores})
    assert info.value.field == "precision"
    assert f"no {precision} peak" in str(info.value)


@pytest.mark.parametrize("chip, precision, used_key, used_value", [
    ("V100", "bf16", "fp16_tensor", 125e12),   # the same 16-bit tensor cores
    ("A100", "fp8", "fp16_tensor", 312e12),    # FP8 work runs at 16-bit on Ampere
    ("K80", "fp16", "fp32", 8.73e12),          # Kepler computes FP16 in FP32 units
])
def test_explicit_fallback_is_flagged(chip, precision, used_key, used_value):
    peak = resolve_peak({"chip": chip, "precision": precision, "allow_fallback": True})
    assert peak.fallback_used is True
    assert peak.parts[0].peak_key == used_key
    assert peak.peak_flop_per_s == pytest.approx(used_value, rel=1e-3)
    assert f"no {precision} peak" in peak.fallbacks[0] and "fallback" in peak.fallbacks[0]


def test_fp64_never_falls_back_to_a_faster_format():
    with pytest.raises(InputError) as info:
        resolve_peak({"chip": "TPU v4", "precision": "fp64", "allow_fallback": True})
    assert info.value.field == "precision"


# --- mixed precision -----------------------------------------------------------------------------------------

def test_mixed_split_by_work_is_the_harmonic_combination():
    # A100: 90% of the FLOP in BF16 tensor (312 TFLOP/s), 10% in FP32 (19.5 TFLOP/s).
    # Time per FLOP W: 0.9W/312e12 + 0.1W/19.5e12 → effective peak = 1 / (0.9/312e12 + 0.1/19.5e12)
    # = 124.8 TFLOP/s: the slow 10% takes 64% of the time.
    peak = resolve_peak({"chip": "A100", "mixed_precision": {"bf16": 0.9, "fp32": 0.1}})
    assert peak.peak_flop_per_s == pytest.approx(124.8e12, rel=1e-4)
    assert peak.precision == "mixed" and peak.split_basis == "work"
    assert {p.peak_key: p.fraction for p in peak.parts} == {"bf16_tensor": 0.9, "fp32": 0.1}
    assert peak.tensor_cores is False  # not all of the run was on tensor cores


def test_mixed_split_by_time_is_the_seeds_a_count1_plus_b_count2():
    # 90% of the time at 312 TFLOP/s, 10% at 19.5: 0.9 × 312 + 0.1 × 19.5 = 282.75 TFLOP/s
    peak = resolve_peak({"chip": "A100", "mixed_precision": {"bf16": 0.9, "fp32": 0.1}, "split_basis": "time"})
    assert peak.peak_flop_per_s == pytest.approx(282.75e12, rel=1e-6)


def test_effective_peak_of_one_format_is_that_peak():
    assert effective_peak_flop_per_s([(1.0, 5e13)], "work") == pytest.approx(5e13)
    assert effective_peak_flop_per_s([(1.0, 5e13)], "time") == pytest.approx(5e13)


def test_mixed_estimate_equals_the_sum_of_its_parts_by_work():
    run = {"chip": "A100", "mixed_precision": {"bf16": 0.75, "fp32": 0.25}, "chip_count": 8, "duration": 2,
           "utilization": 0.5}
    estimate = estimate_method2(run)
    # The FLOP done: chip-seconds × u split so that 75% of it ran at 312e12 and 25% at 19.5e12.
    chip_seconds = 8 * 2 * DAY_S * 0.5
    time_per_flop = 0.75 / 312e12 + 0.25 / 19.5e12
    assert estimate.training_flop == pytest.approx(chip_seconds / time_per_flop, rel=1e-9)


@pytest.mark.parametrize("split, field", [
    ({"bf16": 0.5, "fp32": 0.4}, "mixed_precision"),
    ({"bf16": 1.2, "fp32": -0.2}, "mixed_precision.bf16"),
    ({"bf16": 0.9, "fp8": 0.1}, "mixed_precision.fp8"),   # A100 has no FP8
    ({"int4": 1.0}, "mixed_precision"),  # the reason quotes 'int4'
])
def test_bad_mixed_split(split, field):
    with pytest.raises(InputError) as info:
        resolve_peak({"chip": "A100", "mixed_precision": split})
    assert info.value.field == field


# --- a user-defined chip works like a database chip ----------------------------------------------------------

def test_custom_chip_gives_its_peaks_and_fallbacks():
    chip = {"name": "My NPU", "peaks": {"bf16_tensor": 4e14, "fp32": 2e13}, "tdp_w": 300}
    estimate = estimate_method2({"custom_chip": chip, "precision": "bf16", "chip_count": 16, "duration": 48,
                                 "duration_unit": "hours", "utilization": 0.35})
    assert estimate.training_flop == pytest.approx(16 * 48 * 3600 * 4e14 * 0.35)
    assert estimate.peak.hardware_name == "My NPU" and estimate.peak.hardware_kind == "custom_chip"
    with pytest.raises(InputError) as info:
        resolve_peak({"custom_chip": chip, "precision": "fp8"})
    assert info.value.field == "precision"
    fallback = resolve_peak({"custom_chip": chip, "precision": "fp8", "allow_fallback": True})
    assert fallback.peak_flop_per_s == 4e14 and fallback.fallback_used


@pytest.mark.parametrize("field, value", [("tdp_w", 1e308), ("tdp_w", 2e7), ("price_usd_per_hour", 1e308)])
def test_a_custom_chips_power_and_price_are_bounded(field, value):
    """A custom chip of 1e308 W or 1e308 USD an hour made the energy, CO₂ and cost inf."""
    chip = {"name": "My NPU", "peaks": {"bf16_tensor": 4e14}, field: value}
    with pytest.raises(InputError) as info:
        estimate_method2({"custom_chip": chip, "precision": "bf16", "chip_count": 16, "duration": 48,
                          "duration_unit": "hours", "utilization": 0.35})
    assert field in str(info.value) and "\n" not in str(info.value)


# --- bad input: each a clear error naming the field --------------------------------------------------------------

GOOD = {"chip": "A100", "precision": "bf16", "chip_count": 8, "duration": 10, "utilization": 0.3}


@pytest.mark.parametrize("change, field", [
    ({"chip_count": 0}, "chip_count"),
    ({"chip_count": -4}, "chip_count"),
    ({"chip_count": math.inf}, "chip_count"),
    ({"duration": 0}, "duration"),
    ({"duration": -1}, "duration"),
    ({"duration": math.nan}, "duration"),
    ({"utilization": 1.5}, "utilization"),
    ({"utilization": 0}, "utilization"),
    ({"utilization": -0.2}, "utilization"),
    ({"utilization": math.nan}, "utilization"),
    ({"utilization": "most of it"}, "utilization"),
    ({"utilization_low": 0.5}, "utilization_low"),
    ({"utilization_high": 0.1}, "utilization_high"),
    ({"chip": "Z9000"}, "chip"),
    ({"precision": "int4"}, "precision"),
    ({"duration_unit": "weeks"}, "duration_unit"),
    ({"chip_count": None}, "chip_count"),                  # wall-clock days need a chip count
    ({"peak_flop_per_s": 1e14}, "chip"),                   # two hardware sources
    ({"chip": None, "peak_flop_per_s": math.nan}, "peak_flop_per_s"),
    ({"chip": None, "peak_flop_per_s": -1e12}, "peak_flop_per_s"),
    ({"price_usd_per_chip_hour": -1}, "price_usd_per_chip_hour"),
    ({"pue": 0.8}, "pue"),
    ({"surprise": 1}, "surprise"),
])
def test_bad_input_names_the_field(change, field):
    run = {**GOOD, **change}
    run = {k: v for k, v in run.items() if v is not None}
    with pytest.raises(InputError) as info:
        estimate_method2(run)
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_input_error_is_one_line_field_colon_reason():
    with pytest.raises(InputError) as info:
        estimate_method2({**GOOD, "utilization": 2})
    assert str(info.value).startswith("utilization: ")


# --- properties ------------------------------------------------------------------------------------------------

_peaks = st.floats(min_value=1e9, max_value=1e16)
_fractions = st.floats(min_value=0.01, max_value=0.99)


@settings(max_examples=60, deadline=None)
@given(chips=st.integers(1, 100_000), days=st.floats(0.01, 1000), u=st.floats(0.01, 1.0), peak=_peaks)
def test_flop_is_chips_times_seconds_times_peak_times_utilization(chips, days, u, peak):
    estimate = estimate_method2({"peak_flop_per_s": peak, "chip_count": chips, "duration": days,
                                 "utilization": u})
    assert estimate.training_flop == pytest.approx(chips * days * DAY_S * peak * u, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(a=_peaks, b=_peaks, f=_fractions)
def test_work_split_peak_lies_between_the_parts_and_below_the_time_split(a, b, f):
    by_work = effective_peak_flop_per_s([(f, a), (1 - f, b)], "work")
    by_time = effective_peak_flop_per_s([(f, a), (1 - f, b)], "time")
    assert min(a, b) * (1 - 1e-12) <= by_work <= max(a, b) * (1 + 1e-12)
    assert by_work <= by_time * (1 + 1e-12)  # weighted harmonic mean ≤ weighted arithmetic mean
