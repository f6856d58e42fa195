"""A corpus of crafted share links (``?s=`` tokens), by category, for the hostile-input suite.

Every case is built here from its recipe (JSON text or raw bytes → zlib → base64url), so the
corpus is reproducible without a stored file. ``expect`` says what the page must end in:
``"results"`` (the link opens: the scenario is valid and the page computes, or names the field)
or ``"notice"`` (the link is refused with a sentence, and the default example is shown).
Either way no page may show an exception element.
"""
from __future__ import annotations

import base64
import json
import random
import zlib
from dataclasses import dataclass

from engine.presets import presets
from engine.share_link import encode

INJECTIONS = (
    "![t](http://127.0.0.1:9/track.png)",
    "[Session expired - sign in again](https://login.evil.example/)",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<a href='https://login.evil.example/'>click</a>",
    "$\\href{https://login.evil.example/}{click}$",
    "$$\\unicode{x1F4A9}$$",
    ":red[**ALERT**] :material/warning:",
    "**bold** _it_ `code` ~~del~~",
    "# Heading\n\n---\n> quote",
    "=HYPERLINK(\"https://login.evil.example/\",\"x\")",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "<https://login.evil.example/>",
    "[x]: https://login.evil.example/ \n[x]",
    "&lt;b&gt;entity&lt;/b&gt; &#60;img&#62;",
    "javascript:alert(1)",
    "{{7*7}} ${7*7} %{customdata[0]}",
    "<b>bold</b><br><a href='https://login.evil.example/'>plotly link</a>",
)
"""Markdown/HTML/LaTeX/spreadsheet injection strings; links point at hosts that never answer."""

MARKER_HOSTS = ("evil.example", "127.0.0.1:9")

SEED = {"version": 1, "name": "probe", "input": {"shape": [400, 400, 5], "sequence_length": 20},
        "layers": [{"type": "conv2d", "filters": 16, "kernel_size": 5, "stride": 2, "padding": 2},
                   {"type": "flatten"},
                   {"type": "lstm", "units": 256},
                   {"type": "dense", "units": 10}],
        "training": {"epochs": 10, "batches_per_epoch": 100, "batch_size": 128}}
HW = {"chip": "nvidia-a100-sxm4-80gb", "chip_count": 8, "duration": 1.0, "duration_unit": "days",
      "utilization": 0.4, "precision": "bf16"}


@dataclass(frozen=True)
class Case:
    category: str
    id: str
    token: str
    expect: str  # "results" | "notice" | "either"
    injection: bool = False

    def __repr__(self) -> str:  # keeps pytest ids and failure lines short
        return f"{self.category}:{self.id}"


def pack(raw: bytes, version: str = "1") -> str:
    return f"{version}." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def pack_json(obj) -> str:
    return pack(json.dumps(obj, ensure_ascii=False, allow_nan=True, separators=(",", ":")).encode("utf-8"))


def pack_text(text: str) -> str:
    return pack(text.encode("utf-8", "surrogatepass"))


def _with(path: str, value, base: dict | None = None) -> dict:
    """A copy of ``base`` (the seed scenario + the default hardware run) with ``path`` set."""
    data = json.loads(json.dumps(base or {**SEED, "hardware": HW}))
    keys = path.split(".")
    node = data
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


def _random(rng: random.Random) -> list[Case]:
    cases = []
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i in range(12):
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 400)))
        cases.append(Case("random", f"b64-{i}", "1." + body, "notice"))
    for i in range(6):
        raw = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))
        cases.append(Case("random", f"zlib-of-bytes-{i}", pack(raw), "notice"))
    for i, text in enumerate(["%00%ff", "1.%%%", "1.====", "1. ", "1.\u00e9\u00e8", "1.\ud7ff", "1.+/+/",
                              "1.AAAA" * 500]):
        cases.append(Case("random", f"text-{i}", text, "notice"))
    return cases


