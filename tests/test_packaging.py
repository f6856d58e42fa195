"""``pip install .`` gives a working ``flopscope`` command whose data files come with it, and the
package's dependencies are requirements.txt's."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import ROOT


def _requirements(path) -> list[str]:
    lines = (line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("-r")]


def test_dependencies_are_the_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["dependencies"] == _requirements(ROOT / "requirements.txt")
    extras = project["optional-dependencies"]
    assert sorted(extras["test"] + extras["torch"]) == sorted(_requirements(ROOT / "requirements-dev.txt"))
    assert project["scripts"]["flopscope"] == "engine.cli:main"


def test_the_installed_command_works_outside_the_checkout(tmp_path):
    pytest.importorskip("setuptools")
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "hardware_db.json", "training_runs.csv",
                 "utilization_reports.csv"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "engine", source / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True, capture_output=True)
    script = target / "bin" / "flopscope"
    assert script.exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}

    def flopscope(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), *args, "--format", "json"], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=120)

    done = flopscope("flops", "--preset", "epoch-cnn-lstm")
    assert done.returncode == 0, done.stderr
    conv, lstm = 2 * 200 * 200 * 16 * 125, 8 * (640_000 * 256 + 256 ** 2)  # matmul: no bias adds
    assert json.loads(done.stdout)["training_flop"] == 3 * 128_000 * (20 * (conv + lstm) + 5_120)
    chips = flopscope("chips")  # hardware_db.json, from the installed package
    assert chips.returncode == 0, chips.stderr
    assert any(c["id"] == "nvidia-h100-sxm" for c in json.loads(chips.stdout))
    trend = flopscope("trend")  # training_runs.csv
    assert trend.returncode == 0, trend.stderr
    bad = flopscope("hardware", "--chip", "nvidia-h100-sxm", "--count", "-1", "--days", "3", "--utilization", "0.4")
    assert (bad.returncode, bad.stderr.strip()) == (2, "error: chip_count: must be greater than 0")
    assert str(target) in subprocess.run(
        [sys.executable, "-c", "import engine; print(engine.__file__)"], cwd=elsewhere, env=env,
        capture_output=True, text=True, check=True).stdout
