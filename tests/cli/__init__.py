"""CLI tests: each call runs ``engine.cli.main(argv)`` in this process (``cli``), as the real
``python -m engine`` does after start-up; ``test_process.py`` keeps a few real-process smoke tests."""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from dataclasses import dataclass

from tests.conftest import ROOT


@dataclass
class Completed:
    """What a finished command left: its exit status and what it printed (as ``subprocess.run``'s)."""

    returncode: int
    stdout: str
    stderr: str


def cli(*args: str) -> Completed:
    """``python -m engine ARGS`` in-process: exit status, stdout, stderr."""
    from engine.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's --help
            code = exc.code if isinstance(exc.code, int) else 0
    return Completed(code, out.getvalue(), err.getvalue())


def process(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m engine ARGS`` as a real process (start-up, encoding, exit status as the shell sees it)."""
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def write(tmp_path, data, name="s.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)
