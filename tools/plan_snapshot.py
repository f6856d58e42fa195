"""A snapshot of every figure the planner prints, to compare before and after a change of its code:
``python -m tools.plan_snapshot OUT.json`` then ``python -m tools.plan_snapshot --compare A.json B.json``.

What it records: the published-run tables (each run's published and predicted step, full precision), the
CLI's ``plan`` and ``memory`` JSON for representative layouts (dense and experts, every kernel chip, the
constant-efficiency model's chips and formats, ZeRO 0–3, context parallelism, a sweep, non-Adam optimizers),
the Markdown report's plan section, and the Plan page's metrics, captions, messages and tables (AppTest).
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

QWEN3_30B = ["--model", "qwen3-30b-a3b", "--seq-len", "4096"]
CLI_RUNS: list[list[str]] = [
    # dense, the default convention and the kernel model on H100
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "64",
     "--tokens", "2e12"],
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "64",
     "--recompute", "selective", "--zero", "1"],
    ["plan", "--model", "gpt3-175b", "--chip", "nvidia-a100-sxm4-80gb", "--tp", "8", "--pp", "8",
     "--virtual-stages", "3", "--global-batch", "64", "--precision", "fp16", "--recompute", "full",
     "--convention", "megatron", "--tokens", "3e11"],
    ["plan", "--model", "gpt3-175b", "--chip", "nvidia-a100-sxm4-80gb", "--tp", "8", "--pp", "16", "--dp", "8",
     "--global-batch", "1536", "--precision", "fp16", "--recompute", "selective", "--sequence-parallel"],
    ["plan", "--model", "llama-3.1-70b", "--seq-len", "8192", "--chip", "nvidia-h100-sxm", "--tp", "4", "--pp", "4",
     "--cp", "2", "--virtual-stages", "5", "--global-batch", "128", "--precision", "fp8", "--sequence-parallel",
     "--convention", "megatron", "--zero", "1"],
    ["plan", "--model", "llama-3.1-8b", "--seq-len", "8192", "--chip", "nvidia-h100-sxm", "--dp", "8",
     "--global-batch", "128", "--precision", "fp8", "--convention", "fsdp", "--zero", "3"],
    ["plan", "--model", "llama-3.1-8b", "--seq-len", "8192", "--chip", "nvidia-h100-sxm", "--dp", "8",
     "--global-batch", "128", "--convention", "deepspeed", "--zero", "2"],
    ["plan", "--model", "llama-3.1-70b", "--seq-len", "8192", "--chip", "nvidia-gb200", "--dp", "64",
     "--global-batch", "256", "--micro-batch", "2", "--precision", "fp8", "--convention", "fsdp", "--zero", "3"],
    ["plan", "--model", "llama-3.1-70b", "--seq-len", "8192", "--chip", "nvidia-gb200", "--tp", "2", "--pp", "4",
     "--dp", "8", "--virtual-stages", "5", "--global-batch", "256", "--precision", "fp4", "--sequence-parallel",
     "--convention", "megatron", "--zero", "1"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "nvidia-b200", "--dp", "8", "--global-batch", "128",
     "--micro-batch", "2", "--precision", "fp8", "--convention", "megatron", "--zero", "1"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "nvidia-b300", "--dp", "8", "--global-batch", "128"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "nvidia-gb300", "--dp", "16", "--global-batch", "128",
     "--precision", "fp6"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "nvidia-h200-sxm", "--dp", "8", "--global-batch", "64"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "amd-instinct-mi300x", "--dp", "8", "--global-batch", "64"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "amd-instinct-mi325x", "--tp", "2", "--dp", "4",
     "--global-batch", "64", "--sequence-parallel"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "amd-instinct-mi355x", "--dp", "8", "--global-batch", "64",
     "--precision", "fp4"],
    ["plan", "--model", "llama-3.1-8b", "--chip", "nvidia-a100-sxm4-40gb", "--tp", "8", "--global-batch", "16",
     "--recompute", "full"],
    # the constant-efficiency model: V100, TPU v4, FP32, latent attention, a CNN
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-tesla-v100-sxm2", "--dp", "16", "--global-batch", "64",
     "--precision", "fp16"],
    ["plan", "--model", "palm-540b", "--chip", "google-tpu-v4", "--dp", "512", "--tp", "12", "--micro-batch", "4",
     "--global-batch", "2048", "--recompute", "full"],
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "64",
     "--precision", "fp32", "--kernel-efficiency", "0.55"],
    ["plan", "--model", "deepseek-v2-lite", "--seq-len", "4096", "--chip", "nvidia-h100-sxm", "--dp", "16",
     "--ep", "16", "--global-batch", "256"],
    ["plan", "--model", "resnet50", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "256"],
    # mixtures of experts
    ["plan", *QWEN3_30B, "--chip", "nvidia-h100-sxm", "--pp", "2", "--dp", "8", "--ep", "8", "--virtual-stages",
     "12", "--global-batch", "1024", "--precision", "fp8", "--convention", "megatron", "--zero", "1"],
    ["plan", *QWEN3_30B, "--chip", "nvidia-h100-sxm", "--dp", "16", "--ep", "16", "--global-batch", "1024",
     "--precision", "fp8", "--dispatcher", "flex", "--overlap-a2a"],
    ["plan", *QWEN3_30B, "--chip", "nvidia-h100-sxm", "--dp", "16", "--ep", "16", "--global-batch", "1024",
     "--capacity-factor", "1.5", "--recompute", "selective"],
    ["plan", "--model", "gpt-oss-120b", "--seq-len", "4096", "--chip", "nvidia-h100-sxm", "--pp", "4", "--dp", "16",
     "--ep", "8", "--global-batch", "1280", "--recompute", "selective", "--convention", "megatron", "--zero", "1"],
    ["plan", "--model", "mixtral-8x7b", "--seq-len", "4096", "--chip", "nvidia-b200", "--tp", "2", "--dp", "8",
     "--ep", "8", "--global-batch", "256", "--sequence-parallel", "--recompute", "full"],
    ["plan", "--model", "mixtral-8x7b", "--seq-len", "4096", "--chip", "nvidia-h100-sxm", "--tp", "2", "--pp", "2",
     "--dp", "4", "--ep", "2", "--global-batch", "64"],
    # other optimizers (their optimizer-step bytes)
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "64",
     "--optimizer", "sgd"],
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "64",
     "--optimizer", "adam-8bit", "--zero", "1", "--convention", "megatron"],
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8", "--global-batch", "64",
     "--optimizer", "sgd-momentum"],
    # sweeps
    ["plan", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--global-batch", "64", "--sweep", "64",
     "--top", "40"],
    ["plan", *QWEN3_30B, "--chip", "nvidia-h100-sxm", "--global-batch", "256", "--sweep", "16", "--top", "40"],
    ["plan", "--model", "gpt3-175b", "--chip", "nvidia-a100-sxm4-80gb", "--global-batch", "1536",
     "--recompute", "full", "--precision", "fp16", "--sweep", "1024", "--top", "40"],
    # memory
    ["memory", "--model", "llama2-7b", "--chip", "nvidia-h100-sxm", "--dp", "8"],
    ["memory", "--model", "gpt3-175b", "--chip", "nvidia-a100-sxm4-80gb", "--tp", "8", "--pp", "8",
     "--recompute", "selective", "--sequence-parallel", "--convention", "megatron", "--zero", "1", "--dp", "4"],
    ["memory", *QWEN3_30B, "--chip", "nvidia-h100-sxm", "--dp", "16", "--ep", "16", "--zero", "1"],
    ["memory", "--model", "llama-3.1-70b", "--chip", "nvidia-h100-sxm", "--dp", "64", "--zero", "3",
     "--convention", "fsdp", "--micro-batch", "2", "--global-batch", "256"],
]


def cli_json(argv: list[str]) -> object:
    """The command's JSON (in this process), or its one-line error."""
    from engine.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--format", "json"])
    return json.loads(out.getvalue()) if code == 0 else {"exit": code, "stderr": err.getvalue().strip()}


