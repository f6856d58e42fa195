"""The coverage sweep (``tests/llm/coverage.py``): every text model type of the pinned transformers, from its
config class's defaults, written by ``to_dict()`` and ``save_pretrained()``, is either counted exactly
(parameters and forward FLOP equal to transformers' model on the meta device, both files) or refused by a
message naming a key; a wrong number fails. docs/llm.md's coverage table and README's count are current
(regenerate: ``python -m tests.llm.coverage``)."""
from __future__ import annotations

import pytest

pytest.importorskip("transformers")
from tests.llm import coverage


@pytest.fixture(scope="module")
def rows(torch):
    return coverage.sweep()  # asserts each row: exact on both files, or refused naming a key


def test_every_text_type_is_exact_or_refused_by_name(rows):
    assert len(rows) >= 200  # transformers 5.25.0 has 222 text model types with a language-model class
    assert {r.outcome for r in rows} <= {"exact", "refused"}
    assert all(r.why.startswith("config.") for r in rows if r.outcome == "refused")
    from engine.llm.families import FAMILIES

    exact = {r.model_type for r in rows if r.outcome == "exact"}
    assert {r.model_type for r in rows if r.model_type in FAMILIES} <= exact  # every supported family


def test_docs_table_and_readme_count_are_current(rows):
    assert coverage.current_doc_table() == coverage.table(rows), "regenerate: python -m tests.llm.coverage"
    assert coverage.readme_sentence(rows) in coverage.README.read_text(), "regenerate: python -m tests.llm.coverage"
