"""The roofline against published measurements (``measured_serving.json``): each row's prediction and error.

A row names an engine, a library model, a chip and how many serve one copy, the formats, the prompt and output
lengths, and either the maximum-throughput setting (the batch that fits best, as the engines' offline benchmarks
run) or a static batch; its metric is output tokens per second (all chips) or a batch's latency (seconds). Rows are
calibration or validation by the rule written in the file before any fit (docs/serving.md).
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..llm.config import read_hf_config
from ..llm.library import library_model
from ..results import Result
from .counts import ModelCounts
from .engines import Efficiency
from .model_facts import ModelFacts, model_facts
from .plan import ServeInputs, serve
from ..shipped import read_shipped_json

DATA = Path(__file__).with_name("measured_serving.json")
ENGINE_IDS = {"TensorRT-LLM": "tensorrt-llm", "vLLM": "vllm", "PyTorch (gpt-fast, torchao)": "pytorch"}


@lru_cache(maxsize=1)
def measured() -> dict:
    return read_shipped_json(DATA, {"rows": list, "sources": dict, "rule": str})


@lru_cache(maxsize=64)
def _facts(model_id: str) -> ModelFacts:
    config = library_model(model_id).config
    return model_facts(read_hf_config(config, source=f"model {model_id}"), config)


@lru_cache(maxsize=64)
def _counts(model_id: str) -> ModelCounts:
    return ModelCounts(_facts(model_id))


def row_inputs(row: dict, batch: int | None = None) -> ServeInputs:
    return ServeInputs(chip=row["chip"], chips=row["chips"], precision=row["precision"], weights=row.get("weights"),
                       kv_precision=row["kv_precision"], prompt_tokens=row["prompt"], output_tokens=row["output"],
                       batch=batch or row.get("batch"), engine=ENGINE_IDS[row["engine"]],
                       max_batch=row.get("max_batch"))


def _seconds(row: dict, batch: int | None, eff: Efficiency | None) -> tuple[int, float]:
    """(batch, seconds) of one batch of the row's requests."""
    est = serve(_facts(row["model"]), row_inputs(row, batch), eff, _counts(row["model"]))
    return est.batch, est.batch * est.output_tokens / est.output_tokens_per_s


def predict(row: dict, eff: Efficiency | None = None) -> float:
    """The row's metric as predicted. Maximum throughput over R requests: the best batch B, ⌊R/B⌋ full waves and
    one of the R mod B left."""
    batch, seconds = _seconds(row, None, eff)
    if row["metric"] == "latency_s":
        return seconds
    requests = row.get("requests")
    if requests is None or row["mode"] != "max_throughput":
        return batch * row["output"] / seconds
    waves, rest = divmod(requests, batch)
    total = waves * seconds + (_seconds(row, rest, eff)[1] if rest else 0.0)
    return requests * row["output"] / total


@dataclass(frozen=True, slots=True)
class RowError(Result):
    id: str
    engine: str
    role: str
    model: str
    chip: str
    chips: int
    prompt: int
    output: int
    metric: str
    measured: float
    predicted: float

    json_fields = ("id", "engine", "role", "model", "chip", "chips", "prompt", "output", "metric", "measured",
                   "predicted", "error")

    @property
    def error(self) -> float:
        """predicted / measured − 1."""
        return self.predicted / self.measured - 1


def row_errors(role: str | None = None, effs: dict[str, Efficiency] | None = None) -> list[RowError]:
    out = []
    for row in measured()["rows"]:
        if role is not None and row["role"] != role:
            continue
        eff = effs.get(ENGINE_IDS[row["engine"]]) if effs else None
        out.append(RowError(row["id"], row["engine"], row["role"], row["model"], row["chip"], row["chips"],
                            row["prompt"], row["output"], row["metric"], row["measured"], predict(row, eff)))
    return out


def summary(errors: list[RowError]) -> dict:
    """Median and worst absolute error, rows and engines."""
    absolute = [abs(e.error) for e in errors]
    return {"rows": len(errors), "engines": sorted({e.engine for e in errors}),
            "median_abs_error": statistics.median(absolute) if absolute else None,
            "worst_abs_error": max(absolute) if absolute else None}
