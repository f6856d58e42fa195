"""The Python API: eight calls, each taking plain Python data (or JSON text, or a file) and returning a result.

    from engine import (estimate_scenario, estimate_config, estimate_hardware, plan_layout, measure_trace,
                        serve_model, compress_scenario, distill_models)

- ``estimate_scenario(scenario)`` — method 1: C = F × (1 + r) × examples × epochs (+ optimizer) from layers.
- ``estimate_config(config, tokens)`` — a language model's ``config.json``: parameters, forward FLOP per
  sequence, training FLOP for D tokens, and the 6ND / PaLM / Megatron formulas beside the count.
- ``estimate_hardware(run)`` — method 2: C = chips × time × peak × utilization, with cost, energy, CO₂.
- ``plan_layout(model, layout, chip=…)`` — memory per chip, step time and MFU of a parallel layout.
- ``measure_trace(trace)`` — a PyTorch profiler trace: time split, operators' FLOP and roofline, HFU / MFU.
- ``serve_model(config, chip=…, prompt_tokens=…, output_tokens=…)`` — serving: KV cache, prefill/decode FLOP, TTFT,
  TPOT, tokens/s, the batch and the sequences that fit.
- ``compress_scenario(scenario, technique=…, …)`` — pruning, sparsity, QAT/PTQ, low-precision training: before/after.
- ``distill_models(teacher, student, tokens=…)`` — distillation: teacher's forward, student's training, the sum.

Every input goes through the same validation as the dashboard, the CLI, files and links: a bad value raises
``engine.InputError`` whose ``str`` is one line naming the field. Results have ``as_dict()`` (JSON-ready).
"""
from __future__ import annotations

from collections.abc import Mapping

from .errors import InputError, json_type, parse_input

__all__ = ["estimate_scenario", "estimate_config", "estimate_hardware", "plan_layout", "measure_trace",
           "serve_model", "compress_scenario", "distill_models", "estimate_multimodal", "estimate_pipeline",
           "estimate_vlm_training"]


def _scenario(scenario):
    """A ``Scenario``, a dict of one, or its JSON text (a file's content)."""
    from .scenario import Scenario, load_scenario_text, parse_scenario

    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, bytes)):
        return load_scenario_text(scenario)
    return parse_scenario(scenario)


def _config(config, lenient: bool = False):
    """A ``TransformerConfig``, a decoded ``config.json`` dict, or its JSON text."""
    from .llm.config import TransformerConfig, load_hf_config_text, read_hf_config

    if isinstance(config, TransformerConfig):
        return config
    if isinstance(config, (str, bytes)):
        return load_hf_config_text(config, lenient=lenient)
    return read_hf_config(config, lenient=lenient)


def estimate_scenario(scenario):
    """Method 1 for a scenario (``Scenario``, dict or JSON text): per-layer rows, forward FLOP F per example,
    training FLOP C = F × (1 + r) × examples × epochs (+ u × P × steps) → ``Method1Estimate``."""
    return _scenario(scenario).method1()


def estimate_config(config, tokens: float, *, seq_len: int | None = None, convention: str = "matmul",
                    lenient: bool = False):
    """A language model from its ``config.json`` (dict or text), trained on ``tokens`` tokens in sequences of
    ``seq_len`` (default: the config's context) → ``TransformerEstimate`` (``params``,
    ``training.training_flop``, ``formulas``). Keys no transformers code of the family reads are accepted and
    listed (``config.unused_keys``); ``lenient``: keys transformers reads and the reader does not are listed
    (``config.ignored_keys``), not refused."""
    from .llm.estimate import TransformerRun, estimate_transformer

    run = parse_input(TransformerRun, {"tokens": tokens, "seq_len": seq_len, "convention": convention},
                      source="run")
    return estimate_transformer(_config(config, lenient), run)


def _json(config, field: str = "config"):
    """A decoded config, or its JSON text (anything else is an ``InputError`` naming ``field``)."""
    if isinstance(config, (str, bytes)):
        from .json_text import parse_json_text
        from .llm.config import MAX_CONFIG_BYTES

        return parse_json_text(config, field, MAX_CONFIG_BYTES)
    if not isinstance(config, Mapping):
        raise InputError(field, f"expected a config.json (a dict, or its JSON text), got {json_type(config)}")
    return config


def _convention(convention) -> str:
    """``matmul`` or ``full`` (``method1.conventions``); anything else is an ``InputError`` naming ``convention``."""
    from .method1.conventions import CONVENTIONS

    if not isinstance(convention, str) or convention not in CONVENTIONS:
        got = repr(convention)[:40] if isinstance(convention, str) else json_type(convention)
        raise InputError("convention", f"one of {', '.join(CONVENTIONS)}, got {got}")
    return convention


def _inputs(inputs: Mapping):
    from .multimodal.inputs import media_inputs

    return media_inputs(dict(inputs))


