"""The roofline against published serving measurements (engine/serve/measured_serving.json, docs/serving.md)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.serve import validation
from engine.serve.engines import EFFICIENCIES

DOC = Path(__file__).resolve().parents[2] / "docs" / "serving.md"


@pytest.fixture(scope="module")
def errors():
    return validation.row_errors()


def test_roles_follow_the_rule_written_before_the_fit():
    # per engine: the rows of the first model in the first table of its first source calibrate
    rows = validation.measured()["rows"]
    first = {}
    for row in rows:
        first.setdefault(row["engine"], (row["source"], row.get("table"), row["model"]))
    for row in rows:
        expected = (row["source"], row.get("table"), row["model"]) == first[row["engine"]]
        assert (row["role"] == "calibration") == expected, row["id"]
    assert "before any efficiency was fitted" in validation.measured()["rule"]


def test_every_row_names_its_source():
    data = validation.measured()
    assert all(row["source"] in data["sources"] and data["sources"][row["source"]].count("https://") >= 1
               for row in data["rows"])


def test_enough_rows_and_engines(errors):
    check = [e for e in errors if e.role == "validation"]
    assert len(check) >= 20 and len({e.engine for e in check}) >= 3
    assert not {e.id for e in check} & {e.id for e in errors if e.role == "calibration"}


def test_validation_errors_as_documented(errors):
    """The errors docs/serving.md reports (its summary line), recomputed."""
    summary = validation.summary([e for e in errors if e.role == "validation"])
    text = DOC.read_text(encoding="utf-8")
    median, worst = (float(x) / 100 for x in re.search(
        r"Validation \((\d+) rows\): median ([\d.]+)%, worst ([\d.]+)%", text).groups()[1:])
    assert summary["median_abs_error"] == pytest.approx(median, abs=5e-4)
    assert summary["worst_abs_error"] == pytest.approx(worst, abs=5e-4)


@pytest.mark.xfail(strict=True, reason="the issue's target (median ≤ 15%, worst ≤ 35%) is not met: validation median "
                                       "13.0% (met), worst 61.8% — TensorRT-LLM's tensor-parallel mixtures of experts "
                                       "(Mixtral at TP 4–8, median +23–30%, up to +62%) and Llama 3.1 70B (TP 1 on "
                                       "H200 +49%, TP 8 median +12%); "
                                       "docs/serving.md")
def test_the_issues_target(errors):
    summary = validation.summary([e for e in errors if e.role == "validation"])
    assert summary["median_abs_error"] <= 0.15 and summary["worst_abs_error"] <= 0.35


def test_per_engine_errors_within_what_is_reported(errors):
    by = {}
    for e in errors:
        if e.role == "validation":
            by.setdefault(e.engine, []).append(e)
    pytorch = validation.summary(by["PyTorch (gpt-fast, torchao)"])
    assert pytorch["median_abs_error"] < 0.10 and pytorch["worst_abs_error"] < 0.30


def test_the_fit_reproduces_the_stored_efficiencies():
    from tools.fit_serving import fit

    stored = json.loads(EFFICIENCIES.read_text(encoding="utf-8"))
    refit = fit()
    for engine_id, values in stored["engines"].items():
        assert refit["engines"][engine_id]["compute"] == pytest.approx(values["compute"], rel=0.02)
        assert refit["engines"][engine_id]["memory"] == pytest.approx(values["memory"], rel=0.02)
    assert refit["weight_only"]["int4"] == pytest.approx(stored["weight_only"]["int4"], rel=0.02)
