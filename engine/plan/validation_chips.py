"""Published measured runs on other chips and settings, apart from the kernel model's calibration: Blackwell
(B200, GB200, GB300) in FP8 and NVFP4, fully sharded data parallelism (ZeRO 3 / FSDP) on H100 and GB200, and
H100 FP8 runs of Llama 3 at sequence 8,192. Each row is what a plan gives (``plan_run``: the chip's own peak
for the format, memory bandwidth and links), or, for a context-parallel layout the plan cannot hold, the kernel
model called with the same settings and the context-parallel degree.

Published step time = global batch × sequence length / (tokens per second per GPU × GPUs).
Sources: NVIDIA Megatron Bridge, "Performance" archive (github.com/NVIDIA-NeMo/Megatron-Bridge
docs/performance-summary-archive.md), 25.11 container (FP8 with current scaling, "FP8-CS") and 26.02
container (NVFP4). Settings the tables do not print are assumptions: the distributed optimizer (ZeRO 1,
Megatron Core's default in NeMo's recipes) or, where the table's FSDP column is set, Megatron FSDP sharding
parameters, gradients and optimizer states (ZeRO 3); no recomputation; sequence parallelism where t > 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.plan.validation_h100 import _LLAMA3_8B, _LLAMA3_70B
from engine.results import Result

BRIDGE = "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/main/docs/performance-summary-archive.md"
BRIDGE_2511 = f"NVIDIA Megatron Bridge 25.11, Performance (pre-training, FP8-CS) — {BRIDGE}"
BRIDGE_2602_FP4 = f"NVIDIA Megatron Bridge 26.02, Performance (pre-training, NVFP4) — {BRIDGE}"

_LLAMA31_405B = {"model_type": "llama", "num_hidden_layers": 126, "hidden_size": 16384, "num_attention_heads": 128,
                 "num_key_value_heads": 8, "intermediate_size": 53248, "vocab_size": 128256,
                 "max_position_embeddings": 8192}
_MODELS = {"Llama 3 8B": _LLAMA3_8B, "Llama 3 70B": _LLAMA3_70B, "Llama 3.1 405B": _LLAMA31_405B}
_CHIPS = {"H100": "nvidia-h100-sxm", "B200": "nvidia-b200", "GB200": "nvidia-gb200", "GB300": "nvidia-gb300"}
_FORMATS = {"fp8": "FP8", "fp4": "NVFP4"}


@dataclass(frozen=True, slots=True)
class ChipRun:
    """A published run: model, chip, GPUs, layout (t, p, cp, v), ZeRO stage, batch, format, throughput."""

    model: str
    chip: str
    gpus: int
    precision: str
    global_batch: int
    micro_batch: int
    t: int
    p: int
    cp: int
    v: int
    zero: int
    tokens_per_s_per_gpu: float
    source: str
    seq: int = 8192

    @property
    def label(self) -> str:
        layout = ", ".join(f"{k} {x}" for k, x in (("t", self.t), ("p", self.p), ("context parallel", self.cp),
                                                   ("v", self.v)) if x > 1)
        sharding = ", FSDP (ZeRO 3)" if self.zero == 3 else ""
        return (f"{self.model}, {self.gpus} {self.chip}, {_FORMATS[self.precision]}{sharding}"
                + (f" ({layout})" if layout else ""))

    @property
    def chip_id(self) -> str:
        return _CHIPS[self.chip]

    @property
    def published_s(self) -> float:
        return self.global_batch * self.seq / (self.tokens_per_s_per_gpu * self.gpus)


RUNS: tuple[ChipRun, ...] = (
    ChipRun("Llama 3 8B", "B200", 8, "fp8", 128, 2, 1, 1, 1, 1, 1, 30624, BRIDGE_2511),
    ChipRun("Llama 3 8B", "GB200", 8, "fp8", 128, 2, 1, 1, 1, 1, 1, 31508, BRIDGE_2511),
    ChipRun("Llama 3 8B", "GB300", 8, "fp8", 128, 2, 1, 1, 1, 1, 1, 37556, BRIDGE_2511),
    ChipRun("Llama 3 8B", "H100", 8, "fp8", 128, 1, 1, 1, 1, 1, 3, 14451, BRIDGE_2511),
    ChipRun("Llama 3 70B", "H100", 64, "fp8", 128, 1, 4, 8, 1, 5, 1, 1602, BRIDGE_2511),
    ChipRun("Llama 3 70B", "GB200", 64, "fp8", 256, 2, 1, 1, 1, 1, 3, 4312, BRIDGE_2511),
    ChipRun("Llama 3 70B", "GB300", 64, "fp8", 256, 2, 1, 1, 1, 1, 3, 4520, BRIDGE_2511),
    ChipRun("Llama 3 70B", "GB200", 64, "fp4", 256, 1, 2, 4, 1, 5, 1, 4458, BRIDGE_2602_FP4),
    ChipRun("Llama 3.1 405B", "GB200", 256, "fp8", 1536, 1, 4, 16, 1, 4, 1, 813, BRIDGE_2511),
    ChipRun("Llama 3.1 405B", "GB200", 256, "fp4", 1536, 1, 4, 16, 1, 8, 1, 1076, BRIDGE_2602_FP4),
    ChipRun("Llama 3.1 405B", "GB300", 256, "fp8", 1536, 1, 2, 8, 2, 4, 1, 999, BRIDGE_2511),
    ChipRun("Llama 3.1 405B", "B200", 128, "fp8", 64, 1, 4, 8, 2, 8, 1, 661, BRIDGE_2511),
    ChipRun("Llama 3.1 405B", "H100", 1024, "fp8", 512, 1, 8, 8, 2, 8, 1, 292, BRIDGE_2511),
)


DIRECT_CP = "kernel model, context parallel (outside the plan's layout)"
DIRECT_UNEVEN = "kernel model, uneven pipeline stages (outside the plan's layout)"


@dataclass(frozen=True, slots=True)
class ChipRow(Result):
    case: str
    source: str
    published_s: float
    predicted_s: float
    model: str
    """The plan's step model (``plan_run``), or the kernel model called directly where the plan's layout cannot
    hold the run (context parallelism; 126 blocks on p·v stages, which Megatron splits counting the embedding
    and the loss as layers)."""
    previous_s: float | None
    """The constant-efficiency model's step (k = 0.7 of the format's peak), what plans gave on these chips,
    formats and ZeRO 3 before; None where the plan's layout cannot hold the run."""

    @property
    def error(self) -> float:
        return self.predicted_s / self.published_s - 1

    @property
    def previous_error(self) -> float | None:
        return None if self.previous_s is None else self.previous_s / self.published_s - 1


