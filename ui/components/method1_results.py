"""The layer builder's results: the sticky results line, validating the edits (structural ones applied),
the totals with the training formula, the layer table and its chart, and every kind's formula."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from engine.errors import InputError
from engine.method1.kinds import KIND_BY_TYPE
from engine.scenario import check_page_size, parse_scenario
from ui import state
from ui.charts import decades, show_chart
from ui.components.layer_editor import LayerEdits, pick_after
from ui.thresholds import threshold_caption
from ui.views.layer_table import top_level_totals
from ui.views.finetune import backward_metrics, backward_note
from ui.views.method1 import interval_metrics, table_with_unreached, totals_metrics, training_latex, visible_columns
from ui.widgets import metric_row, results_bar, results_slot, show_error, shown_estimate, summary_bar

LAST_VALID = "m1_last_valid"  # the last estimate without an error: its totals stay, marked stale, while one is fixed


@dataclass
class ResultsLine:
    """The sticky line's container (for the spinner) and slot, and the estimate drawn first."""

    area: object
    slot: object
    first: object

    def estimate(self, scenario):
        """Method 1 for the results line, under a spinner in its container."""
        with self.area, st.spinner("Counting the FLOP…"):  # shown only when counting takes a moment
            return scenario.method1(strict=False)


def results_line(scenario) -> ResultsLine:
    """The session's estimate, drawn before the ~80 widgets below so the number is among the first messages
    the browser gets (bench/bench_browser.py: first render vs page complete)."""
    area, slot = results_slot()  # sticky: the total stays in view while editing
    line = ResultsLine(area, slot, None)
    line.first = line.estimate(scenario)
    with slot:
        summary_bar(*shown_estimate(line.first, st.session_state.get(LAST_VALID)))
    return line


def apply_edits(data: dict, edits: LayerEdits | None, line: ResultsLine, scenario):
    """Validate the page's inputs; apply a structural edit (rerunning); → (scenario, estimate, last valid
    estimate while this one has an error). An unchanged scenario reuses the first estimate."""
    try:  # the page's own values (a validated scenario's dump and typed widgets): no JSON true/false to refuse
        edited = parse_scenario(data, booleans=False)
        check_page_size(edited.layers)  # a repeat's copies edited up: the same limit as a link's
    except InputError as exc:
        show_error(exc, "the last valid estimate is shown; fix the field to update it.")
        edited = None
    if edited is not None:
        if edits is not None and edits.structural is not None:
            edited_data = edited.model_dump(mode="json")
            try:
                edited_data["layers"], next_path = edits.structural(edited_data["layers"])
                check_page_size(edited_data["layers"])  # the same limit as a link's, blocks expanded
                state.replace(parse_scenario(edited_data, booleans=False), preset=state.loaded_preset())
            except InputError as exc:
                show_error(exc, "the layer list is unchanged.")
            else:
                pick_after(edited_data["layers"], next_path)
                st.rerun()
        state.set_edited(edited)
    estimate = line.first if state.get() is scenario else line.estimate(state.get())
    stale = st.session_state.get(LAST_VALID) if estimate.error is not None else None
    if estimate.error is None and estimate.training is not None:
        st.session_state[LAST_VALID] = estimate
    return state.get(), estimate, stale


WITHHELD = "no totals while the config above is refused: the layer list below is still the previous model's"


