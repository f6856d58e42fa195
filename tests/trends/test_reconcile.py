"""Reconciliation of an Epoch-format CSV: method 2 per row beside the reported compute.

Every expected ratio is computed here from the row's own numbers and the chip's datasheet peak,
written out with its source: C₂ = chips × hours × 3600 × peak × utilization.
"""
from __future__ import annotations

import json
import math

import pytest

from engine.cli import main
from engine.errors import InputError
from engine.trends.reconcile import reconcile_epoch_csv

# Dense peaks from the datasheets (not read from the database):
A100_BF16 = 312e12      # A100 datasheet: BF16 tensor 312 TFLOP/s dense (624 with sparsity)
V100_FP16 = 125e12      # V100 SXM2 datasheet: 125 TFLOP/s tensor
TPU_V3_BF16 = 123e12    # cloud.google.com/tpu/docs/v3: 123 TFLOP/s BF16 per chip
GTX_580_FP32 = 512 * 1544e6 * 2  # 512 cores × 1544 MHz × 2 (GTX 580 datasheet)
H100_BF16 = 989.4e12    # H100 SXM: 1979 "with sparsity" ÷ 2

HEADER = ("Model,Publication date,Domain,Training compute (FLOP),Training compute notes,Training time (hours),"
          "Training time notes,Training hardware,Hardware quantity,Hardware utilization,Base model,Confidence")
ROWS = [
    # name, date, domain, reported, compute notes, hours, time notes, hardware, count, utilization, base model
    ("Alpha", "2021-06-01", "Language", "1.0e21", "", "100", "", "NVIDIA A100", "64", "0.5", ""),
    ("Beta", "2018-03-01", "Vision", "5e19", "", "24", "", "NVIDIA Tesla V100 DGXS 32 GB", "8", "", ""),
    ("Gamma", "2019-09-01", "Language", "2.0e22", "", "200", "", "Google TPU v3", "512", "", ""),
    ("Delta", "2012-09-30", "Vision", "4.7e17", "", "144", "", "NVIDIA GeForce GTX 580", "2", "", ""),
    ("Epsilon", "2023-08-01", "Language", "8e23", "", "48", "", "NVIDIA A100", "32", "", "Big base 70B"),
    ("Zeta", "2022-05-01", "Language", "1e21", "", "2000", "8 GPUs for 250 hours = 2000 GPU-hours",
     "NVIDIA H100 SXM5 80GB", "8", "0.4", ""),
    ("Eta", "2017-01-01", "Vision", "1e20", "", "10", "", "Google TPU v2,Google TPU v1", "64", "", ""),
    ("Theta", "2024-01-01", "Vision", "1e20", "", "10", "", "Acme Brainchip 9000", "4", "", ""),
    ("Iota", "2020-01-01", "Vision", "", "", "10", "", "NVIDIA V100", "4", "", ""),
    ("Kappa", "2020-01-01", "Vision", "1e20", "", "NaN", "", "NVIDIA V100", "4", "", ""),
    ("Lambda", "2020-01-01", "Vision", "1e20", "", "", "", "", "", "", ""),
]


def _csv(rows=ROWS) -> bytes:
    lines = [HEADER] + [",".join(f'"{cell}"' for cell in (*row, "Likely")) for row in rows]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def result():
    return reconcile_epoch_csv(_csv())


def _row(result, name):
    return next(r for r in result.rows if r.name == name)


@pytest.mark.parametrize("name, expected", [
    ("Alpha", 64 * 100 * 3600 * A100_BF16 * 0.5 / 1.0e21),          # row's utilization
    ("Beta", 8 * 24 * 3600 * V100_FP16 * 0.4 / 5e19),               # Epoch's 40% for non-language
    ("Gamma", 512 * 200 * 3600 * TPU_V3_BF16 * 0.3 / 2.0e22),       # Epoch's 30% for language models
    ("Delta", 2 * 144 * 3600 * GTX_580_FP32 * 0.4 / 4.7e17),        # FP32: no tensor cores in 2010
])
def test_ratio_is_method2_over_reported(result, name, expected):
    row = _row(result, name)
    assert row.status == "compared"
    assert row.ratio == pytest.approx(expected, rel=2e-3)
    assert row.flagged == (not 1 / 3 <= expected <= 3)


def test_default_formats_and_assumed_utilization(result):
    assert _row(result, "Alpha").format == "BF16 tensor" and not _row(result, "Alpha").utilization_assumed
    assert _row(result, "Beta").format == "FP16 tensor" and _row(result, "Beta").utilization_assumed
    assert _row(result, "Delta").format == "FP32"


def test_base_model_is_the_likely_cause_of_a_low_ratio(result):
    row = _row(result, "Epsilon")
    expected = 32 * 48 * 3600 * A100_BF16 * 0.3 / 8e23
    assert row.ratio == pytest.approx(expected, rel=2e-3) and expected < 1 / 3
    assert row.flagged and "base model (Big base 70B)" in row.likely_cause


def test_chip_hours_given_as_hours_is_the_likely_cause_of_a_high_ratio(result):
    row = _row(result, "Zeta")
    expected = 8 * 2000 * 3600 * H100_BF16 * 0.4 / 1e21
    assert row.ratio == pytest.approx(expected, rel=2e-3) and expected > 3
    assert row.flagged and "chip-hours" in row.likely_cause
    assert f"{expected / 8:.3g}" in row.likely_cause  # the ratio read as chip-hours