def _plan_model(run: ChipRun):
    from engine.llm.config import read_hf_config
    from engine.plan.model import plan_model
    return plan_model(read_hf_config(_MODELS[run.model]).architecture(run.seq))


def _options(run: ChipRun):
    from engine.plan.layout import MemoryOptions
    return MemoryOptions(precision=run.precision, recompute="none", zero=run.zero,
                         convention="fsdp" if run.zero == 3 else "megatron")


def predict(run: ChipRun) -> tuple[float, str, float | None]:
    """(step s, which model, the constant-efficiency model's step): the plan's step time, or the kernel model
    with the run's context parallelism or uneven stages."""
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel_model import framework_overlaps_dp, framework_overlaps_pp, kernel_chip, kernel_step
    from engine.plan.layout import Layout
    from engine.plan.run_plan import PlanSettings, plan_run
    from engine.plan.step_time import step_time

    model, options = _plan_model(run), _options(run)
    d = run.gpus // (run.t * run.p * run.cp)
    uneven = model.blocks % (run.p * run.v) != 0
    if run.cp == 1 and not uneven:
        layout = Layout(dp=d, tp=run.t, pp=run.p, micro_batch=run.micro_batch, global_batch=run.global_batch,
                        virtual_stages=run.v, sequence_parallel=run.t > 1)
        plan = plan_run(model, layout, options, PlanSettings(chip=run.chip_id))
        previous = step_time(model, layout, options, plan.step.peak_flop_per_s, plan.link, 0.7).step_s
        return plan.step.step_s, plan.step.model, previous
    link = interconnect_for(run.chip_id)
    chip = kernel_chip(run.chip_id)
    step = kernel_step(chip, layers=model.blocks, h=model.d_model, a=model.heads, s=run.seq, vocab=model.vocab,
                       params=model.params, t=run.t, p=run.p, d=d, b=run.micro_batch,
                       global_batch=run.global_batch, v=run.v, recompute="none", sp=run.t > 1,
                       intra_gb_s=link.intra_gb_s, inter_gb_s=link.inter_gb_s or link.intra_gb_s,
                       chips_per_node=link.chips_per_node, f=model.ff_size, kv_heads=model.kv_heads,
                       gated=model.gated, model_flop=3 * model.forward_flop * run.global_batch,
                       fused_attention=True, overlap_dp=framework_overlaps_dp(options.convention, run.zero,
                                                                              run.chip_id),
                       gemm_chip=kernel_chip(run.chip_id, run.precision), core_chip=chip, cp=run.cp,
                       zero=run.zero, overlap_pp=framework_overlaps_pp(options.convention, run.chip_id))
    return step.step_s, DIRECT_CP if run.cp > 1 else DIRECT_UNEVEN, None


@lru_cache(maxsize=1)
def chips_table() -> tuple[ChipRow, ...]:
    rows = []
    for run in RUNS:
        rows.append(ChipRow(run.label, run.source, run.published_s, *predict(run)))
    return tuple(rows)


def summary() -> dict:
    """Median and worst absolute error of the runs, and of the constant-efficiency model on those it holds."""
    import statistics
    rows = chips_table()
    errors = [abs(r.error) for r in rows]
    previous = [abs(r.previous_error) for r in rows if r.previous_error is not None]
    return {"runs": len(rows), "median": statistics.median(errors), "worst": max(errors),
            "previous_runs": len(previous), "previous_median": statistics.median(previous),
            "previous_worst": max(previous)}


def markdown_table() -> list[str]:
    """The table in docs/plan.md, one line per run."""
    lines = ["| Case | Source | Published step (s) | FLOPscope (s) | Model | Error | Constant-efficiency model (s) "
             "| Its error |", "|---|---|---|---|---|---|---|---|"]
    for r in chips_table():
        before = ("— | —" if r.previous_s is None else f"{r.previous_s:.2f} | {100 * r.previous_error:+.1f}%")
        lines.append(f"| {r.case} | {r.source.split(' — ')[0]} | {r.published_s:.2f} | {r.predicted_s:.2f} | "
                     f"{r.model} | {100 * r.error:+.1f}% | {before} |")
    return lines
