"""A measurement's share link: the summary round-trips, carries no trace, and a crafted token is one line."""
from __future__ import annotations

import base64
import json
import zlib

import pytest

from engine.errors import InputError
from engine.measure.example import EXAMPLE_TRACE
from engine.measure.measurement import measure_trace
from engine.measure.summary_link import (
    MAX_LINK_CHARS,
    decode_summary,
    encode_summary,
    summary_of,
)


def test_round_trip_keeps_the_figures_not_the_trace():
    result = measure_trace(EXAMPLE_TRACE).as_dict()
    token = encode_summary(summary_of(result))
    assert len(token) < MAX_LINK_CHARS
    back = decode_summary(token)
    assert back.hfu == result["hfu"] and back.file == "example_trace.json.gz"
    assert [s.total_ms for s in back.steps] == [s["total_ms"] for s in result["steps"]]
    assert len(back.ops) <= 12 and back.ops[0].name == result["ops"][0]["name"]
    assert "traceEvents" not in json.dumps(back.model_dump())


def _token(data) -> str:
    return "m1." + base64.urlsafe_b64encode(zlib.compress(json.dumps(data).encode())).decode().rstrip("=")


@pytest.mark.parametrize("token", [
    "", "m1.", "m2.abc", "m1.!!!!", "x" * (MAX_LINK_CHARS + 1),
    _token([1, 2]), _token({"file": "a", "hfu": -1}), _token({"file": "a", "steps": [{"name": "s"}] * 21}),
    _token({"file": "a", "extra": 1}), _token({"file": "<script>alert(1)</script>", "hfu": 1e308}),
    "m1." + base64.urlsafe_b64encode(zlib.compress(b"[" * 100_000)).decode(),
    "m1." + base64.urlsafe_b64encode(zlib.compress(b" " * 1_000_000)).decode(),
])
def test_crafted_tokens_are_one_line(token):
    with pytest.raises(InputError) as exc:
        decode_summary(token)
    assert "\n" not in str(exc.value) and str(exc.value).startswith("link")
