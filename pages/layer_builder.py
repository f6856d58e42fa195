"""Page 1 — Layer builder (method 1): training compute from the architecture."""
from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from engine.errors import InputError
from engine.method1.conventions import CONVENTIONS
from engine.method1 import tree
from engine.method1.kinds import KIND_BY_TYPE
from engine.method1.training import OPTIMIZER_LABELS
from engine.method1.estimate import estimate_method1
from engine.presets import presets
from engine.scenario import MAX_PAGE_LAYERS, parse_scenario
from engine.units import PFS_DAY_FLOP, format_flop, latex_number
from ui import state
from ui.charts import decades, show_chart
from ui.exports import exports_panel
from ui.layer_form import layer_form, starter_layer, text_to_sizes
from ui.layer_table import (WRAP_LABELS, entry_label, layer_label, short_path, table_rows, top_level_totals,
                            widget_prefix)
from ui.transformer_panel import transformer_panel
from ui.thresholds import threshold_caption
from ui.widgets import metric_row, page_header, plain, results_slot, show_error, shown_estimate, summary_bar

LAST_VALID = "m1_last_valid"  # the last estimate without an error: its totals stay, marked stale, while one is fixed

page_header("Layer builder — method 1",
            "Training compute from the architecture: each layer's forward FLOP, summed, "
            "× (1 + backward/forward ratio) × examples × epochs. Recurrent layers run once per time step.")

scenario = state.get()
data = scenario.model_dump(mode="json")
rev = state.rev()
PICK = "m1_pick"  # the layer being edited (an index), kept across the picker widgets of successive layer lists

# ------------------------------------------------------------------ presets
with st.container(border=True):
    cols = st.columns([4, 1, 1], vertical_alignment="bottom")
    preset_ids = list(presets())
    chosen = cols[0].selectbox("Start from a preset", preset_ids, format_func=lambda i: presets()[i].title,
                               key=state.bind("preset_choice", state.loaded_preset()),
                               placeholder="Your own scenario — pick a preset to start from it")
    if cols[1].button("Load preset", width="stretch", disabled=chosen is None):
        state.replace(presets()[chosen].scenario, preset=chosen)
        st.rerun()
    if cols[2].button("Start from scratch", width="stretch"):
        state.replace(parse_scenario({"name": "My model", "input": {"shape": [784]},
                                      "layers": [starter_layer("dense"), {"type": "activation"},
                                                 {"type": "dense", "units": 10}],
                                      "training": {"epochs": 10, "examples": 60_000}}))
        st.rerun()
    if chosen is not None:
        loaded = "" if chosen == state.loaded_preset() else " (not loaded)"
        with st.expander(f"About “{presets()[chosen].title}”{loaded}"):
            st.text(presets()[chosen].notes)
            st.caption(f"Source: {presets()[chosen].source}")

summary_area, summary_slot = results_slot()  # sticky: the total stays in view while editing


def estimate_shown(counted):
    """Method 1 for the results line, under a spinner in its container."""
    with summary_area, st.spinner("Counting the FLOP…"):  # shown only when counting takes a moment
        return estimate_method1(counted, strict=False)


# The session's estimate is drawn before the ~80 widgets below, so the number is among the first messages
# the browser gets and shows while the widgets' code still loads (bench/bench_browser.py: first render
# vs page complete). An unchanged scenario (every first load) reuses it at the end of the run.
before = estimate_shown(scenario)
with summary_slot:
    summary_bar(*shown_estimate(before, st.session_state.get(LAST_VALID)))
transformer_panel()
totals_area = st.container()

# ------------------------------------------------------------------ method-1 inputs
mode = st.radio("Method 1 from", ["layers", "quick"], horizontal=True, key=state.bind("m1_mode", data["mode"]),
                format_func={"layers": "the layer list", "quick": "a quick form (connections or published ops)"}.get)
data["mode"] = mode
data["name"] = st.text_input("Scenario name", key=state.bind("m1_name", data["name"]), max_chars=200)
structural = None  # (action, argument) from the layer buttons, applied after the edits are read
edit_error: str | None = None

