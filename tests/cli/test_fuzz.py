"""CLI fuzz: every command, over hypothesis-generated files and arguments, exits 0 with finite,
non-negative results, or 2 with exactly one line ``error: field: reason`` — never a traceback,
never 1, never a ``null`` where a figure belongs.

Calls ``engine.cli.main(argv)`` in-process (``tests.cli.cli``). CI replays a fixed seed
(FLOPSCOPE_HYPOTHESIS=ci, see tests/conftest.py); a local run keeps exploring.
"""
from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.presets import presets
from engine.share_link import scenario_json
from tests.cli import cli

FUZZ = settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", 60)), deadline=None, suppress_health_check=[HealthCheck.too_slow])

FIGURES = {"training_flop", "pfs_days", "params", "macs", "forward_flop", "chip_hours", "wall_clock_hours",
           "peak_flop_per_s", "cost_usd", "energy_kwh", "co2_kg", "n", "rows", "skipped", "utilization",
           "training_flop_low", "training_flop_high", "examples", "passes", "tokens", "growth_per_year",
           "r_squared", "non_embedding_params"}
"""Result keys that are amounts: each must be a finite number ≥ 0 (``null`` only where optional)."""
REQUIRED = {"hardware": ("training_flop", "pfs_days", "chip_hours"), "flops": ("forward_flop", "params"),
            "trend": ("n", "doubling_months"), "transformer": ("training_flop",)}

# numbers as a user (or a hostile script) types them
NUMBER_TEXT = st.one_of(
    st.sampled_from(["0", "-0", "-1", "1", "0.5", "1e308", "1e309", "-1e308", "nan", "NaN", "inf", "-inf",
                     "1e-320", "5e-324", "9" * 400, "1_000", "1,000", "0x10", "", " ", "1e16", "2020",
                     "3.4e38", "1.7976931348623157e308", "١٢", "½"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-10**30, max_value=10**30).map(str),
    st.text(max_size=12),
)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10**60, max_value=10**60),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)), max_leaves=12)