def tables() -> dict:
    """Each published-run table: case → (published s, predicted s, the earlier model's s) at full precision."""
    try:  # the published runs as data, compared through the planner (after the change)
        from engine.plan.published import comparison_tables
        return comparison_tables()
    except ImportError:
        pass
    from engine.plan import published_runs, validation, validation_chips, validation_h100

    out = {}
    for which in ("validation", "calibration"):
        out[f"narayanan-korthikanti {which}"] = {
            r.case: [r.published_s, r.predicted_s, r.previous_s] for r in validation.table(which)}
    for name, rows in (("h100", validation_h100.h100_table()),
                       ("other releases", validation_h100.other_releases_table()),
                       ("long sequence", validation_h100.long_sequence_table())):
        out[name] = {r.case: [r.published_s, r.plan_s, r.previous_s] for r in rows}
    out["chips"] = {r.case: [r.published_s, r.predicted_s, r.previous_s] for r in validation_chips.chips_table()}
    out["constant model (published utilization)"] = {
        r["run"]: [r["published"], r["predicted"], None] for r in published_runs.comparison()}
    return out


def report_sections() -> dict:
    from engine.report import plan_section
    return {name: plan_section(scenario) for name, scenario in page_scenarios().items()}


def page_scenarios() -> dict:
    from engine.llm.config import read_hf_config
    from engine.llm.library import library_models
    from engine.plan.layout import PlanInputs
    from engine.presets import presets
    from engine.scenario import parse_scenario

    llama = presets()["llama2-7b"].scenario
    qwen = next(m for m in library_models() if m.id == "qwen3-30b-a3b")
    moe = parse_scenario(read_hf_config(qwen.config).scenario_data(1e9, 4096))
    gpt3 = presets()["gpt3-175b"].scenario
    return {
        "llama2-7b default plan": llama.model_copy(update={"plan": PlanInputs()}),
        "llama2-7b fp8 zero3 fsdp selective": llama.model_copy(update={"plan": PlanInputs.model_validate(
            {"layout": {"dp": 8, "global_batch": 64}, "options": {"precision": "fp8", "zero": 3,
                                                                  "convention": "fsdp", "recompute": "selective"}})}),
        "qwen3-30b moe e8 flex": moe.model_copy(update={"plan": PlanInputs.model_validate(
            {"layout": {"dp": 16, "ep": 8, "global_batch": 256}, "dispatcher": "flex", "capacity_factor": 1.25,
             "options": {"precision": "fp8", "convention": "megatron", "zero": 1}})}),
        "gpt3-175b a100": gpt3.model_copy(update={"plan": PlanInputs.model_validate(
            {"chip": "nvidia-a100-sxm4-80gb", "layout": {"dp": 1, "tp": 8, "pp": 8, "virtual_stages": 3,
                                                         "global_batch": 64},
             "options": {"precision": "fp16", "recompute": "full", "convention": "megatron"}})}),
        "llama2-7b sgd v100": llama.model_copy(update={"plan": PlanInputs.model_validate(
            {"chip": "nvidia-tesla-v100-sxm2", "layout": {"dp": 16, "global_batch": 64},
             "options": {"precision": "fp16", "optimizer": "sgd"}})}),
    }


