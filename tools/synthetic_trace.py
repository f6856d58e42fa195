"""Synthetic PyTorch-profiler traces (Kineto's Chrome-trace JSON), written event by event: the dashboard's bundled
example (``python -m tools.synthetic_trace``, which writes ``engine/measure/example_trace.json.gz``) and the
tests' hand-made traces. Nothing here is a measurement: the example's kernel times come from a stated model
(matrix products at a fixed share of the chip's dense peak, element-wise work at a share of its bandwidth, a
fixed launch cost), and the file says it is synthetic in its ``traceName``.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

TYPES = {"bf16": "c10::BFloat16", "fp32": "float"}


class TraceBuilder:
    """Events appended in time order on one host thread and one GPU stream (a second stream for collectives)."""

    def __init__(self, device: str | None = "NVIDIA H100 80GB HBM3", *, rank: int | None = None,
                 world: int | None = None, t0: float = 1_700_000_000_000.0, name: str = "synthetic"):
        self.events: list[dict] = []
        self.meta: dict = {"schemaVersion": 1, "traceName": name}
        if device:
            self.meta["deviceProperties"] = [{"id": 0, "name": device, "totalGlobalMem": 85_000_000_000,
                                              "computeMajor": 9, "computeMinor": 0, "numSms": 132,
                                              "warpSize": 32}]
        if rank is not None:
            self.meta["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world or rank + 1}
        self.cpu = t0
        self.gpu = t0
        self.corr = 1
        self.ext = 1
        self.python_us = 0.0
        """Host time between two operators (Python's own work)."""

    def x(self, cat: str, name: str, ts: float, dur: float, args: dict | None = None, tid=1, pid=1) -> dict:
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3),
             "args": args or {}}
        self.events.append(e)
        return e

    def op(self, name: str, dur: float, dims=(), types=(), concrete=(), *, at: float | None = None) -> dict:
        """A host operator starting now (or ``at``), lasting ``dur`` µs."""
        if at is None:
            self.cpu += self.python_us
        ts = self.cpu if at is None else at
        args = {"External id": self.ext}
        self.ext += 1
        if dims:
            args.update({"Input Dims": [list(d) for d in dims], "Input type": list(types),
                         "Concrete Inputs": list(concrete) or [""] * len(dims)})
        return self.x("cpu_op", name, ts, dur, args)

    def launch(self, kernel: str, gpu_us: float, *, cat: str = "kernel", stream: int = 7, launch_us: float = 4.0,
               extra: dict | None = None) -> None:
        """A launch call on the host now, and its GPU work when the stream is free (after the launch returns)."""
        corr = self.corr
        self.corr += 1
        self.x("cuda_runtime", "cudaLaunchKernel" if cat == "kernel" else "cudaMemcpyAsync", self.cpu, launch_us,
               {"correlation": corr, "External id": self.ext})
        start = max(self.gpu, self.cpu + launch_us)
        self.x(cat, kernel, start, gpu_us, {"stream": stream, "correlation": corr, "device": 0, **(extra or {})},
               tid=stream, pid=0)
        self.gpu = start + gpu_us
        self.cpu += launch_us + 1.0

    def step_marks(self, n: int, cpu_start: float, cpu_end: float, gpu_start: float, gpu_end: float) -> None:
        self.x("user_annotation", f"ProfilerStep#{n}", cpu_start, cpu_end - cpu_start, {"External id": 0})
        self.x("gpu_user_annotation", f"ProfilerStep#{n}", gpu_start, gpu_end - gpu_start, {"External id": 0},
               tid=7, pid=0)

    def document(self) -> dict:
        return {**self.meta, "traceEvents": sorted(self.events, key=lambda e: (e["ts"], -e["dur"]))}

    def write(self, path: Path) -> Path:
        data = json.dumps(self.document(), separators=(",", ":")).encode()
        path = Path(path)
        if path.suffix == ".gz":
            path.write_bytes(gzip.compress(data, 9, mtime=0))
        else:
            path.write_bytes(data)
        return path


