"""The kernel step-time model against published measured runs (engine/plan/published_runs.json, compared through
the planner): each framework's runs split into calibration and validation by the rule written before fitting
(docs/plan.md, "Validation"), both errors reported by framework; Megatron-LM's A100 runs (Korthikanti et al. 2022,
Table 5, kept apart from Narayanan et al. 2021, Table 1, where η_max came from)."""
from __future__ import annotations

import math
import statistics

import pytest

from engine.plan.kernel.calibration import DEFAULT_CALIBRATION, KernelCalibration
from engine.plan.kernel.chip import kernel_chip
from engine.plan.kernel.gemm import TILE_M, gemm_s
from engine.plan.published import comparisons, published_runs, summary

# Korthikanti et al. 2022, Table 5: measured seconds per iteration on A100s (full recomputation | selective
# recomputation with sequence parallelism); the same figures Calculon's validation uses (Isaev et al. 2023)
PUBLISHED = {"22B": (1.42, 1.10), "175B": (18.13, 13.75), "530B": (49.05, 37.83), "1T": (94.42, 71.49)}
A100 = kernel_chip("nvidia-a100-sxm4-80gb")


def test_the_validation_set_is_the_published_table_and_apart_from_calibration():
    validation, calibration = comparisons("korthikanti-2022"), comparisons("narayanan-2021")
    assert [c.published for c in validation] == [t for pair in PUBLISHED.values() for t in pair]
    assert {c.run.role for c in validation} == {"validation"} and {c.run.role for c in calibration} == {"calibration"}
    assert {c.run.source.split(",")[0] for c in validation} == {"Korthikanti et al. 2022"}
    assert {c.run.source.split(",")[0] for c in calibration} == {"Narayanan et al. 2021"}
    assert not {c.run.id for c in validation} & {c.run.id for c in calibration}
    # the one calibrated number lives in the calibration input, fitted on the calibration runs only
    assert DEFAULT_CALIBRATION.gemm_efficiency == 0.74 and "Narayanan" in DEFAULT_CALIBRATION.source


def test_validation_error_median_at_most_5_percent_worst_at_most_12():
    errors = [abs(c.predicted / c.published - 1) for c in comparisons("korthikanti-2022")]
    assert statistics.median(errors) <= 0.05 and max(errors) <= 0.12, errors
    # measured here: median 3.6%, worst +7.5% (1T full); the constant-efficiency model: 7.0%, −29.2% (22B)
    s = summary(comparisons("korthikanti-2022"))
    assert s["median"] == pytest.approx(0.036, abs=0.005) and s["worst"] == pytest.approx(0.075, abs=0.005)
    assert s["previous_median"] == pytest.approx(0.070, abs=0.005)
    assert s["previous_worst"] == pytest.approx(-0.292, abs=0.005)


def test_calibration_runs_are_what_narayanan_prints():
    # 18.4B: 1,024 sequences × 2,048 tokens on 256 GPUs at 43% of 312 TFLOP/s, counted 96·B·s·l·h²·(…)
    run = next(c for c in comparisons("narayanan-2021") if c.case.startswith("GPT 18.4B"))
    flop = 96 * 1024 * 2048 * 40 * 6144 ** 2 * (1 + 2048 / (6 * 6144) + 51200 / (16 * 40 * 6144))
    assert run.published == pytest.approx(flop / (256 * 312e12 * 0.43))
    assert len(comparisons("narayanan-2021")) == 10
    assert "layout.micro_batch" in run.run.assumed  # Table 1 gives neither micro-batch nor schedule


def test_a_gemm_is_wave_quantized_or_memory_bound():
    cal = DEFAULT_CALIBRATION
    # 8,192 × 3,072 × 6,144 on an A100: 256×128 tiles → 32 × 24 = 768 tiles, 8 waves of 108 SMs (864 slots)
    eta = 0.74 * 768 / 864
    assert gemm_s(A100, cal, 8192, 3072, 6144) == pytest.approx(2 * 8192 * 3072 * 6144 / (312e12 * eta))
    # an outer product (8,192 × 8,192 × 8) writes far more bytes than it computes: bandwidth-bound
    bytes_ = 2 * (8192 * 8 + 8 * 8192 + 8192 * 8192)
    assert gemm_s(A100, cal, 8192, 8192, 8) == pytest.approx(bytes_ / (2039e9 * 0.85))
    # one output tile keeps one of the 108 multiprocessors busy
    assert gemm_s(A100, cal, 8, 8, 8192) == pytest.approx(2 * 8 * 8 * 8192 / (312e12 * 0.74 / 108))
    assert math.ceil(8192 / TILE_M) == 32
    # a calibration by class replaces η_max for that class only (a measured trace's matrix-product rate)
    traced = KernelCalibration(gemm_efficiency_by_class={"attention": 0.5})
    assert gemm_s(A100, traced, 8192, 3072, 6144, 1, "attention") == pytest.approx(
        2 * 8192 * 3072 * 6144 / (312e12 * 0.5 * 768 / 864))
    assert gemm_s(A100, traced, 8192, 3072, 6144) == gemm_s(A100, cal, 8192, 3072, 6144)