def test_combined_entry_names_its_parts(result):
    row = _row(result, "Eta")
    assert row.status == "combined hardware" and row.ratio is None
    assert "Google TPU v2" in row.message and "Google TPU v1" in row.message


def test_unknown_chip_suggests_by_name_and_year(result):
    row = _row(result, "Theta")
    assert row.status == "unknown chip"
    assert "unknown chip 'Acme Brainchip 9000'" in row.message and "launched 2022–2024" in row.message


def test_rows_without_compute_or_with_bad_numbers(result):
    assert _row(result, "Iota").status == "no reported compute"
    assert _row(result, "Iota").method2_flop == pytest.approx(4 * 10 * 3600 * V100_FP16 * 0.4)
    assert _row(result, "Kappa").status == "bad input" and "Training time" in _row(result, "Kappa").message


def test_summary_counts_and_shares(result):
    s = result.summary
    assert s.rows_read == len(ROWS)
    assert s.rows_with_hardware == len(ROWS) - 1          # Lambda names no hardware
    assert s.rows_resolved == 8                           # all but Eta (combined), Theta (unknown) and Lambda
    ratios = [r.ratio for r in result.rows if r.status == "compared"]
    assert s.rows_compared == len(ratios) == 6
    ordered = sorted(ratios)
    assert s.median_ratio == pytest.approx((ordered[2] + ordered[3]) / 2)
    assert s.share_within_2x == pytest.approx(sum(0.5 <= x <= 2 for x in ratios) / 6)
    assert s.share_within_3x == pytest.approx(sum(1 / 3 <= x <= 3 for x in ratios) / 6)
    assert s.flagged == sum(not 1 / 3 <= x <= 3 for x in ratios)


def test_cli_reconcile_prints_rows_and_summary(tmp_path, capsys):
    path = tmp_path / "epoch.csv"
    path.write_bytes(_csv())
    assert main(["reconcile", "--csv", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["rows_compared"] == 6 and len(out["rows"]) == len(ROWS) - 1
    alpha = next(r for r in out["rows"] if r["name"] == "Alpha")
    assert alpha["ratio"] == pytest.approx(64 * 100 * 3600 * A100_BF16 * 0.5 / 1.0e21, rel=2e-3)


@pytest.mark.parametrize("content, needle", [
    (b"", "empty"), (b"\x00\x01\x02binary", "binary"), (b"a,b\n1,2\n", "missing column"),
])
def test_cli_bad_file_is_one_line_exit_2(tmp_path, capsys, content, needle):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    assert main(["reconcile", "--csv", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_hostile_cells_stay_one_line(tmp_path):
    rows = [("<script>x</script>", "2021-01-01", "Language", "1e308", "", "1e308", "", "NVIDIA A100", "1e308", "5", ""),
            ("Neg", "2021-01-01", "Language", "1e21", "", "-5", "", "NVIDIA A100", "8", "", ""),
            ("Long", "2021-01-01", "Language", "1e21", "", "10", "", "x" * 5000, "8", "", "")]
    result = reconcile_epoch_csv(_csv(rows))
    statuses = {r.name[:5]: r.status for r in result.rows}
    assert statuses["<scri"] == "bad input" and statuses["Neg"] == "bad input"
    assert statuses["Long"] == "unknown chip"
    assert all("\n" not in (r.message or "") for r in result.rows)
    assert all(len(r.hardware) <= 200 for r in result.rows)


def test_epoch_notable_models_file_summary(shared_dir, capsys):
    """The real file: report the summary (the closing note's figures come from here)."""
    path = shared_dir / "data" / "epoch" / "epoch_notable_ai_models.csv"
    result = reconcile_epoch_csv(path)
    s = result.summary
    with capsys.disabled():
        print(f"\nEpoch notable models: {json.dumps(s.as_dict())}")
    assert s.rows_with_hardware >= 140
    assert s.rows_resolved >= s.rows_with_hardware - 1  # only the combined "TPU v2,TPU v1" entry stays out
    assert 0.5 <= s.median_ratio <= 2 and s.share_within_3x >= 0.75
    unresolved = [r for r in result.rows if r.chip_id is None]
    assert all(r.status == "combined hardware" for r in unresolved)
    assert math.isfinite(s.median_ratio)


def test_input_error_for_missing_file():
    with pytest.raises(InputError) as info:
        reconcile_epoch_csv("/nonexistent/file.csv")
    assert info.value.field == "csv"


def test_notes_that_explain_a_flag_are_named():
    rows = [("Mu", "2022-01-01", "Vision", "1e19", "geometric mean of 1e18 and 1e20", "100", "", "NVIDIA A100",
             "64", "", ""),
            ("Nu", "2022-01-01", "Language", "1e18", "6ND = 6 * 1e8 * 1e9", "100", "", "NVIDIA A100", "64", "", "")]
    result = reconcile_epoch_csv(_csv(rows))
    mu, nu = result.rows
    assert mu.ratio == pytest.approx(64 * 100 * 3600 * A100_BF16 * 0.4 / 1e19) and mu.flagged
    assert "geometric mean" in mu.likely_cause
    assert nu.flagged and "counts operations" in nu.likely_cause
