"""``python -m engine flops --onnx MODEL.onnx [--dim NAME=SIZE …] [--save FILE]``: what ``flops FILE`` prints, from
a graph; missing sizes, bad files and bad dimensions give one line, exit 2."""
from __future__ import annotations

import json
import re

import pytest

from tests.cli import cli

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


@pytest.fixture
def graph(tmp_path):
    """x [batch, 16] → Gemm (W [32, 16], b [32]) → Relu → CustomOp (unknown) → y."""
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1, name="/fc/Gemm"),
             helper.make_node("Relu", ["h"], ["r"], name="/act/Relu"),
             helper.make_node("CustomOp", ["r"], ["y"], name="/custom/CustomOp")]
    inits = [helper.make_tensor("w", TensorProto.FLOAT, [32, 16], [0.1] * 512),
             helper.make_tensor("b", TensorProto.FLOAT, [32], [0.0] * 32)]
    model = helper.make_model(helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["batch", 16])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits), opset_imports=[helper.make_opsetid("", 20)])
    path = tmp_path / "mlp.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def test_json_has_params_forward_flop_rows_and_the_graph_summary(graph, tmp_path):
    out = cli("flops", "--onnx", str(graph), "--dim", "batch=2", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["params"] == 32 * 16 + 32
    # counted for a batch of 2 (the graph's own figures), printed per example like `flops FILE`: 2·N·M
    assert data["onnx"]["macs"] == 2 * 16 * 32 and data["forward_flop"] == 2 * 16 * 32
    assert "per example: the counted run's figures ÷ its batch of 2" in " ".join(data["onnx"]["notes"])
    assert [(r["type"], r["name"], r["output_shape"]) for r in data["layers"]] == [
        ("counted", "/fc/Gemm", [2, 32]), ("counted", "/act/Relu", [2, 32])]
    assert data["onnx"]["unknown_ops"] == {"CustomOp": 1} and data["onnx"]["dims"] == {"batch": 2}
    full = json.loads(cli("flops", "--onnx", str(graph), "--dim", "batch=2", "--convention", "full",
                          "--format", "json").stdout)
    assert full["forward_flop"] == 2 * 16 * 32 + 32 + 32  # + bias adds + ReLU, per example


def test_text_names_the_unknown_operator(graph):
    out = cli("flops", "--onnx", str(graph), "--dim", "batch=1", "--format", "text")
    assert out.returncode == 0, out.stderr
    assert "/fc/Gemm" in out.stdout
    assert re.search(r"^unknown operators +CustomOp ×1 \(not counted\)$", out.stdout, re.M)


def test_saved_rows_are_a_scenario_that_counts_the_same(graph, tmp_path):
    saved = tmp_path / "mlp.json"
    first = json.loads(cli("flops", "--onnx", str(graph), "--dim", "batch=1", "--save", str(saved),
                           "--format", "json").stdout)
    again = json.loads(cli("flops", str(saved), "--format", "json").stdout)
    assert (again["params"], again["forward_flop"], again["layers"]) == \
        (first["params"], first["forward_flop"], first["layers"])


@pytest.mark.parametrize("args,line", [
    ((), "error: dimensions: give a size for each dynamic dimension: batch (input 'x' axis 0)"),
    (("--dim", "batch=0"), "error: --dim batch: '0' is not a whole number from 1 to 1,000,000,000"),
    (("--dim", "batch=" + "9" * 5000), "is not a whole number"),
    (("--dim", "width"), "error: --dim: 'width': write NAME=SIZE, e.g. --dim batch=1"),
    (("--dim", "seq=3"), "error: dimension 'seq': the graph has no such dynamic dimension (it has: batch)"),
])
def test_bad_dimensions_give_one_line(graph, args, line):
    out = cli("flops", "--onnx", str(graph), *args)
    assert out.returncode == 2 and line in out.stderr and out.stderr.count("\n") == 1


def test_bad_files_give_one_line(tmp_path):
    zeros = tmp_path / "zeros.onnx"
    zeros.write_bytes(bytes(1_000_000))
    out = cli("flops", "--onnx", str(zeros))
    assert out.returncode == 2 and out.stderr.startswith("error: --onnx: not an ONNX model")
    out = cli("flops", "--onnx", str(tmp_path / "missing.onnx"))
    assert out.returncode == 2 and "does not exist" in out.stderr
    out = cli("flops", "--dim", "batch=1", "--preset", "resnet50")
    assert out.returncode == 2 and "--dim and --save go with --onnx" in out.stderr


def test_unwritable_save_target_gives_one_line(graph, tmp_path):
    """--save into a folder that does not exist: one line naming the option and the file, exit 2."""
    target = tmp_path / "no-such-folder" / "mlp.json"
    out = cli("flops", "--onnx", str(graph), "--dim", "batch=1", "--save", str(target))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"error: --save: cannot write '{target}' (No such file or directory)\n"


def test_a_graph_of_more_nodes_than_a_scenario_holds_is_merged_by_scope(tmp_path, monkeypatch):
    """A graph with more counted nodes than a scenario's layers (100,000; 10 here) was counted and then refused
    ('more than 100,000 layers'); its rows are merged by name scope instead, as the dashboard's import does. Three
    blocks of 6 MatMuls x [1, 8] · W [8, 8]: 3 rows of 6·8·8 MACs, 2·3·6·8·8 forward FLOP in all."""
    import engine.method1.blocks

    monkeypatch.setattr(engine.method1.blocks, "MAX_LAYERS", 10)
    nodes, value = [], "x"
    for block in range(3):
        for i in range(6):
            nodes.append(helper.make_node("MatMul", [value, "w"], [f"h{block}_{i}"], name=f"/block{block}/mm{i}/MatMul"))
            value = f"h{block}_{i}"
    model = helper.make_model(helper.make_graph(
        nodes, "deep", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info(value, TensorProto.FLOAT, None)],
        initializer=[helper.make_tensor("w", TensorProto.FLOAT, [8, 8], [0.1] * 64)]),
        opset_imports=[helper.make_opsetid("", 20)])
    path = tmp_path / "deep.onnx"
    path.write_bytes(model.SerializeToString())
    out = cli("flops", "--onnx", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [(r["name"], r["macs"]) for r in data["layers"]] == [(f"/block{b}", 6 * 8 * 8) for b in range(3)]
    assert data["forward_flop"] == 2 * 3 * 6 * 8 * 8 and data["params"] == 64
    assert "18 counted nodes merged by name scope into 3 rows" in " ".join(data["onnx"]["notes"])
