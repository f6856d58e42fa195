"""``--format text|json``: text (aligned tables, units, the formula line) on a terminal, JSON in a pipe
or with ``--format json``; ``flops --help`` explains ``--convention``. Figures worked out here."""
from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import subprocess
import sys

from tests.cli import cli, write
from tests.conftest import ROOT
from tests.reference import EPOCH_EXAMPLE, EPOCH_EXAMPLE_PARAMS, EPOCH_EXAMPLE_TRAINING

H100_BF16 = 989.4e12  # NVIDIA H100 SXM datasheet: 1,979 TFLOP/s with sparsity → 989.4 dense


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def on_terminal(*args: str) -> str:
    """``main(args)`` with stdout a terminal (no --format): what a user at a shell sees."""
    from engine.cli import main

    out = _Terminal()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def test_flops_on_a_terminal_is_a_table_with_units_and_the_formula(tmp_path):
    text = on_terminal("flops", write(tmp_path, EPOCH_EXAMPLE))
    assert not text.lstrip().startswith("{")
    lines = text.splitlines()
    header = lines[0].split()
    assert header[:3] == ["#", "layer", "name"] and "params" in header
    lstm = next(line for line in lines if " lstm " in f" {line} ")
    assert f"{4 * (640_000 * 256 + 256 ** 2 + 2 * 256):,}" in lstm  # PyTorch's two bias vectors
    assert f"{EPOCH_EXAMPLE_PARAMS:,}" in text
    assert f"{EPOCH_EXAMPLE_TRAINING:.2e}".replace("e+", "e") + " FLOP" in text
    assert f"{EPOCH_EXAMPLE_TRAINING / 8.64e19:.2e}".replace("e-0", "e-") + " PF-days" in text  # 1.31e-4
    formula = next(line for line in lines if line.startswith("formula"))
    assert "C = F × (1 + r) × examples × epochs" in formula and "128k" in formula  # 100 × 128 × 10


def test_pipes_get_json_and_format_forces_either(tmp_path):
    path = write(tmp_path, EPOCH_EXAMPLE)
    assert json.loads(cli("flops", path).stdout)["training_flop"] == EPOCH_EXAMPLE_TRAINING  # StringIO: no TTY
    assert json.loads(cli("flops", path, "--format", "json").stdout)["training_flop"] == EPOCH_EXAMPLE_TRAINING
    text = cli("flops", path, "--format", "text").stdout
    assert "training compute" in text and not text.startswith("{")


def test_hardware_text_scales_chip_hours_energy_and_co2():
    text = on_terminal("hardware", "--chip", "H100", "--count", "1024", "--days", "30", "--utilization", "0.4",
                       "--precision", "bf16", "--tdp", "700", "--pue", "1.1", "--grid", "0.48")
    chip_hours = 1024 * 30 * 24                      # 737,280
    kwh = chip_hours * 0.7 * 1.1                    # 567,706 kWh
    flop = chip_hours * 3600 * H100_BF16 * 0.4
    assert f"{round(chip_hours / 1e3)}k chip-hours" in text
    assert f"{round(kwh / 1e3)} MWh" in text
    assert f"{round(kwh * 0.48 / 1e3)} t CO₂" in text
    assert f"{flop:.2e}".replace("e+", "e") + " FLOP" in text
    assert "e+" not in text and "pfs-days" not in text and "PF-days" in text
    one = on_terminal("hardware", "--chip", "H100", "--count", "1", "--days", "1", "--utilization", "0.4",
                      "--precision", "bf16")
    assert "1 chip × 1 day " in one and "1 chips" not in one and "1 days" not in one


def test_chips_and_schema_text_are_tables_not_pages_of_json():
    from engine.method2.hardware_db import load_hardware_db

    chips = on_terminal("chips")
    ids = [c.id for c in load_hardware_db().chips]
    rows = chips.splitlines()[2:2 + len(ids)]
    assert [r.split()[0] for r in rows] == ids
    assert "H100" in chips and "989.4" in chips  # H100 SXM BF16 tensor, dense
    schema = on_terminal("schema")
    assert not schema.startswith("{")
    # a table: one line per field of each model (title, header, rule and a blank line around each), not JSON
    # pretty-printed (that is ~10 lines a field); the field count comes from the JSON Schema itself
    full = json.loads(on_terminal("schema", "--format", "json"))
    models = [full] + [d for d in full.get("$defs", {}).values() if "properties" in d]
    fields = sum(len(m["properties"]) for m in models)
    assert len(schema.splitlines()) <= fields + 4 * len(models) + 3, (len(schema.splitlines()), fields, len(models))
    assert any(line.split()[:1] == ["training"] for line in schema.splitlines())


