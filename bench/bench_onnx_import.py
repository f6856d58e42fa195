"""The ONNX import: reading and counting a graph (``engine.importers.onnx_graph``), median seconds, on graphs
built here with ``onnx.helper`` (no torch): a transformer-shaped graph of L blocks whose reshapes are computed
from the input's own shape at run time (Shape → Gather → Unsqueeze → Concat → Reshape), as exporters write them.

    .venv/bin/python -m bench.bench_onnx_import

Measured (this shared 2-core machine, median of 5): 12 blocks, 312 nodes: 0.18 s to read and count;
48 blocks, 1,248 nodes: 0.75 s; MACs equal the formula written here. Target: under 1 s for ~1,000 nodes.
Page runs after an import are those of any scenario of that many rows (bench_link_layers).
"""
from __future__ import annotations

import json


def transformer_graph(blocks: int, d: int = 256, heads: int = 4) -> bytes:
    from onnx import TensorProto, helper

    nodes, inits = [], []

    def const(name, values):
        inits.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def weight(name, *dims):
        n = 1
        for x in dims:
            n *= x
        inits.append(helper.make_tensor(name, TensorProto.FLOAT, list(dims), [0.01] * n))
        return name

    const("zero", [0]), const("one", [1]), const("heads", [heads]), const("dh", [d // heads]), const("dm", [d])
    prev = "x"
    for b in range(blocks):
        p = f"/blocks/{b}"
        nodes += [helper.make_node("LayerNormalization", [prev, weight(f"g{b}", d), weight(f"be{b}", d)],
                                   [f"{p}/ln"], axis=-1, name=f"{p}/ln/LayerNormalization"),
                  helper.make_node("MatMul", [f"{p}/ln", weight(f"wqkv{b}", d, 3 * d)], [f"{p}/qkv"],
                                   name=f"{p}/attn/qkv/MatMul"),
                  helper.make_node("Split", [f"{p}/qkv"], [f"{p}/q", f"{p}/k", f"{p}/v"], axis=-1, num_outputs=3,
                                   name=f"{p}/attn/Split"),
                  helper.make_node("Shape", [prev], [f"{p}/shape"], name=f"{p}/attn/Shape"),
                  helper.make_node("Gather", [f"{p}/shape", "zero"], [f"{p}/batch"], axis=0, name=f"{p}/attn/Gather"),
                  helper.make_node("Gather", [f"{p}/shape", "one"], [f"{p}/seq"], axis=0, name=f"{p}/attn/Gather_1"),
                  helper.make_node("Concat", [f"{p}/batch", f"{p}/seq", "heads", "dh"], [f"{p}/hshape"], axis=0,
                                   name=f"{p}/attn/Concat")]
        for t in "qkv":
            nodes += [helper.make_node("Reshape", [f"{p}/{t}", f"{p}/hshape"], [f"{p}/{t}4"], name=f"{p}/attn/R{t}"),
                      helper.make_node("Transpose", [f"{p}/{t}4"], [f"{p}/{t}h"], perm=[0, 2, 1, 3],
                                       name=f"{p}/attn/T{t}")]
        nodes += [helper.make_node("Transpose", [f"{p}/kh"], [f"{p}/kt"], perm=[0, 1, 3, 2], name=f"{p}/attn/Tk2"),
                  helper.make_node("MatMul", [f"{p}/qh", f"{p}/kt"], [f"{p}/s"], name=f"{p}/attn/MatMul"),
                  helper.make_node("Softmax", [f"{p}/s"], [f"{p}/a"], axis=-1, name=f"{p}/attn/Softmax"),
                  helper.make_node("MatMul", [f"{p}/a", f"{p}/vh"], [f"{p}/o"], name=f"{p}/attn/MatMul_1"),
                  helper.make_node("Transpose", [f"{p}/o"], [f"{p}/ot"], perm=[0, 2, 1, 3], name=f"{p}/attn/To"),
                  helper.make_node("Concat", [f"{p}/batch", f"{p}/seq", "dm"], [f"{p}/oshape"], axis=0,
                                   name=f"{p}/attn/Concat_1"),
                  helper.make_node("Reshape", [f"{p}/ot", f"{p}/oshape"], [f"{p}/o2"], name=f"{p}/attn/Ro"),
                  helper.make_node("MatMul", [f"{p}/o2", weight(f"wo{b}", d, d)], [f"{p}/proj"],
                                   name=f"{p}/attn/out/MatMul"),
                  helper.make_node("Add", [prev, f"{p}/proj"], [f"{p}/res"], name=f"{p}/Add"),
                  helper.make_node("MatMul", [f"{p}/res", weight(f"w1{b}", d, 4 * d)], [f"{p}/h"],
                                   name=f"{p}/mlp/fc1/MatMul"),
                  helper.make_node("Gelu", [f"{p}/h"], [f"{p}/g"], name=f"{p}/mlp/Gelu", domain=""),
                  helper.make_node("MatMul", [f"{p}/g", weight(f"w2{b}", 4 * d, d)], [f"{p}/m"],
                                   name=f"{p}/mlp/fc2/MatMul"),
                  helper.make_node("Add", [f"{p}/res", f"{p}/m"], [f"{p}/out"], name=f"{p}/Add_1")]
        prev = f"{p}/out"
    graph = helper.make_graph(nodes, "bench", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                             ["batch", "sequence", d])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]).SerializeToString()


def main() -> dict:
    from bench.common import median_seconds
    from engine.importers.onnx_graph import count_onnx, read_onnx

    out: dict = {}
    for blocks in (12, 48):
        data = transformer_graph(blocks)
        counted = count_onnx(read_onnx(data), {"batch": 1, "sequence": 128})
        t, d = 128, 256
        want = blocks * (t * d * 3 * d + 2 * 4 * t * t * (d // 4) + t * d * d + 2 * t * d * 4 * d)
        out[f"blocks_{blocks}_nodes"] = counted.nodes
        out[f"blocks_{blocks}_macs_as_formula"] = counted.macs == want and not counted.uncounted_ops
        out[f"blocks_{blocks}_read_ms"] = 1e3 * median_seconds(lambda: read_onnx(data), repeat=5, warmup=1)
        out[f"blocks_{blocks}_read_and_count_ms"] = 1e3 * median_seconds(
            lambda: count_onnx(read_onnx(data), {"batch": 1, "sequence": 128}), repeat=5, warmup=1)
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
