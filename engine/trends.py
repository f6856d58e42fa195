"""Historical trends of training compute: one import for the trends page and the CLI.

- ``engine.runs_dataset`` — the shipped ``training_runs.csv`` (``load_training_runs``, ``runs_frame``)
- ``engine.epoch_import`` — Epoch AI CSVs (``read_epoch_csv``)
- ``engine.trend_fit`` — fits of log10(FLOP) on date, frontier selections, named windows
- ``engine.placement`` — where an estimate ranks among known runs
- ``engine.hardware_trend`` — peak FLOP/s per number format against release date
- ``engine.student_t`` — Student's t quantile for the confidence intervals
"""
from __future__ import annotations

from engine.epoch_import import EpochImport, read_epoch_csv
from engine.hardware_trend import HardwarePoint, HardwareTrend, fit_hardware_trend, fit_hardware_trends, hardware_points
from engine.placement import Placement, place_estimate
from engine.runs_dataset import DATASET_PATH, RunPoint, TrainingRun, load_training_runs, runs_frame, shipped_runs_frame
from engine.trend_fit import (NAMED_WINDOWS, LogLinearFit, TrendFit, TrendQuery, fit_named_window, fit_trend,
                              record_setters, select_runs, top_k_per_year)

__all__ = [
    "DATASET_PATH", "EpochImport", "HardwarePoint", "HardwareTrend", "LogLinearFit", "NAMED_WINDOWS", "Placement",
    "RunPoint", "TrainingRun", "TrendFit", "TrendQuery", "fit_hardware_trend", "fit_hardware_trends",
    "fit_named_window", "fit_trend", "hardware_points", "load_training_runs", "place_estimate", "read_epoch_csv",
    "record_setters", "runs_frame", "select_runs", "shipped_runs_frame", "top_k_per_year",
]
