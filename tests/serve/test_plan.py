"""A serving plan's figures, each against a formula written here from the model's published config."""
from __future__ import annotations

import math

import pytest

from engine.errors import InputError, parse_input
from engine.llm.config import read_hf_config
from engine.llm.library import library_model
from engine.serve.counts import ModelCounts
from engine.serve.engines import ALLREDUCE_S, efficiency, engine
from engine.serve.model_facts import model_facts
from engine.serve.plan import GIB, ServeInputs, serve

GB = 1e9


def facts(model_id: str):
    return model_facts(read_hf_config(library_model(model_id).config))


def plan(model_id: str, **fields):
    return serve(facts(model_id), parse_input(ServeInputs, fields))


def test_llama_kv_cache_per_token_and_sequence():
    # Llama 3.1 8B: 32 layers, 8 KV heads of 128: 2·8·128·32 = 65,536 elements per token, 2 bytes in BF16
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=1000, output_tokens=200, batch=1)
    assert est.kv_cache_bytes_per_token == 2 * 8 * 128 * 32 * 2
    assert est.kv_cache_bytes == 1200 * 2 * 8 * 128 * 32 * 2


def test_fp8_and_fp4_kv_cache_bytes():
    fp8 = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=100, output_tokens=28, batch=1,
               precision="fp8")
    assert fp8.kv_precision == "fp8" and fp8.kv_cache_bytes == 128 * 65536 * 1
    fp4 = plan("llama-3.1-8b", chip="nvidia-b200", prompt_tokens=100, output_tokens=28, batch=1, precision="fp4",
               kv_precision="fp4")
    assert fp4.kv_cache_bytes == 128 * 65536 * 0.5625  # 4 bits + an FP8 scale per 16 values


def test_deepseek_v3_latent_cache():
    # MLA: per layer the latent (kv_lora_rank 512) and the rotary key (qk_rope_head_dim 64), 61 layers
    est = plan("deepseek-v3", chip="nvidia-h200-sxm", chips=8, precision="fp8", prompt_tokens=1000,
               output_tokens=24, batch=1)
    assert est.kv_cache_bytes_per_token == (512 + 64) * 61 * 1
    assert est.kv_cache_bytes == est.kv_cache_bytes_transformers == 1024 * 576 * 61
    assert est.decode_flop_per_token_engine < est.decode_flop_per_token  # absorbed vs transformers' re-expansion


def test_sliding_window_capped_at_w_minus_one():
    # Gemma 2 2B: 26 layers alternating sliding (window 4096) and full; 4 KV heads of 256
    est = plan("gemma-2-2b", chip="nvidia-h100-sxm", prompt_tokens=6000, output_tokens=0, engine="vllm")
    per_layer_token = 2 * 4 * 256 * 2
    assert est.kv_cache_bytes == 13 * 6000 * per_layer_token + 13 * 4095 * per_layer_token


def test_mamba_state_is_constant():
    # Mamba 130m: 24 layers, I = 1536, N = 16, K = 4: (I·K + I·N) per layer, 2 bytes
    short = plan("mamba-130m", chip="nvidia-h100-sxm", prompt_tokens=100, output_tokens=10, batch=1)
    long = plan("mamba-130m", chip="nvidia-h100-sxm", prompt_tokens=10000, output_tokens=10, batch=1)
    assert short.kv_cache_bytes == long.kv_cache_bytes == 24 * (1536 * 4 + 1536 * 16) * 2
    assert short.kv_cache_bytes_per_token == 0


def test_sequences_in_memory_and_weights():
    # Llama 3.1 8B in BF16: 8,030,261,248 parameters (16.06 GB); an H100's 80 GiB × 0.95 (TensorRT-LLM's share)
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=1000, output_tokens=200)
    assert est.weights_bytes == 8_030_261_248 * 2
    free = 80 * GIB * 0.95 - 8_030_261_248 * 2
    assert est.sequences_in_memory == math.floor(free / (1200 * 131072))
    assert est.batch <= est.sequences_in_memory


def test_tensor_parallel_splits_kv_heads_and_weights():
    one = plan("llama-3.1-70b", chip="nvidia-h100-sxm", chips=2, precision="fp8", prompt_tokens=1000,
               output_tokens=100, batch=8)
    eight = plan("llama-3.1-70b", chip="nvidia-h100-sxm", chips=8, precision="fp8", prompt_tokens=1000,
                 output_tokens=100, batch=8)
    assert one.cache.bytes_per_chip == one.kv_cache_bytes / 2 and eight.cache.bytes_per_chip == eight.kv_cache_bytes / 8
    assert eight.tpot_s < one.tpot_s