def _truncated() -> list[Case]:
    cases = []
    for name in ("epoch-cnn-lstm", "gpt3-175b", "vgg16"):
        token = encode(presets()[name].scenario)
        for frac in (0.1, 0.3, 0.5, 0.7, 0.9, 0.97):
            cut = max(3, int(len(token) * frac))
            cases.append(Case("truncated", f"{name}-{frac}", token[:cut], "notice"))
        cases.append(Case("truncated", f"{name}-minus-1", token[:-1], "either"))
        cases.append(Case("truncated", f"{name}-minus-5", token[:-5], "notice"))
    text = json.dumps(SEED)
    for cut in (1, 10, 50, len(text) - 1):
        cases.append(Case("truncated", f"json-{cut}", pack_text(text[:cut]), "notice"))
    return cases


def _wrong_version() -> list[Case]:
    body = pack_json(SEED).partition(".")[2]
    return [Case("wrong_version", "no-dot" if v is None else (v or "empty"), f"{v}.{body}" if v is not None else body, "notice")
            for v in ("0", "3", "99", "v1", "", "1.1", "-1", "01", "１", "1 ", None)] + [
        Case("wrong_version", "json-version-3", pack_json({**SEED, "version": 3}), "notice"),
        Case("wrong_version", "json-version-string", pack_json({**SEED, "version": "1"}), "notice"),
    ]


def _zlib() -> list[Case]:
    good = zlib.compress(json.dumps(SEED).encode(), 9)
    b64 = lambda raw: "1." + base64.urlsafe_b64encode(raw).decode().rstrip("=")  # noqa: E731
    cases = [
        Case("zlib", "no-zlib-header", b64(json.dumps(SEED).encode()), "notice"),
        Case("zlib", "raw-deflate", b64(good[2:-4]), "notice"),
        Case("zlib", "bad-checksum", b64(good[:-4] + b"\0\0\0\0"), "notice"),
        Case("zlib", "flipped-byte", b64(good[:10] + bytes([good[10] ^ 0xFF]) + good[11:]), "notice"),
        Case("zlib", "trailing-garbage", b64(good + b"garbage"), "either"),
        Case("zlib", "two-streams", b64(good + good), "either"),
        Case("zlib", "gzip-wrapper", b64(b"\x1f\x8b\x08\x00" + good), "notice"),
        Case("zlib", "empty-stream", pack(b""), "notice"),
        Case("zlib", "header-only", b64(good[:2]), "notice"),
        Case("zlib", "bad-padding", pack_json(SEED) + "==", "either"),
        Case("zlib", "std-alphabet", "1." + base64.b64encode(good).decode(), "either"),
    ]
    for size, fill in ((3_000_000, b" "), (50_000_000, b"0"), (2_000_001, b"["), (10_000_000, b"\x00")):
        cases.append(Case("zlib", f"bomb-{size}-{fill!r}", pack(fill * size), "notice"))
    padded = json.dumps(SEED)[:-1] + "," + '"x":' + '"' + "A" * 3_000_000 + '"}'
    cases.append(Case("zlib", "bomb-valid-prefix", pack(padded.encode()), "notice"))
    whitespace = json.dumps(SEED) + " " * 1_999_000
    cases.append(Case("zlib", "whitespace-under-limit", pack(whitespace.encode()), "results"))
    return cases


def _deep_nesting() -> list[Case]:
    cases = []
    for depth in (100, 1_000, 10_000, 100_000):
        cases.append(Case("deep_nesting", f"list-{depth}", pack_text("[" * depth + "]" * depth), "notice"))
        cases.append(Case("deep_nesting", f"dict-in-name-{depth}",
                          pack_text('{"version":1,"name":' + '{"a":' * depth + "1" + "}" * depth + "}"), "notice"))
    cases.append(Case("deep_nesting", "layers-nested-lists",
                      pack_text('{"version":1,"input":{"shape":[8]},"layers":' + "[" * 5000 + "]" * 5000 + "}"),
                      "notice"))
    cases.append(Case("deep_nesting", "unclosed-100k", pack_text("[" * 100_000), "notice"))
    return cases


