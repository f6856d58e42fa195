"""Graphs that are cheap to store and expensive to import, each under the dashboard's upload cap: the import's
time and memory bounds are checked against them (``test_onnx_bounds.py``) and the hostile suite uses them.

Each builder returns serialized model bytes; ``n`` is its node count (or the count of what makes it heavy).
"""
from __future__ import annotations

from onnx import TensorProto, helper

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs=None, inits=(), opsets=(("", 20),)) -> bytes:
    outputs = outputs or [helper.make_tensor_value_info("y", F, None)]
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets]).SerializeToString()


def _x(shape=("batch", 16)):
    return [helper.make_tensor_value_info("x", F, list(shape))]


def relu_chain(n: int) -> bytes:
    """x → Relu → Relu → … → y: the issue's 7.9 MB file at n = 199,999 (39 s and 540 MB before the bounds)."""
    nodes = [helper.make_node("Relu", [f"v{i}" if i else "x"], [f"v{i + 1}" if i < n - 1 else "y"], name=f"/r{i}/Relu")
             for i in range(n)]
    return _model(nodes, _x())


def reshape_chain(n: int) -> bytes:
    """Shape → Reshape → Relu, n/3 times: every shape is computed, so every node goes through node-by-node
    inference (the slowest pass per node)."""
    nodes, prev = [], "x"
    for i in range(n // 3):
        nodes += [helper.make_node("Shape", [prev], [f"s{i}"]), helper.make_node("Reshape", [prev, f"s{i}"], [f"r{i}"]),
                  helper.make_node("Relu", [f"r{i}"], [f"v{i}"])]
        prev = f"v{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"]))
    return _model(nodes, _x())


def matmul_chain(n: int) -> bytes:
    """n MatMul nodes sharing one weight: every node makes a row."""
    w = helper.make_tensor("w", F, [16, 16], [0.1] * 256)
    nodes = [helper.make_node("MatMul", [f"m{i - 1}" if i else "x", "w"], [f"m{i}" if i < n - 1 else "y"])
             for i in range(n)]
    return _model(nodes, _x(), inits=[w])


def wide_concat(n: int) -> bytes:
    """One Concat of n inputs (the same value n times): one node, a million names."""
    return _model([helper.make_node("Concat", ["x"] * n, ["y"], axis=1)], _x((1, 4)))


def subgraph_nodes(n: int) -> bytes:
    """One If whose branches hold n Relu nodes each: the nodes hide inside a node attribute."""
    def branch(name):
        nodes = [helper.make_node("Relu", [f"{name}{i}" if i else "x"], [f"{name}{i + 1}"]) for i in range(n)]
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(f"{name}{n}", F, None)])
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=branch("a"), else_branch=branch("b"))
    return _model([node], _x(), inits=[cond])


def nested_subgraphs(depth: int) -> bytes:
    """Ifs nested ``depth`` deep (32: protobuf's parser refuses 33, past its depth limit of 100 messages)."""
    leaf = helper.make_graph([helper.make_node("Relu", ["x"], ["o0"])], "d0", [],
                             [helper.make_tensor_value_info("o0", F, None)])
    inner = leaf
    for d in range(1, depth):
        node = helper.make_node("If", ["cond"], [f"o{d}"], then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([node], f"d{d}", [], [helper.make_tensor_value_info(f"o{d}", F, None)])
    cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=inner, else_branch=leaf)
    return _model([node], _x(), inits=[cond])


HEAVY = {"relu_chain": (relu_chain, 199_999), "relu_chain_under_cap": (relu_chain, 50_000),
         "reshape_chain": (reshape_chain, 49_998), "matmul_chain": (matmul_chain, 49_999),
         "wide_concat": (wide_concat, 1_000_000), "subgraph_nodes": (subgraph_nodes, 30_000),
         "nested_subgraphs": (nested_subgraphs, 32)}
"""name → (builder, size): the heaviest of each kind that fits the upload cap."""
