"""The layer builder's figures: the totals as metric tuples, the training formula in LaTeX, the layer groups
of the "add a layer" list, and the table with rows the evaluation did not reach."""
from __future__ import annotations

from engine.units import PFS_DAY_FLOP, format_flop, latex_number
from ui.views.layer_table import layer_label, table_rows

Metric = tuple[str, str, str | None]

KIND_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Dense & recurrent", ("dense", "rnn", "gru", "lstm")),
    ("Convolution & pooling", ("conv1d", "conv2d", "conv3d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                               "adaptive_avg_pool2d", "upsample", "channel_split", "channel_shuffle")),
    ("Attention & transformers", ("self_attention", "multi_head_attention", "transformer_block", "embedding",
                                  "position_embedding", "token_type_embedding", "relative_position_bias",
                                  "relative_position_table", "per_layer_embeddings", "hyper_head", "lm_head", "decoder_input",
                                  "pooler")),
    ("Vision tokens & windows", ("to_tokens", "class_token", "token_select", "window_attention", "patch_merging")),
    ("Shape, norms & activations", ("flatten", "activation", "dropout", "layer_norm", "batch_norm", "rms_norm",
                                    "layer_scale", "stochastic_depth")),
    ("Blocks", ("residual", "branches", "repeat")),
)
"""The "add a layer" list, by family; a kind not named here is listed under "More"."""


def kind_groups(kinds) -> list[tuple[str, list[str]]]:
    """(family, kinds) in the order above, each kind once, the registry's other kinds last under "More"."""
    known = set(kinds)
    groups = [(label, [k for k in members if k in known]) for label, members in KIND_GROUPS]
    named = {k for _, members in KIND_GROUPS for k in members}
    groups.append(("More", [k for k in kinds if k not in named]))
    return [(label, members) for label, members in groups if members]


def totals_metrics(shown, stale: bool = False) -> list[Metric]:
    """Training compute, PF-days, forward FLOP and MACs per example, parameters (marked stale while an error
    is fixed)."""
    mark = " (stale)" if stale else ""
    tr = shown.training
    return [
        ("Training compute" + mark, format_flop(tr.training_flop),
         f"{tr.pfs_days:.4g} PF-days (1 PF-day = {PFS_DAY_FLOP:.3g} FLOP)"),
        ("PF-days" + mark, format_flop(tr.pfs_days, ""), "petaFLOP/s-days: training FLOP ÷ 8.64e19"),
        ("Forward per example" + mark, format_flop(shown.forward_flop), f"convention: {shown.convention}"),
        ("MACs per example" + mark, format_flop(shown.macs, "MACs"), "1 MAC = 2 FLOP"),
        ("Parameters" + mark, f"{shown.params:,}", None),
    ]


def interval_metrics(band) -> list[Metric]:
    """The 90% interval of the training compute and Epoch AI's confidence label."""
    return [("90% interval", f"{format_flop(band.low)} – {format_flop(band.high)}",
             f"from the ranges of: {', '.join(band.factors)}. {band.method}"),
            ("Confidence (Epoch's labels)", band.confidence, band.confidence_rule)]


def training_latex(estimate, recomputation: bool) -> str:
    """C = F × (1 + r [+ 1]) × E × epochs [+ u P S], with the numbers, one step per line (fits a phone); with
    the exact backward, C = (F + B [+ R]) × E × epochs [+ u P S] (B counted layer by layer, R recomputed)."""
    tr = estimate.training
    optimizer = tr.optimizer_flop
    if tr.backward == "exact":
        recompute = tr.forward_flop_per_example * tr.passes - tr.forward_flop_per_example - tr.backward_flop_per_example
        return (rf"\begin{{aligned}} C &= (F + B{' + R' if recomputation else ''}) \times E \times \text{{epochs}}"
                rf"{' + u P S' if optimizer else ''} \\ "
                rf"&= ({latex_number(estimate.forward_flop)} + {latex_number(tr.backward_flop_per_example)}"
                rf"{' + ' + latex_number(recompute) if recomputation else ''}) \times {latex_number(tr.total_examples)}"
                rf"{' + ' + latex_number(optimizer) if optimizer else ''} \\ "
                rf"&= {latex_number(tr.training_flop)}\ \text{{FLOP}} \quad (\text{{passes}} = {tr.passes:.4g}) \end{{aligned}}")
    return (rf"\begin{{aligned}} C &= F \times (1 + r{' + 1' if recomputation else ''}) "
            rf"\times E \times \text{{epochs}}{' + u P S' if optimizer else ''} \\ "
            rf"&= {latex_number(estimate.forward_flop)} \times {tr.passes:g} \times {latex_number(tr.total_examples)}"
            rf"{' + ' + latex_number(optimizer) if optimizer else ''} \\ "
            rf"&= {latex_number(tr.training_flop)}\ \text{{FLOP}} \end{{aligned}}")


TABLE_COLUMNS = ["#", "path", "layer", "name", "output", "params", "trainable", "forward FLOP", "backward FLOP",
                 "MACs", "share", "status"]


def visible_columns(rows: list[dict]) -> list[str]:
    """The table's columns without those that say nothing here: "#" (the path starts with it, unless a layer was not reached), "name" when
    every row's is empty, "status" when every row's is "ok", "trainable" when it equals the parameters in every row (nothing frozen)."""
    def empty(column):
        return all(row.get(column) in (None, "") for row in rows)

    hidden = set() if any(not row.get("path") for row in rows) else {"#"}  # unreached layers have no path
    if empty("name"):
        hidden.add("name")
    if all(row.get("status") in (None, "", "ok") for row in rows):
        hidden.add("status")
    if all(row.get("trainable") in (None, row.get("params")) for row in rows):
        hidden.add("trainable")
    return [c for c in TABLE_COLUMNS if c not in hidden]


def table_with_unreached(estimate, layers, levels: int, stale=None) -> list[dict]:
    """The table's rows: the evaluated ones (``table_rows``), then each top-level layer the evaluation did not
    reach — with the last valid estimate's figures where it had that layer (``stale``), else empty."""
    arch = estimate.architecture
    rows = table_rows(arch, levels)
    done = {r.index for r in arch.rows}
    last_rows: dict[int, list] = {}
    if stale is not None and stale.architecture is not None:
        for r in stale.architecture.rows:
            last_rows.setdefault(r.index, []).append(r)
    nan = float("nan")
    for i, layer in enumerate(layers):
        if i in done:
            continue
        failed = estimate.error is not None and estimate.error.field.startswith(f"layers[{i}]")
        old = [r for r in last_rows.get(i, []) if r.type == layer.type and not r.depth]
        for r in old or [None]:
            rows.append({"#": i, "path": "", "layer": layer_label(layer.type, r.part if r is not None else None),
                         "name": layer.name or "", "output": r.output if r is not None else "—",
                         "params": r.params if r is not None else nan,
                         "trainable": r.trainable_params if r is not None else nan,
                         "forward FLOP": float(r.forward_flop) if r is not None else nan,
                         "backward FLOP": float(r.backward_flop) if r is not None else nan,
                         "MACs": float(r.macs) if r is not None else nan,
                         "share": 100 * r.share if r is not None else nan,
                         "status": ("⚠ error" if failed else "not reached")
                                   + (" · last valid values" if r is not None else "")})
    return rows
