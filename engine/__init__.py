"""FLOPscope engine: training compute of deep learning models, in pure Python (no Streamlit).

The public API (imported on first use, so ``import engine`` stays light; docs/api.md, docs/example.ipynb)::

    from engine import estimate_scenario, estimate_config, estimate_hardware, plan_layout, InputError
    estimate_scenario(open("scenario.json").read()).training_flop      # method 1
    estimate_config(config_json_dict, tokens=2e12).training.training_flop  # a language model
    estimate_hardware({"chip": "nvidia-h100-sxm", ...}).training_flop  # method 2
    plan_layout(config_json_dict, {"dp": 8, "tp": 8, "global_batch": 512})    # memory, step time, MFU
    measure_trace("rank0.pt.trace.json.gz").hfu                        # a profiler trace measured

Lower-level names (``Scenario``, ``estimate_method1``, ``HardwareRun`` …) are exported too.

Folders: ``method1/`` (from the architecture), ``method2/`` (from the hardware), ``llm/`` (language
models from config.json), ``trends/`` (the historical record), ``plan/`` (memory, layout, time),
``cli/`` (``python -m engine``). See docs/architecture.md.
"""
from __future__ import annotations

import importlib

from engine.errors import InputError, parse_input

_LAZY = {
    "estimate_scenario": "engine.api", "estimate_config": "engine.api", "estimate_hardware": "engine.api",
    "plan_layout": "engine.api", "estimate_multimodal": "engine.api", "estimate_pipeline": "engine.api",
    "estimate_vlm_training": "engine.api", "measure_trace": "engine.api",
    "measurement_markdown": "engine.measure.report",
    "serve_model": "engine.api", "compress_scenario": "engine.api", "distill_models": "engine.api",
    "Scenario": "engine.scenario", "parse_scenario": "engine.scenario", "load_scenario_text": "engine.scenario",
    "estimate_method1": "engine.method1.estimate", "Method1Estimate": "engine.method1.estimate",
    "HardwareRun": "engine.method2.run", "estimate_method2": "engine.method2.run",
    "Method2Estimate": "engine.method2.run", "consistency_check": "engine.consistency",
    "estimate_transformer": "engine.llm.estimate", "read_hf_config": "engine.llm.config",
    "presets": "engine.presets", "encode_link": "engine.share_link", "decode_link": "engine.share_link",
    "markdown_report": "engine.report",
}
_RENAMED = {"encode_link": "encode", "decode_link": "decode"}

__all__ = ["InputError", "parse_input", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), _RENAMED.get(name, name))
        globals()[name] = value
        return value
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
