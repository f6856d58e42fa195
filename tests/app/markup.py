"""Is any user text live in what a page rendered? Every Markdown-rendering element of an AppTest run is
rendered here with a CommonMark parser (markdown-it, what Streamlit's react-markdown follows) and checked
for the injection payloads' effects: a link or image to the payload hosts, raw HTML tags, live LaTeX or
Streamlit's colour/icon directives — in Markdown elements, every widget's label and help, radio and select
options, tab labels, and the text of every Plotly figure (which renders a subset of HTML)."""
from __future__ import annotations

import json
import re

from markdown_it import MarkdownIt

from tests.app.hostile_corpus import MARKER_HOSTS

_MD = MarkdownIt("commonmark")
_HOSTS = "|".join(re.escape(h) for h in MARKER_HOSTS)
_LIVE_HTML = re.compile(r"<(?:img|script|iframe|b)\b", re.I)  # the app's own Markdown never makes these
_LIVE_LINK = re.compile(rf'(?:href|src)="[^"]*(?:{_HOSTS})', re.I)
_CAN_BE_LIVE = re.compile(r"[<\[]")
"""CommonMark makes a tag only from a ``<`` of the text (raw HTML, an autolink) and a link or an image only from a
``[`` (``[text](url)``, ``![alt](src)``, a reference ``[label]: url``): a text with neither renders no tag that
``_LIVE_HTML`` or ``_LIVE_LINK`` can find (``&#60;``, an entity, renders escaped), so it is not rendered."""
_UNESCAPED = [re.compile(r"(?<!\\)\$[^$]*\\href"), re.compile(r"(?<!\\):red\[\*\*ALERT"),
              re.compile(r"(?<!\\):material/warning:"), re.compile(r"(?<!\\)\$\$\\unicode")]


def markdown_values(at) -> list[tuple[str, str]]:
    """(element kind, Markdown text) of every element whose text Streamlit renders as Markdown."""
    out: list[tuple[str, str]] = []
    for kind in ("markdown", "caption", "warning", "error", "info", "success", "title", "header", "subheader",
                 "latex", "toast"):
        for element in getattr(at, kind, []):
            out.append((kind, str(element.value)))
    for metric in at.metric:
        out.append(("metric.label", str(metric.label)))
        if getattr(metric, "help", None):
            out.append(("metric.help", str(metric.help)))
    for expander in at.expander:
        out.append(("expander.label", str(expander.label)))
    for kind in WIDGETS:  # every widget's label renders Markdown in Streamlit; radio options and tab labels too
        for widget in _elements(at, kind):
            out.append((f"{kind}.label", str(getattr(widget, "label", "") or "")))
            if getattr(widget, "help", None):
                out.append((f"{kind}.help", str(widget.help)))
            if kind == "radio":  # radio options render Markdown; a select box's options are plain text
                for option in getattr(widget, "options", None) or []:
                    out.append((f"{kind}.option", str(option)))
    for tab in _elements(at, "tabs"):
        out.append(("tab.label", str(getattr(tab, "label", "") or "")))
    return out


WIDGETS = ("button", "checkbox", "toggle", "radio", "selectbox", "multiselect", "select_slider", "slider",
           "number_input", "text_input", "text_area", "date_input", "time_input", "color_picker")


def _elements(at, kind: str) -> list:
    try:
        return list(getattr(at, kind))
    except (AttributeError, KeyError):
        return []


_PLOTLY_LIVE = re.compile(r"<a\s|<img|<script|<iframe|href\s*=|<b>bold</b>", re.I)
"""Plotly renders a subset of HTML in titles, labels, hover text and annotations (<a href>, <b>, <br>):
what the payloads would make live there."""


def plotly_strings(at) -> list[str]:
    """Every text of every Plotly chart's figure (trace names, hover text and templates, custom data, axis
    titles, annotations), from the JSON the browser gets."""
    out: list[str] = []

    def walk(node):
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for chart in at.get("plotly_chart"):
        walk(json.loads(chart.proto.spec))
    return out


def live_markup(at) -> list[str]:
    """Descriptions of user text that would render live (empty when everything is inert)."""
    problems = []
    for kind, text in markdown_values(at):
        html = _MD.render(text) if _CAN_BE_LIVE.search(text) else ""
        if _LIVE_LINK.search(html) or _LIVE_HTML.search(html) or any(p.search(text) for p in _UNESCAPED):
            problems.append(f"{kind}: {text[:160]!r}")
    for text in plotly_strings(at):
        if _PLOTLY_LIVE.search(text):
            problems.append(f"plotly: {text[:160]!r}")
    return problems
