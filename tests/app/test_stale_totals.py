"""A method-1 error keeps the last valid totals (marked stale) and the rows before the error; the
table never shows 'None'. Figures worked out here."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.reference import EPOCH_EXAMPLE_PARAMS, EPOCH_EXAMPLE_TRAINING, flop, metric


def builder() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    return at


def test_an_error_keeps_the_last_valid_totals_marked_stale():
    at = builder()
    at.text_input(key="layer0_kernel_size").set_value("500").run()  # larger than the 404-pixel padded input
    assert any("layers[0]" in e.value.replace("\\", "") for e in at.error)
    assert flop(metric(at, "Training compute (stale)")) == float(f"{EPOCH_EXAMPLE_TRAINING:.3g}")
    assert metric(at, "Parameters (stale)") == f"{EPOCH_EXAMPLE_PARAMS:,}"
    assert any("last valid" in w.value for w in at.warning)
    table = at.dataframe[0].value
    assert not table.isna().any().any() and "None" not in table.astype(str).to_numpy()
    assert list(table["status"]) == ["⚠ error · last valid values"] + ["not reached · last valid values"] * 3
    at.text_input(key="layer0_kernel_size").set_value("5").run()  # fixed: fresh totals, no mark
    assert flop(metric(at, "Training compute")) == float(f"{EPOCH_EXAMPLE_TRAINING:.3g}")
    assert not any("(stale)" in m.label for m in at.metric)


def test_rows_before_the_error_are_computed_afresh():
    at = builder()
    at.selectbox(key="preset_choice").set_value("alexnet").run()
    at.button[[b.label for b in at.button].index("Load preset")].click().run()
    before = metric(at, "Training compute")
    next(s for s in at.selectbox if s.label.startswith("Layer")).set_value(3).run()  # conv2: 5×5 on the 27×27 map after the first pool
    at.text_input(key="layer3_kernel_size").set_value("40").run()
    assert any("layers[3]" in e.value.replace("\\", "") for e in at.error)
    table = at.dataframe[0].value
    fresh = table[table["status"] == "ok"]
    assert list(fresh["path"]) == ["#0", "#1", "#2"]
    # conv1: 96 filters 11×11×3, stride 4 on 227×227 → 55×55: 2·55·55·96·363 FLOP
    assert fresh.iloc[0]["forward FLOP"] == 2 * 55 * 55 * 96 * 11 * 11 * 3
    assert metric(at, "Training compute (stale)") == before  # the value shown before the bad edit


def test_transformer_rows_lead_with_the_parts_name():
    """A narrow 'layer' column still tells the rows apart: 'attention q projection · transformer_block'."""
    at = builder()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    at.button[[b.label for b in at.button].index("Load preset")].click().run()
    labels = [label.lstrip("· ") for label in at.dataframe[0].value["layer"]]
    block_rows = [label for label in labels if "transformer_block" in label and not label.startswith("▾")]
    assert block_rows and not any(label.startswith("transformer") for label in block_rows)
    assert any(label.startswith("attention q projection") for label in block_rows)



def test_counting_shows_a_running_indicator(monkeypatch):
    """Large models take a moment: every run that counts does it inside a spinner (shown by Streamlit only
    when the count lasts), the first load once, an edit twice (the session's scenario, then the edited one)."""
    import streamlit as st

    said = []
    spinner = st.spinner

    def recording_spinner(text="", *args, **kwargs):
        said.append(text)
        return spinner(text, *args, **kwargs)

    monkeypatch.setattr(st, "spinner", recording_spinner)
    at = builder()
    assert said == ["Counting the FLOP…"]
    at.number_input(key="t_epochs").set_value(20.0).run()
    assert said == ["Counting the FLOP…"] * 3
    assert flop(metric(at, "Training compute")) == float(f"{2 * EPOCH_EXAMPLE_TRAINING:.3g}")
