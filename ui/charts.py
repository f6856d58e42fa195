"""Charts the pages share: log axes labelled at decades only, titles above the chart (never under
the chart's toolbar), values printed with the units' display rules."""
from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict

import streamlit as st

from ui.text import plain

LOG_AXIS = {"type": "log", "exponentformat": "power", "showexponent": "all", "minor": {"showgrid": False}}
"""A log axis labelled at powers of ten only (plotly's own choice adds 2 and 5 on short ranges)."""
MAX_LABELS = 10


MARGIN = {"l": 10, "r": 10, "t": 30, "b": 10}
"""Every chart's margins: its title is drawn above it, in the page's own text (``show_chart``)."""


def decade_step(values) -> int:
    """Decades between labels: 1, or more when the data span more than ``MAX_LABELS`` decades."""
    positive = [float(v) for v in values if v is not None and v == v and float(v) > 0]
    if not positive:
        return 1
    span = math.log10(max(positive)) - math.log10(min(positive))
    return max(1, math.ceil(span / MAX_LABELS))


def _axis_values(traces, axis: str) -> list:
    return [v for trace in traces if trace.get(axis) is not None for v in trace[axis] if isinstance(v, (int, float))]


def decades(fig, *axes: str):
    """Make ``axes`` ('x', 'y') of ``fig`` log axes labelled at powers of ten only."""
    for axis in axes or ("y",):
        values = [v for trace in fig.data if getattr(trace, axis, None) is not None
                  for v in getattr(trace, axis) if isinstance(v, (int, float))]
        fig.update_layout({f"{axis}axis": {**LOG_AXIS, "dtick": decade_step(values)}})
    return fig


_CHECKED: OrderedDict[str, dict] = OrderedDict()
_CHECKED_LOCK = threading.Lock()
MAX_CHECKED = 256
"""Checked traces and layouts kept (the least recently used go first)."""


def _plain(value):
    """An array or a frame's column as JSON can hold it, for the memo's key: its type and values (plotly keeps an
    array as a typed array, a list as a list)."""
    if hasattr(value, "tolist"):
        return [type(value).__name__, str(getattr(value, "dtype", "")), value.tolist()]
    raise TypeError(type(value).__name__)


def _checked(kind: str, spec: dict) -> dict:
    """``spec`` (a trace, its ``type`` scatter or bar, or the layout) as plotly's validators leave it, checked once
    per content: a page run draws the same hundreds of points (the runs, the chips) again and again."""
    import plotly.graph_objects as go

    try:
        key = kind + json.dumps(spec, default=_plain, allow_nan=True)
    except (TypeError, ValueError):
        key = None
    if key is not None:
        with _CHECKED_LOCK:
            found = _CHECKED.get(key)
            if found is not None:
                _CHECKED.move_to_end(key)
                return found
    if kind == "layout":
        checked = go.Layout(spec).to_plotly_json()
    else:
        fields = {k: v for k, v in spec.items() if k != "type"}
        checked = TRACES[spec.get("type", "scatter")](**fields).to_plotly_json()
    if key is not None:
        with _CHECKED_LOCK:
            _CHECKED[key] = checked
            while len(_CHECKED) > MAX_CHECKED:
                _CHECKED.popitem(last=False)
    return checked


def _empty_titles(spec: dict, checked: dict) -> dict:
    """``checked`` with the empty titles (``{}``) of ``spec`` put back: plotly's check drops them, while a figure
    whose title was set to None (as ``show_chart`` leaves one) keeps ``"title": {}``."""
    out = dict(checked)
    for name, part in spec.items():
        if name == "title" and part == {}:
            out["title"] = {}
        elif isinstance(part, dict) and part.get("title") == {}:
            out[name] = {**out.get(name, {}), "title": {}}
    return out


def _trace_classes() -> dict:
    import plotly.graph_objects as go

    return {"scatter": go.Scatter, "bar": go.Bar}


class _Traces(dict):
    """Trace type → plotly's class, imported when first asked for; an unregistered type is refused."""

    def __missing__(self, kind: str):
        classes = _trace_classes()
        if kind not in classes:
            raise KeyError(f"no chart trace of type {kind!r}")
        self.update(classes)
        return classes[kind]


TRACES = _Traces()


def figure(traces: list[dict], layout: dict, *, log_axes: tuple[str, ...] = (), titled_by_page: bool = True):
    """The figure ``show_chart`` draws, from plain ``traces`` and ``layout``: ``log_axes`` ('x', 'y') made log axes
    labelled at powers of ten only (``decades``); with ``titled_by_page``, the title left to the page (an empty title
    and ``MARGIN``, as ``show_chart`` leaves a figure). Each trace and the layout is checked by plotly's validators
    once per content (``_checked``), and the figure is assembled from the checked parts without checking them again:
    the same JSON as a figure built and checked whole."""
    import plotly.graph_objects as go

    layout = dict(layout)
    for axis in log_axes:
        name = f"{axis}axis"
        layout[name] = {**layout.get(name, {}), **LOG_AXIS, "dtick": decade_step(_axis_values(traces, axis))}
    if titled_by_page:
        layout.update(margin=MARGIN, title={})
    data = [dict(_checked("trace", trace)) for trace in traces]
    fig = go.Figure({"data": data, "layout": _empty_titles(layout, _checked("layout", layout))}, _validate=False)
    fig._titled = titled_by_page
    return fig


def show_chart(fig, title: str, caption: str | None = None) -> None:
    """``fig`` under a bold title of its own (the chart's toolbar sits over the figure's top edge); a figure from
    ``figure`` already leaves its title to the page."""
    if not getattr(fig, "_titled", False):
        fig.update_layout(title=None, margin=MARGIN)
    st.markdown(f"**{plain(title)}**")  # titles may carry a name the user typed (a custom chip's)
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    if caption:
        st.caption(plain(caption))
