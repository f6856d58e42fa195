"""The 'Transformers: build from a Hugging Face config.json' panel through AppTest: a library model,
a pasted config (strict and lenient), a download by model id from a local HTTP server, and errors."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from engine.llm.library import library_model
from tests.conftest import ROOT
from tests.llm.test_hub import local_hub
from tests.reference import EPOCH_EXAMPLE_TRAINING, flop, metric

APP = str(ROOT / "app.py")


def app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=60).run()


def build(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label.startswith("Build the layers")).click().run()
    assert not at.exception
    return at


def shown(at: AppTest) -> str:
    """The panel's summary line, without the escapes that keep it inert Markdown."""
    return " ".join(m.value for m in at.markdown if "As built from the config" in m.value).replace("\\", "")


def errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def test_pick_a_model_from_the_library():
    at = app()
    at.selectbox(key="hf_model").set_value("gemma-2-2b").run()
    assert at.number_input(key="hf_tokens").value == 2e12  # Gemma 2 report: 2.6B on 2T tokens
    at.number_input(key="hf_seq").set_value(4096).run()
    build(at)
    # Gemma2ForCausalLM built by transformers from this config on the meta device: 2,614,341,888 parameters
    assert "parameters 2,614,341,888" in shown(at)
    assert metric(at, "Parameters") == "2,614,341,888"
    assert "Gemma2ForCausalLM" in shown(at)


def test_encoder_decoder_lengths():
    at = app()
    at.selectbox(key="hf_model").set_value("t5-small").run()
    at.number_input(key="hf_seq").set_value(512).run()
    at.number_input(key="hf_decoder_seq").set_value(128).run()
    build(at)
    assert "T = 512, decoder 128" in shown(at)
    assert "parameters 60,506,624" in shown(at)  # T5ForConditionalGeneration (transformers, meta device)
    assert metric(at, "Parameters") == "60,506,624"  # the scenario's layer list counts the same


def test_encoder_only_model_becomes_the_scenario():
    at = app()
    at.selectbox(key="hf_model").set_value("bert-base-uncased").run()
    at.number_input(key="hf_seq").set_value(512).run()
    build(at)
    assert metric(at, "Parameters") == "109,514,298"  # BertForMaskedLM (transformers, meta device)
    # D = 1.28e11 tokens (Devlin et al.): 2.5e8 sequences of 512
    assert at.number_input(key="hf_tokens").value == 1.28e11


def paste(at: AppTest, config: dict | str, tokens: float | None = 1e12) -> AppTest:
    """The config pasted, then D entered (a pasted config has no published token count: the field is empty)."""
    at.radio(key="hf_source").set_value("paste").run()
    at.text_area(key="hf_text").set_value(config if isinstance(config, str) else json.dumps(config)).run()
    assert at.number_input(key="hf_tokens").value is None
    if tokens is not None:
        at.number_input(key="hf_tokens").set_value(tokens).run()
    return at


def test_inert_key_is_listed_as_not_used():
    """moe_magic is read by no transformers code for Qwen3 (engine/llm/config_keys.json): counted, listed."""
    at = paste(app(), library_model("qwen3-8b").config | {"moe_magic": 4})
    build(at)
    assert not at.error
    assert any("Not used" in c.value and "moe\\_magic" in c.value for c in at.caption)
    assert "parameters 8,190,735,360" in shown(at)


def test_a_multimodal_checkpoint_counts_its_language_model():
    """google/gemma-3-4b-it's config.json as published (Gemma3ForConditionalGeneration, a partial text_config):
    the language model, 3,880,263,168 parameters as transformers' Gemma3ForCausalLM builds that text configuration
    (tests/llm/test_multimodal_configs.py), with a note that the vision encoder is not counted."""
    from tests.llm.test_multimodal_configs import GEMMA_3_4B

    at = paste(app(), GEMMA_3_4B)
    at.number_input(key="hf_tokens").set_value(4e12).run()
    build(at)
    assert not at.error
    assert "parameters 3,880,263,168" in shown(at)
    assert any("multimodal checkpoint" in i.value and "not counted" in i.value for i in at.info)


