"""The live-markup check's shortcut (``markup._CAN_BE_LIVE``: a text with neither ``<`` nor ``[`` is not rendered)
against rendering every text with markdown-it, the CommonMark parser the check relies on: the same verdict on the
hostile payloads, raw and made inert by the app, and on generated texts of Markdown's special characters."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from engine.safe_text import markdown_inert
from tests.app.hostile_corpus import INJECTIONS, MARKER_HOSTS
from tests.app.markup import _CAN_BE_LIVE, _LIVE_HTML, _LIVE_LINK

RENDER = MarkdownIt("commonmark")
HOSTS = "|".join(re.escape(h) for h in MARKER_HOSTS)
ANY_TAG = re.compile(r"<(?:img|script|iframe|b|a)\b|(?:href|src)=\"", re.I)


def rendered_live(text: str) -> bool:
    """The verdict without the shortcut: the text rendered, then searched."""
    html = RENDER.render(text)
    return bool(_LIVE_LINK.search(html) or _LIVE_HTML.search(html))


def shortcut_live(text: str) -> bool:
    html = RENDER.render(text) if _CAN_BE_LIVE.search(text) else ""
    return bool(_LIVE_LINK.search(html) or _LIVE_HTML.search(html))


def test_the_payloads_get_the_same_verdict_with_and_without_the_shortcut():
    texts = [f"{before}{p}{after}" for p in INJECTIONS for before, after in (("", ""), ("Name: ", " (edited)"),
                                                                             ("**", "**"), ("`", "`"))]
    texts += [markdown_inert(t) for t in texts]
    assert sum(rendered_live(t) for t in texts) >= 6  # the raw payloads do render live: the check has teeth
    assert [shortcut_live(t) for t in texts] == [rendered_live(t) for t in texts]


MARKDOWN_CHARS = "!()*_`~#>-+=|&;:/\\$\"' \n\tahimgrscptfbevlx.0123456789"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=MARKDOWN_CHARS, max_size=60))
def test_a_text_without_a_bracket_or_an_angle_renders_no_tag(text):
    """Without ``<`` or ``[``, CommonMark renders no link, image or raw HTML (entities such as ``&#60;`` stay
    escaped)."""
    assert not _CAN_BE_LIVE.search(text)
    html = RENDER.render(text + " evil.example &#60;img src=x&#62; &lt;b&gt;")
    assert not ANY_TAG.search(html)
