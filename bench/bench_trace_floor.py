"""How fast a trace reader written in Python can be at all, against HTA 0.5.0 ÷ 20 on the same files.

    .venv/bin/python -m bench.bench_trace_floor [--repeat 5] [--tries 7] [--floor-python PYTHON]

``--floor-python``: the interpreter that measures the stages (one whose environment also holds polars, which the
project does not install; it needs msgspec, isal and pydantic beside it).

For each reference trace of ../shared/data/traces that HTA reads, in one fresh process, each stage the fastest of
``--tries`` runs in that process (warm: no first-touch page faults, the least each stage can cost here):

- ``inflate_ms``: the ``.gz`` file read and inflated (ISA-L, one call) — every reader does this;
- ``decode_one_object_ms``: msgspec's typed decoder making one object per event holding only its ``cat`` — the
  least a decoder that hands Python one object per event can do (msgspec is the fastest JSON decoder for Python);
- ``decode_fields_ms``: the same decoder typing the fields the analysis reads (``trace_fast``'s: phase, category,
  name, process, thread, start, duration, stream, correlation, the shapes left as raw JSON);
- ``read_fields_ms``: each of those fields read out of the non-Python complete events once, into one list per field
  (one C-level ``map(attrgetter)`` pass per field) — the least Python work before any rule is applied;
- beside them, the columnar readers that skip Python objects altogether, where installed, each given the events
  array alone (cut out beforehand, not timed) and a schema of six fields (phase, category, name, start, duration,
  stream and correlation): ``pyarrow_ms`` (``pyarrow.json``, one thread: it reads one event per line, so the
  array's line breaks are taken out and one put between events first, timed) and ``polars_ms``
  (``polars.read_json``). On this project's traces both are slower than msgspec's typed decode.

``floor_ms`` = inflate + decode_fields + read_fields: what any reader in Python pays before it has split a single
microsecond of the step; ``budget_ms`` = HTA's CPU time (``TraceAnalysis`` + ``get_temporal_breakdown``, the median
of ``--repeat`` fresh processes, run as ``bench_trace`` runs it) ÷ 20, the issue's target; ``left_ms`` what the
budget leaves for the analysis itself (the steps, the whole trace, the operators and their FLOP, the join to kernels,
the roofline). FLOPscope's whole ``measure_trace`` (median of ``--repeat`` fresh processes, first call) beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from bench.bench_trace import _HTA, _OURS, ROOT, TRACES, _median, _run, reference_traces

_FLOOR = r"""
import json, sys, time, typing
from operator import attrgetter
sys.path.insert(0, {root!r})
import msgspec
from isal import isal_zlib
from engine.measure import trace_fast

class OneObject(msgspec.Struct, gc=False):
    cat: typing.Any = None

class Doc(msgspec.Struct, gc=False):
    traceEvents: list[OneObject]

one_object = msgspec.json.Decoder(Doc).decode
fields = trace_fast._DOC.decode
EVENT = [attrgetter(k) for k in ("cat", "name", "pid", "tid", "ts", "dur", "args")]
ARGS = [attrgetter(k) for k in ("stream", "correlation", "dims", "types", "concrete")]
best = {{}}
def keep(stage, seconds):
    best[stage] = min(best.get(stage, 1e9), seconds * 1e3)
for _ in range({tries}):
    t = time.process_time(); raw = open({path!r}, "rb").read(); text = isal_zlib.decompress(raw, 31)
    keep("inflate_ms", time.process_time() - t)
    t = time.process_time(); doc = one_object(text); keep("decode_one_object_ms", time.process_time() - t)
    del doc
    t = time.process_time(); doc = fields(text); keep("decode_fields_ms", time.process_time() - t)
    t = time.process_time()
    xs = [e for e in doc.traceEvents if type(e) is trace_fast.XEvent and e.cat != "python_function"]
    columns = [list(map(get, xs)) for get in EVENT]
    args = [a for a in columns[-1] if a is not None]
    arg_columns = [list(map(get, args)) for get in ARGS]
    keep("read_fields_ms", time.process_time() - t)
    events = len(doc.traceEvents)
    del doc, xs, columns, args, arg_columns
