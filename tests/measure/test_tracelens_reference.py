"""Against TraceLens's own reports (../shared/data/traces/tracelens/*/*_perf_report_csvs, written by TraceLens from
the trace beside them): the profiled step's split equals gpu_timeline.csv to 1e-6 relative; every row of
GEMM.csv, SDPA_fwd.csv and CONV_fwd.csv has its FLOP exactly, its calls, and its summed kernel time within 0.1%.

TraceLens's FLOP conventions, written here from its source (TraceLens/PerfModel/perf_model.py): a GEMM with a
bias (addmm, baddbmm) adds M·N for the bias (``GEMM.flops_func``); causal attention halves the two products
(``SDPA.flops_func``); convolutions count no bias (``aten_conv``: bias only when there are 3 inputs). Ours is
FlopCounterMode's (no bias adds, causal counted whole), with the bias adds and the causal half as fields.
"""
from __future__ import annotations

import ast
import csv

import pytest

from engine.measure.measurement import measure_trace

TRACES = ("h100/Falconsai_nsfw_image_detection__1016002", "h100/Qwen_Qwen1.5-0.5B-Chat__1016005",
          "h100/gaunernst_bert-small-uncased__1016001", "mi300/Falconsai_nsfw_image_detection__1016002",
          "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005", "mi300/gaunernst_bert-small-uncased__1016001")
TIMELINE = {"computation_time": "computation_ms", "exposed_comm_time": "exposed_comm_ms",
            "exposed_memcpy_time": "exposed_memcpy_ms", "busy_time": "busy_ms", "idle_time": "idle_ms",
            "total_time": "total_ms", "total_comm_time": "comm_ms", "total_memcpy_time": "memcpy_ms"}


@pytest.fixture(scope="module", params=TRACES)
def measured(request, traces_dir):
    base = traces_dir / "tracelens" / request.param
    return measure_trace(base.with_name(base.name + ".json.gz")), base.with_name(base.name + "_perf_report_csvs")


def test_step_split_equals_gpu_timeline(measured):
    m, reports = measured
    rows = {r["type"]: float(r["time ms"]) for r in csv.DictReader(open(reports / "gpu_timeline.csv"))}
    assert len(m.steps) == 1
    step = m.steps[0].as_dict()
    for theirs, ours in TIMELINE.items():
        assert step[ours] == pytest.approx(rows[theirs], rel=1e-6, abs=1e-9), theirs


@pytest.mark.parametrize("report", ["GEMM", "SDPA_fwd", "CONV_fwd"])
def test_operator_rows(measured, report):
    m, reports = measured
    path = reports / f"{report}.csv"
    if not path.exists():
        pytest.skip(f"TraceLens wrote no {report}.csv for this model")
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    assert rows
    for r in rows:
        dims = ast.literal_eval(r["Input Dims_first"])
        ours = [o for o in m.ops if o.name == r["name"] and o.input_dims == dims]
        assert len(ours) == 1, (r["name"], dims)
        o = ours[0]
        tracelens_flop = round(float(r["GFLOPS_first"]) * 1e9)
        bias = o.bias_flop_per_call if report == "GEMM" else 0
        assert o.flop_per_call + bias - o.masked_flop_per_call == tracelens_flop
        assert o.calls == int(r["name_count"])
        assert o.kernel_time_us == pytest.approx(float(r["Kernel Time (µs)_sum"]), rel=1e-3)
        if report != "CONV_fwd":  # TraceLens leaves a convolution's bias out of its bytes
            assert o.bytes == round(float(r["Data Moved (MB)_first"]) * 2**20)


def test_chip_and_hfu(measured):
    """The device's name finds the database chip; HFU = the step's FLOP ÷ (its time × the dense BF16 peak)."""
    m, _ = measured
    expected_chip = "nvidia-h100-sxm" if m.device == "NVIDIA H100 80GB HBM3" else "amd-instinct-mi300x"
    assert m.device in ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X VF")
    assert m.chip == expected_chip
    from engine.method2.hardware_db import load_hardware_db
    bf16 = load_hardware_db().chip(expected_chip).peaks.bf16_tensor
    step = m.steps[0]
    assert m.utilization.peak.startswith("bf16_tensor")
    assert m.hfu == pytest.approx(step.op_flop / (step.total_ms / 1e3 * bf16), rel=1e-6)
