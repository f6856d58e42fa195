"""Packaging: the ``engine/`` folder installed under the import name ``flopscope_compute`` (distribution
``flopscope-compute``; nothing named ``engine`` reaches site-packages), and the data files kept at the repository
root copied into it.

``hardware_db.json``, ``training_runs.csv`` and ``utilization_reports.csv`` live at the root, where contributors
edit them beside their notes; the installed package finds them in ``flopscope_compute/_shipped/``
(``engine/shipped.py``). The engine's imports of itself are relative (a test checks it), so the same files run as
``engine`` in the checkout and as ``flopscope_compute`` installed. The rest is declared in ``pyproject.toml``.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
IMPORT_NAME = "flopscope_compute"
SOURCE = "engine"
ROOT_FILES = ("hardware_db.json", "training_runs.csv", "utilization_reports.csv")  # engine/shipped.py


def packages() -> list[str]:
    """``flopscope_compute`` and each of its subpackages: every folder of ``engine/`` with an ``__init__.py``."""
    found = []
    for init in sorted((ROOT / SOURCE).rglob("__init__.py")):
        parts = init.parent.relative_to(ROOT / SOURCE).parts
        if "__pycache__" not in parts:
            found.append(".".join((IMPORT_NAME, *parts)))
    return found


class BuildWithShippedData(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / IMPORT_NAME / "_shipped"
        target.mkdir(parents=True, exist_ok=True)
        for name in ROOT_FILES:
            shutil.copy2(ROOT / name, target / name)


setup(packages=packages(), package_dir={IMPORT_NAME: SOURCE},
      package_data={IMPORT_NAME: ["**/*.json", "**/*.csv", "**/*.json.gz"]},
      cmdclass={"build_py": BuildWithShippedData})
