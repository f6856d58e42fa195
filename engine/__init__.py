"""FLOPscope engine: training compute of deep learning models, in pure Python (no Streamlit).

The public API (imported on first use, so ``import engine`` stays light)::

    from engine import Scenario, load_scenario_text, estimate_method1, estimate_method2, InputError
    scenario = load_scenario_text(open("scenario.json").read())
    estimate_method1(scenario).training_flop

Folders: ``method1/`` (from the architecture), ``method2/`` (from the hardware), ``llm/`` (language
models from config.json), ``trends/`` (the historical record), ``plan/`` (memory, layout, time),
``cli/`` (``python -m engine``). See docs/architecture.md.
"""
from __future__ import annotations

import importlib

from engine.errors import InputError, parse_input

_LAZY = {
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