def estimate_multimodal(config, *, convention: str = "matmul", lenient: bool = False, **inputs):
    """Any config the engine reads — a language model's, a vision-language or audio model's, a diffusers
    ``unet/``, ``transformer/`` or ``vae/config.json`` — at the inputs users know (``image_size=(H, W)``,
    ``images``, ``frames``, ``audio_seconds``, ``text_tokens``; each family's standard input where absent) →
    ``ModelCount`` (``params``, ``forward_flop`` of one example, ``params_by_component``, ``flop_by_component``,
    ``image_tokens``, ``inputs``)."""
    from .multimodal.count import count_config

    return count_config(_json(config), _inputs(inputs), _convention(convention), "config", lenient)


def estimate_pipeline(denoiser, text_encoders=(), vae=None, *, steps: int = 50, guidance: bool = True,
                      outputs: float = 1, convention: str = "matmul", **inputs):
    """A diffusion pipeline from its parts' configs: sampling compute per image (or video) and in all (steps × 1
    or 2 with classifier-free guidance × the denoiser + text encoders + VAE decode) and the training step per
    sample → ``PipelineCompute``."""
    from .multimodal.pipeline import read_parts
    from .multimodal.training import pipeline_compute

    if not isinstance(text_encoders, (list, tuple)):
        raise InputError("text_encoders", "expected a list of config.json dicts (or their JSON texts), got "
                         f"{json_type(text_encoders)}")
    encoders = [_json(t, f"text_encoders[{i}]") for i, t in enumerate(text_encoders)]
    parts = read_parts(_json(denoiser, "denoiser"), encoders, _json(vae, "vae") if vae is not None else None,
                       _inputs(inputs))
    return pipeline_compute(*parts, {"steps": steps, "guidance": guidance, "outputs": outputs},
                            _convention(convention))


def estimate_vlm_training(config, *, recipe: str = "frozen_vision", lora_rank: int | None = None,
                          lora_targets=None, convention: str = "matmul", **inputs):
    """A vision-language model's training step per example under a recipe (``full``, ``frozen_vision``,
    ``projector``, ``lora`` with ``lora_rank`` and ``lora_targets``, default q and v): forward and exact backward
    per component → ``StepCompute``."""
    from .multimodal.count import read_any
    from .multimodal.training import VlmRecipe, vlm_training_step

    given = {"recipe": recipe, "lora_rank": lora_rank}
    if isinstance(lora_targets, str):  # "q,v", as the CLI takes them
        from .method1.backward import lora_target_list

        given["lora_targets"] = lora_target_list(lora_targets)
    elif isinstance(lora_targets, (list, tuple)):
        given["lora_targets"] = list(lora_targets)
    elif lora_targets is not None:
        raise InputError("lora_targets", f"expected a list of projections such as ['q', 'v'], got "
                         f"{json_type(lora_targets)}")
    spec = parse_input(VlmRecipe, given, source="recipe")
    return vlm_training_step(read_any(_json(config), _inputs(inputs)), spec, _convention(convention))


def estimate_hardware(run: Mapping):
    """Method 2 for a hardware run (``chip``, ``chip_count``, ``duration`` + ``duration_unit``, ``utilization``,
    ``precision`` …, the fields of ``HardwareRun``) → ``Method2Estimate`` with its ``costs`` (cost, energy, CO₂)."""
    from dataclasses import replace

    from .errors import parse_input
    from .method2.costs import estimate_costs
    from .method2.run import HardwareRun, estimate_method2

    run = parse_input(HardwareRun, run)
    return replace(estimate_method2(run), costs=estimate_costs(run))


def plan_layout(model, layout: Mapping, *, chip: str = "nvidia-h100-sxm", tokens: float | None = None,
                options: Mapping | None = None, seq_len: int | None = None, settings: Mapping | None = None):
    """Memory per chip, step time, MFU and wall-clock of ``layout`` (``dp``, ``tp``, ``pp``, ``ep``,
    ``micro_batch``, ``global_batch`` …; the framework's pipeline split unless ``pipeline_split`` is given) for
    ``model``: a scenario with layers (``Scenario``/dict/text with a
    ``layers`` list) or a language model's ``config.json`` (a dict with ``model_type``). ``options``: optimizer,
    precision, ZeRO stage, recomputation. ``tokens``: training tokens, for the wall-clock time. ``settings``: the
    rest of ``PlanSettings`` (a mixture of experts' dispatcher and overlap, the step model, the kernel model's
    ``calibration``…) → ``Plan``."""
    from .plan.layout import Layout, MemoryOptions, with_framework_split
    from .plan.model import checked_seq_len, plan_model
    from .plan.run_plan import PlanSettings, plan_run

    checked_seq_len(seq_len)
    if isinstance(model, Mapping) and "model_type" in model:
        config = _config(model)
        planned = plan_model(config.architecture(config.sequence_length(seq_len)))
    else:
        scenario = _scenario(model)
        planned = scenario.plan_model(seq_len)
        if tokens is None:
            tokens = scenario.tokens()
    if settings is not None and not isinstance(settings, Mapping):
        raise InputError("settings", "expected a mapping such as {'dispatcher': 'flex'}")
    settings = {**(settings or {}), "chip": chip} | ({} if tokens is None else {"tokens": tokens})
    if not isinstance(layout, Mapping):
        raise InputError("layout", "expected a mapping such as {'dp': 8, 'global_batch': 64}")
    if options is not None and not isinstance(options, Mapping):
        raise InputError("options", "expected a mapping such as {'zero': 1}")
    chosen = parse_input(MemoryOptions, dict(options or {}), source="options")
    return plan_run(planned, parse_input(Layout, with_framework_split(dict(layout), chosen), source="layout"),
                    chosen, parse_input(PlanSettings, settings, source="plan"))


