"""``python -m engine compress``'s flags: each wrong one is one line naming it (exit 2)."""
from __future__ import annotations

import json

import pytest

from engine.presets import presets
from tests.cli import cli


@pytest.fixture(scope="module")
def resnet18(tmp_path_factory):
    path = tmp_path_factory.mktemp("compress") / "resnet18.json"
    path.write_text(json.dumps(presets()["resnet18"].scenario.model_dump(mode="json")))
    return str(path)


@pytest.mark.parametrize("flags, line", [
    (["--fraction", "0.5", "--round-to", "0"], "error: pruning.round_to: must be at least 1"),
    (["--per-layer", "layers[0]=0.5,layers[0]=0.1"], "error: per-layer: 'layers[0]' is given twice: one fraction per "
                                                     "layer"),
])
def test_pruning_flags(resnet18, flags, line):
    """--round-to 0 was taken as 1 (while -1 was refused); a layer given twice kept its last fraction silently."""
    out = cli("compress", resnet18, "--technique", "prune", *flags)
    assert out.returncode == 2 and out.stderr.strip() == line, out.stderr


def test_pruning_a_resnet_prunes_inside_its_residual_blocks(resnet18):
    out = cli("compress", resnet18, "--technique", "prune", "--fraction", "0.5", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["after"]["params"] < data["before"]["params"] == 11_689_512  # torchvision's ResNet-18


def test_a_teacher_file_that_is_not_a_config_is_named(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("root:x:0:0:root:/root:/bin/bash\n")
    out = cli("compress", "--technique", "distill", "--teacher", str(notes), "--student", "llama-3.2-1b", "--tokens",
              "1e9")
    assert out.returncode == 2 and out.stderr.startswith(f"error: teacher: '{notes}': not valid JSON"), out.stderr


def test_model_is_a_library_id_never_a_file(tmp_path):
    """--model took a path and read it as a config (any file: /etc/passwd's 'not valid JSON'); it names library
    models only, as for serve and transformer (--config takes a file)."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama"}), encoding="utf-8")
    out = cli("compress", "--technique", "prune", "--fraction", "0.5", "--model", str(path))
    assert out.returncode == 2 and out.stderr.startswith("error: model: ") and "not in the model library" in out.stderr
