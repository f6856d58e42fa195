"""``trace`` and ``profile``: the JSON carries exactly the keys the issue writes out; text on a terminal;
``profile`` runs a module's training steps here and its FLOP equal FlopCounterMode's."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.measure.example import EXAMPLE_TRACE
from tests.conftest import ROOT

STEP_KEYS = {"name", "total_ms", "busy_ms", "computation_ms", "exposed_comm_ms", "exposed_memcpy_ms", "idle_ms",
             "comm_ms", "memcpy_ms", "op_flop"}
OP_KEYS = {"name", "input_dims", "dtype", "calls", "flop_per_call", "kernel_time_us", "tflops_per_s", "bytes", "bound"}


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_trace_json_contract(tmp_path):
    out = run("trace", str(EXAMPLE_TRACE), "--model-flop", "4e11", "--format", "json", "--report",
              str(tmp_path / "r.md"))
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert {"device", "chip", "steps", "whole_trace", "ops", "unattributed_kernel_time_us", "hfu", "mfu"} <= set(d)
    assert d["device"] == "NVIDIA H100 80GB HBM3" and d["chip"] == "nvidia-h100-sxm"
    assert all(STEP_KEYS <= set(s) for s in d["steps"]) and len(d["steps"]) == 3
    assert {"span_us", "idle_us", "compute_us", "non_compute_us"} <= set(d["whole_trace"])
    assert d["ops"] and all(OP_KEYS <= set(o) for o in d["ops"])
    step = d["steps"][0]
    h100_bf16 = 989.4e12  # NVIDIA H100 SXM datasheet, dense
    assert d["mfu"] == pytest.approx(4e11 / (step["total_ms"] / 1e3 * h100_bf16), rel=1e-9)
    # the split adds up: computation + exposed communication + exposed memcpy + idle = total (TraceLens's identity)
    assert step["computation_ms"] + step["exposed_comm_ms"] + step["exposed_memcpy_ms"] + step["idle_ms"] == \
        pytest.approx(step["total_ms"], rel=1e-9)
    report = (tmp_path / "r.md").read_text()
    assert report.startswith("# Measured run: example\\_trace\\.json\\.gz") and "Bottlenecks" in report


def test_trace_text_and_step(tmp_path):
    out = run("trace", str(EXAMPLE_TRACE), "--step", "2", "--format", "text")
    assert out.returncode == 0, out.stderr
    assert "ProfilerStep#2" in out.stdout and "ProfilerStep#1" not in out.stdout and "HFU" in out.stdout
    bad = run("trace", str(EXAMPLE_TRACE), "--step", "9")
    assert bad.returncode == 2 and "has no ProfilerStep#9 (its steps: 1, 2, 3)" in bad.stderr


def test_trace_folder_of_ranks(tmp_path):
    from tools.synthetic_trace import example
    example(steps=2).write(tmp_path / "rank0.json")
    slow = example(steps=2, batch=8)
    slow.meta["distributedInfo"]["rank"] = 1
    slow.write(tmp_path / "rank1.json.gz")
    d = json.loads(run("trace", str(tmp_path), "--format", "json").stdout)
    assert [r["rank"] for r in d["ranks"]] == [0, 1]
    times = [r["step_ms"] for r in d["ranks"]]
    assert d["spread"]["step_ms_max"] == max(times) and d["spread"]["slowest_rank"] == 1
    assert d["spread"]["spread"] == pytest.approx(max(times) / min(times) - 1)
    flop = sum(r["executed_flop_per_step"] for r in d["ranks"]) / 2
    assert d["hfu"] == pytest.approx(flop / (max(times) / 1e3 * 989.4e12))


def test_profile_here_counts_what_flop_counter_counts(torch, tmp_path):
    (tmp_path / "net.py").write_text(
        "import torch\n"
        "def build():\n"
        "    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))\n")
    out = run("profile", "net.py:build", "--input", "8,16", "--steps", "2", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert (tmp_path / "build.pt.trace.json").is_file()
    # forward 2·8·16·32 + 2·8·32·4; backward: the second layer's input and weight gradients, the first's weight
    # gradient only (the input needs none): FlopCounterMode's count of output.sum().backward()
    forward = 2 * 8 * 16 * 32 + 2 * 8 * 32 * 4
    backward = 2 * (2 * 8 * 32 * 4) + 2 * 8 * 16 * 32
    assert [s["op_flop"] for s in d["steps"]] == [forward + backward] * 2
    assert d["utilization"]["model_flop_per_step"] == forward + backward


@pytest.mark.parametrize("where,words", [("folder", "is a folder"), ("link", "is a link"),
                                         ("device", "not a regular file"), ("missing", "does not exist")])
def test_profile_never_writes_over_what_is_not_a_file(tmp_path, where, words):
    """``--out`` naming a folder, a link, a socket or a file in a missing folder: one line naming ``--out``, exit 2,
    and nothing at the path touched (the profiler's writer replaced whatever was there: a folder, /dev/full)."""
    (tmp_path / "net.py").write_text("import torch\ndef build():\n    return torch.nn.Linear(4, 4)\n")
    folder = tmp_path / "d"
    folder.mkdir()
    target = {"folder": folder, "link": tmp_path / "l.json", "device": tmp_path / "s.sock",
              "missing": tmp_path / "no" / "t.json"}[where]
    if where == "link":
        (tmp_path / "real.json").write_text("keep")
        target.symlink_to(tmp_path / "real.json")
    if where == "device":  # a socket: not a regular file, and opening it fails rather than blocks (a pipe would)
        import socket
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
    out = run("profile", "net.py:build", "--input", "2,4", "--out", str(target), cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("error: --out:") and words in out.stderr
    assert folder.is_dir() and not list(folder.iterdir())
    assert (tmp_path / "real.json").read_text() == "keep" if where == "link" else True
    assert where != "device" or (target.exists() and not target.is_file())


@pytest.mark.parametrize("extra,line", [
    (["--step", "-1"], "error: arguments: argument --step: '-1': a step number (ProfilerStep#N) or 'all'"),
    (["--scenario", "{tmp}", "--batch", "2"], "is a folder, not a file"),
    (["--config", "/dev/zero", "--batch", "1", "--seq", "8"],
     "error: --config: '/dev/zero' is not a regular file (a device or a pipe)"),
])
def test_trace_flags_name_what_is_wrong(tmp_path, extra, line):
    """Each line says what the flag's value is (it said "invalid step_arg value", and "no such file" for a folder
    or a device)."""
    extra = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    out = run("trace", str(EXAMPLE_TRACE), *extra)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.strip() == line if line.startswith("error:") else \
        out.stderr.startswith("error: --scenario: '") and line in out.stderr
