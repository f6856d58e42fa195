"""``python -m engine chips`` / ``hardware``: JSON out, or exit 2 with one line naming the field."""
from __future__ import annotations

import json

import pytest

from tests.cli import cli

DAY_S = 86_400


def run(*args):
    return cli(*args)


def ok(*args) -> dict | list:
    out = run(*args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_chips_lists_every_chip_with_id_name_and_release_date():
    chips = ok("chips")
    assert len(chips) >= 40
    assert len({c["id"] for c in chips}) == len(chips)
    for chip in chips:
        assert chip["id"] and chip["name"] and chip["release_date"]
    h100 = next(c for c in chips if c["id"] == "nvidia-h100-sxm")
    assert h100["peaks_flop_per_s"]["bf16_tensor"] == pytest.approx(989.4e12)  # dense (1,979 sparse ÷ 2)


def test_chips_filters_by_year():
    chips = ok("chips", "--year", "2017")
    assert chips and all(c["release_date"].startswith("2017") for c in chips)


def test_chips_filters_by_vendor_and_refuses_one_it_does_not_know():
    """An unknown vendor listed nothing with exit 0, as if the database held none of its chips."""
    amd = ok("chips", "--vendor", "amd")
    assert amd and all(c["id"].startswith("amd-") for c in amd)
    out = run("chips", "--vendor", "Foo")
    assert out.returncode == 2 and out.stderr.startswith("error: vendor: 'Foo' makes no chip of the database (its "
                                                         "vendors: AMD, "), out.stderr


def test_hardware_with_a_database_chip():
    data = ok("hardware", "--chip", "H100", "--count", "8", "--days", "10", "--utilization", "0.4",
              "--precision", "bf16", "--price", "2.5")
    assert data["training_flop"] == pytest.approx(8 * 10 * DAY_S * 989.4e12 * 0.4)
    assert data["pfs_days"] == pytest.approx(8 * 10 * DAY_S * 989.4e12 * 0.4 / 8.64e19)
    assert data["peak_flop_per_s"] == pytest.approx(989.4e12)
    assert data["precision"] == "bf16" and data["tensor_cores"] is True
    assert data["chip"] == "nvidia-h100-sxm" and data["fallback"] is None
    assert data["cost_usd"] == pytest.approx(8 * 240 * 2.5)                 # 4,800 USD
    assert data["energy_kwh"] == pytest.approx(8 * 240 * 0.7 * 1.1)         # 700 W, PUE 1.1
    assert data["co2_kg"] == pytest.approx(8 * 240 * 0.7 * 1.1 * 0.48)


def test_hardware_with_a_custom_peak_reproduces_alexnet():
    # OpenAI: 2 GPUs × 1.58e-3 PF/GTX580 × 5.5 days × 0.33 = 500 PF = 0.0058 pfs-days
    data = ok("hardware", "--peak", "1.58e12", "--count", "2", "--days", "5.5", "--utilization", "0.33")
    assert data["training_flop"] == pytest.approx(2 * 1.58e12 * 5.5 * DAY_S * 0.33)
    assert data["training_flop"] / 1e15 == pytest.approx(500, rel=0.01)
    assert data["cost_usd"] is None and data["energy_kwh"] is None  # a bare peak has no price or TDP


def test_no_tensor_cores_uses_the_non_tensor_peak():
    data = ok("hardware", "--chip", "V100", "--count", "1", "--hours", "1", "--utilization", "0.5",
              "--precision", "fp16", "--no-tensor-cores")
    assert data["tensor_cores"] is False
    assert data["peak_flop_per_s"] == pytest.approx(31.4e12)  # Volta whitepaper: 2 × FP32
    assert data["training_flop"] == pytest.approx(3600 * 31.4e12 * 0.5)


def test_chip_hours_gpu_days_and_a_preset():
    by_chip_hours = ok("hardware", "--chip", "A100", "--chip-hours", "480", "--utilization", "openai-gpu",
                       "--precision", "bf16")
    by_gpu_days = ok("hardware", "--chip", "A100", "--gpu-days", "20", "--utilization", "0.33",
                     "--precision", "bf16")
    assert by_chip_hours["training_flop"] == pytest.approx(480 * 3600 * 312e12 * 0.33)
    assert by_gpu_days["training_flop"] == pytest.approx(by_chip_hours["training_flop"])


def test_fallback_is_visible_in_the_output():
    data = ok("hardware", "--chip", "V100", "--count", "8", "--days", "1", "--utilization", "0.3",
              "--precision", "bf16", "--allow-fallback")
    assert data["fallback_used"] is True
    assert "no bf16 peak" in data["fallback"]
    assert data["peak_flop_per_s"] == pytest.approx(125e12)


def test_mixed_split_and_utilization_range():
    data = ok("hardware", "--chip", "A100", "--count", "8", "--days", "1", "--utilization", "0.3",
              "--utilization-low", "0.25", "--utilization-high", "0.5", "--mixed", "bf16=0.9,fp32=0.1")
    assert data["precision"] == "mixed"
    assert data["peak_flop_per_s"] == pytest.approx(1 / (0.9 / 312e12 + 0.1 / 19.5e12))
    assert data["training_flop_low"] == pytest.approx(data["training_flop"] * 0.25 / 0.3)


@pytest.mark.parametrize("args, field", [
    (["--chip", "A100", "--count", "0", "--days", "1", "--utilization", "0.3"], "chip_count"),
    (["--chip", "A100", "--count", "-2", "--days", "1", "--utilization", "0.3"], "chip_count"),
    (["--chip", "A100", "--count", "8", "--days", "0", "--utilization", "0.3"], "duration"),
    (["--chip", "A100", "--count", "8", "--days", "nan", "--utilization", "0.3"], "duration"),
    (["--chip", "A100", "--count", "8", "--days", "1", "--utilization", "1.5"], "utilization"),
    (["--chip", "A100", "--count", "8", "--days", "1", "--utilization", "nan"], "utilization"),
    (["--chip", "Z9000", "--count", "8", "--days", "1", "--utilization", "0.3"], "chip"),
    (["--chip", "A100", "--count", "8", "--days", "1", "--utilization", "0.3", "--precision", "fp4"],
     "precision"),
    (["--chip", "V100", "--count", "8", "--days", "1", "--utilization", "0.3", "--precision", "bf16"],
     "precision"),
    (["--chip", "A100", "--count", "8", "--days", "1", "--utilization", "0.3", "--precision", "fp8"],
     "precision"),
    (["--chip", "A100", "--days", "1", "--utilization", "0.3"], "chip_count"),
    (["--count", "8", "--days", "1", "--utilization", "0.3"], "arguments"),
    (["--chip", "A100", "--count", "many", "--days", "1", "--utilization", "0.3"], "arguments"),
    (["--chip", "A100", "--count", "8", "--days", "1", "--mixed", "bf16=0.9,bf16=0.1"], "mixed_precision"),
])
def test_bad_input_exits_2_with_one_line_naming_the_field(args, field):
    out = run("hardware", *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert lines[0].startswith(f"error: {field}: ")


# --- one default format per chip, the same as the dashboard's -----------------------------------------------

@pytest.mark.parametrize("chip, peak, note", [
    ("H200", 1979e12 / 2, "assumed BF16 tensor"),   # H200 datasheet: BF16 1,979 with sparsity
    ("TPU v4", 275e12, "assumed BF16 tensor"),      # cloud.google.com/tpu/docs/v4
    ("V100", 125e12, "assumed FP16 tensor"),        # V100 SXM2 datasheet
    ("GTX 580", 512 * 1544e6 * 2, "assumed FP32"),  # 512 cores × 1544 MHz × 2
])
def test_hardware_without_precision_uses_the_chips_default_and_says_so(chip, peak, note):
    data = ok("hardware", "--chip", chip, "--count", "8", "--days", "1", "--utilization", "0.4")
    assert data["training_flop"] == pytest.approx(8 * DAY_S * peak * 0.4, rel=2e-3)
    assert data["format_note"] == f"{note}; set --precision to change"


def test_hardware_with_precision_has_no_format_note():
    data = ok("hardware", "--chip", "H200", "--count", "8", "--days", "1", "--utilization", "0.4",
              "--precision", "fp32")
    assert data["format_note"] is None and data["training_flop"] == pytest.approx(8 * DAY_S * 67e12 * 0.4, rel=2e-3)


def test_unknown_hardware_by_year_and_class():
    dc = ok("hardware", "--year", "2011", "--count", "8", "--days", "1", "--utilization", "0.33")
    ws = ok("hardware", "--year", "2011", "--class", "workstation_consumer", "--count", "8", "--days", "1",
            "--utilization", "0.33")
    for data in (dc, ws):
        peak = data["peak"]
        assert peak["hardware_kind"] == "year_trend" and data["format_note"] == "assumed FP32; set --precision to change"
        assert peak["peak_low_flop_per_s"] < peak["peak_flop_per_s"] < peak["peak_high_flop_per_s"]
        assert data["training_flop"] == pytest.approx(8 * DAY_S * peak["peak_flop_per_s"] * 0.33)
    assert dc["peak"]["peak_flop_per_s"] != ws["peak"]["peak_flop_per_s"]


@pytest.mark.parametrize("args, field", [
    (["--year", "2007"], "year"), (["--year", "2020", "--class", "gaming"], "arguments"),
    (["--chip", "Quadro RTX 4500"], "chip"),
])
def test_unknown_hardware_bad_input_is_one_line(args, field):
    out = run("hardware", *args, "--count", "8", "--days", "1", "--utilization", "0.3")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith(f"error: {field}: ")
