"""Generated share links on every page (AppTest): scenarios drawn from the schema (``tests/scenario_strategy.py``,
blocks, ranges, hardware and plan included), each run on one page in turn, entering via ``app.py`` or the page
file. No run may show an exception element, internal wording or live user markup, or pass the time budget.
The engine-level test (``tests/test_generated_scenarios.py``) covers thousands; these are the pages' share.
CI replays a fixed seed (FLOPSCOPE_HYPOTHESIS=ci)."""
from __future__ import annotations

import json
import zlib

from hypothesis import HealthCheck, given, settings

from tests.app.hostile_corpus import pack_json
from tests.app.markup import live_markup
from tests.app.test_hostile_links import ENTRIES, INTERNALS, MAX_RUN_CPU_S, PAGES, messages, run_page
from tests.scenario_strategy import SCENARIOS


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(SCENARIOS)
def test_generated_links_on_the_pages(data):
    token = pack_json(data)
    turn = zlib.crc32(token.encode())  # the page and entry follow the case, so a replay runs the same page
    page, entry = PAGES[turn % len(PAGES)], ENTRIES[(turn // len(PAGES)) % 2]
    at = run_page(token, page, entry)
    where = f"{page} via {entry}: {json.dumps(data)[:300]}"
    assert not at.exception, (where, [e.value for e in at.exception])
    assert at.title, where
    assert at.cpu_seconds < MAX_RUN_CPU_S, (where, at.cpu_seconds)
    assert not live_markup(at), (where, live_markup(at))
    for text in messages(at):
        assert not INTERNALS.search(text.replace("\\", "")), (where, text)
