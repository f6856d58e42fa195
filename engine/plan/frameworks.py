"""The frameworks a plan can be run with, each a named convention with its own behaviour: how it keeps the model
states, which ZeRO stages it has, what it overlaps, the attention kernel it runs and that kernel's rate, whether
its element-wise work runs unfused (eager PyTorch) or fused, the dtype it reduces gradients in, and the kernel
model's calibration fitted on its own published runs (docs/plan.md: "Frameworks").

- ``megatron`` — Megatron-LM / NeMo / Megatron Bridge (Megatron Core, Transformer Engine): FP32 main gradients
  (18 B/param with Adam), the distributed optimizer as ZeRO 1, Megatron FSDP as ZeRO 3; the gradient reduction
  overlapped with the backward
  (``--overlap-grad-reduce``) and the interleaved schedule's sends with the next chunk
  (``--overlap-p2p-communication``); fused kernels (TE's LayerNormLinear, fused bias-activation, cuDNN fused
  attention).
- ``megatron-2021`` — Megatron-LM as its 2021–22 papers ran it on A100s (Narayanan et al. 2021, Korthikanti et al.
  2022): nothing overlapped, the scores stored by its fused scale-mask-softmax (``attention="stored"`` on those
  runs).
- ``deepspeed`` — DeepSpeed ZeRO 0–3 (Megatron-DeepSpeed for tensor and pipeline parallelism): 16-bit weights and
  gradients (16 B/param with Adam); the reduction overlapped only at ZeRO 3 (``overlap_comm`` defaults to true for
  stage 3, false below); its pipeline engine does not interleave.
- ``fsdp`` — PyTorch FSDP (FSDP1/FSDP2, eager, e.g. Hugging Face Accelerate): FP32 sharded parameters and
  gradients (FULL_SHARD = ZeRO 3, SHARD_GRAD_OP = ZeRO 2); each block's all-gather prefetched under compute and
  its reduce-scatter in the backward hooks; gradients reduced in FP32 (``MixedPrecision(reduce_dtype=float32)``).
- ``torchtitan`` — PyTorch's torchtitan: FSDP2 per block, optionally with ``torch.compile`` per block
  (``compiled``), tensor, pipeline and context parallelism; scaled_dot_product_attention (FlashAttention-2's
  kernels); gradients reduced in FP32 (``mixed_precision_reduce = "float32"``, its default); Float8 through
  torchao's Float8Linear with dynamic tensor-wise scaling (its default recipe: an amax pass before each cast).
- ``composer`` — MosaicML Composer / llm-foundry: FSDP (FULL_SHARD or SHARD_GRAD_OP), FlashAttention (Triton,
  then FlashAttention-2); Composer's DEFAULT mixed precision reduces gradients in FP32.

Attention kernels and their rates (share of the 16-bit dense peak, causal FLOP: the masked half skipped):
FlashAttention-2 reaches 50–73% of the A100's peak (Dao 2023, arXiv 2307.08691: 0.6 here, the range's middle) and
35% of the H100's (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608: "FlashAttention-2 achieves only 35%
utilization on H100"); PyTorch's fused attention measured on an H200 by FLOPscope (tools/gpu_kernel_shapes.py,
causal, head size 128, forward and backward: 46%) stands for cuDNN's through Transformer Engine on Hopper and later
(no published rate found); AMD's CK FlashAttention is taken at FlashAttention-2's Hopper rate (an assumption).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .kernel.calibration import KernelCalibration
from ..results import Result

FA2_AMPERE = "Dao 2023, 'FlashAttention-2', arXiv 2307.08691: 50–73% of the A100's peak (0.6, the middle)"
FA2_HOPPER = "Shah et al. 2024, 'FlashAttention-3', arXiv 2407.08608: FlashAttention-2 at 35% of the H100's peak"
FUSED_MEASURED = ("FLOPscope's measurement on an H200 (tools/gpu_kernel_shapes.py): PyTorch's fused attention, "
                  "causal, head size 128, forward and backward at 46% of the BF16 peak")


@dataclass(frozen=True, slots=True)
class AttentionKernel(Result):
    """A fused attention kernel: its name, its rate by chip architecture (share of the 16-bit dense peak, causal
    FLOP), and where the rates come from."""

    name: str
    rate: dict[str, float]
    source: str


FLASH_ATTENTION_2 = AttentionKernel("FlashAttention-2", {"ampere": 0.60, "hopper": 0.35, "blackwell": 0.35,
                                                         "cdna3": 0.35, "cdna4": 0.35},
                                    f"{FA2_AMPERE}; {FA2_HOPPER}; Blackwell and AMD (CK) taken at the Hopper rate")
CUDNN_FUSED = AttentionKernel("cuDNN fused attention (Transformer Engine)",
                              {"ampere": 0.60, "hopper": 0.46, "blackwell": 0.46, "cdna3": 0.35, "cdna4": 0.35},
                              f"{FUSED_MEASURED}; on the A100 FlashAttention-2's ({FA2_AMPERE}); AMD at "
                              "FlashAttention-2's Hopper rate")

StateConvention = Literal["deepspeed", "megatron", "fsdp"]


@dataclass(frozen=True, slots=True)
class Framework(Result):
    """One framework's conventions and behaviour (see the module's list)."""

    id: str
    label: str
    states: StateConvention
    """How it keeps the model states (``engine.plan.memory.state_bytes_per_param``)."""
    zero_stages: tuple[int, ...]
    overlap_dp: Literal["always", "zero3", "never"]
    """The gradient reduction overlapped with the backward: always, at ZeRO 3 only, or never."""
    overlap_pp: bool
    """The interleaved schedule's sends overlapped with the next chunk."""
    reduce_bytes: int
    """Bytes per gradient value reduced over the data-parallel ranks (2: BF16; 4: FP32)."""
    attention: AttentionKernel
    eager: bool
    """Element-wise work (norms, activations, rotary embedding, residuals) runs as separate PyTorch kernels unless
    the run compiles (``MemoryOptions.compiled``)."""
    calibration: KernelCalibration = field(default_factory=KernelCalibration)
    """The kernel model's efficiencies for this framework (fitted on its calibration runs: docs/plan.md)."""
    zero_names: dict[int, str] = field(default_factory=dict)
    """What the framework calls its stages (FSDP: 2 SHARD_GRAD_OP, 3 FULL_SHARD)."""
    pipeline: bool = True
    """It has pipeline parallelism (plain FSDP and Composer have none)."""
    float8_scaling: Literal["delayed", "dynamic"] = "delayed"
    """How its FP8 linear layers scale: Transformer Engine's delayed scaling (the amax from earlier steps, taken in
    the cast's pass) or torchao's dynamic tensor-wise scaling (torchtitan's Float8: an amax pass before each cast)."""
    pipeline_zero: int = 3
    """The highest ZeRO stage its pipeline runs with (DeepSpeed's PipelineEngine: 1 — "ZeRO-2 and ZeRO-3 are
    incompatible with pipeline parallelism", ``deepspeed/runtime/pipe/engine.py``)."""
    interleaves: bool = True
    """Its pipeline has the interleaved schedule (v > 1: Megatron-LM, torchtitan; DeepSpeed's has not)."""
    pipeline_split: str = "even"
    """How it splits the blocks over pipeline stages by default (``Layout.pipeline_split``): Megatron evenly
    (p·v must divide them), DeepSpeed by ``partition_uniform`` (balanced), torchtitan with the embedding and the
    output weighted as a block each."""

    def pipelines(self, zero: int) -> bool:
        """It runs a pipeline (p > 1) at ZeRO ``zero``."""
        return self.pipeline and zero <= self.pipeline_zero

    def overlaps_dp(self, zero: int) -> bool:
        return self.overlap_dp == "always" or (self.overlap_dp == "zero3" and zero == 3)

    def refusal(self, zero: int) -> str | None:
        """Why the framework has no ZeRO ``zero`` (None if it has it)."""
        if zero in self.zero_stages:
            return None
        names = ", ".join(f"{z}" + (f" = {self.zero_names[z]}" if z in self.zero_names else "")
                          for z in self.zero_stages)
        return f"{self.label} has no ZeRO stage {zero} (its stages: {names})"


