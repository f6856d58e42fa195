"""Plan against a measured run (engine.plan.against_trace, engine.plan.kernel.measured): a synthetic trace whose
matrix products run at known shares of the H100's dense BF16 peak and whose element-wise work runs at a known
share of its bandwidth — the calibrated kernel model's times equal the formulas written here; the measured parts
equal the trace's own timeline, summed here from the events written."""
from __future__ import annotations

import json
import math

import pytest

from engine.measure.measurement import measure_trace
from engine.plan.against_trace import ChipMismatch, plan_vs_trace, plan_with_trace
from engine.plan.kernel.calibration import (
    DEFAULT_CALIBRATION,
    KernelCalibration,
    MeasuredGemm,
)
from engine.plan.kernel.chip import kernel_chip
from engine.plan.kernel.gemm import gemm_s, memory_s
from engine.plan.kernel.measured import trace_calibration
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.run_plan import PlanSettings
from tests.plan import synthetic_model
from tools.synthetic_trace import TraceBuilder

PEAK, BW, SMS = 989.4e12, 3.35e12, 132
"""H100 SXM: dense BF16 tensor peak, HBM bandwidth (hardware_db.json), multiprocessors."""
BF = "c10::BFloat16"
SHAPES = [((8192, 8192, 8192), 0.60, 2), ((4096, 1024, 4096), 0.50, 3), ((8192, 8192, 64), 0.20, 4)]
"""(M, N, K), share of peak, calls per step. The last is memory-bound in the model at any η (2·M·N·K/P below its
bytes ÷ bandwidth): it keeps its measured rate but says nothing of η_max. Every kernel lasts over 40 µs: the
builder's 1 ns rounding stays under 2e-5 of it (``REL``)."""
REL = 2e-5
ADD = (4096, 4096)
ADD_BW_SHARE = 0.7


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 3)


def synthetic(device: str = "NVIDIA H100 80GB HBM3", steps: int = 2) -> tuple[TraceBuilder, dict]:
    """Training-like steps: each product and add as an operator launching one kernel; returns the builder and the
    GPU figures per step summed from the events as written (kernel busy time, step span)."""
    b = TraceBuilder(device, t0=1000.0)  # a small clock: µs durations exact to float64
    for n in range(1, steps + 1):
        cpu0, gpu0 = b.cpu, max(b.gpu, b.cpu)
        for (m, nn, k), share, calls in SHAPES:
            for _ in range(calls):
                op = b.op("aten::mm", 10, ((m, k), (k, nn)), (BF, BF))
                b.launch("sm90_xmma_gemm_bf16bf16_bf16f32", _us(2 * m * nn * k / (PEAK * share)))
                op["dur"] = round(b.cpu - op["ts"], 3)
        nbytes = 3 * ADD[0] * ADD[1] * 2  # two inputs read, the output written (the table's rule for an add)
        op = b.op("aten::add", 10, (ADD, ADD), (BF, BF))
        b.launch("vectorized_elementwise_kernel<add>", _us(nbytes / (BW * ADD_BW_SHARE)))
        op["dur"] = round(b.cpu - op["ts"], 3)
        b.cpu = max(b.cpu, b.gpu) + 50
        b.step_marks(n, cpu0, b.cpu, gpu0 - 1, b.gpu + 1)
    kernels = [e for e in b.events if e["cat"] == "kernel"]
    marks = [e for e in b.events if e["cat"] == "gpu_user_annotation"]
    per_step = []
    for mark in marks:
        inside = sorted((e["ts"], e["ts"] + e["dur"]) for e in kernels
                        if mark["ts"] <= e["ts"] < mark["ts"] + mark["dur"])
        busy, reach = 0.0, -math.inf
        for s, e in inside:  # the union of the kernels' intervals
            busy += max(0.0, e - max(s, reach))
            reach = max(reach, e)
        per_step.append({"busy_us": busy, "total_us": inside[-1][1] - inside[0][0]})
    return b, {"busy_s": sum(s["busy_us"] for s in per_step) / len(per_step) / 1e6,
               "total_s": sum(s["total_us"] for s in per_step) / len(per_step) / 1e6,
               "totals_s": [s["total_us"] / 1e6 for s in per_step]}


def _bytes(builder: TraceBuilder) -> bytes:
    return json.dumps(builder.document()).encode()


@pytest.fixture(scope="module")
def measured():
    b, figures = synthetic()
    return measure_trace(_bytes(b)), figures


RATE = 0.803 / 0.869
"""The H100 SXM's maximum achievable BF16 matmul share ÷ the A100's (Stas Bekman's MAMF table: 794.5 of 989 and
271.2 of 312 TFLOP/s, to three places as hardware_db.json holds them): the share of η_max (fitted on A100s) an
H100's GEMMs reach."""


