"""The Serve page's pure parts (no Streamlit): options, rows, the chart's traces (tests/app/test_serve_page.py)."""
from __future__ import annotations

from engine.units import format_flop, format_number

PRECISIONS = {"bf16": "BF16", "fp16": "FP16", "fp8": "FP8 (weights and activations)",
              "fp4": "FP4 (weights and activations)"}
WEIGHTS = {"": "as the precision", "int8": "INT8 weight-only", "int4": "INT4 weight-only"}
KV = {"": "as the precision", "bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "fp4": "FP4"}


def model_options() -> dict[str, str]:
    """Library language models that generate (a causal LM head): id → label."""
    from engine.serve.model_facts import generative_models

    return generative_models()


def chip_options(db) -> dict[str, str]:
    """Chips with memory and bandwidth: id → 'name (memory GB, bandwidth TB/s)'."""
    return {c.id: f"{c.name} ({c.memory_gb:g} GB, {c.memory_bandwidth_gb_s / 1000:.3g} TB/s)"
            for c in db.chips if c.memory_gb and c.memory_bandwidth_gb_s and c.kind != "cpu"}


def sweep_rows(est) -> list[dict]:
    return [{"batch": row["batch"], "TTFT (ms)": row["ttft_s"] * 1e3, "TPOT (ms)": row["tpot_s"] * 1e3,
             "output tokens/s": row["output_tokens_per_s"], "per chip": row["output_tokens_per_s_per_chip"]}
            for row in est.batch_sweep]


def phase_rows(est) -> list[dict]:
    return [{"phase": name, "FLOP": format_flop(phase.flop), "bytes per chip": f"{phase.bytes_per_chip / 1e9:.4g} GB",
             "bound": phase.bound, "time": f"{format_number(phase.seconds * 1e3)} ms"}
            for name, phase in (("prefill (the batch's prompts)", est.prefill),
                                ("one decode step (the batch)", est.decode_step))
            if est.output_tokens or phase is est.prefill]  # the prefill alone (an encoder): no decode step


def cache_rows(est) -> list[dict]:
    return [{"layer": row.layer, "kind": row.kind, "keeps": row.label, "tokens kept": row.tokens_kept,
             "bytes": row.bytes} for row in est.cache.layers]


def sweep_traces(est) -> list[dict]:
    """(x, y, name, axis) for the chart: output tokens/s (all chips) and TPOT against the batch."""
    rows = est.batch_sweep
    return [{"x": [r["batch"] for r in rows], "y": [r["output_tokens_per_s"] for r in rows],
             "name": "output tokens/s (all chips)", "yaxis": "y"},
            {"x": [r["batch"] for r in rows], "y": [r["tpot_s"] * 1e3 for r in rows],
             "name": "time per output token (ms)", "yaxis": "y2"}]
