"""The hostile-input suite: every crafted link of ``hostile_corpus`` (558 links, 15 categories) through
Streamlit's AppTest, landing via ``app.py`` and directly on each page file. Each run must end in results or
a clear notice — never an exception element — with no user text rendered as live Markdown/HTML (``markup``:
Markdown elements, widget labels and help, radio options, tabs, Plotly text), messages in the user's words,
and at most ``MAX_RUN_CPU_S`` (2 s) of CPU time (``page_run``).

Which runs (~990 page runs instead of 558 × 5 pages × 2 entries):
- a link that opens (a valid scenario: 131 of them) runs on all five pages, since each page computes
  something else from it; the entry (via app.py, or the page file directly) alternates from case to case;
  the 42 of the ``derived`` category run on one page each (the page their section feeds: plan, hardware…);
- a link that is refused (396) ends the same way on every page (state.init refuses it before any page
  code runs and the default example is shown), so each runs once, on one (page, entry) pair taken in
  turn, so that all ten pairs see refused links of every category;
- the links the issues reproduced (22) run on every page, the entry alternating from page to page and link to
  link (so each page sees each entry).
Every link is also decoded by the engine directly (fast) and its message checked.
"""
from __future__ import annotations

import json
from itertools import cycle

import pytest

from engine.errors import InputError
from engine.share_link import decode
from tests.app.hostile_corpus import (HW, NO_COMPUTE_LINK, SEED, Case, corpus, nested_branches, nested_repeats,
                                      on_vector, pack_json, pack_text, sequence_doubling)
from tests.app.page_run import ENTRIES, INTERNALS, PAGES, messages, page_problems, run_page

CORPUS = corpus()


def outcome(case: Case) -> InputError | None:
    try:
        decode(case.token)
    except InputError as exc:
        return exc
    return None


OUTCOMES = {repr(c): outcome(c) for c in CORPUS}


def check_page(at, case: Case, page: str) -> None:
    problems = page_problems(at, page)
    assert not problems, problems
    notices = [m for m in messages(at) if "share link could not be opened" in m.replace("\\", "")]
    refused = OUTCOMES[repr(case)]
    if refused is not None:
        assert len(notices) == 1, messages(at)
        assert refused.field.replace("\\", "") in notices[0].replace("\\", "")  # the notice names the field
        assert any(case.token[:200] in c.value for c in at.code)  # and keeps the link that failed
    else:
        assert not notices, notices
        results = at.metric or at.get("plotly_chart") or at.dataframe
        assert results or at.error, f"{page}: neither results nor a message"


SECTION_PAGE = {"plan": "plan", "hardware": "hardware", "training": "precision"}
"""A derived case that opens runs on the page that uses its section (``plan.…`` on the plan page …)."""


def plan() -> list[tuple[Case, str, str]]:
    runs = []
    pairs = cycle([(page, entry) for entry in ENTRIES for page in PAGES])
    derived = cycle(PAGES)
    for i, case in enumerate(CORPUS):
        if OUTCOMES[repr(case)] is not None:
            runs.append((case, *next(pairs)))
        elif case.category == "derived":  # one page each (the one its section feeds), to keep the suite short
            page = SECTION_PAGE.get(case.id.partition(".")[0]) or next(derived)
            runs.append((case, page, ENTRIES[i % 2]))
        else:
            runs += [(case, page, ENTRIES[i % 2]) for page in PAGES]
    return runs


RUNS = plan()


@pytest.mark.parametrize("case", CORPUS, ids=repr)
def test_every_link_opens_or_is_refused_in_the_users_words(case):
    refused = OUTCOMES[repr(case)]
    if refused is None:
        assert case.expect in ("results", "either"), f"expected a refusal: {case!r}"
        return
    assert case.expect in ("notice", "either"), f"expected to open, got: {refused}"
    message = str(refused)
    assert len(message.splitlines()) == 1 and len(message) < 600, message
    assert refused.field and refused.reason
    assert not INTERNALS.search(message), message


@pytest.mark.parametrize("case, page, entry", RUNS, ids=[f"{c!r}-{p}-{e}" for c, p, e in RUNS])
def test_link_on_page(case, page, entry):
    check_page(run_page(case.token, page, entry), case, page)


TRANSPOSE = {"type": "conv_transpose2d", "filters": 1, "kernel_size": 1, "stride": 10**9}
ISSUE_LINKS = {
    "49-char huge integer": "1.eNrtwTEJAAAIALAuNvA1mSB2N4ewbaKjEgAAAOCTPT7ZOVk",
    "19 transposed convs, stride 1e9": pack_json({"version": 1, "input": {"shape": [4, 4, 1]},
                                                  "layers": [TRANSPOSE] * 19, "training": {"epochs": 1, "examples": 1}}),
    "duration 1e308": pack_json({**SEED, "hardware": {**HW, "duration": 1e308}}),
    "chip_count 1e308": pack_json({**SEED, "hardware": {**HW, "chip_count": 1e308}}),
    "peak 1e308": pack_json({**SEED, "hardware": {**{k: v for k, v in HW.items() if k != "chip"},
                                                  "peak_flop_per_s": 1e308}}),
    "utilization 0.005": pack_json({**SEED, "hardware": {**HW, "utilization": 0.005}}),
    "utilization 1e-320": pack_json({**SEED, "hardware": {**HW, "utilization": 1e-320}}),
    "empty object": pack_json({}),
    "quick mode without the form": pack_json({"mode": "quick"}),
    "unknown chip": pack_json({**SEED, "hardware": {**HW, "chip": "nvidia-zz9000"}}),
    "100,000 layers": pack_json({"version": 1, "input": {"shape": [4]}, "layers": [{"type": "flatten"}] * 100_000}),
    "no compute (plan MFU divided by zero)": NO_COMPUTE_LINK,
    "chip_count_high 1e308": pack_json({**SEED, "hardware": {**HW, "chip_count_high": 1e308}}),
    "sequence doubled 40 times": pack_json(sequence_doubling(40)),
    "sequence doubled 100,000 times": pack_json(sequence_doubling(100_000)),
    "4 nested repeats of a dense": pack_json(on_vector(nested_repeats(4, 100_000))),
    "residual of 99,999 layers": pack_json(on_vector({"type": "residual", "body": [{"type": "flatten"}] * 99_999})),
    "branches nested 12 deep": pack_json(on_vector(nested_branches(12))),
    "plan.chip not a slug": pack_json({**SEED, "plan": {"chip": "NVIDIA H100"}}),
    "boolean epochs": pack_json({**SEED, "training": {**SEED["training"], "epochs": True}}),
    "duplicate key": pack_text(json.dumps(SEED)[:-1] + ',"name":"a","name":"b"}'),
    "markdown in a custom chip name": pack_json({**SEED, "hardware": {
        **{k: v for k, v in HW.items() if k != "chip"}, "allow_fallback": True,
        "custom_chip": {"name": "[Session expired - sign in again](https://login.evil.example/)",
                        "peaks": {"fp32": 20e12}}}}),
}


ISSUE_RUNS = [(name, page, ENTRIES[(i + j) % 2]) for i, name in enumerate(ISSUE_LINKS) for j, page in enumerate(PAGES)]


@pytest.mark.parametrize("name, page, entry", ISSUE_RUNS, ids=[f"{n}-{p}-{e}" for n, p, e in ISSUE_RUNS])
def test_the_issue_links_on_every_page(name, page, entry):
    case = Case("issue", name, ISSUE_LINKS[name], "either")
    OUTCOMES.setdefault(repr(case), outcome(case))
    check_page(run_page(case.token, page, entry), case, page)
