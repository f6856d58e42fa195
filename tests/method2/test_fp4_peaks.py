"""FP4/FP6 (MXFP4, NVFP4, MXFP6) dense peaks: datasheet figures written here, and Epoch AI's FP4 column."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from engine.method2.hardware_db import load_hardware_db
from engine.method2.precision import select_format_peak

EPOCH_HARDWARE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "epoch" / "epoch_ml_hardware.csv"

# (chip, dense FP4 FLOP/s as the datasheet prints it, dense FP6): NVIDIA prints Blackwell's FP4 with 2:4
# sparsity (HGX B200: 144 PFLOP/s for 8 GPUs; GB200 NVL72: 1,440 PFLOP/s for 72) and Blackwell Ultra's
# dense figure beside it (HGX B300: 108 PFLOP/s for 8; GB300 NVL72: 1,080 for 72); FP6 runs at the FP8
# rate on Blackwell. AMD CDNA 4: 256 CUs × clock × 16,384 FLOP per CU and clock for MXFP4 and MXFP6.
DATASHEET = [
    ("nvidia-b100", 14e15 / 2, 7e15 / 2),
    ("nvidia-b200", 144e15 / 8 / 2, 4.5e15),
    ("nvidia-gb200", 1440e15 / 72 / 2, 5e15),
    ("nvidia-b300", 108e15 / 8, 4.5e15),
    ("nvidia-gb300", 1080e15 / 72, 5e15),
    ("amd-instinct-mi350x", 256 * 2.2e9 * 16384, 256 * 2.2e9 * 16384),
    ("amd-instinct-mi355x", 256 * 2.4e9 * 16384, 256 * 2.4e9 * 16384),
    ("nvidia-rtx-5090", 3352e12 / 2, None),
    ("aws-trainium3", 2517e12, None),
]


@pytest.mark.parametrize("chip_id,fp4,fp6", DATASHEET)
def test_fp4_and_fp6_peaks_are_the_dense_datasheet_figures(chip_id, fp4, fp6):
    chip = load_hardware_db().chip(chip_id)
    assert chip.peaks.get("fp4_tensor") == pytest.approx(fp4, rel=1e-3)
    assert chip.peaks.get("fp6_tensor") == (None if fp6 is None else pytest.approx(fp6, rel=1e-3))
    assert any(url.startswith("https://") for url in chip.source)
    assert "FP4" in chip.notes


def test_fp4_is_selectable_and_a_chip_without_it_says_so():
    db = load_hardware_db()
    b200 = db.chip("nvidia-b200")
    assert select_format_peak(b200.peaks, "fp4", True, chip_label=b200.name).peak_flop_per_s == 9e15
    h100 = db.chip("nvidia-h100-sxm")
    with pytest.raises(Exception, match="no fp4 peak"):
        select_format_peak(h100.peaks, "fp4", True, chip_label=h100.name)
    # a chip without FP4 runs FP4 work upcast to FP8: the flagged fallback is its FP8 peak
    assert select_format_peak(h100.peaks, "fp4", True, chip_label=h100.name, allow_fallback=True).peak_key == \
        "fp8_tensor"


EPOCH_NAMES = {"NVIDIA B100": "nvidia-b100", "NVIDIA B200": "nvidia-b200", "NVIDIA GB200": "nvidia-gb200",
               "NVIDIA GB300 (Blackwell Ultra)": "nvidia-gb300", "AMD Instinct MI350X": "amd-instinct-mi350x",
               "Amazon Trainium3": "aws-trainium3", "NVIDIA B300 (Blackwell Ultra)": "nvidia-b300",
               "AMD Instinct MI355X": "amd-instinct-mi355x"}
EPOCH_DIFFERS = {"nvidia-b300": "Epoch 14 PFLOP/s; NVIDIA's HGX B300 table 108/8 = 13.5",
                 "amd-instinct-mi355x": "Epoch repeats the MI350X's 9.2; 2.4 GHz gives 10.07 (AMD: 10.1)"}


def test_every_chip_with_an_fp4_figure_in_epochs_data_has_it_here():
    if not EPOCH_HARDWARE.exists():
        pytest.skip("Epoch AI's hardware data is not beside the project")
    db = load_hardware_db()
    with EPOCH_HARDWARE.open(encoding="utf-8") as f:
        rows = {r["Hardware name"]: r for r in csv.DictReader(f) if r["FP4 performance (FLOP/s)"]}
    for name, chip_id in EPOCH_NAMES.items():
        ours = db.chip(chip_id).peaks.get("fp4_tensor")
        epoch = float(rows[name]["FP4 performance (FLOP/s)"])
        tolerance = 0.1 if chip_id in EPOCH_DIFFERS else 0.01
        assert ours == pytest.approx(epoch, rel=tolerance), (chip_id, EPOCH_DIFFERS.get(chip_id))


def test_fp4_in_the_chips_table_and_for_a_custom_chip():
    from tests.cli import cli
    text = cli("chips", "--format", "text").stdout
    header = next(line for line in text.splitlines() if line.startswith("id "))
    b200 = next(line for line in text.splitlines() if line.startswith("nvidia-b200 "))
    assert "FP4 tensor" in header and "9,000" in b200  # 9 PFLOP/s dense, in TFLOP/s

    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(str(ROOT / "pages" / "hardware.py")).run()
    at.radio(key="hw_source").set_value("custom_chip").run()
    at.number_input(key="hw_custom_fp4_tensor").set_value(1000.0).run()  # 1,000 TFLOP/s dense FP4
    at.selectbox(key="hw_precision").set_value("fp4").run()
    assert not at.exception
    # default run: 8 chips × 1 day × 1e15 FLOP/s × method 2's default utilization for a chip of no known
    # generation (the median of every reported language-model run, tests/reference.py)
    from tests.reference import REPORTED_LANGUAGE

    flop = next(m.value for m in at.metric if m.label == "Training compute")
    assert flop.startswith(f"{8 * 86_400 * 1e15 * REPORTED_LANGUAGE:.3g}".replace("e+", "e"))
