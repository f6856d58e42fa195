"""'From a Hugging Face config.json': a model from the library, a pasted or uploaded config.json, or one
downloaded by model id; build the layers, and show the standard formulas beside them."""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError, parse_input
from engine.llm.config import MAX_CONFIG_BYTES, load_hf_config_text, read_hf_config
from engine.llm.estimate import TransformerRun, estimate_transformer
from engine.llm.hub import fetch_config_text
from engine.llm.library import library_model, library_models
from engine.scenario import check_page_size, parse_scenario
from engine.shipped import ShippedDataError
from engine.units import format_flop
from ui import state
from ui.components.upload_limit import limited_uploader
from ui.views import uploads
from ui.components.fine_tune import apply_fine_tune, fine_tune_panel
from ui.views.finetune import language_model_run
from ui.views.transformer import UNKNOWN, config_identity, own_tokens, required_tokens, tokens_caption
from ui.text import plain
from ui.boundary import shipped_part
from ui.widgets import show_error

ESTIMATE = "hf_estimate"
TOKENS_OF = "hf_tokens_of"
"""The identity of the config whose tokens the D field holds (``ui.views.transformer.config_identity``)."""
HUB_TEXT = "hf_hub_text"
SOURCES = {"library": "the model library", "paste": "a config.json (paste or upload)", "hub": "a Hub model id"}
EXAMPLE = ('{"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 4096,\n'
           ' "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,\n'
           ' "num_key_value_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096,\n'
           ' "tie_word_embeddings": false}')


def _config_source(source: str):
    """(JSON text or a decoded config, name, identity, its published tokens and their source) from the chosen
    source; None until there is one."""
    if source == "library":
        ids = [m.id for m in library_models()]
        model_id = st.selectbox("Pick a model", ids, key="hf_model", format_func=lambda i: library_model(i).label)
        model = library_model(model_id)
        st.caption(f"config.json written from {model.source}" + (f" · {model.note}" if model.note else ""))
        return (model.config, model.name, config_identity("library", model.id), model.training_tokens,
                model.training_tokens_source)
    if source == "paste":
        c1, c2 = st.columns([3, 2])
        upload = limited_uploader("or upload config.json", uploads.CONFIG, type=["json"], key="hf_upload",
                                  help="A Hugging Face config.json; it replaces the pasted text.", where=c2)
        if upload is not None:  # the text box steps aside: what is counted is the file
            c1.caption(plain(f"Counting the uploaded file {upload.name} ({upload.size:,} bytes); remove it to "
                             "paste a config.json instead."))
            uploads.CONFIG.check(upload.size)
            return upload.getvalue(), upload.name, config_identity("upload", upload.file_id), None, None
        text = c1.text_area("config.json text", value=EXAMPLE, height=150, key="hf_text",
                            max_chars=MAX_CONFIG_BYTES)
        return text, "config.json", config_identity("paste", text), None, None
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    model_id = c1.text_input("Hugging Face model id", placeholder="Qwen/Qwen3-8B", key="hf_hub_id", max_chars=200)
    if c2.button("Download config.json", width="stretch"):
        st.session_state.pop(HUB_TEXT, None)
        with st.spinner("Asking the Hub for config.json (10 s at most)…"):
            st.session_state[HUB_TEXT] = (model_id, fetch_config_text(model_id))
    fetched = st.session_state.get(HUB_TEXT)
    if fetched:
        st.caption(plain(f"Downloaded config.json of {fetched[0]} ({len(fetched[1]):,} bytes); only that file."))
        return fetched[1], fetched[0], config_identity("hub", fetched[0]), None, None
    st.caption("Only config.json is downloaded (no weights). Offline servers: upload the file instead.")
    return None


def transformer_panel() -> bool:
    """The panel; True when a config was refused in this run (the page then shows no totals)."""
    with st.expander("Transformers: build from a Hugging Face config.json, compare 6ND, PaLM and Megatron-LM"):
        with shipped_part("The transformer panel"):  # models.json, config_keys.json
            return _panel()
    return False


