"""What the plan's framework does in the kernel model (the frameworks and their sources: ``engine.plan.frameworks``):
its attention (fused at its kernel's rate on the chip's architecture, or the scores stored), what it overlaps,
its gradients' reduction dtype, whether its element-wise work runs unfused, and its calibration.

A mixture of experts is planned as Megatron-Core runs it in NVIDIA's recipes whatever the framework: the gradient
reduction overlapped, the distributed optimizer, and sequence parallelism with tensor parallelism (Megatron
requires it for MoE with t > 1).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..frameworks import framework
from .calibration import KernelCalibration
from ...results import Result


@dataclass(frozen=True, slots=True)
class Behaviour(Result):
    """What the plan's framework does by default (see the module's rules)."""

    fused_attention: bool
    overlap_dp: bool
    overlap_pp: bool
    distributed_optimizer: bool
    """The optimizer step on the rank's shard of the states even without ZeRO (Megatron-Core MoE recipes)."""
    sequence_parallel: bool
    attention_rate: float = 0.46
    """The fused attention kernel's rate: a share of the 16-bit dense peak (causal FLOP)."""
    reduce_bytes: int = 2
    """Bytes per gradient value in the data-parallel reduction."""
    elementwise_traffic: float = 1.0
    """The element-wise work's bytes as a multiple of the fused kernels' (eager PyTorch: its calibration's)."""
    gather_in_backward: bool = True
    """ZeRO 3 gathers the weights again in the backward; FSDP's SHARD_GRAD_OP (its ZeRO 2) keeps them from the
    forward (``False``: one gather per micro-batch, in the forward)."""
    dynamic_scaling: bool = False
    """FP8 with dynamic (current) scaling as torchao's Float8Linear does it: an amax pass before every cast, and the
    weights cast in every forward (Transformer Engine's delayed scaling: in the cast's own pass, weights once a
    step)."""
    pipeline_holds_weights: bool = False
    """With pipeline parallelism the sharded weights are gathered once per step and held over the micro-batches, and
    the gradients reduce-scattered once, after the last backward (FSDP2 under torch.distributed.pipelining:
    torchtitan's ``reshard_after_forward = not pp_enabled``; the stage's ``backward_maybe_with_nosync`` turns off
    ``set_requires_gradient_sync`` and ``set_reshard_after_backward`` but for the last micro-batch)."""


def behaviour(options, chip_id: str, architecture: str, experts: bool, sequence_parallel: bool, tp: int,
              cal: KernelCalibration) -> Behaviour:
    """The plan's framework behaviour: its options (framework, ZeRO stage, attention, compiled), the chip's
    architecture, a mixture of experts or not, the layout's sequence parallelism with ``tp`` ranks, and the
    calibration in force (its scale of the attention kernel's published rate)."""
    fw = framework(options.convention)
    rate = fw.attention.rate[architecture] * cal.attention_rate_scale
    fused = options.attention == "fused"
    eager = cal.elementwise_traffic if fw.eager and not options.compiled else 1.0
    fsdp_zero2 = fw.states == "fsdp" and options.zero == 2
    if experts:
        return Behaviour(fused, True, fw.overlap_pp, True, tp > 1, rate, fw.reduce_bytes, eager)
    return Behaviour(fused, fw.overlaps_dp(options.zero), fw.overlap_pp, False, sequence_parallel and tp > 1, rate,
                     fw.reduce_bytes, eager, not fsdp_zero2, fw.float8_scaling == "dynamic", fw.states == "fsdp")


def framework_calibration(framework_id: str) -> KernelCalibration:
    """The framework's calibration of the kernel model (``engine.plan.frameworks``)."""
    return framework(framework_id).calibration
