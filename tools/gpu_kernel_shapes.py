"""Time the kernel model's GEMM and attention shapes on a CUDA GPU and print JSON (a check on
``engine.plan.kernel.gemm.gemm_s``, not used by it): BF16 GEMMs by CUDA events (median of 15 after 4
warm-ups) — four dense shapes; each local expert's six GEMMs (FC1, FC2, their data and weight gradients) of
GPT-OSS 120B, Qwen3 30B-A3B and Qwen3 235B-A22B alone ("one") and as a loop over the rank's local experts
("loop", as Transformer Engine's GroupedLinear runs them); PyTorch's fused causal attention, forward and
backward. Figures measured on an H200 are in docs/plan.md.

    python tools/gpu_kernel_shapes.py > shapes.json
"""
import json
import statistics

import torch


def timed(fn, reps=15, warm=4):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def rand(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def one(m, n, k):
    x, w = rand(m, k), rand(k, n)
    return timed(lambda: x @ w)


def loop(m, n, k, local):
    xs, ws = [rand(m, k) for _ in range(local)], [rand(k, n) for _ in range(local)]
    return timed(lambda: [x @ w for x, w in zip(xs, ws)])


def main() -> dict:
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "gemm": [], "experts": [],
           "attention": []}
    for m, n, k in ((4096, 12288, 4096), (8192, 8192, 8192), (4096, 7168, 8192), (2048, 6144, 12288)):
        out["gemm"].append({"m": m, "n": n, "k": k, "s": one(m, n, k)})
    for name, m_e, h, f, local in (("gpt-oss-120b", 1024, 2880, 2880, 16), ("qwen3-30b-a3b", 2048, 2048, 768, 16),
                                   ("qwen3-235b-a22b", 1024, 4096, 1536, 4)):
        shapes = {"fc1": (m_e, 2 * f, h), "fc2": (m_e, h, f), "fc1_dgrad": (m_e, h, 2 * f),
                  "fc1_wgrad": (h, 2 * f, m_e), "fc2_dgrad": (m_e, f, h), "fc2_wgrad": (f, h, m_e)}
        for tag, (m, n, k) in shapes.items():
            out["experts"].append({"model": name, "gemm": tag, "m": m, "n": n, "k": k, "local": local,
                                   "one_s": one(m, n, k), "loop_s": loop(m, n, k, local)})
    for heads, s, d in ((64, 4096, 64), (32, 4096, 128)):
        q, k, v = [rand(1, heads, s, d).requires_grad_() for _ in range(3)]
        attend = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
        forward = timed(attend)
        grad = torch.randn_like(attend())
        both = timed(lambda: torch.autograd.grad(attend(), (q, k, v), grad))
        out["attention"].append({"heads": heads, "s": s, "d": d, "fwd_s": forward, "bwd_s": both - forward})
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
