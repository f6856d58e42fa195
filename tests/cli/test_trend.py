"""``python -m engine trend``: JSON out, or exit 2 with one line."""
from __future__ import annotations

import csv
import json

import pytest

from tests.cli import cli
from tests.conftest import ROOT


def run(*args):
    return cli("trend", *args)


def ok(*args) -> dict:
    out = run(*args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_default_is_the_shipped_dataset():
    data = ok()
    with (ROOT / "training_runs.csv").open(encoding="utf-8") as f:
        rows = sum(1 for _ in csv.DictReader(f))
    assert data["n"] == rows and data["skipped"] == 0 and data["source"] == "training_runs.csv"
    for key in ("doubling_months", "growth_per_year", "ci_doubling_months"):
        assert key in data
    low, high = data["ci_doubling_months"]
    assert low < data["doubling_months"] < high


def test_openai_window_on_the_shipped_dataset():
    # Amodei & Hernandez 2018: 3.4-month doubling 2012–2018 over record-setting runs
    data = ok("--from", "2012", "--to", "2018", "--frontier")
    assert 3.0 <= data["doubling_months"] <= 4.0
    assert data["window"] == {"start_year": 2012.0, "end_year_exclusive": 2019.0, "domain": None,
                              "frontier": "records", "top_k": None}
    assert ok("--window", "openai-2012-2018")["n"] == data["n"]


def test_domain_and_top_k():
    language = ok("--domain", "language", "--from", "2018")
    assert 0 < language["n"] < ok("--from", "2018")["n"]
    assert ok("--top-k", "1", "--from", "2012")["window"]["frontier"] == "top_k"


def test_epoch_csv_counts_skipped_rows(shared_dir):
    data = ok("--csv", str(shared_dir / "data" / "epoch" / "epoch_notable_ai_models.csv"), "--to", "2009")
    # Sevilla et al. 2022: pre-deep-learning doubling ~20 months
    assert 17 <= data["doubling_months"] <= 24
    assert data["rows"] == 954 and data["skipped"] > 0
    assert data["skipped"] == sum(data["skipped_by_reason"].values())


@pytest.mark.parametrize("args,expected", [
    (["--from", "2019", "--to", "2012"], "before --from"),
    (["--from", "twenty"], "invalid int value"),
    (["--from", "2040"], "window"),
    (["--domain", "Cooking"], "window"),
    (["--top-k", "0"], "--top-k"),
    (["--window", "openai-2012-2018", "--from", "2012"], "--window"),
    (["--window", "nope"], "invalid choice"),
    (["--csv", "/no/such/file.csv"], "does not exist"),
])
def test_bad_arguments_exit_2_with_one_line(args, expected):
    out = run(*args)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in out.stderr


@pytest.mark.parametrize("content,expected", [
    (b"", "empty"),
    (bytes(range(256)) * 10, "binary"),
    (b"a,b,c\n1,2,3\n", "missing column(s)"),
    (b"Model,Publication date,Training compute (FLOP)\nX,2020,1e20\n", "at least 2"),
])
def test_bad_csv_exits_2(tmp_path, content, expected):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    out = run("--csv", str(path))
    assert out.returncode == 2 and expected in out.stderr and len(out.stderr.strip().splitlines()) == 1
