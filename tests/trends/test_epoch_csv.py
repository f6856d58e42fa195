"""Epoch AI CSV import: the real downloads, older headers, and files that are not such CSVs."""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.trends.epoch_csv import EpochImport, read_epoch_csv


def write(tmp_path, content: str | bytes, name: str = "models.csv"):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def test_notable_models_copy(shared_dir):
    result = read_epoch_csv(shared_dir / "data" / "epoch" / "epoch_notable_ai_models.csv")
    assert result.rows_read == 954  # data/README.md: 954 rows
    assert len(result.runs) + result.skipped == result.rows_read
    assert len(result.runs) >= 450
    assert result.columns["name"] == "Model" and result.columns["flop"] == "Training compute (FLOP)"
    gpt3 = next(r for r in result.runs if r.name.startswith("GPT-3 175B"))
    assert gpt3.training_flop == pytest.approx(3.14e23, rel=0.01) and gpt3.publication_date == "2020-05-28"
    assert min(r.decimal_year for r in result.runs) < 1960


def test_all_models_slim_copy(shared_dir):
    result = read_epoch_csv(shared_dir / "data" / "epoch" / "epoch_all_ai_models_slim.csv")
    assert result.rows_read == 2228  # data/README.md: 2,228 rows
    assert result.skipped_by_reason.get("no date", 0) > 0  # a few rows lack a date: skipped, counted
    assert len(result.runs) + result.skipped == result.rows_read


SYSTEM_CSV = (
    "Domain,System,Training compute (FLOPs),Publication date,Organization(s),Parameters\n"
    "Vision,Old A,1.5E+20,2015,Lab,1e6\n"
    "Language,Old B,\"314,000,000,000,000,000,000,000\",2020-05,OpenAI,\n"
    "Games,Old C,  7e21 ,2017-10-18,DeepMind,\n"
    "Games,Old D,.5e3,1960-06-30,Lab,\n"
    "Vision,No flop,,2016-01-01,Lab,\n"
    "Vision,Nan flop,nan,2016-01-01,Lab,\n"
    "Vision,Inf flop,inf,2016-01-01,Lab,\n"
    "Vision,Negative,-5e20,2016-01-01,Lab,\n"
    "Vision,Zero,0,2016-01-01,Lab,\n"
    "Vision,Words,about 1e20,2016-01-01,Lab,\n"
    "Vision,Overflow,1e400,2016-01-01,Lab,\n"
    "Vision,Bad month,1e20,2016-13,Lab,\n"
    "Vision,Bad day,1e20,2016-02-30,Lab,\n"
    "Vision,No date,1e20,,Lab,\n"
    "Vision,Short row\n"
    "\n"
)


def test_older_system_header_partial_dates_and_float_notations(tmp_path):
    result = read_epoch_csv(write(tmp_path, SYSTEM_CSV))
    assert result.columns == {"domain": "Domain", "name": "System", "flop": "Training compute (FLOPs)",
                              "date": "Publication date", "organization": "Organization(s)"}
    assert [(r.name, r.publication_date, r.training_flop) for r in result.runs] == [
        ("Old A", "2015", 1.5e20), ("Old B", "2020-05", 3.14e23), ("Old C", "2017-10-18", 7e21),
        ("Old D", "1960-06-30", 500.0)]
    assert result.runs[0].decimal_year == 2015.5
    assert result.rows_read == 15  # the blank line is not a row
    # a row missing both counts under its date, the first thing checked
    assert result.skipped_by_reason == {"bad date": 2, "bad training compute": 6, "no date": 2,
                                        "no training compute": 1}
    assert result.skipped == 11


