"""Fit each framework's kernel-model calibration on its CALIBRATION runs only (engine/plan/published_runs.json,
``role: calibration``; the split rule is in docs/plan.md): a grid search over the calibration's free numbers,
minimizing the median absolute error of the step time (ties: the mean). ``python -m tools.fit_frameworks`` prints
each framework's best values and its calibration errors; the values are then written into
``engine/plan/frameworks.py`` (``FITTED``), and tests/plan check that they are this search's result.

Free numbers, by framework (what its calibration runs can tell apart):
- torchtitan (eager FSDP2 on A100): the element-wise traffic of eager PyTorch and a time per block and micro-batch
  outside the kernels;
- Composer (FSDP on A100, its Triton FlashAttention of 2023): its attention kernel's rate as a share of
  FlashAttention-2's published one, the element-wise traffic
  and the host's time per block (its small models, 125M–3B, are where the GPU waits for it);
- DeepSpeed (MT-NLG: Megatron's kernels in DeepSpeed's pipeline engine): a time per micro-batch and stage.
"""
from __future__ import annotations

import itertools
import statistics

from engine.plan.published import plan_for, published_runs, published_step_s

GRIDS: dict[str, dict[str, list[float]]] = {
    "torchtitan": {"elementwise_traffic": [1 + 0.5 * i for i in range(19)],
                   "block_overhead_s": [50e-6 * i for i in range(25)]},
    "composer": {"attention_rate_scale": [0.3 + 0.05 * i for i in range(15)],
                 "elementwise_traffic": [1 + 0.5 * i for i in range(7)],
                 "host_block_s": [0.5e-3 * i for i in range(21)]},
    "deepspeed": {"microbatch_overhead_s": [2.5e-3 * i for i in range(41)]},
}
"""The grid per framework id (``MemoryOptions.convention``)."""


def calibration(values: dict[str, float]) -> dict:
    """The ``KernelCalibration`` fields for grid ``values``."""
    return dict(values)


def errors(framework_id: str, values: dict[str, float]) -> list[float]:
    runs = [r for r in published_runs().runs if r.role == "calibration" and r.options.convention == framework_id]
    return [plan_for(r, calibration=calibration(values)).step.step_s / published_step_s(r) - 1 for r in runs]


def fit(framework_id: str) -> tuple[dict[str, float], list[float]]:
    """The grid point with the least median absolute error on the framework's calibration runs (ties: mean)."""
    grid = GRIDS[framework_id]
    best, best_key, best_errors = None, None, None
    for point in itertools.product(*grid.values()):
        values = dict(zip(grid, point))
        errs = errors(framework_id, values)
        key = (round(statistics.median(abs(e) for e in errs), 6), statistics.fmean(abs(e) for e in errs))
        if best_key is None or key < best_key:
            best, best_key, best_errors = values, key, errs
    return best, best_errors


if __name__ == "__main__":
    for fid in GRIDS:
        values, errs = fit(fid)
        print(fid, {k: round(v, 6) for k, v in values.items()},
              f"median {100 * statistics.median(abs(e) for e in errs):.1f}%, worst {100 * max(errs, key=abs):+.1f}%",
              [round(100 * e, 1) for e in errs])
