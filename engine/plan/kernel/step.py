"""The kernel model's one step function: a pipeline stage of blocks (``block.stage_work``), the schedule, the
collectives (``comm``), the gradient reduction and the optimizer step.

- Pipeline (1F1B, v interleaved chunks): step = (m + (p − 1)/v) × T_stage, T_stage the slowest stage's time per
  micro-batch (its blocks — L/p, or the layout's uneven split — with the logits on the last); the sends of
  b·q·h·2/t bytes (scatter-gather), 2·v per micro-batch, overlapped with the next chunk where the framework does
  (``comm.pipeline_sends_s``).
- Tensor parallelism: each block's all-reduces (``BlockWork.tp_all_reduces``) over NVLink when t fits in a node,
  where the run overlaps them (``MemoryOptions.tp_overlap``) each gather or scatter exposed beyond the one linear
  product it feeds or comes from (``comm.tp_overlap_exposed_s``; the experts' blocks: beyond all their products);
  context parallelism's ring over the t·cp ranks' link, exposed beyond the attention; the experts' all-to-all,
  hidden behind another micro-batch's compute with the experts' ``overlap_a2a``.
- Data parallelism: the 16-bit gradients reduced over the d·cp ranks (the dense parameters, 1/(t·p) per rank)
  and, in a mixture of experts, over the t·d/ep ranks holding the same experts (1/(p·ep) of the experts' per
  rank: Megatron-Core's expert groups, "MoE parallel folding"), each through ``comm.dp_gb_s``; an all-reduce's
  bytes (ZeRO 1: reduce-scatter + all-gather), overlapped with the last micro-batch's backward where the
  framework does. ZeRO 2: a reduce-scatter in every micro-batch's backward (overlapped where the framework does)
  and one gather of the weights after the step; ZeRO 3: ``comm.zero3_exposed_s`` per micro-batch — once per step
  where an FSDP framework runs a pipeline (``Behaviour.pipeline_holds_weights``: the weights gathered in the first
  micro-batch's forward and held, the gradients reduce-scattered after the last backward).
- Optimizer step: ``Optimizer.update_bytes`` per parameter (Adam in 16-bit mixed precision: 34) at the memory
  bandwidth, on the rank's 1/(d·cp) share with ZeRO 1 and above (or a distributed optimizer); the weights cast
  once into a format below 16 bits (with dynamic scaling in every forward instead: ``block``).
- MFU = model FLOP / (step × chips × the linear layers' dense peak); model FLOP = 3 × forward FLOP × B.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...optimizers import OPTIMIZERS
from ..interconnects import Interconnect
from .block import ExpertSettings, stage_work, update_work
from .calibration import DEFAULT_CALIBRATION, KernelCalibration
from .chip import KernelHardware, kernel_hardware
from .comm import (
    all_reduce_s,
    all_to_all_s,
    dp_gb_s,
    group_gb_s,
    pipeline_sends_s,
    ring_exposed_s,
    tp_overlap_exposed_s,
    zero3_exposed_s,
)
from .frameworks import Behaviour, behaviour, framework_calibration
from .gemm import BYTES
from ..layout import Layout, MemoryOptions
from ..model import PlanModel
from ...results import Result


@dataclass(frozen=True, slots=True)
class KernelStep(Result):
    """One step's time by parts (seconds) and the model FLOP it does."""

    gemm_s: float
    memory_bound_s: float
    tp_comm_s: float
    bubble_s: float
    pp_comm_s: float
    dp_comm_s: float
    optimizer_s: float
    model_flop: float
    chips: int
    peak: float
    cp_comm_s: float = 0.0
    """Context parallelism's key/value ring exchange, where attention does not hide it."""
    ep_comm_s: float = 0.0
    """Expert parallelism's dispatch and combine all-to-all."""
    overhead_s: float = 0.0
    """Time outside the kernels the calibration adds (per micro-batch and per step)."""

    @property
    def step_s(self) -> float:
        return (self.gemm_s + self.memory_bound_s + self.tp_comm_s + self.bubble_s + self.pp_comm_s
                + self.dp_comm_s + self.optimizer_s + self.cp_comm_s + self.ep_comm_s + self.overhead_s)

    @property
    def mfu(self) -> float:
        return self.model_flop / (self.step_s * self.chips * self.peak)


