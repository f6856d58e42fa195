"""Three users at once on one server: each edits the layer builder's epochs and runs the hardware page
with values of its own, and sees only its own totals (Epoch AI's worked example × epochs / 10; chips ×
1 day × 312 TFLOP/s × the reported-runs median utilization), never another user's, and no exception element. The load benchmark
(bench/bench_load.py) runs the same flow with 5, 10 and 20 users and times it."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.browser.harness import CHROMIUM_ARGS
from tests.browser.sessions import epochs_for, hardware_total, layer_total, user

USERS = 3
EDITS = 3


def test_the_helpers_values_are_distinct():
    """The check can tell users apart only if no two of them ever expect the same figure."""
    totals = [layer_total(epochs_for(u, e)) for u in range(USERS) for e in range(EDITS)]
    assert len(set(totals)) == len(totals)
    assert len({hardware_total(8 + u + 1) for u in range(USERS)}) == USERS
    # from the formulas, not the page: 10 epochs are Epoch's worked example (1.13e16 FLOP), 8 A100s a day
    # at the reported-runs median (0.340125): 8 × 86,400 × 312e12 × 0.340125 = 7.33e19
    assert layer_total(10) == "1.13e16 FLOP" and hardware_total(8) == "7.33e19 FLOP"


def test_three_concurrent_users_see_only_their_own_values(server, chromium_path):
    async_api = pytest.importorskip("playwright.async_api")

    async def run():
        async with async_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
            try:
                return await asyncio.gather(*(user(browser, server, u, EDITS) for u in range(USERS)))
            finally:
                await browser.close()

    # a thread of its own: this worker may hold the synchronous Playwright of another browser test, whose
    # event loop is running in the main thread (asyncio.run refuses to start a second loop there)
    with ThreadPoolExecutor(1) as pool:
        results = pool.submit(asyncio.run, run()).result()
    assert [r["problems"] for r in results] == [[]] * USERS
    assert [len(r["edit_s"]) for r in results] == [EDITS] * USERS