def check(out, command: str) -> None:
    """Exit 0 with finite non-negative figures, or 2 with one line; nothing else."""
    assert out.returncode in (0, 2), (out.returncode, out.stderr[-2000:])
    if out.returncode == 2:
        lines = out.stderr.strip().splitlines()
        assert out.stdout == "" and len(lines) == 1 and lines[0].startswith("error: "), out.stderr[-2000:]
        assert "Traceback" not in out.stderr and "pydantic" not in out.stderr
        field, sep, reason = lines[0].removeprefix("error: ").partition(": ")
        assert sep and field and reason, lines[0]
        return
    assert out.stderr == ""
    result = json.loads(out.stdout)

    def walk(node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            assert math.isfinite(node), (key, node)
            if key in FIGURES:
                assert node >= 0, (key, node)

    walk(result)
    if isinstance(result, dict):
        for key in REQUIRED.get(command, ()):
            assert key in result, key
            if key != "doubling_months":
                assert isinstance(result[key], (int, float)) and math.isfinite(result[key]), (key, result[key])


def _file(directory: str, name: str, content: str | bytes) -> str:
    path = Path(directory) / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    return str(path)


# --------------------------------------------------------------------------- flops FILE

SCENARIOS = [json.loads(scenario_json(p.scenario)) for p in presets().values()]


@st.composite
def mutated_scenario(draw) -> str:
    """A preset's scenario with one value somewhere replaced by a generated one."""
    data = json.loads(json.dumps(draw(st.sampled_from(SCENARIOS))))
    node, path = data, []
    for _ in range(draw(st.integers(1, 4))):
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            key = draw(st.integers(0, len(node) - 1))
        else:
            break
        path.append((node, key))
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = draw(JSON_VALUES)
    return json.dumps(data, allow_nan=True)


FLOPS_FILES = st.one_of(mutated_scenario(), JSON_VALUES.map(lambda v: json.dumps(v, allow_nan=True)),
                        st.binary(max_size=200), st.text(max_size=200))


@FUZZ
@given(content=FLOPS_FILES, convention=st.sampled_from([None, "matmul", "full", "fancy"]))
def test_flops_over_generated_files(content, convention):
    with tempfile.TemporaryDirectory() as directory:
        args = ["flops", _file(directory, "s.json", content)]
        if convention:
            args += ["--convention", convention]
        check(cli(*args), "flops")


# --------------------------------------------------------------------------- hardware / chips

HARDWARE_FLAGS = {
    "--chip": st.one_of(st.sampled_from(["a100", "H100", "nvidia-tesla-v100-sxm2", "tpu-v4", "nope", ""]),
                        st.text(max_size=15)),
    "--peak": NUMBER_TEXT, "--year": NUMBER_TEXT, "--count": NUMBER_TEXT, "--days": NUMBER_TEXT,
    "--hours": NUMBER_TEXT, "--chip-hours": NUMBER_TEXT, "--gpu-days": NUMBER_TEXT,
    "--utilization": st.one_of(NUMBER_TEXT, st.sampled_from(["openai-gpu", "epoch-llm", "OPENAI-CPU", "x"])),
    "--utilization-low": NUMBER_TEXT, "--utilization-high": NUMBER_TEXT,
    "--precision": st.sampled_from(["fp32", "bf16", "fp8", "int8", "FP16", "tf32", "fp4", ""]),
    "--mixed": st.one_of(st.sampled_from(["bf16=0.9,fp32=0.1", "bf16=1", "bf16=0.5", "x", "=,=", "bf16=nan"]),
                         st.text(max_size=20)),
    "--split-basis": st.sampled_from(["work", "time", "other"]),
    "--price": NUMBER_TEXT, "--tdp": NUMBER_TEXT, "--pue": NUMBER_TEXT, "--grid": NUMBER_TEXT,
}
SWITCHES = ["--no-tensor-cores", "--allow-fallback"]


@st.composite
def hardware_args(draw) -> list[str]:
    args = ["hardware"]
    # mostly well-formed (one source, one time, a utilization), with any values; sometimes anything goes
    if draw(st.booleans()):
        flags = [draw(st.sampled_from(["--chip", "--peak", "--year"])),
                 draw(st.sampled_from(["--days", "--hours", "--chip-hours", "--gpu-days"])), "--utilization"]
        flags += draw(st.lists(st.sampled_from(sorted(HARDWARE_FLAGS)), max_size=4))
    else:
        flags = draw(st.lists(st.sampled_from(sorted(HARDWARE_FLAGS)), max_size=6))
    for flag in flags:
        args += [flag, draw(HARDWARE_FLAGS[flag])]
    args += draw(st.lists(st.sampled_from(SWITCHES), max_size=2, unique=True))
    return args


@FUZZ
@given(args=hardware_args())
def test_hardware_over_generated_arguments(args):
    check(cli(*args), "hardware")


@FUZZ
@given(vendor=st.one_of(st.none(), st.text(max_size=10)), year=st.one_of(st.none(), NUMBER_TEXT))
def test_chips_over_generated_filters(vendor, year):
    args = ["chips"] + (["--vendor", vendor] if vendor is not None else []) + (["--year", year] if year else [])
    check(cli(*args), "chips")


# --------------------------------------------------------------------------- trend

DATES = st.one_of(st.sampled_from(["2020-01-01", "2012-06", "2015", "1957-07-15", "2031-01-01", "1899-12-31",
                                   "", "n/a", "2020-13-01", "2020-02-30", "0000-01-01", "9999-12-31"]),
                  st.dates().map(str), st.text(max_size=10))
FLOPS = st.one_of(st.sampled_from(["1e20", "3.14e+23", "314,000,000", "0", "-1", "nan", "inf", "1e309", "",
                                   "1e-300", "9" * 500]), NUMBER_TEXT)


@st.composite
def epoch_csv(draw) -> str:
    header = draw(st.sampled_from(["Model,Publication date,Training compute (FLOP),Domain",
                                   "System,Publication date,Training compute (FLOP)",
                                   "Model;Publication date;Training compute (FLOP)", "a,b,c", ""]))
    sep = ";" if ";" in header else ","
    rows = draw(st.lists(st.tuples(st.text(max_size=8), DATES, FLOPS,
                                   st.sampled_from(["Language", "Vision", "Games", "", "Language,Vision"])),
                         max_size=12))
    lines = [header] + [sep.join(f'"{c}"' if sep in c or '"' in c else c for c in row[:header.count(sep) + 1])
                        for row in rows]
    text = "\n".join(lines)
    if draw(st.booleans()):
        text += draw(st.sampled_from(['\n"unbalanced,2020-01-01,1e20', "\n\x00\x01", "\n,,,", "\n" * 3]))
    return text


@FUZZ
@given(csv_text=st.one_of(st.none(), epoch_csv()),
       years=st.tuples(st.one_of(st.none(), NUMBER_TEXT), st.one_of(st.none(), NUMBER_TEXT)),
       domain=st.one_of(st.none(), st.sampled_from(["Language", "Vision", "nothing", ""]), st.text(max_size=8)),
       frontier=st.sampled_from([[], ["--frontier"], ["--top-k", "3"], ["--top-k", "0"], ["--top-k", "1e20"]]),
       window=st.one_of(st.none(), st.sampled_from(["openai-2012-2018", "deep-learning", "large-scale", "nope"])))
def test_trend_over_generated_csvs_and_arguments(csv_text, years, domain, frontier, window):
    with tempfile.TemporaryDirectory() as directory:
        args = ["trend"]
        if csv_text is not None:
            args += ["--csv", _file(directory, "runs.csv", csv_text)]
        for flag, value in zip(("--from", "--to"), years):
            if value is not None:
                args += [flag, value]
        if domain is not None:
            args += ["--domain", domain]
        if window is not None:
            args += ["--window", window]
        check(cli(*args, *frontier), "trend")


# --------------------------------------------------------------------------- transformer

GPT2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024}
LLAMA = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
         "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
         "max_position_embeddings": 4096}


