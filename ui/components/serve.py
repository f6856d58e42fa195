"""The Serve page's widgets: the plan's inputs (kept in the scenario, so in the link and the report) and its results,
shown first. The figures are ``engine.serve``'s; the rows ``ui.views.serve``'s."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import InputError, parse_input
from engine.serve.inputs import ServePlan
from engine.serve.summary import headline, run_plan
from engine.shipped import ShippedDataError
from ui import state
from ui.boundary import shipped_part
from ui.charts import LOG_AXIS, figure, show_chart
from ui.views import serve as view
from ui.widgets import metric_row, say, show_error


def plan_inputs(saved: ServePlan, db, models: dict[str, str]) -> dict:
    """The inputs, bound to the saved plan (``models``: id → label of the models offered): → the plan's data as
    entered."""
    chips = view.chip_options(db)
    c1, c2, c3 = st.columns([2, 2, 1])
    model = c1.selectbox("Model", list(models), format_func=models.get,
                         key=state.bind("sv_model", saved.model if saved.model in models else "llama-3.1-8b"))
    chip = c2.selectbox("Chip", list(chips), format_func=chips.get,
                        key=state.bind("sv_chip", saved.chip if saved.chip in chips else "nvidia-h100-sxm"))
    count = c3.number_input("Chips (tensor parallel)", min_value=1, max_value=4096, step=1,
                            key=state.bind("sv_chips", saved.chips))
    c1, c2, c3, c4 = st.columns(4)
    prompt = c1.number_input("Prompt tokens", min_value=1, max_value=10_000_000, step=128,
                             key=state.bind("sv_prompt", saved.prompt_tokens))
    output = c2.number_input("Output tokens (0: prefill alone)", min_value=0, max_value=10_000_000, step=128,
                             key=state.bind("sv_output", saved.output_tokens))
    batch = c3.number_input("Batch (0: the best that fits)", min_value=0, max_value=10**9, step=1,
                            key=state.bind("sv_batch", saved.batch or 0))
    engine_id = c4.selectbox("Engine (measured efficiencies)", ["tensorrt-llm", "vllm", "pytorch"],
                             key=state.bind("sv_engine", saved.engine))
    c1, c2, c3 = st.columns(3)
    precision = c1.selectbox("Precision", list(view.PRECISIONS), format_func=view.PRECISIONS.get,
                             key=state.bind("sv_precision", saved.precision))
    weights = c2.selectbox("Weights", list(view.WEIGHTS), format_func=view.WEIGHTS.get,
                           key=state.bind("sv_weights", saved.weights or ""))
    kv = c3.selectbox("KV cache", list(view.KV), format_func=view.KV.get,
                      key=state.bind("sv_kv", saved.kv_precision or ""))
    data = {"model": model, "chip": chip, "chips": int(count), "prompt_tokens": int(prompt),
            "output_tokens": int(output), "batch": int(batch) or None, "engine": engine_id, "precision": precision,
            "weights": weights or None, "kv_precision": kv or None}
    with st.expander("Speculative decoding, price and traffic"):
        c1, c2, c3 = st.columns(3)
        tau = c1.number_input("Acceptance length τ (0: off)", min_value=0.0, max_value=65.0, step=0.5,
                              key=state.bind("sv_tau", saved.speculative.acceptance_length if saved.speculative
                                             else 0.0),
                              help="Tokens kept per target step, the bonus token included.")
        gamma = c2.number_input("Drafted tokens γ", min_value=1, max_value=64, step=1,
                                key=state.bind("sv_gamma", saved.speculative.draft_tokens if saved.speculative else 4))
        cost = c3.number_input("Draft step cost r", min_value=0.0, max_value=1.0, step=0.01,
                               key=state.bind("sv_draft", saved.speculative.draft_cost if saved.speculative else 0.05))
        c1, c2 = st.columns(2)
        price = c1.number_input("USD per chip-hour (0: the database's)", min_value=0.0, max_value=1e6, step=0.1,
                                key=state.bind("sv_price", saved.price_per_chip_hour or 0.0))
        traffic = c2.number_input("Traffic, requests/s (0: none)", min_value=0.0, max_value=1e9, step=1.0,
                                  key=state.bind("sv_rps", saved.requests_per_s or 0.0))
    if tau:
        data["speculative"] = {"acceptance_length": float(tau), "draft_tokens": int(gamma), "draft_cost": float(cost)}
    data["price_per_chip_hour"] = float(price) or None
    data["requests_per_s"] = float(traffic) or None
    return data


def keep(scenario, data: dict) -> ServePlan | None:
    """The plan validated and saved into the scenario (so the link and the report carry it), or None with the
    one-line reason shown."""
    try:
        plan = parse_input(ServePlan, data, source="serve")
    except InputError as exc:
        show_error(exc)
        return None
    state.set_edited(scenario.model_copy(update={"serve": plan}))
    return plan


def results(area, plan: ServePlan | None) -> None:
    """The plan's figures, first on the page."""
    if plan is None:
        return
    with area, shipped_part("The serving estimate"):
        try:
            est = run_plan(plan)
        except ShippedDataError:
            raise  # the installation's fault, named by shipped_part
        except InputError as exc:
            show_error(exc)
            return
        metric_row([(label, value, None) for label, value in headline(est)])
        spec = est.speculative
        if spec:
            st.caption(f"Speculative decoding: TPOT {spec['tpot_s'] * 1e3:.3g} ms, {spec['speedup']:.2f}× faster.")
        if est.fleet:
            st.caption(f"Fleet: {est.fleet['copies']:,} copies ({est.fleet['chips']:,} chips) for "
                       f"{est.fleet['requests_per_s']:g} requests/s.")
        traces = [{"x": t["x"], "y": t["y"], "name": t["name"], "yaxis": t["yaxis"], "mode": "lines+markers"}
                  for t in view.sweep_traces(est)]
        fig = figure(traces, {"xaxis": {**LOG_AXIS, "title": "batch"}, "yaxis": {"title": "output tokens/s"},
                              "yaxis2": {"title": "TPOT (ms)", "overlaying": "y", "side": "right"},
                              "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0}, "height": 380},
                     log_axes=("x",))  # the batch labelled at powers of ten only (no 2…9 between them)
        show_chart(fig, "Throughput and time per token against the batch",
                   "Static batching: the batch's prompts prefilled together, then decoded together.")
        st.dataframe(pd.DataFrame(view.phase_rows(est)), hide_index=True)
        for note in est.notes:
            say("caption", note)
        st.caption(f"Efficiencies: compute {est.efficiency['compute']:.3g} of the dense peak, bandwidth "
                   f"{est.efficiency['memory']:.3g}, {est.efficiency['source']}. The check against published "
                   "measurements: docs/serving.md.")
        with st.expander("The KV cache layer by layer"):
            st.dataframe(pd.DataFrame(view.cache_rows(est)), hide_index=True)
