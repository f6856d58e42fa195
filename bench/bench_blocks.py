"""Nested architectures: in-process evaluation of ResNet-152 and DenseNet-201 (blocks and repeats),
side by side with FlopCounterMode on the same nets (torch.nn after torchvision), same run.

    .venv/bin/python -m bench.bench_blocks

Targets (issue 11): evaluation ≤ 10 ms each (median), identical ``matmul`` totals.
"""
from __future__ import annotations

import json

from bench.common import median_seconds
from engine.method1 import vision_nets as nets
from engine.method1.architecture import Architecture, evaluate


def _empty_loop():
    for _ in range(1_000_000):
        pass


def main() -> dict:
    out: dict = {}
    # the machine's speed at the time: an empty loop of 10⁶ takes ~15–20 ms on an idle core (CPython 3.11+)
    out["calibration_empty_loop_1e6_ms"] = 1e3 * median_seconds(_empty_loop, repeat=7)
    cases = {"resnet152": (nets.resnet((3, 8, 36, 3), bottleneck=True), "resnet152"),
             "densenet201": (nets.densenet((6, 12, 48, 32)), "densenet201")}
    for name, ((shape, layers), torch_name) in cases.items():
        spec = {"input": {"shape": shape}, "layers": layers}
        arch = Architecture.model_validate(spec)
        engine_s = median_seconds(lambda: evaluate(arch, "matmul"), repeat=31)
        result = evaluate(arch, "matmul")
        out[f"{name}_evaluate_ms"] = 1e3 * engine_s
        out[f"{name}_validate_and_evaluate_ms"] = 1e3 * median_seconds(
            lambda: evaluate(Architecture.model_validate(spec), "matmul"), repeat=15)
        out[f"{name}_params"] = result.params
        out[f"{name}_matmul_flop"] = result.forward_flop
        try:
            import torch
            from torch.utils.flop_counter import FlopCounterMode

            from tests.method1 import torch_nets
        except ImportError:
            out[f"{name}_torch"] = "torch not installed"
            continue
        with torch.device("meta"):
            net = getattr(torch_nets, torch_name)().eval()
            x = torch.empty(1, 3, 224, 224)

        def count():
            with FlopCounterMode(display=False) as counter:
                net(x)
            return counter.get_total_flops()

        torch_s = median_seconds(count, repeat=5, warmup=1)
        out[f"{name}_torch_flopcounter_ms"] = 1e3 * torch_s
        out[f"{name}_totals_identical"] = (count(), sum(p.numel() for p in net.parameters())) == \
            (result.forward_flop, result.params)
        out[f"{name}_speedup_vs_flopcounter"] = torch_s / engine_s
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
