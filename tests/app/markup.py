"""Is any user text live in what a page rendered? Every Markdown-rendering element of an AppTest run is
rendered here with a CommonMark parser (markdown-it, what Streamlit's react-markdown follows) and checked
for the injection payloads' effects: a link or image to the payload hosts, raw HTML tags, live LaTeX or
Streamlit's colour/icon directives."""
from __future__ import annotations

import re

from markdown_it import MarkdownIt

from tests.app.hostile_corpus import MARKER_HOSTS

_MD = MarkdownIt("commonmark")
_HOSTS = "|".join(re.escape(h) for h in MARKER_HOSTS)
_LIVE_HTML = re.compile(r"<(?:img|script|iframe|b)\b", re.I)  # the app's own Markdown never makes these
_LIVE_LINK = re.compile(rf'(?:href|src)="[^"]*(?:{_HOSTS})', re.I)
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
    return out


def live_markup(at) -> list[str]:
    """Descriptions of user text that would render live (empty when everything is inert)."""
    problems = []
    for kind, text in markdown_values(at):
        html = _MD.render(text)
        if _LIVE_LINK.search(html) or _LIVE_HTML.search(html) or any(p.search(text) for p in _UNESCAPED):
            problems.append(f"{kind}: {text[:160]!r}")
    return problems