def _huge_arrays() -> list[Case]:
    dense = {"type": "dense", "units": 4}
    return [
        Case("huge_arrays", "shape-1e5", pack_json(_with("input.shape", [1] * 100_000)), "notice"),
        Case("huge_arrays", "shape-5", pack_json(_with("input.shape", [2, 2, 2, 2, 2])), "notice"),
        Case("huge_arrays", "kernel-list-1e4", pack_json(_with("layers.0.kernel_size", [3] * 10_000)), "either"),
        Case("huge_arrays", "layers-100001", pack_json({"version": 1, "input": {"shape": [4]},
                                                        "layers": [dense] * 100_001}), "notice"),
        Case("huge_arrays", "mixed-many-keys",
             pack_json(_with("hardware.mixed_precision", {f"f{i}": 0.001 for i in range(1000)})), "notice"),
        Case("huge_arrays", "top-level-array", pack_json([SEED] * 1000), "notice"),
        Case("huge_arrays", "name-1e5-chars", pack_json(_with("name", "n" * 100_000)), "notice"),
        Case("huge_arrays", "custom-chip-peaks-many",
             pack_json(_with("hardware", {**HW, "chip": None, "custom_chip": {
                 "name": "c", "peaks": {f"k{i}": 1e12 for i in range(500)}}})), "notice"),
        Case("huge_arrays", "padding-list", pack_json(_with("layers.0.padding", list(range(1000)))), "either"),
        Case("huge_arrays", "shape-empty", pack_json(_with("input.shape", [])), "notice"),
    ]


HUGE_INT_TEXT = "9" * 4301


def _numbers() -> list[Case]:
    cases = []
    fields = ["training.epochs", "training.batch_size", "training.batches_per_epoch", "layers.0.filters",
              "layers.2.units", "input.shape", "input.sequence_length", "hardware.duration",
              "hardware.chip_count", "hardware.utilization", "training.backward_ratio"]
    specials = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity", "1e308": "1e308", "1e309": "1e309",
                "-0": "-0.0", "huge-int": HUGE_INT_TEXT}
    for field in fields:
        for label, literal in specials.items():
            if field == "input.shape":
                literal = f"[{literal}, 400, 5]"
            text = json.dumps(_with(field, "__X__")).replace('"__X__"', literal)
            expect = "notice"
            if label == "-0" and field in ("training.backward_ratio",):
                expect = "results"
            cases.append(Case("numbers", f"{field}={label}", pack_text(text), expect))
    # the 49-character link: one JSON integer of more than 4,300 digits
    cases.append(Case("numbers", "issue-49-char", "1.eNrtwTEJAAAIALAuNvA1mSB2N4ewbaKjEgAAAOCTPT7ZOVk", "notice"))
    cases.append(Case("numbers", "bare-huge-int", pack_text("9" * 5000), "notice"))
    cases.append(Case("numbers", "huge-float-digits", pack_text(json.dumps(SEED).replace(
        '"epochs": 10', '"epochs": 1.' + "1" * 5000)), "results"))
    return cases


def _sizes() -> list[Case]:
    cases = []
    for field in ("layers.0.filters", "layers.0.kernel_size", "layers.0.stride", "layers.2.units",
                  "layers.3.units", "input.sequence_length", "training.batch_size", "training.batches_per_epoch",
                  "training.epochs", "hardware.duration", "hardware.chip_count", "hardware.utilization"):
        for value in (0, -1):
            cases.append(Case("sizes", f"{field}={value}", pack_json(_with(field, value)), "notice"))
    cases.append(Case("sizes", "shape-zero", pack_json(_with("input.shape", [0, 400, 5])), "notice"))
    cases.append(Case("sizes", "kernel-larger-than-input", pack_json(_with("layers.0.kernel_size", 999)), "either"))
    return cases


