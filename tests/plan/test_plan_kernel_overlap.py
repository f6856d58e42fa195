"""What the kernel model exposes of a collective that a framework overlaps: AsyncTP's gathers and scatters, each
under the one product it is decomposed with, and FSDP's gathers under a pipeline (once per step, not per
micro-batch); and the torchtitan pipeline runs laid out as torchtitan's defaults split them."""
from __future__ import annotations

import pytest

from engine.plan.kernel.calibration import DEFAULT_CALIBRATION
from engine.plan.kernel.chip import kernel_chip
from engine.plan.kernel.comm import tp_overlap_exposed_s, zero3_exposed_s
from engine.plan.kernel.gemm import gemm_s
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.published import published_runs
from tests.plan import kernel, synthetic_model

BYTES, ETA_NETWORK, NVLINK = 2, 0.75, 450e9
H100 = kernel_chip("nvidia-h100-sxm")


def test_asynctp_hides_a_collective_under_all_but_one_chunk_of_its_product():
    # decomposed into t = 4 chunks: the local chunk's product (g/4) runs before any transfer is needed, the other
    # three transfers under the other three chunks (3g/4): exposed max(0, c − 3g/4)
    assert tp_overlap_exposed_s(1.0, 1.0, 4) == pytest.approx(0.25)
    assert tp_overlap_exposed_s(1.0, 2.0, 4) == 0.0
    assert tp_overlap_exposed_s(1.0, 0.0, 8) == 1.0  # no product to hide under
    assert tp_overlap_exposed_s(1.0, 5.0, 1) == 0.0  # no tensor parallelism, no collective


