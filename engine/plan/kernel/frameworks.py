"""What the framework of a plan runs and overlaps, by default: fused attention, the gradient reduction and the
interleaved pipeline's sends under compute, a sharded optimizer step, sequence parallelism.

- Megatron-LM 2021–22 on the A100 (``MEGATRON_2022_CHIPS``): the kernels its measured runs used (unfused
  scale-mask-softmax, no overlap) — the runs the kernel model was calibrated and validated on.
- After the A100 every plan takes fused attention (cuDNN / FlashAttention through Transformer Engine or PyTorch's
  scaled_dot_product_attention), as the frameworks measured on those chips do.
- The gradient reduction overlaps the backward where the framework of the plan's convention does by default:
  Megatron Core (NeMo's recipes, ``--overlap-grad-reduce``) and FSDP (reduce-scatter in the backward hooks, on
  their own stream) yes; DeepSpeed only at ZeRO 3 (``overlap_comm`` defaults to true for stage 3, false below).
- The interleaved schedule's sends overlap the next chunk in Megatron Core (the Megatron and FSDP conventions'
  runs: ``--overlap-p2p-communication``); DeepSpeed's pipeline engine does not interleave.
- A mixture of experts is planned as Megatron-Core runs it in NVIDIA's recipes: fused attention, the gradient
  reduction overlapped, the distributed optimizer, and sequence parallelism with tensor parallelism (Megatron
  requires it for MoE with t > 1).
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.results import Result

MEGATRON_2022_CHIPS = frozenset({"nvidia-a100-sxm4-80gb", "nvidia-a100-sxm4-40gb"})
"""Chips whose plans keep Megatron-LM 2021–22's kernels (unfused softmax, no overlap of the gradient reduction):
the measured A100 runs the model was calibrated and validated on."""


@dataclass(frozen=True, slots=True)
class Behaviour(Result):
    """What the plan's framework does by default (see the module's rules)."""

    fused_attention: bool
    overlap_dp: bool
    overlap_pp: bool
    distributed_optimizer: bool
    """The optimizer step on the rank's shard of the states even without ZeRO (Megatron-Core MoE recipes)."""
    sequence_parallel: bool


def overlaps_pp(convention: str, chip_id: str) -> bool:
    """Whether the interleaved schedule's sends overlap compute by default (Megatron Core after the A100)."""
    return chip_id not in MEGATRON_2022_CHIPS and convention in ("megatron", "fsdp")


def overlaps_dp(convention: str, zero: int, chip_id: str) -> bool:
    """Whether the gradient reduction overlaps the backward by default (the module's rules)."""
    if chip_id in MEGATRON_2022_CHIPS:
        return zero == 3
    return convention in ("megatron", "fsdp") or zero == 3


def behaviour(convention: str, zero: int, chip_id: str, experts: bool, sequence_parallel: bool,
              tp: int) -> Behaviour:
    """The plan's framework behaviour: ``convention`` (deepspeed, megatron, fsdp), ZeRO stage, chip, a mixture of
    experts or not, and the layout's sequence parallelism with ``tp`` tensor-parallel ranks."""
    if experts:
        return Behaviour(fused_attention=True, overlap_dp=True, overlap_pp=overlaps_pp(convention, chip_id),
                         distributed_optimizer=True, sequence_parallel=tp > 1)
    return Behaviour(fused_attention=chip_id not in MEGATRON_2022_CHIPS,
                     overlap_dp=overlaps_dp(convention, zero, chip_id), overlap_pp=overlaps_pp(convention, chip_id),
                     distributed_optimizer=False, sequence_parallel=sequence_parallel and tp > 1)