def test_batch_one_decode_is_the_weights_over_the_bandwidth():
    # memory-bound: TPOT ≈ (weights + cache) / (β·e_m) at batch 1 (torch's int8 weights off)
    est = plan("llama-2-7b", chip="nvidia-a100-sxm4-80gb", prompt_tokens=5, output_tokens=2, batch=1,
               engine="pytorch")
    e_m = efficiency("pytorch").memory
    weights = est.weights_bytes  # the token table is read row by row: the untied head is read whole
    table = 32000 * 4096 * 2
    kv = 5 * 2 * 32 * 4096 * 2
    assert est.decode_step.bound == "memory"
    assert est.tpot_s == pytest.approx((weights - table + kv) / (2039e9 * e_m), rel=1e-9)


def test_prefill_compute_bound_at_the_fitted_efficiency():
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=8192, output_tokens=0)
    e_c = efficiency("tensorrt-llm").compute
    assert est.prefill.bound == "compute"
    assert est.ttft_s == pytest.approx(est.prefill_flop_kernel / (989.4e12 * e_c), rel=1e-9)
    assert est.output_tokens_per_s == 0 and est.batch == 1


def test_allreduce_time_in_a_tensor_parallel_step():
    one = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=10, output_tokens=2, batch=1)
    two = plan("llama-3.1-8b", chip="nvidia-h100-sxm", chips=2, prompt_tokens=10, output_tokens=2, batch=1)
    # two all-reduces per layer: 2·32·(α + 2·(2−1)/2 · d·2 bytes / (0.8 · 450 GB/s)), on half the bytes each
    comm = 2 * 32 * (ALLREDUCE_S + 4096 * 2 / (0.8 * 450e9))
    assert two.tpot_s == pytest.approx(one.tpot_s / 2 + comm, rel=2e-3)


def test_speculative_decoding_by_acceptance_length():
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=100, output_tokens=100, batch=1,
               speculative={"acceptance_length": 3.0, "draft_tokens": 4, "draft_cost": 0.05})
    spec = est.speculative
    # at batch 1 the verify step of 5 tokens reads the same weights: (t_verify + 4·0.05·t) / 3
    assert spec["tpot_s"] == pytest.approx((spec["verify_step_s"] + 4 * 0.05 * est.decode_step.seconds) / 3,
                                           rel=1e-9)
    assert 2.0 < spec["speedup"] < 3.0


def test_cost_and_fleet():
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=1000, output_tokens=200,
               price_per_chip_hour=2.0, requests_per_s=50)
    assert est.cost_per_million_output_tokens == pytest.approx(2.0 / (est.output_tokens_per_s * 3600) * 1e6)
    assert est.fleet["copies"] == math.ceil(50 * 200 / est.output_tokens_per_s)


def test_engine_registry_refuses_unknown_and_duplicates():
    with pytest.raises(InputError, match="engine"):
        engine("triton")
    from engine.serve import engines

    with pytest.raises(ValueError, match="twice"):
        engines._register(engines.engine("vllm"))


@pytest.mark.parametrize("fields,field", [
    ({"batch": 10**9}, "batch"),
    ({"prompt_tokens": 200_000}, "prompt_tokens"),
    ({"chip": "nvidia-a100-sxm4-80gb", "kv_precision": "fp8"}, "kv_precision"),
    ({"chip": "nvidia-a100-sxm4-80gb", "precision": "fp4"}, "precision"),
    ({"chip": "nvidia-l4", "chips": 2}, "chips"),
    ({"batch": 0}, "batch"),
    ({"prompt_tokens": float("nan")}, "prompt_tokens"),
])
def test_bad_input_is_one_line_naming_the_field(fields, field):
    data = {"chip": "nvidia-h100-sxm", "prompt_tokens": 100, "output_tokens": 100} | fields
    with pytest.raises(InputError) as error:
        serve(facts("llama-3.1-8b"), parse_input(ServeInputs, data))
    assert error.value.field == field and "\n" not in str(error.value)


def test_encoder_generates_nothing():
    with pytest.raises(InputError, match="output_tokens"):
        plan("bert-base-uncased", chip="nvidia-h100-sxm", prompt_tokens=128, output_tokens=1)
    est = plan("bert-base-uncased", chip="nvidia-h100-sxm", prompt_tokens=128, output_tokens=0)
    assert est.sequences_in_memory is None and est.kv_cache_bytes == 0


def test_decode_flop_sum_is_the_sum_of_steps():
    counts = ModelCounts(facts("gemma-2-2b"))
    assert counts.decode_flop_sum(4090, 12) == sum(counts.decode_flop(4090 + i) for i in range(12))