def test_recomputation_and_sequence_parallelism_move_the_step_the_published_way():
    rows = comparisons("korthikanti-2022")
    for name, (full, sel) in PUBLISHED.items():
        f = next(c for c in rows if c.case.startswith(f"GPT {name},") and "full" in c.case)
        s = next(c for c in rows if c.case.startswith(f"GPT {name},") and "selective" in c.case)
        assert s.predicted / f.predicted == pytest.approx(sel / full, rel=0.05)


def test_the_plan_carries_the_kernel_model_where_it_applies():
    # GPT-3 175B (Brown et al. 2020 shape) on 1,024 A100s, t 8, p 16, d 8, B 1,536, full recomputation
    from engine.llm.config import read_hf_config
    from engine.llm.presets import GPT3_175B_CONFIG
    from engine.plan.layout import Layout, MemoryOptions
    from engine.plan.model import plan_model
    from engine.plan.run_plan import PlanSettings, plan_run
    from tests.plan import kernel

    model = plan_model(read_hf_config(GPT3_175B_CONFIG).architecture(2048))
    assert (model.ff_size, model.gated, model.vocab) == (4 * 12288, False, 50257)
    layout = Layout(dp=8, tp=8, pp=16, micro_batch=1, global_batch=1536)
    options = MemoryOptions(precision="fp16", recompute="full", convention="megatron-2021", attention="stored")
    plan = plan_run(model, layout, options, PlanSettings(chip="nvidia-a100-sxm4-80gb", tokens=300e9))
    direct = kernel(model, layout, options, chip="nvidia-a100-sxm4-80gb")
    out = plan.as_dict()["kernel_model"]
    assert out["step_s"] == pytest.approx(direct.step_s) and out["mfu"] == pytest.approx(direct.mfu)
    assert 0.30 < out["mfu"] < 0.45  # Megatron-era A100 runs of this size: 30–47% (utilization_reports.csv)
    # where it does not apply (FP32, a chip without kernel figures) there is none
    assert plan_run(model, layout, MemoryOptions(precision="fp32"),
                    PlanSettings(chip="nvidia-h100-sxm")).kernel is None
    assert plan_run(model, layout, options, PlanSettings(chip="nvidia-tesla-v100-sxm2")).kernel is None
    # and the constant-efficiency model when it is asked for
    constant = plan_run(model, layout, options, PlanSettings(chip="nvidia-a100-sxm4-80gb", step_model="constant"))
    assert constant.kernel is None and constant.step.model == "constant-efficiency model"


def test_every_published_run_names_its_source_and_its_assumptions():
    runs = published_runs().runs
    assert len(runs) >= 150
    for run in runs:
        assert "http" in run.source or "Table" in run.source, run.id
        assert run.assumed and run.assumptions, run.id  # no run of the set prints every field the plan needs
    models = published_runs().models
    assert all(m.source for m in models.values())


# The split rule (docs/plan.md, written before any fit): per framework lineage, the runs of its EARLIEST source
# publication are calibration, every later publication's are validation; a lineage with one publication is
# validation only; checks stay checks. Each set's lineage and publication date, as its source prints it.
SETS = {"narayanan-2021": ("megatron", "2021-04-09"), "korthikanti-2022": ("megatron", "2022-05-10"),
        "nemo-24.07": ("megatron", "2024-07-24"), "bridge-moe": ("megatron", "2025-11-01"),
        "bridge-chips": ("megatron", "2025-11-01"),
        "torchtitan-2024-04-18": ("torchtitan", "2024-04-18"), "torchtitan-2024-04-24": ("torchtitan", "2024-04-24"),
        "torchtitan-2024-08-23": ("torchtitan", "2024-08-23"), "torchtitan-2025-01-30": ("torchtitan", "2025-01-30"),
        "llm-foundry-2023-05-03": ("composer", "2023-05-03"), "llm-foundry-2023-10-19": ("composer", "2023-10-19"),
        "llm-foundry-2024-01-06": ("composer", "2024-01-06"),
        "mt-nlg-2022": ("deepspeed", "2022-01-28"), "bloom-2022": ("deepspeed", "2022-11-09"),
        "llama3-2024": ("meta", "2024-07-31")}
CHECKS = {"bridge-moe-releases", "nemo-long-context", "constant-model"}


def test_roles_follow_the_split_rule():
    runs = published_runs().runs
    assert {r.set for r in runs} == set(SETS) | CHECKS  # a new set must be given its lineage and date here
    for run in runs:
        if run.set in CHECKS:
            assert run.role == "check", run.id
            continue
        lineage, date = SETS[run.set]
        dates = sorted({d for ln, d in SETS.values() if ln == lineage})
        expected = "calibration" if len(dates) > 1 and date == dates[0] else "validation"
        assert run.role == expected, run.id