PEAK, BANDWIDTH = 989.4e12, 3.35e12
"""H100 SXM's dense BF16 tensor peak and memory bandwidth (hardware_db.json), the example's timing model."""


def _gemm_us(m: int, n: int, k: int) -> float:
    efficiency = 0.62 if m * n >= 4096 * 1024 else 0.4
    return 2 * m * n * k / (PEAK * efficiency) * 1e6


def _elementwise_us(elements: int, tensors: int = 3) -> float:
    return elements * 2 * tensors / (BANDWIDTH * 0.7) * 1e6 + 2.0


def _linear(b: TraceBuilder, m: int, k: int, n: int, bias: bool = True, backward: bool = False) -> None:
    bf = TYPES["bf16"]
    if backward:
        for dims in (((m, n), (n, k)), ((n, m), (m, k))):
            op = b.op("aten::mm", 12, dims, (bf, bf))
            b.launch("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_kernel__5x_cublas",
                     _gemm_us(dims[0][0], dims[1][1], dims[0][1]))
            op["dur"] = round(b.cpu - op["ts"], 3)
        return
    outer = b.op("aten::linear", 30, ((m, k), (n, k), (n,)), (bf, bf, bf))
    b.cpu += 2
    if bias:
        op = b.op("aten::addmm", 20, ((n,), (m, k), (k, n), (), ()), (bf, bf, bf, "Scalar", "Scalar"),
                  ("", "", "", "1", "1"))
    else:
        op = b.op("aten::mm", 20, ((m, k), (k, n)), (bf, bf))
    b.cpu += 3
    b.launch("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_kernel__5x_cublas",
             _gemm_us(m, n, k))
    op["dur"] = round(b.cpu - op["ts"], 3)
    outer["dur"] = round(b.cpu - outer["ts"] + 1, 3)
    b.cpu += 2


def _elementwise(b: TraceBuilder, name: str, shape: tuple, kernel: str, tensors: int = 3) -> None:
    bf = TYPES["bf16"]
    op = b.op(name, 10, (shape, shape), (bf, bf))
    b.cpu += 2
    b.launch(kernel, _elementwise_us(int(__import__("math").prod(shape)), tensors))
    op["dur"] = round(b.cpu - op["ts"], 3)


