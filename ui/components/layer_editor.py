"""The layer builder's editor: input shape and convention, the picker over nested layers, the selected
layer's form with move/duplicate/delete/wrap/unwrap, and the "add a layer" list grouped by family.

Structural edits are returned as a function of the layer list (applied by the page after validation)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from engine.errors import InputError
from engine.method1 import tree
from engine.method1.layer_text import MAX_TEXT, parse_layers_text
from engine.method1.conventions import CONVENTIONS
from engine.method1.kinds import KIND_BY_TYPE
from ui import state
from ui.components.compress import layer_builder_compress
from ui.components.fine_tune import layer_builder_fine_tune, trainability_controls
from ui.layer_form import layer_form, starter_layer, text_to_sizes
from ui.text import plain
from ui.views.layer_table import WRAP_LABELS, entry_label, short_path, widget_prefix
from ui.views.method1 import kind_groups
from ui.widgets import show_error

PICK, PICK_NEXT = "m1_pick", "m1_pick_next"
"""The layer being edited (an index into the entries), kept across the picker widgets of successive lists;
and the one a structural edit chose, before the next picker exists."""

Structural = Callable[[list], tuple[list, str]]


@dataclass
class LayerEdits:
    """What the editor read: the edited layer list, a structural edit to apply, a layer form's error."""

    layers: list
    structural: Structural | None = None
    error: str | None = None


def input_fields(data: dict) -> None:
    """Input shape, sequence length and convention, written into ``data``."""
    c1, c2, c3 = st.columns([2, 1, 1])
    shape_text = c1.text_input("Input shape (channels last: H, W, C — or N for a vector)",
                               key=state.bind("m1_shape", ", ".join(map(str, (data["input"] or {}).get("shape", [784])))))
    seq = c2.number_input("Sequence length T (0 = not a sequence)", min_value=0, step=1,
                          key=state.bind("m1_seq", (data["input"] or {}).get("sequence_length") or 0))
    data["convention"] = c3.radio("Convention", list(CONVENTIONS), key=state.bind("m1_conv", data["convention"]),
                                  help="matmul: multiply-accumulates × 2 only (PyTorch's FlopCounterMode). "
                                       "full: + bias adds, activations, softmax, norms, pooling.")
    shape = text_to_sizes(shape_text)
    data["input"] = {"shape": shape if isinstance(shape, list) else [shape], "sequence_length": seq or None}


def _picked(entries) -> int:
    """The picker over every layer (a new widget whenever the list is replaced, so it never shows the old
    list's labels; its choice carries over by hand)."""
    pick_key = f"m1_pick_{state.rev()}"
    if PICK_NEXT in st.session_state:
        st.session_state[pick_key] = st.session_state.pop(PICK_NEXT)
    elif pick_key not in st.session_state:
        st.session_state[pick_key] = st.session_state.get(PICK, 0)
    current = st.session_state.get(pick_key)  # a browser may send a cleared value (None)
    if not isinstance(current, int) or not 0 <= current < len(entries):
        st.session_state[pick_key] = len(entries) - 1 if isinstance(current, int) and current >= 0 else 0
    pick = st.selectbox("Layer (blocks are listed with what they hold, indented)", range(len(entries)),
                        key=pick_key, format_func=lambda i: entry_label(entries[i]))
    pick = pick if isinstance(pick, int) and 0 <= pick < len(entries) else 0
    st.session_state[PICK] = pick
    return pick


def pick_after(layers: list, path: str) -> None:
    """After a structural edit: the picker selects the layer at ``path`` in the new list."""
    paths = [e.path for e in tree.entries(layers)]
    st.session_state[PICK_NEXT] = paths.index(path) if path in paths else 0


