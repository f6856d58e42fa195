"""``python -m engine flops`` / ``schema``: JSON out, or exit 2 with one line naming the field."""
from __future__ import annotations

import json

import pytest

from tests.cli import cli, write
from tests.reference import EPOCH_EXAMPLE

SEED = EPOCH_EXAMPLE


def run(*args):
    return cli(*args)




def test_flops_on_the_seed_example(tmp_path):
    out = run("flops", write(tmp_path, SEED))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    conv, lstm, fc = 2 * 200 * 200 * 16 * 125, 8 * (640_000 * 256 + 256 ** 2), 2 * 256 * 10
    assert data["convention"] == "matmul"
    assert data["forward_flop"] == 20 * (conv + lstm) + fc
    assert data["training_flop"] == 3 * 128_000 * (20 * (conv + lstm) + fc)
    assert [(l["index"], l["type"]) for l in data["layers"]] == [(0, "conv2d"), (1, "flatten"), (2, "lstm"),
                                                                 (3, "dense")]
    assert data["layers"][0]["output_shape"] == [20, 200, 200, 16]
    # PyTorch's nn.Conv2d/LSTM/Linear: 16·125+16, 4·(640,000·256 + 256² + 2·256), 256·10 + 10
    assert data["params"] == 2016 + 4 * (640_000 * 256 + 256 ** 2 + 512) + 2570


def test_full_convention_is_larger_and_named(tmp_path):
    out = run("flops", write(tmp_path, SEED), "--convention", "full")
    data = json.loads(out.stdout)
    assert data["convention"] == "full"
    # conv bias adds: 20 images × 200·200·16 outputs
    assert data["layers"][0]["forward_flop"] == 20 * (2 * 200 * 200 * 16 * 125 + 200 * 200 * 16)


def test_schema_is_json_schema():
    out = run("schema")
    schema = json.loads(out.stdout)
    assert out.returncode == 0 and "layers" in schema["properties"] and "$defs" in schema


@pytest.mark.parametrize("content,field", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ({"input": {"shape": [3]}, "layers": [{"type": "warp_drive"}]}, "layers[0].type"),
    ({"input": {"shape": [3]}, "layers": [{"type": "dense", "units": 0}]}, "layers[0].units"),
    ({"input": {"shape": [3]}, "layers": [{"type": "dense", "units": -4}]}, "layers[0].units"),
    ({"input": {"shape": [3]}, "layers": [{"type": "dense", "units": 2.5}]}, "layers[0].units"),
    ('{"input": {"shape": [3]}, "layers": [{"type": "dense", "units": NaN}]}', "layers[0].units"),
    ({"input": {"shape": [0]}, "layers": []}, "input.shape[0]"),
    ({"input": {"shape": [32, 32, 3]}, "layers": [{"type": "dense", "units": 2}]}, "layers[0]: dense"),
    ({"input": {"shape": [3]}, "layers": [], "training": {"epochs": 1}}, "training"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, content, field):
    out = run("flops", write(tmp_path, content))
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and "Traceback" not in out.stderr


def test_missing_file_and_unknown_command():
    assert run("flops", "/no/such/file.json").returncode == 2
    out = run("no-such-command")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