def example(steps: int = 3, layers: int = 2, batch: int = 4, seq: int = 512, d: int = 1024, heads: int = 16,
            vocab: int = 8192) -> TraceBuilder:
    """A decoder's training steps on an H100, synthetic (see the module docstring): per layer, layer norm, the
    query-key-value and output products, flash attention (causal), the MLP (4d, GELU); the head; the backward
    pass as two products per linear layer and the attention backward; a gradient all-reduce on a second stream
    partly under the backward pass; fused AdamW; an input copy and a wait for data each step."""
    b = TraceBuilder(name="FLOPscope synthetic example (tools/synthetic_trace.py; not a measured run)",
                     rank=0, world=8)
    b.python_us = 22.0
    bf = TYPES["bf16"]
    m = batch * seq
    hd = d // heads
    for n in range(1, steps + 1):
        cpu_start = b.cpu
        wait = b.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 900)
        wait["cat"] = "user_annotation"
        b.cpu += 900
        b.launch("Memcpy HtoD (Pinned -> Device)", 12.0, cat="gpu_memcpy", launch_us=6)
        gpu_start = b.gpu - 12.0
        for _ in range(layers):
            _elementwise(b, "aten::native_layer_norm", (batch, seq, d),
                         "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16>")
            _linear(b, m, d, 3 * d)
            op = b.op("aten::_scaled_dot_product_flash_attention", 25,
                      ((batch, heads, seq, hd),) * 3 + ((), (), (), ()), (bf, bf, bf, "Scalar", "Scalar", "Scalar",
                                                                          "Scalar"),
                      ("", "", "", "0.", "True", "False", ""))
            b.cpu += 3
            flop = 4 * batch * heads * seq * seq * hd / 2
            b.launch("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>, true>",
                     flop / (PEAK * 0.45) * 1e6)
            op["dur"] = round(b.cpu - op["ts"], 3)
            _linear(b, m, d, d)
            _elementwise(b, "aten::add", (batch, seq, d), "void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::CUDAFunctor_add<c10::BFloat16>>")
            _elementwise(b, "aten::native_layer_norm", (batch, seq, d),
                         "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16>")
            _linear(b, m, d, 4 * d)
            _elementwise(b, "aten::gelu", (batch, seq, 4 * d), "void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::GeluCUDAKernelImpl>", 2)
            _linear(b, m, 4 * d, d)
            _elementwise(b, "aten::add", (batch, seq, d), "void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::CUDAFunctor_add<c10::BFloat16>>")
        _linear(b, m, d, vocab, bias=False)
        _elementwise(b, "aten::_log_softmax", (m, vocab), "void at::native::cunn_SoftMaxForward<8, c10::BFloat16>")
        _elementwise(b, "aten::_log_softmax_backward_data", (m, vocab),
                     "void at::native::cunn_SoftMaxBackward<8, c10::BFloat16>")
        _linear(b, m, d, vocab, backward=True)
        for layer in range(layers):
            _linear(b, m, 4 * d, d, backward=True)
            _elementwise(b, "aten::gelu_backward", (batch, seq, 4 * d), "void at::native::vectorized_elementwise_"
                         "kernel<4, at::native::GeluBackwardCUDAKernelImpl>")
            _linear(b, m, d, 4 * d, backward=True)
            _elementwise(b, "aten::native_layer_norm_backward", (batch, seq, d), "void at::native::(anonymous "
                         "namespace)::layer_norm_grad_input_kernel<c10::BFloat16>", 4)
            _linear(b, m, d, d, backward=True)
            op = b.op("aten::_scaled_dot_product_flash_attention_backward", 40,
                      ((batch, heads, seq, hd),) * 5 + ((batch, heads, seq),),
                      (bf,) * 5 + ("float",),
                      ("",) * 6)
            op["args"]["Input Dims"] += [[], [], [], [], [], [], [], [], []]
            op["args"]["Input type"] += ["", "", "Scalar", "Scalar", "Scalar", "Scalar", "", "", "Scalar"]
            op["args"]["Concrete Inputs"] += ["", "", "", "", "0.", "True", "", "", ""]
            b.cpu += 3
            b.launch("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits>",
                     2.5 * flop / (PEAK * 0.35) * 1e6)
            op["dur"] = round(b.cpu - op["ts"], 3)
            _linear(b, m, d, 3 * d, backward=True)
            _elementwise(b, "aten::native_layer_norm_backward", (batch, seq, d), "void at::native::(anonymous "
                         "namespace)::layer_norm_grad_input_kernel<c10::BFloat16>", 4)
        params = layers * 12 * d * d + vocab * d
        reduce_at = b.gpu - 150  # the gradient all-reduce starts under the last backward kernels
        b.x("cuda_runtime", "cudaLaunchKernel", b.cpu, 5, {"correlation": b.corr})
        b.x("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
            reduce_at, params * 2 / 150e9 * 1e6, {"stream": 21, "correlation": b.corr, "device": 0}, tid=21, pid=0)
        b.corr += 1
        b.cpu += 6
        nccl_end = reduce_at + params * 2 / 150e9 * 1e6
        b.gpu = max(b.gpu, nccl_end)
        op = b.op("Optimizer.step#AdamW.step", 40)
        op["cat"] = "user_annotation"
        _elementwise(b, "aten::_fused_adamw_", (params,), "void at::native::(anonymous namespace)::multi_tensor_"
                     "apply_kernel<FusedAdamMathFunctor>", 8)
        b.cpu = max(b.cpu, b.gpu) + 20
        b.step_marks(n, cpu_start, b.cpu, gpu_start - 1, b.gpu + 1)
    return b


def main() -> None:
    out = Path(__file__).resolve().parents[1] / "engine" / "measure" / "example_trace.json.gz"
    example().write(out)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