def kernel_step(model: PlanModel, layout: Layout, options: MemoryOptions, hw: KernelHardware, framework: Behaviour,
                experts: ExpertSettings = ExpertSettings(),
                cal: KernelCalibration = DEFAULT_CALIBRATION) -> KernelStep:
    """One training step of ``model`` in ``layout`` on ``hw`` as ``framework`` runs it (see the module's formulas)."""
    t, p, d, cp, v, ep = layout.tp, layout.pp, layout.dp, layout.cp, layout.virtual_stages, layout.ep
    m = layout.global_batch // (d * layout.micro_batch)
    link, eta = hw.link, cal.network_efficiency
    intra, inter, node = link.intra_gb_s, hw.inter_gb_s, link.chips_per_node
    work = stage_work(model, layout, options.recompute, hw, framework, experts, cal)
    w = work.block

    one = all_reduce_s(w.act_bytes, t, group_gb_s(t, intra, inter, node), eta)
    tp = w.tp_all_reduces * one
    if options.tp_overlap and w.tp_pairs:  # AsyncTP / tp_comm_overlap: each collective under its own product
        tp = sum(n * tp_overlap_exposed_s(one / 2, g, t) for n, g in w.tp_pairs)
    elif options.tp_overlap:  # the experts' blocks: under the block's products
        tp = max(0.0, tp - (w.fwd_gemm_s + w.bwd_gemm_s + w.re_gemm_s))
    ring = (ring_exposed_s(w.kv_ring_bytes / (group_gb_s(t * cp, intra, inter, node) * 1e9 * eta), w.attention_s)
            if cp > 1 else 0.0)
    a2a = w.a2a_count * all_to_all_s(w.a2a_bytes, ep, 1, intra, inter, node, eta, w.per_node)
    if experts.overlap_a2a:
        a2a = max(0.0, a2a - (w.fwd_gemm_s + w.bwd_gemm_s + w.re_gemm_s))
    gpu_block = w.gemm_s + w.memory_s + tp + ring + a2a + cal.block_overhead_s
    waiting = max(0.0, cal.host_block_s - gpu_block)  # the GPU idles while the host issues the block
    per_block = gpu_block + waiting
    head = work.head_gemm_s + work.head_memory_s
    # the slowest pipeline rank: its blocks, and the head where it is the last
    ranks = [sum(chunks) for chunks in layout.stage_blocks(model.blocks)]
    slowest = max(range(p), key=lambda r: ranks[r] * per_block + (head if r == p - 1 else 0.0))
    blocks, on_last = ranks[slowest], slowest == p - 1
    stage = blocks * per_block + (head if on_last else 0.0) + cal.microbatch_overhead_s
    fwd_stage = blocks * (w.fwd_gemm_s + w.fwd_memory_s)
    bwd_stage = blocks * (w.bwd_gemm_s + w.bwd_memory_s + w.re_gemm_s + w.re_memory_s)
    n_dp = d * cp  # gradients are reduced over the data- and context-parallel ranks
    pp = 0.0
    if p > 1:
        send = w.act_bytes / t / (group_gb_s(2 * t * n_dp, intra, inter, node) * 1e9 * eta)
        pp = pipeline_sends_s(send, v, m, fwd_stage, bwd_stage, framework.overlap_pp)

    # gradients: the dense parameters over d·cp ranks spaced t apart, the experts' over t·d/ep spaced ep apart
    groups = [(model.dense_params / (t * p), n_dp, t)]
    if model.experts > 1:
        groups.append((model.expert_params / (p * ep), max(1, t * d // ep), ep))
    params_rank = sum(n for n, _, _ in groups)
    dp = zero_stage = 0.0
    reduce = framework.reduce_bytes
    if options.zero >= 2 and n_dp > 1:
        gather = all_reduce_s(params_rank * BYTES, n_dp, dp_gb_s(t, n_dp, intra, inter, node), eta) / 2
        scatter = gather * reduce / BYTES
        if p > 1 and framework.pipeline_holds_weights:
            # FSDP under a pipeline: one gather (the first micro-batch's forward) and one scatter (after the last
            # backward) per step, each block's prefetched under the previous block's compute
            dp = zero3_exposed_s(gather, scatter, fwd_stage, bwd_stage, blocks, False)
        elif options.zero == 3 or not framework.gather_in_backward:
            # FSDP's SHARD_GRAD_OP keeps the forward's gathered weights for the backward: no second gather
            zero_stage = zero3_exposed_s(gather, scatter, fwd_stage, bwd_stage, blocks,
                                         framework.gather_in_backward)
        else:  # reduce-scatter in every micro-batch's backward; the updated weights gathered once after the step
            zero_stage = max(0.0, scatter - bwd_stage) if framework.overlap_dp else scatter
            dp = gather
    else:
        dp = sum(all_reduce_s(n * reduce, ranks, dp_gb_s(stride, ranks, intra, inter, node), eta)
                 for n, ranks, stride in groups)
        if framework.overlap_dp:  # bucketed reduction during the last micro-batch's backward
            dp = max(0.0, dp - bwd_stage)
    stage += zero_stage
    dp += m * zero_stage
    sharded = options.zero >= 1 or framework.distributed_optimizer
    update = OPTIMIZERS[options.optimizer].update_bytes(options.precision != "fp32")
    optimizer, weight_casts = update_work(hw, cal, sum(n / (ranks if sharded else 1) for n, ranks, _ in groups),
                                          0.0 if framework.dynamic_scaling else params_rank, update)
    return KernelStep(
        gemm_s=m * blocks * w.gemm_s + (m * work.head_gemm_s if on_last else 0.0),
        memory_bound_s=m * blocks * w.memory_s + (m * work.head_memory_s if on_last else 0.0) + weight_casts,
        tp_comm_s=m * blocks * tp, bubble_s=(p - 1) / v * stage, pp_comm_s=pp, dp_comm_s=dp, optimizer_s=optimizer,
        model_flop=3 * model.forward_flop * layout.global_batch, chips=layout.chips, peak=hw.linear.peak,
        cp_comm_s=m * blocks * ring, ep_comm_s=m * blocks * a2a,
        overhead_s=m * (cal.microbatch_overhead_s + blocks * (cal.block_overhead_s + waiting)) + cal.step_overhead_s)


def kernel_step_for(model: PlanModel, layout: Layout, options: MemoryOptions, chip_id: str, link: Interconnect,
                    experts: ExpertSettings = ExpertSettings(),
                    cal: KernelCalibration | None = None) -> KernelStep | None:
    """The kernel model's step for a plan, or None where it does not apply: a chip without kernel figures or
    without a dense peak for the format, a model without transformer blocks or with latent attention, no global
    batch; a dense model whose attention width H·Q is not its hidden size; a mixture of experts with context
    parallelism or ZeRO 2–3 (their gathers are modelled for dense blocks only). ``cal``: the kernel model's
    efficiencies, else the framework's (fitted on its published runs)."""
    hw = kernel_hardware(chip_id, options.precision, link)
    if (hw is None or not model.blocks or model.latent_attention or layout.global_batch is None
            or (model.experts > 1 and (layout.cp > 1 or options.zero > 1))
            or (model.experts <= 1 and model.attention_width != model.d_model)):
        return None
    cal = cal or framework_calibration(options.convention)
    framework = behaviour(options, chip_id, hw.architecture, model.experts > 1, layout.sequence_parallel, layout.tp,
                          cal)
    return kernel_step(model, layout, options, hw, framework, experts, cal)
