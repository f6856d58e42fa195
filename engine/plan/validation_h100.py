"""Published measured H100 runs (NVIDIA's performance tables), apart from the kernel model's calibration:
dense FP8 runs, which the kernel model covers (FP8 GEMMs at their measured rate on Hopper, fused attention,
overlapped gradient reduction and interleaved sends — ``kernel_model.kernel_step_for``); runs with context
parallelism (through the plan's layout, ``cp``); and
mixtures of experts with expert parallelism (``engine.plan.kernel_moe``, with each recipe's settings:
GPT-OSS's sliding windows and recomputed norms and activation, Qwen3 235B's all-to-all overlap). Each row
carries what the kernel model gives for it (``plan_s``; ``step_model`` names how it was called) and what the
constant-efficiency model (k = 0.7) gives (``previous_s``), or nothing where it cannot express the run.

Published step time = global batch × sequence length / (tokens per second per GPU × GPUs).
Sources: NVIDIA NeMo, "Performance Benchmarks", NeMo 24.07 container, DGX-H100, FP8
(github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md); NVIDIA Megatron Bridge,
"Performance", archive, 26.02 (GPT-OSS, BF16) and 26.02.01 (Qwen3, FP8) containers, DGX-H100
(github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md; the recipes' settings from the
same repository's scripts/performance/configs). Recomputation is not stated by the NeMo table: none is
assumed. The MoE recipes force balanced routing (``moe_router_force_load_balancing``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from engine.results import Result

NEMO_2407 = ("NVIDIA NeMo 24.07, Performance Benchmarks (DGX-H100, FP8) — "
             "https://github.com/NVIDIA/NeMo/blob/main/docs/source/performance/performance_summary.md")
BRIDGE_2602 = ("NVIDIA Megatron Bridge 26.02, Performance (DGX-H100, BF16) — "
               "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/main/docs/performance-summary-archive.md")
BRIDGE_260201 = ("NVIDIA Megatron Bridge 26.02.01, Performance (DGX-H100, FP8) — "
                 "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/main/docs/performance-summary-archive.md")

_LLAMA2_7B = {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
              "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096}
_LLAMA2_70B = {"model_type": "llama", "num_hidden_layers": 80, "hidden_size": 8192, "num_attention_heads": 64,
               "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 32000,
               "max_position_embeddings": 4096}
_LLAMA3_8B = {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
              "max_position_embeddings": 8192}
_LLAMA3_70B = dict(_LLAMA2_70B, vocab_size=128256, max_position_embeddings=8192)
_GPT3_175B = {"model_type": "gpt2", "n_layer": 96, "n_embd": 12288, "n_head": 96, "n_positions": 2048,
              "vocab_size": 50257}
_GPT3_5B = {"model_type": "gpt2", "n_layer": 24, "n_embd": 4096, "n_head": 32, "n_positions": 2048, "vocab_size": 50257}
_GPT3_20B = {"model_type": "gpt2", "n_layer": 44, "n_embd": 6144, "n_head": 48, "n_positions": 2048, "vocab_size": 50257}
_LLAMA2_13B = dict(_LLAMA2_7B, num_hidden_layers=40, hidden_size=5120, num_attention_heads=40, intermediate_size=13824)
_NEMOTRON = {"model_type": "nemotron", "hidden_act": "relu2", "partial_rotary_factor": 0.5, "vocab_size": 256000,
             "max_position_embeddings": 4096, "tie_word_embeddings": False}
_NEMOTRON_8B = dict(_NEMOTRON, num_hidden_layers=32, hidden_size=4096, intermediate_size=16384, num_attention_heads=32,
                    num_key_value_heads=32)
_NEMOTRON_22B = dict(_NEMOTRON, num_hidden_layers=40, hidden_size=6144, intermediate_size=24576,
                     num_attention_heads=48, num_key_value_heads=48)
_NEMOTRON_340B = dict(_NEMOTRON, num_hidden_layers=96, hidden_size=18432, intermediate_size=73728,
                      num_attention_heads=96, num_key_value_heads=8, head_dim=192)
"""The NeMo table's other models as NeMo-Framework-Launcher's training configs define them
(launcher_scripts/conf/training/gpt3/5b.yaml, 20b.yaml, llama/llama2_13b.yaml, nemotron/nemotron_8b.yaml,
nemotron_22b.yaml, nemotron_340b.yaml: layers, widths, heads, query groups; Nemotron: squared ReLU, no gate,
256k vocabulary, untied embeddings)."""
_GPT_OSS_120B = {"model_type": "gpt_oss", "num_hidden_layers": 36, "hidden_size": 2880, "num_attention_heads": 64,
                 "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880, "num_local_experts": 128,
                 "num_experts_per_tok": 4, "vocab_size": 201088, "max_position_embeddings": 131072,
                 "sliding_window": 128}
_QWEN3_30B_A3B = {"model_type": "qwen3_moe", "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 32,
                  "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144, "moe_intermediate_size": 768,
                  "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
                  "max_position_embeddings": 40960, "tie_word_embeddings": False}
_QWEN3_235B_A22B = dict(_QWEN3_30B_A3B, num_hidden_layers=94, hidden_size=4096, num_attention_heads=64,
                        intermediate_size=12288, moe_intermediate_size=1536)


@dataclass(frozen=True, slots=True)
class OutsideRun:
    """A published run: model config, GPUs, layout (t, p, cp, v, ep), batch, format, measured throughput."""

    label: str
    why: str
    config: dict
    gpus: int
    global_batch: int
    micro_batch: int
    seq: int
    t: int
    p: int
    cp: int
    v: int
    ep: int
    precision: str
    tokens_per_s_per_gpu: float
    source: str
    recompute: str = "none"
    """The recipe's recomputation: "selective" = Megatron Bridge's recompute_modules ["layernorm", "moe_act"]."""
    overlap_a2a: bool = False
    """The recipe's ``moe_a2a_overlap``."""
    dispatcher: str = "alltoall"
    """The recipe's token dispatcher: NCCL's all-to-all, or "flex" (``moe_flex_dispatcher_backend`` "deepep" or
    "hybridep"), which sends a token once per node."""

    @property
    def published_s(self) -> float:
        return self.global_batch * self.seq / (self.tokens_per_s_per_gpu * self.gpus)


