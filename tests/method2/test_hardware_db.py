"""hardware_db.json: coverage, invariants, datasheet figures, the 2× sparse/dense trap, lookups.

Every expected figure below is written out from the vendor's datasheet (link beside it), or derived
from cores × clock × 2 in the comment; none is read back from the database.
"""
from __future__ import annotations

import csv
import json
import math
from datetime import date
from pathlib import Path

import pytest

from engine.errors import InputError, parse_input
from engine.method2.hardware_db import Chip, HardwareDB, Peaks, load_hardware_db

ROOT = Path(__file__).resolve().parents[2]
from tests.conftest import SHARED  # noqa: E402
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


def test_at_least_120_chips_accelerators_from_2008_to_today_and_a_few_cpus(db):
    assert len(db.chips) >= 120
    accelerators = [c for c in db.chips if c.kind != "cpu"]
    assert len(accelerators) >= 115
    years = {c.release_year for c in accelerators}
    newest_allowed = date.today().year + 1  # a part announced for next year may be listed
    assert min(years) == 2008 and 2025 <= max(years) <= newest_allowed
    assert set(range(2008, 2026)) <= years  # every year has at least one accelerator (for the year fallback)
    assert 1 <= sum(c.kind == "cpu" for c in db.chips) <= 3
    segments = {s: sum(c.segment == s for c in accelerators) for s in ("data_center", "workstation", "consumer")}
    assert segments["data_center"] >= 60 and segments["workstation"] >= 10 and segments["consumer"] >= 15


@pytest.mark.parametrize("name", REQUIRED_NAMES)
def test_required_chip_is_present(db, name):
    assert db.find(name) is not None, name


def test_every_chip_has_https_sources_and_a_dated_release(db):
    for chip in db.chips:
        assert chip.source, chip.id
        assert all(url.startswith("https://") for url in chip.source), chip.id
        assert chip.release_date and 2000 <= chip.release_year <= date.today().year + 1, chip.id


def test_prices_are_labelled_indicative_with_a_basis(db):
    priced = [c for c in db.chips if c.price_usd_per_hour is not None]
    assert len(priced) >= 10
    for chip in priced:
        assert chip.price_basis and chip.price_basis.startswith("indicative"), chip.id
    assert any("INDICATIVE" in line for line in db.conventions)


@pytest.mark.parametrize(("peaks", "needle"), [
    ({"fp16": 100e12, "fp16_tensor": 50e12}, "fp16_tensor"),  # a tensor peak below the vector one
    ({"fp64": 10e12, "fp64_tensor": 5e12}, "fp64_tensor"),
    ({}, "at least one peak"),
])
def test_peak_invariants_are_enforced(peaks, needle):
    with pytest.raises(InputError, match=needle):
        parse_input(Peaks, peaks)


def test_formats_a_chip_lacks_are_absent(db):
    # Volta tensor cores are FP16-only; Ampere has no FP8; pre-Volta chips have no tensor cores.
    v100 = db.chip("V100").peaks
    assert v100.bf16_tensor is None and v100.tf32_tensor is None and v100.fp8_tensor is None
    assert db.chip("A100").peaks.fp8_tensor is None
    for name in ("GTX 580", "K80", "P100", "Titan X (Maxwell)"):
        peaks = db.chip(name).peaks.available()
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