def test_key_read_by_transformers_is_refused_then_listed_when_lenient():
    """BERT's embedding_size is read by transformers (config_keys.json), not by the reader."""
    at = app()
    at.selectbox(key="hf_model").set_value("t5-small").run()
    build(at)
    assert metric(at, "Parameters") == "60,506,624" and "As built from the config" in shown(at)
    config = library_model("bert-base-uncased").config | {"embedding_size": 128}
    at = paste(at, config)
    build(at)
    assert errors(at)[0].startswith("config.embedding_size: transformers' ")
    # the refused config's page shows no totals: not T5's beside the error, nor its panel summary
    assert not [m for m in at.metric if m.label in ("Parameters", "Training compute")]
    assert shown(at) == ""
    assert any("No totals while the config above is refused" in i.value for i in at.info)
    at.checkbox(key="hf_lenient").check().run()
    build(at)
    assert not at.error
    assert any("Left out" in w.value and "embedding\\_size" in w.value for w in at.warning)
    assert "parameters 109,514,298" in shown(at)


def test_a_config_of_more_layers_than_a_page_opens_is_named_and_keeps_the_layer_list():
    """2,500 blocks: the embedding, 2,500 blocks, the final norm and the head are 2,503 layers, past the
    dashboard's 2,000 (every later page run would walk them); the panel says how many and offers the CLI."""
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
              "intermediate_size": 128, "num_hidden_layers": 2_500, "num_attention_heads": 4,
              "num_key_value_heads": 4, "vocab_size": 100, "max_position_embeddings": 64}
    at = build(paste(app(), config))
    assert errors(at)[0] == ("layers: 2,503 layers once blocks and repeats are expanded: the dashboard opens at most "
                             "2,000 (larger models: python -m engine transformer --config FILE)")
    assert any("the layer list below is still the previous model's" in i.value for i in at.info)


@pytest.mark.parametrize("text,field", [
    ('{"model_type": "bert", "hidden_size": 768}', "config.num_attention_heads: missing"),
    ('{"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "d_model": 512, "d_kv": 64, '
     '"d_ff": 2048, "num_layers": 6, "num_heads": 0, "vocab_size": 32128, "n_positions": 512}', "config.num_heads"),
    ('{"model_type": "falcon", "hidden_size": 64, "num_hidden_layers": 1e9, "num_attention_heads": 4, '
     '"vocab_size": 10}', "config.num_hidden_layers"),
    ('{"model_type": "<b>x</b>"}', "config.model_type"),
    ("[]", "config"),
])
def test_hostile_configs_are_one_line(text, field):
    at = build(paste(app(), text))
    message = errors(at)[0]
    assert message.startswith(field) and "\n" not in message
    assert "<b>" not in at.error[0].value  # shown escaped: inert text


def test_hub_download_from_a_local_server(monkeypatch):
    with local_hub() as url:
        monkeypatch.setenv("HF_ENDPOINT", url)
        at = app()
        at.radio(key="hf_source").set_value("hub").run()
        at.text_input(key="hf_hub_id").set_value("Qwen/Qwen3-0.6B").run()
        next(b for b in at.button if b.label == "Download config.json").click().run()
        assert not at.exception and not at.error
        assert at.number_input(key="hf_tokens").value is None  # no published count for a downloaded config
        at.number_input(key="hf_tokens").set_value(36e12).run()
        build(at)
    assert "parameters 596,049,920" in shown(at)  # Qwen3ForCausalLM from this config (transformers, meta)


def test_hub_offline_says_so(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    at = app()
    at.radio(key="hf_source").set_value("hub").run()
    at.text_input(key="hf_hub_id").set_value("Qwen/Qwen3-0.6B").run()
    next(b for b in at.button if b.label == "Download config.json").click().run()
    assert not at.exception
    message = errors(at)[0]
    assert message.startswith("model_id: the Hugging Face Hub is unreachable") and "offline" in message
