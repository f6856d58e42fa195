"""A scenario of counted rows (an ONNX graph's nodes or a PyTorch module's modules) through its share link:
the layer builder shows its totals and its rows' form (0 parameters, a shape) without an exception, and every
other page opens it."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from engine.scenario import parse_scenario
from engine.share_link import encode
from tests.conftest import ROOT
from tests.reference import metric

ROWS = [{"type": "counted", "name": "/fc1/Gemm", "op": "Gemm", "params": 544, "macs": 512, "extra_flop": 32,
         "output_shape": [1, 32]},
        {"type": "counted", "name": "/act/Relu", "op": "Relu", "extra_flop": 32, "output_shape": [1, 32]},
        {"type": "counted", "name": "/fc2", "op": "Linear", "params": 330, "macs": 320, "output_shape": [1, 10],
         "backward_macs": 640}]
SCENARIO = parse_scenario({"name": "imported", "input": {"shape": [16]}, "layers": ROWS,
                           "training": {"examples": 1000, "epochs": 1}})


def test_the_link_of_counted_rows_opens_on_every_page():
    token = encode(SCENARIO)
    for page in ("app.py", "pages/hardware.py", "pages/plan.py"):
        at = AppTest.from_file(str(ROOT / page), default_timeout=60)
        at.query_params["s"] = token
        at.run()
        assert not at.exception, (page, at.exception)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["s"] = token
    at.run()
    assert metric(at, "Parameters") == f"{544 + 330:,}"
    assert SCENARIO.method1().forward_flop == 2 * (512 + 320)
    assert not at.error


def test_a_frozen_counted_row_keeps_its_zero_backward_in_the_form():
    """A module counted with its weights frozen: backward 0 and 0 trained parameters are counts, not 'empty =
    automatic'; the layer form (open on the first row) keeps them, so the backward per example is the other
    row's 640 MACs and the trainable parameters are its 330."""
    frozen = [ROWS[0] | {"backward_macs": 0, "trainable_params": 0}, ROWS[1], ROWS[2]]
    scenario = parse_scenario({"name": "frozen", "input": {"shape": [16]}, "layers": frozen,
                               "training": {"examples": 1000, "epochs": 1}})
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["s"] = encode(scenario)
    at.run()
    assert not at.exception
    assert metric(at, "Backward per example") == f"{2 * 640:,} FLOP"
    assert metric(at, "Trainable parameters") == "330"
