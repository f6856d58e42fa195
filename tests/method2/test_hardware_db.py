"""hardware_db.json: coverage, invariants, datasheet figures, the 2× sparse/dense trap, lookups.

Every expected figure below is written out from the vendor's datasheet (link beside it), or derived
from cores × clock × 2 in the comment; none is read back from the database.
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from engine.errors import InputError
from engine.method2.hardware_db import PEAK_KEYS, Chip, HardwareDB, Peaks, get_chip, load_hardware_db

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).resolve().parents[3] / "shared"
EPOCH_HARDWARE = SHARED / "data" / "epoch" / "epoch_ml_hardware.csv"


@pytest.fixture(scope="module")
def db() -> HardwareDB:
    return load_hardware_db()


# --- coverage -------------------------------------------------------------------------------------

# What users pick (the list), by a name a user would type.
REQUIRED_NAMES = [
    "GTX 580", "K20", "K40", "K80", "Titan Black", "Titan X (Maxwell)", "Titan X (Pascal)", "P100",
    "V100 SXM2", "V100 PCIe", "T4", "A100 40GB", "A100 80GB", "A10", "L4", "L40S", "H100 SXM",
    "H100 PCIe", "H200", "B200", "GB200", "TPU v2", "TPU v3", "TPU v4", "TPU v5e", "TPU v5p", "TPU v6e",
    "MI250X", "MI300X", "MI325X", "Gaudi 2", "Gaudi 3",
]


def test_at_least_40_accelerators_from_2010_to_2025_and_a_cpu(db):
    accelerators = [c for c in db.chips if c.kind != "cpu"]
    assert len(accelerators) >= 40
    years = {c.release_year for c in accelerators}
    assert min(years) == 2010 and max(years) == 2025
    assert all(2010 <= y <= 2025 for y in years)
    assert 1 <= sum(c.kind == "cpu" for c in db.chips) <= 2


@pytest.mark.parametrize("name", REQUIRED_NAMES)
def test_required_chip_is_present(db, name):
    assert db.find(name) is not None, name


def test_every_chip_has_https_sources_and_a_dated_release(db):
    for chip in db.chips:
        assert chip.source, chip.id
        assert all(url.startswith("https://") for url in chip.source), chip.id
        assert chip.release_date and 2010 <= chip.release_year <= 2025, chip.id


def test_prices_are_labelled_indicative_with_a_basis(db):
    priced = [c for c in db.chips if c.price_usd_per_hour is not None]
    assert len(priced) >= 10
    for chip in priced:
        assert chip.price_basis and chip.price_basis.startswith("indicative"), chip.id
    assert any("INDICATIVE" in line for line in db.conventions)


def test_peaks_positive_finite_and_tensor_at_least_vector(db):
    for chip in db.chips:
        peaks = chip.peaks.available()
        assert peaks, chip.id
        assert set(peaks) <= set(PEAK_KEYS)
        assert all(math.isfinite(v) and v > 0 for v in peaks.values()), chip.id
        for tensor, vector in (("fp16_tensor", "fp16"), ("fp64_tensor", "fp64")):
            if tensor in peaks and vector in peaks:
                assert peaks[tensor] >= peaks[vector], chip.id


def test_formats_a_chip_lacks_are_absent(db):
    # Volta tensor cores are FP16-only; Ampere has no FP8; pre-Volta chips have no tensor cores.
    v100 = get_chip("V100", db).peaks
    assert v100.bf16_tensor is None and v100.tf32_tensor is None and v100.fp8_tensor is None
    assert get_chip("A100", db).peaks.fp8_tensor is None
    for name in ("GTX 580", "K80", "P100", "Titan X (Maxwell)"):
        peaks = get_chip(name, db).peaks.available()
        assert not any(key.endswith("_tensor") for key in peaks), name


# --- datasheet figures ------------------------------------------------------------------------------

H100 = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
A100 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf")
V100 = ("https://images.nvidia.com/content/technologies/volta/pdf/"
        "volta-v100-datasheet-update-us-1165301-r5.pdf")
P100 = "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-datasheet.pdf"
K80 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-product-literature/"
       "Tesla-K80-BoardSpec-07317-001-v05.pdf")
T4 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"
      "t4-tensor-core-datasheet-951643.pdf")
L4 = "https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet"
TPU_V4 = "https://cloud.google.com/tpu/docs/v4"
TPU_V5E = "https://cloud.google.com/tpu/docs/v5e"
TPU_V6E = "https://cloud.google.com/tpu/docs/v6e"
MI300X = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"
MI250X = "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"
HGX = "https://www.nvidia.com/en-us/data-center/hgx/"
MI355X = "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html"
GAUDI3 = "https://www.intel.com/content/www/us/en/content-details/817486/intel-gaudi-3-ai-accelerator-white-paper.html"

DATASHEET_PEAKS = [
    # chip, peak key, dense figure (FLOP/s; OP/s for int8), where it is printed
    ("nvidia-h100-sxm", "bf16_tensor", 989.4e12, H100),     # 1,979 "with sparsity" ÷ 2 (whitepaper 989.4)
    ("nvidia-h100-sxm", "fp8_tensor", 1978.9e12, H100),     # 3,958 with sparsity ÷ 2
    ("nvidia-h100-sxm", "tf32_tensor", 494.7e12, H100),     # 989 with sparsity ÷ 2
    ("nvidia-h100-sxm", "fp32", 67e12, H100),
    ("nvidia-h100-sxm", "fp64", 34e12, H100),
    ("nvidia-a100-sxm4-40gb", "bf16_tensor", 312e12, A100),
    ("nvidia-a100-sxm4-40gb", "tf32_tensor", 156e12, A100),
    ("nvidia-a100-sxm4-40gb", "fp32", 19.5e12, A100),
    ("nvidia-a100-sxm4-40gb", "int8", 624e12, A100),
    ("nvidia-tesla-v100-sxm2", "fp16_tensor", 125e12, V100),
    ("nvidia-tesla-v100-sxm2", "fp32", 15.7e12, V100),
    ("nvidia-tesla-v100-pcie", "fp16_tensor", 112e12, V100),
    ("nvidia-tesla-p100-sxm2", "fp16", 21.2e12, P100),
    ("nvidia-tesla-p100-sxm2", "fp32", 10.6e12, P100),
    ("nvidia-tesla-k80", "fp32", 8.73e12, K80),             # with GPU Boost, per board
    ("nvidia-gtx-580", "fp32", 512 * 1544e6 * 2, "https://www.nvidia.com/docs/IO/100940/GeForce_GTX_580_Datasheet.pdf"),
    ("nvidia-t4", "fp16_tensor", 65e12, T4),
    ("nvidia-t4", "int8", 130e12, T4),
    ("nvidia-l4", "bf16_tensor", 242e12 / 2, L4),           # datasheet prints 242 with sparsity only
    ("google-tpu-v4", "bf16_tensor", 275e12, TPU_V4),
    ("google-tpu-v5e", "bf16_tensor", 197e12, TPU_V5E),
    ("google-tpu-v6e", "bf16_tensor", 918e12, TPU_V6E),
    ("amd-instinct-mi300x", "bf16_tensor", 1307.4e12, MI300X),
    ("amd-instinct-mi300x", "fp8_tensor", 2614.9e12, MI300X),
    ("amd-instinct-mi250x", "bf16_tensor", 383e12, MI250X),
    ("intel-gaudi-3", "bf16_tensor", 1835e12, GAUDI3),
    ("intel-gaudi-2", "bf16_tensor", 432e12, GAUDI3),       # the white paper's / Hot Chips 2024 generations table
    ("nvidia-b200", "fp32", 75e12, HGX),                    # per-GPU table, HGX B200 column
    ("nvidia-b200", "fp64", 37e12, HGX),
    ("nvidia-b200", "tf32_tensor", 2.2e15 / 2, HGX),        # printed with sparsity
    ("nvidia-gb200", "fp32", 80e12, HGX),                   # per-GPU table, GB200 NVL72 column
    ("nvidia-gb200", "fp64", 40e12, HGX),
    ("amd-instinct-mi355x", "fp8_tensor", 256 * 2.4e9 * 8192, MI355X),  # CUs × clock × FP8 FLOP/CU/clock (ISSCC 2026)
]


@pytest.mark.parametrize("chip_id, key, expected, link", DATASHEET_PEAKS)
def test_peak_matches_datasheet(db, chip_id, key, expected, link):
    chip = db.chip(chip_id)
    assert chip.peaks.get(key) == pytest.approx(expected, rel=2e-3), (chip_id, key, link)


def test_datasheet_table_covers_at_least_ten_chips():
    assert len({row[0] for row in DATASHEET_PEAKS}) >= 10


# --- the 2× sparse/dense trap -------------------------------------------------------------------------

SPARSE_FIGURES = [
    # chip, peak key, the datasheet's "with sparsity" figure (never to be stored)
    ("nvidia-h100-sxm", "bf16_tensor", 1979e12),
    ("nvidia-h100-sxm", "fp16_tensor", 1979e12),
    ("nvidia-h100-sxm", "tf32_tensor", 989e12),
    ("nvidia-h100-sxm", "fp8_tensor", 3958e12),
    ("nvidia-h100-sxm", "int8", 3958e12),
    ("nvidia-h100-pcie", "bf16_tensor", 1513e12),
    ("nvidia-h200-sxm", "fp8_tensor", 3958e12),
    ("nvidia-a100-sxm4-80gb", "bf16_tensor", 624e12),
    ("nvidia-a100-sxm4-80gb", "tf32_tensor", 312e12),
    ("nvidia-a100-sxm4-80gb", "int8", 1248e12),
    ("nvidia-a10", "bf16_tensor", 250e12),
    ("nvidia-l4", "fp8_tensor", 485e12),
    ("nvidia-l40s", "bf16_tensor", 733e12),
    ("nvidia-b200", "bf16_tensor", 4.5e15),
    ("nvidia-gb200", "fp8_tensor", 10e15),
    ("amd-instinct-mi300x", "bf16_tensor", 2614.9e12),
]


@pytest.mark.parametrize("chip_id, key, sparse", SPARSE_FIGURES)
def test_stored_peak_is_half_the_sparse_figure_never_the_sparse_one(db, chip_id, key, sparse):
    stored = db.chip(chip_id).peaks.get(key)
    # 1.5%: the L40S datasheet's own dense column (362.05) is 1.2% below its sparse 733 ÷ 2
    assert stored == pytest.approx(sparse / 2, rel=0.015)
    assert not math.isclose(stored, sparse, rel_tol=0.1)


def test_notes_say_when_a_datasheet_prints_sparse_figures(db):
    for chip_id in {row[0] for row in SPARSE_FIGURES}:
        assert "sparse" in db.chip(chip_id).notes.lower().replace("sparsity", "sparse"), chip_id


# --- cross-check with Epoch AI's hardware data (dense peaks) ----------------------------------------

TENSOR16 = "Tensor-FP16/BF16 performance (FLOP/s)"
FP32 = "FP32 (single precision) performance (FLOP/s)"
EPOCH_PAIRS = [
    # our id, Epoch's "Hardware name", Epoch column, our key
    ("nvidia-h100-sxm", "NVIDIA H100 SXM5 80GB", TENSOR16, "bf16_tensor"),
    ("nvidia-a100-sxm4-40gb", "NVIDIA A100 SXM4 40 GB", TENSOR16, "bf16_tensor"),
    ("nvidia-tesla-v100-sxm2", "NVIDIA Tesla V100 SXM2", TENSOR16, "fp16_tensor"),
    ("nvidia-h200-sxm", "NVIDIA H200 SXM", TENSOR16, "bf16_tensor"),
    ("nvidia-b200", "NVIDIA B200", TENSOR16, "bf16_tensor"),
    ("nvidia-gb200", "NVIDIA GB200", TENSOR16, "bf16_tensor"),
    ("nvidia-l4", "NVIDIA L4", TENSOR16, "bf16_tensor"),
    ("google-tpu-v2", "Google TPU v2", TENSOR16, "bf16_tensor"),
    ("google-tpu-v3", "Google TPU v3", TENSOR16, "bf16_tensor"),
    ("google-tpu-v4", "Google TPU v4", TENSOR16, "bf16_tensor"),
    ("google-tpu-v5e", "Google TPU v5e", TENSOR16, "bf16_tensor"),
    ("google-tpu-v5p", "Google TPU v5p", TENSOR16, "bf16_tensor"),
    ("google-tpu-v6e", "Google TPU v6e Trillium", TENSOR16, "bf16_tensor"),
    ("amd-instinct-mi250x", "AMD Radeon Instinct MI250X", TENSOR16, "bf16_tensor"),
    ("amd-instinct-mi300x", "AMD Instinct MI300X", TENSOR16, "bf16_tensor"),
    ("amd-instinct-mi325x", "AMD Instinct MI325X", TENSOR16, "bf16_tensor"),
    ("amd-instinct-mi355x", "AMD Instinct MI355X", TENSOR16, "bf16_tensor"),
    ("intel-gaudi-2", "Intel Habana Gaudi2", TENSOR16, "bf16_tensor"),
    ("nvidia-gtx-580", "NVIDIA GeForce GTX 580", FP32, "fp32"),
    ("nvidia-tesla-k20", "NVIDIA Tesla K20c", FP32, "fp32"),
    ("nvidia-tesla-k40", "NVIDIA Tesla K40s", FP32, "fp32"),
    ("nvidia-gtx-titan-x-maxwell", "NVIDIA GeForce GTX TITAN X", FP32, "fp32"),
    ("nvidia-tesla-p100-sxm2", "NVIDIA Tesla P100 SXM2", FP32, "fp32"),
    ("nvidia-t4", "NVIDIA Tesla T4", FP32, "fp32"),
    ("nvidia-a10", "NVIDIA A10 PCIe", FP32, "fp32"),
    ("nvidia-h100-sxm", "NVIDIA H100 SXM5 80GB", FP32, "fp32"),
]


def test_dense_peaks_agree_with_epoch_within_5_percent(db):
    if not EPOCH_HARDWARE.is_file():
        pytest.skip("../shared/data/epoch/epoch_ml_hardware.csv is not here")
    with EPOCH_HARDWARE.open(encoding="utf-8") as handle:
        rows = {row["Hardware name"]: row for row in csv.DictReader(handle)}
    for chip_id, epoch_name, column, key in EPOCH_PAIRS:
        theirs = float(rows[epoch_name][column])
        ours = db.chip(chip_id).peaks.get(key)
        assert ours == pytest.approx(theirs, rel=0.05), (chip_id, ours, theirs)


# --- lookup --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, chip_id", [
    ("nvidia-h100-sxm", "nvidia-h100-sxm"), ("H100", "nvidia-h100-sxm"), ("h100 sxm5", "nvidia-h100-sxm"),
    ("NVIDIA H100 SXM", "nvidia-h100-sxm"), ("A100-SXM4-80GB", "nvidia-a100-sxm4-80gb"),
    ("Tesla V100", "nvidia-tesla-v100-sxm2"), ("tpu v4", "google-tpu-v4"), ("TPUv5p", "google-tpu-v5p"),
    ("TitanX", "nvidia-gtx-titan-x-maxwell"), ("mi300x", "amd-instinct-mi300x"),
])
def test_lookup_by_id_name_or_alias(db, name, chip_id):
    assert db.chip(name).id == chip_id


def test_unknown_chip_is_an_input_error_naming_the_chip(db):
    with pytest.raises(InputError) as info:
        get_chip("H1000", db)
    assert info.value.field == "chip"
    assert "unknown chip 'H1000'" in str(info.value)
    assert "nvidia-h100-sxm" in str(info.value)  # the nearest names are suggested


def test_load_is_cached():
    assert load_hardware_db() is load_hardware_db()


# --- invariants at load ----------------------------------------------------------------------------------

def _db_data() -> dict:
    return json.loads((ROOT / "hardware_db.json").read_text(encoding="utf-8"))


def _load_altered(tmp_path, alter) -> HardwareDB:
    data = _db_data()
    alter(data)
    path = tmp_path / "hardware_db.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_hardware_db(path)


def _chip_by_id(data: dict, chip_id: str) -> dict:
    return next(c for c in data["chips"] if c["id"] == chip_id)


@pytest.mark.parametrize("alter, needle", [
    (lambda d: d["chips"].append(dict(_chip_by_id(d, "nvidia-t4"))), "ids must be unique"),
    (lambda d: _chip_by_id(d, "nvidia-t4").update(source=[]), "source"),
    (lambda d: _chip_by_id(d, "nvidia-t4")["peaks"].update(fp32=-1), "greater than 0"),
    (lambda d: _chip_by_id(d, "nvidia-tesla-v100-sxm2")["peaks"].update(fp16_tensor=1e12),
     "a tensor peak is at least the non-tensor one"),
    (lambda d: _chip_by_id(d, "nvidia-t4")["peaks"].update(fp4_tensor=1e15), "unknown field 'fp4_tensor'"),
    (lambda d: _chip_by_id(d, "nvidia-t4").update(aliases=["V100"]), "names both"),
    (lambda d: _chip_by_id(d, "nvidia-t4").update(price_basis=None), "price_basis"),
    (lambda d: _chip_by_id(d, "nvidia-t4").update(release_date="2018-13"), "release_date"),
])
def test_bad_database_is_rejected_at_load(tmp_path, alter, needle):
    with pytest.raises(InputError) as info:
        _load_altered(tmp_path, alter)
    assert info.value.field.startswith("hardware_db")
    assert needle in str(info.value)


def test_nan_and_infinite_peaks_are_rejected():
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError):
            Peaks(fp32=bad)


def test_a_user_defined_chip_needs_only_a_name_and_peaks():
    chip = Chip(name="my accelerator", peaks={"bf16_tensor": 5e14})
    assert chip.id == "custom" and chip.peaks.bf16_tensor == 5e14 and chip.source == []
    with pytest.raises(ValueError):
        Chip(name="no peaks", peaks={})
