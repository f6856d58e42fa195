"""Messages stay one line and bounded whatever text the user sends (``engine/errors.py``)."""
from __future__ import annotations

import json
import re
import typing

import pytest
from pydantic_core import core_schema

from engine.errors import PATTERN_WORDS, InputError, one_line, quoted, user_reason
from engine.method2.hardware_db import load_hardware_db
from engine.scenario import SCENARIO_VERSION, load_scenario_text


@pytest.mark.parametrize("text, shown", [
    ("a\nb", "a\\nb"), ("a\r\nb", "a\\r\\nb"), ("tab\there", "tab\\there"),
    ("v\x0bt", "v\\x0bt"), ("nel\x85", "nel\\x85"), ("ls\u2028ps\u2029", "ls\\u2028ps\\u2029"),
    ("plain ünïcode", "plain ünïcode"),
    # what reorders or hides text on screen (Trojan Source), and a lone surrogate (no UTF-8 writer takes it)
    ("abc\u202egpj.exe", "abc\\u202egpj.exe"), ("iso\u2066late\u2069", "iso\\u2066late\\u2069"),
    ("zero\u200bwidth\ufeff\u2060", "zero\\u200bwidth\\ufeff\\u2060"), ("lone\ud800", "lone\\ud800"),
    ("emoji 👩\u200d💻, accents é", "emoji 👩\u200d💻, accents é"),
])
def test_one_line_escapes_every_line_break(text, shown):
    assert one_line(text) == shown
    assert len(one_line(text).splitlines()) == 1


def test_quoted_cuts_long_values():
    assert quoted("x" * 41) == "'" + "x" * 40 + "…'"
    assert quoted("x" * 40) == "'" + "x" * 40 + "'"


def test_input_error_is_one_line_even_when_built_with_newlines():
    err = InputError("layers[0]\n.name", "bad\nvalue")
    assert str(err) == "layers[0]\\n.name: bad\\nvalue"
    assert err.field == "layers[0]\\n.name"


@pytest.mark.parametrize("tag", ["\n", "dense\n", "\u2028", "x" * 5000])
def test_unknown_layer_type_with_hostile_text(tag):
    """Hypothesis found ``{'type': '\\n'}`` broke the message onto two lines (CI, stop 7)."""
    spec = {"input": {"shape": [1]}, "layers": [{"type": tag}]}
    with pytest.raises(InputError) as info:
        load_scenario_text(json.dumps(spec))
    message = str(info.value)
    assert message.startswith("layers[0].type: unknown type '")
    assert len(message.splitlines()) == 1
    assert len(message) < 600  # the 5,000-character tag is cut to 40, the known kinds to 300 characters


def test_unknown_layer_type_suggests_the_close_ones_and_counts_the_rest():
    from engine.method1.kinds import KIND_BY_TYPE

    spec = {"input": {"shape": [1]}, "layers": [{"type": "windw_attention"}]}
    with pytest.raises(InputError) as info:
        load_scenario_text(json.dumps(spec))
    reason = info.value.reason
    assert reason.startswith("unknown type 'windw_attention' (did you mean 'window_attention'")
    assert reason.endswith(f"… ({len(KIND_BY_TYPE)} in all)") and "'dense', 'conv1d'" in reason


def test_unknown_chip_name_is_cut_and_escaped():
    with pytest.raises(InputError) as info:
        load_hardware_db().chip("h100\n" + "y" * 100)
    assert str(info.value).startswith("chip: unknown chip 'h100\\nyyyy")
    assert len(str(info.value).splitlines()) == 1


# ---------------------------------------------------------------- every pydantic error type in the user's words

PYDANTIC_WORDING = re.compile(r"Input |should|String|[Vv]alid (?:python|frozendict|deque|set|bytes)|Decimal|UUID|"
                              r"timezone|Recursion|Instance|Keys |Data |JSON input|Unable|python\.org|\^\[|\]\+|"
                              r"\(\?|\\d|\$'|Field is|Error |Datetimes|Arguments|argument")