if mode == "layers":
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
    table_area = st.container()

    layers = data["layers"]
    st.subheader("Edit layers")
    entries = tree.entries(layers)  # every layer, blocks and what they hold, in reading order
    # The picker is a new widget whenever the layer list is replaced (preset, scratch, config, a structural
    # edit: each bumps rev), so it never shows the labels of the list before; its choice carries over by hand.
    pick_key = f"m1_pick_{rev}"
    if "m1_pick_next" in st.session_state:  # chosen by the last structural edit, before the widget exists
        st.session_state[pick_key] = st.session_state.pop("m1_pick_next")
    elif pick_key not in st.session_state:
        st.session_state[pick_key] = st.session_state.get(PICK, 0)
    current = st.session_state.get(pick_key)  # a browser may send a cleared value (None)
    if entries and (not isinstance(current, int) or not 0 <= current < len(entries)):
        st.session_state[pick_key] = len(entries) - 1 if isinstance(current, int) and current >= 0 else 0
    pick = 0
    if entries:
        pick = st.selectbox("Layer (blocks are listed with what they hold, indented)", range(len(entries)),
                            key=pick_key, format_func=lambda i: entry_label(entries[i]))
        pick = pick if isinstance(pick, int) and 0 <= pick < len(entries) else 0
        st.session_state[PICK] = pick
        entry = entries[pick]
        path, layer = entry.path, entry.layer
        with st.container(border=True):
            kind = KIND_BY_TYPE[layer["type"]]
            st.markdown(f"**{short_path(path)} · {plain(kind.kind_label)}** — forward FLOP (matmul):")
            st.latex(kind.formula)
            if entry.copies > 1:
                st.info(f"Inside a repeat: this layer stands for {entry.copies:,} copies, each with its own "
                        "parameters. Editing it edits every copy.")
            edited, edit_error = layer_form(layer, key_prefix=widget_prefix(path))
            if edit_error:
                st.error(f"Layer {short_path(path)}: {plain(edit_error)} — the last valid value is kept.")
            elif edited != layer:
                data["layers"] = layers = tree.replace(layers, path, edited)
            index = int(path.rsplit("[", 1)[1].rstrip("]"))
            size = len(tree.siblings(layers, path))
            b = st.columns(4)
            if b[0].button("↑ Move up", disabled=index == 0, width="stretch"):
                structural = lambda ls: tree.move(ls, path, -1)  # noqa: E731
            if b[1].button("↓ Move down", disabled=index == size - 1, width="stretch"):
                structural = lambda ls: tree.move(ls, path, 1)  # noqa: E731
            if b[2].button("Duplicate", width="stretch"):
                structural = lambda ls: (tree.insert(ls, tree.sibling(path, index + 1), tree.get(ls, path)),  # noqa: E731
                                         tree.sibling(path, index + 1))
            if b[3].button("Delete", width="stretch"):
                structural = lambda ls: (tree.delete(ls, path), tree.sibling(path, max(0, index - 1)))  # noqa: E731
            w = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
            wrap_kind = w[0].selectbox("Wrap into a block", tree.WRAP_KINDS, key="m1_wrap_kind",
                                       format_func=WRAP_LABELS.get)
            most = max(1, size - index)  # the layers from this one to the end of its list
            if st.session_state.get("m1_wrap_count", 1) > most:  # a count chosen for another layer
                st.session_state["m1_wrap_count"] = most
            count = w[1].number_input("layers from this one", min_value=1, max_value=most, step=1,
                                      key="m1_wrap_count")
            if w[2].button("Wrap", width="stretch", help="The selected layer and the ones after it in the same list "
                                                          "become one block."):
                structural = lambda ls: (tree.wrap(ls, path, int(count), wrap_kind), path)  # noqa: E731
            if w[3].button("Unwrap", width="stretch", disabled=layer["type"] not in tree.WRAP_KINDS,
                           help="The block is replaced by what it holds (a residual's body, the branch that is not "
                                "the identity, one copy of a repeat)."):
                structural = lambda ls: (tree.unwrap(ls, path)[0], path)  # noqa: E731
    a = st.columns([3, 1], vertical_alignment="bottom")
    new_kind = a[0].selectbox("Add a layer", list(KIND_BY_TYPE), key="m1_new_kind",
                              format_func=lambda t: f"{KIND_BY_TYPE[t].kind_label} ({t})")
    if a[1].button("Add after the selected layer", width="stretch"):
        if entries:
            at = tree.sibling(entries[pick].path, int(entries[pick].path.rsplit("[", 1)[1].rstrip("]")) + 1)
        else:
            at = "layers[0]"
        structural = lambda ls: (tree.insert(ls, at, starter_layer(new_kind)), at)  # noqa: E731
else:
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
    if kind == "connections":
        st.latex(r"F = 2 \times \text{connections}")
    else:
        st.latex(r"F = \text{ops} \times (2 \text{ if MACs, else } 1)")

