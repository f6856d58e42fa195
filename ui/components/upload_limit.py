"""An uploader with its limit and the reason for it written beside it, as text (Streamlit alone shows an
oversized file's refusal as a red mark whose text appears on hover). Reused by every uploader of the dashboard."""
from __future__ import annotations

import streamlit as st

from ui.text import plain
from ui.views.uploads import UploadLimit


def limited_uploader(label: str, limit: UploadLimit, *, type: list[str], key: str, help: str | None = None,
                     where=st):
    """``st.file_uploader`` capped at ``limit`` (``max_upload_size``) with ``limit.text()`` as a caption under it;
    the file, or None."""
    upload = where.file_uploader(label, type=type, key=key, help=help, max_upload_size=limit.mb)
    where.caption(plain(limit.text()))
    return upload
