"""``plan (--config FILE | --model ID | SCENARIO.json) --chip ID --dp --tp --pp --micro-batch --global-batch
[--tokens D] [--kernel-efficiency K] [--capacity-factor C] [--sweep CHIPS] [--trace FILE]``: step time, MFU and wall-clock
of a layout, or the best layouts for a number of chips; with ``--trace``, the planned step beside a profiler trace's
measured one and the plan re-run with the trace's efficiencies (``engine.plan.against_trace``)."""
from __future__ import annotations

from .memory import (
    Loaded,
    add_layout_arguments,
    add_model_arguments,
    layout_and_options,
    load_model,
)
from .transformer import parse_count
from ..errors import InputError, parse_input

DEFAULT_KERNEL_EFFICIENCY = 0.7
"""engine.plan.layout.DEFAULT_KERNEL_EFFICIENCY, for the help text without importing the engine at start-up
(a test checks they agree)."""


def _number_or(text: str | None, field: str, otherwise):
    """The flag's word ``text`` as a number where given (one line naming ``field`` if it is not one), else
    ``otherwise`` (the saved plan's value or the default)."""
    if text is None:
        return otherwise
    try:
        return float(text)
    except ValueError:
        raise InputError(field, f"{text[:40]!r} is not a number") from None


def _settings(args, loaded: Loaded, trace_chip: str | None = None):
    from ..plan.layout import DEFAULT_KERNEL_EFFICIENCY
    from ..plan.run_plan import PlanSettings

    tokens = parse_count(args.tokens, "tokens") if args.tokens is not None else loaded.tokens
    saved = loaded.saved
    k = _number_or(args.kernel_efficiency, "kernel_efficiency",
                   saved.kernel_efficiency if saved else DEFAULT_KERNEL_EFFICIENCY)
    chip = args.chip or (saved.chip if saved else None) or trace_chip
    if not chip:
        raise InputError("chip", "give the chip (--chip, see `python -m engine chips`)")
    capacity = _number_or(args.capacity_factor, "capacity_factor", saved.capacity_factor if saved else None)
    dispatcher = args.dispatcher or (saved.dispatcher if saved else None)
    overlap = True if args.overlap_a2a else (saved.overlap_a2a if saved else None)
    data = {"chip": chip, "kernel_efficiency": k, "tokens": tokens, "capacity_factor": capacity,
            "dispatcher": dispatcher, "overlap_a2a": overlap}
    return parse_input(PlanSettings, {k: v for k, v in data.items() if v is not None})


def _measure(path: str):
    """The trace of ``--trace``: one file of one rank (a folder's ranks are measured by ``trace``)."""
    from pathlib import Path

    from ..measure.measurement import measure_trace

    if not str(path).strip():
        raise InputError("--trace", "no file named: give one rank's trace file")
    from ..measure.ranks import path_kind

    if path_kind(path, "--trace") == "folder":
        raise InputError("trace", f"{Path(path).name[:60]} is a folder: give one rank's trace file")
    return measure_trace(path)


def _against_trace(args, loaded, model, layout, options, measurement) -> dict:
    from ..plan.against_trace import ChipMismatch, plan_with_trace

    settings = _settings(args, loaded, measurement.chip)
    try:
        comparison = plan_with_trace(model, layout, options, settings, measurement)
    except ChipMismatch as exc:
        raise InputError("trace", f"{exc.reason.split(': plan on')[0]}: plan on it with --chip {exc.trace_chip}, or give "
                                  "a trace recorded on the plan's chip") from None
    return {**comparison.plan.as_dict(), "trace": comparison.as_dict()}


def _plan(args) -> dict:
    from ..plan.run_plan import no_layout_reason, plan_run, sweep_layouts

    loaded = load_model(args)
    model = loaded.model
    if args.trace is not None and not args.trace.strip():
        raise InputError("trace", "an empty path: give the profiler trace's file (or leave out --trace)")
    measurement = _measure(args.trace) if args.trace else None
    layout, options = layout_and_options(args, loaded.saved)
    if measurement is not None:
        if args.sweep is not None:
            raise InputError("trace", "compare one layout with a trace (leave out --sweep)")
        if layout.global_batch is None:
            raise InputError("global_batch", "the step time needs the global batch (--global-batch)")
        return _against_trace(args, loaded, model, layout, options, measurement)
    settings = _settings(args, loaded)
    if args.sweep is not None:
        try:
            chips = int(args.sweep)
        except ValueError:
            raise InputError("sweep", f"{args.sweep[:40]!r} is not a whole number of chips") from None
        if layout.global_batch is None:
            raise InputError("global_batch", "the sweep needs the global batch (--global-batch)")
        if args.top < 1:
            raise InputError("top", f"{args.top}: the layouts shown, at least 1")
        rows = sweep_layouts(model, chips, layout.global_batch, options, settings,
                             sequence_parallel=layout.sequence_parallel)
        out = {"chips": chips, "layouts": len(rows), "best": [r.as_dict() for r in rows[:args.top]]}
        return out if rows else out | {"note": no_layout_reason(chips, layout.global_batch)}
    if layout.global_batch is None:
        raise InputError("global_batch", "the step time needs the global batch (--global-batch)")
    return plan_run(model, layout, options, settings).as_dict()


def register(sub) -> None:
    p = sub.add_parser("plan", help="a parallel layout's step time, MFU and wall-clock (or --sweep)")
    add_model_arguments(p)
    add_layout_arguments(p)
    p.add_argument("--tokens", help="training tokens, for the wall-clock time (default: the scenario's)")
    p.add_argument("--kernel-efficiency", dest="kernel_efficiency", default=None,
                   help=f"share of peak the kernels reach where the kernel model does not apply "
                        f"(default {DEFAULT_KERNEL_EFFICIENCY})")
    p.add_argument("--capacity-factor", dest="capacity_factor", default=None,
                   help="mixture of experts: the busiest expert-parallel rank's tokens ÷ the mean (default 1: "
                        "balanced routing)")
    p.add_argument("--dispatcher", default=None,
                   help="mixture of experts: alltoall (NCCL's all-to-all, the default) or flex (DeepEP or HybridEP: "
                        "a token crosses to each node once)")
    p.add_argument("--overlap-a2a", dest="overlap_a2a", action="store_true",
                   help="mixture of experts: hide the dispatch and combine behind another micro-batch's compute "
                        "(Megatron's moe_a2a_overlap)")
    p.add_argument("--sweep", metavar="CHIPS", help="rank every layout of this many chips instead")
    p.add_argument("--top", type=int, default=10, help="layouts shown with --sweep")
    p.add_argument("--trace", metavar="FILE", default=None,
                   help="a PyTorch profiler trace of one rank of this run (.json or .json.gz): the measured step "
                        "beside the planned one, and the plan with the trace's efficiencies (the chip defaults to "
                        "the trace's)")
    p.set_defaults(run=_plan)