CTX = {"pattern": r"^x+$", "expected": "'a' or 'b'", "gt": 0, "ge": 0, "lt": 1, "le": 1, "max_length": 3,
       "min_length": 1, "actual_length": 5, "error": "boom", "class_name": "X", "multiple_of": 2, "max_digits": 3,
       "decimal_places": 2, "whole_digits": 1, "expected_tags": "'a', 'b'", "tag": "z", "discriminator": "'type'",
       "attribute": "a", "method_name": "m", "field_type": "List", "encoding": "utf8", "encoding_error": "e",
       "tz_actual": 1, "tz_expected": 1, "expected_schemes": "'http'", "class": "C", "expected_version": 4, "version": 4}


def pydantic_error(kind: str) -> dict:
    from pydantic_core import ValidationError

    return ValidationError.from_exception_data("M", [{"type": kind, "loc": ("x",), "input": 1, "ctx": CTX}]).errors(
        include_url=False)[0]


@pytest.mark.parametrize("kind", typing.get_args(core_schema.ErrorType))
def test_every_pydantic_error_type_reads_in_the_users_words(kind):
    """Each of pydantic's error types (over a hundred) gets a sentence of ours, never pydantic's own (which
    names Python types and quotes regular expressions); our validators' sentences (value_error) pass through."""
    reason = user_reason(pydantic_error(kind))
    assert reason and not PYDANTIC_WORDING.search(reason), reason
    if kind not in ("value_error", "assertion_error"):
        assert "boom" not in reason


def test_every_text_pattern_of_the_models_is_said_in_words():
    """A pattern the models check (chip ids, dates) has its description; a regular expression is never shown."""
    from engine.method2.hardware_db import HardwareDB
    from engine.scenario import Scenario

    patterns = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for model in (Scenario, HardwareDB):
        walk(model.model_json_schema())
    assert patterns and patterns <= set(PATTERN_WORDS), patterns - set(PATTERN_WORDS)


def test_a_chip_id_that_is_not_a_slug_says_what_one_looks_like():
    with pytest.raises(InputError) as info:
        load_scenario_text(json.dumps({"plan": {"chip": "NVIDIA H100"}}))
    assert str(info.value) == "plan.chip: must be a chip id: lower-case letters, digits and dashes, e.g. nvidia-h100-sxm"


# ---------------------------------------------------------------- strict JSON

BASE = {"version": 1, "input": {"shape": [64]}, "layers": [{"type": "dense", "units": 64}],
        "training": {"epochs": 1, "examples": 1000}, "hardware": {"chip": "nvidia-a100-sxm4-80gb", "chip_count": 8,
                                                                  "duration": 1.0, "duration_unit": "days",
                                                                  "utilization": 0.4},
        "plan": {"layout": {"dp": 2, "global_batch": 8}}}


def with_value(path: str, value) -> dict:
    data = json.loads(json.dumps(BASE))
    node = data
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(keys[-1]) if isinstance(node, list) else keys[-1]] = value
    return data


@pytest.mark.parametrize("path, field", [
    ("training.epochs", "training.epochs"), ("training.examples", "training.examples"),
    ("layers.0.units", "layers[0].units"), ("input.shape.0", "input.shape[0]"),
    ("input.sequence_length", "input.sequence_length"), ("hardware.chip_count", "hardware.chip_count"),
    ("hardware.duration", "hardware.duration"), ("hardware.utilization", "hardware.utilization"),
    ("plan.layout.dp", "plan.layout.dp"), ("plan.kernel_efficiency", "plan.kernel_efficiency"),
])
@pytest.mark.parametrize("value", [True, False])
def test_booleans_are_not_numbers(path, field, value):
    """``true`` was read as 1 (pydantic's lax mode): a link with ``"epochs": true`` computed one epoch."""
    with pytest.raises(InputError) as info:
        load_scenario_text(json.dumps(with_value(path, value)))
    assert info.value.field == field, str(info.value)
    assert info.value.reason in ("must be a number, not true/false", "must be a whole number") \
        or info.value.reason.startswith("must be")


