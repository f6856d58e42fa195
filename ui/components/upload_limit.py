"""An uploader with its limit and the reason for it written beside it, as text (Streamlit alone shows an
oversized file's refusal as a red mark whose text appears on hover). Reused by every uploader of the dashboard."""
from __future__ import annotations

import streamlit as st

from ui.text import plain
from ui.views.uploads import UploadLimit


def limited_uploader(label: str, limit: UploadLimit, *, type: list[str], key: str, help: str | None = None,
                     where=st, multiple: bool = False):
    """``st.file_uploader`` capped at ``limit`` per file (``max_upload_size``) with ``limit.text()`` as a caption
    under it; the file, or None (with ``multiple``: the list of files)."""
    upload = where.file_uploader(label, type=type, key=key, help=help, max_upload_size=limit.mb,
                                 accept_multiple_files=multiple)
    where.caption(plain(limit.text()))
    return upload
