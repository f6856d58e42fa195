"""Planning speed: the "Plan a run" page's script run (AppTest, Llama 2 7B loaded) and a sweep over
parallel layouts in-process.

    .venv/bin/python -m bench.bench_plan

Targets (issue 15, this 2-core machine): page recompute ≤ 250 ms (median); a sweep of ≥ 1,000 layouts ≤ 1 s.
"""
from __future__ import annotations

import json
import statistics
import time

from streamlit.testing.v1 import AppTest

from bench.common import median_seconds
from engine.llm.config import read_hf_config
from engine.llm.presets import GPT3_175B_CONFIG
from engine.plan.layout import MemoryOptions
from engine.plan.model import plan_model
from engine.plan.run_plan import PlanSettings, sweep_layouts
from tests.browser.harness import ROOT

REPEAT = 9


def page_runs() -> dict:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert not at.exception
    samples = []
    for i in range(REPEAT):
        at.number_input(key="plan_dp").set_value(8 if i % 2 else 16)  # an edit, so the page recomputes
        start = time.perf_counter()
        at.run()
        samples.append(time.perf_counter() - start)
    return {"apptest_plan_ms": 1e3 * statistics.median(samples)}


def sweep() -> dict:
    model = plan_model(read_hf_config(GPT3_175B_CONFIG).architecture(2048))
    settings = PlanSettings(chip="nvidia-a100-sxm4-80gb")
    options = MemoryOptions(zero=1, recompute="selective")
    kwargs = dict(micro_batches=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32), virtual_stages=(1, 2, 3, 4, 6, 8))
    count = len(sweep_layouts(model, 3072, 3072, options, settings, **kwargs))
    seconds = median_seconds(lambda: sweep_layouts(model, 3072, 3072, options, settings, **kwargs), repeat=7)
    return {"sweep_layouts": count, "sweep_ms": 1e3 * seconds}


if __name__ == "__main__":
    results = page_runs()
    results.update(sweep())
    print(json.dumps(results, indent=2))
