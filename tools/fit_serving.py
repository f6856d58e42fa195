"""Fit the serving engines' efficiencies on the calibration rows of engine/serve/measured_serving.json and write
engine/serve/efficiencies.json (docs/serving.md). Run: python -m tools.fit_serving

Each engine's rows depend on its own (compute, memory) efficiencies, and the weight-only factors on gpt-fast's int8
and int4 rows. The all-reduce latency is not fitted (engine/serve/engines.py: ALLREDUCE_S, with its sources): the
first fit took it from the only calibration rows with tensor parallelism, vLLM's at batches of thousands where it is
not identifiable (104 µs, against 7 ms per token measured at batch 1 by the same engine) — docs/serving.md.
Minimised: Σ log²(predicted / measured), by Nelder–Mead on the logarithms (bounded to (0, 1] for
efficiencies, [0, 1 ms] for the latency).
"""
from __future__ import annotations

import json
import math

from engine.serve import validation
from engine.serve.engines import ALLREDUCE_S, EFFICIENCIES, Efficiency

BOUNDS = {"compute": (0.02, 1.0), "memory": (0.02, 1.0), "allreduce_s": (1e-7, 1e-3), "int8_weights": (0.05, 1.0),
          "int4_weights": (0.05, 1.0)}


def nelder_mead(f, x0: list[float], steps: list[float], iterations: int = 60) -> list[float]:
    """Minimise f from x0 (a simplex of x0 and x0 + step along each axis)."""
    simplex = [list(x0)] + [[x + (s if i == j else 0) for j, (x, s) in enumerate(zip(x0, steps))]
                            for i in range(len(x0))]
    values = [f(x) for x in simplex]
    for _ in range(iterations):
        order = sorted(range(len(simplex)), key=values.__getitem__)
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        centre = [sum(x[j] for x in simplex[:-1]) / (len(simplex) - 1) for j in range(len(x0))]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centre, worst)]
        fr = f(reflected)
        if fr < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centre, worst)]
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centre, worst)]
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, p)] for p in simplex[1:]]
                values = [values[0]] + [f(p) for p in simplex[1:]]
    return simplex[min(range(len(simplex)), key=values.__getitem__)]


def _clip(name: str, value: float) -> float:
    lo, hi = BOUNDS[name]
    return min(max(value, lo), hi)


def fit() -> dict:
    rows = [r for r in validation.measured()["rows"] if r["role"] == "calibration"]
    current = json.loads(EFFICIENCIES.read_text(encoding="utf-8"))
    out = {"description": current["description"], "allreduce_s": ALLREDUCE_S,
           "weight_only": dict(current["weight_only"]), "engines": {}}
    for label, engine_id in validation.ENGINE_IDS.items():
        own = [r for r in rows if r["engine"] == label]
        names = ["compute", "memory"]
        if any(r.get("weights") for r in own):
            names += ["int8_weights", "int4_weights"]
        start = {"compute": 0.5, "memory": 0.7, "allreduce_s": out["allreduce_s"],
                 "int8_weights": out["weight_only"]["int8"], "int4_weights": out["weight_only"]["int4"]}

        def efficiency(x: list[float]) -> Efficiency:
            values = dict(start) | {n: _clip(n, math.exp(v)) for n, v in zip(names, x)}
            return Efficiency(values["compute"], values["memory"], values["allreduce_s"], values["int8_weights"],
                              values["int4_weights"])

        def loss(x: list[float]) -> float:
            eff = efficiency(x)
            return sum(math.log(validation.predict(r, eff) / r["measured"]) ** 2 for r in own)

        best = efficiency(nelder_mead(loss, [math.log(start[n]) for n in names], [0.3] * len(names)))
        out["engines"][engine_id] = {"compute": round(best.compute, 4), "memory": round(best.memory, 4),
                                     "rows": len(own)}
        if "int8_weights" in names:
            out["weight_only"] = {"int8": round(best.int8_weights, 4), "int4": round(best.int4_weights, 4)}
    return out


if __name__ == "__main__":
    result = fit()
    EFFICIENCIES.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