def test_booleans_stay_booleans_where_the_field_is_one():
    scenario = load_scenario_text(json.dumps(with_value("layers.0", {"type": "dense", "units": 4, "bias": False})))
    assert scenario.layers[0].bias is False


def current(data: dict) -> dict:
    """``data`` at the current scenario version (no migration runs)."""
    return {**data, "version": SCENARIO_VERSION}


@pytest.mark.parametrize("text, searched", [
    (json.dumps(current(BASE)), False),  # neither word in the text: no boolean to look for
    (json.dumps(current(with_value("layers.0.units", True))), True),
    (json.dumps(current(with_value("layers.0", {"type": "dense", "units": 4, "name": "true"}))), True),  # in a string
    (json.dumps(current(with_value("layers.0", {"type": "dense", "units": 4, "bias": False}))).encode(), True),  # bytes
    (json.dumps(BASE), True),  # version 1, migrated: the migration's own values are looked at, as before
])
def test_the_boolean_search_is_skipped_only_where_the_text_holds_none(monkeypatch, text, searched):
    """A text without the words ``true`` and ``false`` holds no boolean: ``load_scenario_text`` does not search the
    decoded data for one (10,000 layers: 7 ms); any other text, or a scenario a migration rewrote, is searched."""
    import engine.errors

    calls = []
    search = engine.errors.bool_as_number
    monkeypatch.setattr(engine.errors, "bool_as_number", lambda *a: calls.append(1) or search(*a))
    try:
        load_scenario_text(text)
    except InputError as exc:
        assert exc.reason.startswith("must be"), str(exc)
    assert bool(calls) is searched


@pytest.mark.parametrize("text, key", [
    ('{"version": 1, "version": 1}', "version"),
    ('{"input": {"shape": [4], "shape": [8]}}', "shape"),
    ('{"layers": [{"type": "dense", "units": 4, "units": 8}], "input": {"shape": [4]}}', "units"),
    ('{"name": "a", "name": "a"}', "name"),
])
def test_a_key_written_twice_is_an_error_naming_it(text, key):
    """``json`` keeps the last of two equal keys silently; a file or link that says two things is refused."""
    with pytest.raises(InputError) as info:
        load_scenario_text(text, source="upload")
    assert str(info.value) == f"upload: the key '{key}' appears twice in one object (each key once)"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-16", "utf-32-le"])
def test_utf16_text_is_not_utf8(encoding):
    raw = json.dumps(BASE).encode(encoding)
    with pytest.raises(InputError) as info:
        load_scenario_text(raw, source="upload")
    assert str(info.value).startswith("upload: not UTF-8 text")


def test_a_bottleneck_block_stacks_at_most_a_thousand_feed_forwards():
    """Each feed-forward is rows of its own: 10⁶ of them took 16 s and 2 GB (a fuzzed link), 10⁹ were allowed."""
    def spec(n):
        return json.dumps({"input": {"shape": [8], "sequence_length": 4}, "layers": [
            {"type": "bottleneck_block", "heads": 1, "ff_size": 1, "feed_forwards": n}]})
    with pytest.raises(InputError, match=r"^layers\[0\]\.feed_forwards: must be at most 1000$"):
        load_scenario_text(spec(1_001))
    # one more feed-forward (d = 8, L = 4, F = 1) adds its up d→F and down F→d products, 2·L·d·F each in the
    # matmul convention (which leaves out bias adds, activations and norms)
    one = 2 * 4 * 8 * 1 + 2 * 4 * 1 * 8
    assert load_scenario_text(spec(1_000)).method1().forward_flop \
        - load_scenario_text(spec(999)).method1().forward_flop == one
