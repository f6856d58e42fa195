"""The ONNX upload's view: labels, default sizes, the scenario it makes (merged to the page's limit) and the
lines that list what was not counted."""
from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from engine.errors import InputError  # noqa: E402
from engine.importers.onnx_graph import DynamicDim  # noqa: E402
from ui.views.onnx_import import default_size, dimension_label, import_scenario, summary_lines  # noqa: E402


def _graph(layers: int) -> bytes:
    """x [batch, 8] → (MatMul W [8, 8] → Relu) × layers → Custom (unknown)."""
    nodes, inits, prev = [], [], "x"
    for i in range(layers):
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"/blocks/{i}/fc/MatMul"),
                  helper.make_node("Relu", [f"m{i}"], [f"r{i}"], name=f"/blocks/{i}/act/Relu")]
        inits.append(helper.make_tensor(f"w{i}", TensorProto.FLOAT, [8, 8], [0.1] * 64))
        prev = f"r{i}"
    nodes.append(helper.make_node("Custom", [prev], ["y"], name="/head/Custom"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]).SerializeToString()


def test_labels_and_default_sizes():
    assert dimension_label(DynamicDim("batch_size", "input_ids", 0)) == "batch_size (input 'input_ids', axis 0)"
    assert default_size("batch_size") == 1 and default_size("Batch") == 1 and default_size("sequence") is None


def test_the_scenario_of_an_upload_and_its_summary():
    scenario, counted, before = import_scenario(_graph(3), "mlp.onnx", {"batch": 2})
    estimate = scenario.method1()
    # counted for a batch of 2; the scenario is one example's: 3 × 2·8·8
    assert estimate.params == 3 * 64 and estimate.forward_flop == 3 * 2 * 8 * 8
    assert counted.macs == 3 * 2 * 8 * 8  # the run's own figures stay the run's
    assert [layer.name for layer in scenario.layers][:2] == ["/blocks/0/fc/MatMul", "/blocks/0/act/Relu"]
    assert scenario.name == "mlp.onnx" and before == 6
    lines = summary_lines(counted, before, len(scenario.layers))
    assert lines[0].startswith("mlp.onnx: 7 nodes") and "192 parameters" in lines[0]
    assert "Not counted (operators this reader does not know): Custom ×1." in lines
    assert "the scenario's rows are per example: the counted run's figures ÷ its batch of 2" in lines


def test_rows_merge_to_the_page_limit_with_the_same_totals():
    scenario, counted, before = import_scenario(_graph(30), "deep.onnx", {"batch": 1}, limit=40)
    assert before == 60 and len(scenario.layers) == 30  # each block's MatMul and Relu merged into /blocks/i
    assert scenario.layers[0].name == "/blocks/0" and scenario.layers[0].op == "MatMul+Relu"
    assert scenario.method1().forward_flop == 30 * 2 * 8 * 8
    assert "60 counted nodes, shown as 30 rows merged by name scope (same totals)." in \
        summary_lines(counted, before, len(scenario.layers))


def test_bad_uploads_are_one_line():
    with pytest.raises(InputError, match="^upload: not an ONNX model"):
        import_scenario(bytes(20 * 1024 * 1024), "zeros.onnx", {})
    with pytest.raises(InputError, match="give a size for each dynamic dimension: batch"):
        import_scenario(_graph(1), "mlp.onnx", {})


def test_a_large_graph_is_merged_until_its_link_fits():
    from engine.share_link import MAX_LINK_CHARS, decode, encode

    scenario, counted, before = import_scenario(_graph(1500), "big.onnx", {"batch": 1})
    assert before == 3000 and len(scenario.layers) < 2000
    token = encode(scenario)
    assert len(token) <= MAX_LINK_CHARS
    assert decode(token).method1().forward_flop == 1500 * 2 * 8 * 8 == 2 * counted.macs