def test_compute_outside_1_to_1e40_flop_is_a_bad_row_and_the_fit_still_runs():
    """1e-300 FLOP is no run's compute (its log, −300, overflowed the fit's 10^slope: an internal error), nor is 1e308:
    each is a bad row, counted; 1 and 1e40 FLOP are read."""
    from engine.trends.fit import log_linear_fit_fields

    rows = [("A", "2019-01-01", "1e21"), ("B", "2020-06-01", "1e-300"), ("C", "2021-06-01", "1e23"),
            ("D", "2022-06-01", "1e24"), ("E", "2022-09-01", "1e308"), ("F", "1958-01-01", "1"),
            ("G", "2023-01-01", "1e40")]
    text = "Model,Publication date,Training compute (FLOP)\n" + "".join(f"{n},{d},{f}\n" for n, d, f in rows)
    result = read_epoch_csv(text.encode())
    assert [r.name for r in result.runs] == ["A", "C", "D", "F", "G"]
    assert result.skipped_by_reason == {"bad training compute": 2}
    kept = result.runs[:3]
    fit = log_linear_fit_fields([r.decimal_year for r in kept], [r.training_flop for r in kept])
    assert fit["growth_per_year"] > 1 and all(map(math.isfinite, fit["ci_growth_per_year"]))


def test_bytes_bom_semicolons_and_windows_1252(tmp_path):
    text = "Model;Publication date;Training compute (FLOP)\nCafé;2021-01-05;4.7e22\n"
    for data in (("\ufeff" + text).encode("utf-8"), text.encode("cp1252")):
        result = read_epoch_csv(data)
        assert [(r.name, r.training_flop) for r in result.runs] == [("Café", 4.7e22)]


def test_header_only_is_an_empty_import():
    result = read_epoch_csv(b"Model,Publication date,Training compute (FLOP)\n")
    assert isinstance(result, EpochImport) and result.runs == [] and result.rows_read == 0


def test_unnamed_rows_are_kept_with_a_placeholder():
    result = read_epoch_csv(b"Model,Publication date,Training compute (FLOP)\n,2020,1e20\n")
    assert result.runs[0].name == "(row 1, unnamed)"


@pytest.mark.parametrize("content,reason", [
    (b"", "empty"),
    (b"   \n\n  ", "empty"),
    (bytes(range(256)) * 64, "binary"),
    (b"\x89PNG\r\n\x1a\n" + bytes(200), "binary"),
    (bytes([0x81, 0x8d, 0x8f, 0x90, 0x9d]) * 10 + b"\xff\xfe", "not a text file"),
    (b"\x01\x02\x03\x04\x05\x06\x07\x08" * 100, "binary"),
    (b"foo,bar\n1,2\n", "missing column(s) 'Model' (or 'System'), 'Publication date'"),
    (b"Model,Publication date\nX,2020\n", "missing column(s) 'Training compute (FLOP)'"),
    (b'{"models": [1, 2, 3]}', "not an Epoch AI models CSV"),
])
def test_not_an_epoch_csv(tmp_path, content, reason):
    with pytest.raises(InputError) as info:
        read_epoch_csv(write(tmp_path, content))
    assert info.value.field == "csv" and reason in info.value.reason


def test_huge_line_is_refused(tmp_path):
    huge = "Model,Publication date,Training compute (FLOP)\nX," + "9" * 2_000_000 + ",1e20\n"
    with pytest.raises(InputError, match="line"):
        read_epoch_csv(write(tmp_path, huge))
    with pytest.raises(InputError, match="longer than"):
        read_epoch_csv(write(tmp_path, "M" * 2_000_000 + "\n"))


def test_unterminated_quote_is_not_a_crash(tmp_path):
    text = 'Model,Publication date,Training compute (FLOP)\nA,2020,1e20\n"B,2021,1e21\nC,2022,1e22\n'
    result = read_epoch_csv(write(tmp_path, text))
    assert [r.name for r in result.runs] == ["A"]


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_epoch_csv(tmp_path / "nope.csv")
    with pytest.raises(InputError, match="not a file"):
        read_epoch_csv(tmp_path)




@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000) | st.text(max_size=2000).map(lambda t: t.encode("utf-8")))
def test_any_bytes_give_an_import_or_an_input_error(data):
    try:
        result = read_epoch_csv(data)
    except InputError as exc:
        assert exc.field == "csv" and "\n" not in str(exc)
    else:
        assert len(result.runs) + result.skipped == result.rows_read


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(*(st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=size)
                           for size in (20, 12, 12))), max_size=20))
def test_any_rows_under_a_good_header_never_fail(rows):
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["Model", "Publication date", "Training compute (FLOP)"])
    writer.writerows(rows)
    result = read_epoch_csv(buffer.getvalue().encode("utf-8"))
    assert len(result.runs) + result.skipped == result.rows_read
