"""Messages stay one line and bounded whatever text the user sends (``engine/errors.py``)."""
from __future__ import annotations

import json

import pytest

from engine.errors import InputError, one_line, quoted
from engine.method2.hardware_db import load_hardware_db
from engine.scenario import load_scenario_text


@pytest.mark.parametrize("text, shown", [
    ("a\nb", "a\\nb"), ("a\r\nb", "a\\r\\nb"), ("tab\there", "tab\\there"),
    ("v\x0bt", "v\\x0bt"), ("nel\x85", "nel\\x85"), ("ls\u2028ps\u2029", "ls\\u2028ps\\u2029"),
    ("plain ünïcode", "plain ünïcode"),
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