OUTSIDE: tuple[OutsideRun, ...] = (
    OutsideRun("Llama 2 7B, 8 H100, FP8", "", _LLAMA2_7B, 8, 128, 1, 4096, 1, 1, 1, 1, 1, "fp8", 16847,
               NEMO_2407),
    OutsideRun("Llama 2 70B, 64 H100, FP8 (t 4, p 4, v 20)", "", _LLAMA2_70B, 64, 128, 1, 4096, 4, 4, 1, 20,
               1, "fp8", 1707, NEMO_2407),
    OutsideRun("GPT-3 175B, 128 H100, FP8 (t 4, p 8, v 6)", "", _GPT3_175B, 128, 256, 1, 2048, 4, 8, 1, 6, 1,
               "fp8", 726, NEMO_2407),
    OutsideRun("Llama 3 8B, 8 H100, FP8, s 8,192, context parallel 2", "context parallelism", _LLAMA3_8B,
               8, 128, 1, 8192, 1, 1, 2, 1, 1, "fp8", 12036, NEMO_2407),
    OutsideRun("Llama 3 70B, 64 H100, FP8, s 8,192, context parallel 2 (t 4, p 4, v 5)",
               "context parallelism", _LLAMA3_70B, 64, 128, 1, 8192, 4, 4, 2, 5, 1, "fp8", 1533, NEMO_2407),
    OutsideRun("GPT-3 5B, 64 H100, FP8 (micro-batch 4)", "", _GPT3_5B, 64, 2048, 4, 2048, 1, 1, 1, 1, 1, "fp8",
               22521, NEMO_2407),
    OutsideRun("GPT-3 20B, 64 H100, FP8 (t 2, micro-batch 2)", "", _GPT3_20B, 64, 256, 2, 2048, 2, 1, 1, 1, 1, "fp8",
               5851, NEMO_2407),
    OutsideRun("GPT-3 175B, 512 H100, FP8 (t 4, p 8, v 6, micro-batch 2)", "", _GPT3_175B, 512, 2048, 2, 2048, 4, 8,
               1, 6, 1, "fp8", 782, NEMO_2407),
    OutsideRun("Llama 2 13B, 16 H100, FP8 (p 4, v 10)", "", _LLAMA2_13B, 16, 128, 1, 4096, 1, 4, 1, 10, 1, "fp8",
               8646, NEMO_2407),
    OutsideRun("Nemotron 8B, 64 H100, FP8 (t 2, micro-batch 4)", "", _NEMOTRON_8B, 64, 256, 4, 4096, 2, 1, 1, 1, 1,
               "fp8", 12701, NEMO_2407),
    OutsideRun("Nemotron 22B, 64 H100, FP8 (t 2, p 4, v 10, micro-batch 2)", "", _NEMOTRON_22B, 64, 256, 2, 4096, 2,
               4, 1, 10, 1, "fp8", 4256, NEMO_2407),
    OutsideRun("Nemotron-4 340B, 128 H100, FP8 (t 8, p 8, v 12)", "", _NEMOTRON_340B, 128, 32, 1, 4096, 8, 8, 1, 12,
               1, "fp8", 322, NEMO_2407),
    OutsideRun("GPT-OSS 120B (MoE, 128 experts, top 4), 64 H100, BF16 (p 4, e 8)",
               "mixture of experts, expert all-to-all", _GPT_OSS_120B, 64, 1280, 1, 4096, 1, 4, 1, 1, 8, "bf16",
               5993, BRIDGE_2602, recompute="selective"),
    OutsideRun("Qwen3 30B-A3B (MoE, 128 experts, top 8), 16 H100, FP8 (p 2, v 12, e 8)",
               "mixture of experts, expert all-to-all", _QWEN3_30B_A3B, 16, 1024, 1, 4096, 1, 2, 1, 12, 8, "fp8",
               9058, BRIDGE_260201),
    OutsideRun("Qwen3 235B-A22B (MoE, 128 experts, top 8), 256 H100, FP8 (t 2, p 8, v 4, e 32)",
               "mixture of experts, expert all-to-all", _QWEN3_235B_A22B, 256, 8192, 1, 4096, 2, 8, 1, 4, 32, "fp8",
               1611, BRIDGE_260201, overlap_a2a=True),
)


