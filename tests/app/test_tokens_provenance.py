"""No total is built from another model's inputs: the training tokens D of the transformer panel are the picked
model's own published count (with its source) or blank and required, for every one of the library's entries and
every way a config arrives (picked, pasted, downloaded; uploaded: tests/browser/test_transformer_panel.py).

Before: a model without a published count kept the previous model's D — "Llama 3.1 70B" after BERT showed
6.16e22 FLOP (BERT's 1.28e11 tokens) instead of about 7.2e24, and Plan a run 150 days on 8 chips; 134 of the 260
entries have no count, and a pasted or uploaded config.json started at BERT's D."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from engine.errors import InputError
from engine.llm.config import read_hf_config
from engine.llm.library import library_model, library_models
from engine.scenario import parse_scenario
from tests.conftest import ROOT
from ui.views.transformer import config_identity, own_tokens, required_tokens

MODELS = library_models()
WITH = [m for m in MODELS if m.training_tokens]
WITHOUT = [m for m in MODELS if not m.training_tokens]


def test_the_library_as_the_issue_counted_it():
    assert len(MODELS) == 260 and len(WITHOUT) == 134 and len(WITH) == 126
    assert library_model("bert-base-uncased").training_tokens == 1.28e11
    assert library_model("llama-3.1-70b").training_tokens is None


def _walk() -> list:
    """Every entry once, each without a count right after one with a count (the case that went wrong), and an
    entry with a count after one without."""
    order, spare = [], list(WITH)
    for i, model in enumerate(WITHOUT):
        order += [spare.pop() if spare else WITH[i % len(WITH)], model]
    return order + spare


def test_every_entry_brings_its_own_tokens_or_none():
    """For each entry the D it would be built with: its own published count, or nothing (refused with one line),
    and the scenario built with it holds exactly those tokens (examples × sequence length)."""
    previous = None
    for model in _walk():
        assert config_identity("library", model.id) != previous
        previous = config_identity("library", model.id)
        tokens = own_tokens(model.training_tokens)
        if model.training_tokens is None:
            assert tokens is None
            with pytest.raises(InputError, match=r"^Training tokens D: unknown for this model: enter D"):
                required_tokens(tokens)
            continue
        assert tokens == model.training_tokens
        config = read_hf_config(model.config, source="config")
        try:
            seq = config.sequence_length(None)
        except InputError:  # no context length in the config: the user gives T
            seq = 2048
        scenario = parse_scenario(config.scenario_data(required_tokens(tokens), seq, name=model.name))
        assert abs(scenario.tokens() - model.training_tokens) <= seq, model.id  # whole sequences of T


def app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption).replace("\\", "")


def test_the_panel_walks_every_entry_and_never_keeps_the_last_models_tokens():
    at = app()
    for n, model in enumerate(_walk()):
        at.selectbox(key="hf_model").set_value(model.id).run()
        field = at.number_input(key="hf_tokens").value
        if model.training_tokens:
            assert field == model.training_tokens, model.id
            assert f"as published: {model.training_tokens_source}"[:60] in _captions(at), model.id
        else:
            assert field is None, (model.id, field)
            assert "No published token count for this model: enter D" in _captions(at), model.id
        if n % 25 == 0:  # a D the user typed does not follow them to the next model either
            at.number_input(key="hf_tokens").set_value(7e13).run()
    assert not at.exception


def _metric(at, label):
    return next((m.value for m in at.metric if m.label == label), None)


def test_a_model_without_a_count_is_refused_until_d_is_entered_then_planned_with_it():
    """The issue's path: BERT built, then Llama 3.1 70B picked and built: one line asks for D, and no total from
    BERT's D appears on the layer builder or on Plan a run; with D = 15e12 entered, the scenario is Llama's with
    its own tokens in sequences of 8,192 (6·N·D = 6 × 7.06e10 × 1.5e13 = 6.4e24; the detailed count adds attention
    over 8,192 positions, 12·L·d·T = 12 × 80 × 8,192 × 8,192 per token beside 6N: at most +15%)."""
    at = app()
    at.selectbox(key="hf_model").set_value("bert-base-uncased").run()
    next(b for b in at.button if b.label.startswith("Build the layers")).click().run()
    bert_total = _metric(at, "Training compute")
    at.selectbox(key="hf_model").set_value("llama-3.1-70b").run()
    assert at.number_input(key="hf_tokens").value is None
    next(b for b in at.button if b.label.startswith("Build the layers")).click().run()
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == ["Training tokens D: unknown for this model: enter D (the tokens it trained on) to build its "
                      "layers and training compute"]
    assert _metric(at, "Training compute") in (None, bert_total)  # never Llama's layers with BERT's D
    assert "Llama" not in at.session_state["scenario"].name
    at.number_input(key="hf_tokens").set_value(15e12).run()
    at.number_input(key="hf_seq").set_value(8192).run()
    next(b for b in at.button if b.label.startswith("Build the layers")).click().run()
    scenario = at.session_state["scenario"]
    assert "Llama 3.1 70B" in scenario.name
    assert abs(scenario.tokens() - 15e12) <= 8192  # whole sequences of 8,192
    total = scenario.method1().training_flop
    assert 6 * 7.06e10 * 15e12 < total < 1.15 * 6 * 7.06e10 * 15e12
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert not at.exception
    assert at.session_state["scenario"].tokens() == scenario.tokens()


def test_a_pasted_config_starts_blank_and_an_edited_one_forgets_its_d():
    at = app()
    at.selectbox(key="hf_model").set_value("bert-base-uncased").run()
    assert at.number_input(key="hf_tokens").value == 1.28e11
    at.radio(key="hf_source").set_value("paste").run()
    assert at.number_input(key="hf_tokens").value is None  # not BERT's
    config = library_model("qwen3-0.6b").config
    at.text_area(key="hf_text").set_value(json.dumps(config)).run()
    at.number_input(key="hf_tokens").set_value(36e12).run()
    at.text_area(key="hf_text").set_value(json.dumps({**config, "num_hidden_layers": 2})).run()
    assert at.number_input(key="hf_tokens").value is None  # another config: the D typed for the first is gone
    at.radio(key="hf_source").set_value("library").run()
    assert at.number_input(key="hf_tokens").value == 1.28e11  # back to BERT: its own count again


def test_an_uploaded_config_starts_blank_and_a_second_upload_forgets_the_first_ones_d():
    at = app()
    assert at.number_input(key="hf_tokens").value == 1.28e11  # BERT, the library's first entry
    at.radio(key="hf_source").set_value("paste").run()
    config = library_model("qwen3-0.6b").config
    at.file_uploader(key="hf_upload").upload("config.json", json.dumps(config).encode(), "application/json").run()
    assert at.number_input(key="hf_tokens").value is None
    assert not [t for t in at.text_area if t.key == "hf_text"]  # the pre-filled example is not shown beside it
    at.number_input(key="hf_tokens").set_value(36e12).run()
    at.file_uploader(key="hf_upload").upload("other.json", json.dumps({**config, "num_hidden_layers": 4}).encode(),
                                             "application/json").run()
    assert at.number_input(key="hf_tokens").value is None
