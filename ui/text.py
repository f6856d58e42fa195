"""Making user-supplied text inert before Streamlit renders it as Markdown."""
from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(text: object) -> str:
    """Text a user supplied (names, link or file contents inside a message), made inert for Markdown:
    no link, image, HTML, LaTeX or emoji code in it is rendered."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
