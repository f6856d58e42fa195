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

from .errors import InputError, parse_input

_LAZY = {
    "estimate_scenario": ".api", "estimate_config": ".api", "estimate_hardware": ".api",
    "plan_layout": ".api", "estimate_multimodal": ".api", "estimate_pipeline": ".api",
    "estimate_vlm_training": ".api", "measure_trace": ".api",
    "measurement_markdown": ".measure.report",
    "serve_model": ".api", "compress_scenario": ".api", "distill_models": ".api",
    "Scenario": ".scenario", "parse_scenario": ".scenario", "load_scenario_text": ".scenario",
    "estimate_method1": ".method1.estimate", "Method1Estimate": ".method1.estimate",
    "HardwareRun": ".method2.run", "estimate_method2": ".method2.run",
    "Method2Estimate": ".method2.run", "consistency_check": ".consistency",
    "estimate_transformer": ".llm.estimate", "read_hf_config": ".llm.config",
    "presets": ".presets", "encode_link": ".share_link", "decode_link": ".share_link",
    "markdown_report": ".report",
}
_RENAMED = {"encode_link": "encode", "decode_link": "decode"}

__all__ = ["InputError", "parse_input", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), _RENAMED.get(name, name))
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
