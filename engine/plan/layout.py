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
partition, ``partition_uniform``), or ``torchtitan``: the embedding and the output count as one block each and the
blocks + 2 go as evenly as they go, the first stages one more (torchtitan's ``generate_llm_fqn_per_model_part``
with input and output weight 1). ``first_stage_blocks`` / ``last_stage_blocks`` (Megatron-LM's
``--decoder-first-pipeline-num-layers`` / ``--decoder-last-pipeline-num-layers``, with the even split): pipeline rank
0 / p − 1 holds that many blocks (0: the embedding, or the head, on a stage of its own), v chunks of them each, and
the other ranks share the rest evenly — divisible as Megatron-Core requires it.
"""

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from ..optimizers import OptimizerId
from ..units import plural
from .frameworks import framework
from .model import PlanModel

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
Recompute = Literal["none", "selective", "ops", "alternate", "full"]
RECOMPUTE: dict[str, str] = {
    "none": "none",
    "selective": "selective (the attention core: Korthikanti et al. 2022)",
    "ops": "op-level (every other matrix product and the element-wise work: torchtitan's selective op)",
    "alternate": "every other block in full (torchtitan's selective layer)",
    "full": "full (each block's input kept)",
}
Attention = Literal["fused", "stored"]
ATTENTION: dict[str, str] = {
    "fused": "fused (FlashAttention, cuDNN, SDPA: no s × s scores kept)",
    "stored": "scores stored (an unfused softmax: Megatron-LM 2021–22)",
}
PipelineSplit = Literal["even", "embedding_loss", "balanced", "torchtitan"]
PIPELINE_SPLITS: dict[str, str] = {
    "even": "equal blocks per stage (p × v divides the blocks)",
    "embedding_loss": "the embedding and the loss count as a block (Megatron's account_for_embedding/loss_in_"
                      "pipeline_split)",
    "balanced": "as even as the blocks go, the first stages one more (DeepSpeed's uniform partition)",
    "torchtitan": "the embedding and the output count as a block, as even as they go (torchtitan's split)",
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
    first_stage_blocks: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] | None = Field(
        None, description="blocks on the first pipeline rank (Megatron's --decoder-first-pipeline-num-layers)")
    last_stage_blocks: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] | None = Field(
        None, description="blocks on the last pipeline rank (Megatron's --decoder-last-pipeline-num-layers)")

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
        ends = {0: self.first_stage_blocks, p - 1: self.last_stage_blocks}
        if any(x is not None for x in ends.values()) and p > 1:
            fixed = {r: b for r, b in ends.items() if b is not None}
            middle = p - len(fixed)
            per = (units - sum(fixed.values())) // (middle * v) if middle else 0
            return tuple(tuple([fixed[r] // v] * v if r in fixed else [per] * v) for r in range(p))
        if self.pipeline_split == "even":
            counts = [units // n] * n
        elif self.pipeline_split == "embedding_loss":
            per = (units + 2) // n
            counts = [per] * n
            counts[0] -= 1
            counts[-1] -= 1
        elif self.pipeline_split == "torchtitan":
            counts = [(units + 2) // n + (1 if j < (units + 2) % n else 0) for j in range(n)]
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
            raise InputError("chips", f"{plural(chips, 'chip')} but {self.product} = {self.factors} = {self.chips:,}")
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
        ends = {"first_stage_blocks": self.first_stage_blocks, "last_stage_blocks": self.last_stage_blocks}
        fixed = {k: b for k, b in ends.items() if b is not None}
        if fixed:
            name = next(iter(fixed))
            if self.pp < 2:
                raise InputError(name, "needs a pipeline (pp ≥ 2)")
            if self.pipeline_split != "even":
                raise InputError(name, f"sets the end stages of Megatron's even split, not of the "
                                       f"{self.pipeline_split} split")
            if not model.blocks:
                raise InputError(name, "the first and last stages' blocks need transformer blocks")
            for key, b in fixed.items():
                if b % self.virtual_stages:
                    raise InputError(key, f"{b} blocks do not split into the {self.virtual_stages} virtual stages "
                                          "of the rank")
            rest, middle = units - sum(fixed.values()), self.pp - len(fixed)
            if rest < 0:
                raise InputError(name, f"{sum(fixed.values())} blocks on the end stages, more than the model's "
                                       f"{units}")
            if (middle and (rest == 0 or rest % (middle * self.virtual_stages))) or (not middle and rest):
                raise InputError(name, f"the other {rest} {what} do not split evenly over the {middle} middle "
                                       f"pipeline ranks × {self.virtual_stages} virtual stages")
        elif self.pipeline_split in ("embedding_loss", "torchtitan"):
            if not model.blocks:
                raise InputError("pipeline_split", "counting the embedding and the loss as blocks needs "
                                                   "transformer blocks")
            if self.pipeline_split == "torchtitan" and stages > units + 2:
                raise InputError(field, f"pp × virtual stages = {stages} is more than the {units} {what} + the "
                                        "embedding and the output")
            if self.pipeline_split == "embedding_loss" and (units + 2) % stages:
                raise InputError(field, f"pp × virtual stages = {stages} does not divide the {units} {what} + the "
                                        f"embedding and the loss = {units + 2}")
        elif self.pipeline_split == "balanced":
            if stages > units:
                raise InputError(field, f"pp × virtual stages = {stages} is more than the {units} {what}")
        elif stages > 1 and units % stages:
            raise InputError(field, f"pp × virtual stages = {stages} does not divide the {units} {what} (or split "
                                    "them unevenly: pipeline_split embedding_loss, balanced or torchtitan, or "
                                    "first_stage_blocks / last_stage_blocks)")
        if self.ep > 1 and (model.experts <= 1 or model.experts % self.ep):
            raise InputError("ep", f"{self.ep} does not divide the model's {model.experts} expert(s)")


def with_framework_split(layout: dict, options: "MemoryOptions") -> dict:
    """A layout's fields with the framework's pipeline split where none is given (``Framework.pipeline_split``)."""
    return layout if layout.get("pipeline_split") else {**layout, "pipeline_split": framework(
        options.convention).pipeline_split}


def check_framework(layout: Layout, options: "MemoryOptions") -> None:
    """What the run's framework cannot run: a pipeline where it has none (PyTorch FSDP, Composer), or not at this ZeRO
    stage (DeepSpeed's: ZeRO 0 or 1), an interleaved schedule where its pipeline has none (DeepSpeed)."""
    fw = framework(options.convention)
    name = fw.label.split(" (")[0]
    if layout.pp > 1 and not fw.pipeline:
        raise InputError("pp", f"{name} has no pipeline parallelism (torchtitan, DeepSpeed and Megatron-LM have)")
    engine = name.split(" ")[0]  # "DeepSpeed"
    if layout.pp > 1 and not fw.pipelines(options.zero):
        raise InputError("zero", f"{engine}'s pipeline engine runs with ZeRO 0–{fw.pipeline_zero} only (ZeRO "
                                 f"{options.zero} is incompatible with its pipeline parallelism): a lower stage, "
                                 "or p 1")
    if layout.virtual_stages > 1 and not fw.interleaves:
        raise InputError("virtual_stages", f"{engine}'s pipeline engine has no interleaved schedule: v 1 "
                                           "(Megatron-LM and torchtitan interleave)")


Convention = Literal["deepspeed", "megatron", "megatron-2021", "fsdp", "torchtitan", "composer"]
"""The run's framework (``engine.plan.frameworks``): how it keeps the model states and what it runs and overlaps."""


class MemoryOptions(BaseModel):
    """Optimizer, number format, ZeRO stage (3 = FSDP full sharding), activation recomputation, the framework
    (``convention``), whether its element-wise work is compiled (``torch.compile``), and whether attention keeps its
    scores."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    optimizer: OptimizerId = "adam"
    precision: Precision = "bf16"
    zero: Literal[0, 1, 2, 3] = 0
    recompute: Recompute = "none"
    convention: Convention = "deepspeed"
    compiled: bool = Field(False, description="torch.compile over each block (PyTorch frameworks): element-wise "
                                              "work fused")
    attention: Attention = "fused"
    tp_overlap: bool = Field(False, description="tensor-parallel collectives overlapped with the matrix products "
                                                "(torchtitan's AsyncTP, Transformer Engine's tp_comm_overlap)")

    @model_validator(mode="after")
    def _stage_exists(self):
        refusal = framework(self.convention).refusal(self.zero)
        if refusal:
            raise InputError("zero", refusal)
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
