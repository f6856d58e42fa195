"""Measured utilization of a run: HFU from the FLOP the trace executed, MFU from the model's FLOP.

    HFU = FLOP executed per step (the trace's operators, recomputation included) ÷ (step time × peak)
    MFU = the model's FLOP per step (FLOPscope's count: a scenario, a preset, a config.json at the trace's batch
          and sequence, an ONNX or ``count`` import saved as a scenario, or a number) ÷ (step time × peak)

Peak: the chip's dense peak for the number format the matrix products ran in; operators in several formats
give one effective peak, the harmonic mean weighted by their FLOP (``method2.precision.effective_peak_flop_per_s``,
basis "work"). Step time: the GPU-side step (first kernel's start to last kernel's end; the slowest rank's in
a folder of ranks). Where the model's FLOP and the executed FLOP differ (recomputation, padding, a frozen part,
a different model) the gap is said, in per cent of the model's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError, quoted
from .chip_match import ChipMatch
from ..method2.precision import effective_peak_flop_per_s
from ..results import Result


@dataclass(frozen=True, slots=True)
class ModelFlop(Result):
    """The model's training FLOP per step and where the figure comes from."""

    flop_per_step: float
    source: str


def model_flop(*, flop: float | None = None, scenario: str | None = None, preset: str | None = None,
               config: str | None = None, batch: int | None = None, seq: int | None = None,
               scenario_text: str | bytes | None = None) -> ModelFlop | None:
    """The model's FLOP per training step from one of: ``flop`` (a number), ``scenario`` (a scenario file: a
    saved estimate, an ONNX or ``count`` import) or ``preset`` with ``batch`` examples per step (forward +
    backward per example × batch), or ``config`` (a language model's config.json) with ``batch`` sequences of
    ``seq`` tokens (FLOPscope's training count for batch × seq tokens). None when none is given."""
    given = [n for n, v in (("--model-flop", flop), ("--scenario", scenario if scenario_text is None else scenario_text),
                            ("--preset", preset), ("--config", config)) if v is not None and v != ""]
    if not given:
        return None
    if len(given) > 1:
        raise InputError(given[1], f"give one model ({' or '.join(given)}), not several")
    if flop is not None:
        if not (_number(flop) and 1 <= flop < 1e40):  # 1e-320 made the executed FLOP 'inf%' more
            raise InputError("--model-flop", f"{quoted(flop)}: a FLOP count per step, above 0 (at least 1)")
        return ModelFlop(float(flop), "given")
    if not _whole(batch):
        raise InputError("--batch", "the trace's batch per step (examples or sequences per rank), a whole number "
                                    "from 1 to 10⁹, is needed with a model" + _got(batch))
    if config:
        if not _whole(seq):
            raise InputError("--seq", "the trace's sequence length (tokens per sequence), a whole number from 1 to "
                                      "10⁹, is needed with --config" + _got(seq))
        from pathlib import Path

        from ..errors import parse_input
        from ..llm.config import MAX_CONFIG_BYTES, load_hf_config_text
        from ..llm.estimate import TransformerRun, estimate_transformer
        path = Path(config)
        text = _small_file(path, "--config", MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
        run = parse_input(TransformerRun, {"tokens": batch * seq, "seq_len": seq}, source="run")
        estimate = estimate_transformer(load_hf_config_text(text), run)
        return ModelFlop(float(estimate.training.training_flop),
                         f"{path.name}: training FLOP of {batch} × {seq} tokens (FLOPscope's count)")
    from ..scenario import load_scenario_text
    if preset:
        from ..presets import presets
        found = presets().get(preset)
        if found is None:
            raise InputError("--preset", f"unknown preset {quoted(preset)}; presets: {', '.join(presets())}")
        sc, label = found.scenario, f"preset {found.title}"
    else:
        if scenario_text is None:
            from pathlib import Path
            from ..scenario import MAX_SCENARIO_BYTES

            path = Path(scenario)
            scenario_text, label = _small_file(path, "--scenario", MAX_SCENARIO_BYTES), path.name
        else:
            label = "the scenario"
        sc = load_scenario_text(scenario_text, "--scenario")
    m1 = sc.method1()
    per_example = m1.forward_flop + (m1.backward_flop or 2 * m1.forward_flop)
    return ModelFlop(per_example * batch, f"{label}: (forward + backward) per example × {batch}")


def _small_file(path, flag: str, limit: int) -> bytes:
    """The bytes of the file a flag names, or one line saying why not: missing, a folder, not a regular file (a
    device, a pipe), larger than ``limit``, unreadable."""
    name = quoted(str(path))
    try:
        if path.is_dir():
            raise InputError(flag, f"{name} is a folder, not a file")
        if not path.exists():
            raise InputError(flag, f"{name}: no such file")
        if not path.is_file():
            raise InputError(flag, f"{name} is not a regular file (a device or a pipe)")
        if path.stat().st_size > limit:
            raise InputError(flag, f"{name} is larger than {limit:,} bytes")
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise InputError(flag, f"cannot read {name} ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:  # grown since stat
        raise InputError(flag, f"{name} is larger than {limit:,} bytes")
    return data


def _number(value) -> bool:
    """A number, not a truth value (``True`` is no FLOP count)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(value) -> bool:
    """A whole number from 1 to 10⁹ (not a truth value, not 2.5, not the text "8")."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10**9


def _got(value) -> str:
    return "" if value is None else f" (got {quoted(value)})"


@dataclass(frozen=True, slots=True)
class Utilization(Result):
    """HFU and MFU of the selected steps (see the module docstring); ``formats``: each number format's share of
    the executed matrix FLOP; ``gap``: how the model's FLOP and the executed FLOP differ, in words."""

    step_time_s: float
    executed_flop_per_step: float
    model_flop_per_step: float | None
    model_source: str | None
    peak_flop_per_s: float | None
    peak: str | None
    peak_source: str | None
    hfu: float | None
    mfu: float | None
    formula: str
    formats: dict = field(default_factory=dict)
    gap: str | None = None


def utilization(step_time_s: float, executed: float, flop_by_peak: dict[str, tuple[float, float]],
                chip: ChipMatch, model: ModelFlop | None) -> Utilization:
    """HFU and MFU. ``flop_by_peak``: peak key → (executed FLOP in that format, its peak FLOP/s)."""
    total = sum(f for f, _ in flop_by_peak.values())
    peak = None
    label = None
    if chip.chip is not None and total > 0:
        peak = effective_peak_flop_per_s([(f / total, p) for f, p in flop_by_peak.values()], "work")
        shown = [(k, f) for k, (f, _) in sorted(flop_by_peak.items(), key=lambda kv: -kv[1][0]) if f / total >= 0.005]
        label = " + ".join(f"{k} {100 * f / total:.0f}%" for k, f in shown) if len(shown) > 1 else shown[0][0]
    source = None
    if chip.chip is not None:
        link = chip.chip.source[0] if chip.chip.source else ""
        share = f", × {chip.share:g} (one die of the package)" if chip.share != 1 else ""
        source = f"{chip.chip.name} dense peak{share} ({chip.how}); hardware_db.json: {link}".strip()
    ok = peak is not None and step_time_s > 0
    hfu = executed / (step_time_s * peak) if ok else None
    mfu = model.flop_per_step / (step_time_s * peak) if ok and model is not None else None
    gap = None
    if model is not None and model.flop_per_step > 0 and executed > 0:
        diff = (executed - model.flop_per_step) / model.flop_per_step
        ratio = executed / model.flop_per_step
        if abs(diff) < 1e-9:
            gap = f"the trace executed the model's FLOP exactly ({executed:.4g} per step)"
        else:
            why = (": recomputation (activation checkpointing), padding or a larger model" if diff > 0.02 else
                   ": about a third — a forward pass only (inference, or no backward in the trace)"
                   if 0.28 <= ratio <= 0.4 else
                   ": frozen layers, skipped work or a smaller model" if diff < -0.02 else "")
            gap = (f"the trace executed {100 * abs(diff):.1f}% {'more' if diff > 0 else 'fewer'} FLOP than the model "
                   f"counts ({executed:.4g} vs {model.flop_per_step:.4g} per step){why}")
    formula = "HFU = executed FLOP per step ÷ (step time × peak); MFU = model FLOP per step ÷ (step time × peak)"
    return Utilization(step_time_s, executed, model.flop_per_step if model else None, model.source if model else None,
                       peak, label, source, hfu, mfu, formula,
                       {k: f / total for k, (f, _) in flop_by_peak.items()} if total else {}, gap)
