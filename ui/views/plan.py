"""The Plan page's figures as text: metric tuples (label, value, caption) and table rows, from the planner's
results. Pure: no Streamlit, tested in tests/ui/test_views_plan.py."""
from __future__ import annotations

from engine.optimizers import OPTIMIZERS
from engine.plan.layout import RECOMPUTE as RECOMPUTE_LABELS
from engine.plan.memory import GB
from engine.plan.step_time import NO_COMPUTE
from engine.plan.thresholds import MODIFICATION_SOURCE, compare, modification_threshold
from engine.units import (format_co2_kg, format_count, format_duration, format_energy_kwh, format_flop, format_number,
                          plural)

RULE_LABELS = {"tokens-per-param": "20 tokens per parameter (Hoffmann et al. 2022)",
               "hoffmann-approach3": "Hoffmann et al. 2022, approach-3 fit",
               "besiroglu-2024": "Besiroglu et al. 2024 (Epoch AI refit)"}
RECOMPUTE = RECOMPUTE_LABELS
"""The recomputation choices as the page names them (``engine.plan.layout.RECOMPUTE``)."""
DEFAULT_GLOBAL_BATCH = 64
Metric = tuple[str, str, str | None]


def optimizer_label(name: str) -> str:
    """'Adam (18 FLOP/param/step, 16 B/param)' — bytes with 16-bit mixed precision."""
    return OPTIMIZERS[name].label(mixed=True)


def gb(value: float) -> str:
    return f"{value / GB:,.3g} GB"


def global_batch(training, layout) -> int:
    """The run's global batch: the training setup's batch size, else the saved layout's, else 64."""
    if training is not None and training.batch_size is not None:
        return training.batch_size
    return layout.global_batch or DEFAULT_GLOBAL_BATCH


def model_caption(name: str, model) -> str:
    return (f"{name or 'This model'}: {model.params:,} parameters"
            + (f" ({model.trainable_params:,} trainable: gradients and optimizer states for these only)"
               if model.trainable_params is not None else "")
            + (f", {model.blocks} transformer blocks of width {model.d_model} with {model.heads} heads, "
               f"sequences of {model.seq_len:,}" if model.blocks else f", {model.other_layers} layers"))


def memory_metrics(mem, chip, best, layout) -> list[Metric]:
    return [
        (f"Memory per chip (of {chip.memory_gb:g} GB)", gb(mem.total),
         f"model states {gb(mem.model_states)} + activations {gb(mem.activations)}"),
        ("Fits", "yes" if mem.fits else "no", f"{chip.name}: {chip.memory_gb:g} GB"),
        ("Largest micro-batch that fits", f"{mem.largest_micro_batch:,}", "with the other settings unchanged"),
        ("Fewest chips", f"{best.chips:,}" if best else "none fits",
         f"d {best.layout.dp} × t {best.layout.tp} × p {best.layout.pp} at micro-batch {layout.micro_batch}"
         if best else "no layout with t ≤ 8 holds the model"),
    ]


def fit_sentence(mem, layout, chip) -> str:
    return (f"{'Fits' if mem.fits else 'Does not fit'}: {gb(mem.total)} per chip on {plural(layout.chips, 'chip')} "
            f"({chip.memory_gb:g} GB each). Weights {gb(mem.weights)}, gradients {gb(mem.gradients)}, optimizer "
            f"states {gb(mem.optimizer_states)}, activations {gb(mem.activations)}.")


def _span(low: float, high: float, text) -> str:
    return f"90%: {text(low)} – {text(high)}"