@dataclass(frozen=True, slots=True)
class OutsideRow(Result):
    case: str
    why: str
    source: str
    published_s: float
    plan_s: float | None
    """What a plan gives (``step_model`` names the model); None where the layout cannot express the run."""
    step_model: str | None
    previous_s: float | None
    """The constant-efficiency model's step (k = 0.7 of the format's peak)."""

    @property
    def error(self) -> float | None:
        return None if self.plan_s is None else self.plan_s / self.published_s - 1

    @property
    def previous_error(self) -> float | None:
        return None if self.previous_s is None else self.previous_s / self.published_s - 1


def plan_model_of(run: OutsideRun):
    from engine.llm.config import read_hf_config
    from engine.plan.model import plan_model
    return plan_model(read_hf_config(run.config).architecture(run.seq))


def plan_for(run: OutsideRun):
    """The plan FLOPscope makes for the run (H100 SXM, no recomputation), context parallelism included."""
    from engine.plan.layout import Layout, MemoryOptions
    from engine.plan.run_plan import PlanSettings, plan_run

    model = plan_model_of(run)
    layout = Layout(dp=run.gpus // (run.t * run.p * run.cp), tp=run.t, pp=run.p, cp=run.cp, ep=run.ep,
                    micro_batch=run.micro_batch,
                    global_batch=run.global_batch, virtual_stages=run.v, sequence_parallel=run.t > 1)
    return plan_run(model, layout, MemoryOptions(precision=run.precision, recompute="none", convention="megatron"),
                    PlanSettings(chip="nvidia-h100-sxm"))


def kernel_with_cp(run: OutsideRun) -> float:
    """The kernel model called directly with the run's context-parallel degree, with the FP8 settings
    ``kernel_step_for`` uses on the H100 (a check on the plan's path)."""
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel_model import kernel_chip, kernel_step

    m = plan_model_of(run)
    link = interconnect_for("nvidia-h100-sxm")
    chip = kernel_chip("nvidia-h100-sxm")
    return kernel_step(chip, layers=m.blocks, h=m.d_model, a=m.heads, s=run.seq, vocab=m.vocab, params=m.params,
                       t=run.t, p=run.p, d=run.gpus // (run.t * run.p * run.cp), b=run.micro_batch,
                       global_batch=run.global_batch, v=run.v, recompute="none", sp=run.t > 1,
                       intra_gb_s=link.intra_gb_s, inter_gb_s=link.inter_gb_s, chips_per_node=link.chips_per_node,
                       f=m.ff_size, kv_heads=m.kv_heads, gated=m.gated,
                       model_flop=3 * m.forward_flop * run.global_batch, fused_attention=True, overlap_dp=True,
                       gemm_chip=kernel_chip("nvidia-h100-sxm", run.precision), core_chip=chip, cp=run.cp,
                       overlap_pp=True).step_s