@st.composite
def hf_config(draw) -> str:
    config = dict(draw(st.sampled_from([GPT2, LLAMA])))
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.one_of(st.sampled_from(sorted(config)), st.text(max_size=10)))
        config[key] = draw(JSON_VALUES)
    return json.dumps(config, allow_nan=True)


@FUZZ
@given(config=st.one_of(hf_config(), JSON_VALUES.map(json.dumps), st.text(max_size=50)),
       tokens=st.one_of(st.sampled_from(["300e9", "1.4T", "300B", "0", "-1", "1e40", "nan", "15,600,000"]),
                        NUMBER_TEXT),
       seq=st.one_of(st.none(), NUMBER_TEXT),
       extra=st.lists(st.sampled_from(["--layers", "--convention", "full", "--causal-count", "half"]), max_size=3))
def test_transformer_over_generated_configs(config, tokens, seq, extra):
    with tempfile.TemporaryDirectory() as directory:
        args = ["transformer", "--config", _file(directory, "config.json", config), "--tokens", tokens]
        if seq is not None:
            args += ["--seq-len", seq]
        check(cli(*args, *extra), "transformer")


def test_the_issue_cases_exit_2_with_one_line(tmp_path):
    """The reproduced crashes: a 4,301-digit integer in a file, a header-only CSV, a one-year window of
    1e16, and the largest float as time — each named in one line, exit 2."""
    huge = tmp_path / "huge.json"
    huge.write_text('{"input": {"shape": [' + "9" * 4301 + "]}}")
    header = tmp_path / "header_only.csv"
    header.write_text("Model,Publication date,Training compute (FLOP)\n")
    unhashable = tmp_path / "unhashable.json"  # found by this fuzz: a list as a layer's type was a TypeError
    unhashable.write_text('{"input": {"shape": [4]}, "layers": [{"type": []}]}')
    cases = [
        (("flops", str(huge)), "digits"),
        (("flops", str(unhashable)), "layers[0].type: unknown type"),
        (("transformer", "--config", str(huge), "--tokens", "1e9"), "digits"),
        (("trend", "--csv", str(header), "--domain", "Language"), "0 point"),
        (("trend", "--from", "10000000000000000", "--to", "10000000000000000"), "--from"),
        (("hardware", "--chip", "a100", "--count", "8", "--hours", "1e308", "--utilization", "0.5"), "duration"),
    ]
    for args, needle in cases:
        out = cli(*args)
        check(out, args[0])
        assert out.returncode == 2 and needle in out.stderr, (args, out.stderr)


