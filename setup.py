"""Packaging hook: copies the data files kept at the repository root into the built package.

``hardware_db.json``, ``training_runs.csv`` and ``utilization_reports.csv`` live at the root, where
contributors edit them beside their notes; an installed ``engine`` finds them in ``engine/_shipped/``
(``engine/shipped.py``). Everything else is declared in ``pyproject.toml``.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
ROOT_FILES = ("hardware_db.json", "training_runs.csv", "utilization_reports.csv")  # engine/shipped.py


class BuildWithShippedData(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "engine" / "_shipped"
        target.mkdir(parents=True, exist_ok=True)
        for name in ROOT_FILES:
            shutil.copy2(ROOT / name, target / name)


setup(cmdclass={"build_py": BuildWithShippedData})
