"""Unknown hardware: the trend peak of a year and class, from the database's own chips.

The toy databases below have peaks written so that the trend is known in closed form (a doubling
every year), so the expected values are computed here, not read back from the engine.
"""
from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

import pytest

from engine.errors import InputError
from engine.method2.hardware_db import HardwareDB, load_hardware_db
from engine.method2.run import estimate_method2, resolve_peak
from engine.method2.unknown_hardware import CLASS_SEGMENTS, Z90, year_peak

SHARED = Path(__file__).resolve().parents[3] / "shared"


def toy(chips: list[tuple[str, str, str, dict]]) -> HardwareDB:
    return HardwareDB.model_validate({
        "schema_version": 1, "description": "toy", "conventions": [],
        "defaults": {"pue": 1.1, "pue_source": "x", "grid_kg_co2_per_kwh": 0.4, "grid_source": "x"},
        "utilization_presets": [],
        "chips": [{"id": cid, "name": cid.upper(), "segment": segment, "release_date": date, "peaks": peaks,
                   "source": ["https://example.org/datasheet"]} for cid, segment, date, peaks in chips]})


# FP32 doubles every year from 1 TFLOP/s in mid-2010 (2 July = 2010.5): P(t) = 1e12 · 2^(t − 2010.5).
DOUBLING = toy([
    ("a", "data_center", "2010-07-02", {"fp32": 1e12}),
    ("b", "data_center", "2011-07-02", {"fp32": 2e12}),
    ("c", "data_center", "2012-07-02", {"fp32": 4e12}),
    ("d", "data_center", "2013-07-02", {"fp32": 8e12}),
    ("gamer", "consumer", "2012-07-02", {"fp32": 100e12}),           # another class: must not count
    ("e", "data_center", "2020-07-02", {"fp32": 20e12, "bf16_tensor": 300e12}),
    ("f", "data_center", "2021-07-02", {"fp32": 40e12, "bf16_tensor": 600e12}),
])


@pytest.mark.parametrize("year, expected", [
    (2012, 4e12),                     # on the points: 2^(2012.5 − 2010.5)
    (2011, 2e12),
    (2009, 1e12 * 2 ** (2009.5 - 2010.5)),  # before the first chip: the trend extended back
])
def test_trend_of_a_doubling_every_year(year, expected):
    found = year_peak(DOUBLING, year, "fp32", "data_center", exclude={"e", "f"})
    # 2 July is mid-year to within a day (leap years): 0.2% tolerance
    assert found.peak_flop_per_s == pytest.approx(expected, rel=2e-3)
    assert found.spread_oom == pytest.approx(0, abs=1e-3)  # the points lie on the line
    assert found.low_flop_per_s == pytest.approx(found.high_flop_per_s, rel=1e-2)
    assert "gamer" not in found.chips


def test_band_is_the_residual_spread():
    # one chip 2× above the line, one 2× below: residuals ±log10(2) around a flat line
    db = toy([("a", "data_center", "2015-07-02", {"fp32": 2e12}), ("b", "data_center", "2015-07-02", {"fp32": 0.5e12}),
              ("c", "data_center", "2015-07-02", {"fp32": 1e12}), ("d", "data_center", "2015-07-02", {"fp32": 1e12})])
    found = year_peak(db, 2015, "fp32")
    residual_std = math.sqrt(2 * math.log10(2) ** 2 / (4 - 2))
    assert found.spread_oom == pytest.approx(residual_std)
    assert found.high_flop_per_s / found.peak_flop_per_s == pytest.approx(10 ** (Z90 * residual_std))
    # the faster half (2 and 1, 1 TFLOP/s on the line) gives the point: its mean log
    assert found.peak_flop_per_s == pytest.approx(10 ** ((math.log10(2e12) + 2 * 12) / 3))


def test_a_format_the_class_did_not_have_yet_falls_back_flagged():
    found = year_peak(DOUBLING, 2012, "bf16_tensor", "data_center")
    assert found.peak_key == "fp32" and found.requested_key == "bf16_tensor"
    assert "no data-centre accelerators had a bf16_tensor peak by 2012" in found.fallback


@pytest.mark.parametrize("year", [2007, 1900, 10 ** 9])
def test_years_before_2008_are_one_line_errors(year):
    with pytest.raises(InputError) as info:
        year_peak(load_hardware_db(), year, "fp32")
    assert info.value.field == "year" and "\n" not in str(info.value)


