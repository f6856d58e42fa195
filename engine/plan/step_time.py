"""Step time of a parallel layout, hence the predicted utilization (MFU) and wall-clock time.

For one step of B sequences on n = d·t·p chips of peak P (the run's number format) at kernel efficiency k:
- compute: hardware FLOP per step / (n·P·k), hardware FLOP = F·(1 + r)·B plus recomputation (full: one
  more forward, F·B; alternate: half of it; selective: the attention core QKᵀ and AV once more; ops: half the
  rest of the forward);
- pipeline bubble: the compute stretches by (v·m + p − 1)/(v·m), i.e. the bubble is (p−1)/(v·m + p−1) of
  the pipelined time (Narayanan et al. 2021, §2.2; v interleaved virtual stages);
- tensor parallelism: per block and micro-batch 4 all-reduces of s·b·h activations (2 forward, 2 backward;
  6 with full recomputation), each 2(t−1)/t × bytes / link bandwidth (ring all-reduce), on the critical path;
- pipeline: per micro-batch an activation forward and a gradient back across each stage boundary,
  2·v·m·(s·b·h·bytes) / bandwidth when p > 1 (interleaving multiplies the transfers by v; Narayanan et
  al. 2021, §2.2.2);
- data parallelism: the gradients of a chip's parameters, 2(d−1)/d × Ψ_chip × bytes / bandwidth (×1.5 with
  ZeRO-3: parameters gathered for forward and backward, gradients reduce-scattered; Rajbhandari et al.
  2020, §7), not overlapped with compute.
Groups are placed t innermost, then d, then p (Megatron-LM's order): a group uses the intra-node links
when its span (t; t·d; t·d·p) fits in a node.

Context parallelism (c ranks, each s/c of every sequence): the compute splits over n = d·t·p·c chips, the
tensor-parallel activations are s/c long, the gradients are reduced over d·c.
Not modelled: expert parallelism's all-to-all, context parallelism's key/value exchange, latency of small
messages (the kernel model, ``engine.plan.kernel``, has both exchanges).

MFU = model FLOP per step (F·(1 + r)·B, no recomputation) / (step time × n × P) (Chowdhery et al. 2022, App. B).
A model without compute and without parameters to exchange (a lone ``flatten``) has a step time of 0: its MFU
and HFU are undefined (``None``, shown as ``NO_COMPUTE``), not a division by zero.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError
from .interconnects import Interconnect
from .layout import DEFAULT_KERNEL_EFFICIENCY, Layout, MemoryOptions
from .memory import activation_bytes_per_value
from .model import PlanModel
from ..results import Result

DEFAULT_BACKWARD_RATIO = 2.0
NO_COMPUTE = "no compute: MFU undefined"
KERNEL_MODEL = "kernel model"
CONSTANT_MODEL = "constant-efficiency model"
"""What a page, the report and the CLI say where the step takes no time (no FLOP, nothing to communicate)."""


@dataclass(frozen=True, slots=True)
class StepTime(Result):
    """One training step's time by parts (seconds), the FLOP it does, and the chips and peak it ran on."""

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    pp_comm_s: float
    dp_comm_s: float
    model_flop_per_step: float
    hardware_flop_per_step: float
    chips: int
    peak_flop_per_s: float
    tokens_per_step: float
    notes: tuple[str, ...] = ()
    model: str = CONSTANT_MODEL
    """Which step-time model produced the figures: ``KERNEL_MODEL`` or ``CONSTANT_MODEL``."""
    ep_comm_s: float = 0.0
    """Expert parallelism's all-to-all (kernel model)."""
    cp_comm_s: float = 0.0
    """Context parallelism's key/value ring, where attention does not hide it (kernel model)."""
    overhead_s: float = 0.0
    """Time outside the kernels (the kernel model's calibration: per micro-batch and per step)."""
    bubble_fraction: float = 0.0
    """The pipeline bubble's share of the pipelined time, (p−1)/(v·m + p−1) (``bubble_share``): the schedule's, in
    either model (the kernel model's stage holds its collectives and overheads beside the products)."""

    @property
    def step_s(self) -> float:
        return (self.compute_s + self.bubble_s + self.tp_comm_s + self.pp_comm_s + self.dp_comm_s + self.ep_comm_s
                + self.cp_comm_s + self.overhead_s)

    def _utilization(self, flop: float) -> float | None:
        capacity = self.step_s * self.chips * self.peak_flop_per_s
        return flop / capacity if capacity > 0 and math.isfinite(capacity) else None

    @property
    def mfu(self) -> float | None:
        """Model FLOP per step / (step time × n × P); None when the step takes no time (``NO_COMPUTE``)."""
        return self._utilization(self.model_flop_per_step)

    @property
    def hfu(self) -> float | None:
        """As ``mfu`` with recomputation's FLOP; None when the step takes no time."""
        return self._utilization(self.hardware_flop_per_step)

    def share(self, seconds: float) -> float | None:
        """``seconds`` as a share of the step; None when the step takes no time."""
        return seconds / self.step_s if self.step_s > 0 else None

    def wall_clock_s(self, tokens: float) -> float:
        """Seconds to train on ``tokens`` tokens at this step time."""
        return tokens / self.tokens_per_step * self.step_s

    def as_dict(self, tokens: float | None = None) -> dict:
        out = {"model": self.model, "step_s": self.step_s, "compute_s": self.compute_s, "bubble_s": self.bubble_s,
               "tp_comm_s": self.tp_comm_s, "pp_comm_s": self.pp_comm_s, "dp_comm_s": self.dp_comm_s,
               "ep_comm_s": self.ep_comm_s, "cp_comm_s": self.cp_comm_s, "overhead_s": self.overhead_s,
               "bubble_fraction": self.bubble_fraction, "mfu": self.mfu, "hfu": self.hfu,
               "model_flop_per_step": self.model_flop_per_step,
               "hardware_flop_per_step": self.hardware_flop_per_step, "chips": self.chips,
               "peak_flop_per_s": self.peak_flop_per_s, "tokens_per_step": self.tokens_per_step,
               "notes": list(self.notes) + ([NO_COMPUTE] if self.mfu is None else [])}
        if tokens is not None:
            out["tokens"] = tokens
            out["wall_clock_s"] = self.wall_clock_s(tokens)
            out["wall_clock_days"] = self.wall_clock_s(tokens) / 86_400
        return out


