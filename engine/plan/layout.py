"""A parallel layout and the memory options of a run, validated against the model they split.

Degrees (Narayanan et al. 2021): d data-parallel replicas, t tensor-parallel ranks per layer, p pipeline
stages, c context-parallel ranks (each holds s/c of every sequence; Megatron-Core's context parallelism),
e expert-parallel ranks, each expert split over ``expert_tp`` ranks (Megatron-Core's expert tensor parallelism:
t by default, 1 in NVIDIA's MoE recipes), carved out of the t·c·d ranks of a stage ("MoE parallel folding": e ×
expert_tp divides t·c·d); chips n = d·t·p·c. A step processes the
global batch B sequences in m = B / (d·b) micro-batches of b per replica.

Pipeline split (``pipeline_split``): the p·v virtual stages (rank r holds stages r, r + p, …: Megatron's
interleaving) take the blocks ``even``ly (p·v divides them), or ``embedding_loss`` — Megatron's
``account_for_embedding_in_pipeline_split`` and ``account_for_loss_in_pipeline_split``: the embedding and the loss
count as one block each, so p·v divides blocks + 2 and the first and last virtual stages hold one block fewer —,
or ``balanced``: as evenly as they go, the first (blocks mod p·v) stages one more (DeepSpeed's uniform
partition, ``partition_uniform``).
"""
from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.errors import InputError
from engine.optimizers import OptimizerId
from engine.plan.model import PlanModel

MAX_CHIPS = 10_000_000
"""More chips than any cluster built (the largest are ~10⁵–10⁶)."""
MAX_DEGREE = MAX_CHIPS
MAX_BATCH = 100_000_000
DEFAULT_KERNEL_EFFICIENCY = 0.7
"""Share of peak the kernels of a training step reach when not waiting on communication or the pipeline.
Large 16-bit matrix multiplications run at about 70–90% of the dense peak; norms, softmax and element-wise
kernels are bound by memory bandwidth and pull the average down. 0.7 is an assumption, not a measurement:
the published-run table (``engine.plan.published``) shows how far it is off for each run."""

Degree = Annotated[int, Field(ge=1, le=MAX_DEGREE, strict=True)]
Precision = Literal["bf16", "fp16", "fp32", "fp8", "fp6", "fp4"]
"""fp8/fp6/fp4 are the matrix multiplications' format (FP8; MXFP6; MXFP4/NVFP4): weights, gradients and
activations stay 16-bit, as in FP8 and FP4 training recipes."""
PRECISIONS: tuple[str, ...] = get_args(Precision)
Recompute = Literal["none", "selective", "full"]
PipelineSplit = Literal["even", "embedding_loss", "balanced"]
PIPELINE_SPLITS: dict[str, str] = {
    "even": "equal blocks per stage (p × v divides the blocks)",
    "embedding_loss": "the embedding and the loss count as a block (Megatron's account_for_embedding/loss_in_"
                      "pipeline_split)",
    "balanced": "as even as the blocks go, the first stages one more (DeepSpeed's uniform partition)",
}


