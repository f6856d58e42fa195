"""The first layout the Plan page offers for a model: one that fits the chip's memory and divides what it splits.

The fewest chips that hold the model (``memory.fewest_chips``: t dividing the heads within a node, p dividing the
blocks, d from ZeRO's sharding) at micro-batch b = 1, with sequence parallelism where t > 1; recomputation the
least of none → selective → full that lets it fit; when nothing fits without sharding, ZeRO 3 of the framework
(where it has it). The global batch: the training setup's where d × b divides it (d raised to the next divisor of
B/b if needed), else B = d × b × m with m = p micro-batches (each pipeline stage busy: 1F1B needs m ≥ p). The reason
says what was chosen and why.
"""
from __future__ import annotations

from dataclasses import dataclass

from .frameworks import framework
from .layout import Layout, PlanInputs
from .memory import GB, fewest_chips, memory_per_chip
from .model import PlanModel
from ..results import Result

RECOMPUTE_ORDER = ("none", "selective", "full")


@dataclass(frozen=True, slots=True)
class FirstPlan(Result):
    """The offered plan inputs and why they were chosen (``None`` inputs: no layout of ≤ 8-way tensor parallelism
    holds the model)."""

    inputs: PlanInputs | None
    reason: str


def _batch(d: int, p: int, training_batch: int | None) -> tuple[int, int, str]:
    """(d, B, how B was set): the training setup's B where d × b (b = 1) divides it, raising d to the next divisor
    of B; else B = d × p (m = p micro-batches of one sequence)."""
    if training_batch:
        for dd in range(d, training_batch + 1):
            if training_batch % dd == 0:
                note = "" if dd == d else f" (d raised from {d} to {dd} so that d × b divides it)"
                return dd, training_batch, f"the training setup's batch of {training_batch:,}{note}"
    m = max(1, p)
    return d, d * m, f"d × b × m = {d} × 1 × {m} (m = p micro-batches: every pipeline stage busy)"


def first_plan(model: PlanModel, chip_id: str, chip_memory_gb: float, base: PlanInputs | None = None,
               training_batch: int | None = None) -> FirstPlan:
    """The first plan offered for ``model`` on ``chip_id`` (see the module's rules); ``base`` gives the framework,
    optimizer and format (default ``PlanInputs()``'s)."""
    base = base or PlanInputs()
    capacity = chip_memory_gb * GB
    fw = framework(base.options.convention)
    tried = []
    for zero in dict.fromkeys((base.options.zero, 3 if 3 in fw.zero_stages else base.options.zero)):
        for recompute in RECOMPUTE_ORDER:
            options = base.options.model_copy(update={"recompute": recompute, "zero": zero})
            best = fewest_chips(model, options, capacity, 1, sequence_parallel=True)
            tried.append((zero, recompute))
            if best is None:
                continue
            lay = best.layout
            d, batch, how = _batch(lay.dp, lay.pp, training_batch)
            layout = Layout(dp=d, tp=lay.tp, pp=lay.pp, micro_batch=1, global_batch=batch,
                            sequence_parallel=lay.sequence_parallel, pipeline_split=fw.pipeline_split)
            mem = memory_per_chip(model, layout, options, capacity)
            why = ("it fits without recomputation" if recompute == "none" else
                   f"{recompute} recomputation, the least that fits (without it the activations need more than "
                   f"the {chip_memory_gb:g} GB)")
            if zero != base.options.zero:
                why += f"; ZeRO {zero}: the states do not fit at ZeRO {base.options.zero}"
            reason = (f"First layout offered: the fewest chips that hold the model — d {d} × t {lay.tp} × p {lay.pp}"
                      f" = {layout.chips:,}, micro-batch 1, {mem.total / GB:,.3g} GB of {chip_memory_gb:g} per chip; "
                      f"{why}; global batch {how}.")
            return FirstPlan(base.model_copy(update={"chip": chip_id, "layout": layout, "options": options}), reason)
    return FirstPlan(None, f"No layout of up to 8-way tensor parallelism holds the model on this chip "
                           f"({', '.join(f'ZeRO {z} {r}' for z, r in tried)} tried): choose a larger chip or set "
                           "the layout below.")