def ring_all_reduce_s(bytes_: float, n: int, bandwidth: float) -> float:
    """2(n−1)/n × bytes / bandwidth (Patarasuk & Yuan 2009): each chip sends and receives that much."""
    return 0.0 if n <= 1 else 2 * (n - 1) / n * bytes_ / bandwidth


CONSTANT_CP_NOTE = ("context parallelism: the constant-efficiency model splits the compute c ways and reduces "
                    "the gradients over d·c; its key/value exchange is not counted")
"""Said of this model's figures only: the kernel model counts the key/value exchange (``engine.plan.kernel``)."""


def step_flop(model: PlanModel, layout: Layout, options: MemoryOptions,
              backward_ratio: float = DEFAULT_BACKWARD_RATIO) -> tuple[float, float]:
    """(model FLOP, hardware FLOP) per step: F·(1 + r)·B, plus recomputation's (full: F·B; selective: the
    attention core's)."""
    batch = layout.global_batch
    model_flop = model.forward_flop * (1 + backward_ratio) * batch
    extra = {"none": 0.0, "selective": model.attention_core_flop, "ops": (model.forward_flop - model.attention_core_flop) / 2,
             "alternate": model.forward_flop / 2, "full": model.forward_flop}[options.recompute]
    return model_flop, model_flop + extra * batch


def link_notes(link: Interconnect, layout: Layout) -> tuple[str, ...]:
    """A note where a group of the layout spans nodes and the link has no figure between nodes."""
    t, d, p, cp = layout.tp, layout.dp, layout.pp, layout.cp
    spans = ((t, t > 1), (t * d * p * cp, p > 1), (t * d * cp, d > 1))
    if any(used and link.bandwidth(span)[1] for span, used in spans):
        return (f"{link.system}: no published bandwidth between nodes; the within-node figure is used, so "
                "communication between nodes is underestimated",)
    return ()


def bubble_share(layout: Layout) -> float:
    """(p−1)/(v·m + p−1): the bubble's (p−1)/v stage times against the m micro-batches' stage times."""
    idle = (layout.pp - 1) / layout.virtual_stages
    return idle / (layout.micro_batches + idle)


def step_time(model: PlanModel, layout: Layout, options: MemoryOptions, peak_flop_per_s: float,
              link: Interconnect, kernel_efficiency: float = DEFAULT_KERNEL_EFFICIENCY,
              backward_ratio: float = DEFAULT_BACKWARD_RATIO) -> StepTime:
    """One step's time by parts (see the module's formulas)."""
    if layout.global_batch is None:
        raise InputError("global_batch", "the step time needs the global batch (sequences per step)")
    if not (0 < kernel_efficiency <= 1) or not math.isfinite(kernel_efficiency):
        raise InputError("kernel_efficiency", "must be in (0, 1]")
    if not (math.isfinite(peak_flop_per_s) and peak_flop_per_s > 0):
        raise InputError("peak_flop_per_s", "must be a positive number")
    layout.check_model(model)
    d, t, p, v, b, m = layout.dp, layout.tp, layout.pp, layout.virtual_stages, layout.micro_batch, \
        layout.micro_batches
    batch = layout.global_batch
    n = layout.chips
    model_flop, hardware_flop = step_flop(model, layout, options, backward_ratio)
    compute = hardware_flop / (n * peak_flop_per_s * kernel_efficiency)
    bubble = compute * (p - 1) / (v * m)
    notes: list[str] = []

    cp = layout.cp
    act_bytes = model.seq_len // cp * b * model.d_model * activation_bytes_per_value(options)
    tp_bw, _ = link.bandwidth(t)
    per_block = {"full": 6, "alternate": 5}.get(options.recompute, 4)
    tp_comm = (model.blocks / p) * m * per_block * ring_all_reduce_s(act_bytes, t, tp_bw) if model.blocks else 0.0
    pp_bw, _ = link.bandwidth(t * d * p * cp)
    pp_comm = 2 * v * m * act_bytes / pp_bw if p > 1 else 0.0
    dp_bw, _ = link.bandwidth(t * d * cp)
    grad_bytes = 4 if options.precision == "fp32" else 2
    params_chip = model.dense_params / (t * p) + model.expert_params / (t * p * layout.ep)
    dp_comm = ring_all_reduce_s(params_chip * grad_bytes, d * cp, dp_bw) * (1.5 if options.zero == 3 else 1.0)
    if cp > 1:
        notes.append(CONSTANT_CP_NOTE)
    notes.extend(link_notes(link, layout))
    return StepTime(compute, bubble, tp_comm, pp_comm, dp_comm, model_flop, hardware_flop, n, peak_flop_per_s,
                    float(batch * model.tokens_per_example), tuple(notes), bubble_fraction=bubble_share(layout))
