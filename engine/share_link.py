"""The one conversion between a scenario and a share link (and the JSON file it downloads as).

Token: ``<version>.`` + base64url(zlib(compact JSON)), no padding; a link of version 1 opens through the scenario's
migration (``engine.scenario.migrated``). Decoding is bounded at every
step (link length, decompressed size) and ends in the same pydantic validation as a file: a
crafted link can only ever produce a message. No pickle, no eval.
"""
from __future__ import annotations

import base64
import binascii
import json
import zlib

from .errors import InputError
from .scenario import (
    MAX_PAGE_LAYERS,
    MAX_SCENARIO_BYTES,
    SCENARIO_VERSION,
    VERSIONS,
    Scenario,
    load_scenario_text,
)

MAX_LINK_CHARS = 16_000
QUERY_KEY = "s"


_LAST_DUMP: tuple[Scenario | None, dict] = (None, {})
"""The last scenario written and its dict: a page run writes the same (frozen) scenario three or four times — the
link, the report, the download. Replaced whole, so a thread reads one scenario's pair."""


def _dumped(scenario: Scenario) -> dict:
    global _LAST_DUMP
    last = _LAST_DUMP
    if last[0] is scenario:
        return last[1]
    data = scenario.model_dump(mode="json", exclude_defaults=True)
    data["version"] = SCENARIO_VERSION
    if scenario.layers:  # a layer's ``type`` is its tag: keep it even though each class defaults it
        data["layers"] = [{"type": layer.type, **layer.model_dump(mode="json", exclude_defaults=True)}
                          for layer in scenario.layers]
    _LAST_DUMP = (scenario, data)
    return data


def scenario_json(scenario: Scenario, *, indent: int | None = None) -> str:
    """The scenario as JSON, defaults left out (the file format and the link's payload)."""
    data = _dumped(scenario)
    if indent is None:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return json.dumps(data, indent=indent, ensure_ascii=False)


def encode(scenario: Scenario) -> str:
    raw = scenario_json(scenario).encode("utf-8")
    token = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")
    return f"{SCENARIO_VERSION}.{token}"


def decode(token: str) -> Scenario:
    """A link's token → ``Scenario``; every failure is an ``InputError`` on the field ``link``."""
    if not isinstance(token, str) or not token:
        raise InputError("link", "empty")
    if len(token) > MAX_LINK_CHARS:
        raise InputError("link", f"too long ({len(token):,} characters; at most {MAX_LINK_CHARS:,})")
    version, _, body = token.partition(".")
    if version not in [str(v) for v in VERSIONS] or not body:
        raise InputError("link", f"not a FLOPscope link (versions {', '.join(str(v) for v in VERSIONS)})")
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_SCENARIO_BYTES + 1)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError, zlib.error):
        raise InputError("link", "damaged (it does not decode; was it cut or edited?)") from None
    if len(raw) > MAX_SCENARIO_BYTES or inflater.unconsumed_tail:
        raise InputError("link", f"expands to more than the size limit ({MAX_SCENARIO_BYTES:,} bytes)")
    if not inflater.eof:
        raise InputError("link", "truncated (the data ends early)")
    if inflater.unused_data:
        raise InputError("link", "damaged (bytes follow the data; was it edited?)")
    return load_scenario_text(text, source="link", max_layers=MAX_PAGE_LAYERS, version=int(version))
