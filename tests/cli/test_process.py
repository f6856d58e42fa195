"""A few real ``python -m engine`` processes: start-up, exit status and streams as a shell sees them.
The other CLI tests call ``engine.cli.main`` in-process (the same code after start-up)."""
from __future__ import annotations

import json

from tests.cli import process, write
from tests.reference import EPOCH_EXAMPLE, EPOCH_EXAMPLE_FORWARD


def test_flops_process_prints_json_exits_0_and_imports_no_pandas(tmp_path):
    """One real process: JSON out, status 0, and start-up imports only what ``flops`` uses (no pandas, no
    streamlit: ``-X importtime`` lists every module imported)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "engine", "flops", write(tmp_path, EPOCH_EXAMPLE),
                          "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    assert json.loads(out.stdout)["forward_flop"] == EPOCH_EXAMPLE_FORWARD
    modules = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "engine.method1.estimate" in modules  # the check reads the real import list
    assert "pandas" not in modules and "streamlit" not in modules


def test_bad_input_process_exits_2_with_one_line(tmp_path):
    out = process("flops", write(tmp_path, {"input": {"shape": [8]}, "layers": [{"type": "dense", "units": 0}]}))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == ["error: layers[0].units: must be at least 1"]


def test_help_process_lists_every_command():
    out = process("--help")
    assert out.returncode == 0
    for command in ("flops", "schema", "chips", "hardware", "trend", "transformer"):
        assert command in out.stdout



GC_PROBE = """
import gc, runpy, sys
runs = []
gc.callbacks.append(lambda phase, info: phase == "start" and runs.append(gc.isenabled()))
frozen = gc.freeze
seen = {}
def freeze():
    seen.update(collections_before=len(runs) - seen.pop("package"), frozen_enabled=gc.isenabled())
    frozen()
gc.freeze = freeze
import engine  # the package first, as ``-m`` imports it before running ``__main__`` (its imports: collector on)
seen["package"] = len(runs)
sys.argv = ["engine", "flops", "--format", "json", sys.argv[1]]
try:
    runpy.run_module("engine", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    seen["status"] = exc.code
print(repr({**seen, "enabled_at_end": gc.isenabled()}), file=sys.stderr)
"""


def test_the_collector_is_off_for_the_imports_and_on_for_the_command(tmp_path):
    """``python -m engine`` turns the cyclic collector off while the CLI and the command's modules are imported (what
    they make lives to the end: ~40 collections finding almost no garbage) and back on, after freezing what they
    made, for the command itself. (The package ``engine`` is imported first, by ``-m``, with the collector on.)"""
    import ast
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = subprocess.run([sys.executable, "-c", GC_PROBE, write(tmp_path, EPOCH_EXAMPLE)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    seen = ast.literal_eval(out.stderr.strip().splitlines()[-1])
    assert seen == {"collections_before": 0, "frozen_enabled": False, "status": 0, "enabled_at_end": True}
    assert json.loads(out.stdout)["forward_flop"] == EPOCH_EXAMPLE_FORWARD
