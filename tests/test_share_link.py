"""Share links: round trip, and every kind of bad link gives a message naming the link."""
from __future__ import annotations

import base64
import zlib

import pytest

from engine.errors import InputError
from engine.presets import presets
from engine.share_link import MAX_LINK_CHARS, decode, encode


@pytest.mark.parametrize("preset_id", sorted(presets()))
def test_round_trip(preset_id):
    scenario = presets()[preset_id].scenario
    token = encode(scenario)
    assert decode(token) == scenario
    assert len(token) < 2_000  # compact enough for a URL


def _token(raw: bytes) -> str:
    return "1." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


@pytest.mark.parametrize("token,needle", [
    ("", "empty"),
    ("garbage", "not a FLOPscope link"),
    ("3.abc", "not a FLOPscope link"),
    ("1.!!!!", "truncated"),
    ("1." + "A" * 40, "damaged"),
    ("1." + "x" * (MAX_LINK_CHARS + 1), "too long"),
    (_token(b"{not json"), "not valid JSON"),
    (_token(b"[]"), "expected a JSON object"),
    (_token(b'{"layers": [{"type": "dense", "units": -1}], "input": {"shape": [3]}}'), "layers[0].units"),
    (_token(b'{"__class__": "os.system", "layers": []}'), "__class__"),
    (_token(b"\xff\xfe"), "damaged"),
    (_token(b"[" * 100_000 + b"]" * 100_000), "nested too deeply"),
    # a list or an object where a layer's type goes: once a TypeError in the block counter (unhashable)
    (_token(b'{"layers": [{"type": []}]}'), "unknown type '[]'"),
    (_token(b'{"layers": [{"type": {}}], "input": {"shape": [3]}}'), "unknown type '{}'"),
    # bytes after the compressed data: a link edited by hand, refused rather than read in part
    ("1." + base64.urlsafe_b64encode(zlib.compress(b'{"layers": []}') + b"extra").decode().rstrip("="), "bytes follow"),
])
def test_bad_links(token, needle):
    with pytest.raises(InputError) as info:
        decode(token)
    assert info.value.field in ("link", "layers[0].units", "__class__", "layers[0].type")
    assert needle in str(info.value)


def test_truncated_link():
    token = encode(presets()["vgg16"].scenario)
    with pytest.raises(InputError, match="link"):
        decode(token[: len(token) // 2])


def test_tampered_link_is_caught_by_the_checksum():
    token = encode(presets()["vgg16"].scenario)
    middle = len(token) // 2
    tampered = token[:middle] + ("B" if token[middle] != "B" else "C") + token[middle + 1:]
    with pytest.raises(InputError, match="link"):
        decode(tampered)


def test_zip_bomb_is_refused():
    bomb = "1." + base64.urlsafe_b64encode(zlib.compress(b" " * 5_000_000, 9)).decode().rstrip("=")
    assert len(bomb) < MAX_LINK_CHARS
    with pytest.raises(InputError, match="size limit"):
        decode(bomb)