def step_metrics(step, tokens: float | None, interval=None) -> list[tuple]:
    """Step time, MFU, bubble and wall-clock; with ``interval`` (``engine.plan.uncertainty.Interval``) step, MFU
    and wall-clock each with its 90% range under the value."""
    hours = step.wall_clock_s(tokens) / 3600 if tokens else None
    step_range = mfu_range = wall_range = None
    if interval is not None:
        step_range = _span(interval.low_s, interval.high_s, lambda x: format_duration(x / 3600))
        if step.mfu is not None:
            mfu_range = _span(*interval.inverse(step.mfu, step.step_s), lambda x: f"{100 * x:.1f}%")
        if hours:
            wall_range = _span(*interval.scaled(hours, step.step_s), format_duration)
    mfu = (("Predicted MFU", f"{100 * step.mfu:.1f}%", f"HFU (with recomputation) {100 * step.hfu:.1f}%", mfu_range)
           if step.mfu is not None else ("Predicted MFU", "undefined", NO_COMPUTE))
    return [
        ("Step time", format_duration(step.step_s / 3600),
         f"{step.tokens_per_step:,.0f} tokens per step; {step.model}", step_range),
        mfu,
        ("Pipeline bubble", f"{100 * step.bubble_fraction:.1f}%", "(p−1)/(v·m + p−1)"),
        ("Wall-clock", format_duration(hours) if hours else "—",
         f"{tokens:,.4g} tokens of the training setup" if tokens else "no training setup", wall_range),
    ]


def range_caption(interval) -> str:
    """Where the 90% ranges come from."""
    return (f"90% ranges from the model's error on {interval.basis.removeprefix(f'{interval.runs} ')}, kept apart "
            "from its calibration: a new run like these falls inside 9 times in 10 (docs/plan.md, \"Validation\").")


