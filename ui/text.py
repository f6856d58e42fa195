"""Making user-supplied text inert before Streamlit renders it as Markdown (the one escaping point
of the UI; the rule itself is ``engine.safe_text.markdown_inert``, shared with the report)."""
from __future__ import annotations

from engine.safe_text import markdown_inert


def plain(text: object) -> str:
    """Text a user supplied (names, link or file contents inside a message), made inert for Markdown:
    no link, image, HTML, LaTeX or emoji code in it is rendered."""
    return markdown_inert(text)
