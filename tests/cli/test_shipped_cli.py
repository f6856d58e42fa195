"""The CLI with each shipped data file broken (all six faults): a command that needs the file exits 2 with one line
naming it ('error: models.json: empty'), never 'internal: JSONDecodeError' nor the user blamed; a command that does
not need it answers as usual."""
from __future__ import annotations

import json

import pytest

from engine.shipped import SHIPPED_FILES
from tests.cli import cli
from tests.llm.test_multimodal_configs import GEMMA_3_4B
from tests.shipped_faults import FAULTS, broken_copy, forget, reason_in, use

NEEDED_BY = {
    "hardware_db.json": [("chips",), ("hardware", "--chip", "a100", "--count", "8", "--days", "1")],
    "training_runs.csv": [("trend",)],
    "utilization_reports.csv": [("priors",)],
    "config_keys.json": [("transformer", "--model", "qwen3-0.6b", "--tokens", "1e9")],
    "models.json": [("transformer", "--list-models"), ("transformer", "--model", "qwen3-0.6b", "--tokens", "1e9")],
    "multimodal_wrappers.json": [("transformer", "--config", "{gemma}", "--tokens", "1e9")],
    "pue.csv": [("hardware", "--chip", "a100", "--count", "8", "--days", "1", "--provider", "aws")],
    "grid_intensity.csv": [("hardware", "--chip", "a100", "--count", "8", "--days", "1", "--place", "fr")],
    "interconnects.json": [("plan", "--model", "llama2-7b", "--chip", "h100", "--chips", "8", "--tp", "8",
                                   "--global-batch", "64")],
    "published_runs.json": [("memory", "--model", "narayanan-1-7b")],
    "model_error.json": [("plan", "--model", "llama2-7b", "--chip", "h100", "--chips", "8", "--dp", "8",
                          "--global-batch", "64")],
    "efficiencies.json": [("serve", "--model", "llama-3.1-8b", "--chip", "h100-sxm", "--prompt-tokens", "1000",
                           "--output-tokens", "200")],
    "measured_serving.json": [],  # read by the serving check (tests, tools/fit_serving.py), by no command
    "factors.json": [("compress", "--model", "llama-3.2-1b", "--seq-len", "2048", "--technique", "two_four",
                      "--chip", "a100-sxm4-80gb")],
    "library_keys.json": [("flops", "--config", "{gemma}")],
}
"""Commands that read each file."""
assert set(NEEDED_BY) == set(SHIPPED_FILES)
UNAFFECTED = ("flops", "--preset", "resnet18")
"""A command that reads none of them (its preset is a layer list)."""


@pytest.fixture(autouse=True)
def _forget_after():
    yield
    forget()


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_a_command_needing_a_broken_file_gives_one_line_naming_it(tmp_path, monkeypatch, name, fault):
    gemma = tmp_path / "gemma3.json"
    gemma.write_text(json.dumps(GEMMA_3_4B))
    use(monkeypatch, name, broken_copy(name, fault, tmp_path))
    for command in NEEDED_BY[name]:
        out = cli(*[part.format(gemma=gemma) for part in command], "--format", "json")
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and len(lines) == 1 and out.stdout == "", (command, out)
        assert lines[0].startswith(f"error: {name}") and reason_in(fault, name, lines[0]), (command, lines)
        assert "internal" not in lines[0] and str(tmp_path) not in lines[0], lines
    if name != "hardware_db.json":  # (every preset's hardware figures come from it)
        out = cli(*UNAFFECTED, "--format", "json")
        assert out.returncode == 0 and json.loads(out.stdout)["params"] > 0, (name, out.stderr)
