"""Properties over random layouts: what must hold whatever the degrees."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.llm.config import read_hf_config
from engine.llm.presets import GPT3_175B_CONFIG
from engine.plan.interconnects import interconnect_for
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.memory import memory_per_chip
from engine.plan.model import plan_model
from engine.plan.step_time import step_time

MODEL = plan_model(read_hf_config(GPT3_175B_CONFIG).architecture(2048))  # 96 blocks, 96 heads
LINK = interconnect_for("nvidia-a100-sxm4-80gb")
DIVISORS_96 = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96]

layouts = st.builds(
    lambda t, p, d, b, m, v: Layout(dp=d, tp=t, pp=p, micro_batch=b, global_batch=d * b * m,
                                    virtual_stages=v if p > 1 and 96 % (p * v) == 0 else 1),
    st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from(DIVISORS_96), st.integers(1, 64), st.integers(1, 8),
    st.integers(1, 64), st.sampled_from([1, 2, 3]))
options = st.builds(MemoryOptions, optimizer=st.sampled_from(["adam", "adam-8bit", "sgd-momentum", "sgd"]),
                    precision=st.sampled_from(["bf16", "fp32"]), recompute=st.sampled_from(["none", "selective", "full"]))


@settings(max_examples=150, deadline=None)
@given(layouts, options)
def test_each_zero_stage_needs_no_more_memory(layout, opts):
    stages = range(4) if layout.pp == 1 else range(2)  # DeepSpeed's pipeline runs ZeRO 0–1 only, not interleaved
    layout = layout.model_copy(update={"virtual_stages": 1})
    states = [memory_per_chip(MODEL, layout, opts.model_copy(update={"zero": z})).model_states for z in stages]
    assert all(a >= b for a, b in zip(states, states[1:]))
    if layout.dp == 1:
        assert len(set(states)) == 1


@pytest.mark.parametrize("zero, v, field", [(2, 1, "zero"), (3, 1, "zero"), (1, 2, "virtual_stages")])
def test_deepspeeds_pipeline_runs_zero_0_or_1_and_does_not_interleave(zero, v, field):
    """DeepSpeed's PipelineEngine asserts "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism" and has no
    interleaved schedule: one line naming the field, as for a framework without a pipeline."""
    from engine.errors import InputError

    layout = Layout(dp=2, pp=4, micro_batch=1, global_batch=16, virtual_stages=v)
    with pytest.raises(InputError) as exc:
        memory_per_chip(MODEL, layout, MemoryOptions(zero=zero, convention="deepspeed"))
    assert exc.value.field == field
    assert memory_per_chip(MODEL, Layout(dp=2, pp=4, micro_batch=1, global_batch=16),
                           MemoryOptions(zero=1, convention="deepspeed")).total > 0


@settings(max_examples=150, deadline=None)
@given(layouts, options, st.floats(0.1, 1.0))
def test_mfu_is_at_most_the_kernel_efficiency_and_the_bubble_is_the_formula(layout, opts, k):
    st_ = step_time(MODEL, layout, opts, 312e12, LINK, kernel_efficiency=k)
    assert 0 < st_.mfu <= st_.hfu <= k * (1 + 1e-12)
    p, v, m = layout.pp, layout.virtual_stages, layout.micro_batches
    assert st_.bubble_fraction == pytest.approx((p - 1) / (v * m + p - 1))


@settings(max_examples=100, deadline=None)
@given(layouts)
def test_recomputation_never_adds_memory(layout):
    acts = [memory_per_chip(MODEL, layout, MemoryOptions(recompute=r, convention="megatron")).activations
            for r in ("none", "selective", "full")]
    assert acts[0] >= acts[1] >= acts[2]
