"""Peak FLOP/s per number format against release date, with the runs' fit."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.method2.formats import PEAK_KEYS
from engine.method2.hardware_db import HardwareDB, load_hardware_db
from engine.trends.hardware_trend import HardwareTrend, fit_hardware_trend, hardware_points


def fit_hardware_trends(db: HardwareDB | None = None, include_cpus: bool = False,
                        min_chips: int = 3, min_years: float = 3.0) -> dict[str, HardwareTrend]:
    """``fit_hardware_trend`` for every number format with at least ``min_chips`` chips released over at least
    ``min_years`` years, in ``PEAK_KEYS`` order (FP4's chips, all from 2024–25, would fit product tiers, not time)."""
    db = db or load_hardware_db()
    trends = {}
    for key in PEAK_KEYS:
        points = hardware_points(key, db, include_cpus)
        if (len(points) >= max(min_chips, 2)
                and points[-1].decimal_year - points[0].decimal_year >= min_years):
            trends[key] = fit_hardware_trend(key, db, include_cpus)
    return trends


def chip(chip_id, released, kind="gpu", **peaks):
    return {"id": chip_id, "name": chip_id.upper(), "kind": kind, "release_date": released, "peaks": peaks,
            "source": ["https://example.org/datasheet"]}


def database(chips) -> HardwareDB:
    return HardwareDB.model_validate({
        "schema_version": 1, "description": "test", "conventions": [],
        "defaults": {"pue": 1.1, "pue_source": "test", "grid_kg_co2_per_kwh": 0.4, "grid_source": "test"},
        "utilization_presets": [], "chips": chips})


# FP32 doubling every 24 months exactly: 10 TFLOPS at 2013.5, 20 at 2015.5, 40 at 2017.5 (2 July of a
# 365-day year is day 183, whose middle is exactly mid-year)
DB = database([
    chip("a", "2013-07-02", fp32=10e12), chip("b", "2015-07-02", fp32=20e12, bf16_tensor=100e12),
    chip("c", "2017-07-02", fp32=40e12, bf16_tensor=400e12), chip("x", "2016-03", kind="cpu", fp32=1e12),
    chip("d", "2019-01", fp16_tensor=300e12),
])


def test_exact_doubling_and_cpus_left_out():
    trend = fit_hardware_trend("fp32", DB)
    assert trend.chips == ["a", "b", "c"] and trend.unit == "FLOP/s"
    assert trend.doubling_months == pytest.approx(24.0)
    assert trend.predicted(2015.5) == pytest.approx(20e12)
    with_cpus = fit_hardware_trend("fp32", DB, include_cpus=True)
    assert with_cpus.n == 4 and with_cpus.include_cpus


def test_window_and_formats():
    assert [p.chip_id for p in hardware_points("fp32", DB, start_year=2014, end_year=2017)] == ["b"]
    trends = fit_hardware_trends(DB, min_chips=2, min_years=2)
    assert set(trends) == {"fp32", "bf16_tensor"}  # fp16_tensor has one chip
    assert set(fit_hardware_trends(DB, min_chips=2, min_years=2.5)) == {"fp32"}  # bf16's chips span 2 years
    assert trends["bf16_tensor"].doubling_months == pytest.approx(12.0)  # 4× in 2 years


def test_errors():
    with pytest.raises(InputError, match="unknown number format"):
        fit_hardware_trend("int4", DB)
    with pytest.raises(InputError, match="at least 2"):
        fit_hardware_trend("fp16_tensor", DB)


def test_the_shipped_hardware_database():
    # Epoch AI ("Trends in Machine Learning Hardware", 2023): FP32 peak of ML GPUs doubles every ~2.3 years;
    # accept a wide band, the database is curated separately
    db = load_hardware_db()
    fp32 = fit_hardware_trend("fp32", db)
    assert fp32.n >= 10 and 15 <= fp32.doubling_months <= 45
    for key, trend in fit_hardware_trends(db).items():
        assert trend.n >= 3 and trend.growth_per_year > 1, key