def test_asynctp_pairs_each_gather_and_scatter_with_its_own_product():
    """A dense block at t = 4 with sequence parallelism: per branch, forward the gather before the first product
    (QKV, FC1) and the scatter after the second (projection, FC2), backward the same two pairs and one more gather
    for the first product's weight gradient, full recomputation's forward pair again: 3 + 3 + 1 collectives with
    the first product, 3 with the second; each collective half an all-reduce of b·s·h·2 bytes over NVLink."""
    s, h, heads, f, t = 8192, 4096, 32, 14336, 4
    model = synthetic_model(blocks=2, h=h, heads=heads, s=s, f=f, gated=True)
    layout = Layout(tp=t, global_batch=1, sequence_parallel=True)
    options = MemoryOptions(recompute="full", tp_overlap=True)
    half = (2 * (t - 1) / t * s * h * BYTES / (NVLINK * ETA_NETWORK)) / 2
    qkv = gemm_s(H100, DEFAULT_CALIBRATION, s, 3 * h // t, h)
    proj = gemm_s(H100, DEFAULT_CALIBRATION, s, h, h // t)
    fc1 = gemm_s(H100, DEFAULT_CALIBRATION, s, 2 * f // t, h)
    fc2 = gemm_s(H100, DEFAULT_CALIBRATION, s, h, f // t)

    def exposed(g):
        return max(0.0, half - g * (t - 1) / t)

    per_block = 4 * exposed(qkv) + 3 * exposed(proj) + 4 * exposed(fc1) + 3 * exposed(fc2)
    step = kernel(model, layout, options)
    assert step.tp_comm_s == pytest.approx(2 * per_block, rel=1e-9)
    # the attention's small products leave part of their collectives exposed; without the overlap all 7 of each
    # branch's halves are: 2 blocks × 2 branches × 3.5 all-reduces
    assert 0 < step.tp_comm_s < kernel(model, layout, options.model_copy(update={"tp_overlap": False})).tp_comm_s
    assert kernel(model, layout, options.model_copy(update={"tp_overlap": False})).tp_comm_s == pytest.approx(
        2 * 2 * 3.5 * 2 * half, rel=1e-9)


def test_fsdp_under_a_pipeline_gathers_once_a_step():
    """torchtitan keeps a pipeline stage's gathered weights over its micro-batches (reshard_after_forward = not
    pp_enabled) and PyTorch's pipeline stage reduce-scatters the gradients after the last backward only: one
    ZeRO 3 exposure a step — the formula of zero3_exposed_s with no gather in the backward — where plain ZeRO 3
    pays it every micro-batch. Over a 1 MB/s link nothing hides: gather G + scatter S (FP32: 2G) + (G + S)/L."""
    from engine.plan.interconnects import Interconnect

    slow = Interconnect(chips_per_node=8, intra_gb_s=1e-3, inter_gb_s=50)
    model = synthetic_model(blocks=4, h=1024, heads=8, s=2048, f=4096, dense_params=1e7)
    layout = Layout(dp=4, pp=2, global_batch=16)  # 4 micro-batches of 1
    options = MemoryOptions(zero=3, convention="torchtitan")
    gather = (4 - 1) / 4 * 1e7 / 2 * BYTES / (1e6 * ETA_NETWORK)  # the stage's half of the parameters
    scatter = 2 * gather  # FP32 gradients
    step = kernel(model, layout, options, link=slow)
    assert step.dp_comm_s == pytest.approx(zero3_exposed_s(gather, scatter, 0.0, 0.0, 2, False), rel=1e-3)
    assert step.dp_comm_s == pytest.approx(gather + scatter + (gather + scatter) / 2, rel=1e-3)
    # the same layout without the pipeline's hold (DeepSpeed's ZeRO 3): every micro-batch pays it
    per_micro = kernel(model, layout, options, link=slow, pipeline_holds_weights=False)
    assert per_micro.dp_comm_s > 3 * step.dp_comm_s


def test_torchtitans_pipeline_runs_split_the_local_batch_into_pp_micro_batches():
    # torchtitan 9dec370 (the commit docs/performance.md's Table 5 names): pipeline_parallel_microbatches defaults to
    # the pipeline degree, so the local batch of 32 runs as 8 micro-batches of 4
    runs = [r for r in published_runs().runs if r.id.startswith("torchtitan-llama-3-1-405b-512-h100-fsdp-8-tp-8-pp-8")]
    assert len(runs) == 2
    for r in runs:
        local = r.layout.global_batch // r.layout.dp
        assert local == 32 and r.layout.micro_batch == local // r.layout.pp == 4
        assert "layout.micro_batch" in r.assumed


def test_torchao_dynamic_scaling_reads_each_operand_for_its_amax_and_casts_weights_every_forward():
    """torchtitan's Float8 (torchao, dynamic tensor-wise scaling) against Transformer Engine's delayed scaling on one
    H100: each cast reads its 16-bit operand once more for the amax (2 + 2 + 2q = 6 bytes an element with q = 1,
    where delayed scaling's cast-transpose is 2 + 2q = 4, and 2q − (2 − q) = 1 for an input the norm writes in FP8),
    and each forward casts the block's weights (6 bytes an element) where Transformer Engine casts them once a
    step; all at 85% of 3.35 TB/s."""
    from engine.plan.frameworks import framework

    h, f, s = 1024, 4096, 2048
    model = synthetic_model(blocks=2, h=h, heads=8, s=s, f=f)
    layout = Layout(global_batch=1)
    options = MemoryOptions(precision="fp8", convention="torchtitan", recompute="none")
    forward = s * (h * (6 - 1) + h * (6 - 4) + h * (6 - 1) + f * (6 - 4)) + 6 * (3 * h * h + h * h + 2 * f * h)
    backward = s * (3 * h + h + f + h) * (6 - 4)
    dynamic = kernel(model, layout, options)
    delayed = kernel(model, layout, options, dynamic_scaling=False)
    assert dynamic.memory_bound_s - delayed.memory_bound_s == pytest.approx(
        2 * (forward + backward) / (0.85 * 3350e9), rel=1e-9)
    assert framework("torchtitan").float8_scaling == "dynamic" and framework("megatron").float8_scaling == "delayed"
