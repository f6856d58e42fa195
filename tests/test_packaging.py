"""``pip install .`` gives the ``flopscope_compute`` package (the ``engine/`` folder under the import name the
project owns; nothing named ``engine`` installed) and a working ``flopscope`` command whose data files come with
it; the CLI and the API run without the dashboard's Streamlit; the dependencies and the dashboard extra are
requirements.txt's."""
from __future__ import annotations

import ast
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
    extras = project["optional-dependencies"]
    assert sorted(project["dependencies"] + extras["dashboard"]) == sorted(_requirements(ROOT / "requirements.txt"))
    assert not {"streamlit", "plotly"} & {d.split(">")[0].split("=")[0] for d in project["dependencies"]}
    assert sorted(extras["test"] + extras["torch"]) == sorted(_requirements(ROOT / "requirements-dev.txt"))
    assert project["name"] == "flopscope-compute"
    assert project["scripts"]["flopscope"] == "flopscope_compute.cli:main"


def test_the_engine_imports_itself_relatively():
    """An absolute ``from engine… import`` inside engine/ would fail once installed as ``flopscope_compute``."""
    absolute = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            absolute += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names
                         if n == "engine" or n.startswith("engine.")]
    assert absolute == []


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
    llava = flopscope("flops", "--config", str(ROOT / "tests" / "multimodal" / "configs" / "llava-1.5-7b.json"))
    assert llava.returncode == 0, llava.stderr  # the multimodal readers, registered by package-relative names
    assert json.loads(llava.stdout)["params"] == 7_063_427_072  # LlavaForConditionalGeneration on meta, Σ numel
    trend = flopscope("trend")  # training_runs.csv
    assert trend.returncode == 0, trend.stderr
    bad = flopscope("hardware", "--chip", "nvidia-h100-sxm", "--count", "-1", "--days", "3", "--utilization", "0.4")
    assert (bad.returncode, bad.stderr.strip()) == (2, "error: chip_count: must be greater than 0")
    # the package under its own name, nothing called engine beside it; the API without Streamlit
    assert (target / "flopscope_compute" / "_shipped" / "hardware_db.json").exists()
    assert not (target / "engine").exists()
    api = subprocess.run([sys.executable, "-c", (
        "import sys, json, flopscope_compute as f\n"
        "r = f.estimate_hardware({'chip': 'nvidia-h100-sxm', 'chip_count': 8, 'duration': 1, 'duration_unit': 'days',"
        " 'utilization': 0.4})\n"
        "print(json.dumps([f.__file__, r.training_flop, 'streamlit' in sys.modules]))")],
        cwd=elsewhere, env=env, capture_output=True, text=True)
    assert api.returncode == 0, api.stderr
    where, flop, streamlit = json.loads(api.stdout)
    assert where.startswith(str(target)) and not streamlit
    assert flop == pytest.approx(8 * 86_400 * 989.4e12 * 0.4)  # chips × seconds × dense BF16 peak × utilization
    gone = subprocess.run([sys.executable, "-c", "import engine"], cwd=elsewhere, env=env, capture_output=True,
                          text=True)
    assert gone.returncode == 1 and "No module named 'engine'" in gone.stderr
