"""'From a Hugging Face config.json': build the layers, and show the standard formulas beside them."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.llm.config import load_hf_config_text
from engine.llm.estimate import TransformerRun, estimate_transformer
from engine.errors import parse_input
from engine.scenario import MAX_SCENARIO_BYTES
from engine.units import format_flop
from ui import state
from ui.text import plain
from ui.widgets import show_error

ESTIMATE = "hf_estimate"
EXAMPLE = ('{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,\n'
           ' "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,\n'
           ' "max_position_embeddings": 4096, "tie_word_embeddings": false}')


def transformer_panel() -> None:
    with st.expander("Transformers: build from a Hugging Face config.json, compare 6ND, PaLM and Megatron-LM"):
        text = st.text_area("config.json (GPT-2/GPT-J/NeoX/OPT or LLaMA/Mistral/Mixtral/Qwen2 keys)", value=EXAMPLE,
                            height=130, key="hf_text", max_chars=MAX_SCENARIO_BYTES)
        c1, c2, c3 = st.columns([1, 1, 1])
        tokens = c1.number_input("Training tokens D", min_value=0.0, value=2e12, format="%.4e", key="hf_tokens")
        seq = c2.number_input("Sequence length T (0 = the config's context)", min_value=0, step=1, value=0,
                              key="hf_seq")
        c3.write("")
        if c3.button("Build the layers from this config", width="stretch"):
            try:
                config = load_hf_config_text(text, source="config")
                run = parse_input(TransformerRun, {"tokens": tokens, "seq_len": seq or None})
                estimate = estimate_transformer(config, run)
                scenario = config.scenario(tokens, seq or None, name=f"{config.model_type} from config.json")
            except InputError as exc:
                show_error(exc)
            else:
                st.session_state[ESTIMATE] = estimate.as_dict()
                state.replace(scenario)
                st.rerun()
        shown = st.session_state.get(ESTIMATE)
        if shown:
            st.markdown(f"**As built from the config** ({plain(shown['model_type'])}, {shown['tokens']:.3g} tokens, "
                        f"T = {shown['seq_len']}): parameters {shown['params']:,} "
                        f"(non-embedding {shown['non_embedding_params']:,}; active non-embedding "
                        f"{shown['active_non_embedding_params']:,}); detailed count "
                        f"{format_flop(shown['training_flop'])}.")
            table = pd.DataFrame([{
                "formula": f["label"], "training compute": format_flop(f["training_flop"]),
                "vs detailed count": (f"{f['vs_detailed_percent']:+.1f}%" if f["vs_detailed_percent"] is not None
                                      else "—"),
                "assumptions": f["assumptions"], "source": f["source"],
                "caveats": "; ".join(f["caveats"]),
            } for f in shown["formula_details"]])
            st.dataframe(table, hide_index=True, width="stretch")