def _amount(x: float) -> str:
    """1,234 below ten thousand; 12.3k, 4.56M, 7.89B above (a metric's width)."""
    for above, scale, suffix in ((1e9, 1e9, "B"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if x >= above:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def bill_metrics(costs, days: float | None, interval=None, step_s: float | None = None) -> list[tuple]:
    """Chip-hours, cost, energy and CO₂ of the plan's wall-clock, each with the step's 90% range where given."""
    def ranged(value, text):
        if interval is None or value is None or not step_s:
            return None
        return _span(*interval.scaled(value, step_s), text)

    def usd(x):
        return f"{_amount(x)} USD"

    def mwh(kwh):  # a run's energy in MWh; a small one in the unit it reaches (Wh, kWh)
        return f"{kwh / 1000:,.3g} MWh" if kwh >= 1000 else format_energy_kwh(kwh)

    def tonnes(kg):
        return f"{kg / 1000:,.3g} t CO₂" if kg >= 1000 else format_co2_kg(kg)

    return [
        ("Chip-hours", _amount(costs.chip_hours), f"{days:,.3g} days of the layout's chips" if days else None,
         ranged(costs.chip_hours, _amount)),
        ("Cost", usd(costs.cost_usd) if costs.cost_usd is not None else costs.cost_text, costs.price_basis,
         ranged(costs.cost_usd, usd)),
        ("Energy", mwh(costs.energy_kwh) if costs.energy_kwh is not None else "—", costs.tdp_basis,
         ranged(costs.energy_kwh, mwh)),
        ("CO₂", tonnes(costs.co2_kg) if costs.co2_kg is not None else "—", costs.grid_basis,
         ranged(costs.co2_kg, tonnes)),
    ]


def bill_caption(costs) -> str:
    return (f"Chip-hours = chips × wall-clock; cost = chip-hours × the price; energy = chip-hours × the TDP × PUE "
            f"{costs.pue:g}; CO₂ = energy × {1000 * costs.grid_kg_co2_per_kwh:.0f} g/kWh; "
            + "; ".join(costs.notes) + ".")


def carry_run(plan, tokens: float, energy: dict) -> dict:
    """The hardware page's run for this plan: its chip, chip count, wall-clock days, format, the predicted MFU as
    the utilization and the place chosen (``energy``: place, provider and typed figures) — method 2 on it gives
    the plan's training FLOP. The step's range is not carried: days and utilization move together (their product
    is the plan's FLOP), which method 2's independent ranges would double."""
    days = plan.step.wall_clock_s(tokens) / 86_400
    return {"chip": plan.chip.id, "precision": plan.options.precision, "tensor_cores": True,
            "chip_count": float(plan.layout.chips), "duration": days, "duration_unit": "days",
            "utilization": plan.step.mfu, **energy}


def carry_sentence(plan, days: float) -> str:
    iv, step_s = plan.interval, plan.step.step_s
    span = "" if iv is None else (f" (90%: {format_duration(days * 24 * iv.low_s / step_s)} – "
                                  f"{format_duration(days * 24 * iv.high_s / step_s)})")
    return (f"From the Plan page: {plan.layout.chips:,} × {plan.chip.name} for {format_duration(days * 24)}{span} in "
            f"{plan.options.precision.upper()}, at the predicted MFU of {100 * plan.step.mfu:.1f}% as the "
            "utilization: method 2 then gives the plan's training compute.")


def step_parts(step) -> list[dict]:
    """Where a step's time goes: seconds and share of the step per part."""
    parts = {"compute": step.compute_s, "pipeline bubble": step.bubble_s,
             "tensor-parallel all-reduces": step.tp_comm_s, "pipeline transfers": step.pp_comm_s,
             "data-parallel gradients": step.dp_comm_s}
    for part, field in (("expert all-to-all", "ep_comm_s"), ("context-parallel ring", "cp_comm_s")):
        if getattr(step, field, 0.0):
            parts[part] = getattr(step, field)
    return [{"part": part, "seconds": seconds,
             "share": f"{100 * share:.1f}%" if (share := step.share(seconds)) is not None else "—"}
            for part, seconds in parts.items()]


def link_caption(link) -> str:
    return (f"Links: {link.system}, {link.intra_gb_s:g} GB/s within a node of {link.chips_per_node}, "
            f"{link.inter_gb_s or '—'} GB/s between nodes. Source: {link.source}")


def sweep_rows(rows, limit: int = 12) -> list[dict]:
    out = []
    for row in rows[:limit]:
        data = row.as_dict()
        mfu = data.get("mfu")
        data["mfu"] = f"{100 * mfu:.1f}%" if mfu is not None and mfu == mfu else "—"
        out.append(data)
    return out


def optimal_rows(optima) -> list[dict]:
    return [{"rule": RULE_LABELS[o.rule], "parameters": format_count(o.params),
             "tokens": format_count(o.tokens), "tokens per parameter": format_number(o.tokens / o.params, 3),
             "loss": f"{o.loss:.3f}" if o.loss is not None else "—"} for o in optima]


def inference_metrics(ia) -> list[Metric]:
    return [("Parameters", format_count(ia.params), f"compute-optimal: {format_count(ia.chinchilla_params)}"),
            ("Training tokens", format_count(ia.tokens), f"compute-optimal: {format_count(ia.chinchilla_tokens)}"),
            ("Training + inference", format_flop(ia.total_flop),
             f"compute-optimal model: {format_flop(ia.chinchilla_total_flop)}")]


def lifetime_metrics(life) -> list[Metric]:
    return [("Training", format_flop(life.training_flop), None),
            ("Inference", format_flop(life.inference_flop),
             f"{format_flop(life.inference_flop_per_token)} per token: 2·N_active + 2·layers·context·d_attn"),
            ("Lifetime total", format_flop(life.total_flop), f"inference {100 * life.inference_share:.1f}%")]


def threshold_lines(training_flop: float) -> list[tuple[bool, str]]:
    """(above?, sentence with its legal source) per threshold, then the modification rule."""
    lines = []
    for standing in compare(training_flop):
        t = standing.threshold
        lines.append((standing.above, f"{standing.sentence(f'This run ({format_flop(training_flop)})')} {t.meaning} "
                                      f"{t.citation}"))
    return lines


def modification_line(training_flop: float) -> str:
    return (f"Modifying a model: above {format_flop(modification_threshold(training_flop))} (one third of this "
            f"run) the modifier becomes a provider. {MODIFICATION_SOURCE}")