def _large_layers() -> list[Case]:
    """Many layers: up to the dashboard's limit they open; beyond, the link is refused before validation
    (a 100,000-layer link of flatten layers is only ~200 characters)."""
    dense, flat = {"type": "dense", "units": 4}, {"type": "flatten"}
    body = lambda layer, n: {"version": 1, "input": {"shape": [4]}, "layers": [layer] * n,  # noqa: E731
                             "training": {"epochs": 1, "examples": 1}}
    return [Case("large_layers", f"dense-{n}", pack_json(body(dense, n)), "results" if n <= 2000 else "notice")
            for n in (500, 2_000, 2_001, 20_000)] + [
        Case("large_layers", f"flatten-{n}", pack_json(body(flat, n)), "notice") for n in (5_000, 100_000)]


def _unicode() -> list[Case]:
    names = ["\u202eevil\u202c", "zero\u200bwidth", "nul\u0000byte", "bell\u0007", "line\u2028sep",
             "tab\tnew\nline\rcr", "\U0001F4A9" * 50, "\ufeffbom", "e\u0301\u0301\u0301", "\x1b[31mred",
             "日本語のモデル", "مرحبا", "\ud800lone-surrogate", "\udfff", "\uffff\ufffe"]
    cases = []
    for i, name in enumerate(names):
        # lone surrogates cannot be UTF-8: they travel as JSON escapes (\\ud800), as a crafted link would
        text = json.dumps(_with("name", "__X__")).replace('"__X__"', json.dumps(name))
        cases.append(Case("unicode", f"name-{i}", pack_text(text), "either"))
    cases.append(Case("unicode", "layer-name-rtl", pack_json(_with("layers.3.name", "\u202eevil")), "either"))
    cases.append(Case("unicode", "chip-id-unicode", pack_json(_with("hardware.chip", "ｎｖｉｄｉａ")), "either"))
    cases.append(Case("unicode", "type-unicode", pack_json(_with("layers.0.type", "dénse")), "notice"))
    cases.append(Case("unicode", "latin1-bytes", pack(json.dumps(_with("name", "é")).encode("latin-1")), "either"))
    cases.append(Case("unicode", "utf8-bom", pack(b"\xef\xbb\xbf" + json.dumps(SEED).encode()), "either"))
    cases.append(Case("unicode", "utf16", pack(json.dumps(SEED).encode("utf-16")), "notice"))
    return cases


def _injection() -> list[Case]:
    cases = []
    for i, payload in enumerate(INJECTIONS):
        cases.append(Case("injection", f"name-{i}", pack_json(_with("name", payload)), "results", True))
        # the layer and chip names get every other payload (both kinds of each: link, HTML, LaTeX, formula)
        if i % 2 == 0:
            cases.append(Case("injection", f"layer-name-{i}", pack_json(_with("layers.3.name", payload)), "either",
                              True))
        else:
            custom = {**HW, "custom_chip": {"name": payload, "peaks": {"fp32": 20e12}}, "precision": "bf16",
                      "allow_fallback": True}
            custom.pop("chip")
            cases.append(Case("injection", f"custom-chip-{i}", pack_json(_with("hardware", custom)), "either",
                              True))
    for i, payload in enumerate(INJECTIONS[:6]):
        cases.append(Case("injection", f"chip-id-{i}", pack_json(_with("hardware.chip", payload[:120])), "either",
                          True))
        cases.append(Case("injection", f"layer-type-{i}", pack_json(_with("layers.0.type", payload)), "notice",
                          True))
        cases.append(Case("injection", f"extra-key-{i}", pack_json({**SEED, payload: 1}), "notice", True))
    return cases


def _extra_fields() -> list[Case]:
    return [Case("extra_fields", f"{where}", pack_json(_with(where, 1)), "notice")
            for where in ("extra", "input.extra", "training.extra", "hardware.extra", "layers.0.extra",
                          "layers.2.bias_extra", "hardware.custom_chip", "hardware.mixed_precision.int4",
                          "__proto__", "constructor", "layers.1.units", "quick.extra")] + [
        Case("extra_fields", "dup-keys", pack_text('{"version":1,"name":"a","name":"b"}'), "either"),
    ]


