"""Serving engines: their settings (documented) and their efficiencies (fitted, ``efficiencies.json``).

An engine's efficiencies are the fractions of the chip's dense peak (``compute``) and memory bandwidth (``memory``)
its kernels reach, and ``allreduce_s`` the latency of one tensor-parallel all-reduce (all engines). They are fitted
by ``tools/fit_serving.py`` on the calibration rows of ``measured_serving.json`` only (the rule written there before
the fit) and checked on the other rows (``engine.serve.validation``, docs/serving.md). Settings are the engines'
own, as the measurements ran them: the share of memory for weights and KV cache, the largest batch, the tokens one
forward pass takes (a prefill longer than that runs in chunks, each reading the weights again).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from ..errors import InputError, quoted
from ..shipped import ShippedDataError, read_shipped_json

EFFICIENCIES = Path(__file__).with_name("efficiencies.json")
ALLREDUCE_S = 20e-6
"""The latency of one tensor-parallel all-reduce within a node (not fitted): NCCL's small-message all-reduce on
NVLink takes about 6 µs with NVLink SHARP and CUDA graphs (https://github.com/NVIDIA/nccl/issues/1259) and tens of µs
without (https://github.com/NVIDIA/nccl-tests/issues/68); nccl-tests' all_reduce_perf on 8 GPUs of NVLink 4 (H20,
450 GB/s each way, as H100/H200 SXM) takes 18.7 µs at 32 KiB and 27.8 µs at 1 MiB
(https://github.com/kvcache-ai/Mooncake/pull/3484, its NCCL baseline table)."""
LINK_EFFICIENCY = 0.8
"""A ring all-reduce's bus bandwidth over NVLink, as a share of the link (interconnects.json's per-direction
figure): 365–370 of 450 GB/s on 8 H100 SXM (https://github.com/NVIDIA/nccl/issues/1455; NCCL's maintainer: "with
the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s",
https://github.com/NVIDIA/nccl-tests/issues/212); nccl-tests on 8 NVLink-4 GPUs: busbw 358 GB/s at 1 GiB
(5,253 µs; the Mooncake table above). With α above, t = α + 2(n − 1)/n · S / (0.8 · 450 GB/s) gives 5,240 µs at
1 GiB and 20.1 µs at 32 KiB (tests/serve/test_plan.py)."""
SEQUENTIAL = (
    "the engines add communication to compute: TensorRT-LLM's PluginConfig fuses no GEMM with its all-reduce by "
    "default (gemm_allreduce_plugin None, user_buffer False: tensorrt_llm/plugin/plugin.py, "
    "https://github.com/NVIDIA/TensorRT-LLM), vLLM's PassConfig leaves async tensor parallelism off "
    "(enable_async_tp False: vllm/config/compilation.py, https://github.com/vllm-project/vllm); a step's kernels — "
    "GEMMs, attention, all-reduces — run one after another on one stream")
"""What the engines do about overlap, with the sources (``engine.serve.roofline`` adds the parts)."""


class Engine(NamedTuple):
    id: str
    label: str
    memory_fraction: float
    """Of the chip's memory, the share for weights and KV cache (the rest: activations, workspace, graphs)."""
    max_batch: int | None
    token_budget: int
    source: str
    windowed_cache: bool = True
    """Sliding-window layers keep only their window (False: the engine allocates every layer's cache for the whole
    sequence, as trtllm-bench does unless max_attention_window is set)."""


_ENGINES: dict[str, Engine] = {}


def _register(engine: Engine) -> None:
    if engine.id in _ENGINES:
        raise ValueError(f"engine {engine.id!r} is registered twice")
    _ENGINES[engine.id] = engine


_register(Engine("tensorrt-llm", "TensorRT-LLM", 0.95, 4096, 8192,
                 "trtllm-bench as NVIDIA's performance overview runs it: kv_cache_free_gpu_mem_fraction 0.95; its "
                 "printed engine details show Max Runtime Batch Size 4096 and Max Runtime Tokens 8192; "
                 "max_attention_window is not set, so sliding-window layers keep the whole sequence", False))
_register(Engine("vllm", "vLLM", 0.90, None, 8192,
                 "vLLM's defaults: gpu_memory_utilization 0.9, max_num_batched_tokens 8192; the batch bounded by "
                 "memory (max_num_seqs set to the number of prompts, as AMD's measurements do); its hybrid KV cache "
                 "manager (v0.10) keeps a sliding-window layer's window only"))
_register(Engine("pytorch", "PyTorch (gpt-fast, torchao)", 0.90, None, 8192,
                 "gpt-fast and torchao's generate.py: torch.compile'd decoding, one sequence at a time in their "
                 "tables"))


def engine(engine_id: str) -> Engine:
    if engine_id not in _ENGINES:
        raise InputError("engine", f"{quoted(engine_id)} is not a known engine; known: {', '.join(_ENGINES)}")
    return _ENGINES[engine_id]


def engine_ids() -> tuple[str, ...]:
    return tuple(_ENGINES)


class Efficiency(NamedTuple):
    """Fractions of the dense peak and of the bandwidth the kernels reach; one all-reduce's latency; a weight-only
    kernel's bandwidth relative to the 16-bit one (dequantizing costs: gpt-fast's int8 and int4 GEMVs read their
    bytes slower than the BF16 one)."""

    compute: float
    memory: float
    allreduce_s: float
    int8_weights: float = 1.0
    int4_weights: float = 1.0

    def weight_only(self, weights: str | None) -> float:
        return {"int8": self.int8_weights, "int4": self.int4_weights}.get(weights or "", 1.0)


@lru_cache(maxsize=1)
def _fitted() -> dict:
    return read_shipped_json(EFFICIENCIES, {"engines": dict, "weight_only": dict})


def efficiency(engine_id: str) -> Efficiency:
    """The engine's fitted efficiencies (``efficiencies.json``)."""
    data = _fitted()
    name = engine(engine_id).id
    try:
        own, only = data["engines"][name], data["weight_only"]
        fitted = Efficiency(float(own["compute"]), float(own["memory"]), ALLREDUCE_S, float(only["int8"]),
                            float(only["int4"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ShippedDataError(EFFICIENCIES.name, f"no usable efficiencies for {name} ({type(exc).__name__}: "
                                                  f"{str(exc)[:60]})") from None
    if not all(0 < x < 100 for x in fitted[:2] + fitted[3:]):
        raise ShippedDataError(EFFICIENCIES.name, f"the efficiencies of {name} are out of range")
    return fitted