def test_fitted_calibrations_come_from_calibration_runs_only():
    """Each framework's fitted numbers are a grid point of tools/fit_frameworks.py on its calibration runs: no
    neighbouring grid point has a smaller median error there (the search is run in full by the tool)."""
    from engine.plan.frameworks import FITTED
    from tools.fit_frameworks import GRIDS, errors

    for fid, grid in GRIDS.items():
        best = {k: getattr(FITTED[fid], k) for k in grid}
        for k, values in grid.items():
            assert any(v == pytest.approx(best[k]) for v in values), (fid, k)
        best_median = statistics.median(abs(e) for e in errors(fid, best))
        for k, values in grid.items():
            i = min(range(len(values)), key=lambda j: abs(values[j] - best[k]))
            for j in (i - 1, i + 1):
                if 0 <= j < len(values):
                    moved = statistics.median(abs(e) for e in errors(fid, {**best, k: values[j]}))
                    assert moved >= best_median - 1e-9, (fid, k, values[j])
        # no validation run is among the runs the errors come from
        from engine.plan.published import published_runs as runs
        assert len(errors(fid, best)) == sum(r.role == "calibration" and r.options.convention == fid
                                             for r in runs().runs)


def test_at_least_forty_validation_runs_from_four_frameworks_and_none_refused():
    from engine.plan.published import framework_summary

    rows = [c for c in comparisons(role="validation")]
    assert len(rows) >= 40 and len({c.run.framework for c in rows}) >= 4
    assert all(c.step_model == "kernel model" for c in rows)  # every layout planned, none refused
    s = framework_summary()
    # measured here (docs/plan.md, "Validation"): calibration 41 runs, median 2.9%, worst −21.9%; validation 87
    # runs, median 9.0%, worst −42.5% (torchtitan's Llama 3.1 8B at 262,144 positions, CP 8) — the target
    # (median ≤ 8%, worst ≤ 20%) is not met: Hopper and Blackwell runs of small models and long contexts are fast
    assert (s["all", "calibration"]["runs"], s["all", "validation"]["runs"]) == (41, 87)
    assert s["all", "calibration"]["median"] == pytest.approx(0.029, abs=0.002)
    assert s["all", "validation"]["median"] == pytest.approx(0.090, abs=0.002)
    assert s["all", "validation"]["worst"] == pytest.approx(-0.425, abs=0.003)
    by_framework = {fw: round(100 * v["median"], 1) for (fw, role), v in s.items() if role == "validation"}
    assert by_framework == pytest.approx({"Megatron-LM": 3.6, "NeMo": 13.2, "Megatron Bridge": 12.0, "torchtitan": 14.1,
                                          "MosaicML Composer": 8.6, "DeepSpeed": 6.6, "Meta (Llama 3)": 9.0,
                                          "all": 9.0}, abs=0.15)


def test_the_held_out_range_holds_at_least_90_percent_of_the_validation_runs():
    """Each validation run's range made from the OTHER validation runs of its regime (its own error left out)
    holds its published step for ≥ 90% of them (measured: 79 of 87)."""
    from engine.plan.uncertainty import leave_one_out_coverage

    rows = [c for c in comparisons(role="validation") if c.held_out is not None]
    covered = sum(bool(c.covered) for c in rows)
    assert (covered, len(rows)) == leave_one_out_coverage("kernel model") == (79, 87)
    assert covered / len(rows) >= 0.9


def test_the_mpt_benchmark_shapes_have_the_tables_parameter_counts():
    """llm-foundry's benchmark table prints NumParams (2023-05-03 version): 7b 6,658,859,008 at 2,048 positions
    and 6,684,024,832 at 8,192 (learned positions); 13b 12,853,954,560 / 12,885,411,840; 30b 29,975,214,080; 70b
    64,862,437,376."""
    from engine.llm.config import read_hf_config
    from engine.plan.model import plan_model

    models = published_runs().models
    for name, seq, params in (("mpt-7b-benchmark", 2048, 6_658_859_008), ("mpt-7b-benchmark", 8192, 6_684_024_832),
                              ("mpt-13b-benchmark", 2048, 12_853_954_560), ("mpt-13b-benchmark", 8192, 12_885_411_840),
                              ("mpt-30b-benchmark", 2048, 29_975_214_080), ("mpt-70b-benchmark", 2048, 64_862_437_376)):
        config = {**models[name].config, "n_positions": seq}
        assert plan_model(read_hf_config(config).architecture(seq)).params == params, (name, seq)


def test_model_error_json_is_a_fresh_comparison():
    import json

    from engine.plan.published import model_error_data
    from engine.plan.uncertainty import PATH

    stored = json.loads(PATH.read_text(encoding="utf-8"))["runs"]
    fresh = model_error_data()["runs"]  # python -m tools.plan_tables --write
    assert [(r["id"], r["step_model"]) for r in stored] == [(r["id"], r["step_model"]) for r in fresh]
    assert [r["log_error"] for r in stored] == pytest.approx([r["log_error"] for r in fresh], abs=1e-9)


def test_docs_plan_holds_every_published_runs_table():
    from pathlib import Path

    from tools.plan_tables import tables

    text = (Path(__file__).parents[2] / "docs" / "plan.md").read_text(encoding="utf-8")
    for sets, table in tables().items():
        missing = [line for line in table if line not in text]
        assert not missing, (sets, missing[:2])  # python -m tools.plan_tables --write
