"""Generated inputs, replayed: the share links and scenarios that ``tests/scenario_strategy.py`` draws (hypothesis,
a fixed seed per kind), drawn once and committed in ``tests/data/generated_inputs.json.gz`` with a hash of the
strategy's source. Every run replays the same inputs without drawing them again; a change to the strategy makes
``tests/test_generated_inputs.py`` fail until ``python -m tools.draw_generated_inputs`` draws them anew.

``FLOPSCOPE_GENERATED=draw`` draws new inputs in this run instead (a local run exploring; a failure prints the
input), under the loaded hypothesis profile.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
STRATEGY_SOURCE = HERE / "scenario_strategy.py"
REPLAY_FILE = HERE / "data" / "generated_inputs.json.gz"
KINDS = {"hostile_links": ("SCENARIOS", 2000, 1), "well_formed_links": ("WELL_FORMED", 1000, 2),
         "scenarios": ("SCENARIOS", 1500, 3)}
"""kind → (the strategy in ``scenario_strategy``, how many inputs, the seed they are drawn with). The links go
through the pages (``tests/app/test_generated_links.py``), the scenarios through the engine
(``tests/test_generated_scenarios.py``)."""


def strategy_hash() -> str:
    """What the replayed inputs were drawn from: the strategy's source and the kinds' counts and seeds."""
    digest = hashlib.sha256(STRATEGY_SOURCE.read_bytes())
    digest.update(json.dumps(KINDS, sort_keys=True).encode())
    return digest.hexdigest()


def draw(kind: str, seeded: bool = True) -> list[dict]:
    """The inputs of ``kind`` drawn by hypothesis: with the kind's seed (``seeded``), or under the loaded profile."""
    from hypothesis import HealthCheck, given, seed, settings

    from tests import scenario_strategy

    name, count, number = KINDS[kind]
    drawn: list[dict] = []

    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(getattr(scenario_strategy, name))
    def collect(data):
        drawn.append(data)

    (seed(number)(collect) if seeded else collect)()
    return drawn


@functools.cache
def _replayed() -> dict:
    with gzip.open(REPLAY_FILE, "rt", encoding="utf-8") as f:
        return json.load(f)


def replayed_hash() -> str:
    return _replayed()["strategy_sha256"]


def generated(kind: str) -> list[dict]:
    """The inputs of ``kind``: replayed from the committed file, or drawn anew with ``FLOPSCOPE_GENERATED=draw``."""
    if os.environ.get("FLOPSCOPE_GENERATED") == "draw":
        return draw(kind, seeded=False)
    return _replayed()[kind]


def write_replay_file() -> dict[str, int]:
    """Draw every kind with its seed and write the replay file; returns how many of each."""
    data = {"strategy_sha256": strategy_hash(), **{kind: draw(kind) for kind in KINDS}}
    REPLAY_FILE.parent.mkdir(exist_ok=True)
    text = json.dumps(data, allow_nan=True, ensure_ascii=True, separators=(",", ":"))
    with gzip.GzipFile(REPLAY_FILE, "wb", mtime=0) as f:  # mtime 0: the same inputs give the same bytes
        f.write(text.encode("ascii"))
    return {kind: len(data[kind]) for kind in KINDS}