# ------------------------------------------------------------------ training setup
st.subheader("Training setup")
t = data["training"] or {"epochs": 1.0, "examples": 1.0}
c1, c2, c3 = st.columns(3)
epochs = c1.number_input("Epochs", min_value=0.0, format="%.4g", key=state.bind("t_epochs", float(t["epochs"])))
given = c2.radio("Examples given as", ["examples", "batches"], horizontal=True,
                 key=state.bind("t_given", "examples" if t.get("examples") is not None else "batches"),
                 format_func={"examples": "examples per epoch", "batches": "batches × batch size"}.get)
if given == "examples":
    examples = c3.number_input("Examples per epoch", min_value=0.0, format="%.6g",
                               key=state.bind("t_examples", float(t.get("examples") or 1.0)))
    batch_size = c3.number_input("Batch size (for optimizer steps; 0 = unknown)", min_value=0, step=1,
                                 key=state.bind("t_batch_size_opt", t.get("batch_size") or 0))
    training = {"examples": examples, "batch_size": batch_size or None}
else:
    batches = c3.number_input("Batches per epoch", min_value=0, step=1,
                              key=state.bind("t_batches", t.get("batches_per_epoch") or 100))
    batch_size = c3.number_input("Batch size", min_value=0, step=1, key=state.bind("t_batch_size", t.get("batch_size") or 32))
    training = {"batches_per_epoch": batches, "batch_size": batch_size}
c1, c2, c3 = st.columns(3)
ratio = c1.number_input("Backward / forward ratio r", min_value=0.0, max_value=100.0, step=0.5,
                        key=state.bind("t_ratio", float(t.get("backward_ratio", 2.0))),
                        help="2 by default (training ≈ 3 × forward). Epoch AI measured 1:1 to 3:1.")
optimizer = c2.selectbox("Optimizer update", ["none", "sgd", "adam"], key=state.bind("t_opt", t.get("optimizer", "none")),
                         format_func=OPTIMIZER_LABELS.get)
recompute = c3.checkbox("Activation recomputation (+1 forward)", key=state.bind("t_recompute", bool(t.get("recomputation"))))
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
data["training"] = {"epochs": epochs, **training, "backward_ratio": ratio, "optimizer": optimizer,
                    "recomputation": recompute, "backward_ratio_low": ratio_low or None,
                    "backward_ratio_high": ratio_high or None, "examples_low": examples_low or None,
                    "examples_high": examples_high or None}

# ------------------------------------------------------------------ validate, apply structural edits
try:
    edited = parse_scenario(data)
except InputError as exc:
    show_error(exc, "the last valid estimate is shown; fix the field to update it.")
    edited = None
if edited is not None:
    if structural is not None:
        edited_data = edited.model_dump(mode="json")
        try:
            edited_data["layers"], next_path = structural(edited_data["layers"])
            if len(tree.entries(edited_data["layers"])) > MAX_PAGE_LAYERS:  # the same limit as a link's
                raise InputError("layers", f"at most {MAX_PAGE_LAYERS:,} layers on this page (larger models: "
                                           "python -m engine flops FILE)")
            state.replace(parse_scenario(edited_data), preset=state.loaded_preset())
        except InputError as exc:
            show_error(exc, "the layer list is unchanged.")
        else:
            paths = [e.path for e in tree.entries(edited_data["layers"])]
            st.session_state["m1_pick_next"] = paths.index(next_path) if next_path in paths else 0
            st.rerun()
    state.set_edited(edited)

estimate = before if state.get() is scenario else estimate_shown(state.get())
scenario = state.get()
stale = st.session_state.get(LAST_VALID) if estimate.error is not None else None
shown, is_stale = shown_estimate(estimate, stale)
if estimate.error is None and estimate.training is not None:
    st.session_state[LAST_VALID] = estimate

# ------------------------------------------------------------------ results
with summary_slot:
    summary_bar(shown, stale=is_stale)