FRAMEWORKS: dict[str, Framework] = {}


def register(framework: Framework) -> Framework:
    """Add a framework to ``FRAMEWORKS``; a second one under the same id is refused."""
    if framework.id in FRAMEWORKS:
        raise ValueError(f"framework {framework.id!r} is registered twice")
    FRAMEWORKS[framework.id] = framework
    return framework


FITTED: dict[str, KernelCalibration] = {
    "torchtitan": KernelCalibration(
        elementwise_traffic=5.0, block_overhead_s=0.0012,
        source="fitted on torchtitan's 2024-04-18 runs (Llama 2 13B and 70B on 64 A100, eager; python -m "
               "tools.fit_frameworks): median 1.2%, worst −7.7%"),
    "composer": KernelCalibration(
        attention_rate_scale=0.7, elementwise_traffic=2.5,
        source="fitted on llm-foundry's 2023-05-03 runs (MPT 125M–70B on A100 80 and 40 GB; its Triton "
               "FlashAttention at 0.7 of FlashAttention-2's rate): median 3.2%, worst −21.9%"),
    "deepspeed": KernelCalibration(
        microbatch_overhead_s=0.0475, source="fitted on MT-NLG 530B's three runs (Megatron's kernels in DeepSpeed's "
                                             "pipeline engine, Smith et al. 2022): median 0.9%, worst −3.1%"),
}
"""Each framework's calibration, fitted on its calibration runs only (``tools/fit_frameworks.py``; η_max 0.74 on
Narayanan et al. 2021 for all). Megatron's lineage has its calibration runs on the A100 (Narayanan et al. 2021)
and nothing more to fit for its fused kernels; plain PyTorch FSDP, with no published runs of its own, takes
torchtitan's eager figures (the same FSDP and eager PyTorch kernels)."""
FITTED["fsdp"] = FITTED["torchtitan"]

