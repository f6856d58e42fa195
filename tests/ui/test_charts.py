"""``ui.charts.figure``: a figure assembled from traces and a layout checked once per content is the figure plotly
builds and checks whole (``go.Figure`` + ``add_trace`` + ``update_layout``, as the pages built them before), to the
JSON object; the parts it keeps are never changed by a figure made from them; an unregistered trace type is
refused."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

go = pytest.importorskip("plotly.graph_objects")

from ui import charts  # noqa: E402
from ui.charts import LOG_AXIS, MARGIN, decades, figure  # noqa: E402


def plotly_whole(traces, layout, log_axes=(), titled_by_page=True):
    """The figure as plotly builds and checks it: each trace through its class, the layout updated, the log axes
    labelled at decades, the title left to the page as ``show_chart`` leaves it."""
    fig = go.Figure()
    for trace in traces:
        fields = {k: v for k, v in trace.items() if k != "type"}
        fig.add_trace({"bar": go.Bar, "scatter": go.Scatter}[trace.get("type", "scatter")](**fields))
    fig.update_layout(layout)
    if log_axes:
        decades(fig, *log_axes)
    if titled_by_page:
        fig.update_layout(title=None, margin=MARGIN)
    return fig


def as_json(fig) -> dict:
    return json.loads(fig.to_json())


RUNS = pd.DataFrame({"year": [2012.5, 2016.0, 2020.4], "flop": [4.7e17, 1.9e21, 3.1e23],
                     "name": ["AlexNet", "ResNet <b>", "GPT-3"]})
CASES = {
    "markers from a frame, custom data, a star and a log axis": (
        [{"x": RUNS["year"], "y": RUNS["flop"], "mode": "markers", "name": "runs (3)",
          "marker": {"size": 7, "color": "#0969da", "opacity": 0.75},
          "customdata": RUNS[["name"]].to_numpy(), "hovertemplate": "<b>%{customdata[0]}</b><extra></extra>"},
         {"x": [2026.0], "y": [5.76e23], "mode": "markers", "name": "your run", "error_y": None,
          "marker": {"size": 16, "symbol": "star"}}],
        {"height": 520, "yaxis": {"title": "training compute (FLOP)"}, "legend": {"orientation": "h", "y": -0.15},
         "shapes": [{"type": "line", "xref": "x domain", "yref": "y", "x0": 0, "x1": 1, "y0": 1e25, "y1": 1e25}]},
        ("y",)),
    "stacked bars": (
        [{"type": "bar", "name": "matrix products", "orientation": "h", "x": [0.83, 0.84], "y": ["#1", "#2"]},
         {"type": "bar", "name": "idle", "orientation": "h", "x": [0.1, 0.2], "y": ["#1", "#2"]}],
        {"barmode": "stack", "height": 286, "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0}},
        ()),
    "two log axes and a second y axis": (
        [{"x": [1, 2, 4, 416], "y": [159.4, 309.9, 587.1, 4879.1], "name": "tokens/s", "mode": "lines+markers"},
         {"x": [1, 2, 4, 416], "y": [6.2, 6.4, 6.8, 85.0], "name": "TPOT", "yaxis": "y2", "mode": "lines+markers"}],
        {"xaxis": {**LOG_AXIS, "title": "batch"}, "yaxis2": {"title": "TPOT (ms)", "overlaying": "y", "side": "right"},
         "height": 380},
        ("x", "y")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_same_figure_as_plotly_builds_whole(name):
    traces, layout, log_axes = CASES[name]
    expected = as_json(plotly_whole(traces, layout, log_axes))
    assert as_json(figure(traces, layout, log_axes=log_axes)) == expected
    assert as_json(figure(traces, layout, log_axes=log_axes)) == expected  # from the checked parts kept


def test_a_figure_titled_by_its_own_layout():
    traces = [{"x": [1e8, 1e9], "y": [2.9, 2.6], "mode": "lines", "name": "C = 1e21 FLOP"}]
    layout = {"height": 380, "xaxis": {"type": "log", "title": "parameters N"}, "margin": MARGIN}
    expected = as_json(plotly_whole(traces, layout, titled_by_page=False))
    assert "title" not in expected["layout"]
    assert as_json(figure(traces, layout, titled_by_page=False)) == expected


def test_an_empty_title_stays_as_plotly_keeps_it():
    """A title set to None leaves ``"title": {}`` in plotly's JSON, which its check of a dict drops."""
    traces = [{"type": "bar", "x": ["FP32", "BF16"], "y": [67.0, 989.0]}]
    fig = go.Figure(traces[0] | {"type": "bar"})
    fig.update_layout(xaxis_title="format", legend_title="units")
    fig.update_layout(xaxis_title=None, legend_title=None, title=None, margin=MARGIN)
    expected = as_json(fig)
    assert expected["layout"]["xaxis"]["title"] == {} and expected["layout"]["legend"]["title"] == {}
    assert as_json(figure(traces, {"xaxis": {"title": {}}, "legend": {"title": {}}})) == expected


def test_the_kept_parts_do_not_change_with_a_figure_made_from_them():
    traces = [{"x": [1.0, 2.0], "y": [10.0, 1e4], "name": "a"}]
    first = figure(traces, {"height": 300}, log_axes=("y",))
    first.update_layout(height=999, yaxis_title="changed")
    first.data[0].name = "changed"
    again = as_json(figure(traces, {"height": 300}, log_axes=("y",)))
    assert again["layout"]["height"] == 300 and again["data"][0]["name"] == "a"
    assert "text" not in again["layout"]["yaxis"].get("title", {})


def test_values_json_cannot_key_are_checked_every_time():
    """A value with no JSON form (a date) still makes the figure plotly makes, checked on each call."""
    import datetime as dt

    traces = [{"x": [dt.date(2020, 1, 1), dt.date(2021, 1, 1)], "y": [1.0, 2.0], "name": "dated"}]
    before = len(charts._CHECKED)
    assert as_json(figure(traces, {"height": 200})) == as_json(plotly_whole(traces, {"height": 200}))
    assert len(charts._CHECKED) <= before + 1  # the layout kept, not the trace


def test_the_kept_parts_are_bounded():
    for i in range(charts.MAX_CHECKED + 10):
        figure([{"x": [i], "y": [float(i)], "name": f"n{i}"}], {"height": 200})
    assert len(charts._CHECKED) == charts.MAX_CHECKED


def test_an_unregistered_trace_type_is_refused():
    with pytest.raises(KeyError, match="no chart trace of type 'pie'"):
        figure([{"type": "pie", "values": [1, 2]}], {})


def test_an_array_and_a_list_of_the_same_values_are_kept_apart():
    """plotly sends an array as a typed array and a list as a list: each as plotly makes it."""
    for x in (np.array([1.0, 2.0]), [1.0, 2.0], pd.Series([1.0, 2.0]), np.array([1, 2])):
        traces = [{"x": x, "y": [3.0, 4.0]}]
        assert as_json(figure(traces, {})) == as_json(plotly_whole(traces, {})), type(x)
