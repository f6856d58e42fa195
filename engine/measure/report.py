"""A measured run as text: the rows and lines both views share (the terminal's, ``engine.cli.text``, and the
Markdown report, ``measurement_markdown``), from the JSON view. User text (file, device and operator names) is made inert
(``engine.safe_text``)."""
from __future__ import annotations

from ..safe_text import markdown_line
from ..units import format_flop

MAX_OPS_SHOWN = 15


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _ms(x) -> str:
    return "—" if x is None else f"{x:,.3f}"


def _dims(d) -> str:
    text = str(d)
    return text if len(text) <= 60 else text[:57] + "…"


def step_rows(result: dict) -> list[list[str]]:
    return [[s["name"], _ms(s["total_ms"]), _ms(s["computation_ms"]), _ms(s["exposed_comm_ms"]),
             _ms(s["exposed_memcpy_ms"]), _ms(s["idle_ms"]), format_flop(s["op_flop"], "")] for s in result["steps"]]


STEP_HEADERS = ["step", "total ms", "computation ms", "exposed comm ms", "exposed memcpy ms", "idle ms", "FLOP"]
OP_HEADERS = ["operator", "input dims", "format", "calls", "FLOP / call", "kernel µs", "TFLOP/s", "bound"]


def op_rows(result: dict, limit: int = MAX_OPS_SHOWN) -> list[list[str]]:
    return [[o["name"], _dims(o["input_dims"]), o["dtype"] or "—", f"{o['calls']:,}",
             "—" if o["flop_per_call"] is None else format_flop(o["flop_per_call"], ""),
             "—" if o["kernel_time_us"] is None else f"{o['kernel_time_us']:,.1f}", "—" if o["tflops_per_s"] is None else f"{o['tflops_per_s']:.1f}",
             o["bound"] or "—"] for o in result["ops"][:limit]]


def headline(result: dict) -> list[tuple[str, str]]:
    u = result["utilization"]
    items = [("file", result["file"]), ("device", result["device"] or "none (CPU trace)"),
             ("chip", f"{result['chip_name']} ({result['chip']})" if result["chip"] else "unknown: name it"),
             ("HFU", _pct(result["hfu"])), ("MFU", _pct(result["mfu"]) if result["mfu"] is not None else
                                            "— (give the model: --config/--scenario/--preset/--model-flop)"),
             ("peak", f"{u['peak_flop_per_s']:.4g} FLOP/s ({u['peak']})" if u["peak_flop_per_s"] else "—"),
             ("peak source", u["peak_source"] or "—"), ("formula", u["formula"])]
    if u.get("model_source"):
        items.append(("model FLOP", f"{format_flop(u['model_flop_per_step'])} per step ({u['model_source']})"))
    if u.get("gap"):
        items.append(("model vs trace", u["gap"]))
    w = result.get("whole_trace")
    if w:
        items.append(("whole trace (HTA)", (f"span {w['span_us'] / 1e3:,.3f} ms · idle {w['idle_us'] / 1e3:,.3f} · "
                                            f"compute {w['compute_us'] / 1e3:,.3f} · non-compute "
                                            f"{w['non_compute_us'] / 1e3:,.3f} ms")))
    if result.get("spread"):
        sp = result["spread"]
        items.append(("ranks", (f"{len(result['ranks'])}; step {_ms(sp['step_ms_min'])}–{_ms(sp['step_ms_max'])} ms "
                                f"(spread {_pct(sp['spread'])}; the slowest rank sets the step)")))
    items.append(("unattributed GPU time", f"{result['unattributed_kernel_time_us']:,.1f} µs (FLOP unknown)"))
    return items


def _md_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(markdown_line(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def measurement_markdown(measurement) -> str:
    """The Markdown report of a ``TraceMeasurement`` or ``RunMeasurement`` (or their JSON view)."""
    result = measurement if isinstance(measurement, dict) else measurement.as_dict()
    out = [f"# Measured run: {markdown_line(result['file'])}", ""]
    out += [f"- **{k}**: {markdown_line(v)}" for k, v in headline(result)]
    out += ["", "## Where the step's time went (ms; TraceLens's split of the GPU-side step)", "",
            _md_table(STEP_HEADERS, step_rows(result)), ""]
    if result["ops"]:
        out += ["## Operators (the heaviest by kernel time)", "", _md_table(OP_HEADERS, op_rows(result, 30)), ""]
    if result["unattributed_kernels"]:
        out += ["## GPU time whose FLOP the trace cannot tell", ""]
        out += [f"- {markdown_line(k['name'][:120])}: {k['time_us']:,.1f} µs — {markdown_line(k['why'])}"
                for k in result["unattributed_kernels"][:10]]
        out.append("")
    if result["bottlenecks"]:
        out += ["## Bottlenecks and what to try", ""]
        out += [f"- {markdown_line(b['finding'])}. *Try:* {markdown_line(b['remedy'])}." for b in result["bottlenecks"]]
        out.append("")
    if result["notes"]:
        out += ["## Notes", ""] + [f"- {markdown_line(n)}" for n in result["notes"]] + [""]
    out.append("HFU counts the FLOP the trace's operators executed (FlopCounterMode's convention: matrix products, "
               "convolutions and attention); MFU the model's FLOP from FLOPscope's count. Peaks are dense.")
    return "\n".join(out) + "\n"
