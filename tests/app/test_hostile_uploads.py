"""The hostile ONNX corpus through the layer builder's uploader (AppTest uploads the bytes as a browser would):
every place a tensor can be stored outside the file, sizes past a float, thousands of symbolic dimensions, long
chains and subgraphs, invalid sparse initializers, duplicated names, two models joined, a name that is not UTF-8, a
file cut short. Each gives at most one line per message and no exception element, no internal wording, and the
layer table is never built from a file's outside data."""
from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.conftest import ROOT  # noqa: E402
from tests.importers import external_graphs, heavy_graphs  # noqa: E402

F = TensorProto.FLOAT


def _vi(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


def _model(nodes, inputs, inits=(), sparse=(), opset=20) -> bytes:
    graph = helper.make_graph(nodes, "g", inputs, [_vi("y", None)], initializer=list(inits),
                              sparse_initializer=list(sparse))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _corpus() -> dict[str, bytes]:
    relu = [helper.make_node("Relu", ["x"], ["y"], name="/r/Relu")]
    one = _model(relu, [_vi("x", [1, 4])])
    bad_sparse = helper.make_sparse_tensor(helper.make_tensor("s", TensorProto.INT64, [2], [1, 2]),
                                           helper.make_tensor("i", TensorProto.INT64, [2], [0, 99]), [2])
    cases = {f"outside-{place}": build("secret.bin").SerializeToString()
             for place, build in external_graphs.PLACES.items()}
    cases |= {
        "input-40-axes-of-1e9": _model(relu, [_vi("x", [10**9] * 40)]),
        "weight-17-axes-of-2^62": _model([helper.make_node("Add", ["x", "w"], ["y"])], [_vi("x", [1, 4])],
                                         [TensorProto(name="w", data_type=F, dims=[2**62] * 17)]),
        "5000-symbolic-dimensions": _model(relu, [_vi("x", [f"d{i}" for i in range(5000)])]),
        "relu-chain-60000": heavy_graphs.relu_chain(60_000),
        "if-32-deep": heavy_graphs.nested_subgraphs(32),
        "sparse-index-outside": _model([helper.make_node("Reshape", ["x", "s"], ["y"])], [_vi("x", [1, 4])],
                                       sparse=[bad_sparse]),
        "two-inputs-one-name": _model(relu, [_vi("x", [1, 4]), _vi("x", [1, 4])]),
        "two-writers": _model(relu + [helper.make_node("Sigmoid", ["x"], ["y"], name="/s")], [_vi("x", [1, 4])]),
        "two-models-joined": one + one,
        "name-not-utf8": one.replace(b"/r/Relu", b"/r/\xafelu"),
        "cut-short": one[: len(one) // 2],
    }
    return cases


CORPUS = _corpus()
INTERNAL = ("Traceback", "internal", "unexpected", "Exception", "Error:")


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_hostile_upload_is_one_line_and_never_a_crash(name):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.file_uploader(key="onnx_upload").upload(f"{name}.onnx", CORPUS[name], "application/octet-stream").run()
    button = next((b for b in at.button if b.label == "Count the graph and load its rows"), None)
    if button is not None and not button.disabled:
        button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    messages = [e.value for e in at.error] + [w.value for w in at.warning] + [c.value for c in at.caption]
    for text in messages:
        assert "\n" not in text.strip() and not any(word in text for word in INTERNAL), text
    scenario = at.session_state["scenario"]
    shapes = [layer.output_shape for layer in scenario.layers if getattr(layer, "output_shape", None)]
    assert not any(31337 in shape for shape in shapes), shapes  # the planted file's values never become a shape