def _selected_layer(edits: LayerEdits, entry) -> None:
    path, layer = entry.path, entry.layer
    with st.container(border=True):
        kind = KIND_BY_TYPE[layer["type"]]
        st.markdown(f"**{short_path(path)} · {plain(kind.kind_label)}** — forward FLOP (matmul):")
        st.latex(kind.formula)
        if entry.copies > 1:
            st.info(f"Inside a repeat: this layer stands for {entry.copies:,} copies, each with its own "
                    "parameters. Editing it edits every copy.")
        edited, edits.error = layer_form(layer, key_prefix=widget_prefix(path))
        edited = trainability_controls(edited, widget_prefix(path))
        if edits.error:
            st.error(f"Layer {short_path(path)}: {plain(edits.error)} — the last valid value is kept.")
        elif edited != layer:
            edits.layers = tree.replace(edits.layers, path, edited)
        index = int(path.rsplit("[", 1)[1].rstrip("]"))
        size = len(tree.siblings(edits.layers, path))
        b = st.columns(4)
        if b[0].button("↑ Move up", disabled=index == 0, width="stretch"):
            edits.structural = lambda ls: tree.move(ls, path, -1)
        if b[1].button("↓ Move down", disabled=index == size - 1, width="stretch"):
            edits.structural = lambda ls: tree.move(ls, path, 1)
        if b[2].button("Duplicate", width="stretch"):
            after = tree.sibling(path, index + 1)
            edits.structural = lambda ls: (tree.insert(ls, after, tree.get(ls, path)), after)
        if b[3].button("Delete", width="stretch"):
            edits.structural = lambda ls: (tree.delete(ls, path), tree.sibling(path, max(0, index - 1)))
        w = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
        wrap_kind = w[0].selectbox("Wrap into a block", tree.WRAP_KINDS, key="m1_wrap_kind",
                                   format_func=WRAP_LABELS.get)
        most = max(1, size - index)  # the layers from this one to the end of its list
        if st.session_state.get("m1_wrap_count", 1) > most:  # a count chosen for another layer
            st.session_state["m1_wrap_count"] = most
        count = w[1].number_input("layers from this one", min_value=1, max_value=most, step=1, key="m1_wrap_count")
        if w[2].button("Wrap", width="stretch", help="The selected layer and the ones after it in the same list "
                                                      "become one block."):
            edits.structural = lambda ls: (tree.wrap(ls, path, int(count), wrap_kind), path)
        if w[3].button("Unwrap", width="stretch", disabled=layer["type"] not in tree.WRAP_KINDS,
                       help="The block is replaced by what it holds (a residual's body, the branch that is not "
                            "the identity, one copy of a repeat)."):
            edits.structural = lambda ls: (tree.unwrap(ls, path)[0], path)


def _add_list(edits: LayerEdits, entries, pick: int) -> None:
    """One click adds a layer of that kind after the selected one (at the start of an empty list)."""
    if entries:
        selected = entries[pick].path
        at = tree.sibling(selected, int(selected.rsplit("[", 1)[1].rstrip("]")) + 1)
    else:
        at = "layers[0]"
    where = "after the selected layer" if entries else "as the first layer"
    st.markdown(f"**Add a layer** {where} — one click:")
    for label, kinds in kind_groups(list(KIND_BY_TYPE)):
        chosen = st.pills(label, kinds, key=f"m1_add_{label}_{state.rev()}", format_func=lambda t: KIND_BY_TYPE[t].kind_label)
        if chosen:
            edits.structural = lambda ls, kind=chosen: (tree.insert(ls, at, starter_layer(kind)), at)
    _typed_layers(edits, at)


TYPED_EXAMPLE = "conv2d(16, 5, stride=2, padding=2), flatten, lstm(256), dense(10)"
"""The placeholder: Epoch AI's worked example (Sevilla et al. 2022) as text — copied onto its 400×400×5 input of 20
steps, it gives the example's 1.13e16 FLOP (without padding=2 the convolution's 198×198 output gave 1.11e16)."""


def _typed_layers(edits: LayerEdits, at: str) -> None:
    """Several layers at once, typed as text (``engine.method1.layer_text``), inserted where one click would."""
    with st.form(f"m1_typed_{state.rev()}", clear_on_submit=True, border=False):
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        text = c1.text_input("Layers as text (several at once)", placeholder=TYPED_EXAMPLE, max_chars=MAX_TEXT,
                             help="Each kind's name, then its values in parentheses: without a name they fill the "
                                  "required fields in order (dense: units; conv2d: filters, kernel size), others "
                                  "by name (stride=2). Separate layers with commas.")
        added = c2.form_submit_button("Add these layers", width="stretch")
    if not added or not text.strip():
        return
    try:
        layers = parse_layers_text(text)
    except InputError as exc:
        show_error(exc)
        return
    index, prefix = int(at.rsplit("[", 1)[1].rstrip("]")), at.rsplit("[", 1)[0]

    def insert(ls):
        for offset, layer in enumerate(layers):
            ls = tree.insert(ls, f"{prefix}[{index + offset}]", layer)
        return ls, f"{prefix}[{index + len(layers) - 1}]"

    edits.structural = insert


def layer_editor(data: dict) -> LayerEdits:
    """The editor over ``data["layers"]``: what the user changed, and the structural edit asked for."""
    edits = LayerEdits(data["layers"])
    st.subheader("Edit layers")
    entries = tree.entries(edits.layers)  # every layer, blocks and what they hold, in reading order
    pick = 0
    if entries:
        pick = _picked(entries)
        _selected_layer(edits, entries[pick])
    else:
        st.info("No layers yet: add the first one from the list below.")
    _add_list(edits, entries, pick)
    tuned = layer_builder_fine_tune(edits.layers)
    if tuned is not None:
        edits.structural = tuned
    if data.get("input") and edits.layers:
        pruned = layer_builder_compress({**data, "mode": "layers", "layers": edits.layers}, data)
        if pruned is not None:
            edits.structural = pruned
    return edits
