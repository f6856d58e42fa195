"""Published large training runs with their layout and measured utilization: the step-time model's check.

``utilization`` is what the paper reports: ``mfu`` (model FLOP only) or ``hfu`` (with recomputation, as
Megatron-LM's "% of peak" counts it: 96·B·s·l·h²·(…) per iteration with full recomputation).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from engine.llm.config import read_hf_config
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.model import PlanModel, plan_model

NARAYANAN_2021 = ("Narayanan et al. 2021, 'Efficient Large-Scale Language Model Training on GPU Clusters Using "
                  "Megatron-LM', Table 1 (GPT, s = 2,048, V = 51,200, A100 on Selene, full recomputation) — "
                  "https://arxiv.org/abs/2104.04473")


@dataclass(frozen=True, slots=True)
class PublishedRun:
    key: str
    label: str
    config: dict
    seq_len: int
    chip: str
    layout: Layout
    options: MemoryOptions
    metric: Literal["mfu", "hfu"]
    published: float
    source: str
    assumptions: str

    def model(self) -> PlanModel:
        return _model(self.key)


def _megatron(key: str, params: str, layers: int, h: int, heads: int, t: int, p: int, n: int, batch: int,
              share: float) -> PublishedRun:
    config = {"model_type": "gpt2", "n_layer": layers, "n_embd": h, "n_head": heads, "n_positions": 2048,
              "vocab_size": 51200}
    return PublishedRun(
        key, f"Megatron-LM GPT {params} on {n:,} A100s", config, 2048, "nvidia-a100-sxm4-80gb",
        Layout(dp=n // (t * p), tp=t, pp=p, micro_batch=1, global_batch=batch),
        MemoryOptions(optimizer="adam", precision="fp16", recompute="full"), "hfu", share, NARAYANAN_2021,
        "micro-batch 1 and the non-interleaved 1F1B schedule assumed (Table 1 gives neither); DGX A100 links")


PUBLISHED_RUNS: tuple[PublishedRun, ...] = (
    PublishedRun(
        "palm-540b", "PaLM 540B on 6,144 TPU v4",
        {"model_type": "llama", "num_hidden_layers": 118, "hidden_size": 18432, "num_attention_heads": 48,
         "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 73728, "vocab_size": 256000,
         "max_position_embeddings": 2048, "tie_word_embeddings": True},
        2048, "google-tpu-v4", Layout(dp=512, tp=12, pp=1, micro_batch=4, global_batch=2048),
        MemoryOptions(optimizer="adam", precision="bf16", recompute="full"), "mfu", 0.462,
        "Chowdhery et al. 2022, 'PaLM', Table 3 (46.2% MFU; 57.8% HFU with rematerialization) and §4–5: 118 "
        "layers, d 18,432, 48 heads of 256, one key/value head, SwiGLU 4d, 256k vocabulary, batch 2,048 × 2,048 "
        "tokens, 12-way model parallel × 256-way data parallel per pod, 2 pods — https://arxiv.org/abs/2204.02311",
        "PaLM's 2D weight-stationary sharding modelled as 12-way tensor parallelism; the cross-pod transfer "
        "at the ICI bandwidth (no published figure); rematerialization as full recomputation"),
    _megatron("megatron-18b", "18.4B", 40, 6144, 48, 8, 1, 256, 1024, 0.43),
    _megatron("megatron-146b", "145.6B", 80, 12288, 96, 8, 8, 1536, 2304, 0.47),
    _megatron("megatron-530b", "529.6B", 105, 20480, 128, 8, 35, 2520, 2520, 0.52),
    _megatron("megatron-1t", "1T", 128, 25600, 160, 8, 64, 3072, 3072, 0.52),
)


@lru_cache(maxsize=16)
def _model(key: str) -> PlanModel:
    run = next(r for r in PUBLISHED_RUNS if r.key == key)
    return plan_model(read_hf_config(run.config).architecture(run.seq_len))


def predict(run: PublishedRun, kernel_efficiency: float | None = None):
    """The step-time model's prediction for a published run (``StepTime``)."""
    from engine.method2.hardware_db import load_hardware_db
    from engine.plan.interconnects import interconnect_for
    from engine.plan.step_time import DEFAULT_KERNEL_EFFICIENCY, step_time

    chip = load_hardware_db().chip(run.chip)
    peak = chip.peaks.get("bf16_tensor" if run.options.precision == "bf16" else "fp16_tensor")
    return step_time(run.model(), run.layout, run.options, peak, interconnect_for(chip.id),
                     kernel_efficiency or DEFAULT_KERNEL_EFFICIENCY)


def comparison() -> list[dict]:
    """Each run: predicted vs published utilization, and the error in percentage points."""
    rows = []
    for run in PUBLISHED_RUNS:
        step = predict(run)
        predicted = step.mfu if run.metric == "mfu" else step.hfu
        rows.append({"run": run.label, "metric": run.metric.upper(), "published": run.published,
                     "predicted": predicted, "error_points": 100 * (predicted - run.published),
                     "source": run.source, "assumptions": run.assumptions})
    return rows
