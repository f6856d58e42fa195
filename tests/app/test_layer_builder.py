"""The layer builder page through Streamlit's AppTest: totals, edits, presets, links, isolation."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.presets import presets
from tests.app import add_layer
from tests.conftest import ROOT
from tests.reference import EPOCH_EXAMPLE_TRAINING, flop, metric

APP = str(ROOT / "app.py")


def app(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def layer_picker(at: AppTest):
    """The "Layer" selectbox (its key changes with every new layer list)."""
    return next(s for s in at.selectbox if s.label.startswith("Layer"))


def test_default_is_the_seed_example():
    at = app()
    assert not at.exception
    assert flop(metric(at, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)  # shown to 3 digits
    assert metric(at, "Parameters") == f"{2016 + 4 * (640_000 * 256 + 256 ** 2 + 512) + 2570:,}"


def test_doubling_the_epochs_doubles_the_total():
    at = app()
    at.number_input(key="t_epochs").set_value(20.0).run()
    assert flop(metric(at, "Training compute")) == pytest.approx(2 * EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_backward_ratio_one_gives_two_passes():
    at = app()
    at.number_input(key="t_ratio").set_value(1.0).run()
    assert flop(metric(at, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING * 2 / 3, rel=5e-3)


def test_editing_a_layer_changes_its_flop():
    # LSTM 256 → 512 units: 8·(640,000·512 + 512²) per step
    at = app()
    at.number_input(key="layer0_filters")  # the first layer (conv2d) is selected by default
    layer_picker(at).set_value(2).run()
    at.number_input(key="layer2_units").set_value(512).run()
    expected = 3 * 128_000 * (20 * (2 * 200 * 200 * 16 * 125 + 8 * (640_000 * 512 + 512 ** 2)) + 2 * 512 * 10)
    assert flop(metric(at, "Training compute")) == pytest.approx(expected, rel=5e-3)


def test_full_convention_switch():
    at = app()
    at.radio(key="m1_conv").set_value("full").run()
    assert flop(metric(at, "Training compute")) > EPOCH_EXAMPLE_TRAINING
    assert "convention: full" in next(m.help for m in at.metric if m.label == "Forward per example").replace("\\", "")


def test_load_vgg16_preset():
    at = app()
    at.selectbox(key="preset_choice").set_value("vgg16").run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    assert not at.exception
    assert metric(at, "Parameters") == "138,357,544"
    macs = float(metric(at, "MACs per example").removesuffix(" MACs"))
    assert macs == pytest.approx(15.47e9, rel=3e-3)


def test_shape_error_points_at_the_layer_and_keeps_the_table():
    at = app()
    at.text_input(key="m1_shape").set_value("400, 400").run()  # conv2d now gets a 2-D item
    assert not at.exception
    assert any("layers[0]" in e.value.replace("\\", "") and "conv2d" in e.value.replace("\\", "") for e in at.error)
    table = at.dataframe[0].value
    assert list(table["#"]) == [0, 1, 2, 3]  # every layer is still listed (the unreached ones without a path)


def test_bad_field_value_is_named_and_the_last_estimate_kept():
    at = app()
    at.text_input(key="m1_shape").set_value("400, -3, 5").run()
    assert any("input.shape" in e.value.replace("\\", "") for e in at.error)
    assert flop(metric(at, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_add_and_delete_a_layer():
    at = app()
    layer_picker(at).set_value(3).run()
    add_layer(at, "dense")
    assert len(at.dataframe[0].value) == 5 and not at.exception
    next(b for b in at.button if b.label == "Delete").click().run()
    assert len(at.dataframe[0].value) == 4
    assert flop(metric(at, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_quick_form_connections():
    at = app()
    at.radio(key="m1_mode").set_value("quick").run()
    at.radio(key="q_kind").set_value("connections").run()
    at.number_input(key="q_value").set_value(1e6).run()
    # 2 × connections × 3 × (100 × 128) × 10
    assert flop(metric(at, "Training compute")) == pytest.approx(2 * 1e6 * 3 * 12_800 * 10, rel=5e-3)


def test_url_round_trip_restores_the_estimate():
    at = app()
    at.number_input(key="t_epochs").set_value(7.0).run()
    total = metric(at, "Training compute")
    token = at.query_params["s"]
    token = token[0] if isinstance(token, list) else token
    fresh = app({"s": token})
    assert metric(fresh, "Training compute") == total
    assert fresh.number_input(key="t_epochs").value == 7.0


@pytest.mark.parametrize("token", ["garbage", "1.AAAA", "1." + "z" * 20_000, "<script>alert(1)</script>",
                                   "1.eJyrVkpKLFKyUlAqS8wpTVWqBQA"])
def test_hostile_links_give_a_message_and_the_defaults(token):
    at = app({"s": token})
    assert not at.exception
    assert any("share link could not be opened" in w.value.replace("\\", "") for w in at.warning)
    assert flop(metric(at, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_two_sessions_do_not_share_state():
    one, two = app(), app()
    one.number_input(key="t_epochs").set_value(30.0).run()
    two.run()
    assert flop(metric(two, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)
    assert flop(metric(one, "Training compute")) == pytest.approx(3 * EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_user_text_is_not_rendered_as_html():
    name = "<img src=x onerror=alert(1)>"
    at = app()
    at.text_input(key="m1_name").set_value(name).run()
    assert not at.exception
    assert at.session_state["scenario"].name == name  # kept as typed …
    rendered = [e.value for kind in ("markdown", "caption", "warning", "info", "error", "success")
                for e in getattr(at, kind)]
    assert not any("<img" in str(v) for v in rendered)  # … and never handed to Markdown as HTML


def test_text_from_a_link_is_inert_in_the_message():
    import base64
    import json
    import zlib

    payload = {"input": {"shape": [3]}, "layers": [{"type": "![x](http://e.invalid/a.png)<b>"}]}
    token = "1." + base64.urlsafe_b64encode(zlib.compress(json.dumps(payload).encode())).decode().rstrip("=")
    at = app({"s": token})
    message = next(w.value for w in at.warning if "share link" in w.value)
    assert r"\!\[x\]\(http\://e\.invalid/a\.png\)\<b\>" in message  # shown as text, not as an image or HTML


def test_sliding_window_edit_on_one_block_changes_only_its_attention_rows():
    """Llama 2 7B preset, block #1 given causal_count half and a window W = 1,024 over L = 4,096:
    its QKᵀ row counts W(W+1)/2 + (L − W)·W pairs × H·Q MACs × 2; block #2 keeps all L²."""
    at = app()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    layer_picker(at).set_value(1).run()
    at.selectbox(key="layer1_mixer_attention_causal_count").set_value("half").run()
    at.number_input(key="layer1_mixer_attention_window").set_value(1024).run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    scores = table[table["layer"].str.startswith("attention scores QKᵀ")].set_index("path")["forward FLOP"]
    h, q, length, w = 32, 128, 4096, 1024
    assert scores["#1"] == 2 * h * q * (w * (w + 1) // 2 + (length - w) * w)
    assert scores["#2"] == 2 * h * q * length * length


@pytest.mark.parametrize("tokens", [0.0, 1e40])
def test_config_panel_bad_token_count_is_named_and_keeps_the_scenario(tokens):
    at = app()
    at.number_input(key="hf_tokens").set_value(tokens)
    next(b for b in at.button if b.label.startswith("Build the layers")).click().run()
    assert not at.exception
    assert [e.value for e in at.error][0].startswith("tokens\\: ")
    # the refused config's totals are withheld (no old numbers beside the error); the scenario is kept as it was
    assert not [m for m in at.metric if m.label == "Training compute"]
    assert at.text_input(key="m1_name").value == presets()["epoch-cnn-lstm"].scenario.name
    at.run()  # the next run shows the kept scenario's totals again
    assert flop(metric(at, "Training compute")) == pytest.approx(EPOCH_EXAMPLE_TRAINING, rel=5e-3)


def test_a_range_on_r_gives_a_90_percent_band_beside_the_total():
    at = app()
    at.number_input(key="t_ratio_low").set_value(1.0).run()
    at.number_input(key="t_ratio_high").set_value(3.0).run()
    assert not at.exception and not at.error
    # C = F × (1 + r) × E: with r in [1, 3] (its 90% interval), C's interval is C × [2, 4] / 3
    low, high = metric(at, "90% interval").replace(" FLOP", "").split(" – ")
    assert float(low) == pytest.approx(EPOCH_EXAMPLE_TRAINING * 2 / 3, rel=0.03)  # Monte Carlo, fixed seed
    assert float(high) == pytest.approx(EPOCH_EXAMPLE_TRAINING * 4 / 3, rel=0.03)
    assert metric(at, "Confidence (Epoch's labels)") == "Confident"


def test_a_reversed_range_is_a_named_error():
    at = app()
    at.number_input(key="t_ratio_low").set_value(3.0).run()
    at.number_input(key="t_ratio_high").set_value(1.0).run()
    assert any("backward_ratio" in e.value.replace("\\", "") for e in at.error) and not at.exception


def test_start_from_scratch_is_empty_and_the_first_layer_is_one_click():
    at = app()
    next(b for b in at.button if b.label == "Start from scratch").click().run()
    assert not at.exception
    assert at.session_state["scenario"].layers == [] and at.session_state["scenario"].input.shape == [784]
    assert any("No layers yet" in i.value for i in at.info)
    add_layer(at, "dense")  # a starter dense of 128 units: 784·128 + 128 parameters
    assert not at.exception
    assert metric(at, "Parameters") == f"{784 * 128 + 128:,}"


def test_a_block_switched_to_a_mamba_mixer_counts_mambas_rows():
    """Llama 2 7B preset, block #1's mixer switched to Mamba in the form (its starter sizes: I = 1,024, N = 16,
    K = 4, R = 32) and the feed-forward switched off: block #1's rows are Mamba's — in projection d→2I (2·L·d·2I
    FLOP), out projection I→d (2·L·I·d) — and no attention or feed-forward row; block #2 keeps its attention."""
    at = app()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    layer_picker(at).set_value(1).run()
    at.selectbox(key="layer1_mixer_kind").set_value("mamba").run()
    at.checkbox(key="layer1_feed_forward_on").uncheck().run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    one = table[table["path"] == "#1"].set_index("layer")["forward FLOP"]
    d, length, inner = 4096, 4096, 1024
    assert one[next(k for k in one.index if k.startswith("mamba in projection"))] == 2 * length * d * 2 * inner
    assert one[next(k for k in one.index if k.startswith("mamba out projection"))] == 2 * length * inner * d
    assert not any(k.startswith(("attention", "feed-forward")) for k in one.index)
    two = table[table["path"] == "#2"]["layer"]
    assert two.str.startswith("attention scores QKᵀ").any()