def _wrong_types() -> list[Case]:
    cases = []
    for field, value in (("name", 5), ("name", None), ("name", ["a"]), ("input", "784"), ("input.shape", "784"),
                         ("input.shape", {"0": 784}), ("layers", {}), ("layers", "dense"), ("layers.0", 3),
                         ("layers.0", None), ("layers.0.filters", "16"), ("layers.0.filters", 16.5),
                         ("layers.0.filters", True), ("layers.0.kernel_size", "same"), ("layers.2.units", [256]),
                         ("training", []), ("training.epochs", "ten"), ("training.epochs", None),
                         ("convention", "fancy"), ("mode", "quick"), ("mode", 1), ("hardware", "A100"),
                         ("hardware.chip", 100), ("hardware.precision", "int4"), ("hardware.utilization", "40%"),
                         ("hardware.duration_unit", "weeks"), ("hardware.mixed_precision", {"bf16": "0.9"}),
                         ("version", None), ("quick", {"kind": "connections"})):
        cases.append(Case("wrong_types", f"{field}={json.dumps(value)}", pack_json(_with(field, value)), "either"))
    for i, obj in enumerate(([], "text", 1, None, True, 1.5)):
        cases.append(Case("wrong_types", f"top-{i}", pack_json(obj), "notice"))
    return cases


def _schema_passing() -> list[Case]:
    """Links that pass the schema but used to crash pages (the issue's list), and edge values that must
    be answered with results or a named field."""
    hw = lambda **kw: pack_json(_with("hardware", {**HW, **kw}))  # noqa: E731
    transpose = {"type": "conv_transpose2d", "filters": 1, "kernel_size": 1, "stride": 10**9}
    return [
        Case("schema_passing", "conv-transpose-stride-1e9", pack_json(
            {"version": 1, "input": {"shape": [4, 4, 1]}, "layers": [transpose] * 19,
             "training": {"epochs": 1, "examples": 1}}), "either"),
        Case("schema_passing", "conv-transpose-stride-1e9-x2", pack_json(
            {"version": 1, "input": {"shape": [4, 4, 1]}, "layers": [transpose] * 2,
             "training": {"epochs": 1, "examples": 1}}), "either"),
        Case("schema_passing", "duration-1e308", hw(duration=1e308), "either"),
        Case("schema_passing", "chip-count-1e308", hw(chip_count=1e308), "either"),
        Case("schema_passing", "peak-1e308", hw(chip=None, peak_flop_per_s=1e308), "either"),
        Case("schema_passing", "all-1e308", hw(chip=None, peak_flop_per_s=1e308, chip_count=1e308,
                                               duration=1e308), "either"),
        Case("schema_passing", "utilization-0.005", hw(utilization=0.005), "either"),
        Case("schema_passing", "utilization-1e-320", hw(utilization=1e-320), "either"),
        Case("schema_passing", "utilization-high-low", hw(utilization_low=0.9, utilization_high=0.1), "either"),
        Case("schema_passing", "unknown-chip", hw(chip="nvidia-zz9000"), "either"),
        Case("schema_passing", "year-1950", hw(chip=None, year=1950), "either"),
        Case("schema_passing", "year-2100", hw(chip=None, year=2100), "either"),
        Case("schema_passing", "year-2031", hw(chip=None, year=2031), "either"),
        Case("schema_passing", "empty-object", pack_json({}), "either"),
        Case("schema_passing", "version-only", pack_json({"version": 1}), "either"),
        Case("schema_passing", "quick-mode-without-form", pack_json({"mode": "quick"}), "notice"),
        Case("schema_passing", "quick-huge", pack_json({"mode": "quick", "quick": {"kind": "connections",
                                                                                  "value": 1e308, "unit": "macs"},
                                                       "training": {"epochs": 1e308, "examples": 1e308}}), "either"),
        Case("schema_passing", "epochs-examples-1e300", pack_json(_with("training", {"epochs": 1e300,
                                                                                     "examples": 1e300})), "either"),
        Case("schema_passing", "mixed-precision-split", hw(precision=None, mixed_precision={"bf16": 0.5,
                                                                                            "fp32": 0.5}), "either"),
        Case("schema_passing", "mixed-precision-bad-sum", hw(precision=None, mixed_precision={"bf16": 0.5}), "notice"),
        Case("schema_passing", "pue-huge-price-huge", hw(pue=1e308, price_usd_per_chip_hour=1e308, tdp_w=1e308,
                                                         grid_kg_co2_per_kwh=1e308), "either"),
        Case("schema_passing", "gpu-days-no-count", hw(duration_unit="gpu_days", chip_count=None), "either"),
        Case("schema_passing", "no-training", pack_json({"version": 1, "input": {"shape": [784]},
                                                        "layers": [{"type": "dense", "units": 10}]}), "either"),
        Case("schema_passing", "layers-without-input", pack_json({"version": 1,
                                                                 "layers": [{"type": "dense", "units": 10}]}),
             "notice"),
        Case("schema_passing", "shape-mismatch", pack_json(_with("layers.0", {"type": "conv2d", "filters": 4,
                                                                              "kernel_size": 3},
                                                                 {**SEED, "input": {"shape": [784]}})), "either"),
        Case("schema_passing", "max-sizes", pack_json({"version": 1, "input": {"shape": [10**9]},
                                                      "layers": [{"type": "dense", "units": 10**9}] * 3,
                                                      "training": {"epochs": 1e15, "examples": 1e15}}), "either"),
        Case("schema_passing", "custom-chip-no-peaks", hw(chip=None, custom_chip={"name": "x", "peaks": {}}),
             "either"),
    ]