GT200 = "https://www.nvidia.com/docs/IO/55506/GeForce_GTX_200_GPU_Technical_Brief.pdf"
C2075 = "https://www.nvidia.com/docs/IO/43395/NV-DS-Tesla-C2075.pdf"
NEURON = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/"
TRN1 = NEURON + "general/arch/neuron-hardware/trainium.html"
TRN2 = NEURON + "about-neuron/arch/neuron-hardware/trainium2.html"
TRN3 = NEURON + "about-neuron/arch/neuron-hardware/trainium3.html"

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
    # --- chips added for Epoch's notable runs and current parts (issue: method 2 at the scale of the field)
    ("nvidia-gtx-280", "fp32", 240 * 1296e6 * 2, GT200),      # 240 cores × 1296 MHz × 2 (FMA only)
    ("nvidia-gtx-285", "fp32", 240 * 1476e6 * 2, GT200),
    ("nvidia-tesla-c2075", "fp32", 1.03e12, C2075),
    ("nvidia-tesla-c2075", "fp64", 515e9, C2075),
    ("nvidia-gtx-titan", "fp32", 2688 * 876e6 * 2, "https://www.nvidia.com/en-us/geforce/graphics-cards/geforce-gtx-titan/specifications/"),
    ("nvidia-gtx-780", "fp32", 2304 * 900e6 * 2, "https://www.nvidia.com/en-us/geforce/graphics-cards/geforce-gtx-780/specifications/"),
    ("nvidia-quadro-k6000", "fp32", 2880 * 902e6 * 2, "https://www.nvidia.com/content/PDF/data-sheet/DS_NV_Quadro_K6000_OCT13_NV_US_LR.pdf"),
    ("nvidia-gtx-980", "fp32", 2048 * 1216e6 * 2, "https://www.nvidia.com/en-us/geforce/graphics-cards/geforce-gtx-980/specifications/"),
    ("nvidia-tesla-m40", "fp32", 3072 * 1114e6 * 2, "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-m40-datasheet.pdf"),
    ("nvidia-tesla-p40", "fp32", 12e12, "https://images.nvidia.com/content/pdf/tesla/184427-Tesla-P40-Datasheet-NV-Final-Letter-Web.pdf"),
    ("nvidia-tesla-p40", "int8", 47e12, "https://images.nvidia.com/content/pdf/tesla/184427-Tesla-P40-Datasheet-NV-Final-Letter-Web.pdf"),
    ("nvidia-quadro-gp100", "fp16", 20.7e12, "https://images.nvidia.com/content/pdf/quadro/data-sheets/NV-DS-Quadro-GP100-US-NV-704-A4-web.pdf"),
    ("nvidia-quadro-p600", "fp32", 384 * 1557e6 * 2, "Quadro P600 data sheet: up to 1.2 TFLOP/s FP32"),
    ("nvidia-titan-xp", "fp32", 3840 * 1582e6 * 2, "https://www.nvidia.com/en-us/titan/titan-xp/"),
    ("nvidia-titan-v", "fp16_tensor", 110e12, "https://www.nvidia.com/en-us/titan/titan-v/"),
    ("nvidia-quadro-rtx-4000", "fp16_tensor", 57e12, "Quadro RTX 4000 data sheet: tensor performance 57.0 TFLOP/s"),
    ("nvidia-quadro-rtx-4000", "fp32", 7.1e12, "Quadro RTX 4000 data sheet"),
    ("nvidia-quadro-rtx-5000", "fp16_tensor", 89.2e12, "Quadro RTX 5000 data sheet: tensor performance 89.2 TFLOP/s"),
    ("nvidia-quadro-rtx-6000", "fp16_tensor", 130.5e12, "Quadro RTX 6000 data sheet: tensor performance 130.5"),
    ("nvidia-quadro-rtx-8000", "fp16_tensor", 130.5e12, "Quadro RTX 8000 data sheet: tensor performance 130.5"),
    ("nvidia-rtx-a6000", "bf16_tensor", 309.7e12 / 2, "https://www.nvidia.com/en-us/design-visualization/rtx-a6000/"),  # printed sparse
    ("nvidia-a30", "bf16_tensor", 165e12, "https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf"),
    ("nvidia-a100-pcie-40gb", "bf16_tensor", 312e12, A100),
    ("nvidia-a800-sxm4-80gb", "bf16_tensor", 312e12, A100),   # A100 compute, NVLink cut to 400 GB/s
    ("nvidia-h800-sxm5", "bf16_tensor", 1979e12 / 2, H100),  # H100 tensor figures, printed with sparsity
    ("nvidia-h800-sxm5", "fp64", 1e12, "https://www.nvidia.cn/data-center/h800/"),  # FP64 cut to 1 TFLOP/s
    ("nvidia-l40", "bf16_tensor", 181.05e12, "https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/support-guide/NVIDIA-L40-Datasheet-January-2023.pdf"),
    ("nvidia-l40", "fp8_tensor", 724e12 / 2, "L40 data sheet: FP8 362 | 724 with sparsity"),
    ("nvidia-rtx-6000-ada", "fp8_tensor", 1457e12 / 2, "https://www.nvidia.com/en-us/design-visualization/rtx-6000/"),  # printed sparse
    ("nvidia-gb300", "bf16_tensor", 360e15 / 72 / 2, "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),  # rack total, sparse
    ("nvidia-gb300", "fp8_tensor", 720e15 / 72 / 2, "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    ("amd-instinct-mi210", "bf16_tensor", 181e12, "https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html"),
    ("amd-instinct-mi300a", "bf16_tensor", 980.6e12, "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300a-data-sheet.pdf"),
    ("amd-instinct-mi350x", "bf16_tensor", 256 * 2.2e9 * 4096, "MI350X brochure: 256 CUs × 2.2 GHz; 2.3 PFLOP/s BF16 dense"),
    ("aws-trainium", "bf16_tensor", 190e12, TRN1),
    ("aws-trainium", "fp32", 47.5e12, TRN1),
    ("aws-trainium2", "bf16_tensor", 667e12, TRN2),
    ("aws-trainium2", "fp8_tensor", 1299e12, TRN2),
    ("aws-trainium3", "bf16_tensor", 671e12, TRN3),
    ("aws-inferentia2", "bf16_tensor", 190e12, "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/inferentia2.html"),
    ("google-tpu-v1", "int8", 65536 * 700e6 * 2, "https://arxiv.org/abs/1704.04760"),  # 64K MACs × 700 MHz × 2 = 92 TOPS
    ("google-tpu-v7", "bf16_tensor", 4614e12 / 2, "https://cloud.google.com/tpu/docs/tpu7x"),
    ("huawei-ascend-910", "fp16_tensor", 256e12, "https://www.huawei.com/en/news/2019/8/huawei-ascend-910-most-powerful-ai-processor"),
    ("huawei-ascend-910", "int8", 512e12, "https://www.huawei.com/en/news/2019/8/huawei-ascend-910-most-powerful-ai-processor"),
    ("huawei-ascend-310", "int8", 16e12, "https://www.hisilicon.com/en/Media-Center/News/Key-Information-About-the-Huawei-Ascend310"),
    ("graphcore-gc200", "fp16_tensor", 1e15 / 4, "https://www.graphcore.ai/posts/introducing-second-generation-ipu-systems-for-ai-at-scale"),  # M2000: 1 PFLOP/s, 4 IPUs
    ("sambanova-sn40l", "bf16_tensor", 638e12, "https://arxiv.org/abs/2405.07518"),
    ("nvidia-tesla-m60", "fp32", 2 * 2048 * 1178e6 * 2, "https://images.nvidia.com/content/pdf/tesla/tesla-m60-product-brief.pdf"),
    ("nvidia-tesla-p4", "int8", 22e12, "https://images.nvidia.com/content/pdf/tesla/184457-Tesla-P4-Datasheet-NV-Final-Letter-Web.pdf"),
    ("nvidia-rtx-3080", "fp16_tensor", 59.5e12, "GA102 whitepaper: RTX 3080 FP16 tensor, FP32 accumulate, dense"),
    ("nvidia-rtx-4080", "bf16_tensor", 97.5e12, "Ada whitepaper: RTX 4080 FP16/BF16 tensor, FP32 accumulate, dense"),
    ("amd-instinct-mi250", "bf16_tensor", 362.1e12, "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html"),
    ("amd-radeon-instinct-mi50", "fp32", 13.3e12, "https://www.amd.com/system/files/documents/radeon-instinct-mi50-datasheet.pdf"),
    ("intel-data-center-gpu-max-1550", "fp32", 128 * 1.6e9 * 256, "Intel Max 1550: 128 Xe cores × 1.6 GHz × 256 FLOP/clock"),
    # --- the rest of the database: one figure per chip, so every chip is checked against its datasheet
    ("nvidia-tesla-c2050", "fp32", 1.03e12, "https://www.nvidia.com/docs/IO/43395/NV_DS_Tesla_C2050_C2070_jul10_lores.pdf"),
    ("nvidia-gtx-680", "fp32", 1536 * 1058e6 * 2, "GTX 680 whitepaper: 1536 cores, 1058 MHz boost"),
    ("nvidia-tesla-k10", "fp32", 4.58e12, "https://www.nvidia.com/content/PDF/kepler/Tesla-K10-Board-Spec-BD-06280-001-v07.pdf"),
    ("nvidia-tesla-k20", "fp32", 3.52e12, "https://www.nvidia.com/content/PDF/kepler/Tesla-K20-Passive-BD-06455-001-v05.pdf"),
    ("nvidia-tesla-k20x", "fp32", 3.95e12, "https://www.nvidia.com/content/PDF/kepler/Tesla-K20X-BD-06397-001-v07.pdf"),
    ("nvidia-quadro-k4000", "fp32", 768 * 811e6 * 2, "Quadro K4000 data sheet: 768 cores × 811 MHz"),
    ("nvidia-tesla-k40", "fp32", 2880 * 875e6 * 2, "Tesla K40 board spec: 2880 cores, 875 MHz GPU Boost"),
    ("nvidia-gtx-titan-black", "fp32", 5.1e12, "https://www.nvidia.com/gtx-700-graphics-cards/gtx-titan-black/"),
    ("nvidia-gtx-titan-x-maxwell", "fp32", 3072 * 1075e6 * 2, "GTX Titan X specifications: 3072 cores, 1075 MHz boost"),
    ("nvidia-quadro-m4000", "fp32", 1664 * 773e6 * 2, "Quadro M4000 data sheet: 1664 cores × 773 MHz"),
    ("nvidia-gtx-1070", "fp32", 1920 * 1683e6 * 2, "GTX 1070 specifications: 1920 cores, 1683 MHz boost"),
    ("nvidia-gtx-1080", "fp32", 2560 * 1733e6 * 2, "GTX 1080 whitepaper: 2560 cores, 1733 MHz boost"),
    ("nvidia-tesla-p100-pcie", "fp32", 9.3e12, "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf"),
    ("nvidia-titan-x-pascal", "fp32", 3584 * 1531e6 * 2, "Titan X (Pascal): 3584 cores, 1531 MHz boost"),
    ("nvidia-quadro-p5000", "fp32", 8.9e12, "Quadro P5000 data sheet: 8.9 TFLOP/s FP32"),
    ("nvidia-quadro-p6000", "fp32", 3840 * 1645e6 * 2, "Quadro P6000: 3840 cores × 1645 MHz boost"),
    ("nvidia-quadro-p4000", "fp32", 5.3e12, "Quadro P4000 data sheet: 5.3 TFLOP/s FP32"),
    ("nvidia-gtx-1080-ti", "fp32", 3584 * 1582e6 * 2, "GTX 1080 Ti specifications: 3584 cores, 1582 MHz boost"),
    ("nvidia-rtx-2080-ti", "fp16_tensor", 544 * 1545e6 * 64, "Turing whitepaper: 544 tensor cores × 1545 MHz × 64 FLOP (FP32 accumulate, half rate)"),
    ("nvidia-rtx-2080", "fp16_tensor", 40.3e12, "Turing whitepaper: RTX 2080 FP16 tensor with FP32 accumulate"),
    ("nvidia-titan-rtx", "fp16_tensor", 130e12, "https://www.nvidia.com/en-us/deep-learning-ai/products/titan-rtx/"),
    ("nvidia-tesla-v100s-pcie", "fp16_tensor", 130e12, V100),
    ("nvidia-rtx-3090", "bf16_tensor", 142e12 / 2, "GA102 whitepaper: 71 with FP32 accumulate (142 with FP16 accumulate)"),
    ("nvidia-a40", "bf16_tensor", 299.4e12 / 2, "https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf"),
    ("nvidia-a100-sxm4-80gb", "bf16_tensor", 312e12, A100),
    ("nvidia-a100-pcie-80gb", "bf16_tensor", 312e12, A100),
    ("nvidia-a10", "bf16_tensor", 250e12 / 2, "A10 data sheet: BF16 125 | 250 with sparsity"),
    ("nvidia-rtx-a4000", "bf16_tensor", 153.4e12 / 2, "https://www.nvidia.com/en-us/design-visualization/rtx-a4000/"),
    ("nvidia-rtx-a5000", "bf16_tensor", 222.2e12 / 2, "https://www.nvidia.com/en-us/design-visualization/rtx-a5000/"),
    ("nvidia-a2", "bf16_tensor", 36e12 / 2, "A2 data sheet: BF16 18 | 36 with sparsity"),
    ("nvidia-h100-pcie", "bf16_tensor", 1513e12 / 2, H100),
    ("nvidia-rtx-3090-ti", "bf16_tensor", 84 * 1860e6 * 512, "84 SMs × 1860 MHz × 512 (GA102 whitepaper's per-SM FP16/FP32-accumulate rate)"),
    ("nvidia-rtx-4090", "bf16_tensor", 165.2e12, "Ada whitepaper: FP16/BF16 tensor with FP32 accumulate, dense"),
    ("nvidia-a800-pcie-80gb", "bf16_tensor", 312e12, A100),
    ("nvidia-h100-nvl", "bf16_tensor", 1671e12 / 2, "H100 NVL product brief: 1,671 TFLOP/s BF16 per GPU with sparsity"),
    # torchtitan's H100 (96 GB HBM2e, 500 W): "between SXM and NVL, and we don't know its exact value" — the midpoint
    # of the two dense datasheet figures is the stored assumption
    ("nvidia-h100-sxm-96gb-500w", "bf16_tensor", (989.4e12 + 1671e12 / 2) / 2,
     "https://github.com/pytorch/torchtitan/blob/main/docs/performance.md"),
    ("nvidia-gh200", "bf16_tensor", 1979e12 / 2, "https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip"),
    ("nvidia-l40s", "bf16_tensor", 362.05e12, "https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413"),
    ("nvidia-h200-sxm", "bf16_tensor", 1979e12 / 2, "https://www.nvidia.com/en-us/data-center/h200/"),
    ("nvidia-b100", "bf16_tensor", 3.5e15 / 2, "Blackwell datasheet: HGX B100 BF16 3.5 PFLOP/s per GPU with sparsity"),
    ("nvidia-rtx-5090", "fp32", 21760 * 2407e6 * 2, "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/"),
    ("nvidia-b300", "bf16_tensor", 36e15 / 8 / 2, HGX),     # HGX B300: 36 PFLOP/s for 8 GPUs with sparsity
    ("google-tpu-v2", "bf16_tensor", 180e12 / 4, "https://cloud.google.com/tpu/docs/v2"),  # v2-8 board: 180 TFLOP/s, 4 chips
    ("google-tpu-v3", "bf16_tensor", 123e12, "https://cloud.google.com/tpu/docs/v3"),
    ("google-tpu-v4i", "bf16_tensor", 138e12, "https://ieeexplore.ieee.org/document/9499913"),
    ("google-tpu-v5p", "bf16_tensor", 459e12, "https://cloud.google.com/tpu/docs/v5p"),
    ("amd-radeon-instinct-mi25", "fp32", 4096 * 1500e6 * 2, "MI25: 4096 stream processors × 1500 MHz"),
    ("amd-radeon-instinct-mi60", "fp32", 14.7e12, "https://www.amd.com/system/files/documents/radeon-instinct-mi60-datasheet.pdf"),
    ("amd-radeon-vii", "fp32", 3840 * 1800e6 * 2, "Radeon VII: 3840 stream processors × 1800 MHz"),
    ("amd-instinct-mi100", "bf16_tensor", 92.3e12, "https://www.amd.com/en/products/accelerators/instinct/mi100.html"),
    ("amd-radeon-rx-7900-xtx", "fp32", 61.4e12, "https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900xtx.html"),
    ("amd-instinct-mi325x", "bf16_tensor", 1307.4e12, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"),
    ("intel-data-center-gpu-max-1100", "fp32", 56 * 1.55e9 * 256, "Max 1100: 56 Xe cores × 1.55 GHz × 256 FLOP/clock"),
    ("aws-inferentia", "bf16_tensor", 64e12, NEURON + "archive/arch/neuron-hardware/inferentia.html"),
    ("huawei-ascend-910b", "fp16_tensor", 376e12, "https://cset.georgetown.edu/publication/pushing-the-limits-huaweis-ai-chip-tests-u-s-export-controls/"),
    ("amd-epyc-7763", "fp64", 64 * 2.45e9 * 16, "EPYC 7763: 64 cores × 2.45 GHz × 2 FMA units × 4 FP64 lanes × 2"),
    ("intel-xeon-platinum-8380", "fp64", 40 * 2.3e9 * 32, "Xeon 8380: 40 cores × 2.3 GHz × 2 AVX-512 FMA × 8 lanes × 2"),
    ("intel-core-2-quad-q9450", "fp32", 4 * 2.66e9 * 8, "Intel ARK: 4 cores, 2.66 GHz; SSE 4-wide add + 4-wide mul per clock"),
]


@pytest.mark.parametrize("chip_id, key, expected, link", DATASHEET_PEAKS)
def test_peak_matches_datasheet(db, chip_id, key, expected, link):
    chip = db.chip(chip_id)
    assert chip.peaks.get(key) == pytest.approx(expected, rel=2e-3), (chip_id, key, link)


def test_every_chip_has_a_datasheet_figure_in_this_file(db):
    assert {c.id for c in db.chips} <= {row[0] for row in DATASHEET_PEAKS}


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
    ("nvidia-a30", "bf16_tensor", 330e12),
    ("nvidia-a2", "bf16_tensor", 36e12),
    ("nvidia-rtx-a6000", "bf16_tensor", 309.7e12),
    ("nvidia-rtx-a5000", "bf16_tensor", 222.2e12),
    ("nvidia-rtx-a4000", "bf16_tensor", 153.4e12),
    ("nvidia-l40", "bf16_tensor", 362.1e12),
    ("nvidia-rtx-6000-ada", "fp8_tensor", 1457e12),
    ("nvidia-h800-sxm5", "bf16_tensor", 1979e12),
    ("nvidia-gh200", "fp8_tensor", 3958e12),
    ("nvidia-b100", "bf16_tensor", 3.5e15),
    ("nvidia-b300", "fp8_tensor", 9e15),
    ("nvidia-gb300", "bf16_tensor", 5e15),
    ("amd-instinct-mi300a", "bf16_tensor", 1961.2e12),
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
        db.chip("H1000")
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
    (lambda d: _chip_by_id(d, "nvidia-t4")["peaks"].update(fp2_tensor=1e15), "fp2_tensor: unknown field"),
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


# --- Epoch's names, aliases, default formats ------------------------------------------------------------

EPOCH_MODELS = SHARED / "data" / "epoch" / "epoch_notable_ai_models.csv"


def _epoch_hardware_names() -> list[str]:
    if not EPOCH_MODELS.is_file():
        pytest.skip("../shared/data/epoch/epoch_notable_ai_models.csv is not here")
    with EPOCH_MODELS.open(encoding="utf-8") as handle:
        return sorted({row["Training hardware"].strip() for row in csv.DictReader(handle)
                       if row["Training hardware"].strip()})


def test_every_single_chip_name_in_epochs_notable_models_resolves(db):
    names = _epoch_hardware_names()
    singles = [n for n in names if "," not in n]
    parts = {p.strip() for n in names for p in n.split(",")}
    assert len(singles) >= 50
    assert [n for n in singles if db.find(n) is None] == []
    assert [p for p in parts if db.find(p) is None] == []  # every part of a combined entry too


@pytest.mark.parametrize("epoch_name, chip_id", [
    ("NVIDIA Tesla V100 DGXS 32 GB", "nvidia-tesla-v100-sxm2"), ("NVIDIA Tesla K40t", "nvidia-tesla-k40"),
    ("NVIDIA A800", "nvidia-a800-sxm4-80gb"), ("Amazon Trainium1", "aws-trainium"),
    ("Huawei Ascend 910", "huawei-ascend-910"), ("NVIDIA Quadro RTX 4000", "nvidia-quadro-rtx-4000"),
    ("NVIDIA GeForce GTX TITAN", "nvidia-gtx-titan"), ("NVIDIA GeForce GTX TITAN X", "nvidia-gtx-titan-x-maxwell"),
    ("NVIDIA Tesla C2075", "nvidia-tesla-c2075"), ("AMD Radeon Instinct MI250X", "amd-instinct-mi250x"),
    ("NVIDIA GeForce RTX 2080 Ti 11GB", "nvidia-rtx-2080-ti"), ("Google TPU v1", "google-tpu-v1"),
])
def test_epoch_names_are_aliases(db, epoch_name, chip_id):
    assert db.chip(epoch_name).id == chip_id


def test_aliases_name_one_chip_each_and_every_chip_has_a_source(db):
    owner: dict[str, str] = {}
    for chip in db.chips:
        assert chip.source and all(s.startswith("https://") for s in chip.source), chip.id
        for name in {chip.id, chip.name, *chip.aliases}:
            key = "".join(ch for ch in name.lower() if ch.isalnum())
            assert owner.setdefault(key, chip.id) == chip.id, (name, owner[key], chip.id)


@pytest.mark.parametrize("chip_id, expected", [
    # the rule: FP32 before tensor cores, FP16 tensor on V100/T4-era parts, BF16 on A100/H100/TPU
    ("nvidia-gtx-580", "fp32"), ("nvidia-tesla-k80", "fp32"), ("nvidia-tesla-p100-sxm2", "fp32"),
    ("nvidia-tesla-v100-sxm2", "fp16_tensor"), ("nvidia-t4", "fp16_tensor"), ("nvidia-quadro-rtx-6000", "fp16_tensor"),
    ("nvidia-a100-sxm4-80gb", "bf16_tensor"), ("nvidia-h100-sxm", "bf16_tensor"), ("google-tpu-v3", "bf16_tensor"),
    ("google-tpu-v7", "bf16_tensor"), ("amd-instinct-mi300x", "bf16_tensor"), ("aws-trainium", "bf16_tensor"),
    ("huawei-ascend-910", "fp16_tensor"), ("google-tpu-v1", "int8"),
])
def test_default_format_per_chip(db, chip_id, expected):
    assert db.chip(chip_id).default_format == expected


def test_every_database_chip_has_a_default_format_it_has_a_peak_for(db):
    for chip in db.chips:
        assert chip.default_format and chip.peaks.get(chip.default_format), chip.id


def test_unknown_chip_suggests_by_name_and_by_year(db):
    with pytest.raises(InputError) as info:
        db.chip("Quadro RTX 4500", year=2019)
    text = str(info.value)
    assert "nvidia-quadro-rtx-4000" in text or "nvidia-quadro-rtx-5000" in text
    assert "launched 2017–2019" in text and "\n" not in text


def test_a_combined_entry_is_named_part_by_part(db):
    with pytest.raises(InputError) as info:
        db.chip("Google TPU v2,Google TPU v1")
    text = str(info.value)
    assert info.value.field == "chip" and "several chip types" in text
    assert "google-tpu-v2" in text and "google-tpu-v1" in text and "\n" not in text
