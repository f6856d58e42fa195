"""Time the dense linear layers of Llama 3 8B and 70B (b·s = 16,384 tokens) on a CUDA GPU in BF16 and in FP8
(``torch._scaled_mm``, E4M3 with per-tensor scales, BF16 output) and the cast of an activation to FP8, and print
JSON: a check on ``engine.plan.kernel``'s FP8 assumption (the linear layers at the FP8 dense peak with
the BF16 η), not used by it. CUDA events, median of 15 after 4 warm-ups.

    python tools/gpu_format_gemms.py > formats.json

Figures measured on an H200 (run as an equivalent inline script with the shapes named "8b qkv" …) are in
docs/plan.md, "FP8 against BF16, measured".
"""
import json
import statistics

import torch

SHAPES = {"llama3-8b qkv": (16384, 6144, 4096), "llama3-8b proj": (16384, 4096, 4096),
          "llama3-8b fc1": (16384, 28672, 4096), "llama3-8b fc2": (16384, 4096, 14336),
          "llama3-70b qkv": (16384, 10240, 8192), "llama3-70b fc1": (16384, 57344, 8192),
          "llama3-70b fc2": (16384, 8192, 28672)}


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


def main() -> dict:
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "gemm": [], "cast": []}
    one = torch.ones((), device="cuda", dtype=torch.float32)
    for name, (m, n, k) in SHAPES.items():
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        row = {"name": name, "m": m, "n": n, "k": k, "bf16_s": timed(lambda x=x, w=w: x @ w.t())}
        try:
            x8, w8 = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
            row["fp8_s"] = timed(lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one,
                                                          out_dtype=torch.bfloat16))
        except Exception as exc:  # noqa: BLE001 — report, do not stop the other shapes
            row["fp8_error"] = repr(exc)[:200]
        out["gemm"].append(row)
        del x, w
    a = torch.randn(16384, 14336, device="cuda", dtype=torch.bfloat16)
    out["cast"].append({"elements": a.numel(), "s": timed(lambda: a.to(torch.float8_e4m3fn))})
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
