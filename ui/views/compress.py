"""The Compress panel's pure parts (no Streamlit): choices, the before/after rows and the chart's bars."""
from __future__ import annotations

from engine.units import format_flop

TECHNIQUES = {"prune": "Structured pruning", "unstructured": "Unstructured sparsity", "two_four": "2:4 sparsity",
              "qat": "Quantization-aware training", "ptq": "Post-training quantization",
              "low_precision": "Training in FP8 / MXFP8 / NVFP4"}
TARGETS = {"channels": "channels (dense, convolution, recurrent widths)", "heads": "attention heads",
           "ffn": "feed-forward width", "blocks": "blocks (depth)"}
FORMATS = {"fp8": "FP8", "mxfp8": "MXFP8", "nvfp4": "NVFP4"}


def spec_data(technique: str, values: dict) -> dict:
    """The panel's values → the ``Compression`` data for ``technique``."""
    data = {"technique": technique}
    if technique == "prune":
        scope = {"per_layer": values["per_layer"]} if values.get("per_layer") else {"fraction": values["fraction"]}
        data["pruning"] = {"target": values["target"], **scope, "round_to": values.get("round_to") or 1}
        data |= {"scoring_examples": values["scoring"], "fine_tune_examples": values["fine_tune"]}
    elif technique == "unstructured":
        data["sparsity"] = values["fraction"]
    elif technique == "two_four":
        data["chip"] = values["chip"]
    elif technique == "qat":
        data["batch_size"] = values["batch"]
    elif technique == "ptq":
        data |= {"calibration_examples": values["calibration"], "gptq": values["gptq"]}
    elif technique == "low_precision":
        data |= {"train_format": values["format"], "chip": values["chip"]}
    return data


def per_layer_line(per_layer: dict) -> str:
    """A scenario's per-layer pruning fractions in words (the panel shows one fraction for every layer)."""
    shown = ", ".join(f"{path} {100 * f:.3g}%" for path, f in list(per_layer.items())[:6])
    more = f" and {len(per_layer) - 6:,} more" if len(per_layer) > 6 else ""
    return f"The scenario prunes these layers by their own fractions: {shown}{more}."


def comparison_rows(result) -> list[dict]:
    """Before and after as two columns."""
    rows = [("parameters", f"{result.before.params:,.0f}", f"{result.after.params:,.0f}"),
            ("forward FLOP / example", format_flop(result.before.forward_flop), format_flop(result.after.forward_flop))]
    if result.before.training_flop is not None:
        after = result.after.training_flop
        rows.append(("training FLOP", format_flop(result.before.training_flop),
                     format_flop(after) if after is not None else "—"))
    return [{"": label, "before": before, "after": after} for label, before, after in rows]


def chart_bars(result) -> dict:
    """Bars of the before/after figures, as shares of before (1 = unchanged)."""
    names, before, after = [], [], []
    for label, b, a in (("parameters", result.before.params, result.after.params),
                        ("forward FLOP", result.before.forward_flop, result.after.forward_flop),
                        ("training FLOP", result.before.training_flop, result.after.training_flop)):
        if b and a is not None:
            names.append(label)
            before.append(1.0)
            after.append(a / b)
    return {"names": names, "before": before, "after": after}
