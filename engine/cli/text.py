"""Text output of the commands (``--format text``, the default on a terminal): aligned tables, units
(``engine.units``' display rules) and each result's formula line. JSON stays the default in pipes.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from .media_text import model_count_text, pipeline_text, vlm_step_text
from .text_layout import pairs, shown, table
from ..units import (format_chip_hours, format_co2_kg, format_count, format_duration, format_energy_kwh,
                          format_flop, format_number, format_pf_days)


def _layer_rows(layers: list[dict]) -> list[list[object]]:
    total = sum(r["forward_flop"] for r in layers) or 1.0
    return [[r.get("path") or r["index"],
             r["type"] + (f" · {r['part']}" if r.get("part") else "") + (f" ×{r['copies']}" if r.get("copies") else ""),
             r.get("name") or "",
             "×".join(map(str, r["output_shape"])) if isinstance(r.get("output_shape"), list) else r.get("output_shape"),
             f"{r['params']:,}", format_flop(r["forward_flop"], ""), format_flop(r["macs"], ""),
             f"{100 * r['forward_flop'] / total:.1f}%"] for r in layers]


def flops_text(result: dict) -> str:
    if "flop_by_component" in result:  # flops --config: a model's count per component
        return model_count_text(result)
    out = []
    if result.get("layers"):
        nested = any(r.get("path") for r in result["layers"])  # paths read left to right
        out += [table(["#", "layer", "name", "output", "params", "forward FLOP", "MACs", "share"],
                      _layer_rows(result["layers"]), right=(4, 5, 6, 7) if nested else (0, 4, 5, 6, 7)), ""]
    items = [("convention", result["convention"]), ("parameters", f"{result['params']:,}"),
             ("forward / example", format_flop(result["forward_flop"])),
             ("MACs / example", f"{format_flop(result['macs'], 'MACs')} (1 MAC = 2 FLOP)")]
    if result.get("backward_flop") is not None and result.get("forward_flop"):
        items.append(("backward / example", f"{format_flop(result['backward_flop'])} "
                                            f"(r = {result['backward_flop'] / result['forward_flop']:.3g})"))
    if result.get("trainable_params") is not None and result["trainable_params"] < result["params"]:
        items.append(("trainable", f"{result['trainable_params']:,} parameters (the rest frozen)"))
    g = result.get("onnx")
    if g:
        items += onnx_items(g)
    t = result.get("training")
    if t and t.get("backward") == "exact":
        items += [("training compute", f"{format_flop(result['training_flop'])} = {format_pf_days(result['pfs_days'])}"),
                  ("backward pass", t.get("note") or "counted layer by layer (asked for)"),
                  ("formula", f"C = (F + B) × examples × epochs{' + optimizer' if t['optimizer_flop'] else ''}"
                              f" = ({format_flop(t['forward_flop_per_example'], '')} + "
                              f"{format_flop(t['passes'] * t['forward_flop_per_example'] - t['forward_flop_per_example'], '')})"
                              f" × {format_count(t['total_examples'])}"
                              + (f" + {format_flop(t['optimizer_flop'], '')}" if t["optimizer_flop"] else "")
                              + f" = {format_flop(t['training_flop'])}")]
    elif t:
        items += [("training compute", f"{format_flop(result['training_flop'])} = {format_pf_days(result['pfs_days'])}"),
                  ("formula", f"C = F × (1 + r) × examples × epochs{' + optimizer' if t['optimizer_flop'] else ''}"
                              f" = {format_flop(t['forward_flop_per_example'], '')} × {t['passes']:g} × "
                              f"{format_count(t['total_examples'])}"
                              + (f" + {format_flop(t['optimizer_flop'], '')}" if t["optimizer_flop"] else "")
                              + f" = {format_flop(t['training_flop'])}")]
    return "\n".join(out) + pairs(items)


def _ops(ops: dict) -> str:
    return ", ".join(f"{op} ×{n:,}" for op, n in ops.items())


def onnx_items(g: dict) -> list[tuple[str, object]]:
    """The ONNX graph's summary lines: sizes given, what is not a parameter, and every node not counted."""
    return [("graph", f"{g['nodes']:,} nodes ({g['producer'] or 'unknown exporter'}, opset {g['opset']}); "
                      f"figures for one run with "
                      + ", ".join(f"{i['name']} {'×'.join(map(str, i['shape']))}" for i in g["inputs"])),
            ("not parameters", f"{g['state']:,} running statistics, {g['constants']:,} constant values"
             if g["state"] or g["constants"] else None),
            ("unknown operators", f"{_ops(g['unknown_ops'])} (not counted)" if g["unknown_ops"] else None),
            ("shapes unknown", f"{_ops(g['uncounted_ops'])} (not counted)" if g["uncounted_ops"] else None),
            ("notes", "; ".join(g["notes"]) if g["notes"] else None)]


def count_text(result: dict) -> str:
    """``count``: the rows and totals as ``flops`` prints them, then the backward pass and the notes."""
    c = result["count"]
    return flops_text(result) + "\n" + pairs([
        ("module", f"{c['module']} on an input {'×'.join(map(str, c['input_shape']))} ({c['input_dtype']})"),
        ("backward / run", f"{format_flop(c['backward_flop'])} ({c['trainable_params']:,} trainable parameters)"),
        ("notes", "; ".join(c["notes"]) if c["notes"] else None)])


def hardware_text(result: dict) -> str:
    peak = result["peak"]
    fmt = result["precision"] + (", tensor cores" if result["tensor_cores"] else ", no tensor cores")
    low, high = result.get("training_flop_low"), result.get("training_flop_high")
    return pairs([
        ("hardware", result["hardware"] + (f" ({result['chip']})" if result.get("chip") else "")),
        ("format", fmt),
        ("peak per chip", f"{format_number(result['peak_flop_per_s'] / 1e12)} T{peak['unit']} (dense)"),
        ("formula", result["formula"]),
        ("training compute", f"{format_flop(result['training_flop'])} = {format_pf_days(result['pfs_days'])}"),
        ("range", f"{format_flop(low or result['training_flop'])} – {format_flop(high or result['training_flop'])}"
         if low or high else None),
        ("chip time", format_chip_hours(result["chip_hours"])),
        ("wall-clock", format_duration(result["wall_clock_hours"]) if result.get("wall_clock_hours") else None),
        ("fallback", result.get("fallback")),
        ("utilization", result.get("utilization_basis")),
        ("cost", result.get("cost") or "no price"),
        ("energy", format_energy_kwh(result["energy_kwh"]) if result.get("energy_kwh") is not None else None),
        ("CO₂", format_co2_kg(result["co2_kg"]) if result.get("co2_kg") is not None else None),
    ] + [("note", n) for n in peak.get("notes", [])])


def _peak(peaks: dict, *keys: str) -> str:
    for key in keys:
        if peaks.get(key):
            return format_number(peaks[key] / 1e12)
    return "—"


def chips_text(result: list[dict]) -> str:
    rows = [[c["id"], c["name"], c["vendor"], (c.get("release_date") or "")[:4],
             _peak(c["peaks_flop_per_s"], "fp32"), _peak(c["peaks_flop_per_s"], "tf32_tensor"),
             _peak(c["peaks_flop_per_s"], "bf16_tensor", "fp16_tensor"), _peak(c["peaks_flop_per_s"], "fp8_tensor"),
             _peak(c["peaks_flop_per_s"], "fp4_tensor"),
             f"{c['tdp_w']:g}" if c.get("tdp_w") else "—"] for c in result]
    return (table(["id", "name", "vendor", "year", "FP32", "TF32 tensor", "BF16/FP16 tensor", "FP8 tensor",
                   "FP4 tensor", "TDP W"], rows, right=(3, 4, 5, 6, 7, 8, 9))
            + f"\n\n{len(result)} chips; dense peaks in TFLOP/s (tensor-core figures without sparsity)")


def schema_text(result: dict) -> str:
    def kind(prop: dict) -> str:
        if "$ref" in prop:
            return prop["$ref"].rsplit("/", 1)[-1]
        if "anyOf" in prop:
            return " | ".join(kind(p) for p in prop["anyOf"])
        if prop.get("type") == "array":
            return f"list of {kind(prop.get('items', {}))}"
        if "enum" in prop:
            return " | ".join(map(repr, prop["enum"]))
        if "const" in prop:
            return repr(prop["const"])
        return prop.get("type", "object")

    blocks = []
    for name, model in [("Scenario", result)] + sorted(result.get("$defs", {}).items()):
        props = model.get("properties")
        if not props:
            continue
        required = set(model.get("required", ()))
        rows = [[key + ("*" if key in required else ""), kind(p), (p.get("description") or "").split("\n")[0]]
                for key, p in props.items()]
        blocks.append(f"{name}\n" + table(["field", "type", "description"], rows))
    return ("\n\n".join(blocks) + "\n\n* required. The full JSON Schema: python -m engine schema --format json")


def trend_text(result: dict) -> str:
    w = result["window"]
    ci = result.get("ci_doubling_months")
    return pairs([
        ("source", f"{result['source']} ({result['rows']:,} rows, {result['skipped']:,} skipped)"),
        ("window", f"{w['start_year'] or '…'} – {w['end_year_exclusive'] or '…'} (end exclusive); domain "
                   f"{w['domain'] or 'all'}; {w['frontier']}" + (f" {w['top_k']}" if w.get("top_k") else "")),
        ("runs fitted", f"{result['n']:,}"),
        ("formula", "log10(FLOP) = a + b × year; doubling = 12 × log10(2) / b months"),
        ("doubling", f"{format_number(result['doubling_months'], 3)} months" if result.get("doubling_months") else "—"),
        ("95% interval", f"{format_number(ci[0], 3)} – {format_number(ci[1], 3)} months" if ci and None not in ci else None),
        ("growth per year", f"{format_number(result['growth_per_year'], 3)}×"),
        ("R²", format_number(result["r_squared"], 3) if result.get("r_squared") is not None else None),
    ])


def _keys(keys: Iterable[str]) -> str:
    """Config keys for a terminal: a key with control characters is shown escaped."""
    return ", ".join(shown(k) for k in keys)


def transformer_text(result: dict) -> str:
    if "models" in result:  # --list-models
        return table(["id", "model", "family", "training tokens"],
                     [[m["id"], m["name"], m["family"],
                       format_count(m["training_tokens"]) if m["training_tokens"] else "—"]
                      for m in result["models"]], right=(3,))
    head = pairs([
        ("model", f"{result['model_type']} — {format_count(result['params'])} parameters "
                  f"({format_count(result['non_embedding_params'])} non-embedding)"),
        ("tokens", f"{format_count(result['tokens'])}, sequence length {result['seq_len']:,}"),
        ("forward / token", format_flop(result["forward_flop_per_token"])),
        ("training compute", f"{format_flop(result['training_flop'])} = {format_pf_days(result['pfs_days'])} "
                             f"(detailed count, {result['convention']} convention)"),
        ("fine-tune", (f"{result['fine_tune']['mode']}: {result['trainable_params']:,} trainable parameters; backward "
                       f"{format_flop(result['backward_flop_per_sequence'])} per sequence (r = "
                       f"{result['passes'] - 1:.3g}, counted layer by layer)")
         if result.get("fine_tune", {}).get("mode", "full") != "full" else None),
        ("read as", "; ".join(result.get("notes") or ()) or None),
        ("left out", (_keys(result["ignored_keys"]) + " (read by transformers, not by this reader: "
                      "counted as if absent)") if result.get("ignored_keys") else None),
        ("not used", (_keys(result["unused_keys"]) + " (nothing transformers builds reads them)")
         if result.get("unused_keys") else None),
    ])
    rows = [[f["label"], format_flop(f["training_flop"]),
             f"{f['vs_detailed_percent']:+.1f}%" if f["vs_detailed_percent"] is not None else "—", f["assumptions"]]
            for f in result["formula_details"]]
    out = head + "\n\n" + table(["formula", "training compute", "vs detailed", "assumptions"], rows, right=(1, 2))
    if result.get("layers"):
        out += "\n\n" + table(["#", "layer", "name", "output", "params", "forward FLOP", "MACs", "share"],
                              _layer_rows(result["layers"]), right=(0, 4, 5, 6, 7))
    return out


def presets_text(result: list) -> str:
    return table(["id", "title"], [[p["id"], p["title"]] for p in result])


GB = 1e9


def _gb(value: float | None) -> str | None:
    return None if value is None else f"{value / GB:,.1f} GB"


def _pct(value: float | None) -> str:
    return "undefined" if value is None else f"{100 * value:.1f}%"


def memory_items(result: dict) -> list[tuple[str, object]]:
    """Memory per chip: the total against the chip's, its parts, the largest micro-batch that fits."""
    largest = result.get("largest_micro_batch")
    if result.get("chip_memory_bytes") is None:  # no chip: the total alone
        total = _gb(result["total_bytes_per_chip"])
    else:
        total = (f"{_gb(result['total_bytes_per_chip'])} of {_gb(result['chip_memory_bytes'])}: "
                 f"{'fits' if result['fits'] else 'does not fit'}")
    return [("memory per chip", total),
            ("  weights", _gb(result["weights_bytes_per_chip"])), ("  gradients", _gb(result["gradients_bytes_per_chip"])),
            ("  optimizer states", _gb(result["optimizer_bytes_per_chip"])),
            ("  activations", _gb(result["activation_bytes_per_chip"])),
            ("parameters per chip", format_count(result["params_per_chip"])),
            ("largest micro-batch", f"{largest:,}" if largest else "none fits" if "largest_micro_batch" in result
             else None),
            ("fewest chips", _fewest(result.get("fewest_chips")))]


def _fewest(fewest: dict | None) -> str | None:
    if not fewest:
        return None
    return f"{fewest['chips']:,} (d {fewest['dp']} × t {fewest['tp']} × p {fewest['pp']})"


def memory_text(result: dict) -> str:
    return pairs([("chip", result.get("chip")), ("chips", f"{result['chips']:,}"),
                  ("parameters", format_count(result.get("params")))] + memory_items(result))


STEP_PARTS = (("compute", "compute_s"), ("pipeline bubble", "bubble_s"), ("tensor-parallel collectives", "tp_comm_s"),
              ("pipeline sends", "pp_comm_s"), ("data-parallel gradients", "dp_comm_s"),
              ("expert all-to-all", "ep_comm_s"), ("context-parallel ring", "cp_comm_s"),
              ("launches and other overhead", "overhead_s"))


def plan_text(result: dict) -> str:
    if "best" in result:  # --sweep
        rows = [[f"{r['dp']}×{r['tp']}×{r['pp']}", r["virtual_stages"], r["micro_batch"],
                 "yes" if r["fits"] else "no", f"{r['memory_gb']:,.1f}", format_number(r["step_s"]),
                 _pct(r["mfu"]), r["step_model"]] for r in result["best"]]
        if not rows:
            return f"0 layouts: {result.get('note', '')}"
        return "\n".join([f"{result['layouts']:,} layouts of {result['chips']:,} chips, best first:", "",
                          table(["d×t×p", "v", "micro-batch", "fits", "GB per chip", "step (s)", "MFU", "model"],
                                rows, right=(1, 2, 4, 5, 6))])
    lay, opt, step = result["layout"], result["options"], result.get("step") or {}
    layout = (f"d {lay['dp']} × t {lay['tp']} × p {lay['pp']}" + (f" × c {lay['cp']}" if lay["cp"] > 1 else "")
              + f" = {result['chips']:,} chips of {result['chip']} (e {lay['ep']}, micro-batch {lay['micro_batch']}, "
              f"global batch {lay['global_batch']}, v {lay['virtual_stages']}"
              + (", sequence parallel" if lay["sequence_parallel"] else "")
              + (f", pipeline split {lay.get('pipeline_split')}" if lay["pp"] > 1 else "")
              + "".join(f", {name} stage {lay[key]} blocks" for name, key in (("first", "first_stage_blocks"),
                                                                              ("last", "last_stage_blocks"))
                        if lay.get(key) is not None) + ")")
    items = [("layout", layout),
             ("options", f"{opt['optimizer']}, {opt['precision']}, ZeRO {opt['zero']}, recomputation "
                         f"{opt['recompute']}, attention {opt.get('attention', 'fused')}, framework {opt['convention']}"
                         + (" (compiled)" if opt.get("compiled") else ""))] + memory_items(result)
    out = [pairs(items)]
    if step:
        total = step["step_s"] or 1.0
        out += ["", table(["step part", "seconds", "share"],
                          [[name, f"{step[key]:.3g}", f"{100 * step[key] / total:.1f}%"]
                           for name, key in STEP_PARTS if step.get(key)], right=(1, 2))]
        span = result.get("interval") or {}
        step_range = (f"; 90% range {format_number(span['step_s'][0])}–{format_number(span['step_s'][1])} s"
                      if span else "")
        mfu_range = (f" (90% range {_pct(span['mfu'][0])}–{_pct(span['mfu'][1])})" if span.get("mfu") else "")
        days_range = (f" (90% range {format_duration(24 * span['wall_clock_days'][0])}–"
                      f"{format_duration(24 * span['wall_clock_days'][1])})" if span.get("wall_clock_days") else "")
        time_items = [("step time", f"{format_number(step['step_s'])} s ({step['model']}{step_range})"),
                      ("MFU / HFU", f"{_pct(step['mfu'])} / {_pct(step['hfu'])}{mfu_range}"),
                      ("wall-clock", f"{format_duration(24 * step['wall_clock_days'])} for "
                                     f"{format_count(step['tokens'])} tokens{days_range}"
                       if step.get("wall_clock_days") else None),
                      ("range from", span.get("basis")),
                      ("training compute", format_flop(result["training_flop"]) if result.get("training_flop") else None)]
        out += ["", pairs(time_items)]
        out += [""] + [f"note: {n}" for n in step.get("notes", ())]
    out += [t["sentence"] for t in result.get("thresholds", ())]
    if result.get("trace"):
        out += ["", trace_versus_text(result["trace"])]
    return "\n".join(out)


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:,.3f}"


def trace_versus_text(t: dict) -> str:
    """``plan --trace``: the planned and measured step by part, the gap, what was assumed, the calibrated plan."""
    rows = [[r["part"], _ms(r["planned_s"]), _ms(r["measured_s"]), _ms(r["gap_s"]), r["note"]] for r in t["parts"]]
    out = [f"planned vs measured ({shown(t['file'])}, {t['steps']} step{'s' if t['steps'] != 1 else ''}):", "",
           table(["part", "planned (ms)", "measured (ms)", "gap (ms)", ""], rows, right=(1, 2, 3)), "",
           f"gap: {t['gap']}"]
    out += [f"assumed: {a}" for a in t["assumed"]]
    cal, again = t.get("calibration"), t.get("calibrated")
    if cal and again:
        out += ["", pairs([("with this run's efficiency", (f"step {format_number(again['step_s'])} s, MFU "
                                                          f"{_pct(again['mfu'])}")),
                           ("calibration", cal["source"])])]
        out += [f"kept: {k}" for k in cal["kept_default"]]
    elif t.get("why_not"):
        out += [f"with this run's efficiency: {t['why_not']}"]
    return "\n".join(out)


def optimal_text(result: dict) -> str:
    items = [("rule", result["rule"]), ("budget C", format_flop(result["flop"])),
             ("parameters N", format_count(result["params"])), ("tokens D", format_count(result["tokens"])),
             ("tokens per parameter", format_number(result["tokens_per_param"])), ("formula", "C = 6 N D"),
             ("source", result.get("source"))]
    aware = result.get("inference_aware")
    if aware:
        items += [("inference-aware", f"{format_count(aware['params'])} parameters on {format_count(aware['tokens'])} "
                                      f"tokens for {format_count(aware['inference_tokens'])} inference tokens "
                                      f"(fit {aware['fit']})"),
                  ("  lifetime compute", f"{format_flop(aware['total_flop'])} (compute-optimal model: "
                                         f"{format_flop(aware['compute_optimal_total_flop'])})"),
                  ("  source", aware.get("source"))]
    return "\n".join([pairs(items)] + [t["sentence"] for t in result.get("thresholds", ())])


def _cut(text: str, width: int) -> str:
    """A file's text for a terminal: control characters (an escape sequence in a CSV cell) shown escaped, then
    cut to ``width``."""
    text = shown(text)
    return text if len(text) <= width else text[:width - 1] + "…"


def priors_text(result: dict) -> str:
    out = []
    for key, part in result.items():
        if not isinstance(part, dict) or "groups" not in part:
            continue
        rows = [[g["generation"], g["scale"], g["n"], _pct(g["median"]), f"{_pct(g['p25'])}–{_pct(g['p75'])}",
                 _cut(", ".join(g["runs"]), 60)] for g in part["groups"]]
        out += [f"{part['source']}: {part['reports']} reports", "",
                table(["chips", "scale", "n", "median", "25th–75th", "runs"], rows, right=(2, 3)), ""]
        out += [f"preset {p['id']}: {_pct(p['utilization'])} — {p['source']}" for p in part.get("presets", ())]
    return "\n".join(out).rstrip()


def reconcile_text(result: dict) -> str:
    s = result["summary"]
    rows = [[r["row"], _cut(r["name"], 40), _cut(r.get("hardware") or "", 30), _cut(r["status"], 30),
             format_flop(r["method2_flop"], "") if r.get("method2_flop") else "",
             format_flop(r["reported_flop"], "") if r.get("reported_flop") else "",
             format_number(r["ratio"]) if r.get("ratio") else "", "yes" if r.get("flagged") else ""]
            for r in result["rows"]]
    items = [("rows read", f"{s['rows_read']:,}"), ("compared", f"{s['rows_compared']:,}"),
             ("median ratio", format_number(s["median_ratio"]) if s.get("median_ratio") else None),
             ("within 2× / 3×", f"{_pct(s['share_within_2x'])} / {_pct(s['share_within_3x'])}"
                                if s.get("share_within_2x") is not None else None),
             ("flagged", f"{s['flagged']:,}"), ("utilization assumed", s.get("utilization_source"))]
    return "\n".join([table(["row", "model", "hardware", "status", "method 2 FLOP", "reported FLOP", "ratio", "flag"],
                            rows, right=(0, 4, 5, 6)), "", pairs(items)])


def measurement_text(result: dict) -> str:
    """``trace`` and ``profile``: the steps' split, the heaviest operators, the headline (HFU, MFU, peak and its
    source), the bottlenecks with what to try, and the notes."""
    from ..measure.report import OP_HEADERS, STEP_HEADERS, headline, op_rows, step_rows

    out = [table(STEP_HEADERS, step_rows(result), right=(1, 2, 3, 4, 5, 6)), ""]
    if result["ops"]:
        out += [table(OP_HEADERS, op_rows(result), right=(3, 4, 5, 6)), ""]
    out.append(pairs(headline(result)))
    out += [f"- {b['finding']}: try {b['remedy']}" for b in result["bottlenecks"]]
    out += [f"note: {n}" for n in result["notes"]]
    return "\n".join(out)


def _bytes(value: float | None) -> str | None:
    if value is None:
        return None
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return f"{format_number(value / size)} {unit}"
    return f"{format_number(value)} B"


def _ms(seconds: float | None) -> str | None:
    return None if seconds is None else f"{format_number(seconds * 1e3)} ms"


def serve_text(result: dict) -> str:
    sweep = [[row["batch"], _ms(row["ttft_s"]), _ms(row["tpot_s"]), format_number(row["output_tokens_per_s"]),
              format_number(row["output_tokens_per_s_per_chip"])] for row in result.get("batch_sweep", [])]
    items = [("model", result.get("model_id") or result["model"]),
             ("chips", f"{result['chips']} × {result['chip']} ({result['engine']})"),
             ("formats", f"{result['precision']}, weights {result['weights'] or result['precision']}, "
                         f"KV {result['kv_precision']}"),
             ("request", f"{result['prompt_tokens']:,} prompt + {result['output_tokens']:,} output tokens"),
             ("batch", f"{result['batch']:,} (fit in memory: "
                       f"{'no limit' if result['sequences_in_memory'] is None else format(result['sequences_in_memory'], ',')})"),
             ("time to first token", _ms(result["ttft_s"])), ("time per output token", _ms(result["tpot_s"])),
             ("output tokens/s", f"{format_number(result['output_tokens_per_s'])} (all chips; "
                                 f"{format_number(result['output_tokens_per_s_per_chip'])} per chip)"),
             ("KV cache / token", _bytes(result["kv_cache_bytes_per_token"])),
             ("KV cache / sequence", _bytes(result["kv_cache_bytes"])), ("weights", _bytes(result["weights_bytes"])),
             ("prefill FLOP", format_flop(result["prefill_flop"])),
             ("decode FLOP / token", format_flop(result["decode_flop_per_token"]) if result["output_tokens"] else None),
             ("prefill bound", result["prefill"]["bound"]),
             ("decode bound", result["decode_step"]["bound"] if result["output_tokens"] else None),
             ("cost / 1M output tokens", None if result["cost_per_million_output_tokens"] is None
              else f"${format_number(result['cost_per_million_output_tokens'])}")]
    if result.get("lifetime"):  # --tokens-served: training at the published tokens + serving them
        life = result["lifetime"]
        served, even = (f"{life[k]:.3g}".replace("e+", "e") for k in ("tokens_served", "break_even_tokens"))
        items += [("lifetime compute", f"{format_flop(life['total_flop'])} = training "
                                       f"{format_flop(life['training_flop'])} + serving {served} tokens "
                                       f"{format_flop(life['inference_flop'])} "
                                       f"({100 * life['inference_share']:.1f}% serving)"),
                  ("serving = training at", f"{even} tokens served")]
    notes = [f"note: {n}" for n in result.get("notes", [])]
    return "\n".join([table(["batch", "TTFT", "TPOT", "output tok/s", "per chip"], sweep, right=(0, 1, 2, 3, 4)), "",
                      pairs(items), *notes])


def compress_text(result: dict) -> str:
    if "teacher_flop" in result:  # distillation
        items = [("mode", result["mode"]), ("teacher / token", format_flop(result["teacher_flop_per_token"])),
                 ("student / token", format_flop(result["student_flop_per_token"])),
                 ("teacher's forward passes", format_flop(result["teacher_flop"])),
                 ("student's training", format_flop(result["student_training_flop"])),
                 ("total", format_flop(result["total_flop"])),
                 ("stored logits", _bytes(result["stored_logit_bytes"])),
                 ("one-third rule", result["modification_sentence"])]
        return pairs(items)
    rows = [["parameters", f"{result['before']['params']:,.0f}", f"{result['after']['params']:,.0f}"],
            ["forward FLOP / example", format_flop(result["before"]["forward_flop"]),
             format_flop(result["after"]["forward_flop"])]]
    if result["before"]["training_flop"] is not None:
        after = result["after"]["training_flop"]
        rows.append(["training FLOP", format_flop(result["before"]["training_flop"]),
                     format_flop(after) if after is not None else "—"])
    items = [("technique", result["technique"]),
             ("extra compute", format_flop(result["extra_flop"]) if result["extra_flop"] else None),
             ("whole schedule", format_flop(result["schedule_flop"]) if result["schedule_flop"] else None),
             ("ideal speed-up", f"{result['ideal_speedup']:.3g}×" if result["ideal_speedup"] else None),
             ("measured speed-up", f"{result['measured_speedup']:.3g}×" if result["measured_speedup"] else None),
             ("source", result["speedup_source"])]
    return "\n".join([table(["", "before", "after"], rows, right=(1, 2)), "", pairs(items),
                      *[f"note: {n}" for n in result["notes"]]])


TEXT: dict[str, Callable[[object], str]] = {
    "flops": flops_text, "count": lambda r: count_text(r), "presets": presets_text, "hardware": hardware_text, "chips": chips_text, "schema": schema_text,
    "trend": trend_text, "transformer": transformer_text, "plan": plan_text, "memory": memory_text,
    "optimal": optimal_text, "priors": priors_text, "reconcile": reconcile_text,
    "trace": measurement_text, "profile": measurement_text, "serve": serve_text, "compress": compress_text,
    "diffusion": pipeline_text, "vlm": vlm_step_text,
}
"""Command → its text renderer (every command has one: a terminal gets text, a pipe JSON)."""
