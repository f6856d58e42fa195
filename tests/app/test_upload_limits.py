"""Every uploader's limit and its reason are written beside it as text (the issue: a 20 MB cap shown only as a red
mark whose text appears on hover)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui.views.uploads import UPLOADS


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption).replace("\\", "")


def test_each_uploader_says_its_limit_in_text_beside_it():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    text = _captions(at)
    for limit in (UPLOADS["onnx"], UPLOADS["scenario"]):  # the layer builder's two uploaders
        assert limit.text().replace("\\", "") in text, limit
    assert "Files up to 110 MB: only the graph is read, the weights inside are skipped" in text
    at.radio(key="hf_source").set_value("paste").run()
    assert UPLOADS["config"].text() in _captions(at)
    at.switch_page(str(ROOT / "pages" / "trends.py")).run()
    assert UPLOADS["epoch_csv"].text() in _captions(at)
    assert not at.exception


def test_each_trace_uploader_takes_what_its_line_says():
    """The Plan and Measure pages' trace uploaders say "up to 20 MB" beside them: the widget takes that (the Plan
    page's took the server's 110 MB, its ONNX cap)."""
    for page in ("plan", "measure"):
        at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=120).run()
        uploaders = [e for e in at.get("file_uploader") if "Profiler trace" in e.proto.label]
        assert len(uploaders) == 1, page
        assert uploaders[0].proto.max_upload_size_mb == 20, page
        assert "up to **20 MB**" in " ".join(m.value for m in at.markdown), page
        assert not at.exception


def test_each_layer_builder_uploader_takes_what_its_line_says():
    """The layer builder's uploaders: a scenario, an ONNX graph, and the multimodal panel's config.json files (which
    took the server's 110 MB per file with no line saying any limit)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    caps = {e.proto.label: e.proto.max_upload_size_mb for e in at.get("file_uploader")}
    assert caps == {"Restore a scenario (JSON)": UPLOADS["scenario"].mb, "ONNX graph (.onnx)": 110,
                    "config.json files": 1}, caps
    assert UPLOADS["config"].text().replace("\\", "") in _captions(at)