class Layout(BaseModel):
    """d, t, p, e, context parallelism c, micro-batch b, global batch B (sequences), interleaved virtual stages
    v, sequence parallelism (Korthikanti et al. 2022) with tensor parallelism."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    dp: Degree = 1
    tp: Degree = 1
    pp: Degree = 1
    ep: Degree = 1
    cp: Degree = 1
    micro_batch: Annotated[int, Field(ge=1, le=MAX_BATCH, strict=True)] = 1
    global_batch: Annotated[int, Field(ge=1, le=MAX_BATCH, strict=True)] | None = None
    virtual_stages: Annotated[int, Field(ge=1, le=1000, strict=True)] = 1
    sequence_parallel: bool = False
    pipeline_split: PipelineSplit = "even"
    expert_tp: Annotated[int, Field(ge=1, le=MAX_DEGREE, strict=True)] | None = Field(
        None, description="ranks each expert is split over (Megatron's expert tensor parallelism; default t)")

    @model_validator(mode="after")
    def _consistent(self):
        if self.chips > MAX_CHIPS:
            raise InputError("dp", f"{self.product} = {self.chips:,} chips is more than the {MAX_CHIPS:,} this "
                                   "tool accepts")
        if (self.tp * self.cp * self.dp) % (self.ep * self.etp):
            what = f"{self.ep} expert-parallel ranks" + (f" × expert_tp {self.etp}" if self.etp > 1 else "")
            raise InputError("ep", f"{what} do not divide the tp × cp × dp = {self.tp * self.cp * self.dp} ranks "
                                   "of a pipeline stage")
        if self.global_batch is not None:
            if self.micro_batch > self.global_batch:
                raise InputError("micro_batch", f"{self.micro_batch} is larger than the global batch "
                                                f"{self.global_batch}")
            if self.global_batch % (self.dp * self.micro_batch):
                raise InputError("global_batch", f"{self.global_batch} is not a multiple of dp × micro_batch = "
                                                 f"{self.dp * self.micro_batch}")
        return self

    @property
    def chips(self) -> int:
        return self.dp * self.tp * self.pp * self.cp

    @property
    def product(self) -> str:
        """How the chips are counted: "dp × tp × pp" (× cp with context parallelism)."""
        return "dp × tp × pp" + (" × cp" if self.cp > 1 else "")

    @property
    def factors(self) -> str:
        return " × ".join(str(x) for x in (self.dp, self.tp, self.pp) + ((self.cp,) if self.cp > 1 else ()))

    @property
    def etp(self) -> int:
        """Ranks each expert is split over: ``expert_tp``, else t (Megatron's default)."""
        return self.expert_tp or self.tp

    @property
    def expert_data_parallel(self) -> int:
        """Ranks holding the same experts: t·c·d / (e·expert_tp) (Megatron-Core's expert data parallelism)."""
        return self.tp * self.cp * self.dp // (self.ep * self.etp)

    def stage_blocks(self, units: int) -> tuple[tuple[int, ...], ...]:
        """Blocks (``units``) per pipeline rank and model chunk, [rank][chunk], by ``pipeline_split``."""
        p, v = self.pp, self.virtual_stages
        n = p * v
        if self.pipeline_split == "even":
            counts = [units // n] * n
        elif self.pipeline_split == "embedding_loss":
            per = (units + 2) // n
            counts = [per] * n
            counts[0] -= 1
            counts[-1] -= 1
        else:
            counts = [units // n + (1 if j < units % n else 0) for j in range(n)]
        return tuple(tuple(counts[r + c * p] for c in range(v)) for r in range(p))

    @property
    def micro_batches(self) -> int:
        """m = B / (d·b) per replica and step (1 when no global batch is given)."""
        if self.global_batch is None:
            return 1
        return self.global_batch // (self.dp * self.micro_batch)

    def check_model(self, model: PlanModel, chips: int | None = None) -> None:
        """The degrees must divide what they split: heads by t, blocks (layers) by p·v, experts by e, the
        sequence by 2c (Megatron-Core splits it into 2c chunks, two per rank, to balance the causal mask)."""
        if chips is not None and chips != self.chips:
            raise InputError("chips", f"{chips:,} chips but {self.product} = {self.factors} = {self.chips:,}")
        if self.cp > 1:
            if not model.blocks:
                raise InputError("cp", "context parallelism splits the sequences of attention blocks; this model "
                                       "has no transformer block (use cp = 1)")
            if model.seq_len % (2 * self.cp):
                raise InputError("cp", f"the sequence of {model.seq_len:,} tokens does not split into 2 × cp = "
                                       f"{2 * self.cp} equal chunks (two per context-parallel rank)")
        if self.tp > 1:
            if not model.heads:
                raise InputError("tp", "tensor parallelism splits attention heads; this model has no "
                                       "transformer block (use tp = 1)")
            if model.heads % self.tp:
                raise InputError("tp", f"{self.tp} does not divide the {model.heads} attention heads")
            if model.kv_heads % self.tp and self.tp % model.kv_heads:
                raise InputError("tp", f"{self.tp} neither divides nor is a multiple of the {model.kv_heads} "
                                       "key/value heads")
        units = model.pipeline_units
        stages = self.pp * self.virtual_stages
        what = "transformer blocks" if model.blocks else "layers"
        field = "pp" if self.virtual_stages == 1 else "virtual_stages"
        if self.pipeline_split == "embedding_loss":
            if not model.blocks:
                raise InputError("pipeline_split", "counting the embedding and the loss as blocks needs "
                                                   "transformer blocks")
            if (units + 2) % stages:
                raise InputError(field, f"pp × virtual stages = {stages} does not divide the {units} {what} + the "
                                        f"embedding and the loss = {units + 2}")
        elif self.pipeline_split == "balanced":
            if stages > units:
                raise InputError(field, f"pp × virtual stages = {stages} is more than the {units} {what}")
        elif stages > 1 and units % stages:
            raise InputError(field, f"pp × virtual stages = {stages} does not divide the {units} {what} (or split "
                                    "them unevenly: pipeline_split embedding_loss or balanced)")
        if self.ep > 1 and (model.experts <= 1 or model.experts % self.ep):
            raise InputError("ep", f"{self.ep} does not divide the model's {model.experts} expert(s)")


Convention = Literal["deepspeed", "megatron", "fsdp"]
CONVENTIONS: dict[str, str] = {
    "deepspeed": "DeepSpeed ZeRO 0–3 (16-bit weights and gradients: 16 B/param with Adam)",
    "megatron": "Megatron-LM (FP32 gradients: 18 B/param with Adam; ZeRO 1 = distributed optimizer, 6 + 12/d)",
    "fsdp": "PyTorch FSDP (FP32 sharded parameters and gradients; ZeRO 3 = FULL_SHARD, 2 = SHARD_GRAD_OP)",
}
"""How a framework keeps the model states (``engine.plan.memory``)."""


class MemoryOptions(BaseModel):
    """Optimizer, number format, ZeRO stage (3 = FSDP full sharding), activation recomputation, and the
    framework's convention for the model states."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    optimizer: OptimizerId = "adam"
    precision: Precision = "bf16"
    zero: Literal[0, 1, 2, 3] = 0
    recompute: Recompute = "none"
    convention: Convention = "deepspeed"

    @model_validator(mode="after")
    def _stage_exists(self):
        if self.convention == "megatron" and self.zero > 1:
            raise InputError("zero", f"Megatron-LM's distributed optimizer shards the optimizer states only "
                                     f"(ZeRO 1); stage {self.zero} needs the DeepSpeed or FSDP convention")
        if self.convention == "fsdp" and self.zero == 1:
            raise InputError("zero", "FSDP shards gradients with the optimizer states (SHARD_GRAD_OP = ZeRO 2) "
                                     "or everything (FULL_SHARD = ZeRO 3); it has no stage 1")
        return self


CapacityFactor = Annotated[float, Field(ge=1, le=64, allow_inf_nan=False)]
"""Mixture of experts: the busiest expert-parallel rank's routed tokens ÷ the mean (1: balanced routing, as
benchmark recipes force it; Switch Transformers trained at 1.0–2.0, Fedus et al. 2022, Table 1). Its expert
GEMMs and all-to-all take that many times the mean."""


Dispatcher = Literal["alltoall", "flex"]
"""Mixture of experts: Megatron-Core's token dispatcher — "alltoall" (NCCL's all-to-all: one copy of a token per
remote expert) or "flex" with DeepEP or HybridEP (a token crosses to each other node it needs once and is fanned
out there over NVLink)."""
DISPATCHERS: dict[str, str] = {
    "alltoall": "NCCL all-to-all (one copy per remote expert)",
    "flex": "DeepEP / HybridEP (a token crosses to each node once)",
}


class PlanInputs(BaseModel):
    """What the "Plan a run" page keeps in a scenario (and its share link): the chip, the kernel efficiency,
    the layout and the memory options."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    chip: str = Field("nvidia-h100-sxm", pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=80,
                      description="A chip id of the hardware database.")
    kernel_efficiency: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = DEFAULT_KERNEL_EFFICIENCY
    layout: Layout = Layout(dp=8, global_batch=64)
    options: MemoryOptions = MemoryOptions()
    capacity_factor: CapacityFactor = 1.0
    dispatcher: Dispatcher = "alltoall"
    overlap_a2a: bool = Field(False, description="Mixture of experts: the dispatch and combine hidden behind "
                                                 "another micro-batch's compute (Megatron's moe_a2a_overlap).")
