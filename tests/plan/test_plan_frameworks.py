"""Frameworks as named conventions (engine/plan/frameworks.py): the registry, what each framework runs and
overlaps in the kernel model, fused attention by default, the pipeline splits the frameworks make and the layout
checks they impose — no stricter than the framework's own."""
from __future__ import annotations

import pytest

from engine.errors import InputError, parse_input
from engine.plan.frameworks import (
    CONVENTIONS,
    CUDNN_FUSED,
    FLASH_ATTENTION_2,
    FRAMEWORKS,
    Framework,
    framework,
    register,
)
from engine.plan.kernel.calibration import DEFAULT_CALIBRATION, KernelCalibration
from engine.plan.kernel.chip import kernel_chip
from engine.plan.kernel.frameworks import behaviour
from engine.plan.kernel.gemm import fused_attention_s
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.memory import memory_per_chip
from tests.plan import kernel, synthetic_model

H100 = kernel_chip("nvidia-h100-sxm")


def test_the_registry_refuses_a_second_framework_of_the_same_id():
    assert set(CONVENTIONS) == set(FRAMEWORKS) == {"deepspeed", "megatron", "megatron-2021", "fsdp", "torchtitan",
                                                   "composer"}
    with pytest.raises(ValueError, match="'megatron' is registered twice"):
        register(Framework("megatron", "again", "megatron", (0,), "always", True, 2, CUDNN_FUSED, eager=False))
    assert framework("megatron").label.startswith("Megatron-LM / NeMo")
    # the MemoryOptions field takes exactly the registered ids
    with pytest.raises(InputError, match="^convention"):
        parse_input(MemoryOptions, {"convention": "horovod"})


def test_each_framework_keeps_its_states_and_overlaps_as_documented():
    # Megatron Core: --overlap-grad-reduce, interleaved sends overlapped, BF16 reduction, Transformer Engine fused
    m = behaviour(MemoryOptions(convention="megatron"), "nvidia-h100-sxm", "hopper", False, True, 4,
                  DEFAULT_CALIBRATION)
    assert (m.overlap_dp, m.overlap_pp, m.reduce_bytes, m.elementwise_traffic, m.fused_attention) == (
        True, True, 2, 1.0, True)
    assert m.attention_rate == 0.46  # cuDNN's fused attention on Hopper (FLOPscope's H200 measurement)
    # Megatron-LM 2021–22: nothing overlapped
    old = behaviour(MemoryOptions(convention="megatron-2021"), "nvidia-a100-sxm4-80gb", "ampere", False, False, 8,
                    DEFAULT_CALIBRATION)
    assert (old.overlap_dp, old.overlap_pp) == (False, False)
    # DeepSpeed: overlap_comm only at ZeRO 3; no interleaving overlap
    assert not behaviour(MemoryOptions(zero=1), "nvidia-h100-sxm", "hopper", False, False, 1,
                         DEFAULT_CALIBRATION).overlap_dp
    zero3 = behaviour(MemoryOptions(zero=3), "nvidia-h100-sxm", "hopper", False, False, 1, DEFAULT_CALIBRATION)
    assert zero3.overlap_dp
    # torchtitan: FP32 gradient reduction (4 bytes), eager element-wise work at its calibration's traffic unless
    # compiled; SHARD_GRAD_OP keeps the forward's gathered weights for the backward
    cal = framework("torchtitan").calibration
    eager = behaviour(MemoryOptions(convention="torchtitan", zero=3), "nvidia-h100-sxm", "hopper", False, False, 1, cal)
    compiled = behaviour(MemoryOptions(convention="torchtitan", zero=3, compiled=True), "nvidia-h100-sxm", "hopper",
                         False, False, 1, cal)
    zero2 = behaviour(MemoryOptions(convention="torchtitan", zero=2), "nvidia-h100-sxm", "hopper", False, False, 1,
                      cal)
    assert (eager.reduce_bytes, eager.elementwise_traffic, compiled.elementwise_traffic) == (4, 5.0, 1.0)
    assert eager.gather_in_backward and not zero2.gather_in_backward
    # FlashAttention-2: 35% of the H100's peak (Shah et al. 2024), 60% of the A100's (Dao 2023: 50–73%)
    assert eager.attention_rate == FLASH_ATTENTION_2.rate["hopper"] == 0.35
    assert FLASH_ATTENTION_2.rate["ampere"] == 0.60
    # a calibration scales the published rate on every chip alike (Composer's fitted 0.7 of FlashAttention-2's)
    comp = behaviour(MemoryOptions(convention="composer"), "nvidia-a100-sxm4-80gb", "ampere", False, False, 1,
                     framework("composer").calibration)
    assert comp.attention_rate == pytest.approx(0.7 * 0.60)
    # the scores stored: an explicit choice
    assert not behaviour(MemoryOptions(attention="stored"), "nvidia-h100-sxm", "hopper", False, False, 1,
                         DEFAULT_CALIBRATION).fused_attention


