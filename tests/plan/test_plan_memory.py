"""Memory per chip: model states by optimizer and ZeRO stage, activations (Korthikanti et al. 2022)."""
from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from engine.errors import InputError, parse_input
from engine.llm.config import read_hf_config
from engine.llm.presets import LLAMA2_7B_CONFIG
from engine.plan.layout import Layout, MemoryOptions
from engine.plan.memory import fewest_chips, memory_per_chip, stage_params
from engine.plan.model import PlanModel, plan_model
from engine.presets import presets

GB = 1e9


@pytest.fixture(scope="module")
def llama7b() -> PlanModel:
    return plan_model(read_hf_config(LLAMA2_7B_CONFIG).architecture(4096))


def _bare(params: int, **kw) -> PlanModel:
    """A model of ``params`` parameters with no activations (for model-state figures)."""
    base = dict(params=params, active_params=params, expert_params=0, experts=1, forward_flop=0.0,
                attention_core_flop=0.0, blocks=0, d_model=0, heads=0, kv_heads=0, attention_width=0, seq_len=1, other_layers=1,
                other_activation_values=0)
    return PlanModel(**(base | kw))


def test_7b_with_mixed_precision_adam_is_16_bytes_per_parameter(llama7b):
    # EleutherAI "Transformer Math 101" / ZeRO §3: 2 + 2 + 12 bytes per parameter
    mem = memory_per_chip(llama7b, Layout(), MemoryOptions(optimizer="adam", precision="bf16"))
    assert llama7b.params == 6_738_415_616  # meta-llama/Llama-2-7b-hf
    assert mem.model_states == 16 * llama7b.params
    assert (mem.weights, mem.gradients, mem.optimizer_states) == (2 * llama7b.params, 2 * llama7b.params,
                                                                  12 * llama7b.params)


@pytest.mark.parametrize("optimizer,precision,per_param", [
    ("adam", "fp32", 16), ("adam-8bit", "bf16", 10), ("sgd-momentum", "bf16", 12), ("sgd-momentum", "fp32", 12),
    ("sgd", "fp32", 8),
])
def test_bytes_per_parameter_by_optimizer(optimizer, precision, per_param):
    model = _bare(1_000_000)
    mem = memory_per_chip(model, Layout(), MemoryOptions(optimizer=optimizer, precision=precision))
    assert mem.model_states == per_param * 1_000_000