FSDP_STAGES = {2: "SHARD_GRAD_OP", 3: "FULL_SHARD"}
register(Framework("deepspeed", "DeepSpeed ZeRO 0–3 (16-bit weights and gradients: 16 B/param with Adam)",
                   "deepspeed", (0, 1, 2, 3), "zero3", False, 2, CUDNN_FUSED, eager=False,
                   calibration=FITTED["deepspeed"], pipeline_split="balanced", pipeline_zero=1, interleaves=False))
register(Framework("megatron", "Megatron-LM / NeMo (FP32 gradients: 18 B/param with Adam; ZeRO 1 = distributed "
                               "optimizer, 6 + 12/d; ZeRO 3 = Megatron FSDP)", "megatron", (0, 1, 3), "always", True,
                   2, CUDNN_FUSED, eager=False, zero_names={1: "the distributed optimizer", 3: "Megatron FSDP"}))
register(Framework("megatron-2021", "Megatron-LM 2021–22 (its published A100 runs: FP32 gradients, no overlap of "
                                    "the gradient reduction or of the pipeline sends)", "megatron", (0, 1), "never",
                   False, 2, CUDNN_FUSED, eager=False, zero_names={1: "the distributed optimizer"}))
register(Framework("fsdp", "PyTorch FSDP (FP32 sharded parameters and gradients; ZeRO 3 = FULL_SHARD, "
                           "2 = SHARD_GRAD_OP)", "fsdp", (0, 2, 3), "always", True, 4, FLASH_ATTENTION_2, eager=True,
                   calibration=FITTED["fsdp"], zero_names=FSDP_STAGES, pipeline=False))
register(Framework("torchtitan", "torchtitan (FSDP2 per block, optional torch.compile; FP32 gradient reduction)",
                   "fsdp", (0, 2, 3), "always", True, 4, FLASH_ATTENTION_2, eager=True,
                   calibration=FITTED["torchtitan"], zero_names=FSDP_STAGES, float8_scaling="dynamic",
                   pipeline_split="torchtitan"))
register(Framework("composer", "MosaicML Composer / llm-foundry (FSDP, FlashAttention; FP32 gradient reduction)",
                   "fsdp", (0, 2, 3), "always", False, 4, FLASH_ATTENTION_2, eager=True,
                   calibration=FITTED["composer"], zero_names=FSDP_STAGES, pipeline=False))

CONVENTIONS: dict[str, str] = {f.id: f.label for f in FRAMEWORKS.values()}
"""What the Plan page and the CLI offer, by id."""


def framework(framework_id: str) -> Framework:
    return FRAMEWORKS[framework_id]
