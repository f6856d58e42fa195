"""Which files a piece of code opens: a Python audit hook on ``open`` (``builtins.open``, ``io.open``,
``os.open``) and onnx's C++ entry points for external data (they raise no audit event), recording any path
that names a watched file. Used by the tests that prove user input never makes the server read a file the
user did not name (``tests/importers/test_onnx_external_data.py``, ``tests/test_user_named_files.py``)."""
from __future__ import annotations

import contextlib
import os
import sys

_WATCH: list[tuple[tuple[str, ...], list[str]]] = []


def _audit(event, args):
    if _WATCH and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        for names, opened in _WATCH:
            if any(name in path for name in names):
                opened.append(path)


sys.addaudithook(_audit)  # a hook cannot be removed: it records only inside ``watching``


@contextlib.contextmanager
def watching(*names: str, monkeypatch=None):
    """``with watching("secret.bin") as opened:`` — ``opened`` lists every path naming one of ``names`` that
    was opened inside the block (with ``monkeypatch``, onnx's external-data readers count as opening)."""
    opened: list[str] = []
    if monkeypatch is not None:
        try:
            from onnx import external_data_helper
        except ImportError:
            external_data_helper = None
        if external_data_helper is not None:
            def refused(*args, **kwargs):
                opened.append(f"onnx external data {args[:2]!r}")
                raise OSError("external data is not read in this test")

            for name in ("_open_external_data_fd", "_read_external_data_bytes", "load_external_data_for_tensor"):
                if hasattr(external_data_helper, name):
                    monkeypatch.setattr(external_data_helper, name, refused)
    entry = (names, opened)
    _WATCH.append(entry)
    try:
        yield opened
    finally:
        _WATCH.remove(entry)
