"""The device names traces carry → the database's chips (the part each name stands for is written beside it)."""
from __future__ import annotations

import pytest

from engine.measure.chip_match import match_chip

NAMES = [
    ("NVIDIA H100 80GB HBM3", "nvidia-h100-sxm"),  # HBM3 is the SXM5 part (the PCIe card has HBM2e)
    ("NVIDIA H100 PCIe", "nvidia-h100-pcie"),
    ("NVIDIA A100-SXM4-80GB", "nvidia-a100-sxm4-80gb"),
    ("NVIDIA A100-SXM4-40GB", "nvidia-a100-sxm4-40gb"),
    ("NVIDIA A100-PCIE-40GB", "nvidia-a100-pcie-40gb"),
    ("NVIDIA A100-PG509-200", "nvidia-a100-sxm4-40gb"),  # PG509: NVIDIA's SXM4 A100 board (40 GB in HTA's traces)
    ("Tesla V100-SXM2-16GB", "nvidia-tesla-v100-sxm2"),
    ("Tesla V100-PCIE-32GB", "nvidia-tesla-v100-pcie"),
    ("NVIDIA B200", "nvidia-b200"),
    ("NVIDIA H200", "nvidia-h200-sxm"),
    ("AMD Instinct MI300X", "amd-instinct-mi300x"),
    ("AMD Instinct MI300X VF", "amd-instinct-mi300x"),  # VF: a virtual function of the same GPU
    ("NVIDIA GeForce RTX 4090", "nvidia-rtx-4090"),
]


@pytest.mark.parametrize("device, chip", NAMES)
def test_device_names(device, chip):
    m = match_chip({"deviceProperties": [{"name": device}]})
    assert m.chip is not None and m.chip.id == chip and m.share == 1


def test_a_generic_rocm_name_is_matched_by_its_fingerprint():
    """HTA's MI250 trace names its device 'AMD Radeon Graphics': gfx90a (9.0), 104 compute units, 64 GB — one of
    the MI250's two dies (AMD: 208 CUs and 128 GB per MI250), so half its peak."""
    props = {"name": "AMD Radeon Graphics", "computeMajor": 9, "computeMinor": 0, "numSms": 104,
             "totalGlobalMem": 68702699520, "warpSize": 64}
    m = match_chip({"deviceProperties": [props]})
    assert m.chip.id == "amd-instinct-mi250" and m.share == 0.5
    assert m.peak("bf16", True).peak_flop_per_s == m.chip.peaks.bf16_tensor / 2


def test_unknown_and_absent_devices():
    assert match_chip({"deviceProperties": [{"name": "Mystery Accelerator"}]}).chip is None
    assert match_chip({}).chip is None
    assert match_chip({}, chip="H100").chip.id == "nvidia-h100-sxm"


def test_the_one_chip_reading_finds_what_the_whole_database_finds():
    """``OneChip`` (hardware_db.json read for one chip, validated alone) against the whole validated database: every
    id, name and alias, spelled as users spell them, gives the same chip; an unknown name the same message."""
    from engine.errors import InputError
    from engine.measure.chip_match import OneChip
    from engine.method2.hardware_db import load_hardware_db

    db, one = load_hardware_db(), OneChip()
    for chip in db.chips:
        for name in (chip.id, chip.name, *chip.aliases, f"NVIDIA {chip.name.upper()}", chip.name.replace(" ", "-")):
            assert one.find(name) == db.find(name), name
    with pytest.raises(InputError) as whole:
        db.chip("Mystery X9")
    with pytest.raises(InputError) as single:
        one.chip("Mystery X9")
    assert str(whole.value) == str(single.value)