def measure_trace(trace, *, step: str | int = "all", chip: str | None = None, model_flop: float | None = None,
                  scenario=None, preset: str | None = None, config: str | None = None, batch: int | None = None,
                  seq: int | None = None):
    """A PyTorch profiler trace measured (``engine.measure``): ``trace`` a path to a ``.json`` / ``.json.gz`` file
    or to a folder of one trace per rank, or the file's bytes. Each step's time split (TraceLens's), the whole
    trace's (HTA's), the operators' FLOP (FlopCounterMode's formulas on the recorded shapes) joined to their
    kernels with a roofline, HFU, and MFU when a model is given (``model_flop`` per step; or ``scenario`` (a file
    path, or its JSON text as bytes), ``preset`` or ``config`` (a config.json path) with ``batch`` [and ``seq``])
    → ``TraceMeasurement`` (``RunMeasurement`` for a folder)."""
    from pathlib import Path

    from .measure.measurement import measure_trace as measure
    from .measure.ranks import measure_path
    from .measure.utilization import model_flop as resolve

    for name, value, kinds in (("preset", preset, str), ("config", config, (str, Path)),
                                ("scenario", scenario, (str, Path, bytes, bytearray)), ("chip", chip, str)):
        if value is not None and not isinstance(value, kinds):
            raise InputError(name, f"expected {'a name' if kinds is str else 'a file path'}, got {json_type(value)}")
    text = scenario if isinstance(scenario, (bytes, bytearray)) else None
    model = resolve(flop=model_flop, scenario=None if text else scenario, scenario_text=text, preset=preset,
                    config=config, batch=batch, seq=seq)
    if isinstance(trace, (str, Path)):
        return measure_path(trace, step=step, chip=chip, model=model)
    return measure(trace, step=step, chip=chip, model=model)


def serve_model(config, *, chip: str = "nvidia-h100-sxm", prompt_tokens: int, output_tokens: int, **settings):
    """Serving a language model (``config``: a ``config.json`` dict or text, or a ``TransformerConfig``) on ``chip``:
    the KV cache per token and per sequence, prefill and decode FLOP, TTFT, TPOT, output tokens/s, the batch (default:
    the best within memory) and the sequences that fit. ``settings``: the other fields of ``ServeInputs`` (``batch``,
    ``chips``, ``precision``, ``weights``, ``kv_precision``, ``engine``, ``speculative`` …) → ``ServeEstimate``."""
    from .serve.model_facts import model_facts
    from .serve.plan import ServeInputs, serve

    inputs = parse_input(ServeInputs, {"chip": chip, "prompt_tokens": prompt_tokens, "output_tokens": output_tokens,
                                       **settings}, source="serve")
    raw = config
    if isinstance(config, (str, bytes)):
        from .json_text import parse_json_text
        from .llm.config import MAX_CONFIG_BYTES

        raw = parse_json_text(config, "config", MAX_CONFIG_BYTES)
    return serve(model_facts(_config(raw), raw if isinstance(raw, dict) else None), inputs)


def compress_scenario(scenario, **settings):
    """One compression technique on a scenario with layers (``Scenario``, dict or JSON text): ``technique`` (prune,
    unstructured, two_four, qat, ptq, low_precision) and its fields (``Compression``) → ``CompressionResult``
    (before and after, the extra compute, the ideal and the measured speed-up with its source)."""
    from .compress.compression import Compression, compress

    spec = parse_input(Compression, settings, source="compression")
    return compress(_scenario(scenario).model_dump(mode="json"), spec)


def distill_models(teacher, student, *, tokens: float, **settings):
    """Distillation of ``student`` from ``teacher`` (each a ``config.json`` dict or text) on ``tokens`` tokens:
    ``mode`` online/offline, ``epochs``, ``seq_len``, ``top_k``, ``base_training_flop`` → ``DistillationResult``."""
    from .compress.distillation import Distillation, distill

    spec = parse_input(Distillation, {"tokens": tokens, **settings}, source="distillation")
    return distill(_config(teacher), _config(student), spec)