def _w(m: int, n: int, batch: int = 1) -> float:
    """Wave quantization on the H100 (NVIDIA's GEMM guide): 256×128 output tiles over 132 SMs, at the H100's rate."""
    tiles = math.ceil(m / 256) * math.ceil(n / 128) * batch
    return RATE * tiles / (math.ceil(tiles / SMS) * SMS)


def test_the_measured_shapes_keep_their_rate(measured):
    m, _ = measured
    chip = kernel_chip("nvidia-h100-sxm", "bf16")
    cal = trace_calibration(m.calibration, chip, chip, "synthetic").calibration
    for (mm, n, k), share, _ in SHAPES:
        expected = 2 * mm * n * k / (PEAK * share)
        assert gemm_s(chip, cal, mm, n, k) == pytest.approx(expected, rel=REL)
        assert gemm_s(chip, cal, n, mm, k) == pytest.approx(expected, rel=REL)  # Cᵀ = Bᵀ·Aᵀ: the same work
    # another format's peak (FP8 on the same chip) does not take a BF16 measurement
    fp8 = kernel_chip("nvidia-h100-sxm", "fp8")
    assert cal.measured_rate(8192, 8192, 8192, 1, fp8.peak) is None


def test_eta_max_is_fitted_on_the_compute_bound_shapes(measured):
    m, _ = measured
    chip = kernel_chip("nvidia-h100-sxm", "bf16")
    result = trace_calibration(m.calibration, chip, chip, "synthetic")
    compute_bound = [(s, share, calls) for s, share, calls in SHAPES[:2]]
    model = sum(calls * 2 * a * b * c / (PEAK * _w(a, b)) for (a, b, c), _, calls in compute_bound)
    measured_s = sum(calls * 2 * a * b * c / (PEAK * share) for (a, b, c), share, calls in compute_bound)
    eta = model / measured_s
    assert result.fitted == 2 and result.shapes == 3
    assert result.gemm_efficiency == pytest.approx(eta, rel=REL)
    # a shape the trace did not measure: the model's formula at the fitted η_max
    a, b, c = 3000, 5000, 4096
    assert gemm_s(chip, result.calibration, a, b, c) == pytest.approx(2 * a * b * c / (PEAK * eta * _w(a, b)),
                                                                      rel=REL)


def test_memory_bound_work_runs_at_the_measured_share_of_the_bandwidth(measured):
    m, _ = measured
    chip = kernel_chip("nvidia-h100-sxm", "bf16")
    result = trace_calibration(m.calibration, chip, chip, "synthetic")
    # the memory-bound operators (FLOP per byte under the ridge, peak ÷ bandwidth ≈ 295): the add, and the
    # K = 64 product (8.6e9 FLOP over its operands' 136 MB); their bytes ÷ their kernel time ÷ the bandwidth
    (a, b, c), share, calls = SHAPES[2]
    assert 2 * a * b * c / (2 * (a * c + c * b + a * b)) < PEAK / BW
    add_bytes, add_s = 3 * ADD[0] * ADD[1] * 2, 3 * ADD[0] * ADD[1] * 2 / (BW * ADD_BW_SHARE)
    mm_bytes, mm_s = 2 * (a * c + c * b + a * b), 2 * a * b * c / (PEAK * share)
    eta_mem = (add_bytes + calls * mm_bytes) / (add_s + calls * mm_s) / BW
    assert result.memory_bandwidth_fraction == pytest.approx(eta_mem, rel=REL)
    assert memory_s(chip, result.calibration, 1e9) == pytest.approx(1e9 / (BW * eta_mem), rel=REL)
    # what a trace cannot calibrate stays FLOPscope's default
    assert result.calibration.network_efficiency == DEFAULT_CALIBRATION.network_efficiency
    assert any("bubble" in k for k in result.kept_default)


def test_a_measured_shape_only_at_its_own_peak():
    cal = KernelCalibration(gemm_shapes=(MeasuredGemm(m=4, n=8, k=16, flop_per_s=1e12, peak_flop_per_s=PEAK),))
    assert cal.measured_rate(8, 4, 16, 1, PEAK) == 1e12
    assert cal.measured_rate(8, 4, 16, 2, PEAK) is None and cal.measured_rate(8, 4, 32, 1, PEAK) is None
    assert cal.measured_rate(8, 4, 16, 1, PEAK * 1.01) is None
    assert DEFAULT_CALIBRATION.measured_rate(8, 4, 16, 1, PEAK) is None


MODEL = synthetic_model(blocks=4, h=512, heads=8, s=1024, f=2048, vocab=8192, dense_params=1.6e7,
                        forward_flop=2 * 1.6e7 * 1024)