# --------------------------------------------------------------------------- flops --onnx (hostile graphs)

@st.composite
def hostile_onnx(draw) -> bytes:
    """A small graph with one or more hostile constructs drawn: a tensor stored "outside" in any place a tensor can
    sit (tests/importers/external_graphs.py), sizes past a float (axes of up to 2⁶², up to 60 of them), many symbolic
    dimensions, a sparse initializer (valid or not), duplicated names, a long chain of nodes, nested Ifs, and the
    bytes cut short or one byte flipped."""
    from onnx import TensorProto, helper

    from tests.importers import external_graphs as ext
    from tests.importers import heavy_graphs

    kind = draw(st.sampled_from(["external", "sizes", "symbolic", "sparse", "duplicate", "chain", "nested"]))
    if kind == "external":
        place = draw(st.sampled_from(sorted(ext.PLACES)))
        location, where = ext.LOCATIONS[draw(st.sampled_from(sorted(ext.LOCATIONS)))]
        data = ext.PLACES[place](location, **where).SerializeToString()
    elif kind == "chain":
        data = heavy_graphs.relu_chain(draw(st.integers(1, 3000)))
    elif kind == "nested":
        data = heavy_graphs.nested_subgraphs(draw(st.integers(1, 32)))
    else:
        dim = st.sampled_from([1, 3, 10**9, 2**31, 2**62, 0])
        rank = draw(st.integers(1, 60))
        shape = [draw(dim) for _ in range(rank)] if kind == "sizes" else (
            [f"d{i}" for i in range(draw(st.integers(1, 200)))] if kind == "symbolic" else ["batch", 4])
        nodes = [helper.make_node("Relu", ["x"], ["y"], name="/r/Relu")]
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)]
        inits, sparse = [], []
        if kind == "sizes":
            inits.append(TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[draw(dim) for _ in range(rank)]))
            nodes.append(helper.make_node("Add", ["y", "w"], ["z"], name="/a/Add"))
        elif kind == "sparse":
            nnz, k = draw(st.integers(0, 5)), draw(st.integers(0, 5))
            values = TensorProto(name="s", data_type=TensorProto.INT64, dims=[nnz], int64_data=list(range(nnz)))
            indices = TensorProto(name="s_i", data_type=TensorProto.INT64, dims=[k],
                                  int64_data=[draw(st.integers(-3, 9)) for _ in range(k)])
            sparse.append(helper.make_sparse_tensor(values, indices, [draw(st.integers(0, 6))]))
            nodes.append(helper.make_node("Reshape", ["y", "s"], ["z"], name="/s/Reshape"))
        elif kind == "duplicate":
            which = draw(st.sampled_from(["input", "initializer", "output"]))
            if which == "input":
                inputs.append(inputs[0])
            elif which == "initializer":
                inits += [helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0] * 4)] * 2
            else:
                nodes.append(helper.make_node("Sigmoid", ["x"], ["y"], name="/again/Sigmoid"))
        graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  initializer=inits, sparse_initializer=sparse)
        data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]).SerializeToString()
    damage = draw(st.sampled_from(["none", "none", "cut", "flip"]))
    if damage == "cut":
        data = data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    elif damage == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    return data


@FUZZ
@given(data=hostile_onnx(), size=st.sampled_from(["1", "3", "1000000000"]))
def test_flops_onnx_over_hostile_graphs(data, size):
    """Exit 0 with finite figures, or 2 with one line (never a traceback, an OverflowError or a file read)."""
    from engine.errors import InputError
    from engine.importers.onnx_graph import dynamic_dims, read_onnx

    try:
        names = [d.name for d in dynamic_dims(read_onnx(data))]
    except InputError:
        names = []
    with tempfile.TemporaryDirectory() as directory:
        dims = [f"--dim={name}={size}" for name in names]
        check(cli("flops", "--onnx", _file(directory, "m.onnx", data), *dims, "--format", "json"), "flops")