def test_trend_text_has_the_doubling_and_its_formula():
    text = on_terminal("trend", "--window", "openai-2012-2018")
    assert "doubling" in text and "months" in text and "12 × log10(2) / b" in text


def test_flops_help_explains_the_conventions():
    out = cli("flops", "--help").stdout
    section = out[out.index("--convention:"):]
    assert "matmul" in section and "full" in section
    assert "1 MAC = 2 FLOP" in section and "FlopCounterMode" in section
    assert "bias" in section and "softmax" in section
    assert "--format" in out


def test_a_real_terminal_gets_text(tmp_path):
    """The real process decides by isatty: a pseudo-terminal gets the table, a pipe gets JSON."""
    path = write(tmp_path, EPOCH_EXAMPLE)
    leader, follower = pty.openpty()
    proc = subprocess.run([sys.executable, "-m", "engine", "flops", path], stdout=follower,
                          stderr=subprocess.PIPE, cwd=ROOT, timeout=120)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    text = b"".join(chunks).decode()
    assert proc.returncode == 0, proc.stderr
    assert "training compute" in text and not text.lstrip().startswith("{")


def test_the_library_list_on_a_terminal_is_a_table_of_every_model():
    """``transformer --list-models`` as a table (it raised KeyError: the renderer expected one model's
    estimate); one row per model of the JSON list, tokens with a suffix (BERT: 128e9 → 128B)."""
    from engine.cli import main

    listed = io.StringIO()
    with contextlib.redirect_stdout(listed):
        assert main(["transformer", "--list-models", "--format", "json"]) == 0
    models = json.loads(listed.getvalue())["models"]
    lines = on_terminal("transformer", "--list-models").splitlines()
    assert lines[0].split()[:2] == ["id", "model"] and len(lines) == 2 + len(models)
    rows = {line.split()[0]: line for line in lines[2:]}
    assert list(rows) == [m["id"] for m in models]
    assert rows["bert-base-uncased"].rstrip().endswith("128B")


def test_every_command_has_a_text_renderer():
    from engine.cli import COMMANDS
    from engine.cli.text import TEXT

    assert set(COMMANDS) <= set(TEXT), set(COMMANDS) - set(TEXT)


def test_plan_and_memory_on_a_terminal_read_as_the_json_says():
    args = ("plan", "--model", "llama-3.1-8b", "--chip", "H100", "--dp", "8", "--global-batch", "64",
            "--seq-len", "8192", "--tokens", "1e12")
    text = on_terminal(*args)
    data = json.loads(cli(*args, "--format", "json").stdout)
    assert not text.lstrip().startswith("{")
    step = data["step"]
    low, high = data["interval"]["step_s"]
    from engine.units import format_number
    assert (f"step time         {step['step_s']:.4g} s (kernel model; 90% range {format_number(low)}–"
            f"{format_number(high)} s)") in text
    assert f"MFU / HFU         {100 * step['mfu']:.1f}% / {100 * step['hfu']:.1f}%" in text
    gb = data["total_bytes_per_chip"] / 1e9
    assert f"{gb:,.1f} GB of 80.0 GB: does not fit" in text  # 8.03B × 16 B + activations > 80 GB
    compute = next(line for line in text.splitlines() if line.startswith("compute "))
    assert f"{100 * step['compute_s'] / step['step_s']:.1f}%" in compute
    assert any(line.startswith("This run is") and "RAISE Act" in line for line in text.splitlines())
    sweep = on_terminal("plan", "--model", "llama-3.1-8b", "--chip", "H100", "--sweep", "64", "--global-batch",
                        "512", "--seq-len", "8192", "--top", "3")
    assert sweep.splitlines()[0].endswith("layouts of 64 chips, best first:") and "d×t×p" in sweep
    memory = on_terminal("memory", "--model", "llama-3.1-8b", "--chip", "H100", "--dp", "8", "--seq-len", "8192")
    data = json.loads(cli("memory", "--model", "llama-3.1-8b", "--chip", "H100", "--dp", "8", "--seq-len", "8192",
                          "--format", "json").stdout)["fewest_chips"]
    assert f"fewest chips         {data['chips']} (d {data['dp']} × t {data['tp']} × p {data['pp']})" in memory
    # with fused attention (no s × s scores kept) four pipeline stages hold Llama 3.1 8B at 8,192 positions
    assert (data["chips"], data["pp"]) == (4, 4)


