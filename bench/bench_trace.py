"""Trace measurement speed and memory, side by side with HTA 0.5.0 on the same files.

    .venv/bin/python -m bench.bench_trace [--big-gb 1.0] [--repeat 3] [--skip-big] [--before DIR]

1. Each reference trace of ../shared/data/traces (HTA's five and TraceLens's seven): HTA's
   ``TraceAnalysis(trace_dir=…)`` + ``get_temporal_breakdown()`` and FLOPscope's whole ``measure_trace`` (steps,
   whole trace, operators, roofline, HFU), each in a fresh process, timed there after the imports (CPU time of
   the process and wall-clock; the median of ``--repeat`` runs; beside it the ratio of the two tools' fastest runs,
   the estimate least disturbed by other work on a shared machine).
2. A ~1 GB (uncompressed) trace made by replicating the steps of ``trace_diff_control_control`` (times,
   correlation ids and step numbers shifted per copy) and written to a temporary folder (never the project),
   measured in a fresh process: wall and CPU time and the peak resident set size (VmHWM).

3. With ``--before DIR`` (an export of an earlier commit, e.g. ``git archive <commit> engine | tar -x -C DIR``), the
   same files measured by that version too, in the same run: the before/after of a change.

Fairness: the CPU time inside each process is its own (``process_time``) plus its children's
(``RUSAGE_CHILDREN``: HTA 0.5.0 forks a pool only to parse several ranks, so 0 here on one file, checked in every
run as ``children_cpu_s``). Libraries (numpy, msgspec; HTA's pandas) are imported before the clock starts, but no
work of FLOPscope's is: its modules load no table at import, and the chip database is read inside the first call.
Beside it, the whole process (``process_cpu_s``, ``process_wall_s``: ``python -c`` from start to exit, imports and
interpreter start included, from the parent's ``RUSAGE_CHILDREN``) for both tools.

Targets (issue 36): at least 20× faster than HTA's load + breakdown; the 1 GB trace under 500 MB RSS. The machine
is shared: compare the two tools within one run, and prefer CPU time.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "data" / "traces"

_OURS = """
import json, sys, time
sys.path.insert(0, {root!r})
import numpy  # imported before the clock starts, as HTA's pandas and numpy are
from engine.measure.measurement import measure_trace
try:
    import engine.measure.trace_fast  # msgspec's import, like HTA's, before the clock
except ImportError:
    pass
import resource
kids = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
t0, c0, k0 = time.perf_counter(), time.process_time(), kids()
m = measure_trace({path!r})
wall, cpu, children = time.perf_counter() - t0, time.process_time() - c0, kids() - k0
peak = [int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]
w = m.whole_trace
print(json.dumps({{"wall_s": wall, "cpu_s": cpu + children, "children_cpu_s": children, "peak_rss_mb": peak,
                  "events": m.events, "idle_us": w.idle_us if w else None,
                  "compute_us": w.compute_us if w else None}}))
"""

_HTA = """
import json, logging, os, sys, tempfile, time
logging.disable(logging.WARNING)
import warnings; warnings.simplefilter("ignore")
from hta.trace_analysis import TraceAnalysis
d = tempfile.mkdtemp()
os.symlink({path!r}, os.path.join(d, os.path.basename({path!r})))
import resource
kids = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
t0, c0, k0 = time.perf_counter(), time.process_time(), kids()
df = TraceAnalysis(trace_dir=d).get_temporal_breakdown(visualize=False)
wall, cpu, children = time.perf_counter() - t0, time.process_time() - c0, kids() - k0
peak = [int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]
row = df.iloc[0]
print(json.dumps({{"wall_s": wall, "cpu_s": cpu + children, "children_cpu_s": children, "peak_rss_mb": peak,
                  "idle_us": float(row["idle_time(us)"]), "compute_us": float(row["compute_time(us)"])}}))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(code: str) -> dict:
    """One fresh process: what it measured inside, and the whole process from outside (``process_cpu_s``, its
    and its children's CPU from start to exit; ``process_wall_s``)."""
    c0, t0 = _children_cpu(), time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    whole = {"process_cpu_s": _children_cpu() - c0, "process_wall_s": time.perf_counter() - t0}
    if out.returncode:
        lines = out.stderr.strip().splitlines()
        return {"failed": lines[-1][:200] if lines else f"exit {out.returncode}"}
    return {**json.loads(out.stdout.strip().splitlines()[-1]), **whole}


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def reference_traces() -> list[Path]:
    """The reference traces of ../shared/data/traces: HTA's five, then TraceLens's seven."""
    return sorted(TRACES.glob("*.json.gz")) + sorted(TRACES.glob("tracelens/*/*.json.gz"))


