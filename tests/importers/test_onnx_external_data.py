"""No byte of a file beside the server is ever read through an ONNX graph: for every place a tensor can sit and
every location it can name (``external_graphs.py``), with a secret planted in the working directory and in a
subfolder, the outputs (the count's JSON, the scenario, the layer table, the summary, the CLI's JSON, text and
saved scenario) equal those of the same graph in a folder with no secret, hold none of its values, and the
secret is never opened (a Python audit hook on ``open``; and, where ``strace`` runs, no system call names it).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

onnx = pytest.importorskip("onnx")

from engine.errors import InputError  # noqa: E402
from engine.importers.onnx_graph import dynamic_dims, read_onnx  # noqa: E402
from tests.cli import cli  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.file_audit import watching  # noqa: E402
from tests.importers import external_graphs  # noqa: E402
from tests.importers.external_graphs import SECRET_NAME, SECRET_VALUES, hostile_graphs, plant  # noqa: E402

def _outputs(data: bytes) -> list[str]:
    """Everything a user sees of this graph: the engine's count and scenario, and the CLI's three outputs."""
    from ui.views.onnx_import import import_scenario, summary_lines

    out: list[str] = []
    try:
        dims = dynamic_dims(read_onnx(data, "upload"))
        sizes = {d.name: 3 for d in dims}
        scenario, counted, before = import_scenario(data, "model.onnx", sizes)
        out += [json.dumps(counted.as_dict()), scenario.model_dump_json(), *summary_lines(counted, before, 1),
                json.dumps(scenario.method1().as_dict())]
    except InputError as exc:
        sizes = {}
        out.append(str(exc))
    with open("model.onnx", "wb") as f:
        f.write(data)
    dims = [f"--dim={name}={size}" for name, size in sizes.items()]
    for fmt in ("json", "text"):
        done = cli("flops", "--onnx", "model.onnx", *dims, "--format", fmt, "--save", f"saved-{fmt}.json")
        out += [str(done.returncode), done.stdout, done.stderr]
        if os.path.exists(f"saved-{fmt}.json"):
            with open(f"saved-{fmt}.json") as f:
                out.append(f.read())
            os.remove(f"saved-{fmt}.json")
    return out


def _tensors(message):
    """Every TensorProto inside ``message`` at any depth, found through protobuf's descriptors (not the
    importer's own walk: a field it forgot is still found here)."""
    stack = [message]
    while stack:
        m = stack.pop()
        if isinstance(m, onnx.TensorProto):
            yield m
        for field, value in m.ListFields():
            if field.message_type is None:
                continue
            if field.is_repeated:
                if field.message_type.GetOptions().map_entry:
                    continue
                stack.extend(value)
            else:
                stack.append(value)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    with_secret = tmp_path_factory.mktemp("served")
    plant(with_secret)
    return with_secret, tmp_path_factory.mktemp("clean")


CASES = list(hostile_graphs())


@pytest.mark.parametrize("case", [c for c, _ in CASES] + [f"{p}-absolute" for p in external_graphs.PLACES])
def test_no_byte_of_a_planted_file_reaches_any_output(case, folders, monkeypatch):
    with_secret, clean = folders
    data = dict(hostile_graphs(with_secret))[case]
    model = read_onnx(data, "upload")
    left = [t.name for t in _tensors(model) if t.data_location == onnx.TensorProto.EXTERNAL or len(t.external_data)]
    assert left == [], f"tensors still naming a file after reading: {left}"
    seen = {}
    for folder in (with_secret, clean):
        monkeypatch.chdir(folder)
        with watching(SECRET_NAME, monkeypatch=monkeypatch) as opened:
            seen[folder] = _outputs(data)
        assert opened == [], f"opened {opened}"
    text = "\n".join(seen[with_secret])
    for value in SECRET_VALUES:
        assert str(value) not in text and f"{value:,}" not in text
    assert seen[with_secret] == seen[clean]


def test_tensors_stored_outside_are_counted_from_their_shapes_and_said(folders, monkeypatch):
    """A weight stored outside counts from its shape (8 × 300 = 2,400 parameters, 2·3·8·300 MACs for a batch of
    3); the count says how many tensors of the file had their values elsewhere, and that none was read."""
    with_secret, _ = folders
    monkeypatch.chdir(with_secret)
    from engine.importers.onnx_graph import count_onnx

    counted = count_onnx(read_onnx(external_graphs.initializer_weight(SECRET_NAME).SerializeToString()), {"batch": 3})
    assert counted.params == 8 * 300 and counted.macs == 3 * 8 * 300 and counted.external_data
    assert any("1 tensor" in note and "not read" in note for note in counted.notes), counted.notes


STRACED = textwrap.dedent("""
    import json, sys
    from engine.cli import main
    from engine.importers.onnx_graph import count_onnx, dynamic_dims, read_onnx
    from engine.errors import InputError
    for name in sys.argv[1:]:
        data = open(name, "rb").read()
        try:
            model = read_onnx(data)
            count_onnx(model, {d.name: 3 for d in dynamic_dims(model)})
        except InputError:
            pass
        main(["flops", "--onnx", name, "--dim", "batch=3", "--format", "json"])
""")


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_no_system_call_names_the_planted_file(tmp_path):
    """The same graphs in a fresh process under ``strace -f -e trace=%file``: the C++ parts of onnx (shape
    inference) included, no call opens, stats or reads a path naming the secret."""
    plant(tmp_path)
    names = []
    for i, (_, data) in enumerate(hostile_graphs(tmp_path)):
        names.append(f"m{i}.onnx")
        (tmp_path / names[-1]).write_bytes(data)
    log = tmp_path / "trace.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["strace", "-f", "-e", "trace=%file", "-o", str(log), sys.executable, "-c", STRACED,
                           *names], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    if "ptrace" in done.stderr and not log.exists():
        pytest.skip("strace cannot trace here (ptrace not permitted)")
    calls = [line for line in log.read_text().splitlines() if SECRET_NAME in line]
    assert calls == [], calls[:5]
    assert "m0.onnx" in log.read_text()  # the trace did see the process read its own files