def page(scenario) -> dict:
    """The Plan page's text and tables for ``scenario`` (AppTest)."""
    from streamlit.testing.v1 import AppTest

    from engine.share_link import encode

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["s"] = encode(scenario)
    at.run()
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    out: dict = {"exception": [e.value for e in at.exception]}
    out["metrics"] = [[m.label, m.value] for m in at.metric]
    for kind in ("caption", "success", "error", "info", "warning", "markdown", "subheader"):
        out[kind] = [str(e.value) for e in getattr(at, kind)]
    out["dataframes"] = [df.value.astype(object).where(df.value.notna(), None).to_dict("split")
                         for df in at.dataframe]
    return out


def snapshot(with_page: bool = True) -> dict:
    sys.path.insert(0, str(ROOT))
    data = {"tables": tables(), "cli": {" ".join(argv): cli_json(argv) for argv in CLI_RUNS},
            "report": report_sections()}
    if with_page:
        data["page"] = {name: page(scenario) for name, scenario in page_scenarios().items()}
    return data


def differences(a, b, path: str = "", rel: float = 1e-9) -> list[str]:
    """Where ``b`` differs from ``a``: numbers beyond ``rel``, other values exactly."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}: only before: {k}" for k in a if k not in b]
        out += [f"{path}: only after: {k}" for k in b if k not in a]
        for k in a:
            if k in b:
                out += differences(a[k], b[k], f"{path}/{k}", rel)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items before, {len(b)} after"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]", rel)]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        same = a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b)))
        return [] if same else [f"{path}: {a!r} → {b!r} ({(b / a - 1) * 100 if a else float('inf'):+.4g}%)"]
    return [] if a == b else [f"{path}: {a!r} → {b!r}"]


def flat_tables(data: dict) -> dict:
    """The tables by case alone (the sets were named differently before the runs became data)."""
    return {**data, "tables": {case: row for rows in data["tables"].values() for case, row in rows.items()}}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--compare"]:
        before, after = (flat_tables(json.loads(Path(p).read_text())) for p in sys.argv[2:4])
        diffs = differences(before, after)
        print("\n".join(diffs) or "identical")
        print(f"{len(diffs)} differences", file=sys.stderr)
    else:
        Path(sys.argv[1]).write_text(json.dumps(snapshot("--no-page" not in sys.argv), indent=1, default=str))
