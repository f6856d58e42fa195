"""Hypothesis strategies over the scenario model, blocks included: JSON objects shaped like scenarios, whose
values mix valid sizes with the hostile ones (0, −1, 10^9, 1e308, NaN, true, text, null), nested residuals,
branches and repeats (multiplying copies), ranges, a hardware run and a plan. ``WELL_FORMED``: the same shapes
with values of the right kind and range only, so that most links open and the pages compute from them. Used by
the engine-level property test and the generated links through the pages (thousands of cases each)."""
from __future__ import annotations

import math

from hypothesis import strategies as st

from engine.method1.blocks import MAX_DEPTH

HOSTILE = (0, -1, 10**9, 10**12, 1e308, -1e308, 5e-324, math.nan, math.inf, True, False, "7", None, 2**63)
CHIPS = ("nvidia-a100-sxm4-80gb", "nvidia-h100-sxm", "google-tpu-v4", "nvidia-zz9000", "NVIDIA H100", "")


def deep(layer: dict, depth: int) -> dict:
    for _ in range(depth):
        layer = {"type": "residual", "body": [layer]}
    return layer


def scenarios(hostile: bool = True) -> st.SearchStrategy:
    """Scenarios as decoded JSON. ``hostile``: values mix valid sizes with the hostile ones (most such scenarios
    are refused when the link is decoded); without it every value is of the right kind and range (most open,
    and the pages compute from them: blocks, repeats, ranges, a hardware run, a plan)."""

    def sized(low: int = 1, high: int = 64) -> st.SearchStrategy:
        """Mostly a valid size, sometimes (``hostile``) a hostile value."""
        valid = st.integers(low, high)
        return st.one_of(valid, valid, valid, st.sampled_from(HOSTILE)) if hostile else valid

    def fraction() -> st.SearchStrategy:
        valid = st.floats(0.01, 1.0)
        return st.one_of(valid, valid, st.sampled_from(HOSTILE)) if hostile else valid

    def positive() -> st.SearchStrategy:
        valid = st.one_of(st.floats(1e-3, 1e6), st.integers(1, 10**6))
        return st.one_of(valid, st.sampled_from(HOSTILE)) if hostile else valid

    def pick(good: tuple, bad: tuple) -> st.SearchStrategy:
        return st.sampled_from(good + bad if hostile else good)

    leaves = st.one_of(
        st.fixed_dictionaries({"type": st.just("dense"), "units": sized()}, optional={"bias": st.booleans()}),
        st.fixed_dictionaries({"type": st.just("conv1d"), "filters": sized(), "kernel_size": sized(1, 5)},
                              optional={"stride": sized(1, 3), "padding": pick(("same", "valid"), (1,))}),
        st.fixed_dictionaries({"type": st.sampled_from(["flatten", "layer_norm", "dropout"])}),
        st.fixed_dictionaries({"type": st.just("activation"), "function": pick(("relu", "gelu"), ("nope",))}),
        st.fixed_dictionaries({"type": st.just("lstm"), "units": sized()},
                              optional={"return_sequences": st.booleans()}),
        st.fixed_dictionaries({"type": st.just("transformer_block"), "heads": sized(1, 8)},
                              optional={"kv_heads": sized(1, 8), "ff_size": sized(), "experts": sized(1, 8),
                                        "active_experts": sized(1, 4), "gated": st.booleans()}),
        *([st.fixed_dictionaries({"type": st.text(max_size=6)})] if hostile else []))

    def _blocks(children: st.SearchStrategy) -> st.SearchStrategy:
        inner = st.lists(children, min_size=0, max_size=3)
        return st.one_of(
            st.fixed_dictionaries({"type": st.just("residual"), "body": inner}, optional={"shortcut": inner}),
            st.fixed_dictionaries({"type": st.just("branches"), "branches": st.lists(inner, min_size=1, max_size=3)},
                                  optional={"merge": st.sampled_from(["concat", "add", "multiply", "max"]),
                                            "axis": st.sampled_from(["channels", "sequence"])}),
            st.fixed_dictionaries({"type": st.just("repeat"), "layers": inner,
                                   "times": st.one_of(st.integers(1, 4), pick((0, 40, 1000), (100_000, 100_001,
                                                                                              True, 2.5)))}),
        )

    layers = st.recursive(leaves, _blocks, max_leaves=12)

    training = st.fixed_dictionaries(
        {"epochs": positive()},
        optional={"examples": positive(), "batch_size": sized(1, 512), "batches_per_epoch": sized(1, 1000),
                  "backward_ratio": st.one_of(st.floats(0, 4), *([st.sampled_from(HOSTILE)] if hostile else [])),
                  "backward_ratio_low": st.floats(0, 4), "backward_ratio_high": st.floats(0, 8),
                  "examples_low": positive(), "examples_high": positive(),
                  "optimizer": st.sampled_from(["none", "adam", "sgd"]), "recomputation": st.booleans()})

    hardware = st.fixed_dictionaries(
        {"chip": pick(CHIPS[:3], CHIPS[3:]), "duration": positive(),
         "duration_unit": st.sampled_from(["days", "hours"])},
        optional={"chip_count": positive(), "utilization": fraction(), "chip_count_low": positive(),
                  "chip_count_high": positive(), "duration_low": positive(), "duration_high": positive(),
                  "utilization_low": fraction(), "utilization_high": fraction(),
                  "precision": st.sampled_from(["bf16", "fp32", "fp8", "tf32", "fp4"])})

    plan = st.fixed_dictionaries({}, optional={
        "chip": pick(CHIPS[:3], CHIPS[3:]), "kernel_efficiency": fraction(),
        "layout": st.fixed_dictionaries({}, optional={k: sized(1, 16) for k in ("dp", "tp", "pp", "ep", "micro_batch",
                                                                               "global_batch", "virtual_stages")}),
        "options": st.fixed_dictionaries({}, optional={"optimizer": pick(("adam", "sgd"), ("x",)),
                                                       "zero": pick((0, 1, 2, 3), (4,)),
                                                       "recompute": st.sampled_from(["none", "full", "selective"])})})

    return st.fixed_dictionaries(
        {"version": st.just(1),
         "input": st.fixed_dictionaries({"shape": st.lists(sized(1, 32), min_size=1, max_size=3)},
                                        optional={"sequence_length": sized(1, 16)}),
         "layers": st.one_of(st.lists(layers, max_size=5),
                             st.builds(lambda layer, d: [deep(layer, d)], leaves,
                                       st.integers(MAX_DEPTH - 2, MAX_DEPTH + (1 if hostile else 0))))},
        optional={"name": st.text(max_size=30), "training": training, "hardware": hardware, "plan": plan,
                  "convention": st.sampled_from(["matmul", "full"])})


SCENARIOS = scenarios()
"""A scenario as decoded JSON (dump it with ``json.dumps``: NaN and infinity travel as JSON's extensions)."""
WELL_FORMED = scenarios(hostile=False)
"""Scenarios whose every value is of the right kind and range: most open, so the pages compute from them."""
