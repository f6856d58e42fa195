"""The layer builder's Compress panel through AppTest: a scenario's own pruning (a restored file, a link) is what the
panel compares — its per-layer fractions and rounding kept, a path it cannot prune named — not the panel's one
fraction for every layer."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from engine.compress.compression import Compression, compress
from engine.errors import parse_input
from engine.presets import presets
from tests.conftest import ROOT

BODY = "layers[4].layers[0].body[0]"
"""ResNet-18's first residual block's first convolution (64 filters): a layer channel pruning applies to."""


def _restored(pruning: dict) -> AppTest:
    data = presets()["resnet18"].scenario.model_dump(mode="json")
    data["compression"] = {"technique": "prune", "pruning": pruning}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="scenario_upload").upload("pruned.json", json.dumps(data).encode(), "application/json").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown_params(at) -> str:
    table = next(d.value for d in at.dataframe if "parameters" in d.value.iloc[:, 0].tolist())
    return table[table.iloc[:, 0] == "parameters"].iloc[0, 2]


def test_a_restored_per_layer_pruning_is_the_one_compared():
    """It was replaced by the panel's global 50%: 11.69M → 6.19M parameters instead of one layer's half."""
    pruning = {"target": "channels", "per_layer": {BODY: 0.5}, "round_to": 8}
    at = _restored(pruning)
    assert any("prunes these layers by their own fractions" in c.value.replace("\\", "") for c in at.caption)
    data = presets()["resnet18"].scenario.model_dump(mode="json")
    expected = compress(data, parse_input(Compression, {"technique": "prune", "pruning": pruning}))
    assert _shown_params(at) == f"{expected.after.params:,.0f}"
    # the one conv loses 32 of 64 filters: 32·3·3·64 of its weights, and the next conv reads 32 fewer channels
    assert expected.before.params - expected.after.params == 32 * 3 * 3 * 64 + 64 * 3 * 3 * 32 + 2 * 32
    assert at.session_state["scenario"].compression.pruning.per_layer == {BODY: 0.5}


def test_a_restored_path_it_cannot_prune_is_named():
    at = _restored({"target": "channels", "per_layer": {"layers[999]": 0.5}})
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == ["per_layer: layers[999]: not a layer this pruning applies to (its channels)"], errors
