"""The layer builder's multimodal uploader through AppTest: what users upload — every Hub model's file is called
config.json — and a file that would build more layers than a model may have."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

CONFIGS = ROOT / "tests" / "multimodal" / "configs"


def _upload(files: list[tuple[str, bytes]]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="mm_upload").set_value([(name, data, "application/json") for name, data in files]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_two_models_each_called_config_json_are_both_counted():
    """LLaVA 1.5 and Qwen2.5-VL, both named config.json (and LLaVA twice): each gets its training step and its own
    recipe widgets (the widgets were keyed by the file's name: a duplicate-key exception)."""
    llava = (CONFIGS / "llava-1.5-7b.json").read_bytes()
    qwen = (CONFIGS / "qwen2.5-vl-7b-instruct.json").read_bytes()
    at = _upload([("config.json", llava), ("config.json", qwen), ("config.json", llava)])
    steps = [m.value for m in at.markdown if "training step per example" in m.value]
    assert len(steps) == 3, steps
    recipes = [s for s in at.selectbox if s.key and s.key.startswith("mm_recipe_")]
    assert len({s.key for s in recipes}) == 3


def test_a_depth_beyond_10000_layers_is_one_line_and_the_others_are_counted():
    """A vision tower of 10⁹ layers: refused by name before a layer is built (it filled the memory for minutes);
    the other file is counted."""
    data = json.loads((CONFIGS / "llava-1.5-7b.json").read_text())
    data["vision_config"]["num_hidden_layers"] = 10**9
    at = _upload([("huge.json", json.dumps(data).encode()),
                  ("config.json", (CONFIGS / "qwen2.5-vl-7b-instruct.json").read_bytes())])
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == ["huge.json.vision_config.num_hidden_layers: 1,000,000,000 layers is more than the 10,000 a "
                      "model may have — that file was not used"], errors
    assert len([m for m in at.markdown if "training step per example" in m.value]) == 1


def test_too_many_files_is_one_line_about_the_upload():
    data = (CONFIGS / "llava-1.5-7b.json").read_bytes()
    at = _upload([(f"m{i}.json", data) for i in range(12)])
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == ["upload: 12 files: at most 8 are read (the first 8)"], errors