def totals(area, line: ResultsLine, scenario, estimate, stale, withheld: bool = False) -> None:
    """The results line again, the metrics (stale while an error is fixed), the formula with its numbers;
    ``withheld`` (a config was just refused): none of them, so no other model's figures stand beside the error."""
    if withheld:
        with line.slot:
            results_bar(None, missing=WITHHELD)
        with area:
            st.info(WITHHELD[0].upper() + WITHHELD[1:] + ".")
        return
    shown, is_stale = shown_estimate(estimate, stale)
    with line.slot:
        summary_bar(shown, stale=is_stale)
    with area:
        if shown is not None:
            if is_stale:
                st.warning("The totals are those of the last valid layer list, kept while you fix the error below.")
            metric_row(totals_metrics(shown, is_stale))
            backward = backward_metrics(shown)
            if backward:
                metric_row(backward)
                note = backward_note(shown)
                if note:
                    st.caption(note)
            if shown.training.interval is not None:
                metric_row(interval_metrics(shown.training.interval))
        if estimate.training is not None:
            st.latex(training_latex(estimate, scenario.training.recomputation))
            threshold_caption(estimate.training.training_flop)
        elif estimate.error is None:
            st.info("Give the training setup to get the training compute.")


def layer_table(area, scenario, estimate, stale) -> None:
    """Every layer's output, parameters, forward FLOP, MACs and share, with block subtotals; the chart."""
    import pandas as pd  # here, after the totals are on screen: the first numbers do not wait for pandas

    with area:
        if estimate.error is not None:
            show_error(estimate.error)
        arch = estimate.architecture
        levels = max((r.depth for r in arch.rows), default=0)
        if levels:
            levels = st.slider("Block levels shown (0: each top-level block as one subtotal row)", 0, levels,
                               levels, key="m1_levels")
        rows = table_with_unreached(estimate, scenario.layers, levels, stale)
        frame = pd.DataFrame(rows, columns=visible_columns(rows))
        st.dataframe(frame, hide_index=True, width="stretch", column_config={
            "#": st.column_config.NumberColumn("#", width="small"),
            "layer": st.column_config.TextColumn("layer", width="medium"),
            "output": st.column_config.TextColumn("output", width="medium"),
            "params": st.column_config.NumberColumn("params", format="compact", help="parameters (k, M, B)"),
            "forward FLOP": st.column_config.NumberColumn("forward FLOP / example", format="compact",
                                                          help=f"per example ({arch.input}); convention "
                                                               f"{arch.convention}; k, M, B, T = 10³, 10⁶, 10⁹, 10¹²"),
            "trainable": st.column_config.NumberColumn("trainable params", format="compact",
                                                       help="parameters that get weight gradients"),
            "backward FLOP": st.column_config.NumberColumn("backward FLOP / example", format="compact",
                                                           help="weight gradients where the weights train, input "
                                                                "gradients where something before needs them"),
            "MACs": st.column_config.NumberColumn("MACs / example", format="compact"),
            "share": st.column_config.ProgressColumn("share of FLOP", format="%.1f%%", min_value=0, max_value=100),
            "status": st.column_config.TextColumn("status", width="medium"),
        })
        # plotly's code (the page's largest JavaScript) loads only when asked for: the first numbers come sooner
        if arch.rows and estimate.forward_flop > 0 and st.toggle("Chart: where the forward FLOP go", key="m1_chart"):
            import plotly.express as px

            chart = pd.DataFrame(top_level_totals(arch, scenario.layers), columns=["layer", "forward FLOP"])
            fig = px.bar(chart[chart["forward FLOP"] > 0], x="layer", y="forward FLOP", height=280)
            fig.update_layout(xaxis_title=None, yaxis_title="FLOP")
            show_chart(decades(fig), "Where the forward FLOP go, per top-level layer or block (per example, log scale)")


def kind_formulas() -> None:
    """Every kind's formula, drawn only when asked for (a collapsed expander would still typeset them all)."""
    if st.toggle("Formulas of every layer kind (matmul convention, the symbols of Epoch AI's article)",
                 key="m1_formulas"):
        for kind in KIND_BY_TYPE.values():
            st.markdown(f"**{kind.kind_label}** `{kind.model_fields['type'].default}`")
            st.latex(kind.formula)
        st.caption("H, W, C: input height, width, channels; D filters; K kernel; S stride; P padding; "
                   "N inputs; M units; L sequence length; T time steps. 1 MAC = 2 FLOP.")
