"""A serving plan's figures, each against a formula written here from the model's published config."""
from __future__ import annotations

import math

import pytest

from engine.errors import InputError, parse_input
from engine.llm.config import read_hf_config
from engine.llm.library import library_model
from engine.serve.counts import ModelCounts
from engine.serve.engines import ALLREDUCE_S, LINK_EFFICIENCY, efficiency, engine
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
    # memory-bound: TPOT = (weights + cache + residual passes) / (β·e_m) at batch 1 (torch's int8 weights off); the
    # residual adds and norms: 2 per block × 4 passes × d = 4,096 values × 2 bytes × 32 blocks
    est = plan("llama-2-7b", chip="nvidia-a100-sxm4-80gb", prompt_tokens=5, output_tokens=2, batch=1,
               engine="pytorch")
    e_m = efficiency("pytorch").memory
    weights = est.weights_bytes  # the token table is read row by row: the untied head is read whole
    table = 32000 * 4096 * 2
    kv = 5 * 2 * 32 * 4096 * 2
    assert est.decode_step.bound == "memory"
    residual = 2 * 32 * 4 * 4096 * 2
    assert est.tpot_s == pytest.approx((weights - table + kv + residual) / (2039e9 * e_m), rel=1e-9)


def test_prefill_compute_bound_at_the_fitted_efficiency():
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=8192, output_tokens=0)
    eff = efficiency("tensorrt-llm")
    assert est.prefill.bound == "compute"
    # + the residual adds and norms of the 8,192 tokens: 2·32 blocks × 4 passes × 4,096 × 2 bytes each, at β·e_m
    residual = 8192 * 2 * 32 * 4 * 4096 * 2 / (3350e9 * eff.memory)
    assert est.ttft_s == pytest.approx(est.prefill_flop_kernel / (989.4e12 * eff.compute) + residual, rel=1e-9)
    assert est.output_tokens_per_s == 0 and est.batch == 1


def test_allreduce_time_in_a_tensor_parallel_step():
    one = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=10, output_tokens=2, batch=1)
    two = plan("llama-3.1-8b", chip="nvidia-h100-sxm", chips=2, prompt_tokens=10, output_tokens=2, batch=1)
    # two all-reduces per layer: 2·32·(α + 2·(2−1)/2 · d·2 bytes / (0.8 · 450 GB/s)), on half the bytes each; the
    # residual adds and norms (2·32·4·4,096·2 bytes a token) are not split: each chip does them all
    comm = 2 * 32 * (ALLREDUCE_S + 4096 * 2 / (0.8 * 450e9))
    residual = 2 * 32 * 4 * 4096 * 2 / (3350e9 * efficiency("tensorrt-llm").memory)
    assert two.tpot_s == pytest.approx(one.tpot_s / 2 + residual / 2 + comm, rel=1e-9)


def test_the_allreduce_figures_reproduce_nccl_tests():
    # all_reduce_perf on 8 NVLink-4 GPUs (H20, 450 GB/s each way; Mooncake PR #3484's NCCL baseline table):
    # 32 KiB in 18.7 µs, 1 GiB in 5,252.64 µs. The model: α + 2(n − 1)/n · S / (0.8 · 450 GB/s)
    def t(size):
        return ALLREDUCE_S + 2 * 7 / 8 * size / (LINK_EFFICIENCY * 450e9)

    assert t(2**30) == pytest.approx(5252.64e-6, rel=0.01)
    assert t(32 * 1024) == pytest.approx(18.7e-6, rel=0.1)