def _panel() -> bool:
    """The panel's inside; True when a config was refused in this run."""
    refused = False
    source = st.radio("Config from", list(SOURCES), format_func=SOURCES.get, horizontal=True, key="hf_source")
    try:
        picked = _config_source(source)
    except ShippedDataError:
        raise
    except InputError as exc:
        show_error(exc)
        picked = None
    lenient = st.checkbox("Count a config with keys transformers reads and this reader does not (they are "
                          "listed, and may change the count)", key="hf_lenient", disabled=source == "library")
    c1, c2, c3, c4 = st.columns(4, vertical_alignment="bottom")
    identity, published, published_source = (picked[2], picked[3], picked[4]) if picked else (None, None, None)
    if st.session_state.get(TOKENS_OF, "") != identity:  # another config: its own D, or none (never the last one's)
        st.session_state["hf_tokens"] = own_tokens(published)
        st.session_state[TOKENS_OF] = identity
    tokens = c1.number_input("Training tokens D", min_value=0.0, format="%.4e", key="hf_tokens",
                             placeholder=UNKNOWN)
    if picked:
        c1.caption(plain(tokens_caption(published, published_source)))
    seq = c2.number_input("Sequence length T (0 = the config's context)", min_value=0, step=1, value=0,
                          key="hf_seq")
    decoder_seq = c3.number_input("Decoder length (T5/BART; 0 = T)", min_value=0, step=1, value=0,
                                  key="hf_decoder_seq")
    choice = fine_tune_panel(None, key="hf_ft")
    if c4.button("Build the layers from this config", width="stretch", disabled=picked is None):
        config_data, name = picked[:2]
        try:
            if isinstance(config_data, dict):
                config = read_hf_config(config_data, source="config")
            else:
                config = load_hf_config_text(config_data, source="config", lenient=lenient)
            tokens = required_tokens(tokens)  # (after the config: its own problems first)
            run = parse_input(TransformerRun, {"tokens": tokens, "seq_len": seq or None,
                                               "decoder_seq_len": decoder_seq or None,
                                               **language_model_run(choice)})
            with st.spinner("Counting every layer of the model…"):  # large models take a moment
                estimate = estimate_transformer(config, run)
            data = config.scenario_data(tokens, seq or None, name=f"{name} ({config.architecture_name})",
                                        decoder_seq_len=decoder_seq or None)
            data["layers"] = apply_fine_tune(data["layers"], choice, language_model=True)
            scenario = parse_scenario(data) if data["layers"] is not None else None
            if scenario is not None:  # 10,000 blocks count here once, but would slow every page run after
                check_page_size(scenario.layers, cli="python -m engine transformer --config FILE")
        except InputError as exc:
            show_error(exc)
            st.session_state.pop(ESTIMATE, None)  # the previous model's figures do not stand beside the error
            refused = True
        else:
            if scenario is None:  # the fine-tune choice was refused (shown)
                return True
            st.session_state[ESTIMATE] = estimate.as_dict()
            state.replace(scenario)
            st.rerun()
    _show(st.session_state.get(ESTIMATE))
    return refused


def _show(shown: dict | None) -> None:
    if not shown:
        return
    import pandas as pd  # imported when a model is shown, not with the page (nor on a run without one)

    for note in shown.get("notes") or ():
        st.info(plain(note))
    if shown.get("ignored_keys"):
        st.warning(plain("Left out (read by transformers, not by this reader; counted as if absent): "
                         + ", ".join(shown["ignored_keys"])))
    if shown.get("unused_keys"):
        st.caption(plain("Not used (nothing transformers builds from this file reads them): "
                         + ", ".join(shown["unused_keys"])))
    lengths = f"T = {shown['seq_len']}" + (f", decoder {shown['decoder_seq_len']}" if shown.get("decoder_seq_len")
                                            else "")
    st.markdown(plain(f"As built from the config ({shown['architecture'] or shown['model_type']}, "
                      f"{shown['tokens']:.3g} tokens, {lengths}): parameters {shown['params']:,} "
                      f"(non-embedding {shown['non_embedding_params']:,}; active non-embedding "
                      f"{shown['active_non_embedding_params']:,}); detailed count "
                      f"{format_flop(shown['training_flop'])}."))
    if shown.get("fine_tune", {}).get("mode", "full") != "full":
        st.markdown(plain(f"Fine-tune ({shown['fine_tune']['mode']}): {shown['trainable_params']:,} trainable "
                          f"parameters; backward {format_flop(shown['backward_flop_per_sequence'])} per sequence "
                          f"(forward {format_flop(shown['forward_flop_per_sequence'])}), effective r = "
                          f"{shown['passes'] - 1:.3f}: counted layer by layer. The formulas below assume full "
                          "training."))
    table = pd.DataFrame([{
        "formula": f["label"], "training compute": format_flop(f["training_flop"]),
        "vs detailed count": (f"{f['vs_detailed_percent']:+.1f}%" if f["vs_detailed_percent"] is not None else "—"),
        "assumptions": f["assumptions"], "source": f["source"], "caveats": "; ".join(f["caveats"]),
    } for f in shown["formula_details"]])
    st.dataframe(table, hide_index=True, width="stretch")
