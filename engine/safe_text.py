"""User text made inert where it is shown: Markdown (the dashboard, the report) and spreadsheets (CSV).

One escaping point each, used by the UI's text helpers and the exports alike.
"""
from __future__ import annotations

import re
import unicodedata

from .errors import one_line

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=])")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What spreadsheet programs read as the start of a formula (OWASP, "CSV Injection")."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(text: str) -> str:
    """``text`` with each lone surrogate (``"\\ud800"`` in a JSON file: not a character, and no UTF-8 writer
    takes it) replaced by U+FFFD, as a UTF-8 reader replaces bytes it cannot read."""
    if text.isascii() or not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def markdown_inert(text: object) -> str:
    """``text`` with every Markdown, HTML, LaTeX and emoji-code character backslash-escaped: shown as
    typed, never rendered as a link, image, tag, formula or heading (a lone surrogate shown as U+FFFD)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", valid_unicode(str(text)))


_FULL_WIDTH_START = ("\uff1d", "\uff0b", "\uff0d", "\uff20")
"""＝ ＋ － ＠: the full-width forms, which some spreadsheet programs read as their ASCII twins."""


def _invisible(char: str) -> bool:
    """A character a spreadsheet may skip before the formula sign: white space, zero-width and format characters
    (U+200B, U+FEFF, U+2060, bidirectional marks …)."""
    return char.isspace() or unicodedata.category(char) in ("Cf", "Zs", "Zl", "Zp", "Cc")


def spreadsheet_inert(text: object) -> object:
    """A cell that a spreadsheet would run as a formula (``=HYPERLINK(…)``, ``+cmd|…``, ``-2+3``, ``@SUM``), also
    behind leading spaces or zero-width characters (`` =cmd``, ``\u200b=cmd``), gets a leading ``'``, as
    spreadsheet tools expect; other values pass unchanged."""
    if not isinstance(text, str) or not text:
        return text
    if text.startswith(_FORMULA_START):
        return "'" + text
    start = 0
    while start < len(text) and _invisible(text[start]):
        start += 1
    if start and text[start:].startswith(_FORMULA_START + _FULL_WIDTH_START) or text.startswith(_FULL_WIDTH_START):
        return "'" + text
    return text


def markdown_line(text: object) -> str:
    """Text in a Markdown report (a name, a table cell): one line (``errors.one_line``) and Markdown-inert."""
    return markdown_inert(one_line(str(text)))


def report_text(text: object) -> str:
    """User text in the scenario's Markdown report (a table cell, a title, a message quoting an input):
    ``markdown_line``, and not a spreadsheet formula."""
    return markdown_line(spreadsheet_inert(str(text)))


def longest_backtick_run(text: str) -> int:
    return max((len(m.group()) for m in re.finditer(r"`+", text)), default=0)


def code_fence(text: str, language: str = "") -> str:
    """``text`` in a Markdown code fence longer than any run of backticks inside it (no break-out)."""
    fence = "`" * max(3, longest_backtick_run(text) + 1)
    return f"{fence}{language}\n{text}\n{fence}"
