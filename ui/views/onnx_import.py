"""The ONNX upload's logic, without Streamlit: labels for the graph's dynamic dimensions, the scenario made
from a counted graph (its rows merged by name scope to the dashboard's limit), and the lines that say what was
counted and what was not."""
from __future__ import annotations

from engine.importers.onnx_budget import DASHBOARD_BUDGET_S, DASHBOARD_MAX_NODES, Budget
from engine.importers.onnx_graph import DynamicDim, OnnxCount, count_onnx, dynamic_dims, read_onnx
from engine.scenario import MAX_PAGE_LAYERS, Scenario, parse_scenario
from engine.share_link import MAX_LINK_CHARS, encode


def dimension_label(dim: DynamicDim) -> str:
    """``batch (input 'x', axis 0)``: the symbolic name first, then where it is."""
    return f"{dim.name} (input '{dim.input}', axis {dim.axis})"


def default_size(name: str) -> int | None:
    """1 for a batch dimension (figures per example); other sizes are asked for (no guess)."""
    return 1 if "batch" in name.lower() else None


def read_upload(data, source: str = "upload"):
    """An uploaded graph read as the dashboard reads it: at most ``DASHBOARD_MAX_NODES`` nodes, within
    ``DASHBOARD_BUDGET_S`` of CPU (``engine.importers.onnx_budget``)."""
    budget = Budget(DASHBOARD_BUDGET_S, source)
    return read_onnx(data, source, max_nodes=DASHBOARD_MAX_NODES, budget=budget), budget


def upload_dims(data) -> list[DynamicDim]:
    """The dynamic dimensions of an uploaded graph, read within the dashboard's bounds."""
    return dynamic_dims(read_upload(data)[0])


def import_scenario(data: bytes, file_name: str, sizes: dict[str, int],
                    limit: int = MAX_PAGE_LAYERS) -> tuple[Scenario, OnnxCount, int]:
    """(the scenario of the counted rows, the count, how many rows before merging).

    The rows are one example's (the run's figures ÷ the batch, ``counted.per_example``), merged by name scope to at most ``limit``, and further (halving) until the scenario's share
    link fits ``MAX_LINK_CHARS``: the link carries the counted rows, never the graph."""
    model, budget = read_upload(data)  # one budget for reading and counting
    counted = count_onnx(model, sizes, source=file_name, budget=budget)
    limit = min(limit, max(len(counted.rows), 1))
    while True:
        scenario = parse_scenario(counted.scenario_data(file_name, limit), "upload")
        if limit <= 1 or len(encode(scenario)) <= MAX_LINK_CHARS:
            return scenario, counted, len(counted.rows)
        limit //= 2


def summary_lines(counted: OnnxCount, rows_before: int, rows_after: int) -> list[str]:
    """What the layer table now holds, and every node that is not in it."""
    inputs = ", ".join(f"{i['name']} {'×'.join(map(str, i['shape']))}" for i in counted.inputs)
    lines = [f"{counted.source}: {counted.nodes:,} nodes ({counted.producer or 'unknown exporter'}, opset "
             f"{counted.opset}), counted for one run with {inputs}: {counted.params:,} parameters, "
             f"{2 * counted.macs:,} matmul FLOP."]
    if rows_after < rows_before:
        lines.append(f"{rows_before:,} counted nodes, shown as {rows_after:,} rows merged by name scope (same totals).")
    if counted.state or counted.constants:
        lines.append(f"Not parameters: {counted.state:,} running statistics, {counted.constants:,} constant values.")
    if counted.unknown_ops:
        lines.append("Not counted (operators this reader does not know): "
                     + ", ".join(f"{op} ×{n:,}" for op, n in counted.unknown_ops.items()) + ".")
    if counted.uncounted_ops:
        lines.append("Not counted (shapes unknown): "
                     + ", ".join(f"{op} ×{n:,}" for op, n in counted.uncounted_ops.items()) + ".")
    lines += counted.notes
    return lines
