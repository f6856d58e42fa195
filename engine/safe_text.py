"""User text made inert where it is shown: Markdown (the dashboard, the report) and spreadsheets (CSV).

One escaping point each, used by the UI's text helpers and the exports alike.
"""
from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=])")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What spreadsheet programs read as the start of a formula (OWASP, "CSV Injection")."""


def markdown_inert(text: object) -> str:
    """``text`` with every Markdown, HTML, LaTeX and emoji-code character backslash-escaped: shown as
    typed, never rendered as a link, image, tag, formula or heading."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def spreadsheet_inert(text: object) -> object:
    """A cell that a spreadsheet would run as a formula (``=HYPERLINK(…)``, ``+cmd|…``, ``-2+3``, ``@SUM``)
    gets a leading ``'``, as spreadsheet tools expect; other values pass unchanged."""
    if isinstance(text, str) and text.startswith(_FORMULA_START):
        return "'" + text
    return text


def longest_backtick_run(text: str) -> int:
    return max((len(m.group()) for m in re.finditer(r"`+", text)), default=0)


def code_fence(text: str, language: str = "") -> str:
    """``text`` in a Markdown code fence longer than any run of backticks inside it (no break-out)."""
    fence = "`" * max(3, longest_backtick_run(text) + 1)
    return f"{fence}{language}\n{text}\n{fence}"