@pytest.mark.parametrize("zero,published_gb", [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_figure_1(zero, published_gb):
    # Rajbhandari et al. 2020 (ZeRO), Figure 1: Ψ = 7.5B, N_d = 64, K = 12
    mem = memory_per_chip(_bare(7_500_000_000), Layout(dp=64), MemoryOptions(zero=zero))
    assert mem.model_states / GB == pytest.approx(published_gb, abs=0.05)


def test_tensor_and_pipeline_split_the_states(llama7b):
    mem = memory_per_chip(llama7b, Layout(tp=4, pp=2), MemoryOptions())
    assert mem.model_states == pytest.approx(16 * llama7b.params / 8)


def korthikanti(s, b, h, a, t=1, sp=False, recompute="none"):
    """Table 2 of Korthikanti et al. 2022, written out per case."""
    if recompute == "full":
        return 2 * s * b * h / (t if sp else 1)
    if recompute == "selective":
        return s * b * h * 34 / t if sp else s * b * h * (10 + 24 / t)
    if sp:
        return s * b * h / t * (34 + 5 * a * s / h)
    return s * b * h * (10 + 24 / t + 5 * a * s / (h * t))


@pytest.mark.parametrize("t,sp,recompute", list(itertools.product([1, 4], [False, True], ["none", "selective", "full"])))
def test_block_activations_follow_korthikanti(llama7b, t, sp, recompute):
    b, p, s, h, a = 2, 4, 4096, 4096, 32
    no_others = dataclasses.replace(llama7b, other_activation_values=0)
    layout = Layout(tp=t, pp=p, micro_batch=b, sequence_parallel=sp)
    stored = memory_per_chip(no_others, layout, MemoryOptions(recompute=recompute, attention="stored"))
    # 1F1B, m ≥ p: stage 1 holds p micro-batches of its L/p blocks; the scores stored, as Korthikanti's runs did
    expected = 32 / p * p * korthikanti(s, b, h, a, t, sp, recompute)
    assert stored.activations == pytest.approx(expected)
    # fused attention (the default: FlashAttention, cuDNN) keeps no s × s scores, softmax output or dropout mask:
    # the 5as/h term goes, 34·sbh (÷t with sequence parallelism) or sbh·(10 + 24/t) stays — selective's figure
    fused = memory_per_chip(no_others, layout, MemoryOptions(recompute=recompute))
    kept = "full" if recompute == "full" else "selective"
    assert fused.activations == pytest.approx(32 / p * p * korthikanti(s, b, h, a, t, sp, kept))


def test_fewer_micro_batches_than_stages_hold_fewer(llama7b):
    no_others = dataclasses.replace(llama7b, other_activation_values=0)
    layout = Layout(dp=1, pp=8, micro_batch=1, global_batch=2)  # m = 2 < p = 8
    mem = memory_per_chip(no_others, layout, MemoryOptions(recompute="full"))
    assert mem.activations == pytest.approx(32 / 8 * 2 * 2 * 4096 * 4096)


def test_other_kinds_keep_their_outputs():
    # the seed's CNN-LSTM: per sequence the CNN output 20 × 200·200·16, the LSTM's 256, the head's 10, …
    scenario = presets()["epoch-cnn-lstm"].scenario
    model = plan_model(scenario.architecture())
    assert model.blocks == 0 and model.params > 0
    mem = memory_per_chip(model, Layout(micro_batch=8), MemoryOptions(precision="fp32"))
    assert mem.activations == pytest.approx(model.other_activation_values * 8 * 4)
    assert model.other_activation_values >= 20 * 200 * 200 * 16


def test_fits_and_largest_micro_batch(llama7b):
    options = MemoryOptions(zero=3, recompute="full")
    mem = memory_per_chip(llama7b, Layout(dp=8), options, chip_memory_bytes=80 * GB)
    per_sample = 32 * 2 * 4096 * 4096 + llama7b.other_activation_values * 2
    assert mem.activations_per_sample == pytest.approx(per_sample)
    assert mem.largest_micro_batch == math.floor((80 * GB - 16 * llama7b.params / 8) / per_sample)
    assert mem.fits
    unsharded = memory_per_chip(llama7b, Layout(), MemoryOptions(), chip_memory_bytes=80 * GB)
    assert not unsharded.fits and unsharded.largest_micro_batch == 0


@pytest.mark.parametrize("zero", [0, 3])
def test_fewest_chips_is_the_smallest_layout_that_fits(llama7b, zero):
    options = MemoryOptions(zero=zero, recompute="full")
    best = fewest_chips(llama7b, options, 40 * GB)
    assert best is not None and best.memory.fits
    stages = [1, 2, 4, 8, 16, 32] if zero <= 1 else [1]  # DeepSpeed's pipeline runs ZeRO 0–1 only
    for t, p, d in itertools.product([1, 2, 4, 8], stages, range(1, best.chips)):
        if t * p * d < best.chips:
            assert not memory_per_chip(llama7b, Layout(dp=d, tp=t, pp=p), options, 40 * GB).fits, (t, p, d)


@pytest.mark.parametrize("data,field", [
    ({"tp": 5}, "tp"), ({"pp": 3}, "pp"), ({"dp": 0}, "dp"), ({"dp": math.nan}, "dp"),
    ({"dp": 10**9}, "dp"), ({"micro_batch": 64, "global_batch": 32}, "micro_batch"),
    ({"dp": 3, "global_batch": 32}, "global_batch"), ({"ep": 2, "dp": 2}, "ep"), ({"tp": "2"}, "tp"),
    ({"pp": 4, "virtual_stages": 3}, "virtual_stages"), ({"warp": 2}, "warp"),
])
def test_bad_layouts_name_the_field(llama7b, data, field):
    with pytest.raises(InputError) as err:
        memory_per_chip(llama7b, parse_input(Layout, data), MemoryOptions())
    assert str(err.value).split(":")[0] == field
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("precision,plain,distributed", [
    # Megatron Core's distributed-optimizer guide (docs.nvidia.com/megatron-core/developer-guide/latest/
    # distrib_optimizer.html): bytes per parameter, non-distributed | distributed over d replicas
    ("bf16", lambda d: 18, lambda d: 6 + 12 / d),
    ("fp16", lambda d: 18, lambda d: 6 + 12 / d),  # FP32 main gradients, as Korthikanti et al. 2022 ran FP16
    ("fp32", lambda d: 16, lambda d: 8 + 8 / d),
])
@pytest.mark.parametrize("d", [1, 8, 64])
def test_megatron_convention_is_megatrons_table(precision, plain, distributed, d):
    model = _bare(1_000_000)
    layout = Layout(dp=d)
    zero0 = memory_per_chip(model, layout, MemoryOptions(precision=precision, convention="megatron"))
    zero1 = memory_per_chip(model, layout, MemoryOptions(precision=precision, convention="megatron", zero=1))
    assert zero0.model_states == pytest.approx(plain(d) * 1_000_000)
    assert zero1.model_states == pytest.approx(distributed(d) * 1_000_000)


@pytest.mark.parametrize("zero,per_param", [(0, lambda d: 16), (2, lambda d: 4 + 12 / d), (3, lambda d: 16 / d)])
def test_fsdp_convention_keeps_fp32_sharded_parameters_and_gradients(zero, per_param):
    # FSDP with MixedPrecision(param_dtype=bf16): the sharded FlatParameter and its gradient are FP32 (4 + 4 B),
    # Adam's m and v 8 B; FULL_SHARD (ZeRO 3) shards all 16 B; SHARD_GRAD_OP (2) keeps the parameters whole
    # (Zhao et al. 2023, 'PyTorch FSDP', §3.2 and §4.4)
    d = 8
    mem = memory_per_chip(_bare(1_000_000), Layout(dp=d), MemoryOptions(convention="fsdp", zero=zero))
    assert mem.model_states == pytest.approx(per_param(d) * 1_000_000)
    assert (mem.weights, mem.gradients) == pytest.approx((4e6 / (d if zero == 3 else 1), 4e6 / (d if zero >= 2 else 1)))


def test_conventions_refuse_stages_they_do_not_have():
    with pytest.raises(InputError, match=r"^zero: Megatron-LM / NeMo .* has no ZeRO stage 2 \(its stages: 0, 1 = the "
                                         r"distributed optimizer, 3 = Megatron FSDP\)"):
        parse_input(MemoryOptions, {"convention": "megatron", "zero": 2})
    with pytest.raises(InputError, match=r"^zero: PyTorch FSDP .* has no ZeRO stage 1 \(its stages: 0, "
                                         r"2 = SHARD_GRAD_OP, 3 = FULL_SHARD\)"):
        parse_input(MemoryOptions, {"convention": "fsdp", "zero": 1})
    with pytest.raises(InputError, match="^zero: Megatron-LM 2021–22 .* has no ZeRO stage 3"):
        parse_input(MemoryOptions, {"convention": "megatron-2021", "zero": 3})
    # every registered framework, and nothing else, is a convention; Megatron FSDP is Megatron's ZeRO 3
    assert parse_input(MemoryOptions, {"convention": "megatron", "zero": 3}).zero == 3
    for name in ("deepspeed", "megatron", "megatron-2021", "fsdp", "torchtitan", "composer"):
        assert parse_input(MemoryOptions, {"convention": name}).convention == name
    with pytest.raises(InputError, match="^convention"):
        parse_input(MemoryOptions, {"convention": "horovod"})


def test_lora_keeps_gradients_and_optimizer_states_for_the_adapters_only():
    """Llama 2 7B with LoRA r = 16 on q and v of its 32 blocks: 32 · 2 · 16 · (4,096 + 4,096) = 8,388,608
    trainable parameters. Mixed-precision Adam: 2 bytes for every weight, 2 + 12 for the trainable ones."""
    from engine.method1.architecture import Architecture
    from engine.method1.finetune import FineTune, fine_tuned

    arch = read_hf_config(LLAMA2_7B_CONFIG).architecture(4096)
    layers = fine_tuned([layer.model_dump(mode="json") for layer in arch.layers],
                        FineTune(mode="lora", rank=16, lora_dense=False))
    model = plan_model(Architecture.model_validate({"input": arch.input.model_dump(), "layers": layers}))
    trainable = 32 * 2 * 16 * (4096 + 4096)
    assert model.trainable_params == trainable
    assert model.params == 6_738_415_616 + trainable
    mem = memory_per_chip(model, Layout(), MemoryOptions(optimizer="adam", precision="bf16"))
    assert mem.weights == 2 * model.params
    assert mem.gradients == pytest.approx(2 * trainable)
    assert mem.optimizer_states == pytest.approx(12 * trainable)
    # against full training of the same weights: 16 bytes each
    assert mem.model_states < 0.13 * 16 * model.params


# Korthikanti et al. 2022, Figure 1 (as Calculon's validation transcribes it, GiB per GPU on A100s, FP16,
# t = 8): parameters + optimizer states; activations without recomputation; with selective recomputation and
# sequence parallelism. (layers, h, heads, p, micro-batch, global batch, v, states, activations, selective)
KORTHIKANTI_FIGURE_1 = {
    "22B": (48, 6144, 64, 1, 4, 4, 1, 45.5625, 59.25, 9.5625),
    "175B": (96, 12288, 96, 8, 1, 64, 3, 45.5625, 66.84375, 12.3515625),
    "530B": (105, 20480, 128, 35, 1, 280, 3, 31.640625, 114.0234375, 23.076171875),
    "1T": (128, 25600, 160, 64, 1, 512, 1, 32.958984375, 131.25, 26.5625),
}


@pytest.mark.parametrize("name", list(KORTHIKANTI_FIGURE_1))
def test_measured_memory_of_megatron_runs(name):
    l, h, a, p, b, batch, v, states, acts, selective = KORTHIKANTI_FIGURE_1[name]
    config = {"model_type": "gpt2", "n_layer": l, "n_embd": h, "n_head": a, "n_positions": 2048, "vocab_size": 51200}
    model = plan_model(read_hf_config(config).architecture(2048))
    layout = dict(tp=8, pp=p, micro_batch=b, global_batch=batch, virtual_stages=v)
    gib = 2 ** 30
    megatron = memory_per_chip(model, Layout(**layout), MemoryOptions(precision="fp16", convention="megatron",
                                                                     attention="stored"))
    zero = memory_per_chip(model, Layout(**{**layout, "virtual_stages": 1}),  # DeepSpeed's pipeline: v 1
                           MemoryOptions(precision="fp16"))
    sel = memory_per_chip(model, Layout(**layout, sequence_parallel=True),
                          MemoryOptions(precision="fp16", convention="megatron", recompute="selective"))
    # model states, 18 B/param (Megatron) of the most loaded stage, the first: its L/p blocks (12h² + 13h each, GPT-2's
    # weights and biases) and the word and position embeddings (Megatron-LM's theoretical_memory_usage.py: "most
    # loaded model shard has 1/pp_size transformer layers + 1 embedding layer"), + the final norm when p = 1
    first_stage = l // p * (12 * h * h + 13 * h) + (51200 + 2048) * h + (2 * h if p == 1 else 0)
    assert megatron.model_states == pytest.approx(18 * first_stage / 8, rel=1e-12)
    # Figure 1 counts the blocks' 12·L·h² alone, evenly: the embeddings on the first stage come on top of it
    assert megatron.model_states / gib - states == pytest.approx(18 * (51200 + 2048) * h / 8 / gib, rel=0.02)
    assert zero.model_states == pytest.approx(megatron.model_states * 16 / 18, rel=1e-12)  # ZeRO's 16 B/param
    # activations: +0.4…+1.8% without recomputation; +1.8…+11.1% selective + sequence parallel (22B worst)
    assert 0 < megatron.activations / gib / acts - 1 < 0.02
    assert 0 < sel.activations / gib / selective - 1 < 0.12


LLAMA31_8B = {"model_type": "llama", "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
              "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
              "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "tie_word_embeddings": False}
"""meta-llama/Llama-3.1-8B's config.json (the keys that size it)."""


@pytest.mark.parametrize("pp", [1, 2, 4, 8])
def test_the_most_loaded_stage_holds_an_embedding(pp):
    # Megatron-LM, megatron/training/theoretical_memory_usage.py: the most loaded shard has 1/p of the
    # transformer block and one embedding (V·h); untied and p = 1, the output layer's V·h too. Per block of
    # Llama 3.1 8B: q, o 4096², k, v 4096·1024, the gated MLP 3·4096·14336, two RMSNorms 2·4096.
    h, v = 4096, 128_256
    block = 2 * h * h + 2 * h * 1024 + 3 * h * 14_336 + 2 * h
    transformer = 32 * block + h  # the final norm is in Megatron's transformer block
    megatron = transformer / pp + v * h + (v * h if pp == 1 else 0)
    model = plan_model(read_hf_config(LLAMA31_8B).architecture(8192))
    assert model.params == 8_030_261_248  # the model card's 8.03B
    mem = memory_per_chip(model, Layout(pp=pp, tp=2, global_batch=64), MemoryOptions(optimizer="adam",
                                                                                    precision="bf16"))
    # the engine puts the final norm on the last stage (4,096 parameters against Megatron's h/p on each)
    assert mem.params_per_chip == pytest.approx(megatron / 2, abs=h)
    assert mem.model_states == pytest.approx(16 * mem.params_per_chip)


def test_the_chip_reported_is_the_stage_with_the_largest_total():
    # Llama 3.1 8B on p = 4 with 2 blocks on the first stage: [2, 10, 10, 10] blocks; 64 micro-batches of one
    # sequence of 8,192, so 1F1B keeps 4, 3, 2, 1 of them on ranks 0–3. Adam in BF16 (16 B/param), fused attention,
    # no recomputation: 34·s·h bytes a block and micro-batch (Korthikanti et al.), the embedding's and the head's
    # outputs (2 bytes each, spread ÷ p as the module says). States and activations of one stage, never of two.
    h, v, s = 4096, 128_256, 8192
    block = 2 * h * h + 2 * h * 1024 + 3 * h * 14_336 + 2 * h
    params = [2 * block + v * h, 10 * block, 10 * block, 10 * block + h + v * h]
    others = (s * h + s * h + s * v) * 2 / 4  # the embedding's, the final norm's and the logits' outputs, ÷ p
    acts = [(b * 34 * s * h + others) * held for b, held in zip((2, 10, 10, 10), (4, 3, 2, 1))]
    model = plan_model(read_hf_config(LLAMA31_8B).architecture(s))
    mem = memory_per_chip(model, Layout(pp=4, first_stage_blocks=2, global_batch=64), MemoryOptions())
    totals = [16 * p + a for p, a in zip(params, acts)]
    assert mem.total == pytest.approx(max(totals), rel=1e-9)
    assert mem.params_per_chip == params[1]  # rank 1: 10 blocks and 3 micro-batches in flight


def test_a_tied_head_keeps_a_copy_of_the_token_table_on_the_last_stage():
    # Megatron-LM (and DeepSpeed's TiedLayerSpec) keep the tied output layer's copy of the word embedding on the
    # last stage when p > 1. A Llama 3.2 1B-shaped model (tied), p = 4, 1 block on the first stage: [1, 5, 5, 5].
    h, v = 2048, 128_256
    config = {**LLAMA31_8B, "hidden_size": h, "intermediate_size": 8192, "num_hidden_layers": 16,
              "num_attention_heads": 32, "num_key_value_heads": 8, "tie_word_embeddings": True}
    block = 2 * h * h + 2 * h * 512 + 3 * h * 8192 + 2 * h
    model = plan_model(read_hf_config(config).architecture(4096))
    assert model.params == 16 * block + h + v * h  # the table counted once
    stages = stage_params(model, Layout(pp=4, first_stage_blocks=1, global_batch=64))
    assert [dense for dense, _ in stages] == [block + v * h, 5 * block, 5 * block, 5 * block + h + v * h]
