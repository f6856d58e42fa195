"""Every command that reads a user's file names the file and the reason in one line (exit 2): missing,
a folder, empty, UTF-16, Windows-1252, cut short, not a CSV — never 'internal: an unexpected …'."""
from __future__ import annotations

import pytest

from engine.trends import runs_dataset
from tests.cli import cli

GPT2_LIKE = '{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100}'
EPOCH_CSV = "Model,Publication date,Training compute (FLOP)\nAlexNet,2012-09-30,4.7e17\n"

# the file's bytes → the reason the line must give (written here, from the bytes, not from the code)
JSON_FAULTS = {
    "empty": (b"", "is empty"),
    "utf16_bom": (("\ufeff" + GPT2_LIKE).encode("utf-16-le"), "looks like UTF-16"),
    "utf16": (GPT2_LIKE.encode("utf-16-le"), "looks like UTF-16"),
    "cp1252": ('{"model_type": "gpt2", "name": "caf\u00e9"}'.encode("cp1252"), "byte 36 is 0xe9"),
    "cut_short": (GPT2_LIKE[:30].encode(), "not valid JSON"),
    "utf32": (GPT2_LIKE.encode("utf-32-le"), "looks like UTF-32"),
    # NULs at random places are not UTF-16 (once so reported): a binary file
    "binary": (bytes(range(256)) * 4, "not a text file (it holds NUL bytes"),
    # json's message "Invalid control character at" is followed by the position: "at line", not "at at line"
    "control_character": (b'{"model_type": "gpt\x01"}', "invalid control character at line 1, column 20"),
}
CSV_FAULTS = {
    "empty": (b"", "the file is empty"),
    "utf16": (EPOCH_CSV.encode("utf-16"), "looks like UTF-16"),
    "utf32": (EPOCH_CSV.encode("utf-32"), "looks like UTF-32"),
    "undecodable": (EPOCH_CSV.encode() + b"\x81\x8d\x8f\x90\x9d,2020,1e20\n", "neither UTF-8 nor Windows-1252"),
    "not_epoch": (b"a,b\n1,2\n", "missing column"),
}
JSON_COMMANDS = [("flops", ("{}",)), ("transformer", ("--config", "{}", "--tokens", "1e9")),
                 ("memory", ("--config", "{}"))]
CSV_COMMANDS = ["trend", "reconcile", "priors"]


def one_line(out) -> str:
    assert out.returncode == 2 and out.stdout == "", (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal" not in lines[0] and "Traceback" not in out.stderr, out.stderr
    return lines[0]


def json_command(command: str, pattern: tuple[str, ...], path: str):
    return cli(command, *(word.format(path) for word in pattern))


@pytest.mark.parametrize("fault", sorted(JSON_FAULTS))
@pytest.mark.parametrize("command,pattern", JSON_COMMANDS)
def test_json_file_faults_name_the_file_and_the_reason(tmp_path, command, pattern, fault):
    data, reason = JSON_FAULTS[fault]
    path = tmp_path / "model config.json"
    path.write_bytes(data)
    line = one_line(json_command(command, pattern, str(path)))
    assert str(path) in line and reason in line, line


@pytest.mark.parametrize("fault", sorted(CSV_FAULTS))
@pytest.mark.parametrize("command", CSV_COMMANDS)
def test_csv_file_faults_name_the_file_and_the_reason(tmp_path, command, fault):
    data, reason = CSV_FAULTS[fault]
    path = tmp_path / "epoch.csv"
    path.write_bytes(data)
    line = one_line(cli(command, "--csv", str(path)))
    assert line.startswith(f"error: csv: '{path}'") and reason in line, line


@pytest.mark.parametrize("command", CSV_COMMANDS + [c for c, _ in JSON_COMMANDS])
@pytest.mark.parametrize("where", ["missing", "folder"])
def test_missing_files_and_folders(tmp_path, command, where):
    path = tmp_path / "nope.csv" if where == "missing" else tmp_path
    out = cli(command, "--csv", str(path)) if command in CSV_COMMANDS else \
        json_command(command, dict(JSON_COMMANDS)[command], str(path))
    line = one_line(out)
    assert f"'{path}' does not exist or is not a file" in line


@pytest.mark.parametrize("data,reason", [
    (b"name,organization\n\xff\xfe\x00", "not UTF-8 text (byte"),
    (b"", "empty"),
    (b"name,organization,publication_date\nAlexNet,Toronto,2012", "cut short"),
])
def test_trend_on_a_broken_shipped_dataset_names_it(tmp_path, monkeypatch, data, reason):
    """Before: a non-UTF-8 training_runs.csv exited 1 with 'internal: an unexpected UnicodeDecodeError'."""
    path = tmp_path / "training_runs.csv"
    path.write_bytes(data)
    monkeypatch.setattr(runs_dataset, "DATASET_PATH", path)
    line = one_line(cli("trend"))
    assert line.startswith("error: training_runs.csv: ") and reason in line and str(tmp_path) not in line