def test_fused_attention_time_by_formula():
    """q = keys = 4,096, head size 128, 32 heads: 4·q·keys·d·heads FLOP forward (QKᵀ and AV), half of it under a
    causal mask, 2.5× that backward, at the kernel's rate × the 16-bit peak (989.4 TFLOP/s on the H100)."""
    flop = 4 * 4096 * 4096 * 128 * 32
    fwd, bwd = fused_attention_s(H100, DEFAULT_CALIBRATION, 4096, 4096, 128, 32, 0.35)
    assert fwd == pytest.approx(flop / 2 / (989.4e12 * 0.35))
    assert bwd == pytest.approx(2.5 * flop / 2 / (989.4e12 * 0.35))
    full, _ = fused_attention_s(H100, DEFAULT_CALIBRATION, 4096, 4096, 128, 32, 0.35, causal=False)
    assert full == pytest.approx(2 * fwd)


def test_eager_element_wise_work_moves_the_calibrations_traffic():
    """Two dense blocks (h 1,024, f 4,096, s 2,048, one sequence, no vocabulary) on one H100: the element-wise
    bytes per block and micro-batch are 22·s·h (norms, residuals) + 4·s·f (the activation; 6·s·f gated: gate and
    up read, one written), forward once and backward twice; eager PyTorch moves them ``elementwise_traffic``
    times: 5 − 1 = 4 times more than fused."""
    model = synthetic_model(blocks=2, h=1024, heads=8, s=2048, f=4096, dense_params=1e7)
    layout = Layout(global_batch=1)
    options = MemoryOptions(convention="torchtitan")
    eager = kernel(model, layout, options)
    compiled = kernel(model, layout, options.model_copy(update={"compiled": True}))
    elements = 22 * 2048 * 1024 + 4 * 2048 * 4096
    expected = 4 * 3 * elements * 2 / (0.85 * 3350e9)
    assert eager.memory_bound_s - compiled.memory_bound_s == pytest.approx(expected, rel=1e-9)
    gated = synthetic_model(blocks=2, h=1024, heads=8, s=2048, f=4096, dense_params=1e7, gated=True)
    swiglu = (22 * 2048 * 1024 + 6 * 2048 * 4096) * 4 * 3 * 2 / (0.85 * 3350e9)
    assert (kernel(gated, layout, options).memory_bound_s
            - kernel(gated, layout, options.model_copy(update={"compiled": True})).memory_bound_s
            == pytest.approx(swiglu, rel=1e-9))
    # torchtitan's block overhead (fitted on its 2024-04-18 A100 runs): 1.2 ms per block and micro-batch
    assert eager.overhead_s == pytest.approx(2 * 0.0012)


def test_fused_attention_keeps_no_scores_in_memory_and_stored_does():
    """Korthikanti et al. 2022, eq. 1: without recomputation a block keeps s·b·h·(34 + 5·a·s/h) bytes; 5·a·s²·b
    of them are the scores, softmax output and dropout mask, which a fused kernel does not keep."""
    model = synthetic_model(blocks=1, h=4096, heads=32, s=4096, f=16384)
    stored = memory_per_chip(model, Layout(), MemoryOptions(attention="stored"))
    fused = memory_per_chip(model, Layout(), MemoryOptions())
    assert stored.activations - fused.activations == pytest.approx(5 * 32 * 4096 ** 2)


LLAMA_405B = synthetic_model(blocks=126, h=16384, heads=128, kv_heads=8, s=8192, f=53248, dense_params=4e11,
                             gated=True)


def test_uneven_pipeline_splits():
    # Megatron-LM's --decoder-first/last-pipeline-num-layers: Llama 3 405B on 16 stages, one block fewer on the
    # first and the last (Llama 3 paper §3.3.2): 7 + 14 × 8 + 7 = 126
    meta = Layout(pp=16, first_stage_blocks=7, last_stage_blocks=7)
    meta.check_model(LLAMA_405B)
    assert [sum(r) for r in meta.stage_blocks(126)] == [7] + [8] * 14 + [7]
    # the embedding, and the head, on a stage of its own: 0 blocks there, 126 over the 7 middle ranks × v 2 = 9
    own = Layout(pp=9, virtual_stages=2, first_stage_blocks=0, last_stage_blocks=0)
    own.check_model(LLAMA_405B)
    assert own.stage_blocks(126) == ((0, 0),) + ((9, 9),) * 7 + ((0, 0),)
    # torchtitan: blocks + embedding + output = 128 over 16 stages = 8, less one on the first and the last
    assert [sum(r) for r in Layout(pp=16, pipeline_split="torchtitan").stage_blocks(126)] == [7] + [8] * 14 + [7]
    # and over 5 stages: 128 = 26 × 5 + … → 26, 26, 26, 25, 25, less the embedding and the output
    assert [sum(r) for r in Layout(pp=5, pipeline_split="torchtitan").stage_blocks(126)] == [25, 26, 26, 25, 24]
    # DeepSpeed's partition_uniform: 126 over 16 → the first 14 stages 8, the last two 7
    assert [sum(r) for r in Layout(pp=16, pipeline_split="balanced").stage_blocks(126)] == [8] * 14 + [7] * 2


