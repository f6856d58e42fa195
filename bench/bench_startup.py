"""Whole-process start-up of the CLI: ``python -m engine flops FILE`` (median of repeated runs), and
whether pandas is imported on the way (``-X importtime``).

    .venv/bin/python -m bench.bench_startup [BASELINE_CHECKOUT]

With a second checkout (e.g. ``git worktree add /tmp/base <commit>``) the two run in turn, A B A B …,
and the ratio of the medians is printed: this tree's time over the baseline's.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = {"input": {"shape": [400, 400, 5], "sequence_length": 20},
            "layers": [{"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
                       {"type": "flatten"}, {"type": "lstm", "units": 256}, {"type": "dense", "units": 10}],
            "training": {"epochs": 10, "batches_per_epoch": 100, "batch_size": 128}}


def _run(checkout: Path, path: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine", "flops", path], cwd=checkout, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def imported_modules(checkout: Path, path: str) -> tuple[bool, float]:
    """(pandas imported?, cumulative import time of the top module in seconds) from ``-X importtime``."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "engine", "flops", path], cwd=checkout,
                         capture_output=True, text=True, check=True).stderr
    rows = [line.split("|") for line in out.splitlines() if line.startswith("import time:") and "|" in line]
    total = sum(int(r[0].split(":")[1]) for r in rows if r[0].split(":")[1].strip().isdigit()) / 1e6
    return any(r[2].strip() == "pandas" for r in rows), total


def main() -> None:
    baseline = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "s.json")
        Path(path).write_text(json.dumps(SCENARIO))
        trees = [("this tree", ROOT)] + ([("baseline", baseline)] if baseline else [])
        samples: dict[str, list[float]] = {name: [] for name, _ in trees}
        for name, tree in trees:  # warm-up
            _run(tree, path)
        for _ in range(11):
            for name, tree in trees:
                samples[name].append(_run(tree, path))
        for name, tree in trees:
            pandas, imports = imported_modules(tree, path)
            print(f"{name:10s} median {statistics.median(samples[name]) * 1000:7.0f} ms   "
                  f"imports {imports * 1000:6.0f} ms   pandas imported: {pandas}")
        if baseline:
            ratio = statistics.median(samples["this tree"]) / statistics.median(samples["baseline"])
            print(f"ratio this tree / baseline: {ratio:.2f}")


if __name__ == "__main__":
    main()
