"""Memory per chip: model states (weights, gradients, optimizer states) and saved activations.

Model states per parameter, bytes (w weights, g gradients, o optimizer states):
- ``adam``, 16-bit mixed precision: 2 + 2 + 12 (FP32 master copy, m and v) = 16 (Rajbhandari et al. 2020,
  ZeRO §3: "2Ψ + 2Ψ + KΨ, K = 12"); FP32: 4 + 4 + 8 = 16.
- ``adam-8bit`` (Dettmers et al. 2022, block-wise 8-bit m and v): 16-bit mixed 2 + 2 + (4 master + 2) = 10;
  FP32: 4 + 4 + 2 = 10.
- ``sgd-momentum``: 16-bit mixed 2 + 2 + (4 + 4) = 12; FP32 4 + 4 + 4 = 12. ``sgd``: no state beyond
  the FP32 master copy in mixed precision (2 + 2 + 4), FP32 4 + 4.
FP8 training keeps 16-bit weights and gradients here (its master copy and states as BF16 mixed).

Fine-tuning (frozen layers, LoRA): gradients and optimizer states are kept for the trainable parameters
only, Ψ_g = Ψ_o = Ψ · (trainable / all), spread over the chips as the weights are; the frozen weights keep
their w bytes.

Sharding: tensor (t) and pipeline (p) parallelism split the dense parameters, expert parallelism (e) and expert
tensor parallelism (t_e: t by default, 1 in NVIDIA's MoE recipes) the experts': Ψ_chip = Ψ_dense,r/t +
Ψ_experts,r/(t_e·e) on the most loaded pipeline stage r, whose blocks' share is b_r/L of the blocks' parameters and
which also holds the embeddings (the first stage) or the layers after the blocks (the last: final norm, an untied
head), as Megatron-LM's theoretical memory counts its most loaded shard; Ψ/p for a model without blocks. ZeRO
shards over the d·c data-parallel ranks (the experts' over the t·c·d/(e·t_e) ranks holding the same experts):
stage 1 the optimizer states, stage 2 also the gradients, stage 3 (FSDP) also the weights.

Activations of one transformer block per micro-batch of b sequences (Korthikanti et al. 2022, "Reducing
Activation Recomputation in Large Transformer Models", Table 2; 16-bit values, 1-byte dropout masks), with
s sequence length, h hidden size, a heads, t tensor-parallel ranks:
- none: s·b·h·(34 + 5·a·s/h); with t: s·b·h·(10 + 24/t + 5·a·s/(h·t)); with sequence parallelism:
  s·b·h·(34 + 5·a·s/h)/t. The 5·a·s/h term is the s × s scores, their softmax and dropout mask: kept only with
  ``attention="stored"``; a fused attention kernel (FlashAttention, cuDNN, SDPA — the default) keeps the output
  and one softmax statistic per row (Dao et al. 2022), counted as nothing beside 34.
- selective (attention core recomputed): s·b·h·34 (÷t with sequence parallelism; 10 + 24/t without).
- ops (op-level checkpointing: every other matrix product's output and the element-wise work recomputed, the
  attention output kept): half of selective's, an approximation (no published accounting).
- alternate (every other block in full): the mean of full's and none's.
- full (each block's input kept): 2·s·b·h (÷t with sequence parallelism).
FP32 activations double these. Other layers keep their output values at the activation width (2 bytes,
4 in FP32). With 1F1B pipelining the first stage holds min(m, p) micro-batches of its L/p blocks
(Korthikanti eq. 5: L blocks' worth when m ≥ p; with an uneven split, the first stage's own blocks); the
interleaved schedule adds a factor 1 + (p−1)/(p·v).
Not counted: temporary buffers, the framework and allocator's reserve, communication buffers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError
from ..optimizers import OPTIMIZERS
from .frameworks import framework
from .layout import Layout, MemoryOptions, check_framework
from .model import PlanModel
from ..results import Result

GB = 1e9

STATE_BYTES: dict[tuple[str, bool], tuple[float, float, float]] = {
    (name, mixed): opt.state_bytes(mixed) for name, opt in OPTIMIZERS.items() for mixed in (True, False)}
"""(optimizer, mixed 16-bit?) -> (weights, gradients, optimizer states) bytes per parameter (``engine.optimizers``)."""


def state_bytes_per_param(options: MemoryOptions) -> tuple[float, float, float]:
    """(w, g, o) bytes per parameter for the optimizer, number format and framework convention.

    - deepspeed: ``STATE_BYTES`` (ZeRO's 2 + 2 + K).
    - megatron (Megatron-LM's distributed-optimizer table: 16-bit parameters with FP32 gradients 18 B,
      6 + 12/d distributed; FP32 16, 8 + 8/d): in 16-bit mixed precision the gradients are accumulated and
      reduced as FP32 main gradients (4 B) — as in Korthikanti et al. 2022's FP16 runs, whose measured
      parameter-and-optimizer memory is 18 B per parameter. (Keeping FP16 gradients beside an FP32 copy, the
      table's 20 B row, is not modelled.)
    - fsdp (PyTorch FSDP, torchtitan, Composer; mixed precision: FP32 sharded parameters and gradients, 16-bit
      copies only while computing): weights and gradients 4 B each, the optimizer's moments (K − 4) B.
    The framework's convention: ``engine.plan.frameworks`` (``Framework.states``).
    """
    w, g, o = STATE_BYTES[(options.optimizer, options.precision != "fp32")]
    states = framework(options.convention).states
    if options.precision == "fp32" or states == "deepspeed":
        return w, g, o
    if states == "megatron":
        return 2, 4, o
    return 4, 4, o - 4  # fsdp: the FP32 master is the sharded parameter itself


def activation_bytes_per_value(options: MemoryOptions) -> int:
    return 4 if options.precision == "fp32" else 2


def block_activation_bytes(s: int, b: int, h: int, a: int, t: int = 1, recompute: str = "none",
                           sequence_parallel: bool = False, stored_scores: bool = False) -> float:
    """Bytes one transformer block keeps for the backward pass, 16-bit (Korthikanti et al. 2022, Table 2; the
    scores only where ``stored_scores``)."""
    sbh = s * b * h
    full = 2 * sbh / (t if sequence_parallel else 1)
    if recompute == "full":
        return full
    if recompute == "alternate":
        return (full + block_activation_bytes(s, b, h, a, t, "none", sequence_parallel, stored_scores)) / 2
    attention = 5 * a * s / h if recompute == "none" and stored_scores else 0.0
    kept = sbh * (34 + attention) / t if sequence_parallel else sbh * (10 + 24 / t + attention / t)
    return kept / 2 if recompute == "ops" else kept


@dataclass(frozen=True, slots=True)
class Memory(Result):
    """Bytes per chip, on the pipeline stage whose total is the largest."""

    weights: float
    gradients: float
    optimizer_states: float
    activations: float
    activations_per_sample: float
    """Activation bytes per sequence of the micro-batch: the slope in b."""
    params_per_chip: float
    chip_memory: float | None = None

    @property
    def model_states(self) -> float:
        return self.weights + self.gradients + self.optimizer_states

    @property
    def total(self) -> float:
        return self.model_states + self.activations

    @property
    def fits(self) -> bool | None:
        return None if self.chip_memory is None else self.total <= self.chip_memory

    @property
    def largest_micro_batch(self) -> int | None:
        """The largest b whose total fits the chip's memory (0: the model states alone do not fit)."""
        if self.chip_memory is None or self.activations_per_sample <= 0:
            return None
        room = self.chip_memory - self.model_states
        return max(0, math.floor(room / self.activations_per_sample)) if room > 0 else 0

    def as_dict(self) -> dict:
        out = {"model_states_bytes_per_chip": self.model_states, "activation_bytes_per_chip": self.activations,
               "total_bytes_per_chip": self.total, "weights_bytes_per_chip": self.weights,
               "gradients_bytes_per_chip": self.gradients, "optimizer_bytes_per_chip": self.optimizer_states,
               "params_per_chip": self.params_per_chip}
        if self.chip_memory is not None:
            out.update(chip_memory_bytes=self.chip_memory, fits=self.fits,
                       largest_micro_batch=self.largest_micro_batch)
        return out


def stage_params(model: PlanModel, layout: Layout) -> list[tuple[float, float]]:
    """(dense, expert) parameters of each pipeline stage, before tensor and expert parallelism: its blocks' share,
    + the embeddings on the first stage and the layers after the blocks on the last, with a copy of a tied head's
    token table there when p > 1 (Megatron-LM's ``theoretical_memory_usage``: "most loaded model shard has
    1/pp_size transformer layers + 1 embedding layer"; its last stage keeps the tied output layer's own copy, as
    DeepSpeed's ``TiedLayerSpec`` does). A model without blocks splits its parameters evenly, Ψ/p."""
    p = layout.pp
    if p == 1 or not model.blocks:
        return [(model.dense_params / p, model.expert_params / p)] * p
    spread = model.dense_params - model.params_before_blocks - model.params_after_blocks
    ends = {0: model.params_before_blocks, p - 1: model.params_after_blocks + model.tied_head_params}
    return [(spread * sum(chunks) / model.blocks + ends.get(r, 0), model.expert_params * sum(chunks) / model.blocks)
            for r, chunks in enumerate(layout.stage_blocks(model.blocks))]


def _state_shards(dense: float, experts: float, layout: Layout, zero: int) -> tuple[float, float, float, float]:
    """(params per chip, weight, gradient, optimizer-state parameter counts per chip after ZeRO) of a stage that
    holds ``dense`` and ``experts`` parameters."""
    dense, experts = dense / layout.tp, experts / (layout.etp * layout.ep)
    params = dense + experts
    d_dense, d_expert = layout.dp * layout.cp, layout.expert_data_parallel  # states shard over d·c, t·c·d/(e·t_e)

    def sharded(stage: int) -> float:
        return dense / d_dense + experts / d_expert if zero >= stage else params

    return params, sharded(3), sharded(2), sharded(1)


def stage_activation_bytes(model: PlanModel, layout: Layout, options: MemoryOptions, micro_batch: int) -> list[float]:
    """Activation bytes on each pipeline stage for micro-batches of ``micro_batch`` sequences."""
    scale = activation_bytes_per_value(options) / 2
    m = layout.micro_batches if layout.global_batch else layout.pp
    interleave = 1 + (layout.pp - 1) / (layout.pp * layout.virtual_stages) if layout.virtual_stages > 1 else 1
    per_block = block_activation_bytes(model.seq_len, micro_batch, model.d_model, model.heads, layout.tp,
                                       options.recompute, layout.sequence_parallel,
                                       options.attention == "stored") if model.blocks else 0.0
    others = model.other_activation_values * micro_batch * activation_bytes_per_value(options) / layout.pp
    # 1F1B: rank r holds min(m, p − r) micro-batches of its blocks (rank 0 the fullest when the split is even)
    ranks = [sum(chunks) for chunks in layout.stage_blocks(model.blocks)] if model.blocks else [0] * layout.pp
    return [(b * per_block * scale + others) * min(m, layout.pp - r) * interleave / layout.cp  # c: s/c tokens
            for r, b in enumerate(ranks)]


def memory_per_chip(model: PlanModel, layout: Layout, options: MemoryOptions,
                    chip_memory_bytes: float | None = None) -> Memory:
    """Weights, gradients, optimizer states and activations per chip on the pipeline stage whose total is the
    largest (see the module's formulas): its states and its activations, one chip's."""
    check_framework(layout, options)
    layout.check_model(model)
    w, g, o = state_bytes_per_param(options)
    trained = model.trainable_fraction  # gradients and optimizer states only for the trainable weights
    acts = stage_activation_bytes(model, layout, options, layout.micro_batch)
    slopes = stage_activation_bytes(model, layout, options, 1)
    stages = []
    for (dense, experts), a, slope in zip(stage_params(model, layout), acts, slopes):
        params, w_params, g_params, o_params = _state_shards(dense, experts, layout, options.zero)
        stages.append(Memory(w * w_params, g * g_params * trained, o * o_params * trained, a, slope, params,
                             chip_memory_bytes))
    return max(stages, key=lambda m: m.total)


def divisors(n: int) -> list[int]:
    small = [i for i in range(1, math.isqrt(n) + 1) if n % i == 0]
    return sorted(set(small + [n // i for i in small]))


@dataclass(frozen=True, slots=True)
class FewestChips(Result):
    """The fewest chips that hold the model, with their layout and memory per chip."""

    chips: int
    layout: Layout
    memory: Memory


def fewest_chips(model: PlanModel, options: MemoryOptions, chip_memory_bytes: float, micro_batch: int = 1,
                 max_tp: int = 8, sequence_parallel: bool = False) -> FewestChips | None:
    """The fewest chips whose memory holds the model at ``micro_batch``: over t dividing the heads (≤ max_tp; dividing
    the key/value heads or a multiple of them), p dividing the blocks where the framework has a pipeline, and, with
    ZeRO, the smallest d that shards the states enough (states = fixed +
    sharded/d, solved for d). None if no layout fits."""
    if not math.isfinite(chip_memory_bytes) or chip_memory_bytes <= 0:
        raise InputError("chip_memory", "must be a positive number of bytes")
    best: FewestChips | None = None
    kv = model.kv_heads or model.heads
    tps = [t for t in divisors(model.heads) if t <= max_tp and (kv % t == 0 or t % kv == 0)] if model.heads else [1]
    pps = divisors(model.pipeline_units) if model.pipeline_units and framework(options.convention).pipelines(
        options.zero) else [1]
    for t in tps:
        for p in pps:
            if best is not None and t * p >= best.chips:
                continue
            base = Layout(tp=t, pp=p, micro_batch=micro_batch, sequence_parallel=sequence_parallel and t > 1)
            one = memory_per_chip(model, base, options, chip_memory_bytes)
            d = 1
            if not one.fits:
                if options.zero == 0:
                    continue
                # states(d) = unsharded + sharded / d; sharded = states at d = 1 minus what ZeRO leaves whole
                w, g, _ = state_bytes_per_param(options)
                stage = options.zero
                whole = one.params_per_chip * ((w if stage < 3 else 0)
                                               + (g * model.trainable_fraction if stage < 2 else 0))
                shardable = one.model_states - whole
                room = chip_memory_bytes - one.activations - whole
                if room <= 0:
                    continue
                d = max(1, math.ceil(shardable / room))
                if best is not None and d * t * p >= best.chips:
                    continue
            layout = Layout(dp=d, tp=t, pp=p, micro_batch=micro_batch,
                            sequence_parallel=sequence_parallel and t > 1)
            mem = memory_per_chip(model, layout, options, chip_memory_bytes)
            if mem.fits and (best is None or layout.chips < best.chips):
                best = FewestChips(layout.chips, layout, mem)
    return best
