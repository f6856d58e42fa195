"""Placeholder until the dashboard issue lands: the seed's example, computed by the engine."""
import streamlit as st

from engine.method1 import estimate_method1
from engine.scenario import parse_scenario

SEED = {"input": {"shape": [400, 400, 5], "sequence_length": 20},
        "layers": [{"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
                   {"type": "flatten"}, {"type": "lstm", "units": 256}, {"type": "dense", "units": 10}],
        "training": {"epochs": 10, "batches_per_epoch": 100, "batch_size": 128}}

st.title("FLOPscope")
est = estimate_method1(parse_scenario(SEED))
st.metric("Training compute (seed's CNN-LSTM-FCN)", f"{est.training_flop:.3e} FLOP")