DENSE4 = {"type": "dense", "units": 4}
NO_COMPUTE_LINK = ("1.eNodjEEKgDAMBP-y514ET_2K9BAkaqHGYqMoJX-39TjL7FTcfJZ4CPzgECVfCl9RNsoMP43BHBK9zWlUoW-fsSRSZYEFBz0pSpS13"
                   "zgf81b-FD-058QdzD75aiLA")
"""The third probe's link: one ``flatten`` on [4] — no compute (the plan page divided by zero)."""


def nested_repeats(depth: int, times: int, inner: dict = DENSE4) -> dict:
    for _ in range(depth):
        inner = {"type": "repeat", "times": times, "layers": [inner]}
    return inner


def nested_branches(depth: int, merge: str = "add") -> dict:
    inner: dict = DENSE4
    for _ in range(depth):
        inner = {"type": "branches", "merge": merge, "branches": [[inner], [inner]]}
    return inner


def nested_residuals(depth: int) -> dict:
    inner: dict = DENSE4
    for _ in range(depth):
        inner = {"type": "residual", "body": [inner]}
    return inner


def sequence_doubling(copies: int) -> dict:
    return {"version": 1, "input": {"shape": [4], "sequence_length": 8},
            "layers": [{"type": "repeat", "times": copies, "layers": [
                {"type": "branches", "merge": "concat", "axis": "sequence", "branches": [[], []]}]}],
            "training": {"epochs": 1, "examples": 1}, "hardware": HW}


def on_vector(*layers: dict, width: int = 4, steps: int | None = None) -> dict:
    """A scenario of ``layers`` on a vector input (a sequence of ``steps`` when given), with training and hardware."""
    data = {"version": 1, "input": {"shape": [width]}, "layers": list(layers),
            "training": {"epochs": 1, "examples": 1000, "batch_size": 8}, "hardware": HW}
    if steps:
        data["input"]["sequence_length"] = steps
    return data