array = bytes(msgspec.json.decode(text, type=dict[str, msgspec.Raw])["traceEvents"])
try:
    import io
    import pyarrow as pa, pyarrow.json as pj
    schema = pa.schema([("ph", pa.string()), ("cat", pa.string()), ("name", pa.string()), ("ts", pa.float64()),
                        ("dur", pa.float64()), ("args", pa.struct([("stream", pa.int64()),
                                                                   ("correlation", pa.int64())]))])
    import re
    for _ in range({tries}):
        t = time.process_time()
        flat = array[1:-1].replace(b"\n", b"")
        separator = re.search(rb"\}}[ ]*,[ ]*\{{", flat).group()  # Kineto's, as it first comes
        lines = flat.replace(separator, b"}}\n{{").strip()
        pj.read_json(io.BytesIO(lines), read_options=pj.ReadOptions(use_threads=False),
                     parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"))
        keep("pyarrow_ms", time.process_time() - t)
except ImportError:
    pass
except Exception as exc:  # a field of two types (a text stream on ROCm): this reader cannot take the trace
    best["pyarrow_error"] = str(exc)[:160]
try:
    import io
    import polars as pl
    schema = {{"ph": pl.String, "cat": pl.String, "name": pl.String, "ts": pl.Float64, "dur": pl.Float64,
              "args": pl.Struct({{"stream": pl.Int64, "correlation": pl.Int64}})}}
    for _ in range({tries}):
        t = time.process_time()
        pl.read_json(io.BytesIO(array), schema=schema)
        keep("polars_ms", time.process_time() - t)
except ImportError:
    pass
except Exception as exc:
    best["polars_error"] = str(exc)[:160]
print(json.dumps({{**best, "events": events, "text_mb": len(text) / 1e6}}))
"""

TARGET = 20.0
"""The issue's speed-up over HTA's load + temporal breakdown."""


def _stages(python: str, code: str) -> dict:
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def floor(repeat: int, tries: int, python: str = sys.executable) -> list[dict]:
    rows = []
    for path in reference_traces():
        hta = [_run(_HTA.format(path=str(path))) for _ in range(repeat)]
        if any("failed" in r for r in hta):
            continue  # HTA cannot read it (tracelens h100 Qwen): no budget to set
        ours = [_run(_OURS.format(root=str(ROOT), path=str(path))) for _ in range(repeat)]
        stages = _stages(python, _FLOOR.format(root=str(ROOT), path=str(path), tries=tries))
        hta_ms = _median(hta, "cpu_s") * 1e3
        ours_ms = _median(ours, "cpu_s") * 1e3
        floor_ms = stages["inflate_ms"] + stages["decode_fields_ms"] + stages["read_fields_ms"]
        budget = hta_ms / TARGET
        rows.append({"file": str(path.relative_to(TRACES)), "events": stages["events"],
                     "text_mb": round(stages["text_mb"], 2), "hta_cpu_ms": hta_ms, "budget_ms": budget,
                     **{k: stages[k] for k in ("inflate_ms", "decode_one_object_ms", "decode_fields_ms",
                                               "read_fields_ms", "pyarrow_ms", "polars_ms", "pyarrow_error",
                                               "polars_error") if k in stages},
                     "floor_ms": floor_ms, "floor_share_of_budget": floor_ms / budget, "left_ms": budget - floor_ms,
                     "ours_cpu_ms": ours_ms, "ours_speedup": hta_ms / ours_ms,
                     "left_per_event_us": (budget - floor_ms) * 1e3 / stages["events"]})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tries", type=int, default=7)
    ap.add_argument("--floor-python", default=sys.executable)
    args = ap.parse_args()
    out = {"cpus": os.cpu_count(), "load_average": os.getloadavg(),
           "rows": floor(args.repeat, args.tries, args.floor_python)}
    out["load_average_after"] = os.getloadavg()
    out["files_floor_over_budget"] = [r["file"] for r in out["rows"] if r["floor_share_of_budget"] >= 1]
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
