"""Page-run seconds and outcome for the crafted links of the third reliability probe (derived quantities).

Each link runs once per page through Streamlit's AppTest (the script as the server runs it), entering via
``app.py``; a run prints its wall and CPU seconds (the process's: on a shared machine the wall time follows the
load) and whether the page showed an exception element, or its first message.

    python -m bench.bench_crafted_links [CASE ...]
"""
from __future__ import annotations

import base64
import json
import sys
import time
import zlib
from pathlib import Path

from ui.navigation import PAGE_NAMES as PAGES

ROOT = Path(__file__).resolve().parents[1]


def pack(text: str) -> str:
    return "1." + base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


def pack_json(obj) -> str:
    return pack(json.dumps(obj, separators=(",", ":")))


SEED = {"version": 1, "input": {"shape": [64]}, "layers": [{"type": "dense", "units": 64}],
        "training": {"epochs": 1, "examples": 1000}}
HW = {"chip": "nvidia-a100-sxm4-80gb", "chip_count": 8, "duration": 1.0, "duration_unit": "days",
      "utilization": 0.4}
DENSE = {"type": "dense", "units": 4}


def _nested_branches(depth: int) -> dict:
    inner: dict = DENSE
    for _ in range(depth):
        inner = {"type": "branches", "merge": "add", "branches": [[inner], [inner]]}
    return inner


def _nested_repeats(depth: int, times: int) -> dict:
    inner: dict = DENSE
    for _ in range(depth):
        inner = {"type": "repeat", "times": times, "layers": [inner]}
    return inner


def _sequence_doubling(copies: int) -> dict:
    return {"version": 1, "input": {"shape": [4], "sequence_length": 8},
            "layers": [{"type": "repeat", "times": copies, "layers": [
                {"type": "branches", "merge": "concat", "axis": "sequence", "branches": [[], []]}]}],
            "training": {"epochs": 1, "examples": 1}}


CASES = {
    "zero-compute": ("1.eNodjEEKgDAMBP-y514ET_2K9BAkaqHGYqMoJX-39TjL7FTcfJZ4CPzgECVfCl9RNsoMP43BHBK9zWlUoW-fsSRS"
                     "ZYEFBz0pSpS13zgf81b-FD-058QdzD75aiLA"),
    "chip-count-high-1e308": pack_json({**SEED, "hardware": {**HW, "chip_count_high": 1e308}}),
    "sequence-concat-40": pack_json(_sequence_doubling(40)),
    "sequence-concat-100000": pack_json(_sequence_doubling(100_000)),
    "nested-repeats-4": pack_json({**SEED, "input": {"shape": [4]}, "layers": [_nested_repeats(4, 100_000)]}),
    "residual-99999": pack_json({**SEED, "input": {"shape": [4]},
                                 "layers": [{"type": "residual", "body": [{"type": "flatten"}] * 99_999}]}),
    "branches-nested-12": pack_json({**SEED, "input": {"shape": [4]}, "layers": [_nested_branches(12)]}),
    "transformer-blocks-2000": pack_json({**SEED, "input": {"shape": [4096], "sequence_length": 4096},
                                          "layers": [{"type": "transformer_block", "heads": 32, "experts": 8,
                                                      "active_experts": 2, "gated": True}] * 2000}),
    "dense-2000-distinct": pack_json({**SEED, "input": {"shape": [4]},
                                      "layers": [{"type": "dense", "units": 4 + i % 7} for i in range(2000)]}),
    "branches-nested-9": pack_json({**SEED, "input": {"shape": [4]}, "layers": [_nested_branches(9)]}),
    "plan-huge-layout": pack_json({**SEED, "plan": {"layout": {"dp": 10**6, "tp": 8, "pp": 64, "global_batch": 10**9,
                                                             "micro_batch": 1}}}),
    "plan-chip-pattern": pack_json({**SEED, "plan": {"chip": "NVIDIA H100"}}),
    "boolean-epochs": pack_json({**SEED, "training": {"epochs": True, "examples": 1000}}),
    # the fourth probe (fuzzing): derived sizes that once ran per block, per feed-forward or per window
    "lightning-blocks-of-1": pack_json({**SEED, "input": {"shape": [64], "sequence_length": 10**9},
                                        "layers": [{"type": "transformer_block", "heads": 1, "mixer": "lightning",
                                                    "lightning_block_size": 1}]}),
    "bottleneck-1e6-feed-forwards": pack_json({**SEED, "input": {"shape": [8], "sequence_length": 4},
                                               "layers": [{"type": "bottleneck_block", "heads": 1, "ff_size": 1,
                                                           "feed_forwards": 10**6}]}),
    "adaptive-pool-1e9-rows": pack_json({**SEED, "input": {"shape": [10**9, 1, 1]},
                                         "layers": [{"type": "adaptive_avg_pool2d", "output_size": [10**9 - 1, 1]}]}),
    "layer-type-a-list": pack_json({**SEED, "layers": [{"type": []}]}),
    "examples-times-epochs-underflow": pack_json({**SEED, "training": {"examples": 1e-200, "epochs": 1e-200,
                                                                       "backward_ratio_low": 0.001}}),
    "duplicate-key": pack('{"version":1,"input":{"shape":[64]},"layers":[{"type":"dense","units":64}],'
                          '"training":{"epochs":1,"epochs":5,"examples":1000}}'),
}


def page_run(token: str, page: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    if page != "layer_builder":
        at.switch_page(f"pages/{page}.py")
    at.query_params["s"] = token
    start, cpu = time.perf_counter(), time.process_time()
    at.run()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    shown = [e.value for e in at.exception]
    return seconds, cpu, shown, [e.value for e in at.error] + [w.value for w in at.warning]


def main(names: list[str]) -> None:
    for page in PAGES:  # imports and caches warm before the first timed run
        page_run(pack_json(SEED), page)
    for name in names or list(CASES):
        for page in PAGES:
            seconds, cpu, exceptions, messages = page_run(CASES[name], page)
            first = (exceptions[0].splitlines()[0] if exceptions else (messages[0] if messages else ""))[:150]
            print(f"{name:24s} {page:14s} {seconds:6.2f} s wall {cpu:6.2f} s CPU  "
                  f"{'EXCEPTION ' if exceptions else ''}{first}",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
