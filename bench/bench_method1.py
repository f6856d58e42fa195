"""Method-1 engine speed: 1,000 and 10,000 layers, and side by side with FlopCounterMode.

    .venv/bin/python -m bench.bench_method1

Targets (issue 2): ≤ 5 ms per 1,000 layers, linear; ≥ 100× faster than FlopCounterMode on the
meta device for a 48-block transformer encoder (d_model 1600, 25 heads, ff 6400, 1,024 tokens),
with identical ``matmul`` totals.
"""
from __future__ import annotations

import json

from bench.common import median_seconds
from engine.method1.architecture import Architecture, evaluate

BLOCK = [{"type": "dense", "units": 256}, {"type": "layer_norm"}, {"type": "activation", "function": "gelu"},
         {"type": "dropout", "rate": 0.1}]


def deep_mlp(n_layers: int) -> dict:
    layers = (BLOCK * (n_layers // len(BLOCK) + 1))[:n_layers]
    return {"input": {"shape": [256], "sequence_length": 128}, "layers": layers}


def encoder_spec(blocks=48, d=1600, heads=25, ff=6400, tokens=1024) -> dict:
    block = [{"type": "multi_head_attention", "heads": heads}, {"type": "layer_norm"},
             {"type": "dense", "units": ff}, {"type": "activation", "function": "relu"},
             {"type": "dropout", "rate": 0.1}, {"type": "dense", "units": d}, {"type": "layer_norm"}]
    return {"input": {"shape": [d], "sequence_length": tokens}, "layers": block * blocks}


def engine_total(spec: dict) -> int:
    return evaluate(Architecture.model_validate(spec), "matmul").forward_flop


def torch_total(blocks=48, d=1600, heads=25, ff=6400, tokens=1024):
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):
        layer = torch.nn.TransformerEncoderLayer(d, heads, ff, batch_first=True)
        model = torch.nn.TransformerEncoder(layer, blocks, enable_nested_tensor=False)
        x = torch.empty(1, tokens, d)

    def count():
        with FlopCounterMode(display=False) as counter:
            model(x)
        return counter.get_total_flops()

    return count


def main() -> dict:
    out: dict = {}
    for n in (1_000, 10_000):
        spec = deep_mlp(n)
        arch = Architecture.model_validate(spec)
        out[f"validate_and_evaluate_{n}_layers_ms"] = 1e3 * median_seconds(lambda: engine_total(spec))
        out[f"evaluate_only_{n}_layers_ms"] = 1e3 * median_seconds(lambda: evaluate(arch, "matmul"))
    spec = encoder_spec()
    engine_s = median_seconds(lambda: engine_total(spec), repeat=21)
    out["encoder_engine_ms"] = 1e3 * engine_s
    out["encoder_engine_matmul_flop"] = engine_total(spec)
    try:
        count = torch_total()
    except ImportError:
        out["encoder_torch"] = "torch not installed"
    else:
        torch_s = median_seconds(count, repeat=5, warmup=1)
        out["encoder_torch_flopcounter_ms"] = 1e3 * torch_s
        out["encoder_torch_matmul_flop"] = count()
        out["encoder_totals_identical"] = out["encoder_torch_matmul_flop"] == out["encoder_engine_matmul_flop"]
        out["encoder_speedup"] = torch_s / engine_s
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