@lru_cache(maxsize=1)
def h100_table() -> tuple[OutsideRow, ...]:
    rows = []
    for run in OUTSIDE:
        previous = None
        if run.ep > 1 and (run.gpus // (run.t * run.p)) % run.ep:  # experts folded over t·d: no plan layout
            rows.append(OutsideRow(run.label, run.why, run.source, run.published_s, moe_kernel_s(run), MOE_MODEL,
                                   None))
            continue
        plan = plan_for(run)
        if run.ep > 1:
            from engine.plan.step_time import step_time
            previous = step_time(plan_model_of(run), plan.layout, plan.options, plan.step.peak_flop_per_s,
                                 plan.link, 0.7).step_s
            rows.append(OutsideRow(run.label, run.why, run.source, run.published_s, moe_kernel_s(run), MOE_MODEL,
                                   previous))
            continue
        if plan is not None:
            from engine.plan.step_time import step_time
            previous = step_time(plan_model_of(run), plan.layout, plan.options, plan.step.peak_flop_per_s,
                                 plan.link, 0.7).step_s
        rows.append(OutsideRow(run.label, run.why, run.source, run.published_s,
                               plan.step.step_s if plan else None, plan.step.model if plan else None, previous))
    return tuple(rows)


MOE_MODEL = "kernel model, experts (the recipe's settings)"


def moe_kernel_s(run: OutsideRun) -> float:
    """``kernel_moe.moe_step_s`` for a published MoE run with its recipe's settings (sliding windows,
    recomputed norms and activation, all-to-all overlap), which a plan does not take."""
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel_model import H100, kernel_chip
    from engine.plan.kernel_moe import moe_step_s

    m = plan_model_of(run)
    link = interconnect_for("nvidia-h100-sxm")
    return moe_step_s(H100, layers=m.blocks, h=m.d_model, heads=m.heads, kv_heads=m.kv_heads,
                      head_dim=m.attention_width // m.heads, s=run.seq, vocab=m.vocab, dense_params=m.dense_params,
                      expert_params=m.expert_params, experts=m.experts, top_k=m.active_experts, f=m.ff_size,
                      p=run.p, d=run.gpus // (run.t * run.p), ep=run.ep, b=run.micro_batch,
                      global_batch=run.global_batch, v=run.v, t=run.t, intra_gb_s=link.intra_gb_s,
                      inter_gb_s=link.inter_gb_s, chips_per_node=link.chips_per_node, gated=m.gated,
                      window=m.window, windowed_layers=m.windowed_blocks,
                      recompute=run.recompute, overlap_a2a=run.overlap_a2a, dispatcher=run.dispatcher,
                      gemm_chip=kernel_chip("nvidia-h100-sxm", "fp8") if run.precision == "fp8" else None,
                      overlap_pp=True)["step_s"]


BRIDGE_ARCHIVE = ("NVIDIA Megatron Bridge, Performance archive (DGX-H100), releases 25.11–26.06 — "
                  "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/main/docs/performance-summary-archive.md")


def _release(run: OutsideRun, release: str, tokens_per_s_per_gpu: float, **layout) -> OutsideRun:
    """``run`` as another release of the archive printed it: its throughput, and its layout where it differs."""
    return replace(run, label=f"{run.label.split(' (')[0]}, {release}", tokens_per_s_per_gpu=tokens_per_s_per_gpu,
                   source=BRIDGE_ARCHIVE, **layout)


_Q30_E16 = dict(p=1, v=1, ep=16, dispatcher="flex")
"""Qwen3 30B-A3B as the 26.04–26.06 tables print it (16 GPUs, global batch 1,024, e 16), the layout of
Megatron Bridge's H100 FP8 recipe on its r0.4.0, r0.4.1 and r0.5.0 branches, which also sets
``moe_flex_dispatcher_backend="hybridep"`` and no all-to-all overlap
(scripts/performance/configs/qwen/qwen3_workload_base_configs.py, QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1).
The other rows keep the validation row's dispatcher: the recipes on the branches of their releases do not print
their layout (Qwen3 235B-A22B's global batch is 2,048 there, 8,192 in the tables)."""
_GPT_OSS, _Q30, _Q235 = (next(r for r in OUTSIDE if r.label.startswith(name))
                          for name in ("GPT-OSS 120B", "Qwen3 30B-A3B", "Qwen3 235B-A22B"))
OTHER_RELEASES: tuple[OutsideRun, ...] = (
    _release(_GPT_OSS, "26.04.01", 5824), _release(_GPT_OSS, "26.04", 5810), _release(_GPT_OSS, "26.02.01", 5984),
    _release(_GPT_OSS, "25.11 (global batch 512, micro-batch 4)", 5630, global_batch=512, micro_batch=4),
    _release(_Q30, "26.06 (p 1, e 16, HybridEP)", 8826, **_Q30_E16),
    _release(_Q30, "26.04.01 (p 1, e 16, HybridEP)", 8960, **_Q30_E16),
    _release(_Q30, "26.04 (p 1, e 16, HybridEP)", 8901, **_Q30_E16), _release(_Q30, "26.02 (the same layout)", 5113),
    _release(_Q30, "25.11 (global batch 512, micro-batch 2, v 24)", 5275, global_batch=512, micro_batch=2, v=24),
    _release(_Q235, "26.04.01", 1712), _release(_Q235, "26.04", 1686), _release(_Q235, "26.02", 1633),
    _release(_Q235, "25.11 (global batch 2,048)", 1575, global_batch=2048),
)
"""The validation set's three mixtures of experts as the archive's other releases printed them (dropless,
balanced routing; each release's recipe settings beyond the printed layout are not in the table: the
validation row's are kept). A check on how far a release-blind model can go, used by no figure."""


@lru_cache(maxsize=1)
def other_releases_table() -> tuple[OutsideRow, ...]:
    return tuple(OutsideRow(r.label, r.why, r.source, r.published_s, moe_kernel_s(r), MOE_MODEL, None)
                 for r in OTHER_RELEASES)


NEMO_LONG = ("NVIDIA NeMo, Long Sequence Performance, LLAMA2-7B (FP8), NeMo 24.03.01 container, DGX-H100 — "
             "https://github.com/NVIDIA/NeMo/blob/main/docs/source/performance/performance_long_sequence.md")
_LONG = ((4, 4, 1024, 768, 1, 1, 1), (8, 8, 512, 730, 1, 2, 1), (16, 16, 256, 660, 2, 1, 1),
         (32, 32, 128, 610, 2, 1, 2), (64, 64, 64, 574, 4, 1, 2), (128, 128, 32, 555, 4, 1, 4),
         (256, 256, 16, 549, 4, 1, 8), (512, 512, 8, 549, 8, 1, 16), (1024, 1024, 4, 536, 8, 1, 32))
"""(sequence in K positions, GPUs, global batch, model TFLOP/s per GPU with context parallelism, t, p, cp) as
the table prints them; d = GPUs ÷ (t·p·cp)."""


def nemo_llama2_flop_per_token(config: dict, s: int) -> float:
    """NeMo's model FLOP per token for Llama 2 (nemo/utils/flops_formulas.py ``llama2``; attention counted
    without the causal half): L·h²·(12 + 12·G/H + 18·F/h + 12·s/h + 6·V/(L·h))."""
    layers, h, heads = config["num_hidden_layers"], config["hidden_size"], config["num_attention_heads"]
    groups = config.get("num_key_value_heads", heads)
    f, vocab = config["intermediate_size"], config["vocab_size"]
    return layers * h * h * (12 + 12 * groups / heads + 18 * f / h + 12 * s / h + 6 * vocab / (layers * h))


LONG_SEQUENCE: tuple[OutsideRun, ...] = tuple(
    OutsideRun(f"Llama 2 7B, s {k * 1024:,}, {gpus} H100, FP8 (t {t}, p {p}, context parallel {cp})",
               "long context", dict(_LLAMA2_7B, max_position_embeddings=k * 1024), gpus, batch, 1, k * 1024, t, p, cp,
               1, 1, "fp8", tflops * 1e12 / nemo_llama2_flop_per_token(_LLAMA2_7B, k * 1024), NEMO_LONG)
    for k, gpus, batch, tflops, t, p, cp in _LONG)
"""NeMo's long-sequence table for Llama 2 7B on H100 (4K to 1M positions, context parallelism up to 32): a check
kept apart from the validation set, because the table prints model TFLOP/s, not tokens per second — the
throughput is taken back through NeMo's Llama 2 FLOP formula (the one its 24.07 table's TFLOP/s follow: 776
TFLOP/s at 16,847 tokens/s is 4.61·10^10 FLOP per token, the formula's at s 4,096), and the micro-batch (1) is
an assumption; recomputation none, as for the other NeMo rows."""


@lru_cache(maxsize=1)
def long_sequence_table() -> tuple[OutsideRow, ...]:
    return tuple(OutsideRow(r.label, r.why, r.source, r.published_s, kernel_with_cp(r), "kernel model", None)
                 for r in LONG_SEQUENCE)


def validation_set_summary() -> dict:
    """The validation set kept apart from calibration — the A100 runs (``engine.plan.validation``) and the H100
    runs above: runs, median and worst absolute error (the worst signed)."""
    import statistics

    from engine.plan.validation import table

    errors = [r.error for r in table("validation")] + [r.error for r in h100_table()]
    worst = max(errors, key=abs)
    return {"runs": len(errors), "median": statistics.median(abs(e) for e in errors), "worst": worst}
