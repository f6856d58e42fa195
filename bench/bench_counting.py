"""Counting through the CLI, whole processes, in CPU seconds (``resource.getrusage`` of the children: the figures
hold on a shared machine; medians of ``--repeat`` runs, default 5):

- ``python -m engine flops`` on 10,000 layers (``bench_method1.deep_mlp``) against the same on 10: what the 9,990
  layers cost beyond start-up (target ≤ 150 ms);
- a 48-block transformer encoder (``bench_method1.encoder_spec``: d_model 1,600, 25 heads, ff 6,400, 1,024 tokens)
  through ``python -m engine flops`` against a Python process that builds the same ``torch.nn.TransformerEncoder``
  on the meta device and counts it with ``FlopCounterMode`` (target: ours ≥ 20× faster), with the forward FLOP of
  both, which must be equal.

    python -m bench.bench_counting [--repeat N]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_method1 import deep_mlp, encoder_spec

ROOT = Path(__file__).resolve().parents[1]
TORCH_ENCODER = """
import torch
from torch.utils.flop_counter import FlopCounterMode
with torch.device("meta"):
    layer = torch.nn.TransformerEncoderLayer(1600, 25, 6400, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 48, enable_nested_tensor=False)
    x = torch.empty(1, 1024, 1600)
with FlopCounterMode(display=False) as counter:
    model(x)
print(counter.get_total_flops())
"""


CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The processes write their bytecode (``__pycache__``), as a user's do: with ``PYTHONDONTWRITEBYTECODE`` set (as
in a shell that sets it for tests), every process compiled the modules changed since their bytecode was written
(~40 ms of CPU for the encoder's engine modules, load 6: a 48-block ratio of ~15× instead of ~20×)."""


def child_cpu(argv: list[str]) -> tuple[float, str]:
    """(user + system CPU seconds of the process, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, text=True, env=CHILD_ENV).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


FIRST_RUNS: dict[str, float] = {}
"""The warm-up run's CPU seconds by command: after a change to the engine it compiles the changed modules (once: a
user's first run after installing from a checkout; ``pip install`` compiles them when it installs)."""


def median_cpu(argv: list[str], repeat: int) -> tuple[float, str]:
    FIRST_RUNS[argv[-1]] = child_cpu(argv)[0]  # warm: the first run compiles and caches bytecode
    runs = [child_cpu(argv) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), runs[-1][1]


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    engine = [sys.executable, "-m", "engine", "flops", "--format", "json"]
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, spec in (("10", deep_mlp(10)), ("10000", deep_mlp(10_000)), ("encoder", encoder_spec())):
            files[name] = Path(tmp) / f"{name}.json"
            files[name].write_text(json.dumps(spec))
        small, _ = median_cpu(engine + [str(files["10"])], args.repeat)
        large, _ = median_cpu(engine + [str(files["10000"])], args.repeat)
        ours, text = median_cpu(engine + [str(files["encoder"])], args.repeat)
        theirs, torch_text = median_cpu([sys.executable, "-c", TORCH_ENCODER], max(1, args.repeat // 2))
    ours_flop, torch_flop = json.loads(text)["forward_flop"], int(torch_text.split()[-1])
    out = {"load_average_1min": round(os.getloadavg()[0], 1),
           "cli_10_layers_cpu_s": round(small, 3), "cli_10000_layers_cpu_s": round(large, 3),
           "10000_layers_beyond_10_ms": round(1e3 * (large - small)),
           "encoder_48_blocks_engine_process_cpu_s": round(ours, 3),
           "encoder_48_blocks_engine_first_run_cpu_s": round(FIRST_RUNS[str(files["encoder"])], 3),
           "encoder_48_blocks_torch_process_cpu_s": round(theirs, 3),
           "encoder_whole_process_ratio": round(theirs / ours, 1),
           "encoder_forward_flop_engine": ours_flop, "encoder_forward_flop_torch": torch_flop,
           "encoder_totals_identical": ours_flop == torch_flop}
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