def test_optimal_priors_and_reconcile_on_a_terminal():
    text = on_terminal("optimal", "--flop", "1e24")
    # 20 tokens per parameter: C = 6 N D = 120 N² → N = √(10^24 / 120) = 91.3B, D = 1.83T
    assert "parameters N          91.3B" in text and "tokens D              1.83T" in text
    assert "formula               C = 6 N D" in text
    priors = on_terminal("priors")
    assert "utilization_reports.csv: 17 reports" in priors and "median" in priors.splitlines()[2]


def test_reconcile_text_escapes_control_characters_from_the_file(tmp_path):
    csv = tmp_path / "models.csv"
    csv.write_text("Model,Publication date,Training compute (FLOP),Training hardware,Hardware quantity,"
                   "Training time (hours)\n"
                   "\"Evil\x1b[31mRED\",2024-01-01,1e23,NVIDIA H100 SXM5 80GB,1000,100\n", encoding="utf-8")
    text = on_terminal("reconcile", "--csv", str(csv))
    assert "\x1b" not in text and "Evil\\x1b[31mRED" in text
    # 1,000 H100s × 100 h × 989.4 TFLOP/s × 0.4 (Epoch's default for a model not marked as a language model)
    row = next(line for line in text.splitlines() if "Evil" in line)
    assert f"{1000 * 100 * 3600 * H100_BF16 * 0.4:.2e}".replace("e+", "e") in row and "compared" in row


def test_a_layer_name_cannot_retitle_the_terminal_or_forge_a_line(tmp_path):
    """A name holding an OSC title sequence, a bell and a CR LF once reached the terminal as is: the window
    retitled, and a 'FAKE LINE' printed on a row of its own. Now each is written as its escape."""
    name = "\x1b]0;pwned\x07 **b** \r\nFAKE LINE"
    spec = {"input": {"shape": [4]}, "layers": [{"type": "dense", "units": 2, "name": name}],
            "training": {"examples": 10, "epochs": 1}}
    text = on_terminal("flops", write(tmp_path, spec))
    assert not any(c in text for c in "\x1b\x07\r")
    assert not any(line.startswith("FAKE") for line in text.splitlines())
    row = next(line for line in text.splitlines() if "pwned" in line)
    assert "\\x1b]0;pwned\\x07 **b** \\r\\nFAKE LINE" in row
    assert f"{2 * 4 * 2:,}" in row.split("pwned")[1]  # the row's figures stay on it: 2·4·2 FLOP forward


def test_memory_without_a_chip_and_the_plans_step_parts_on_a_terminal(tmp_path):
    """``memory`` without ``--chip`` on a terminal (was a KeyError traceback: no chip, no 'fits'); ``plan``'s step
    table holds every part of the step, the kernel model's launches and overhead too (the shares summed to 86%)."""
    text = on_terminal("memory", "--model", "llama-3.1-8b")
    assert "memory per chip" in text and "fits" not in text
    gpt3 = write(tmp_path, {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 12288,
                           "n_layer": 96, "n_head": 96, "vocab_size": 51200, "n_positions": 2048}, "gpt3.json")
    text = on_terminal("plan", "--config", str(gpt3), "--tp", "8", "--pp", "8", "--dp", "12", "--micro-batch", "1",
                       "--global-batch", "1536", "--chip", "a100-sxm4-80gb", "--recompute", "full")
    table = text.split("step part")[1].split("step time")[0]
    assert "launches and other overhead" in table
    shares = [float(line.split()[-1].rstrip("%")) for line in table.splitlines() if line.strip().endswith("%")]
    assert abs(sum(shares) - 100) < 0.5, shares