@pytest.mark.parametrize("spec, field", [
    ({"year": 2007}, "year"), ({"year": float("nan")}, "year"), ({"year": 2020, "hardware_class": "gaming"},
                                                                   "hardware_class"),
])
def test_bad_year_inputs_name_the_field(spec, field):
    with pytest.raises(InputError) as info:
        resolve_peak(spec)
    assert info.value.field == field


@pytest.mark.parametrize("hardware_class", ["data_center", "workstation_consumer"])
def test_every_year_from_2008_has_a_peak_with_a_band(hardware_class):
    db = load_hardware_db()
    previous = 0.0
    for year in range(2008, 2026):
        peak = resolve_peak({"year": year, "hardware_class": hardware_class}, db)
        assert peak.hardware_kind == "year_trend" and peak.assumed_format
        assert peak.peak_low_flop_per_s < peak.peak_flop_per_s < peak.peak_high_flop_per_s
        # the rule for what unknown hardware trained in
        expected = "FP32" if year < 2017 else "FP16 tensor" if year < 2020 else "BF16 tensor"
        assert peak.assumed_format == expected, year
        if peak.precision == "fp32":
            assert peak.peak_flop_per_s >= previous * 0.999  # trends do not fall with the years
            previous = peak.peak_flop_per_s


def test_quadro_rtx_4000_by_launch_year_is_no_longer_23x_high():
    # Quadro RTX 4000: 57 TFLOP/s FP16 tensor (data sheet), launched 2018; the old mean-of-the-year gave 23×
    peak = resolve_peak({"year": 2018, "hardware_class": "workstation_consumer"})
    assert 1 / 3 <= peak.peak_flop_per_s / 57e12 <= 3


def test_method2_with_unknown_hardware_states_the_trend():
    estimate = estimate_method2({"year": 2016, "chip_count": 4, "duration": 10, "duration_unit": "days",
                                 "utilization": 0.33})
    peak = estimate.peak
    assert estimate.training_flop == pytest.approx(4 * 10 * 86400 * peak.peak_flop_per_s * 0.33)
    assert any("trend of the faster" in note for note in peak.notes)


def _epoch_rows():
    path = SHARED / "data" / "epoch" / "epoch_notable_ai_models.csv"
    if not path.is_file():
        pytest.skip("../shared/data/epoch/epoch_notable_ai_models.csv is not here")
    with path.open(encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle)
                if r["Training hardware"] and r["Hardware quantity"] and r["Training time (hours)"]]


def class_of(segment: str) -> str:
    """The hardware class whose segments hold ``segment``."""
    return next(name for name, segments in CLASS_SEGMENTS.items() if segment in segments)


def test_leave_one_out_on_epochs_rows_with_known_chips(capsys):
    """Pretend each row's chip is unknown (left out of the fit; its launch year and class given) and
    compare the trend's peak with the chip's own, in the chip's default format."""
    db = load_hardware_db()
    ratios = []
    for row in _epoch_rows():
        chip = db.find(row["Training hardware"])
        if chip is None:
            continue
        key = chip.default_format
        found = year_peak(db, chip.release_year, key, class_of(chip.segment), exclude={chip.id})
        assert chip.id not in found.chips
        ratios.append(found.peak_flop_per_s / chip.peaks.get(key))
    factors = [10 ** abs(math.log10(r)) for r in ratios]
    within_2 = sum(f <= 2 for f in factors) / len(factors)
    with capsys.disabled():
        print(f"\nleave-one-out, {len(ratios)} rows: median ratio {statistics.median(ratios):.3g}, median factor "
              f"{statistics.median(factors):.3g}, within 2× {within_2:.0%}, within 3× "
              f"{sum(f <= 3 for f in factors) / len(factors):.0%}, worst {max(factors):.3g}×")
    assert len(ratios) >= 130
    assert 0.5 <= statistics.median(ratios) <= 2 and within_2 >= 0.8


def test_years_past_the_newest_chip_are_held_not_extrapolated():
    db = load_hardware_db()
    newest = max(c.peaks.bf16_tensor or 0 for c in db.chips if c.segment == "data_center")
    for year in (2026, 2030, 2100):
        peak = resolve_peak({"year": year}, db)
        assert peak.peak_flop_per_s <= newest  # never faster than the fastest chip there is
    far = year_peak(db, 2100, "bf16_tensor")
    assert far.held_at is not None and far.held_at < 2028 and "held at" in far.describe()
    assert far.peak_flop_per_s == year_peak(db, 2030, "bf16_tensor").peak_flop_per_s