def _derived() -> list[Case]:
    """The third probe: quantities no single field check sees (blocks expanded, merged sizes, counts, intervals,
    zero compute), the Plan page's fields, every range field, transformer blocks, strict JSON."""
    cases: list[Case] = []
    add = lambda id_, data, expect="either": cases.append(  # noqa: E731
        Case("derived", id_, data if isinstance(data, str) else pack_json(data), expect))
    # zero compute
    add("no-compute-issue-link", NO_COMPUTE_LINK, "results")
    add("no-compute-identity-branches", on_vector({"type": "branches", "branches": [[], []], "merge": "add"}),
        "results")
    add("no-compute-with-ranges", _with("training", {"epochs": 1, "examples": 10, "examples_low": 1,
                                                     "examples_high": 100}, on_vector({"type": "flatten"})), "results")
    add("no-compute-with-plan", {**on_vector({"type": "flatten"}), "plan": {"layout": {"dp": 8, "global_batch": 64}}},
        "results")
    # blocks: expanded counts, nesting, merged sizes, counts past 2^63
    add("sequence-doubling-40", sequence_doubling(40), "results")
    add("sequence-doubling-100000", sequence_doubling(100_000), "notice")
    add("channel-doubling-30", on_vector({"type": "repeat", "times": 30, "layers": [
        {"type": "branches", "branches": [[], []]}]}), "results")
    for depth, times, expect in ((2, 40, "results"), (2, 100_000, "notice"), (4, 100_000, "notice"), (3, 12, "results")):
        add(f"nested-repeats-{depth}x{times}", on_vector(nested_repeats(depth, times)), expect)
    add("repeat-fixed-point-1999", on_vector({"type": "repeat", "times": 1999, "layers": [DENSE4]}), "results")
    add("repeat-2000-copies", on_vector({"type": "repeat", "times": 2000, "layers": [DENSE4]}), "notice")
    add("repeat-growing-channels", on_vector({"type": "repeat", "times": 600, "layers": [
        {"type": "branches", "branches": [[], [{"type": "dense", "units": 1}]]}]}), "results")
    for depth, expect in ((9, "results"), (10, "notice"), (12, "notice")):
        add(f"branches-nested-{depth}", on_vector(nested_branches(depth)), expect)
    add("branches-nested-concat-9", on_vector(nested_branches(9, "concat")), "results")
    for depth, expect in ((31, "results"), (32, "results"), (33, "notice")):
        add(f"residuals-nested-{depth}", on_vector(nested_residuals(depth)), expect)
    add("residual-1999-flatten", on_vector({"type": "residual", "body": [{"type": "flatten"}] * 1999}), "results")
    add("residual-99999-flatten", on_vector({"type": "residual", "body": [{"type": "flatten"}] * 99_999}), "notice")
    add("residual-projection-mismatch", on_vector({"type": "residual", "body": [DENSE4],
                                                   "shortcut": [{"type": "dense", "units": 5}]}), "results")
    add("branches-1000", on_vector({"type": "branches", "merge": "add", "branches": [[DENSE4]] * 1000}), "results")
    add("branches-multiply-broadcast", on_vector({"type": "branches", "merge": "multiply", "branches": [
        [{"type": "dense", "units": 1}], []]}), "results")
    add("branches-sequence-on-vector", on_vector({"type": "branches", "axis": "sequence", "branches": [[], []]}),
        "results")
    add("dense-1e9-over-1e4-steps", on_vector({"type": "dense", "units": 10**9}, width=10**9, steps=10_000), "results")
    for value in (0, -1, 1.5, True, 100_001, "2"):
        add(f"repeat-times={json.dumps(value)}", on_vector({"type": "repeat", "times": value, "layers": [DENSE4]}),
            "either" if value == "2" else "notice")
    # transformer blocks in links
    block = {"type": "transformer_block", "heads": 8}
    for field, value in (("heads", 0), ("heads", 10**9), ("heads", True), ("heads", 3), ("kv_heads", 3),
                         ("kv_heads", 16), ("head_size", 10**9), ("ff_size", 10**9), ("experts", 10**9),
                         ("active_experts", 9), ("experts", 0), ("gated", "yes"), ("gated", 1)):
        extra = {"experts": 8} if field == "active_experts" else {}
        add(f"transformer-{field}={json.dumps(value)}", on_vector({**block, **extra, field: value}, width=64, steps=16))
    add("transformer-blocks-2000", on_vector(*[{**block, "experts": 8, "active_experts": 2, "gated": True}] * 2000,
                                             width=4096, steps=4096), "results")
    # the Plan page's fields
    plan = lambda **kw: {**SEED, "hardware": HW, "plan": kw}  # noqa: E731
    for value in ("NVIDIA H100", "nvidia-zz9000", "-h100", "a" * 100, 3, True):
        add(f"plan.chip={json.dumps(value)[:20]}", plan(chip=value))
    for value in (0, 2, 1e308, -1, True, "0.5"):
        add(f"plan.kernel_efficiency={json.dumps(value)}", plan(kernel_efficiency=value))
    for field in ("dp", "tp", "pp", "ep", "cp", "micro_batch", "global_batch", "virtual_stages", "expert_tp",
                  "first_stage_blocks", "last_stage_blocks"):
        for value in (0, 10**12, 1.5, True):
            add(f"plan.layout.{field}={json.dumps(value)}", plan(layout={"global_batch": 64, field: value}))
    add("plan.layout.cp-does-not-split-the-sequence", plan(layout={"global_batch": 64, "cp": 7}))
    for value in ("uneven", "<b>x</b>", 3, None):
        add(f"plan.layout.pipeline_split={json.dumps(value)}", plan(layout={"global_batch": 64, "pipeline_split": value}))
    for value in (0.5, 0, 1e308, -1, True, "2"):
        add(f"plan.capacity_factor={json.dumps(value)}", plan(capacity_factor=value))
    add("plan.layout-huge-valid", plan(layout={"dp": 10**6, "tp": 8, "pp": 64, "global_batch": 10**8}))
    for field, value in (("optimizer", "lion2"), ("zero", 4), ("recompute", "most"), ("precision", "fp4"),
                         ("convention", "horovod"), ("attention", "<img src=x>"), ("compiled", "yes"),
                         ("tp_overlap", 2)):
        add(f"plan.options.{field}={json.dumps(value)}", plan(options={field: value}))
    # every range field
    ranges = {"hardware": ("chip_count", "duration", "utilization"), "training": ("backward_ratio", "examples")}
    for section, fields in ranges.items():
        for field in fields:
            for end in ("low", "high"):
                for value in (1e308, 5e-324, 0, True, -1):
                    data = _with(f"{section}.{field}_{end}", value)
                    add(f"{section}.{field}_{end}={value!r}", data)
            add(f"{section}.{field}-inverted", _with(f"{section}.{field}_high", 1e-3,
                                                    _with(f"{section}.{field}_low", 1e6)))
    add("chip-count-1-to-1e308", _with("hardware", {**HW, "chip_count": 1, "chip_count_low": 1,
                                                    "chip_count_high": 1e308}))
    add("examples-tiny-to-huge", _with("training", {"epochs": 1, "examples": 10, "examples_low": 5e-324,
                                                    "examples_high": 1e18}))
    # strict JSON
    add("duplicate-key-top", pack_text('{"version":1,"version":1}'), "notice")
    add("duplicate-key-training", pack_text(json.dumps(SEED)[:-1] + ',"name":"a","name":"b"}'), "notice")
    add("boolean-epochs", _with("training.epochs", True), "notice")
    add("boolean-units", _with("layers.3.units", False), "notice")
    add("boolean-chip-count", _with("hardware.chip_count", True), "notice")
    add("utf16-le-no-bom", pack(json.dumps(SEED).encode("utf-16-le")), "notice")
    add("utf16-be-no-bom", pack(json.dumps(SEED).encode("utf-16-be")), "notice")
    return cases


def corpus() -> list[Case]:
    rng = random.Random(20261203)
    cases = (_random(rng) + _truncated() + _wrong_version() + _zlib() + _deep_nesting() + _huge_arrays()
             + _numbers() + _sizes() + _large_layers() + _unicode() + _injection() + _extra_fields()
             + _wrong_types() + _schema_passing() + _derived())
    ids = [f"{c.category}:{c.id}" for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases
