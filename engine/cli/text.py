"""Text output of the commands (``--format text``, the default on a terminal): aligned tables, units
(``engine.units``' display rules) and each result's formula line. JSON stays the default in pipes.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engine.units import (format_chip_hours, format_co2_kg, format_count, format_duration, format_energy_kwh,
                          format_flop, format_number, format_pf_days)


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], right: Sequence[int] = ()) -> str:
    """Columns padded to their widest cell; the columns in ``right`` (numbers) aligned right."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return "\n".join([line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]])


def pairs(items: Iterable[tuple[str, object]]) -> str:
    """'label   value' lines, labels padded to the longest (items with a None value are left out)."""
    items = [(k, v) for k, v in items if v is not None]
    width = max((len(k) for k, _ in items), default=0)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in items)


def _layer_rows(layers: list[dict]) -> list[list[object]]:
    total = sum(r["forward_flop"] for r in layers) or 1.0
    return [[r.get("path") or r["index"],
             r["type"] + (f" · {r['part']}" if r.get("part") else "") + (f" ×{r['copies']}" if r.get("copies") else ""),
             r.get("name") or "",
             "×".join(map(str, r["output_shape"])) if isinstance(r.get("output_shape"), list) else r.get("output_shape"),
             f"{r['params']:,}", format_flop(r["forward_flop"], ""), format_flop(r["macs"], ""),
             f"{100 * r['forward_flop'] / total:.1f}%"] for r in layers]


def flops_text(result: dict) -> str:
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
    return ", ".join(k if k.isprintable() else ascii(k) for k in keys)


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


TEXT: dict[str, Callable[[object], str]] = {
    "flops": flops_text, "count": lambda r: count_text(r), "presets": presets_text, "hardware": hardware_text, "chips": chips_text, "schema": schema_text,
    "trend": trend_text, "transformer": transformer_text,
}
"""Command → its text renderer; a command without one prints JSON whatever ``--format`` says."""
