"""Method 1's other inputs: the quick form (connections or published operations) and the training setup
(epochs, examples or batches, r, optimizer, recomputation, ranges)."""
from __future__ import annotations

import streamlit as st

from engine.method1.training import OPTIMIZER_LABELS
from ui import state


def quick_form(data: dict) -> None:
    """Number of connections or published operations per forward pass, written into ``data["quick"]``."""
    q = data["quick"] or {"kind": "connections", "value": 1e6, "unit": "macs"}
    c1, c2, c3 = st.columns(3)
    kind = c1.radio("Quick form", ["connections", "ops_per_forward"], key=state.bind("q_kind", q["kind"]),
                    format_func={"connections": "number of connections (weights)",
                                 "ops_per_forward": "published operations per forward pass"}.get)
    value = c2.number_input("Value", min_value=0.0, format="%.4e", key=state.bind("q_value", float(q["value"])))
    unit = c3.radio("Unit of the published figure", ["macs", "flop"], key=state.bind("q_unit", q["unit"]),
                    disabled=kind == "connections",
                    format_func={"macs": "MACs / add-multiplies (× 2)", "flop": "FLOP"}.get,
                    help="fvcore, ptflops and thop report MACs and call them 'FLOPs'.")
    data["quick"] = {"kind": kind, "value": value, "unit": unit}
    st.latex(r"F = 2 \times \text{connections}" if kind == "connections"
             else r"F = \text{ops} \times (2 \text{ if MACs, else } 1)")


def _examples(column, t: dict) -> str:
    given = column.radio("Examples given as", ["examples", "batches"], horizontal=True,
                         key=state.bind("t_given", "examples" if t.get("examples") is not None else "batches"),
                         format_func={"examples": "examples per epoch", "batches": "batches × batch size"}.get)
    return given


def training_form(data: dict) -> None:
    """The training setup, written into ``data["training"]``."""
    st.subheader("Training setup")
    t = data["training"] or {"epochs": 1.0, "examples": 1.0}
    c1, c2, c3 = st.columns(3)
    epochs = c1.number_input("Epochs", min_value=0.0, format="%.4g", key=state.bind("t_epochs", float(t["epochs"])))
    if _examples(c2, t) == "examples":
        examples = c3.number_input("Examples per epoch", min_value=0.0, format="%.6g",
                                   key=state.bind("t_examples", float(t.get("examples") or 1.0)))
        batch_size = c3.number_input("Batch size (for optimizer steps; 0 = unknown)", min_value=0, step=1,
                                     key=state.bind("t_batch_size_opt", t.get("batch_size") or 0))
        training = {"examples": examples, "batch_size": batch_size or None}
    else:
        batches = c3.number_input("Batches per epoch", min_value=0, step=1,
                                  key=state.bind("t_batches", t.get("batches_per_epoch") or 100))
        batch_size = c3.number_input("Batch size", min_value=0, step=1,
                                     key=state.bind("t_batch_size", t.get("batch_size") or 32))
        training = {"batches_per_epoch": batches, "batch_size": batch_size}
    c0, c1, c2, c3 = st.columns(4)
    backward = c0.radio("Backward pass", ["ratio", "exact"], key=state.bind("t_backward", t.get("backward", "ratio")),
                        format_func={"ratio": "r × forward", "exact": "counted layer by layer"}.get,
                        help="Counted layer by layer whenever a layer is frozen or has a LoRA adapter.")
    ratio = c1.number_input("Backward / forward ratio r", min_value=0.0, max_value=100.0, step=0.5,
                            key=state.bind("t_ratio", float(t.get("backward_ratio", 2.0))), disabled=backward == "exact",
                            help="2 by default (training ≈ 3 × forward). Epoch AI measured 1:1 to 3:1.")
    optimizer = c2.selectbox("Optimizer update", list(OPTIMIZER_LABELS),
                             key=state.bind("t_opt", t.get("optimizer", "none")), format_func=OPTIMIZER_LABELS.get)
    recompute = c3.checkbox("Activation recomputation (+1 forward)",
                            key=state.bind("t_recompute", bool(t.get("recomputation"))))
    with st.expander("Ranges: r and examples per epoch (each a 90% interval; 0 = none)"):
        r1, r2, r3, r4 = st.columns(4)
        ratio_low = r1.number_input("r, low", min_value=0.0, max_value=100.0, step=0.5,
                                    key=state.bind("t_ratio_low", float(t.get("backward_ratio_low") or 0.0)),
                                    help="Epoch AI measured r from 1 to 3.")
        ratio_high = r2.number_input("r, high", min_value=0.0, max_value=100.0, step=0.5,
                                     key=state.bind("t_ratio_high", float(t.get("backward_ratio_high") or 0.0)))
        examples_low = r3.number_input("Examples per epoch, low", min_value=0.0, format="%.6g",
                                       key=state.bind("t_examples_low", float(t.get("examples_low") or 0.0)))
        examples_high = r4.number_input("Examples per epoch, high", min_value=0.0, format="%.6g",
                                        key=state.bind("t_examples_high", float(t.get("examples_high") or 0.0)))
    data["training"] = {"epochs": epochs, **training, "backward_ratio": ratio, "backward": backward,
                        "optimizer": optimizer,
                        "recomputation": recompute, "backward_ratio_low": ratio_low or None,
                        "backward_ratio_high": ratio_high or None, "examples_low": examples_low or None,
                        "examples_high": examples_high or None}