@pytest.mark.parametrize("layout,field,reason", [
    (dict(pp=16), "pp", "does not divide the 126 transformer blocks"),
    (dict(pp=16, first_stage_blocks=8), "first_stage_blocks", "the other 118 transformer blocks do not split evenly"),
    (dict(pp=8, virtual_stages=2, first_stage_blocks=7), "first_stage_blocks", "do not split into the 2 virtual"),
    (dict(pp=1, first_stage_blocks=7), "first_stage_blocks", "needs a pipeline"),
    (dict(pp=16, first_stage_blocks=7, last_stage_blocks=7, pipeline_split="balanced"), "first_stage_blocks",
     "not of the balanced split"),
    (dict(pp=200, pipeline_split="balanced"), "pp", "more than the 126"),
])
def test_megatrons_checks_are_its_own(layout, field, reason):
    with pytest.raises(InputError, match=f"^{field}: .*{reason}"):
        Layout(**layout).check_model(LLAMA_405B)


def test_the_frameworks_split_is_the_default_and_no_stricter_than_it():
    from engine.api import plan_layout

    config = {"model_type": "llama", "num_hidden_layers": 30, "hidden_size": 1024, "num_attention_heads": 8,
              "intermediate_size": 4096, "vocab_size": 32000, "max_position_embeddings": 2048}
    layout = {"pp": 4, "dp": 2, "global_batch": 16}
    # 30 blocks over 4 stages: Megatron refuses an even split; DeepSpeed and torchtitan split them their way
    with pytest.raises(InputError, match="^pp: pp × virtual stages = 4 does not divide the 30"):
        plan_layout(config, layout, options={"convention": "megatron"})
    ds = plan_layout(config, layout, options={"convention": "deepspeed"})
    tt = plan_layout(config, layout, options={"convention": "torchtitan", "zero": 3})
    assert (ds.layout.pipeline_split, tt.layout.pipeline_split) == ("balanced", "torchtitan")
    assert ds.step is not None and tt.step is not None
    # plain FSDP and Composer have no pipeline
    for name in ("fsdp", "composer"):
        with pytest.raises(InputError, match="^pp: .* has no pipeline parallelism"):
            plan_layout(config, layout, options={"convention": name})


def test_memory_takes_the_fullest_pipeline_rank():
    """1F1B: rank r holds min(m, p − r) micro-batches of its blocks. With the embedding alone on rank 0 the peak is
    rank 1's: 3 of 4 micro-batches in flight × its blocks."""
    model = synthetic_model(blocks=6, h=1024, heads=8, s=2048, f=4096)
    per_block = 2048 * 1024 * 34  # fused attention: 34·s·b·h bytes per block, b = 1
    own = memory_per_chip(model, Layout(pp=4, first_stage_blocks=0, last_stage_blocks=0, global_batch=8),
                          MemoryOptions())
    assert own.activations == pytest.approx(3 * 3 * per_block)  # rank 1: 3 blocks × 3 in flight
    even = memory_per_chip(model, Layout(pp=2, global_batch=8), MemoryOptions())
    assert even.activations == pytest.approx(2 * 3 * per_block)  # rank 0: 3 blocks × 2 in flight


def test_a_calibration_is_one_input_for_every_efficiency():
    cal = KernelCalibration(attention_rate_scale=0.5, elementwise_traffic=3, block_overhead_s=1e-3,
                            source="a measured trace")
    model = synthetic_model(blocks=2, h=1024, heads=8, s=2048, f=4096, dense_params=1e7)
    base = kernel(model, Layout(global_batch=2), MemoryOptions(convention="torchtitan"), cal=DEFAULT_CALIBRATION)
    traced = kernel(model, Layout(global_batch=2), MemoryOptions(convention="torchtitan"), cal=cal)
    assert traced.overhead_s == pytest.approx(2 * 2 * 1e-3)
    assert traced.step_s > base.step_s
    with pytest.raises(InputError, match="attention_rate_scale"):
        parse_input(KernelCalibration, {"attention_rate_scale": 0})


def test_layout_searches_keep_to_what_the_framework_and_the_heads_allow():
    """The sweep and the fewest-chips search offer no pipeline to a framework without one, and no t that neither
    divides nor is a multiple of the key/value heads (96 heads, 8 key/value heads: t = 3 or 6 is refused)."""
    from engine.plan.memory import fewest_chips
    from engine.plan.run_plan import PlanSettings, sweep_layouts

    model = synthetic_model(blocks=8, h=6144, heads=96, kv_heads=8, s=2048, f=24576, dense_params=4e9)
    fsdp = MemoryOptions(convention="fsdp", zero=3)
    rows = sweep_layouts(model, 16, 64, fsdp, PlanSettings(chip="nvidia-h100-sxm"))
    assert rows and {r.layout.pp for r in rows} == {1} and {r.layout.tp for r in rows} <= {1, 2, 4, 8}
    deepspeed = sweep_layouts(model, 16, 64, MemoryOptions(), PlanSettings(chip="nvidia-h100-sxm"))
    assert max(r.layout.pp for r in deepspeed) > 1
    best = fewest_chips(model, fsdp, 80e9)
    assert best is not None and best.layout.pp == 1 and best.layout.tp in (1, 2, 4, 8)
