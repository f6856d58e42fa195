"""Fine-tuning widgets: the selected layer's trainability (and LoRA adapter), the fine-tune choices over the
whole layer list (full, the last k blocks, LoRA), and the one-third rule beside a fine-tune's compute.
The logic is ``ui.views.finetune``'s."""
from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.plan.thresholds import MODIFICATION_SOURCE, modification_threshold
from engine.units import format_flop
from ui import state
from ui.views.finetune import (
    DEFAULT_LORA_TARGETS,
    FINE_TUNE_LABELS,
    LORA_KINDS,
    LORA_TARGETS,
    TARGET_LABELS,
    TRAINABLE_LABELS,
    base_compute_problem,
    blocks_available,
    fine_tune,
    one_third_rule,
    trainable_choice,
    with_trainability,
)
from ui.widgets import say


def trainability_controls(layer: dict, key_prefix: str) -> dict:
    """The selected layer's weights (as the block around it, trainable, frozen) and, on a dense layer or a
    transformer block, a LoRA adapter's rank and targets; → the layer as chosen."""
    kind = layer["type"]
    c1, c2, c3 = st.columns([2, 1, 2])
    choice = c1.selectbox("Weights", list(TRAINABLE_LABELS), format_func=TRAINABLE_LABELS.get,
                          key=state.bind(f"{key_prefix}_trainable", trainable_choice(layer)),
                          help="Frozen weights get no weight gradients; gradients still flow through them to "
                               "trainable layers before. A block's choice applies to what it holds.")
    rank, targets = 0, ()
    if kind in LORA_KINDS:
        lora = layer.get("lora") or {}
        rank = c2.number_input("LoRA rank (0 = none)", min_value=0, max_value=100_000, step=1,
                               key=state.bind(f"{key_prefix}_lora_rank", int(lora.get("rank", 0))),
                               help="A trainable adapter B·A of rank r beside the frozen weights.")
        if kind == "transformer_block":
            targets = c3.multiselect("LoRA on", list(LORA_TARGETS), format_func=TARGET_LABELS.get,
                                     key=state.bind(f"{key_prefix}_lora_targets",
                                                    list(lora.get("targets") or DEFAULT_LORA_TARGETS)),
                                     disabled=not rank)
    return with_trainability(layer, choice, rank, targets)


def fine_tune_panel(available: int | None, key: str = "ft"):
    """The fine-tune choices: → (mode, k, r, targets). ``available``: the blocks the model has (None: not known
    before the model is built)."""
    mode = st.radio("Fine-tune", list(FINE_TUNE_LABELS), format_func=FINE_TUNE_LABELS.get, horizontal=True,
                    key=f"{key}_mode")
    c1, c2, c3 = st.columns([1, 1, 2])
    blocks = c1.number_input("k blocks", min_value=1, max_value=100_000 if available is None else max(1, available),
                             step=1, key=f"{key}_blocks", disabled=mode != "last",
                             help=(f"This model has {available:,} blocks (top-level blocks, a repeat's copies)."
                                   if available is not None else "The last k transformer blocks, the final norm "
                                                                 "and the head train; the embeddings stay frozen."))
    rank = c2.number_input("LoRA rank r", min_value=1, max_value=100_000, value=8, step=1, key=f"{key}_rank",
                           disabled=mode != "lora")
    targets = c3.multiselect("LoRA on (transformer blocks)", list(LORA_TARGETS), format_func=TARGET_LABELS.get,
                             default=list(DEFAULT_LORA_TARGETS), key=f"{key}_targets", disabled=mode != "lora")
    return mode, int(blocks), int(rank), tuple(targets)


def apply_fine_tune(layers: list, choice, language_model: bool = False) -> list | None:
    """``layers`` fine-tuned as ``choice`` (from ``fine_tune_panel``) says, or None with the error shown."""
    mode, blocks, rank, targets = choice
    try:
        return fine_tune(layers, mode, blocks, rank, targets, language_model=language_model)
    except InputError as exc:
        st.error(f"{exc.field}: {exc.reason}")
        return None


def layer_builder_fine_tune(layers: list):
    """The layer builder's expander: the choices and an Apply button; → a structural edit, or None."""
    with st.expander("Fine-tune: train every weight, the last k blocks, or LoRA adapters"):
        choice = fine_tune_panel(blocks_available(layers), key="m1_ft")
        st.caption("Applying replaces every layer's own trainable and LoRA choice. The backward pass is then "
                   "counted layer by layer (weight gradients only where weights train; input gradients only "
                   "where something before needs them).")
        if st.button("Apply to the layers", key="m1_ft_apply", disabled=not layers):
            tuned = apply_fine_tune(layers, choice)
            if tuned is not None:
                return lambda ls, tuned=tuned: (tuned, "layers[0]")
    return None


def modification_check(fine_tune_flop: float, frozen: bool) -> None:
    """The one-third rule: this run's compute against the base model's training compute (given, or the
    Commission's default when unknown)."""
    st.markdown("**Modifying a model (a fine-tune):**" if frozen else "**If this run modifies a model:**")
    base = st.number_input("The base model's training compute, FLOP (0 = unknown)", min_value=0.0, max_value=1e40,
                           format="%.3e", key="plan_base_flop",
                           help="Unknown: the guidelines use one third of 10^23 FLOP (10^25 for a model with "
                                "systemic risk).")
    systemic = st.checkbox("The base model has systemic risk", key="plan_base_systemic", disabled=base > 0)
    problem = base_compute_problem(base)
    if problem is not None:
        say("error", problem)
        return
    reference = base if base > 0 else modification_threshold(None, systemic) * 3
    share, sentence = one_third_rule(fine_tune_flop, reference)
    (st.warning if share > 1 / 3 else st.write)(
        sentence + (" The modifier is presumed a provider of the modified model." if share > 1 / 3 else
                    " The modifier is not presumed a provider on compute grounds.")
        + ("" if base > 0 else " (base compute unknown: the guidelines' default)"))
    st.caption(f"Threshold: {format_flop(modification_threshold(base or None, systemic))}. {MODIFICATION_SOURCE}")
