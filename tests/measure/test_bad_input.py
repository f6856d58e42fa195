"""Bad traces: one line naming the file and the reason, never a traceback (engine and CLI alike)."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from engine.errors import InputError
from engine.measure.measurement import measure_trace
from engine.measure.ranks import measure_folder
from tests.conftest import ROOT
from tools.synthetic_trace import TraceBuilder, example


LEFT_OUT = ("{:,} events without a start and a duration a trace can hold (finite numbers of µs, a duration under "
            "10¹² µs) were left out")


def _small(path, device="NVIDIA H100 80GB HBM3", **kw):
    b = TraceBuilder(device, **kw)
    b.op("aten::mm", 10, ((64, 32), (32, 16)), ("float", "float"))
    b.launch("gemm_kernel", 5.0)
    b.step_marks(1, b.cpu - 20, b.cpu + 5, b.gpu - 6, b.gpu + 1)
    return b.write(path), b


def _error(path, **kw) -> str:
    with pytest.raises(InputError) as exc:
        measure_trace(path, **kw)
    text = str(exc.value)
    assert "\n" not in text and text.startswith(path.name)
    return text


def test_not_json(tmp_path):
    (tmp_path / "notes.json").write_text("hello, this is not a trace")
    assert "not a JSON trace" in _error(tmp_path / "notes.json")
    (tmp_path / "list.json").write_text('{"traceEvents": {}}')
    assert "not a list of events" in _error(tmp_path / "list.json")
    (tmp_path / "other.json").write_text('{"schemaVersion": 1}')
    assert "no 'traceEvents'" in _error(tmp_path / "other.json")
    (tmp_path / "binary.json").write_bytes(b"\x00\x01\x02" * 100)
    assert "binary data" in _error(tmp_path / "binary.json")


def test_truncated_gz(tmp_path):
    data = gzip.compress(json.dumps(example(steps=1).document()).encode())
    (tmp_path / "cut.json.gz").write_bytes(data[: len(data) // 2])
    assert "cut short (truncated)" in _error(tmp_path / "cut.json.gz")


def test_truncated_json(tmp_path):
    text = json.dumps(example(steps=1).document())
    (tmp_path / "cut.json").write_text(text[: len(text) // 2])
    assert "cut short" in _error(tmp_path / "cut.json")


def test_a_2_gb_file_over_the_bound_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.pt.trace.json"
    with open(path, "wb") as f:  # sparse: 2 GB on paper, nothing on disk
        f.write(b'{"traceEvents": [')
        f.truncate(2 * 10**9)
    text = _error(path, max_bytes=200 * 2**20)
    assert "2.0 GB" in text and "python -m engine trace" in text


def test_cpu_only_trace_says_so_and_reports_operators(tmp_path):
    path, _ = _small(tmp_path / "cpu.json", device=None)
    doc = json.loads(path.read_text())
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e["cat"] in ("cpu_op", "user_annotation")]
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert not m.gpu and any("CPU trace" in n for n in m.notes)
    assert [(r.name, r.flop_per_call) for r in m.ops] == [("aten::mm", 2 * 64 * 32 * 16)]


def test_no_profiler_step_is_the_whole_trace(tmp_path):
    path, _ = _small(tmp_path / "nostep.json")
    doc = json.loads(path.read_text())
    doc["traceEvents"] = [e for e in doc["traceEvents"] if not e["name"].startswith("ProfilerStep")]
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert [s.name for s in m.steps] == ["whole trace"] and any("no ProfilerStep" in n for n in m.notes)
    assert m.steps[0].op_flop == 2 * 64 * 32 * 16


def test_unknown_device_asks_for_the_chip(tmp_path):
    path, _ = _small(tmp_path / "odd.json", device="Mystery Accelerator 9000")
    m = measure_trace(path)
    assert m.chip is None and m.hfu is None and any("name the chip" in n for n in m.notes)
    named = measure_trace(path, chip="nvidia-a100-sxm4-80gb")
    assert named.chip == "nvidia-a100-sxm4-80gb" and named.hfu is not None
    with pytest.raises(InputError, match="unknown chip"):
        measure_trace(path, chip="nope-9000")


def test_negative_kernel_time_is_refused_and_overlap_is_noted(tmp_path):
    path, b = _small(tmp_path / "neg.json")
    doc = b.document()
    kernel = next(e for e in doc["traceEvents"] if e["cat"] == "kernel")
    kernel["dur"] = -3.0
    path.write_text(json.dumps(doc))
    assert "negative duration" in _error(path)
    kernel["dur"] = 5.0
    doc["traceEvents"].append({**kernel, "ts": kernel["ts"] + 1.0, "args": {**kernel["args"], "correlation": 999}})
    path.write_text(json.dumps(doc))
    assert any("clock is suspect" in n for n in measure_trace(path).notes)


def test_shapes_that_overflow_are_not_counted_and_said(tmp_path):
    b = TraceBuilder()
    b.op("aten::mm", 10, ((2**70, 32), (32, 16)), ("float", "float"))
    b.launch("gemm_kernel", 5.0)
    b.cpu += 10
    b.op("aten::bmm", 10, ((4, 8), (8, 4)), ("float", "float"))
    b.launch("gemm_kernel", 5.0)
    path = b.write(tmp_path / "huge_shapes.json")
    m = measure_trace(path)
    assert all(r.flop_per_call is None for r in m.ops)
    assert any(n.startswith("aten::mm: FLOP not counted") for n in m.notes)
    assert any(n.startswith("aten::bmm: FLOP not counted") for n in m.notes)


def test_ranks_whose_clocks_disagree_are_named(tmp_path):
    _small(tmp_path / "rank0.json", rank=0, world=2)
    _small(tmp_path / "rank1.json", rank=1, world=2, t0=1_700_000_000_000.0 + 3_600e6)
    run = measure_folder(tmp_path)
    assert len(run.ranks) == 2
    assert any(n.startswith("rank1.json: its clock is 3,600 s off") for n in run.notes)


def test_folder_of_mixed_files(tmp_path):
    _small(tmp_path / "rank0.json", rank=0)
    (tmp_path / "README.txt").write_text("notes")
    with pytest.raises(InputError, match=r"^README\.txt: .*not a trace file"):
        measure_folder(tmp_path)
    (tmp_path / "README.txt").unlink()
    _small(tmp_path / "again.json", rank=0)
    with pytest.raises(InputError, match="rank 0 again"):
        measure_folder(tmp_path)


@pytest.mark.parametrize("args, words", [
    (["trace", "missing.json"], "missing.json: no such file"),
    (["trace", "{bad}", "--step", "x1"], "--step"),
])
def test_cli_one_line_exit_2(tmp_path, args, words):
    out = subprocess.run([sys.executable, "-m", "engine", *args], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_ids_and_times_beyond_64_bits_are_no_ids_and_malformed(tmp_path):
    """A correlation or stream id of 2⁷⁰ (no 64-bit column holds it) is no id, as a text one is; a duration of 400
    digits is no number: that event is left out, said. Both readers: the bulk decoder takes the ids, the
    event-by-event reader the 400-digit number (and the ids of the same file)."""
    path, b = _small(tmp_path / "ids.json")
    doc = b.document()
    kernel = next(e for e in doc["traceEvents"] if e["cat"] == "kernel")
    launch = next(e for e in doc["traceEvents"] if e["cat"] == "cuda_runtime")
    doc["traceEvents"].append({**kernel, "ts": kernel["ts"] + 50, "args": {**kernel["args"], "correlation": 2**70}})
    doc["traceEvents"].append({**kernel, "ts": kernel["ts"] + 60, "args": {**kernel["args"], "stream": 2**70}})
    doc["traceEvents"].append({**launch, "args": {**launch["args"], "correlation": -2**70}})
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert m.ops[0].flop_per_call == 2 * 64 * 32 * 16 and not m.notes, m.notes
    doc["traceEvents"].append({**kernel, "ts": kernel["ts"] + 70, "dur": 10**400})
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert LEFT_OUT.format(1) in m.notes
    out = subprocess.run([sys.executable, "-m", "engine", "trace", str(path), "--format", "json"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ops"][0]["flop_per_call"] == 2 * 64 * 32 * 16


def test_a_pipe_or_a_device_is_not_a_file(tmp_path):
    """Nothing is read from a named pipe (it would wait for a writer forever) or a device (``/dev/zero`` never
    ends): one line."""
    import threading

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got: list = []

    def measure():
        try:
            measure_trace(fifo)
        except InputError as exc:
            got.append(str(exc))

    worker = threading.Thread(target=measure, daemon=True)
    worker.start()
    worker.join(30)
    assert got == ["pipe.json: not a file"]
    if os.path.exists("/dev/zero"):
        with pytest.raises(InputError, match=r"^zero: not a file$"):
            measure_trace("/dev/zero")


def test_a_folder_of_ranks_reads_nothing_through_a_link(tmp_path):
    """A link in a folder of ranks may lead anywhere (``/etc/passwd``, another run's trace): it is refused by name
    before any file is read; so is a pipe."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    _small(outside / "other.json", rank=1)
    folder = tmp_path / "run"
    folder.mkdir()
    _small(folder / "rank0.json", rank=0)
    (folder / "rank1.json").symlink_to(outside / "other.json")
    with pytest.raises(InputError, match=r"^rank1\.json: in the folder 'run': a link to another file; nothing is read"):
        measure_folder(folder)
    (folder / "rank1.json").unlink()
    os.mkfifo(folder / "rank1.json")
    with pytest.raises(InputError, match=r"^rank1\.json: in the folder 'run': not a regular file"):
        measure_folder(folder)


def test_no_path_named_is_said_not_the_current_folder(tmp_path):
    from engine.measure.ranks import measure_path

    _small(tmp_path / "here.json")  # what the current folder holds must not be measured
    for path in ("", "  "):
        with pytest.raises(InputError, match=r"^trace: no file"):
            measure_path(path)
        with pytest.raises(InputError, match=r"^trace: no file named"):
            measure_trace(path)
    out = subprocess.run([sys.executable, "-m", "engine", "trace", ""], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and out.stderr.startswith("error: PATH: no file or folder named"), out.stderr


def test_products_of_operands_beyond_2_63_elements_are_not_counted(tmp_path):
    """2⁴⁰ × 2⁴⁰ matrices: each size is a whole number under 2⁶², but no tensor holds 2⁸⁰ elements — not counted
    (said), where it gave 2.7e36 FLOP and an HFU of 10²⁵."""
    b = TraceBuilder()
    b.op("aten::mm", 10, ((2**40, 2**40), (2**40, 2**40)), ("c10::BFloat16", "c10::BFloat16"))
    b.launch("gemm_kernel", 5.0)
    b.cpu += 10
    b.op("aten::mm", 10, ((64, 32), (32, 16)), ("c10::BFloat16", "c10::BFloat16"))
    b.launch("gemm_kernel", 5.0)
    m = measure_trace(b.write(tmp_path / "vast.json"))
    assert sorted((r.flop_per_call or 0) for r in m.ops) == [0, 2 * 64 * 32 * 16]
    assert any(n.startswith("aten::mm: FLOP not counted (a tensor of 1.21e+24 elements)") for n in m.notes), m.notes
    assert m.hfu is not None and m.hfu < 1


def test_an_hfu_above_100_percent_is_said(tmp_path):
    """Shapes that claim more FLOP than the chip's dense peak allows in the measured time: said, not shown as if
    measured. 2·M·N·K = 2·8192³ ≈ 1.1e12 FLOP in a 5 µs kernel on an H100 (989 TFLOP/s dense BF16): HFU ~ 2e4 %."""
    b = TraceBuilder()
    b.op("aten::mm", 10, ((8192, 8192), (8192, 8192)), ("c10::BFloat16", "c10::BFloat16"))
    b.launch("gemm_kernel", 5.0)
    b.step_marks(1, b.cpu - 20, b.cpu + 5, b.gpu - 6, b.gpu + 1)
    m = measure_trace(b.write(tmp_path / "fast.json"))
    assert m.hfu > 1
    assert any(n.startswith(f"HFU {100 * m.hfu:,.4g}% is above 100%") for n in m.notes), m.notes


def test_whole_trace_figures_below_nothing_are_said(tmp_path):
    """Kernels of zero duration (Kineto writes them): HTA's whole-trace split, which ours equals, rounds each event
    inward to whole µs — a kernel at 10.5 µs lasting 0 counts from 11 to 10, −1 µs — so compute can fall below 0 and
    idle exceed the span. Said, with the figures."""
    b = TraceBuilder()
    for _ in range(3):
        b.op("aten::mm", 10, ((64, 32), (32, 16)), ("float", "float"))
        b.launch("gemm_kernel", 0.0)
        b.gpu += 0.5
    doc = b.document()
    for e in doc["traceEvents"]:
        if e["cat"] == "kernel":
            e["ts"] += 0.5
    path = tmp_path / "zero.json"
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    w = m.whole_trace
    assert w.compute_us == -3.0
    assert any(n.startswith(f"whole trace: compute -3 µs, non-compute {w.non_compute_us:,.0f} µs, idle ") for n in
               m.notes), m.notes


@pytest.mark.parametrize("kw, field, words", [
    ({"preset": "resnet50", "batch": "8"}, "--batch", "(got '8')"),
    ({"preset": "resnet50", "batch": 2.5}, "--batch", "(got '2.5')"),
    ({"preset": "resnet50", "batch": True}, "--batch", "a whole number from 1 to 10⁹"),
    ({"model_flop": 0}, "--model-flop", "above 0"),
    ({"model_flop": True}, "--model-flop", "above 0"),
    ({"model_flop": 1e-320}, "--model-flop", "at least 1"),
    ({"model_flop": 1e12, "preset": "resnet50", "batch": 8}, "--preset", "give one model"),
])
def test_the_api_refuses_a_model_it_cannot_use_by_name(kw, field, words):
    """A batch of the text '8', of 2.5 or True, a FLOP count of 0 or True: one line naming the argument (the text
    '8' raised a TypeError; 2.5 gave an MFU of 216%; 0 was dropped without a word; True counted as 1 FLOP)."""
    from engine.api import measure_trace as api_measure
    from engine.measure.example import EXAMPLE_TRACE

    with pytest.raises(InputError) as exc:
        api_measure(EXAMPLE_TRACE, **kw)
    assert exc.value.field == field and words in exc.value.reason, str(exc.value)


def test_a_file_opened_as_text_or_closed_is_one_line():
    import io

    from engine.measure.example import EXAMPLE_TRACE

    with pytest.raises(InputError, match=r"^trace: a file opened as text: open it in binary mode"):
        measure_trace(io.StringIO('{"traceEvents": []}'))
    closed = io.BytesIO(EXAMPLE_TRACE.read_bytes())
    closed.close()
    with pytest.raises(InputError, match=r"^trace: cannot be read \(I/O operation on closed file"):
        measure_trace(closed)
    with open(EXAMPLE_TRACE, "rb") as f:
        assert measure_trace(f).hfu == measure_trace(EXAMPLE_TRACE).hfu


def test_no_hfu_says_why_when_the_number_format_is_unknown(tmp_path):
    """A known chip, counted products, but an 'Input type' that names no number format: the peak cannot be chosen;
    HFU is absent with the reason (it was absent without a word)."""
    b = TraceBuilder()
    b.op("aten::mm", 10, ((64, 32), (32, 16)), ("<script>", "mystery"))
    b.launch("gemm_kernel", 5.0)
    m = measure_trace(b.write(tmp_path / "odd_types.json"))
    assert m.chip == "nvidia-h100-sxm" and m.hfu is None and m.ops[0].flop_per_call == 2 * 64 * 32 * 16
    assert any(n.startswith("no HFU or MFU: the operators' number format is not known from their recorded 'Input "
                            "type' ([<script>, mystery])") for n in m.notes), m.notes


def test_repeated_and_unreadable_step_numbers_are_said(tmp_path):
    path, b = _small(tmp_path / "again.json")
    doc = b.document()
    marks = [e for e in doc["traceEvents"] if e["name"] == "ProfilerStep#1"]
    doc["traceEvents"] += [{**e, "dur": e["dur"] / 2} for e in marks] * 2
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert [s.name for s in m.steps] == ["ProfilerStep#1"]
    assert any(n.startswith("step annotations repeat their numbers (ProfilerStep #1 3 times): the longest of each")
               for n in m.notes), m.notes
    for e in marks:
        e["name"] = "ProfilerStep#" + "9" * 20
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e["name"] != "ProfilerStep#1"]
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert [s.name for s in m.steps] == ["whole trace"]
    assert f"ProfilerStep#{'9' * 20}: not a step number (a whole number under 10¹⁹): the whole trace is measured as " \
           "one step" in m.notes, m.notes


def test_a_lone_surrogate_in_the_trace_is_a_replacement_character_everywhere(tmp_path):
    """``"\\ud800"`` (a surrogate with no pair: valid JSON text, no character) in the device's and a kernel's name:
    read as U+FFFD, so the JSON view, the Markdown report and its file are written — before, the report was
    ``internal: an unexpected UnicodeEncodeError`` and the file left empty."""
    path, b = _small(tmp_path / "t.json", device="NVIDIA H100 \ud800 80GB HBM3")
    b.launch("stray_\ud800_kernel", 5.0)
    b.write(path)
    assert b"\\ud800" in path.read_bytes()  # json.dumps writes the escape
    m = measure_trace(path)
    assert m.device == "NVIDIA H100 \ufffd 80GB HBM3" and m.chip == "nvidia-h100-sxm"
    names = {k for op in m.as_dict()["ops"] for k in op["kernels"]} | {k["name"] for k in m.as_dict()[
        "unattributed_kernels"]}
    assert "stray_\ufffd_kernel" in names, names
    report = tmp_path / "r.md"
    out = subprocess.run([sys.executable, "-m", "engine", "trace", str(path), "--report", str(report)],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert "NVIDIA H100 \ufffd 80GB HBM3" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize("where, reason", [(".", "Is a directory"), ("no-such-folder/r.md", "No such file")])
def test_a_report_that_cannot_be_written_is_one_line(tmp_path, where, reason):
    path, _ = _small(tmp_path / "t.json")
    out = subprocess.run([sys.executable, "-m", "engine", "trace", str(path), "--report", where], cwd=tmp_path,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and out.stderr.startswith(f"error: --report: cannot write '{where}' ({reason}")
    assert len(out.stderr.strip().splitlines()) == 1


def test_names_with_line_breaks_and_bidi_controls_stay_on_their_line_in_the_report(tmp_path):
    """An operator named ``aten::mm`` + newline (no dispatcher name: ``$`` matched before the final newline), a
    kernel with U+2028 and one with U+202E: the report's table rows stay rows, nothing reorders the line."""
    from engine.measure.report import measurement_markdown

    b = TraceBuilder()
    b.op("aten::mm\n| injected | row |", 10, ((64, 32), (32, 16)), ("float", "float"))
    b.launch("k\u2028line", 5.0)
    b.launch("k\u202egpj.exe", 5.0)
    b.step_marks(1, b.cpu - 20, b.cpu + 5, b.gpu - 11, b.gpu + 1)
    report = measurement_markdown(measure_trace(b.write(tmp_path / "t.json")))
    assert "\u2028" not in report and "\u202e" not in report and "\\u202e" in report
    assert not any(line.startswith("\\| injected") or line.startswith("| injected") for line in report.splitlines())


def _cli(path, fmt="text"):
    return subprocess.run([sys.executable, "-m", "engine", "trace", str(path), "--format", fmt], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("field,value", [("dur", 1e308), ("dur", 1e13), ("ts", 1e300)])
def test_an_absurd_time_is_left_out_not_measured(tmp_path, field, value):
    """A kernel of 10³⁰⁸ µs (or 10¹³ µs, 116 days), or one starting 10³⁰⁰ µs after the clock's origin, is no
    measurement: left out and said (it made the step 10³⁰⁸ µs long, the text report a traceback and ``plan --trace``
    say the step was 10³⁰² s). The rest of the trace is measured as without it."""
    path, b = _small(tmp_path / "absurd.json")
    doc = b.document()
    base = measure_trace(path)
    kernel = next(e for e in doc["traceEvents"] if e["cat"] == "kernel")
    doc["traceEvents"].append({**kernel, field: value})
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert LEFT_OUT.format(1) in m.notes
    assert [s.total_ms for s in m.steps] == [s.total_ms for s in base.steps]
    out = _cli(path)
    assert out.returncode == 0 and "Traceback" not in out.stderr and LEFT_OUT.format(1) in out.stdout, out.stderr


@pytest.mark.parametrize("value", [[1], {}, [[2]]])
def test_an_array_or_object_as_a_thread_id_is_read(tmp_path, value):
    """``pid`` or ``tid`` an array or an object on the operators (no id a profiler writes): the trace is still read
    and its operators counted — it stopped the reading with an internal TypeError (an unhashable key)."""
    path, b = _small(tmp_path / "pid.json")
    doc = b.document()
    for e in doc["traceEvents"]:
        if e.get("cat") == "cpu_op":
            e["pid"], e["tid"] = value, value
    path.write_text(json.dumps(doc))
    m = measure_trace(path)
    assert m.ops[0].flop_per_call == 2 * 64 * 32 * 16 and m.ops[0].calls == 1
    out = _cli(path, "json")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


@pytest.mark.parametrize("whole", [True, False])
def test_an_integer_past_pythons_4300_digits_is_infinite(tmp_path, whole, monkeypatch):
    """A 5,000-digit integer literal as a duration (Python refuses to read integers of more than 4,300 digits:
    a ValueError stopped the reading as an internal error): read as infinite, so left out and said; as a
    shape's size, a shape no tensor has. Both readers (a file read whole, and streamed in chunks)."""
    from engine.measure import trace_fast

    if not whole:
        monkeypatch.setattr(trace_fast, "WHOLE_BYTES", 0)
    path, b = _small(tmp_path / "digits.json")
    text = json.dumps(b.document())
    kernel = next(e for e in b.document()["traceEvents"] if e["cat"] == "kernel")
    extra = json.dumps({**kernel, "dur": 0}).replace('"dur": 0', '"dur": ' + "9" * 5000)
    op = next(e for e in b.document()["traceEvents"] if e["cat"] == "cpu_op")
    shaped = json.dumps({**op, "ts": op["ts"] + 1, "args": {**op["args"], "Input Dims": [[1, 2], [2, 1]]}}) \
        .replace("[[1, 2], [2, 1]]", "[[1, " + "9" * 5000 + "], [2, 1]]")
    path.write_text(text.replace('"traceEvents": [', '"traceEvents": [' + extra + ", " + shaped + ", ", 1))
    m = measure_trace(path)
    assert LEFT_OUT.format(1) in m.notes
    assert any(r.flop_per_call == 2 * 64 * 32 * 16 for r in m.ops)
    out = _cli(path)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def _padded(path, spaces: int, where: str) -> None:
    """A two-kernel trace with ``spaces`` blanks (JSON whitespace) before the events, after the first, or inside it."""
    event = json.dumps({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.0, "dur": 2.0,
                        "args": {"stream": 7, "correlation": 1}}).encode()
    pad = b" \n\t\r" * (spaces // 4)
    text = {"before": b'{"traceEvents": ' + pad + b"[" + event + b", " + event + b"]}",
            "between": b'{"traceEvents": [' + event + pad + b", " + event + b"]}",
            "inside": b'{"traceEvents": [' + event[:-1] + pad + b"}, " + event + b"]}"}[where]
    path.write_bytes(gzip.compress(text, compresslevel=1))


@pytest.mark.parametrize("where", ["before", "between"])
def test_a_trace_padded_with_blanks_reads_in_bounded_time(tmp_path, where):
    """32 Mi blanks before the events or after one (a gzip of ~100 KB): read as the two events they hold in under
    1.5 CPU seconds. Blanks were skipped a character at a time (14 MB/s: a 4 GB gzip bomb of spaces took 305 s), and
    blanks after an event up to a block's end made the reader read the event again with one more block each time
    (3 × 100 MB of them: 220 s and 243 MB)."""
    import time

    path = tmp_path / "padded.json.gz"
    _padded(path, 32 << 20, where)
    start = time.process_time()
    m = measure_trace(path)
    assert time.process_time() - start < 1.5
    assert m.events == 2 and m.whole_trace.compute_us == 2.0


def test_an_event_over_the_bound_is_refused(tmp_path, monkeypatch):
    """An event over the bound on one value (blanks inside it) is one line, not a buffer that grows with it (the
    bound lowered to 4 Mi characters here; an event of 6 Mi was read whole)."""
    from engine.measure import trace_stream

    monkeypatch.setattr(trace_stream, "MAX_VALUE_CHARS", 4 << 20)
    path = tmp_path / "big_event.json.gz"
    _padded(path, 6 << 20, "inside")
    assert "one value is over 4 Mi characters" in _error(path)


@pytest.mark.parametrize("path, reason", [("y" * 300, "cannot be read (File name too long)"),
                                          ("y" * 5000, "not a file name"), ("a\x00b", "not a file name")])
def test_a_path_no_file_system_takes_is_one_line(path, reason):
    """A name over 255 bytes, over 4,096 characters or holding a NUL raised OSError / ValueError from os.stat (the
    API) or 'an unexpected OSError' (the CLI)."""
    from engine.api import measure_trace as api_measure

    with pytest.raises(InputError) as exc:
        api_measure(path)
    assert exc.value.field == "trace" and reason in exc.value.reason
    if "\x00" not in path:
        out = subprocess.run([sys.executable, "-m", "engine", "trace", path], capture_output=True, text=True,
                             cwd=ROOT)
        assert out.returncode == 2 and out.stderr.strip() == f"error: PATH: {exc.value.reason}"


@pytest.mark.parametrize("kw", [{"preset": 0}, {"config": {}}, {"scenario": 0}, {"chip": 5}])
def test_a_model_argument_of_the_wrong_type_is_named(kw):
    """A preset of 0, a config of {} or a scenario of 0 raised a TypeError (a chip of 5 was refused already)."""
    from engine.api import measure_trace as api_measure
    from engine.measure.example import EXAMPLE_TRACE

    with pytest.raises(InputError) as exc:
        api_measure(EXAMPLE_TRACE, **kw)
    assert exc.value.field == next(iter(kw))