def test_planned_beside_measured_part_by_part(measured):
    m, figures = measured
    layout = Layout(dp=1, tp=1, pp=1, micro_batch=4, global_batch=4)
    comparison = plan_with_trace(MODEL, layout, MemoryOptions(), PlanSettings(chip="nvidia-h100-sxm"), m)
    v = comparison.versus
    parts = {r.part: r for r in v.parts}
    # measured: the GPU figures summed from the events written (one stream: busy = computation, no comm)
    assert parts["step"].measured_s == pytest.approx(figures["total_s"], rel=1e-9)
    assert parts["computation"].measured_s == pytest.approx(figures["busy_s"], rel=1e-9)
    assert parts["pipeline bubble + idle"].measured_s == pytest.approx(figures["total_s"] - figures["busy_s"],
                                                                       rel=1e-9)
    assert parts["exposed communication"].measured_s == 0
    # planned: the plan's own step
    step = comparison.plan.step
    assert parts["step"].planned_s == step.step_s and parts["computation"].planned_s == step.compute_s
    assert v.gap_s == pytest.approx(figures["total_s"] - step.step_s)
    assert "%" in v.gap and "largest difference" in v.gap
    # the FLOP check: the trace's products' FLOP per step ÷ the plan's hardware FLOP per chip
    flop = sum(calls * 2 * a * b * c for (a, b, c), _, calls in SHAPES)
    assert v.flop_ratio == pytest.approx(flop / step.hardware_flop_per_step, rel=1e-9)
    assert any("this plan's run" in a for a in v.assumed)
    # plan with this run's efficiency: the calibration is the trace's, the step re-timed
    assert comparison.calibrated is not None
    assert comparison.calibration.calibration.source.startswith("measured on trace")
    assert comparison.calibrated.step.step_s != step.step_s
    as_json = comparison.as_dict()
    assert as_json["calibrated"]["step_s"] == comparison.calibrated.step.step_s
    assert next(p["part"] for p in as_json["parts"]) == "computation"


def test_the_calibrated_plan_carries_this_runs_own_range(measured):
    """Calibrated by the trace, the step's 90% range comes from the run itself: from the calibrated step t to the mean
    measured step m̄, widened on each side by the profiled steps' spread (max − min) ÷ m̄ — not the published runs'."""
    m, figures = measured
    layout = Layout(dp=1, tp=1, pp=1, micro_batch=4, global_batch=4)
    comparison = plan_with_trace(MODEL, layout, MemoryOptions(), PlanSettings(chip="nvidia-h100-sxm"), m)
    t, mean, totals = comparison.calibrated.step.step_s, figures["total_s"], figures["totals_s"]
    spread = (max(totals) - min(totals)) / mean
    span = comparison.calibrated.interval
    assert span.low_s == pytest.approx(min(t, mean) - spread * t, rel=1e-6)
    assert span.high_s == pytest.approx(max(t, mean) + spread * t, rel=1e-6)
    assert span.basis.startswith("measured on trace") and comparison.plan.interval.runs > 0
    assert comparison.as_dict()["calibrated"]["step_s_90"] == [span.low_s, span.high_s]
    # the rule on its own: calibrated 1.0 s, steps of 1.1 and 1.3 s → m̄ 1.2, gap +0.2, spread 0.2 ÷ 1.2
    from engine.plan.against_trace import trace_error_range
    assert trace_error_range(1.0, [1.1, 1.3]) == pytest.approx((-0.2 / 1.2, 0.2 + 0.2 / 1.2))


def test_a_trace_of_another_chip_is_refused_with_the_chip_to_plan_on():
    b, _ = synthetic("NVIDIA A100-SXM4-80GB", steps=1)
    m = measure_trace(_bytes(b))
    layout = Layout(dp=1, tp=1, pp=1, micro_batch=4, global_batch=4)
    with pytest.raises(ChipMismatch) as err:
        plan_with_trace(MODEL, layout, MemoryOptions(), PlanSettings(chip="nvidia-h100-sxm"), m)
    assert err.value.trace_chip == m.chip and m.chip.startswith("nvidia-a100")
    assert "\n" not in str(err.value) and "H100" in str(err.value)
    # planned on the trace's chip instead, it compares
    ok = plan_with_trace(MODEL, layout, MemoryOptions(), PlanSettings(chip=m.chip), m)
    assert ok.versus.chip == m.chip


def test_an_unknown_device_is_assumed_to_be_the_plans_chip():
    b, _ = synthetic("Some Future GPU", steps=1)
    m = measure_trace(_bytes(b), chip=None)
    from engine.plan.run_plan import plan_run
    layout = Layout(dp=1, tp=1, pp=1, micro_batch=4, global_batch=4)
    plan = plan_run(MODEL, layout, MemoryOptions(), PlanSettings(chip="nvidia-h100-sxm"))
    v = plan_vs_trace(plan, m)
    assert any("Some Future GPU" in a and "assumed" in a for a in v.assumed)