def test_a_decode_step_adds_the_gemms_and_attention():
    # Llama 3.1 8B in BF16 on one H100 SXM (989.4 TFLOP/s dense, 3.35 TB/s), B = 256 sequences, c = 1,000 cached.
    # Matmul parameters: 32 × (2·4096² + 2·4096·1024 + 3·4096·14336) + the head 4096 × 128,256 = 7,504,658,432;
    # all weights but the token table: 8,030,261,248 − 525,336,576 = 7,504,924,672 (2 bytes each).
    # F_dec(0) = 2 × the matmul parameters + one key's attention, 4·32·128 per key per layer × 32 layers = 524,288.
    # The step: max(B·F_dec(0)/(π·e_c), W/(β·e_m)) + max(B·524,288·c/(π·e_c), B·c·131,072 B/(β·e_m))
    #           + B · 2·32·4·4,096·2 bytes/(β·e_m) (the residual adds and norms)
    b, c = 256, 1000
    est = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=c, output_tokens=2, batch=b)
    per_key = 4 * 32 * 128 * 32
    f0 = 2 * 7_504_658_432 + per_key
    assert ModelCounts(facts("llama-3.1-8b")).decode_flop(0, absorbed=True) == f0
    eff = efficiency("tensorrt-llm")
    peak, bandwidth = 989.4e12 * eff.compute, 3350e9 * eff.memory
    gemms = max(b * f0 / peak, 7_504_924_672 * 2 / bandwidth)
    attention = max(b * per_key * c / peak, b * c * 2 * 8 * 128 * 32 * 2 / bandwidth)
    residual = b * 2 * 32 * 4 * 4096 * 2 / bandwidth
    assert est.tpot_s == pytest.approx(gemms + attention + residual, rel=1e-9)
    # at this batch the GEMMs are compute-bound and attention memory-bound: one does not hide the other
    assert b * f0 / peak > 7_504_924_672 * 2 / bandwidth and attention > b * per_key * c / peak
    assert est.tpot_s > max(b * (f0 + per_key * c) / peak, (7_504_924_672 * 2 + b * c * 131_072) / bandwidth)


def test_a_mixture_of_experts_moves_each_token_to_its_experts_and_back():
    # Mixtral 8x7B in BF16 on one H200 (4.8 TB/s), batch 1, 5 tokens cached: every part is memory-bound.
    # Read: per layer the attention (2·4096² + 2·4096·1024), the router (4096·8), two norms (2·4096) and the k = 2
    # experts the token picks (2 × 3·4096·14336 = 2 × 176,160,768), ×32; the head 32,000·4096 and the final norm:
    # 32 × (41,984,000 + 352,321,536) + 131,072,000 + 4,096 = 12,748,853,248 parameters, 2 bytes each.
    # Cache: 5 × 2·32·8·128 × 2 bytes. Residual: 2·32·4·4096·2. Experts' rows: 32 × (2 + 2·2)·4096·2 bytes.
    est = plan("mixtral-8x7b", chip="nvidia-h200-sxm", prompt_tokens=5, output_tokens=2, batch=1)
    weights = 12_748_853_248 * 2
    cache = 5 * 2 * 32 * 8 * 128 * 2
    residual = 2 * 32 * 4 * 4096 * 2
    routing = 32 * (2 + 2 * 2) * 4096 * 2
    bandwidth = 4800e9 * efficiency("tensorrt-llm").memory
    assert est.tpot_s == pytest.approx((weights + cache + residual + routing) / bandwidth, rel=1e-9)


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


@pytest.mark.parametrize("rate", [5e-324, 1e-9, 0])
def test_a_request_rate_below_one_in_a_million_seconds_is_refused(rate):
    """5e-324 requests/s made the fleet 0 copies and divided by zero."""
    with pytest.raises(InputError) as exc:
        plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=1000, output_tokens=200, requests_per_s=rate)
    assert "requests_per_s" in str(exc.value) and "\n" not in str(exc.value)
    slow = plan("llama-3.1-8b", chip="nvidia-h100-sxm", prompt_tokens=1000, output_tokens=200, requests_per_s=1e-6)
    assert slow.fleet["copies"] == 1 and slow.fleet["utilisation"] == pytest.approx(200e-6 / slow.output_tokens_per_s)


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
    ({"speculative": {"acceptance_length": 60, "draft_tokens": 1}}, "speculative.acceptance_length"),
    ({"batch": 8, "max_batch": 1}, "batch"),
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
