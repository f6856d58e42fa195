"""The results convention (docs/architecture.md, Conventions): what the engine reads from outside is a
pydantic model; what it computes is a slotted dataclass deriving from ``engine.results.Result``, whose
``as_dict()`` is its JSON view.

A class of ``engine`` is a result when it is public and
- its name ends in one of ``RESULT_SUFFIXES``, or
- a public function of ``engine`` returns it (in its return annotation, inside lists, tuples, dicts and
  ``| None``), or
- a result holds it in a field (the same look inside the field's annotation),
except the input models of ``INPUTS`` (and exceptions and NamedTuples: values, not results).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
import typing

import pytest
from pydantic import BaseModel

import engine
from engine.results import Result, to_json

RESULT_SUFFIXES = ("Estimate", "Result", "Row", "Check", "Fit", "Trend", "Plan", "Summary", "Placement", "Peak",
                   "Interval", "Reconciliation", "Import")
INPUTS = {
    # read from outside (forms, flags, files, links, the databases), validated through parse_input
    "Chip", "HardwareDB", "HardwareRun", "Interconnect", "Layout", "MemoryOptions", "PlanInputs", "RunPoint",
    "Scenario", "TrainingRun", "TransformerConfig", "TransformerRun", "TrendQuery", "UtilizationPreset",
    "UtilizationReport", "LibraryModel", "GridPlace", "ProviderPue",
    "MeasureSummary",  # a measurement's summary read back from a share link (engine/measure/summary_link.py)
    "ServeInputs", "ServePlan", "Speculative", "Compression", "Pruning", "Distillation",  # engine.serve/compress
    "MeasuredFactor",  # a row of engine/compress/factors.json, read as a file
    "PlanSettings",  # the CLI's flags, the API's "settings" and a saved plan's (run_plan.settings_for) alike
    "KernelCalibration",  # the kernel model's efficiencies, inside PlanSettings
    "PublishedRun", "PublishedFigure",  # published_runs.json, a shipped file read through parse_input
    "RunError", "ModelError",  # model_error.json, a shipped file read through parse_input
    "MediaInputs",  # a multimodal count's images, frames, seconds and text tokens (engine/multimodal/inputs.py)
    # layer kinds and the architecture they make (the multimodal readers build them), validated inside Scenario
    "Architecture", "Branches", "Residual", "TransformerBlock",
    "Counted",  # a layer kind (a row counted from an ONNX graph or a PyTorch module), validated inside Scenario
    "Preset",  # a preset scenario with its source (engine/presets.py): a Scenario with a title, as read
    # not pydantic, but not a result either: the CLI's bundle of what it loaded for `memory` and `plan`
    "Loaded",
    # not pydantic, not a result: the typed reader of a config.json (engine/llm/families/keys.py)
    "Keys",
}
NOT_PYDANTIC = {"Loaded", "Keys"}
NOT_FROZEN = {
    "ArchitectureResult": "evaluate() fills it in after the walk",
    "LayerRow": "the walk multiplies a repeat's rows by its copies and sets each share at the end",
    "BlockRow": "the walk multiplies a repeat's subtotal by its copies",
}


def _modules():
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if not info.name.endswith("__main__"):  # running it would parse this process's arguments
            yield importlib.import_module(info.name)


MODULES = list(_modules())
CLASSES = {obj.__name__: obj for m in MODULES for obj in vars(m).values()
           if inspect.isclass(obj) and obj.__module__ == m.__name__}
"""Every class defined in engine, by name (also the names annotations are resolved against)."""


def _classes_in(hint) -> set[type]:
    found = {hint} if isinstance(hint, type) and hint.__module__.startswith("engine") else set()
    for arg in typing.get_args(hint):
        found |= _classes_in(arg)
    return found


def _hints(obj) -> dict:
    try:
        return typing.get_type_hints(obj)
    except NameError:  # a name imported only where it is used (or for type checking): engine's class of that name
        return typing.get_type_hints(obj, localns=CLASSES)


def _is_value(cls: type) -> bool:
    """A value or an input, not a result: exceptions, tuples, and the layer kinds (what the readers build and a
    scenario validates, e.g. a video VAE's causal ``Conv3d``)."""
    from engine.method1.layers import LayerBase

    return issubclass(cls, (Exception, tuple, LayerBase))


def result_classes() -> dict[str, str]:
    """Result class name → why it is one."""
    found = {name: f"its name ends in {next(s for s in RESULT_SUFFIXES if name.endswith(s))}"
             for name in CLASSES if name.endswith(RESULT_SUFFIXES) and not name.startswith("_")}
    for module in MODULES:
        for name, func in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(func) or func.__module__ != module.__name__:
                continue
            for cls in _classes_in(_hints(func).get("return")):
                found.setdefault(cls.__name__, f"{module.__name__}.{name} returns it")
    todo = [n for n in found if n not in INPUTS]
    while todo:
        cls = CLASSES[todo.pop()]
        if not dataclasses.is_dataclass(cls):
            continue  # reported by the test below; its fields cannot be read as a dataclass's
        for hint in _hints(cls).values():
            for inner in _classes_in(hint):
                if inner.__name__ not in found:
                    found[inner.__name__] = f"{cls.__name__} holds it"
                    todo.append(inner.__name__)
    return {n: why for n, why in sorted(found.items())
            if n not in INPUTS and not n.startswith("_") and not _is_value(CLASSES[n]) and CLASSES[n] is not Result}


RESULTS = result_classes()


def test_the_rule_finds_the_results():
    # a guard on the rule itself: these must be among what it finds
    assert {"Method1Estimate", "Method2Estimate", "PeakUsed", "FormatPeak", "Interval", "CostEstimate", "RunPlan",
            "ConsistencyCheck", "TrendFit", "HardwareTrend", "HardwarePoint", "Placement", "Reconciliation",
            "ReconciledRow", "ReconcileSummary", "EpochImport", "HardwareRow", "YearPeak", "UtilizationPrior",
            "MeasuredUtilization", "FormatRow", "TrainingResult", "TransformerEstimate", "FormulaResult",
            "LayerRow", "BlockRow", "Plan", "SweepRow", "Memory", "StepTime", "Optimum", "Lifetime"} <= set(RESULTS)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_a_result_is_a_slotted_dataclass(name):
    cls = CLASSES[name]
    why = RESULTS[name]
    assert not issubclass(cls, BaseModel), f"{name} ({why}) is a pydantic model: make it a slotted dataclass"
    assert dataclasses.is_dataclass(cls), f"{name} ({why}) is not a dataclass"
    # no instance __dict__: every class up its line declares __slots__
    assert all("__slots__" in k.__dict__ for k in cls.__mro__[:-1]), f"{name} ({why}) is not slotted"
    assert issubclass(cls, Result), f"{name} ({why}) does not derive from engine.results.Result (its as_dict)"
    frozen = cls.__dataclass_params__.frozen
    assert frozen or name in NOT_FROZEN, f"{name} ({why}) is not frozen (or say why in NOT_FROZEN)"
    assert not (frozen and name in NOT_FROZEN), f"{name} is frozen: take it out of NOT_FROZEN"


@pytest.mark.parametrize("name", sorted(INPUTS - NOT_PYDANTIC))
def test_an_input_is_a_pydantic_model(name):
    assert issubclass(CLASSES[name], BaseModel)


def test_as_dict_of_nested_results():
    from engine.method2.precision import FormatPeak
    from engine.method2.run import Method2Estimate, PeakUsed
    from engine.ranges import Interval

    part = FormatPeak(precision="bf16", tensor_cores_requested=True, peak_key="bf16_tensor", peak_flop_per_s=1e15,
                      unit="FLOP/s", tensor_cores=True, fraction=0.75)
    peak = PeakUsed(hardware_kind="chip", hardware_name="Chip X", chip_id="chip-x", peak_flop_per_s=1e15,
                    unit="FLOP/s", precision="bf16", tensor_cores=True, parts=[part], split_basis=None,
                    fallback_used=False, fallbacks=[], notes=["a note"], peak_low_flop_per_s=5e14)
    interval = Interval(point=2.0, low=1.0, high=4.0, method="exact", factors=["duration"], confidence="Likely",
                        confidence_rule="rule")
    estimate = Method2Estimate(training_flop=2.0, pfs_days=3.0, training_flop_low=1.0, training_flop_high=4.0,
                               pfs_days_low=None, pfs_days_high=None, chip_count=8.0, chip_hours=24.0,
                               wall_clock_hours=3.0, utilization=0.5, utilization_low=None, utilization_high=None,
                               peak=peak, formula="8 × 3 h", interval=interval)
    assert estimate.as_dict() == {
        "training_flop": 2.0, "pfs_days": 3.0, "training_flop_low": 1.0, "training_flop_high": 4.0,
        "pfs_days_low": None, "pfs_days_high": None, "chip_count": 8.0, "chip_hours": 24.0, "wall_clock_hours": 3.0,
        "utilization": 0.5, "utilization_low": None, "utilization_high": None,
        "peak": {"hardware_kind": "chip", "hardware_name": "Chip X", "chip_id": "chip-x", "peak_flop_per_s": 1e15,
                 "unit": "FLOP/s", "precision": "bf16", "tensor_cores": True,
                 "parts": [{"precision": "bf16", "tensor_cores_requested": True, "peak_key": "bf16_tensor",
                            "peak_flop_per_s": 1e15, "unit": "FLOP/s", "tensor_cores": True, "fraction": 0.75,
                            "fallback": None}],
                 "split_basis": None, "fallback_used": False, "fallbacks": [], "notes": ["a note"],
                 "assumed_format": None, "peak_low_flop_per_s": 5e14, "peak_high_flop_per_s": None},
        "formula": "8 × 3 h",
        "interval": {"point": 2.0, "low": 1.0, "high": 4.0, "level": 0.9, "method": "exact", "factors": ["duration"],
                     "confidence": "Likely", "confidence_rule": "rule"},
    }
    assert json.loads(json.dumps(estimate.as_dict())) == estimate.as_dict()


def test_as_dict_walks_tuples_dicts_and_input_models():
    from engine.trends.fit import TrendFit, TrendQuery
    from engine.trends.reconcile import ReconciledRow, ReconcileSummary, Reconciliation

    fit = TrendFit(n=3, first_year=2010.0, last_year=2012.0, slope_oom_per_year=0.5, growth_per_year=3.0,
                   ci_doubling_months=(6.0, None), r_squared=None, mean_year=2011.0, mean_log10_value=20.0,
                   query=TrendQuery(domain="Vision"))
    data = fit.as_dict()
    assert list(data) == ["n", "first_year", "last_year", "slope_oom_per_year", "ci_slope_oom_per_year",
                          "growth_per_year", "ci_growth_per_year", "doubling_months", "ci_doubling_months",
                          "r_squared", "residual_std_oom", "mean_year", "mean_log10_value", "query"]
    assert data["ci_doubling_months"] == [6.0, None] and data["ci_slope_oom_per_year"] is None
    assert data["query"] == TrendQuery(domain="Vision").model_dump(mode="json")

    row = ReconciledRow(row=2, name="Run", publication_date="2020-01-01", hardware="A100", status="unknown chip",
                        message="not in the database")
    summary = ReconcileSummary(rows_read=3, rows_with_hardware=1, rows_resolved=0, rows_compared=0, median_ratio=None,
                               share_within_2x=None, share_within_3x=None, flagged=0, by_status={"unknown chip": 1},
                               utilization_source="guide")
    assert Reconciliation(summary=summary, rows=[row]).as_dict() == {
        "summary": {"rows_read": 3, "rows_with_hardware": 1, "rows_resolved": 0, "rows_compared": 0,
                    "median_ratio": None, "share_within_2x": None, "share_within_3x": None, "flagged": 0,
                    "by_status": {"unknown chip": 1}, "utilization_source": "guide"},
        "rows": [{"row": 2, "name": "Run", "publication_date": "2020-01-01", "hardware": "A100",
                  "status": "unknown chip", "message": "not in the database", "chip_id": None, "chip_name": None,
                  "chip_count": None, "training_hours": None, "utilization": None, "utilization_assumed": False,
                  "format": None, "peak_flop_per_s": None, "method2_flop": None, "reported_flop": None,
                  "ratio": None, "flagged": False, "likely_cause": None, "confidence": ""}],
    }


def test_declared_views_omit_defaults_and_add_properties():
    from engine.method1.architecture import LayerRow
    from engine.plan.optimal import Optimum

    top = LayerRow(0, "dense", "fc", [10], None, 110, 100, 200, path="layers[0]")
    assert top.as_dict() == {"index": 0, "type": "dense", "name": "fc", "output_shape": [10], "params": 110,
                             "macs": 100, "forward_flop": 200, "backward_flop": 0, "trainable_params": 0}
    inner = LayerRow(1, "attention", "", (4, 8), 4, 0, 64, 128, part="scores", active_params=0,
                     path="layers[1].body[0]", depth=1, copies=12)
    assert inner.as_dict() == {"index": 1, "type": "attention", "name": "", "output_shape": [4, 8], "params": 0,
                               "macs": 64, "forward_flop": 128, "backward_flop": 0, "trainable_params": 0,
                               "part": "scores", "active_params": 0,
                               "path": "layers[1].body[0]", "copies": 12}
    assert list(Optimum("rule", 6.0, 2.0, 8.0, "source").as_dict().items()) == [
        ("rule", "rule"), ("flop", 6.0), ("params", 2.0), ("tokens", 8.0), ("tokens_per_param", 4.0),
        ("source", "source")]
    assert Optimum("rule", 6.0, 2.0, 8.0, "source", loss=1.5).as_dict()["loss"] == 1.5


def test_to_json_leaves_plain_values_alone():
    assert to_json({"a": (1, 2.5, None, "x", True)}) == {"a": [1, 2.5, None, "x", True]}


@pytest.mark.parametrize("part, active, depth, copies", [("", None, 0, 1), ("qkv", 5, 2, 3), ("", 7, 1, 1),
                                                         ("out", None, 0, 4)])
def test_a_layer_rows_written_out_dict_is_the_generic_one(part, active, depth, copies):
    """``LayerRow.as_dict`` is written out for speed: it must give ``Result.as_dict``'s keys, values and order
    (the JSON output's text), less ``path`` on a top-level row — a field added to the row and not to it fails here."""
    from engine.method1.architecture import LayerRow
    from engine.results import Result

    row = LayerRow(index=3, type="dense", name="fc", output_shape=[1, 64], steps=None, params=10, macs=20,
                   forward_flop=40, part=part, active_params=active, share=0.5, path="layers[3].layers[0]",
                   depth=depth, copies=copies, copy=0, backward_flop=80, trainable_params=10)
    generic = Result.as_dict(row)
    if not depth:
        del generic["path"]
    assert list(row.as_dict().items()) == list(generic.items())
    assert {f.name for f in dataclasses.fields(LayerRow)} - set(LayerRow.json_fields) == {
        "steps", "share", "depth", "copy"}  # the fields the table leaves out, and only those
