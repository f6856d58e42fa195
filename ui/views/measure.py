"""The "Measure a run" page's pure parts: a measurement's JSON view (or a shared summary, same keys) → the
step's stacked bar, the headline metrics, the operator table, the roofline's traces, the bottleneck lines."""
from __future__ import annotations

import html

from engine.units import format_flop

PARTS = (("exposed_comm_ms", "exposed communication", "#d62728"), ("exposed_memcpy_ms", "exposed memcpy", "#9467bd"),
         ("idle_ms", "idle", "#c7c7c7"))
FAMILY_COLOURS = {"matrix products": "#1f6feb", "attention": "#17becf", "convolution": "#2ca02c",
                  "normalisation": "#bcbd22", "element-wise & other": "#ff7f0e"}


def step_bar(result: dict) -> list[dict]:
    """Stacked horizontal bars, one per step (ms): computation split by family, then exposed communication,
    exposed memcpy and idle — together the step's total."""
    steps = [s for s in result["steps"] if s.get("total_ms") is not None and s.get("computation_ms") is not None]
    names = [html.escape(str(s["name"])) for s in steps]
    families = []
    for s in steps:
        for f in (s.get("computation_by_family_ms") or {}):
            if f not in families:
                families.append(f)
    traces = []
    for f in families or ["computation"]:
        values = [(s.get("computation_by_family_ms") or {}).get(f, 0.0) if families else s["computation_ms"]
                  for s in steps]
        traces.append({"type": "bar", "orientation": "h", "y": names, "x": values, "name": html.escape(f),
                       "marker": {"color": FAMILY_COLOURS.get(f, "#1f6feb")},
                       "hovertemplate": f"{html.escape(f)}: %{{x:.3f}} ms<extra></extra>"})
    for key, label, colour in PARTS:
        traces.append({"type": "bar", "orientation": "h", "y": names, "x": [s.get(key) or 0.0 for s in steps],
                       "name": label, "marker": {"color": colour},
                       "hovertemplate": f"{label}: %{{x:.3f}} ms<extra></extra>"})
    return traces


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def headline_metrics(result: dict) -> list[tuple[str, str, str | None]]:
    """(label, value, tooltip) for the metric row: step time, HFU, MFU, the chip."""
    timed = [s for s in result["steps"] if s.get("total_ms")]
    step_ms = sum(s["total_ms"] for s in timed) / len(timed) if timed else None
    flop = sum(s.get("op_flop") or 0 for s in timed) / len(timed) if timed else None
    peak = (result.get("utilization") or {}).get("peak") or result.get("peak")
    return [
        ("Step time", "—" if step_ms is None else f"{step_ms:,.3f} ms",
         "GPU-side ProfilerStep window: first kernel's start to the last one's end" if result.get("gpu", True)
         else "host-side ProfilerStep window (a CPU trace)"),
        ("FLOP per step", "—" if flop is None else format_flop(flop, ""),
         "FLOP of the step's operators from their recorded shapes (FlopCounterMode's convention)"),
        ("HFU", _pct(result.get("hfu")), "executed FLOP per step ÷ (step time × dense peak"
                                         + (f", {peak})" if peak else ")")),
        ("MFU", _pct(result.get("mfu")), "the model's FLOP per step ÷ (step time × dense peak); give the model below"),
    ]


def op_table(result: dict, limit: int = 200) -> list[dict]:
    """The operator rows for a table (names as they are: the table shows text, not Markdown)."""
    rows = []
    for o in result["ops"][:limit]:
        dims = o["input_dims"] if isinstance(o["input_dims"], str) else str(o["input_dims"])
        rows.append({"operator": o["name"], "input dims": dims[:120], "format": o.get("dtype") or "",
                     "calls": o["calls"],
                     "FLOP / call": None if o.get("flop_per_call") is None else float(o["flop_per_call"]),
                     "kernel µs": round(o["kernel_time_us"], 2),
                     "TFLOP/s": None if o.get("tflops_per_s") is None else round(o["tflops_per_s"], 2),
                     "bound": o.get("bound") or ""})
    return rows


def roofline(result: dict) -> tuple[list[dict], int] | None:
    """The roofline's traces (achieved FLOP/s against FLOP per byte, log-log) and how many operators could not
    be placed (no FLOP, or no kernel time); None without the chip's peak and bandwidth."""
    u = result.get("utilization") or {}
    peak = u.get("peak_flop_per_s")
    cal = result.get("calibration") or {}
    bw = cal.get("bandwidth_bytes_per_s")
    if not peak or not bw:
        return None
    points = [o for o in result["ops"] if o.get("flop_per_call") and o.get("kernel_time_us") and o.get("bytes")]
    left_out = len(result["ops"]) - len(points)
    xs = [o["flop_per_call"] / o["bytes"] for o in points] or [1.0]
    lo, hi = min(min(xs) / 4, peak / bw / 20), max(max(xs) * 4, peak / bw * 20)
    grid = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    traces = [{"type": "scatter", "mode": "lines", "x": grid, "y": [min(peak, x * bw) for x in grid],
               "name": f"roof: {peak / 1e12:,.0f} TFLOP/s, {bw / 1e12:,.2f} TB/s", "line": {"color": "#444"},
               "hovertemplate": "attainable %{y:.3e} FLOP/s at %{x:.3g} FLOP/byte<extra></extra>"}]
    for bound, colour in (("compute", "#1f6feb"), ("memory", "#ff7f0e"), (None, "#7f7f7f")):
        group = [o for o in points if o.get("bound") == bound]
        if not group:
            continue
        traces.append({
            "type": "scatter", "mode": "markers", "name": f"{bound or 'unplaced'}-bound operators",
            "x": [o["flop_per_call"] / o["bytes"] for o in group],
            "y": [o["flop_per_call"] * o["calls"] / (o["kernel_time_us"] / 1e6) for o in group],
            "marker": {"color": colour, "size": [max(6.0, min(30.0, 6 + o["kernel_time_us"] ** 0.5 / 4)) for o in group],
                       "opacity": 0.75},
            "customdata": [[html.escape(o["name"]), html.escape(str(o["input_dims"])[:80]),
                            f"{o['kernel_time_us']:,.1f}"] for o in group],
            "hovertemplate": "%{customdata[0]}<br>%{customdata[1]}<br>%{y:.3e} FLOP/s · %{customdata[2]} µs"
                             "<extra></extra>"})
    return traces, left_out


def bottleneck_lines(result: dict) -> list[str]:
    return [f"{b['finding']}. Try: {b['remedy']}." for b in result.get("bottlenecks", [])]
