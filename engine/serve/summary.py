"""A saved serving plan (``Scenario.serve``) in words: the report's section and the figures pages show first."""
from __future__ import annotations

from ..errors import InputError
from ..safe_text import report_text
from .inputs import ServePlan
from ..units import format_flop, format_number


def run_plan(plan: ServePlan):
    """The plan's estimate (its library model, the inputs it keeps)."""
    from ..llm.config import read_hf_config
    from ..llm.library import library_model
    from .model_facts import model_facts
    from .plan import ServeInputs, serve

    model = library_model(plan.model)
    facts = model_facts(read_hf_config(model.config, source=f"model {model.id}"), model.config)
    inputs = ServeInputs(**plan.model_dump(exclude={"model"}))
    return serve(facts, inputs)


def headline(est) -> list[tuple[str, str]]:
    """(label, value) of the results a reader wants first."""
    cost = est.cost_per_million_output_tokens
    return [("Time to first token", f"{format_number(est.ttft_s * 1e3)} ms"),
            ("Time per output token", f"{format_number(est.tpot_s * 1e3)} ms"),
            ("Output tokens/s (all chips)", format_number(est.output_tokens_per_s)),
            ("Batch", f"{est.batch:,}"),
            ("Sequences that fit", "no limit" if est.sequences_in_memory is None
             else f"{est.sequences_in_memory:,}"),
            ("KV cache / token", f"{format_number(est.kv_cache_bytes_per_token / 1e3)} kB"),
            ("KV cache / sequence", f"{format_number(est.kv_cache_bytes / 1e6)} MB"),
            ("Cost / 1M output tokens", "—" if cost is None else f"${format_number(cost)}")]


def serve_section(plan: ServePlan) -> list[str]:
    """The report's lines for a serving plan."""
    lines = ["## Serving", ""]
    try:
        est = run_plan(plan)
    except InputError as exc:
        return lines + [f"- Not computed: {report_text(exc)}"]
    lines += [(f"- Model: {plan.model}; {est.chips} × {est.chip} ({est.engine}); {est.precision}, weights "
               f"{est.weights or est.precision}, KV cache {est.kv_precision}"),
              f"- Request: {est.prompt_tokens:,} prompt + {est.output_tokens:,} output tokens, batch {est.batch:,}"]
    lines += [f"- {label}: {value}" for label, value in headline(est)]
    lines += [f"- Prefill: {format_flop(est.prefill_flop)} per prompt (FlopCounterMode's count; the kernels' causal "
              f"count {format_flop(est.prefill_flop_kernel)}), {est.prefill.bound}-bound",
              f"- Decode: {format_flop(est.decode_flop_per_token)} per token, {est.decode_step.bound}-bound",
              f"- Efficiencies: compute {est.efficiency['compute']:.3g}, bandwidth {est.efficiency['memory']:.3g} "
              f"({est.efficiency['source']})"]
    lines += [f"- {note}" for note in est.notes]
    return lines