with totals_area:
    if shown is not None:
        mark = " (stale)" if is_stale else ""
        if mark:
            st.warning("The totals are those of the last valid layer list, kept while you fix the error below.")
        metric_row([
            ("Training compute" + mark, format_flop(shown.training.training_flop),
             f"{shown.training.pfs_days:.4g} PF-days (1 PF-day = {PFS_DAY_FLOP:.3g} FLOP)"),
            ("PF-days" + mark, format_flop(shown.training.pfs_days, ""), "petaFLOP/s-days: training FLOP ÷ 8.64e19"),
            ("Forward per example" + mark, format_flop(shown.forward_flop), f"convention: {shown.convention}"),
            ("MACs per example" + mark, format_flop(shown.macs, "MACs"), "1 MAC = 2 FLOP"),
            ("Parameters" + mark, f"{shown.params:,}", None),
        ])
        if shown.training.interval is not None:
            band = shown.training.interval
            metric_row([("90% interval", f"{format_flop(band.low)} – {format_flop(band.high)}",
                         f"from the ranges of: {', '.join(band.factors)}. {band.method}"),
                        ("Confidence (Epoch's labels)", band.confidence, band.confidence_rule)])
    if estimate.training is not None:
        tr = estimate.training
        # one step per line: the formula fits a phone's width instead of running off its edge
        st.latex(rf"\begin{{aligned}} C &= F \times (1 + r{' + 1' if scenario.training.recomputation else ''}) "
                 rf"\times E \times \text{{epochs}}{' + u P S' if tr.optimizer_flop else ''} \\ "
                 rf"&= {latex_number(estimate.forward_flop)} \times {tr.passes:g} \times {latex_number(tr.total_examples)}"
                 rf"{' + ' + latex_number(tr.optimizer_flop) if tr.optimizer_flop else ''} \\ "
                 rf"&= {latex_number(tr.training_flop)}\ \text{{FLOP}} \end{{aligned}}")
        threshold_caption(tr.training_flop)
    elif estimate.error is None:
        st.info("Give the training setup to get the training compute.")

if mode == "layers":
    with table_area:
        if estimate.error is not None:
            show_error(estimate.error)
        arch = estimate.architecture
        levels = max((r.depth for r in arch.rows), default=0)
        shown_levels = levels
        if levels:
            shown_levels = st.slider("Block levels shown (0: each top-level block as one subtotal row)", 0, levels,
                                     levels, key="m1_levels")
        rows = table_rows(arch, shown_levels)
        done = {r.index for r in arch.rows}
        last_rows = {}
        if stale is not None and stale.architecture is not None:
            for r in stale.architecture.rows:
                last_rows.setdefault(r.index, []).append(r)
        for i, layer in enumerate(scenario.layers):
            if i in done:
                continue
            failed = estimate.error is not None and estimate.error.field.startswith(f"layers[{i}]")
            old = [r for r in last_rows.get(i, []) if r.type == layer.type and not r.depth]
            for r in old or [None]:
                rows.append({"#": i, "path": "", "layer": layer_label(layer.type, r.part if r is not None else None),
                             "name": layer.name or "", "output": r.output if r is not None else "—",
                             "params": r.params if r is not None else float("nan"),
                             "forward FLOP": float(r.forward_flop) if r is not None else float("nan"),
                             "MACs": float(r.macs) if r is not None else float("nan"),
                             "share": 100 * r.share if r is not None else float("nan"),
                             "status": ("⚠ error" if failed else "not reached")
                                       + (" · last valid values" if r is not None else "")})
        frame = pd.DataFrame(rows, columns=["#", "path", "layer", "name", "output", "params", "forward FLOP", "MACs",
                                            "share", "status"])
        st.dataframe(frame, hide_index=True, width="stretch", column_config={
            "layer": st.column_config.TextColumn("layer", width="medium"),
            "params": st.column_config.NumberColumn("params", format="localized"),
            "forward FLOP": st.column_config.NumberColumn("forward FLOP / example", format="%.3e",
                                                          help=f"per example ({arch.input}); convention {arch.convention}"),
            "MACs": st.column_config.NumberColumn("MACs / example", format="%.3e"),
            "share": st.column_config.ProgressColumn("share of FLOP", format="%.1f%%", min_value=0, max_value=100),
        })
        # the chart's code (plotly, the largest part of the page's JavaScript) loads only when asked for:
        # the page's first numbers come sooner (bench/bench_browser.py)
        if arch.rows and estimate.forward_flop > 0 and st.toggle("Chart: where the forward FLOP go", key="m1_chart"):
            chart = pd.DataFrame(top_level_totals(arch, scenario.layers), columns=["layer", "forward FLOP"])
            chart = chart[chart["forward FLOP"] > 0]
            fig = px.bar(chart, x="layer", y="forward FLOP", height=280)
            fig.update_layout(xaxis_title=None, yaxis_title="FLOP")
            show_chart(decades(fig), "Where the forward FLOP go, per top-level layer or block (per example, log scale)")

    # drawn only when asked for: a collapsed expander would still typeset every formula on each load
    if st.toggle("Formulas of every layer kind (matmul convention, the symbols of Epoch AI's article)",
                 key="m1_formulas"):
        for kind in KIND_BY_TYPE.values():
            st.markdown(f"**{kind.kind_label}** `{kind.model_fields['type'].default}`")
            st.latex(kind.formula)
        st.caption("H, W, C: input height, width, channels; D filters; K kernel; S stride; P padding; "
                   "N inputs; M units; L sequence length; T time steps. 1 MAC = 2 FLOP.")

exports_panel(scenario, estimate)
state.sync_link()
