"""``python -m engine presets`` and ``flops --preset ID``: the same output as ``flops FILE`` of that scenario."""
from __future__ import annotations

import json

import pytest

from engine.presets import presets
from engine.share_link import scenario_json
from tests.cli import cli, write


def test_presets_lists_ids_and_titles():
    out = cli("presets")
    assert out.returncode == 0, out.stderr
    listed = {p["id"]: p["title"] for p in json.loads(out.stdout)}
    for id_ in ("resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "inception_v3", "densenet121",
                "vit_b_16", "unet", "epoch-cnn-lstm", "vgg16", "llama2-7b"):
        assert listed[id_]


@pytest.mark.parametrize("preset_id,convention", [("resnet50", None), ("densenet121", "full"), ("vgg16", None)])
def test_flops_preset_prints_what_flops_file_prints(tmp_path, preset_id, convention):
    extra = ["--convention", convention] if convention else []
    by_id = cli("flops", "--preset", preset_id, *extra)
    by_file = cli("flops", write(tmp_path, scenario_json(presets()[preset_id].scenario)), *extra)
    assert by_id.returncode == 0, by_id.stderr
    assert by_id.stdout == by_file.stdout
    data = json.loads(by_id.stdout)
    if preset_id == "resnet50":
        # torchvision's ResNet-50: 25,557,032 parameters, 4.09 G multiply-accumulates
        assert data["params"] == 25_557_032
        assert round(data["forward_flop"] / 2e9, 2) == 4.09
        assert any(row.get("path", "").startswith("layers[4].layers[") for row in data["layers"])


@pytest.mark.parametrize("args,needle", [
    (("flops", "--preset", "resnet5"), "preset: unknown id 'resnet5'"),
    (("flops", "--preset", "x\n<script>"), "preset: unknown id 'x\\n<script>'"),
    (("flops",), "arguments: give a scenario FILE, --preset ID, --onnx MODEL.onnx or --config CONFIG.json "
                 "(one of them)"),
])
def test_bad_preset_arguments(args, needle):
    out = cli(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == f"error: {needle}" or needle in out.stderr
    assert out.stderr.count("\n") == 1