def side_by_side(repeat: int, before: Path | None = None) -> list[dict]:
    rows = []
    for path in reference_traces():
        ours = [_run(_OURS.format(root=str(ROOT), path=str(path))) for _ in range(repeat)]
        earlier = [_run(_OURS.format(root=str(before), path=str(path))) for _ in range(repeat)] if before else []
        hta = [_run(_HTA.format(path=str(path))) for _ in range(repeat)]
        failed = next((r["failed"] for r in hta if "failed" in r), None)
        hta = [] if failed else hta
        row = {"file": str(path.relative_to(TRACES)), "mb_gz": round(path.stat().st_size / 1e6, 3),
               "events": ours[0]["events"], "ours_cpu_s": _median(ours, "cpu_s"), "ours_wall_s": _median(ours, "wall_s"),
               "ours_peak_rss_mb": _median(ours, "peak_rss_mb"), "ours_children_cpu_s": _median(ours, "children_cpu_s"),
               "ours_process_cpu_s": _median(ours, "process_cpu_s"),
               "ours_process_wall_s": _median(ours, "process_wall_s")}
        if earlier:
            row.update({"before_cpu_s": _median(earlier, "cpu_s"), "before_peak_rss_mb": _median(earlier, "peak_rss_mb"),
                        "speedup_cpu_vs_before": _median(earlier, "cpu_s") / _median(ours, "cpu_s")})
        if failed:
            row["hta_failed"] = failed
        if hta:
            row.update({"hta_cpu_s": _median(hta, "cpu_s"), "hta_wall_s": _median(hta, "wall_s"),
                        "hta_peak_rss_mb": _median(hta, "peak_rss_mb"),
                        "hta_children_cpu_s": _median(hta, "children_cpu_s"),
                        "hta_process_cpu_s": _median(hta, "process_cpu_s"),
                        "hta_process_wall_s": _median(hta, "process_wall_s"),
                        "speedup_cpu": _median(hta, "cpu_s") / _median(ours, "cpu_s"),
                        "speedup_wall": _median(hta, "wall_s") / _median(ours, "wall_s"),
                        "speedup_process_cpu": _median(hta, "process_cpu_s") / _median(ours, "process_cpu_s"),
                        "speedup_cpu_of_minima": min(r["cpu_s"] for r in hta) / min(r["cpu_s"] for r in ours),
                        "same_idle_compute": abs(hta[0]["idle_us"] - ours[0]["idle_us"]) <= 2
                        and abs(hta[0]["compute_us"] - ours[0]["compute_us"]) <= 2})
        rows.append(row)
    return rows


def replicated_trace(target_bytes: float, out: Path) -> dict:
    """``trace_diff_control_control``'s events copied until the file holds ``target_bytes`` of JSON text; each copy
    shifted by the original's span (times), by the largest id + 1 (correlation and External ids) and by the number
    of steps (ProfilerStep#N)."""
    doc = json.loads(gzip.decompress((TRACES / "trace_diff_control_control.json.gz").read_bytes()))
    events = doc.pop("traceEvents")
    span = max(e.get("ts", 0) + e.get("dur", 0) for e in events) - min(e["ts"] for e in events if "ts" in e)
    ids = max(max(e.get("args", {}).get("correlation", 0) or 0, e.get("args", {}).get("External id", 0) or 0,
                  e.get("id", 0) if isinstance(e.get("id"), int) else 0) for e in events) + 1
    steps = sorted({int(e["name"].split("#")[1]) for e in events if e.get("name", "").startswith("ProfilerStep#")})
    copies = 0
    written = 0
    with open(out, "w", encoding="utf-8") as f:
        head = json.dumps(doc)[:-1]
        f.write(head + ', "traceEvents": [\n')
        first = True
        while written < target_bytes:
            for e in events:
                e2 = dict(e)
                if "ts" in e2:
                    e2["ts"] = e2["ts"] + copies * span
                if isinstance(e2.get("id"), int):
                    e2["id"] = e2["id"] + copies * ids
                args = e2.get("args")
                if isinstance(args, dict):
                    args = dict(args)
                    for key in ("correlation", "External id"):
                        if isinstance(args.get(key), int) and args[key] > 0:
                            args[key] += copies * ids
                    e2["args"] = args
                name = e2.get("name", "")
                if name.startswith("ProfilerStep#"):
                    e2["name"] = f"ProfilerStep#{int(name.split('#')[1]) + copies * len(steps)}"
                text = json.dumps(e2)
                f.write(("" if first else ",\n") + text)
                first = False
                written += len(text) + 2
            copies += 1
        f.write("\n]}\n")
    return {"copies": copies, "events": copies * len(events), "bytes": out.stat().st_size}


def big(gb: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "replicated.pt.trace.json"
        made = replicated_trace(gb * 1e9, path)
        ours = _run(_OURS.format(root=str(ROOT), path=str(path)))
        return {**made, "gb": made["bytes"] / 1e9, **ours}


def main() -> dict:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big-gb", type=float, default=1.0)
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--before", type=Path, default=None, help="an earlier version's folder (holding engine/)")
    args = ap.parse_args()
    out = {"cpus": os.cpu_count(), "load_average": os.getloadavg(),
           "side_by_side": side_by_side(args.repeat, args.before)}
    out["load_average_after"] = os.getloadavg()
    for key in ("speedup_cpu", "speedup_wall", "speedup_process_cpu", "speedup_cpu_of_minima"):
        values = [r[key] for r in out["side_by_side"] if key in r]
        if values:
            out[f"median_{key}"] = statistics.median(values)
            out[f"min_{key}"] = min(values)
    if not args.skip_big:
        out["big"] = big(args.big_gb)
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
