"""The layer builder's table and picker labels: nested rows by path, block subtotals, chart bars per
top-level layer or block. Presentation only: the figures are the engine's rows (``ArchitectureResult``)."""
from __future__ import annotations

import re

from engine.method1.layers import Flow


def layer_label(kind: str, part: str | None) -> str:
    """The part first ('attention q · transformer_block'): a narrow column still shows what the row is."""
    return f"{part} · {kind}" if part else kind


WRAP_LABELS = {"residual": "a residual block (+ the identity)", "branches": "branches (the identity ‖ these, "
               "concatenated)", "repeat": "a repeat (2 copies)"}


def short_path(path: str) -> str:
    """'layers[3].body[0]' → '#3 › body[0]' (the rows' '#' is the top-level index)."""
    head, _, rest = path.partition("].")
    return "#" + head.removeprefix("layers[").rstrip("]") + ("" if not rest else " › " + rest.replace(".", " › "))


def widget_prefix(path: str) -> str:
    """Widget keys of the layer at ``path``: 'layer3' at the top level (as before blocks), 'layer3_body_0' inside."""
    return "layer" + "_".join(p for p in re.split(r"\W+", path.removeprefix("layers[")) if p)


def entry_label(entry) -> str:
    layer = entry.layer
    extra = {"repeat": f" ×{layer.get('times', 2)}", "branches": f" ({layer.get('merge', 'concat')})"}.get(
        layer["type"], "")
    return f"{'· ' * entry.depth}{short_path(entry.path)}  {layer['type']}{extra}  {layer.get('name') or ''}"


def table_rows(arch, levels: int) -> list[dict]:
    """The rows, each block's subtotal row before what it holds; rows deeper than ``levels`` blocks left out."""
    out: list[dict] = []
    blocks = iter(arch.blocks)
    block = next(blocks, None)

    def row(r, label, path, depth, copies, status="ok"):
        return {"#": r.index, "path": short_path(path), "layer": "· " * depth + label + (f" ×{copies:,}" if copies > 1
                                                                                         else ""),
                "name": r.name or "", "output": Flow(tuple(r.output_shape[1:] if r.steps else r.output_shape),
                                                     r.steps).describe(),
                "params": r.params, "trainable": r.trainable_params, "forward FLOP": float(r.forward_flop),
                "backward FLOP": float(r.backward_flop), "MACs": float(r.macs),
                "share": 100 * r.forward_flop / arch.forward_flop if arch.forward_flop else 0.0, "status": status}

    for i, r in enumerate(arch.rows):
        while block is not None and block.first == i:
            if block.depth <= levels:
                detail = f" ({block.detail})" if block.detail else ""
                out.append(row(block, f"▾ {block.type}{detail}", block.path, block.depth, block.copies, "subtotal"))
            block = next(blocks, None)
        if r.depth <= levels:
            out.append(row(r, layer_label(r.type, r.part), r.path, r.depth, r.copies))
    return out


def top_level_totals(arch, layers) -> list[tuple[str, float]]:
    """Forward FLOP per top-level layer or block (the chart's bars: a block is one bar)."""
    totals: dict[int, float] = {}
    for r in arch.rows:
        totals[r.index] = totals.get(r.index, 0.0) + float(r.forward_flop)
    return [(f"#{i} {layers[i].name or layers[i].type}", flop) for i, flop in totals.items()]
