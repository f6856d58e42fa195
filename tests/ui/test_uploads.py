"""The uploaders' limits: the server's cap is the largest of them, and the ONNX uploader takes what
torch.onnx.export writes for common models (the text beside each uploader: tests/app/test_upload_limits.py)."""
from __future__ import annotations

import tomllib

import pytest

from engine.errors import InputError
from tests.conftest import ROOT
from ui.views.uploads import MB, ONNX, UPLOADS


def test_the_servers_cap_is_the_largest_uploaders():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    # the server counts 2²⁰ bytes, the widgets 10⁶ (2²⁰ on Windows): the same figure lets through all they take
    assert config["server"]["maxUploadSize"] == max(limit.mb for limit in UPLOADS.values()) == 110


def test_an_export_with_its_weights_inside_fits():
    """ResNet-18 with its weights: 11,689,512 float32 parameters = 46.8 MB (the issue's 46.7 MB file);
    ResNet-50: 25,557,032 = 102.2 MB, and its graph."""
    assert 11_689_512 * 4 < ONNX.max_bytes and 25_557_032 * 4 + 1_000_000 < ONNX.max_bytes == 110 * MB
    with pytest.raises(InputError, match=r"^upload: 110,000,001 bytes: larger than the 110 MB this uploader takes"):
        ONNX.check(110 * MB + 1)
    ONNX.check(110 * MB)
