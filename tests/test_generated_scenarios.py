"""Generated scenarios (``tests/scenario_strategy.py``), as share links, through everything a page computes from
a link: decoding, method 1 (rows, blocks), method 2, the plan, the Markdown report and the CSV. The only
outcomes are results or one clear ``InputError`` in the user's words, within the time budget of a page run. The
1,500 scenarios are drawn once with a fixed seed and replayed (``tests/generated_inputs.py``)."""
from __future__ import annotations

import json
import time

from engine.errors import InputError
from engine.method1.architecture import MAX_COUNT
from engine.method2.run import estimate_method2
from engine.report import markdown_report
from engine.share_link import decode
from tests.app.hostile_corpus import pack_json
from tests.app.page_run import INTERNALS
from tests.generated_inputs import generated

BUDGET_CPU_S = 2.0
"""A page run's budget (``tests/app/page_run.MAX_RUN_CPU_S``, CPU seconds): the engine's share fits well inside."""


def check_message(exc: InputError) -> None:
    message = str(exc)
    assert exc.field and exc.reason and "\n" not in message and len(message) < 600, message
    assert not INTERNALS.search(message), message


def everything_a_page_computes(token: str) -> None:
    try:
        scenario = decode(token)
    except InputError as exc:
        check_message(exc)
        return
    est = scenario.method1(strict=False)
    if est.error is not None:
        check_message(est.error)
    if est.architecture is not None:
        for row in est.architecture.rows + est.architecture.blocks:
            assert 0 <= row.params <= MAX_COUNT and 0 <= row.forward_flop <= MAX_COUNT
            row.output.encode() if hasattr(row, "output") else None  # the shape prints (no 4,300-digit integer)
    if scenario.hardware is not None:
        try:
            estimate_method2(scenario.hardware)
        except InputError as exc:
            check_message(exc)
    from ui.exports import layer_table_csv

    layer_table_csv(est)
    report = markdown_report(scenario, est)
    assert "Traceback" not in report


def test_generated_links_give_results_or_a_message_within_budget():
    scenarios = generated("scenarios")
    assert len(scenarios) >= 1500
    for data in scenarios:
        token = pack_json(data)
        try:
            spent = cpu_seconds(token)
            if spent >= BUDGET_CPU_S / 2:  # the page-run rule (tests/app/page_run.py): a run past the budget is
                spent = cpu_seconds(token)  # rerun once, so a collector pause does not fail a link that is fast
            assert spent < BUDGET_CPU_S / 2, f"{spent:.2f} s of CPU"
        except Exception as exc:
            exc.add_note(f"the scenario: {json.dumps(data)[:300]}")
            raise


def cpu_seconds(token: str) -> float:
    """CPU seconds of this thread (servers and watchdogs that other tests left running in the process excluded)."""
    start = time.thread_time()
    everything_a_page_computes(token)
    return time.thread_time() - start
