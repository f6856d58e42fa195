"""Generated share links through the real pages (AppTest): thousands of scenarios drawn from the schema
(``tests/scenario_strategy.py``: blocks, repeats, ranges, a hardware run, a plan), as a fresh user opening each
link would see them. No page run may show an exception element, internal wording or live user markup, or take
more than 2 s of CPU time (``page_run.MAX_RUN_CPU_S``); a refused link gives the one notice naming its field.

Which runs: a link that opens runs on all five pages (each computes something else from it); a refused one ends
the same way on every page (``state.init`` refuses it before any page code runs), so it runs on one page, the
page and the entry (via app.py, or the page file) following the link's checksum. The links: ``HOSTILE_LINKS``
from ``SCENARIOS`` (hostile values mixed in; most are refused) and ``WELL_FORMED_LINKS`` from ``WELL_FORMED``
(right kinds and ranges; ~40% open, the rest are refused for inverted ranges, page size and the like), drawn
once with a fixed seed and replayed (``tests/generated_inputs.py``).

The page runs go to a pool of worker processes (one per core this test process has, at most 4: the cores shared
out among pytest-xdist's workers; ``FLOPSCOPE_TEST_WORKERS`` overrides), each a fresh Python with the pages
imported once; with one core each (``-n 2`` on 2 cores), in the test process itself. ``FLOPSCOPE_GENERATED=draw``
draws new links instead, and prints the failing ones.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import zlib
from concurrent.futures import ProcessPoolExecutor

import pytest

from engine.errors import InputError
from engine.share_link import decode
from tests.app.hostile_corpus import pack_json
from tests.app.page_run import ENTRIES, PAGES, messages, page_problems, run_page
from tests.generated_inputs import KINDS, generated

CHUNK = 100
"""Links per test (a test's runs go to the pool together)."""
STRATEGIES = {"hostile": "hostile_links", "well-formed": "well_formed_links"}
"""The tests' name for a kind → its inputs in ``tests/generated_inputs.py`` (2,000 and 1,000 links)."""


def page_runs(data: dict) -> list[tuple[str, str, str, str | None]]:
    """(link, page, entry, the field a refusal must name or None) for each page run of one link."""
    token = pack_json(data)
    turn = zlib.crc32(token.encode())
    try:
        decode(token)
    except InputError as exc:
        return [(token, PAGES[turn % len(PAGES)], ENTRIES[(turn // len(PAGES)) % 2], exc.field)]
    return [(token, page, ENTRIES[(turn + i) % 2], None) for i, page in enumerate(PAGES)]


def check_run(run: tuple[str, str, str, str | None]) -> tuple[list[str], float, float]:
    """One page run in a worker: (problems, wall seconds, CPU seconds)."""
    token, page, entry, refused = run
    at = run_page(token, page, entry)
    problems = page_problems(at, page)
    notices = [m for m in messages(at) if "share link could not be opened" in m.replace("\\", "")]
    if refused is not None:
        if len(notices) != 1 or refused.replace("\\", "") not in notices[0].replace("\\", ""):
            problems.append(f"not one notice naming {refused!r}: {messages(at)}")
        elif not any(token[:200] in c.value for c in at.code):
            problems.append("the notice does not keep the link that failed")
    elif notices:
        problems.append(f"a link that opens gave the notice: {notices}")
    elif not (at.metric or at.get("plotly_chart") or at.dataframe or at.error):
        problems.append("neither results nor a message")
    return problems, at.seconds, at.cpu_seconds


def _warm() -> None:
    """Import and run every page once, so that no link pays the first run's imports."""
    for page in PAGES:
        for entry in ENTRIES:
            run_page(pack_json({"version": 1, "input": {"shape": [4]}, "layers": [{"type": "dense", "units": 2}]}),
                     page, entry)


def workers() -> int:
    if os.environ.get("FLOPSCOPE_TEST_WORKERS"):
        return max(1, int(os.environ["FLOPSCOPE_TEST_WORKERS"]))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(4, cores // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)))


@pytest.fixture(scope="module")
def pool():
    """Worker processes for the page runs; with one core to this test process (pytest-xdist's workers share the
    machine's), the runs stay in this process, which already runs pages."""
    if workers() == 1:
        _warm()
        yield InProcess()
        return
    with ProcessPoolExecutor(workers(), mp_context=multiprocessing.get_context("spawn"), initializer=_warm) as p:
        yield p


class InProcess:
    """``ProcessPoolExecutor.map`` in this process."""

    @staticmethod
    def map(fn, runs, chunksize=1):
        return map(fn, runs)


@pytest.fixture(scope="module")
def links() -> dict[str, list[dict]]:
    """The links of each kind, read when a test first asks for them (``-k well-formed`` reads only those)."""
    return {}


CHUNKS = [(kind, start) for kind, name in STRATEGIES.items() for start in range(0, KINDS[name][1], CHUNK)]


@pytest.mark.parametrize("kind, start", CHUNKS, ids=[f"{k}-{s}" for k, s in CHUNKS])
def test_generated_links_on_the_pages(pool, links, kind, start):
    if kind not in links:
        links[kind] = generated(STRATEGIES[kind])
    cases = links[kind][start:start + CHUNK]
    assert cases, f"{len(links[kind])} {kind} links"
    runs = [(data, run) for data in cases for run in page_runs(data)]
    failures, times = [], []
    for (data, (token, page, entry, refused)), (problems, wall, cpu) in zip(
            runs, pool.map(check_run, [r for _, r in runs], chunksize=4)):
        times.append({"page": page, "opens": refused is None, "wall": round(wall, 3), "cpu": round(cpu, 3)})
        if problems:
            failures.append(f"{page} via {entry}: {problems} — {json.dumps(data)[:300]} — link {token[:300]}")
    if os.environ.get("FLOPSCOPE_GENERATED_TIMES"):  # the page runs' times, for the record (one JSON line a test)
        with open(os.environ["FLOPSCOPE_GENERATED_TIMES"], "a") as out:
            out.write(json.dumps({"kind": kind, "start": start, "links": len(cases), "runs": times}) + "\n")
    assert not failures, f"{len(failures)} of {len(runs)} page runs:\n" + "\n".join(failures[:5])
