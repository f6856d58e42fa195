"""The step-time model against published measured runs: a calibration set (the kernel model's one calibrated
number, η_max, was chosen on it) and a validation set kept apart from it.

- CALIBRATION: Narayanan et al. 2021, Table 1 — ten GPT models (1.7B–1T, s = 2,048, V = 51,200) on A100s with
  full recomputation; the published figure is the per-GPU throughput as a share of the 312 TFLOP/s peak,
  counted as 96·B·s·l·h²·(1 + s/6h + V/16lh) per iteration, turned into an iteration time here.
  Micro-batch 1 and the non-interleaved 1F1B schedule are assumptions (the table gives neither).
- VALIDATION: Korthikanti et al. 2022, Table 5 — measured iteration times of 22B, 175B, 530B and 1T models
  on A100s with full recomputation, and with selective recomputation + sequence parallelism (layouts from the
  paper's Table 3; 175B and 530B interleaved with 3 virtual stages).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache

from engine.plan.kernel_model import A100, kernel_step
from engine.results import Result

S, V = 2048, 51200
NARAYANAN = ("Narayanan et al. 2021, 'Efficient Large-Scale Language Model Training on GPU Clusters Using "
             "Megatron-LM', Table 1 — https://arxiv.org/abs/2104.04473")
KORTHIKANTI = ("Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large Transformer Models', "
               "Table 5 (layouts: Table 3) — https://arxiv.org/abs/2205.05198")


@dataclass(frozen=True, slots=True)
class MeasuredRun:
    """A published run: GPT shape (l layers, h hidden, a heads), layout, recomputation, measured step time."""

    key: str
    label: str
    layers: int
    h: int
    a: int
    t: int
    p: int
    d: int
    b: int
    global_batch: int
    v: int
    recompute: str
    sequence_parallel: bool
    published_s: float
    source: str

    @property
    def params(self) -> float:
        """12·l·h² + V·h + s·h (Narayanan et al. 2021, §5.1, without the small terms)."""
        return 12 * self.layers * self.h ** 2 + V * self.h + S * self.h


def _narayanan(billions: str, a: int, h: int, l: int, t: int, p: int, n: int, batch: int, share: float) -> MeasuredRun:
    hardware_flop = 96 * batch * S * l * h * h * (1 + S / (6 * h) + V / (16 * l * h))
    return MeasuredRun(f"narayanan-{billions}b", f"GPT {billions}B, {n:,} A100 (t {t}, p {p})", l, h, a, t, p,
                       n // (t * p), 1, batch, 1, "full", False, hardware_flop / (n * 312e12 * share), NARAYANAN)


def _korthikanti(name: str, l: int, h: int, a: int, p: int, b: int, batch: int, v: int, selective: bool,
                 seconds: float) -> MeasuredRun:
    mode = "selective + sequence parallel" if selective else "full recomputation"
    return MeasuredRun(f"korthikanti-{name.lower()}-{'sel' if selective else 'full'}",
                       f"GPT {name}, {8 * p} A100, {mode}", l, h, a, 8, p, 1, b, batch, v,
                       "selective" if selective else "full", selective, seconds, KORTHIKANTI)


CALIBRATION: tuple[MeasuredRun, ...] = (
    _narayanan("1.7", 24, 2304, 24, 1, 1, 32, 512, 0.44), _narayanan("3.6", 32, 3072, 30, 2, 1, 64, 512, 0.44),
    _narayanan("7.5", 32, 4096, 36, 4, 1, 128, 512, 0.46), _narayanan("18.4", 48, 6144, 40, 8, 1, 256, 1024, 0.43),
    _narayanan("39.1", 64, 8192, 48, 8, 2, 512, 1536, 0.44), _narayanan("76.1", 80, 10240, 60, 8, 4, 1024, 1792, 0.45),
    _narayanan("145.6", 96, 12288, 80, 8, 8, 1536, 2304, 0.47),
    _narayanan("310.1", 128, 16384, 96, 8, 16, 1920, 2160, 0.50),
    _narayanan("529.6", 128, 20480, 105, 8, 35, 2520, 2520, 0.52),
    _narayanan("1008", 160, 25600, 128, 8, 64, 3072, 3072, 0.52),
)
VALIDATION: tuple[MeasuredRun, ...] = tuple(
    _korthikanti(name, l, h, a, p, b, batch, v, selective, seconds)
    for name, l, h, a, p, b, batch, v, times in (
        ("22B", 48, 6144, 64, 1, 4, 4, 1, (1.42, 1.10)), ("175B", 96, 12288, 96, 8, 1, 64, 3, (18.13, 13.75)),
        ("530B", 105, 20480, 128, 35, 1, 280, 3, (49.05, 37.83)), ("1T", 128, 25600, 160, 64, 1, 512, 1, (94.42, 71.49)))
    for selective, seconds in ((False, times[0]), (True, times[1])))


@dataclass(frozen=True, slots=True)
class ValidationRow(Result):
    case: str
    source: str
    published_s: float
    predicted_s: float
    previous_s: float
    """The earlier model's prediction (one kernel efficiency, 0.7, for all compute)."""

    @property
    def error(self) -> float:
        return self.predicted_s / self.published_s - 1

    @property
    def previous_error(self) -> float:
        return self.previous_s / self.published_s - 1


def predict(run: MeasuredRun) -> float:
    """The kernel model's step time for a published run (seconds)."""
    return kernel_step(A100, layers=run.layers, h=run.h, a=run.a, s=S, vocab=V, params=run.params, t=run.t,
                       p=run.p, d=run.d, b=run.b, global_batch=run.global_batch, v=run.v, recompute=run.recompute,
                       sp=run.sequence_parallel).step_s


def previous(run: MeasuredRun) -> float:
    """The constant-efficiency model's step time (``engine.plan.step_time``, k = 0.7) for the same run."""
    from engine.llm.config import read_hf_config
    from engine.plan.interconnects import interconnect_for
    from engine.plan.layout import Layout, MemoryOptions
    from engine.plan.model import plan_model
    from engine.plan.step_time import step_time

    config = {"model_type": "gpt2", "n_layer": run.layers, "n_embd": run.h, "n_head": run.a, "n_positions": S,
              "vocab_size": V}
    model = plan_model(read_hf_config(config).architecture(S))
    layout = Layout(dp=run.d, tp=run.t, pp=run.p, micro_batch=run.b, global_batch=run.global_batch,
                    virtual_stages=run.v, sequence_parallel=run.sequence_parallel)
    options = MemoryOptions(optimizer="adam", precision="fp16", recompute=run.recompute)
    return step_time(model, layout, options, 312e12, interconnect_for("nvidia-a100-sxm4-80gb"), 0.7).step_s


@lru_cache(maxsize=2)
def table(which: str = "validation") -> tuple[ValidationRow, ...]:
    runs = VALIDATION if which == "validation" else CALIBRATION
    return tuple(ValidationRow(r.label, r.source, r.published_s, predict(r), previous(r)) for r in runs)


def summary(which: str = "validation") -> dict:
    """Median and worst absolute error, now and with the previous model."""
    rows = table(which)
    now = [abs(r.error) for r in rows]
    before = [abs(r.previous_error) for r in rows]
    return {"median": statistics.median(now), "worst": max(now), "previous_median": statistics.median(before),
            "previous_worst": max(before), "runs": len(rows)}
