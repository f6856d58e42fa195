"""Blocks in the layer builder (AppTest): ResNet-50 loaded, an edit inside a repeat (every copy), wrap and
unwrap, subtotal rows and collapsed levels. Expected figures are worked out here."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.method1 import tree
from engine.presets import presets
from tests.app import scratch_mlp
from tests.conftest import ROOT
from tests.reference import metric

APP = str(ROOT / "app.py")
RESNET50_PARAMS = 25_557_032  # torchvision's ResNet-50 (Σ p.numel())


def loaded(preset_id: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.selectbox(key="preset_choice").set_value(preset_id).run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    assert not at.exception
    return at


def pick(at: AppTest, path: str) -> None:
    layers = at.session_state["scenario"].model_dump(mode="json")["layers"]
    next(s for s in at.selectbox if s.label.startswith("Layer")).set_value([e.path for e in tree.entries(layers)].index(path)).run()


def test_resnet50_loads_with_subtotals_and_collapses():
    at = loaded("resnet50")
    assert metric(at, "Parameters") == f"{RESNET50_PARAMS:,}"
    table = at.dataframe[0].value
    subtotals = table[table["status"] == "subtotal"]
    # the stages (named groups), the bottlenecks, layer1's 2 repeated bottlenecks (one row standing for both)
    assert set(subtotals["layer"].str.strip("· ")) >= {"▾ repeat", "▾ residual", "▾ repeat (2 copies)",
                                                        "▾ residual ×2"}
    at.slider(key="m1_levels").set_value(0).run()
    table = at.dataframe[0].value
    # top level: conv, bn, relu, max pool, 4 stages (one subtotal row each), pool, flatten, dense
    assert len(table) == 11 and list(table["path"]) == [f"#{i}" for i in range(11)]
    assert table["params"].sum() == RESNET50_PARAMS


def test_editing_inside_a_repeat_edits_every_copy():
    # layer1's repeated bottleneck (2 copies): first 1×1 conv 256→64 becomes 256→32. Per copy:
    # conv1 256·(32−64), its batch norm 2·(32−64), conv2 3×3 (32−64)·64·9
    at = loaded("resnet50")
    path = "layers[4].layers[2].layers[0].body[0]"
    pick(at, path)
    assert any("edits every copy" in i.value for i in at.info)
    at.number_input(key="layer4_layers_2_layers_0_body_0_filters").set_value(32).run()
    assert not at.exception and not at.error
    per_copy = 256 * (32 - 64) + 2 * (32 - 64) + (32 - 64) * 64 * 9
    assert metric(at, "Parameters") == f"{RESNET50_PARAMS + 2 * per_copy:,}"


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_wrap_into_a_repeat_then_unwrap():
    at = AppTest.from_file(APP, default_timeout=60).run()
    scratch_mlp(at)  # [784] → dense 128 → relu → dense 10
    pick(at, "layers[0]")
    at.selectbox(key="m1_wrap_kind").set_value("repeat").run()
    at.number_input(key="m1_wrap_count").set_value(2).run()
    button(at, "Wrap").click().run()
    assert not at.exception and not at.error
    layers = at.session_state["scenario"].model_dump(mode="json")["layers"]
    assert [l["type"] for l in layers] == ["repeat", "dense"] and layers[0]["times"] == 2
    # copies: dense 784→128, relu, dense 128→128, relu; then dense 128→10
    assert metric(at, "Parameters") == f"{784 * 128 + 128 + 128 * 128 + 128 + 128 * 10 + 10:,}"
    pick(at, "layers[0]")
    button(at, "Unwrap").click().run()
    layers = at.session_state["scenario"].model_dump(mode="json")["layers"]
    assert [l["type"] for l in layers] == ["dense", "activation", "dense"]
    assert metric(at, "Parameters") == f"{784 * 128 + 128 + 128 * 10 + 10:,}"


def test_wrapping_into_a_mismatched_residual_is_one_line_and_keeps_the_list():
    at = AppTest.from_file(APP, default_timeout=60).run()
    scratch_mlp(at)
    pick(at, "layers[0]")  # dense 784 → 128 cannot be added to its 784-wide input
    button(at, "Wrap").click().run()
    assert not at.exception
    messages = [e.value.replace("\\", "") for e in at.error]
    assert any(m.startswith("layers[0]") and "[128]" in m and "[784]" in m for m in messages), messages


@pytest.mark.parametrize("preset_id", ["inception_v3", "unet", "vit_b_16", "llama2-7b", "swin_t"])
def test_nested_presets_load_and_chart_one_bar_per_top_level_layer(preset_id):
    at = loaded(preset_id)
    assert not at.error
    n_top = len(presets()[preset_id].scenario.layers)
    at.toggle(key="m1_chart").set_value(True).run()  # the chart is drawn when asked for
    chart = at.get("plotly_chart")[0]
    import json

    bars = json.loads(chart.proto.spec)["data"][0]["x"]
    assert len(bars) <= n_top


@pytest.mark.parametrize("layers,needle", [
    ([{"type": "residual", "body": [{"type": "dense", "units": 3}]}], "layers[0]"),  # [4] + [3]: a merge mismatch
    ([{"type": "repeat", "times": 10**9, "layers": [{"type": "flatten"}]}], "layers[0].times"),
    ([{"type": "branches", "branches": []}], "layers[0].branches"),
])
def test_hostile_nested_links_are_one_line_messages(layers, needle):
    import base64
    import json
    import zlib

    raw = json.dumps({"version": 1, "input": {"shape": [4]}, "layers": layers}).encode()
    token = "1." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["s"] = token
    at.run()
    assert not at.exception
    shown = " ".join(e.value.replace("\\", "") for e in list(at.error) + list(at.warning) + list(at.info))
    assert needle in shown, shown


def test_deep_nesting_link_is_refused():
    import base64
    import zlib

    text = '{"version": 1, "input": {"shape": [4]}, "layers": [' + '{"type": "repeat", "layers": [' * 5_000 + \
        '{"type": "flatten"}' + "]}" * 5_000 + "]}"
    token = "1." + base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["s"] = token
    at.run()
    assert not at.exception
    shown = " ".join(e.value.replace("\\", "") for e in list(at.error) + list(at.warning) + list(at.info))
    assert "could not be opened" in shown


def test_wrap_count_follows_the_picked_layer():
    at = AppTest.from_file(APP, default_timeout=60).run()
    scratch_mlp(at)
    pick(at, "layers[0]")
    at.number_input(key="m1_wrap_count").set_value(3).run()
    pick(at, "layers[2]")  # the last layer: at most 1 layer from it
    assert not at.exception
    assert at.number_input(key="m1_wrap_count").value == 1
